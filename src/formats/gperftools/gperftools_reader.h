/*
 * gperftools_reader.h: the gperftools reader's state, shared by the reader
 * (gperftools_read.c) and its records' way in (gperftools_readahead.c: the
 * input window, the read-ahead thread and the table of distinct records).
 */
#ifndef PROFKIT_GPERFTOOLS_READER_H
#define PROFKIT_GPERFTOOLS_READER_H

#include "formats/gperftools/gperftools.h"
#include "util/cursor.h"

/* Word size and byte order. */
typedef struct gp_layout {
    unsigned ws; /* 4 or 8 */
    int be;
    const char *name;
} gp_layout;

static inline uint64_t gp_word(const gp_layout *l, const uint8_t *p)
{
    if (l->ws == 8)
        return l->be ? pk_load_be64(p) : pk_load_le64(p);
    return l->be ? pk_load_be32(p) : pk_load_le32(p);
}

/*
 * The reader's state. Records are streamed through a window (the input is
 * never held whole, so a 200 MB profile costs no 200 MB of memory); each
 * distinct PC gets a dense index, and each distinct record keeps its PC
 * indexes in an arena until the maps text, which follows the records, has
 * been read and frames (which carry their mapping) can be made.
 */
typedef struct gp_reader {
    pk_read_ctx *ctx;
    const gp_layout *l;
    /* input window: buf[pos..len) is unread; base is the offset of buf[0] */
    uint8_t *buf;
    size_t cap, len, pos;
    uint64_t base;
    int eof;
    /* distinct PCs: pc_val[i]; hash pc -> i + 1 */
    uint64_t *pc_val;
    size_t n_pcs, cap_pcs;
    uint32_t *pc_slots;
    size_t pc_cap;
    /* distinct records: key = arena[key_off .. key_off + depth) */
    uint32_t *arena;
    size_t n_arena, cap_arena; /* entries of the arena's width */
    int narrow; /* arena holds uint16_t entries: from the start, until a
                 * record may bring the PCs past 2^16 (pk_gperftools_widen);
                 * again after the records when there are at most 2^16 */
    uint64_t max_count; /* most samples a stack may have: cpu must fit 63 bits */
    uint32_t max_depth; /* most PCs a record with samples may have (--max-depth); 0 = any */
    uint64_t period;    /* µs, for messages */
    /* An open-addressing table whose slots are the entries themselves, so a
     * lookup costs one cache miss before the key; compacted to the first
     * n_recs slots once the records are read. */
    struct rec_entry {
        uint32_t hash;  /* high half of the key's hash */
        uint32_t depth; /* 0 = empty slot */
        uint64_t key_off;
        uint64_t count; /* summed over identical records */
    } *recs;
    size_t n_recs, rec_cap;
} gp_reader;

/* The PC index at position k (leaf first) of the arena. */
static inline uint32_t gp_arena_at(const gp_reader *r, size_t k)
{
    return r->narrow ? ((const uint16_t *)(const void *)r->arena)[k] : r->arena[k];
}

/* Makes the arena's entries 32-bit. Returns 0 or PROFKIT_ENOMEM. */
int pk_gperftools_widen(gp_reader *r);

/*
 * Makes `need` unread bytes available in the window, or as many as the
 * input still has (r->eof then). Returns 0 or an error with r->ctx->err.
 */
int pk_gperftools_fill(gp_reader *r, size_t need);

/*
 * Reads every record into the table of distinct records, and after a
 * trailer the rest of the input into the window (*trailer = 1). Returns 0
 * or an error code with r->ctx->err filled.
 */
int pk_gperftools_read_records(gp_reader *r, int *trailer, uint64_t *n_records);

#endif
