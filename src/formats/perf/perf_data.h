/*
 * perf_data.h: what the two files of the perf.data reader share.
 * perf_data.c reads the header, the event attributes, the feature sections
 * and the metadata records, and lists the records to replay in time order;
 * perf_data_events.c decodes the records and replays them (mappings,
 * threads, samples) into the profile; perf_data.c calls it, never the
 * other way. docs/formats/perf_data.md has the format and the rulings.
 */
#ifndef PROFKIT_PERF_DATA_H
#define PROFKIT_PERF_DATA_H

#include "formats/registry/format.h"
#include "util/cursor.h"

/* Record types (include/uapi/linux/perf_event.h, tools/perf/util/event.h). */
enum {
    PK_PERF_MMAP = 1,
    PK_PERF_LOST = 2,
    PK_PERF_COMM = 3,
    PK_PERF_EXIT = 4,
    PK_PERF_FORK = 7,
    PK_PERF_SAMPLE = 9,
    PK_PERF_MMAP2 = 10,
    PK_PERF_LOST_SAMPLES = 13,
    PK_PERF_HEADER_ATTR = 64,
    PK_PERF_HEADER_TRACING_DATA = 66,
    PK_PERF_HEADER_BUILD_ID = 67,
    PK_PERF_AUXTRACE = 71,
    PK_PERF_EVENT_UPDATE = 78,
    PK_PERF_HEADER_FEATURE = 80,
    PK_PERF_COMPRESSED = 81
};

/* sample_type bits. */
enum {
    PK_PERF_S_IP = 1 << 0,
    PK_PERF_S_TID = 1 << 1,
    PK_PERF_S_TIME = 1 << 2,
    PK_PERF_S_ADDR = 1 << 3,
    PK_PERF_S_READ = 1 << 4,
    PK_PERF_S_CALLCHAIN = 1 << 5,
    PK_PERF_S_ID = 1 << 6,
    PK_PERF_S_CPU = 1 << 7,
    PK_PERF_S_PERIOD = 1 << 8,
    PK_PERF_S_STREAM_ID = 1 << 9,
    PK_PERF_S_RAW = 1 << 10,
    PK_PERF_S_BRANCH_STACK = 1 << 11,
    PK_PERF_S_REGS_USER = 1 << 12,
    PK_PERF_S_STACK_USER = 1 << 13,
    PK_PERF_S_WEIGHT = 1 << 14,
    PK_PERF_S_DATA_SRC = 1 << 15,
    PK_PERF_S_IDENTIFIER = 1 << 16,
    PK_PERF_S_TRANSACTION = 1 << 17,
    PK_PERF_S_REGS_INTR = 1 << 18,
    PK_PERF_S_PHYS_ADDR = 1 << 19,
    PK_PERF_S_AUX = 1 << 20,
    PK_PERF_S_CGROUP = 1 << 21,
    PK_PERF_S_DATA_PAGE_SIZE = 1 << 22,
    PK_PERF_S_CODE_PAGE_SIZE = 1 << 23,
    PK_PERF_S_WEIGHT_STRUCT = 1 << 24,
    PK_PERF_S_KNOWN = (1 << 25) - 1
};

/* One event attribute (struct perf_event_attr, the fields the reader uses). */
typedef struct pk_perf_attr {
    uint32_t type;
    uint64_t config;
    uint64_t sample_period; /* or the frequency, when freq */
    uint64_t sample_type;
    uint64_t read_format;
    uint64_t branch_sample_type;
    uint32_t n_regs_user, n_regs_intr; /* registers sampled (bits set) */
    int freq, sample_id_all;
    int id_pos, is_pos;   /* the id's u64 index from a sample's start / a
                             record's end (-1: none), as perf computes them */
    uint32_t trailer;     /* bytes of the sample_id_all trailer */
    uint32_t name;        /* string id in the profile; 0 = none given */
    uint32_t vt;          /* its value type; PROFKIT_NONE until a sample */
    int64_t at;           /* where it was read (messages) */
} pk_perf_attr;

/* A record to replay: its time (ns) and offset (pk_perf_record_at). */
typedef struct pk_perf_rec {
    uint64_t time;
    uint64_t off;
} pk_perf_rec;

/* A build id the file records for a path (feature or record). */
typedef struct pk_perf_buildid {
    uint32_t path;     /* string id */
    uint32_t build_id; /* string id, lowercase hex */
} pk_perf_buildid;

typedef struct pk_perf {
    profkit_profile *p;
    pk_read_ctx *ctx;
    const uint8_t *d;
    size_t n;
    int be;   /* the file's byte order */
    int pipe; /* pipe mode: the header is in the stream */

    pk_perf_attr *attrs;
    size_t n_attrs, cap_attrs;
    /* id -> attr: open addressing, slots hold attr index + 1 (0 = empty) */
    uint64_t *id_key;
    uint32_t *id_attr;
    size_t id_cap, id_used;
    int layout_checked; /* the attrs were checked for a common id layout */

    pk_perf_buildid *buildids;
    size_t n_buildids, cap_buildids;

    pk_perf_rec *recs;
    size_t n_recs, cap_recs;
    int timed; /* every attr samples TIME: the samples keep their times */

    /* perf record -z: the COMPRESSED records' payloads (one zstd stream),
     * and the records they decompress to (dd, dn bytes) */
    uint8_t *zbuf;
    size_t zlen, zcap;
    int64_t z_at; /* the first COMPRESSED record, where their messages point */
    pk_source *zsrc;
    const uint8_t *dd;
    size_t dn;

    uint64_t lost, lost_samples;
    /* samples whose id no attr has: skipped, reported once */
    uint64_t unknown_id;
    int64_t unknown_id_at;
} pk_perf;

/* Loads in the file's byte order (p has the bytes: callers check first). */
static inline uint16_t pk_perf_u16(const pk_perf *r, const uint8_t *p)
{
    return r->be ? pk_load_be16(p) : (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t pk_perf_u32(const pk_perf *r, const uint8_t *p)
{
    return r->be ? pk_load_be32(p) : pk_load_le32(p);
}
static inline uint64_t pk_perf_u64(const pk_perf *r, const uint8_t *p)
{
    return r->be ? pk_load_be64(p) : pk_load_le64(p);
}
/* Bounds-checked reads through a cursor, in the file's byte order. */
static inline int pk_perf_rd32(const pk_perf *r, pk_cursor *c, uint32_t *v)
{
    return r->be ? pk_cursor_be32(c, v) : pk_cursor_le32(c, v);
}
static inline int pk_perf_rd64(const pk_perf *r, pk_cursor *c, uint64_t *v)
{
    return r->be ? pk_cursor_be64(c, v) : pk_cursor_le64(c, v);
}

/* The record at offset off of the list: the input's, or past its end
 * the decompressed records'. */
static inline const uint8_t *pk_perf_record_at(const pk_perf *r, uint64_t off)
{
    return off < r->n ? r->d + off : r->dd + (off - r->n);
}

/* The attr whose id is `id`, or NULL. */
static inline pk_perf_attr *pk_perf_attr_of_id(pk_perf *r, uint64_t id)
{
    if (!r->id_cap)
        return NULL;
    size_t mask = r->id_cap - 1;
    for (size_t j = pk_hash_u64(id) & mask; r->id_attr[j]; j = (j + 1) & mask)
        if (r->id_key[j] == id)
            return &r->attrs[r->id_attr[j] - 1];
    return NULL;
}

/*
 * The attr a record belongs to (by its id when there are several; NULL when
 * no attr has that id), for a record of `size` bytes at rec (header
 * included). The caller checked the attrs' common layout (layout_checked).
 */
pk_perf_attr *pk_perf_record_attr(pk_perf *r, uint32_t type, const uint8_t *rec, size_t size);

/*
 * The time of a record (0 when it carries none). Returns 0, or an error
 * (with r->ctx->err filled, at offset `at`) when a sample is too short for
 * the fields before its time.
 */
int pk_perf_record_time(pk_perf *r, const pk_perf_attr *a, uint32_t type, const uint8_t *rec,
                        size_t size, int64_t at, uint64_t *time);

/*
 * Replays r->recs (sorted by time) into the profile: mappings, threads,
 * samples. Then gives the mappings the build ids of r->buildids. Returns 0
 * or a code with r->ctx->err filled.
 */
int pk_perf_replay(pk_perf *r);

#endif
