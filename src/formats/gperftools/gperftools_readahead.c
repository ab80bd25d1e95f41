/*
 * gperftools_readahead.c: the gperftools reader's records' way in: the
 * window the input streams through, the read-ahead thread that reads and
 * checks the records, and the table of distinct records the caller's
 * thread adds them to (gperftools_reader.h; the format is described at the
 * top of gperftools_read.c).
 */
#include "formats/gperftools/gperftools_reader.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>

/* The window grows only while the bytes keep coming, so an absurd record
 * depth costs no more than the input's size. */
int pk_gperftools_fill(gp_reader *r, size_t need)
{
    if (r->len - r->pos >= need || r->eof)
        return 0;
    if (r->len > r->pos && r->pos > 0)
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
    r->base += r->pos;
    r->len -= r->pos;
    r->pos = 0;
    while (r->len < need && !r->eof) {
        if (r->len == r->cap &&
            pk_grow((void **)&r->buf, &r->cap, r->cap ? r->cap + 1 : 1 << 20, 1) != 0)
            return pk_read_fail(r->ctx, PROFKIT_ENOMEM, -1, "out of memory");
        size_t got;
        int rc = pk_source_read(r->ctx->src, r->buf + r->len, r->cap - r->len, &got,
                                     r->ctx->err);
        if (rc)
            return rc;
        if (got == 0)
            r->eof = 1;
        r->len += got;
    }
    return 0;
}

/* ---- the table of distinct records ---- */

static int pc_slots_grow(gp_reader *r)
{
    size_t ncap = r->pc_cap ? r->pc_cap * 2 : 4096;
    uint32_t *s = calloc(ncap, sizeof(uint32_t));
    if (!s || ncap < r->pc_cap) {
        free(s);
        return PROFKIT_ENOMEM;
    }
    for (size_t i = 0; i < r->n_pcs; i++) {
        size_t j = pk_hash_u64(r->pc_val[i]) & (ncap - 1);
        while (s[j])
            j = (j + 1) & (ncap - 1);
        s[j] = (uint32_t)i + 1;
    }
    free(r->pc_slots);
    r->pc_slots = s;
    r->pc_cap = ncap;
    return 0;
}

/* The dense index of a PC, made on first sight; PROFKIT_NONE when out of memory. */
static uint32_t pc_index(gp_reader *r, uint64_t pc)
{
    if ((r->n_pcs + 1) * 2 > r->pc_cap && pc_slots_grow(r) != 0)
        return PROFKIT_NONE;
    size_t j = pk_hash_u64(pc) & (r->pc_cap - 1);
    while (r->pc_slots[j]) {
        if (r->pc_val[r->pc_slots[j] - 1] == pc)
            return r->pc_slots[j] - 1;
        j = (j + 1) & (r->pc_cap - 1);
    }
    if (r->n_pcs >= UINT32_MAX - 1 || PK_VEC_RESERVE(r->pc_val, r->n_pcs, r->cap_pcs, 1) != 0)
        return PROFKIT_NONE;
    r->pc_val[r->n_pcs] = pc;
    r->pc_slots[j] = (uint32_t)r->n_pcs + 1;
    return (uint32_t)r->n_pcs++;
}

static int recs_grow(gp_reader *r)
{
    size_t ncap = r->rec_cap ? r->rec_cap * 2 : 1024;
    struct rec_entry *t = calloc(ncap, sizeof(*t));
    if (!t || ncap < r->rec_cap) {
        free(t);
        return PROFKIT_ENOMEM;
    }
    for (size_t i = 0; i < r->rec_cap; i++) {
        if (!r->recs[i].depth)
            continue;
        size_t j = r->recs[i].hash & (ncap - 1);
        while (t[j].depth)
            j = (j + 1) & (ncap - 1);
        t[j] = r->recs[i];
    }
    free(r->recs);
    r->recs = t;
    r->rec_cap = ncap;
    return 0;
}

int pk_gperftools_widen(gp_reader *r)
{
    if (!r->narrow)
        return 0;
    size_t cap = r->n_arena > 1024 ? r->n_arena * 2 : 1024;
    uint32_t *a = malloc(cap * sizeof(uint32_t));
    if (!a)
        return PROFKIT_ENOMEM;
    const uint16_t *a16 = (const uint16_t *)(const void *)r->arena;
    for (size_t i = 0; i < r->n_arena; i++)
        a[i] = a16[i];
    free(r->arena);
    r->arena = a;
    r->cap_arena = cap;
    r->narrow = 0;
    return 0;
}

/* The PC at index i of a record's bytes: le64 says the layout is 64-bit
 * little-endian (a constant where this is inlined: the usual layout reads
 * its words without the layout's two tests per word). */
static inline __attribute__((always_inline)) uint64_t rec_word(const gp_layout *l, const uint8_t *pcs,
                                                               size_t i, int le64)
{
    return le64 ? pk_load_le64(pcs + 8 * i) : gp_word(l, pcs + i * l->ws);
}

/* The PC index at position i of a key (narrow: 16-bit entries). */
static inline __attribute__((always_inline)) uint32_t key_pc(const void *key, size_t i, int narrow)
{
    return narrow ? ((const uint16_t *)key)[i] : ((const uint32_t *)key)[i];
}

/* True when the distinct record x has exactly the PCs at `pcs` (narrow:
 * r->narrow, le64: the layout is 64-bit little-endian; constants where
 * this is inlined). Four PCs are compared per test: most comparisons are
 * of a record with itself, which goes to the end. */
static inline __attribute__((always_inline)) int rec_equal(const gp_reader *r, const struct rec_entry *x,
                                                           const uint8_t *pcs, size_t depth, int narrow,
                                                           int le64)
{
    if (x->depth != depth)
        return 0;
    const uint64_t *vals = r->pc_val;
    const gp_layout *l = r->l;
    const void *key = narrow ? (const void *)((const uint16_t *)(const void *)r->arena + x->key_off)
                             : (const void *)(r->arena + x->key_off);
    size_t i = 0;
    for (; i + 4 <= depth; i += 4)
        if ((vals[key_pc(key, i, narrow)] ^ rec_word(l, pcs, i, le64)) |
            (vals[key_pc(key, i + 1, narrow)] ^ rec_word(l, pcs, i + 1, le64)) |
            (vals[key_pc(key, i + 2, narrow)] ^ rec_word(l, pcs, i + 2, le64)) |
            (vals[key_pc(key, i + 3, narrow)] ^ rec_word(l, pcs, i + 3, le64)))
            return 0;
    for (; i < depth; i++)
        if (vals[key_pc(key, i, narrow)] != rec_word(l, pcs, i, le64))
            return 0;
    return 1;
}

/* The 128-bit product of a and b, its halves folded. */
static inline uint64_t rec_mum(uint64_t a, uint64_t b)
{
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/*
 * The hash of a record's PCs. In the usual layout (64-bit little-endian)
 * whole words go in two at a time, as the 128-bit product of one word
 * xored with the process's secret and the other xored with the lane's
 * state (so no file can choose records that collide), in two lanes whose
 * multiplies overlap, started apart and from the depth; the rest, and
 * the lanes at the end, through pk_hash_u64. pk_hash_bytes over the same
 * bytes took half the read-ahead thread's instructions: a multiply per
 * word, and a fixed cost per call large beside records of a few dozen
 * words.
 */
static inline uint32_t rec_hash(const gp_reader *r, const uint8_t *pcs, size_t depth)
{
    if (r->l->ws != 8 || r->l->be)
        return (uint32_t)(pk_hash_bytes(pcs, depth * r->l->ws, depth) >> 32);
    const uint64_t s0 = pk_hash_secret[0], s1 = pk_hash_secret[1];
    uint64_t h0 = s0 ^ depth, h1 = s1 ^ depth ^ 0x243f6a8885a308d3ull;
    size_t i = 0;
    for (; i + 4 <= depth; i += 4) {
        h0 = rec_mum(pk_load_le64(pcs + 8 * i) ^ s1, pk_load_le64(pcs + 8 * i + 8) ^ h0);
        h1 = rec_mum(pk_load_le64(pcs + 8 * i + 16) ^ s0, pk_load_le64(pcs + 8 * i + 24) ^ h1);
    }
    for (; i < depth; i++)
        h0 = pk_hash_u64(h0 ^ pk_load_le64(pcs + 8 * i));
    return (uint32_t)(pk_hash_u64(h0 ^ pk_hash_u64(h1)) >> 32);
}

/*
 * Adds `count` to the distinct record with these PCs (leaf first), keeping
 * it on first sight. Returns 0, PROFKIT_ENOMEM, or PROFKIT_ECORRUPT when
 * the sum overflows 63 bits.
 */
static int new_record(gp_reader *r, const uint8_t *pcs, size_t depth, uint64_t count, uint32_t h32,
                      size_t j);

/* add_record with narrow = r->narrow and le64 = the layout is 64-bit
 * little-endian, constants in each of its inlined copies (the comparisons
 * of a record seen before are most of the caller's thread's work). */
static inline __attribute__((always_inline)) int add_record_w(gp_reader *r, const uint8_t *pcs, size_t depth,
                                                              uint64_t count, uint32_t h32, int narrow,
                                                              int le64)
{
    if ((r->n_recs + 1) * 2 > r->rec_cap && recs_grow(r) != 0)
        return PROFKIT_ENOMEM;
    size_t j = h32 & (r->rec_cap - 1);
    for (; r->recs[j].depth; j = (j + 1) & (r->rec_cap - 1)) {
        struct rec_entry *x = &r->recs[j];
        if (x->hash == h32 && rec_equal(r, x, pcs, depth, narrow, le64)) {
            if (count > r->max_count - x->count)
                return PROFKIT_ECORRUPT;
            x->count += count;
            return 0;
        }
    }
    return new_record(r, pcs, depth, count, h32, j);
}

static int add_record(gp_reader *r, const uint8_t *pcs, size_t depth, uint64_t count, uint32_t h32)
{
    if (r->l->ws == 8 && !r->l->be)
        return r->narrow ? add_record_w(r, pcs, depth, count, h32, 1, 1)
                         : add_record_w(r, pcs, depth, count, h32, 0, 1);
    return r->narrow ? add_record_w(r, pcs, depth, count, h32, 1, 0)
                     : add_record_w(r, pcs, depth, count, h32, 0, 0);
}

/*
 * Writes the PC indexes of a record not seen before into the arena from
 * entry r->n_arena on (room made), adding the PCs not seen before (narrow
 * and le64 as in add_record_w, constants where this is inlined). Returns
 * 0 or PROFKIT_ENOMEM.
 */
static inline __attribute__((always_inline)) int record_keys(gp_reader *r, const uint8_t *pcs,
                                                             size_t depth, int narrow, int le64)
{
    /* local copies: the stores into the arena may alias the fields */
    const gp_layout l = *r->l;
    uint16_t *a16 = (uint16_t *)(void *)r->arena;
    uint32_t *a32 = r->arena;
    size_t n = r->n_arena;
    /* a PC seen before is found here; pc_index adds a new one */
    const uint32_t *slots = r->pc_slots;
    const uint64_t *vals = r->pc_val;
    size_t mask = r->pc_cap - 1;
    for (size_t i = 0; i < depth; i++) {
        uint64_t pc = rec_word(&l, pcs, i, le64);
        uint32_t k = PROFKIT_NONE;
        for (size_t s = slots ? pk_hash_u64(pc) & mask : 0; slots && slots[s]; s = (s + 1) & mask)
            if (vals[slots[s] - 1] == pc) {
                k = slots[s] - 1;
                break;
            }
        if (k == PROFKIT_NONE) {
            if ((k = pc_index(r, pc)) == PROFKIT_NONE) {
                r->n_arena = n;
                return PROFKIT_ENOMEM;
            }
            slots = r->pc_slots;
            vals = r->pc_val;
            mask = r->pc_cap - 1;
        }
        if (narrow)
            a16[n++] = (uint16_t)k;
        else
            a32[n++] = k;
    }
    r->n_arena = n;
    return 0;
}

/* Keeps a record not seen before in slot j (empty). */
static int new_record(gp_reader *r, const uint8_t *pcs, size_t depth, uint64_t count, uint32_t h32,
                      size_t j)
{
    if (r->n_recs >= UINT32_MAX - 1 || depth > UINT32_MAX)
        return PROFKIT_ENOMEM;
    /* 16-bit entries hold the indexes of the first 2^16 PCs: this record
     * might bring the PCs past that */
    if (r->narrow && depth > 65536 - r->n_pcs && pk_gperftools_widen(r) != 0)
        return PROFKIT_ENOMEM;
    if (pk_grow((void **)&r->arena, &r->cap_arena, r->n_arena + depth,
                r->narrow ? sizeof(uint16_t) : sizeof(uint32_t)) != 0)
        return PROFKIT_ENOMEM;
    int le64 = r->l->ws == 8 && !r->l->be, rc;
    if (le64)
        rc = r->narrow ? record_keys(r, pcs, depth, 1, 1) : record_keys(r, pcs, depth, 0, 1);
    else
        rc = r->narrow ? record_keys(r, pcs, depth, 1, 0) : record_keys(r, pcs, depth, 0, 0);
    if (rc)
        return rc;
    struct rec_entry *x = &r->recs[j];
    x->hash = h32;
    x->depth = (uint32_t)depth;
    x->key_off = r->n_arena - depth;
    x->count = count;
    r->n_recs++;
    return 0;
}

/* ---- the read-ahead thread ---- */

/* Reads the rest of the input (the text after the trailer) into the window. */
static int read_rest(gp_reader *r)
{
    while (!r->eof) {
        int rc = pk_gperftools_fill(r, r->len - r->pos + 1);
        if (rc)
            return rc;
    }
    return 0;
}

/*
 * Reading is a pipeline of two threads. The producer (the reader's own
 * thread) reads the input, checks each record exactly as the format
 * requires, hashes its PCs and copies it into a batch; the caller's thread
 * takes the batches in order and adds each record to the table of distinct
 * records. Either side's error stops both, and the first in input order is
 * the one reported: the producer's error comes after every record it
 * handed over, so it is reported only when all of them went in. The
 * producer owns the input window and the source; the caller's thread owns
 * the record table; nothing else is shared but the batches.
 */
typedef struct gp_rec {
    uint64_t at;    /* offset of the record in the input */
    uint64_t count;
    uint32_t off;   /* of its PCs in the batch buffer */
    uint32_t depth;
    uint32_t hash;
} gp_rec;

typedef struct gp_batch {
    uint8_t *buf;
    size_t len, cap;
    gp_rec *recs;
    size_t n, cap_recs;
} gp_batch;

enum { GP_BATCHES = 4, GP_BATCH_BYTES = 1 << 20, GP_BATCH_RECS = 1 << 14 };

typedef struct gp_pipe {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    gp_batch batch[GP_BATCHES];
    size_t head, n_full; /* full batches: head, head + 1, ... (mod GP_BATCHES) */
    size_t fill;         /* the batch the producer fills: (head + n_full) % GP_BATCHES */
    int done;            /* the producer has finished; rc says how */
    int stop;            /* the caller's thread failed: the producer stops */
    int rc;
    profkit_error err;   /* the producer's error */
    pk_read_ctx ctx; /* the caller's, with err pointing above */
    gp_reader *r;
    int trailer;
    uint64_t n_records;
} gp_pipe;

/* Hands the batch being filled over (when it holds records) and waits for a
 * free one. Returns 0, or 1 when the caller's thread has stopped. */
static int pipe_publish(gp_pipe *p)
{
    int published = p->batch[p->fill].n > 0;
    pthread_mutex_lock(&p->mu);
    if (published) {
        p->n_full++;
        p->fill = (p->fill + 1) % GP_BATCHES;
        pthread_cond_broadcast(&p->cv);
    }
    while (p->n_full == GP_BATCHES && !p->stop)
        pthread_cond_wait(&p->cv, &p->mu);
    int stop = p->stop;
    pthread_mutex_unlock(&p->mu);
    if (published && !stop) /* taken and given back by the consumer */
        p->batch[p->fill].len = p->batch[p->fill].n = 0;
    return stop;
}

/* Copies a checked record into the batch being filled. Returns 0,
 * PROFKIT_ENOMEM, or 1 when the caller's thread has stopped. */
static int pipe_push(gp_pipe *p, uint64_t at, const uint8_t *pcs, size_t depth, uint64_t count,
                     uint32_t hash)
{
    size_t bytes = depth * p->r->l->ws; /* fits: the bytes are in the window */
    gp_batch *b = &p->batch[p->fill];
    if ((b->len > 0 && b->len + bytes > GP_BATCH_BYTES) || b->n == GP_BATCH_RECS) {
        if (pipe_publish(p))
            return 1;
        b = &p->batch[p->fill];
    }
    /* the capacities checked here: a call per record costs the producer a
     * twentieth of its instructions */
    if (bytes > UINT32_MAX - b->len ||
        (b->n == b->cap_recs && PK_VEC_RESERVE(b->recs, b->n, b->cap_recs, 1) != 0) ||
        (b->len + bytes > b->cap && pk_grow((void **)&b->buf, &b->cap, b->len + bytes, 1) != 0))
        return PROFKIT_ENOMEM;
    memcpy(b->buf + b->len, pcs, bytes);
    b->recs[b->n++] = (gp_rec){ at, count, (uint32_t)b->len, (uint32_t)depth, hash };
    b->len += bytes;
    return 0;
}

/*
 * The producer: streams the records up to the trailer (then reads the rest
 * of the input, the text) or the end of the input, checking each fits
 * before using it. Returns 0, 1 (stopped), or an error code with the
 * producer's ctx->err filled.
 */
static int produce(gp_pipe *p)
{
    gp_reader *r = p->r;
    pk_read_ctx *ctx = r->ctx;
    size_t ws = r->l->ws;
    for (;;) {
        /* the window is checked here first: most records are in it whole,
         * and a call per record and word pair cost the producer a twentieth
         * of its instructions */
        int rc = r->len - r->pos >= 2 * ws ? 0 : pk_gperftools_fill(r, 2 * ws);
        if (rc)
            return rc;
        size_t avail = r->len - r->pos;
        int64_t at = (int64_t)(r->base + r->pos);
        if (avail == 0)
            return 0; /* the end, without a trailer */
        if (avail < 2 * ws)
            return pk_read_fail(ctx, PROFKIT_ETRUNCATED, at,
                                     "record: expected a count and a depth word (%zu bytes), "
                                     "but the input ends after %zu bytes",
                                     2 * ws, avail);
        uint64_t count = gp_word(r->l, r->buf + r->pos);
        uint64_t depth = gp_word(r->l, r->buf + r->pos + ws);
        if (depth == 0)
            return pk_read_fail(ctx, PROFKIT_ECORRUPT, at + (int64_t)ws,
                                     "record depth: expected at least 1 PC, got 0");
        if (depth > UINT32_MAX)
            return pk_read_fail(ctx, PROFKIT_EUNSUPPORTED, at + (int64_t)ws,
                                     "record depth: %" PRIu64 " PCs; at most 4294967295 are "
                                     "supported",
                                     depth);
        /* The model would refuse its stack (a record without samples makes
         * none): stop here, at the record, not when the stacks are made
         * after the last record, where no position is left. */
        if (count != 0 && r->max_depth && depth > r->max_depth)
            return pk_read_fail(ctx, PROFKIT_EUNSUPPORTED, at,
                                     "a stack deeper than the limit of %u frames "
                                     "(profkit_read_options.max_depth raises it)",
                                     r->max_depth);
        size_t need = depth <= (SIZE_MAX - 2 * ws) / ws ? 2 * ws + (size_t)depth * ws : SIZE_MAX;
        if (r->len - r->pos < need && (rc = pk_gperftools_fill(r, need)) != 0)
            return rc;
        avail = r->len - r->pos;
        if (avail < need)
            return pk_read_fail(ctx, PROFKIT_ETRUNCATED, at,
                                     "record: depth %" PRIu64 " but the input ends after %zu "
                                     "of its PCs",
                                     depth, (avail - 2 * ws) / ws);
        if (count > r->max_count)
            return pk_read_fail(ctx, PROFKIT_ECORRUPT, at,
                                     "record count: %" PRIu64 " samples of %" PRIu64 " µs do "
                                     "not fit in 63-bit nanoseconds",
                                     count, r->period);
        const uint8_t *pcs = r->buf + r->pos + 2 * ws;
        r->pos += need;
        if (count == 0 && depth == 1 && gp_word(r->l, pcs) == 0) {
            p->trailer = 1;
            return read_rest(r);
        }
        p->n_records++;
        if (count == 0)
            continue; /* nothing to add; the stack is not made */
        rc = pipe_push(p, (uint64_t)at, pcs, (size_t)depth, count,
                       rec_hash(r, pcs, (size_t)depth));
        if (rc == PROFKIT_ENOMEM)
            return pk_read_fail(ctx, rc, -1, "out of memory");
        if (rc)
            return rc;
    }
}

static void *producer_main(void *arg)
{
    gp_pipe *p = arg;
    int rc = produce(p);
    /* Hand over the last records, also those before an error. */
    if (rc != 1 && pipe_publish(p) && rc == 0)
        rc = 1;
    pthread_mutex_lock(&p->mu);
    p->rc = rc;
    p->done = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/*
 * Adds a batch's records to the table of distinct records. The table is
 * far bigger than the caches, so a lookup waits on memory twice (the slot,
 * then the key): the slots 8 records ahead and the keys 4 ahead are
 * prefetched, so the waits overlap. Returns 0 or an error with ctx->err.
 */
static int consume(gp_reader *r, pk_read_ctx *ctx, const gp_batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        if (i + 8 < b->n && r->rec_cap)
            __builtin_prefetch(&r->recs[b->recs[i + 8].hash & (r->rec_cap - 1)]);
        if (i + 4 < b->n && r->rec_cap) {
            const struct rec_entry *x = &r->recs[b->recs[i + 4].hash & (r->rec_cap - 1)];
            if (x->depth && x->hash == b->recs[i + 4].hash) {
                size_t w = r->narrow ? sizeof(uint16_t) : sizeof(uint32_t);
                const uint8_t *k = (const uint8_t *)r->arena + x->key_off * w;
                for (size_t c = 0; c < x->depth * w; c += 64)
                    __builtin_prefetch(k + c);
                __builtin_prefetch(k + (x->depth - 1) * w);
            }
        }
        const gp_rec *e = &b->recs[i];
        int rc = add_record(r, b->buf + e->off, e->depth, e->count, e->hash);
        if (rc == PROFKIT_ECORRUPT)
            return pk_read_fail(ctx, rc, (int64_t)e->at,
                                     "record count: the samples of this stack sum past what "
                                     "63-bit nanoseconds hold at %" PRIu64 " µs each",
                                     r->period);
        if (rc)
            return pk_read_fail(ctx, rc, -1, "out of memory");
    }
    return 0;
}

/*
 * Reads every record into the table of distinct records, and after a
 * trailer the rest of the input into the window (*trailer = 1). Returns 0
 * or an error code with ctx->err filled.
 */
int pk_gperftools_read_records(gp_reader *r, int *trailer, uint64_t *n_records)
{
    gp_pipe *p = calloc(1, sizeof(*p));
    if (!p)
        return pk_read_fail(r->ctx, PROFKIT_ENOMEM, -1, "out of memory");
    pk_read_ctx *caller = r->ctx;
    p->r = r;
    p->ctx = *caller;
    p->ctx.err = &p->err;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    /* The producer reports through its own context while it runs. */
    r->ctx = &p->ctx;
    pthread_t thread;
    int rc = 0;
    if (pthread_create(&thread, NULL, producer_main, p) != 0) {
        r->ctx = caller;
        rc = pk_read_fail(caller, PROFKIT_ENOMEM, -1, "out of memory (cannot start a thread)");
        goto free;
    }
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->n_full == 0 && !p->done)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->n_full == 0) { /* done, and every batch taken */
            pthread_mutex_unlock(&p->mu);
            break;
        }
        const gp_batch *b = &p->batch[p->head];
        pthread_mutex_unlock(&p->mu);
        rc = consume(r, caller, b);
        pthread_mutex_lock(&p->mu);
        p->head = (p->head + 1) % GP_BATCHES;
        p->n_full--;
        if (rc)
            p->stop = 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (rc)
            break;
    }
    pthread_join(thread, NULL);
    r->ctx = caller;
    if (rc == 0 && p->rc != 0) { /* the producer's error, after all it handed over */
        *caller->err = p->err;
        rc = p->rc;
    }
    *trailer = p->trailer;
    *n_records = p->n_records;
free:
    for (int i = 0; i < GP_BATCHES; i++) {
        free(p->batch[i].buf);
        free(p->batch[i].recs);
    }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
    return rc;
}
