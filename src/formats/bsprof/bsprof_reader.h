/*
 * bsprof_reader.h: the bsprof reader's state, shared by the reader
 * (bsprof_read.c) and its fast decoders for data entries
 * (bsprof_decode.c), which decode into the reader's batch.
 */
#ifndef PROFKIT_BSPROF_READER_H
#define PROFKIT_BSPROF_READER_H

#include "formats/bsprof/bsprof.h"
#include "formats/bsprof/live_table.h"
#include "model/counter_iter.h"
#include "util/map64.h"

#if defined(__GNUC__)
#define PK_NOINLINE __attribute__((noinline, cold))
#define PK_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PK_NOINLINE
#define PK_ALWAYS_INLINE inline
#endif

/* No id, row or element (what an empty map slot holds). */
#define EMPTY PK_MAP64_EMPTY

/*
 * Ids of strings, modules and path elements: producers number them 1, 2,
 * 3, ..., so a dense array serves them; it only grows to cover an id when
 * the ids defined so far could nearly fill it (so a hostile id of 4e9 cannot
 * size an allocation). Other ids go to a map.
 */
typedef struct idtab {
    uint32_t *dense; /* dense[id], EMPTY = undefined */
    size_t n_dense, count;
    pk_map64 sparse;
} idtab;

#define PE_CACHE 4

/* A path element as the reader keeps it. */
typedef struct pelem {
    uint32_t function;     /* model function of this element */
    uint32_t line;         /* definition line as the entry gives it */
    uint32_t thread;       /* model thread of the root element's module */
    uint32_t parent_stack; /* model stack of the caller chain */
    uint32_t next;         /* row cache slot to replace next */
    uint32_t evicted;      /* the row cache let a row go (to line_rows) */
} pelem;

/*
 * Rows of the last few line offsets a path element's entries used (EMPTY =
 * none), so most entries find their row without a lookup, and the memory
 * operations counted at those rows that have not reached the value rows
 * yet (flush_slot()), so a memory operation touches no value row. Kept
 * apart from pelem, 64 bytes each in an aligned array: one cache line per
 * entry.
 */
/* Memory operations counted at a row and not yet in its value row. */
typedef struct pe_counts {
    uint32_t space; /* alloc_space */
    uint16_t allocs, frees;
} pe_counts;

typedef struct pe_rows {
    uint32_t row[PE_CACHE];
    uint32_t off[PE_CACHE];
    pe_counts n[PE_CACHE];
} pe_rows;

_Static_assert(sizeof(pe_rows) == 64, "a row cache is one cache line");

/* Without lines (no line data, or skip_lines) a path element has one row:
 * it and its counts in 16 bytes, four path elements to a cache line. The
 * counts are wider than pe_counts', so that counting costs one test: objs
 * holds the allocations in its low 16 bits and the frees in its high 16,
 * each moved to the row before it reaches 2^15 (PE_OBJS_FULL), and space
 * (at most 2^16 sizes below 2^32 between moves) cannot overflow. */
typedef struct pe_flat {
    uint32_t row;  /* EMPTY until its first entry */
    uint32_t objs; /* allocations | frees << 16 */
    uint64_t space; /* alloc_space */
} pe_flat;

#define PE_OBJS_FULL 0x80008000u

_Static_assert(sizeof(pe_flat) == 16, "four to a cache line");

/* A decoded data entry waiting in the batch (see batch_apply()). */
typedef struct data_entry {
    uint32_t pe, off, row;
    uint32_t kind;
    uint64_t a, b; /* address and size (0 for a free), cpu and wall, or the count and 0 */
    uint64_t at;   /* offset of the entry */
} data_entry;

/* How a data entry is laid out (see build_shapes()). */
typedef struct entry_shape {
    uint8_t valid;       /* a data entry the fast path reads */
    uint8_t kind;        /* D_ALLOC, D_FREE, D_CPU, D_CALLS */
    uint8_t shift;       /* path element id = tag >> shift */
    uint8_t nf;          /* varints after the tag */
    uint8_t off, a, b;   /* which of them is the line offset, a and b (3: none, 0) */
    uint8_t off_default; /* added to the line offset */
    uint8_t keep_off;    /* 0: the offset is checked, then read as 0 (no lines) */
} entry_shape;

/*
 * Bytes in use per thread by operation order (the thread's memory counter):
 * a run of operations is a bucket keeping the lowest, the highest and the
 * last total in it and the operations at which they were reached. A
 * bucket is one operation until a thread has MEM_BUCKETS of them; then
 * neighbours merge in pairs and a bucket covers twice as many, so the
 * series stays within 3 * MEM_BUCKETS samples per thread while its peak,
 * its lowest point and its final value stay exact.
 */
typedef struct mem_bucket {
    uint64_t min_at, max_at, last_at; /* operation indexes */
    int64_t min, max, last;           /* totals after those operations */
} mem_bucket;

#define MEM_BUCKETS 8192

/*
 * A thread's series. What every operation touches is its first 64 bytes:
 * the running total, the operation count and the open bucket's lowest and
 * highest (its last is the total), updated without a branch; the closed
 * buckets (b[0..n)) are written only when a bucket closes, once per
 * 2^shift operations.
 */
typedef struct mem_series {
    int64_t total;          /* bytes in use now */
    uint64_t ops;           /* operations so far */
    uint64_t next;          /* the first operation past the open bucket (0: none open yet) */
    int64_t min, max;       /* the open bucket's lowest and highest total */
    uint64_t min_at, max_at; /* and the operations that reached them */
    unsigned shift;         /* a bucket covers 2^shift operations */
    mem_bucket *b;          /* the closed buckets */
    size_t n, cap;
} mem_series;

/* Data entries decoded before they are applied. */
#define BATCH 64

/* The streaming input: buf[pos..len) is unread; base is buf[0]'s offset. */
typedef struct input {
    pk_source *src;
    uint8_t *buf;
    size_t cap, len, pos;
    uint64_t base;
    int eof;
    int mapped; /* buf is the source's mapping of the whole file */
} input;

typedef struct reader {
    profkit_profile *p;
    pk_read_ctx *ctx;
    input in;
    int line_data;
    int lines; /* frames carry lines: line data, and no skip_lines (else every
                  offset reads as 0 and frames take definition lines) */

    idtab strings; /* bsprof string id -> model string id */
    idtab modules; /* module id -> model thread */
    idtab pe_ids;  /* path element id -> index in pe */
    pelem *pe;
    pe_rows *pe_row;  /* n_pe of them, 64-byte aligned, when lines */
    pe_flat *pe_flat; /* n_pe of them, 64-byte aligned, when not */
    size_t n_pe, cap_pe, cap_pe_row;
    /* Every path element so far was defined once, as id 1, 2, 3, ... in
     * order (the usual case): id N is index N - 1, no lookup needed. */
    int pe_in_order;

    pk_map64 line_rows; /* (pe index << 32 | line offset) -> row, for rows a row cache let go */
    pk_map64 row_ids;   /* (stack << 32 | thread) -> row */
    uint32_t *row_stack, *row_thread;
    /* The thread of each row in a byte while every thread's index fits
     * one (row_th8_ok): the memory counters look it up for every memory
     * operation, at random, and a byte a row keeps that table in cache. */
    uint8_t *row_th8;
    int row_th8_ok;
    int64_t *acc; /* N_VALUES per row */
    size_t n_rows, cap_rows;

    pk_live_table live;
    mem_series *mem; /* by model thread, n_mem of them */
    size_t n_mem;
    int match_frees;
    /* Each memory operation's record (model/counter_iter.h: what a range
     * of operations did per allocation site) while counters and at most
     * PK_MEM_OPS_MAX of them. Meanwhile the live table holds, in place of
     * an allocation's row, its index in alloc[]: its row and its operation
     * index in its thread (so a free finds the operation it frees in the
     * slot it reads anyway). */
    pk_mem_ops *ops;
    struct kept_alloc { uint32_t row, op; } *alloc;
    size_t n_alloc, cap_alloc;
    int counters; /* the memory counters are built (match_frees, no skip_counters) */ /* 0 with skip_inuse: no live table, inuse_* stay 0 */
    uint64_t n_entries, n_mem_ops, unmatched_frees, first_unmatched;

    data_entry batch[BATCH]; /* decoded data entries waiting to be applied */
    int (*apply)(struct reader *r); /* applies them (bsprof_read.c's batch_apply_pick()) */
    entry_shape shapes[32];  /* by the low five bits of a tag */
    size_t n_batch;
    /* Until `capped`, sum bounds every value type's total, so no value can
     * reach the cap and the sums are added as they come; from then on
     * grand[] holds each value type's exact total and every addition is
     * capped (acc_add). */
    uint64_t sum;
    int capped;
    int cut; /* the stream ends before its footer: live objects are not known leaks */
    int64_t grand[N_VALUES];
    int warned_dup[3];
} reader;

typedef int (*batch_apply_fn)(reader *r);

/* What a data entry does (data_entry.kind). */
enum { D_ALLOC, D_FREE, D_CPU, D_CALLS };

/*
 * The fast path for data entries reads whole words and finds where the
 * varints of an entry end from their high bits at once, so the only chain
 * from one entry to the next is a few bit operations (not a load per
 * varint). The caller guarantees that FAST_MARGIN bytes can be read at p.
 */
#define FAST_MARGIN 64

/* A fast decoder (bsprof_decode.c): decodes data entries from p (n bytes,
 * of which at least FAST_MARGIN past each entry's start; at is p's offset
 * in the input) into r's batch; returns the bytes it consumed. */
typedef size_t (*decode_fast_fn)(reader *r, const uint8_t *p, size_t n, uint64_t at);

/* The decoder the reader uses: the fastest this CPU runs (BMI2 where its
 * PEXT is fast), or the generic one when pk_bsprof_decoder says so. */
decode_fast_fn pk_bsprof_decode_pick(void);
/* The generic decoder (any CPU). */
size_t pk_bsprof_decode_generic(reader *r, const uint8_t *p, size_t n, uint64_t at);

/* Which decoder pk_bsprof_decode_pick gives: the fastest (the default), or
 * the generic one, which the unit tests set so that it runs where the BMI2
 * one would be picked (docs/testing.md), or the BMI2 one without AVX2 (the
 * generic one where PEXT is not fast), which they set so that it runs where
 * AVX2 is there too. Read at the start of each read. */
enum { PK_BSPROF_DECODE_FASTEST, PK_BSPROF_DECODE_GENERIC, PK_BSPROF_DECODE_BMI2 };
extern int pk_bsprof_decoder;

/* Fills shapes[] (by the low five bits of a tag) for a file with line data
 * ld, keeping line offsets when lines (see bsprof_decode.c). */
void pk_bsprof_build_shapes(entry_shape shapes[32], unsigned ld, unsigned lines);

#endif
