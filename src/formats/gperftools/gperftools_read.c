/*
 * gperftools_read.c: the binary CPU profile of gperftools' libprofiler
 * (CPUPROFILE=...): the reader and the format entry (the writer is
 * gperftools_write.c). The rules, our rulings and the
 * differences from Go pprof / google-pprof are in docs/formats/gperftools.md.
 *
 * The file is a sequence of machine words, all of one size (4 or 8 bytes)
 * and one byte order, which the reader detects from the header:
 *
 *   header   0, 3, 0, period (µs, > 0), 0      (word 2 == 1: pprof's Java
 *                                               variant, refused)
 *   record   count, depth, PC[depth]  (leaf first; callers are return
 *                                     addresses)            ... repeated
 *   trailer  0, 1, 0                  (a record of count 0, depth 1, PC 0)
 *   text     lines: `build=PATH`, /proc/self/maps lines (with `$build`
 *            substituted), anything else ignored.
 *
 * Reading streams the input once through a window, so a 200 MB profile
 * never sits in memory whole. Each record's raw PC bytes are hashed into a
 * table of distinct records (a stack seen before costs one lookup); a new
 * one keeps its PCs as dense PC indexes. Frames are made only after the
 * maps text, which follows the records, has been read, because a frame
 * carries its mapping and frames are hash-consed (it cannot be patched
 * later). Then the distinct records become stacks in root-first PC order,
 * each interning only what it does not share with the one before.
 *
 * Frames are unsymbolized: function name "0x" + lowercase hex of the PC as
 * recorded, address = PC, mapping = the executable mapping covering the PC.
 * Values: samples/count and cpu/nanoseconds (count × period × 1000), default
 * cpu; one thread, "main".
 *
 * The writer (gperftools_write.c) emits the 64-bit little-endian form.
 */
#include "formats/gperftools/gperftools.h"
#include "util/cursor.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- layout: word size and byte order ---- */

typedef struct gp_layout {
    unsigned ws; /* 4 or 8 */
    int be;
    const char *name;
} gp_layout;

static const gp_layout layouts[4] = {
    { 4, 0, "32-bit little-endian" },
    { 4, 1, "32-bit big-endian" },
    { 8, 0, "64-bit little-endian" },
    { 8, 1, "64-bit big-endian" },
};

static inline uint64_t gp_word(const gp_layout *l, const uint8_t *p)
{
    if (l->ws == 8)
        return l->be ? pk_load_be64(p) : pk_load_le64(p);
    return l->be ? pk_load_be32(p) : pk_load_le32(p);
}

enum { HDR_NONE, HDR_OK, HDR_JAVA, HDR_PERIOD0, HDR_SHORT };

/*
 * Classifies the header under layout l. HDR_SHORT: the input ends inside the
 * header but every whole word seen so far fits it.
 */
static int gp_header_kind(const gp_layout *l, const uint8_t *d, size_t n)
{
    uint64_t w[5] = { 0 };
    size_t have = n / l->ws;
    for (size_t i = 0; i < 5 && i < have; i++)
        w[i] = gp_word(l, d + i * l->ws);
    if ((have > 0 && w[0] != 0) || (have > 1 && w[1] != 3) ||
        (have > 2 && w[2] != 0 && w[2] != 1) || (have > 4 && w[4] != 0))
        return HDR_NONE;
    if (have < 5)
        return HDR_SHORT;
    if (w[2] == 1)
        return w[3] > 0 ? HDR_JAVA : HDR_NONE;
    return w[3] > 0 ? HDR_OK : HDR_PERIOD0;
}

/* The first layout whose header is `kind`, or -1. */
static int gp_find_layout(const uint8_t *d, size_t n, int kind)
{
    for (int i = 0; i < 4; i++)
        if (gp_header_kind(&layouts[i], d, n) == kind)
            return i;
    return -1;
}

static int gperftools_sniff(const uint8_t *d, size_t n, int complete)
{
    (void)complete;
    /* The Java variant scores too, so the reader can refuse it by name. */
    if (gp_find_layout(d, n, HDR_OK) >= 0 || gp_find_layout(d, n, HDR_JAVA) >= 0)
        return 100;
    return 0;
}

/* ---- the text after the trailer ---- */

static int is_word_char(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int hex_val(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses 1..16 hex digits at s[*i]; returns 0 or -1 (nothing, or too long). */
static int parse_hex(const char *s, size_t n, size_t *i, uint64_t *out)
{
    uint64_t v = 0;
    size_t k = *i;
    while (k < n && hex_val((uint8_t)s[k]) >= 0) {
        if (k - *i >= 16)
            return -1;
        v = (v << 4) | (uint64_t)hex_val((uint8_t)s[k]);
        k++;
    }
    if (k == *i)
        return -1;
    *i = k;
    *out = v;
    return 0;
}

static int skip_spaces(const char *s, size_t n, size_t *i)
{
    size_t k = *i;
    while (k < n && (s[k] == ' ' || s[k] == '\t'))
        k++;
    int any = k > *i;
    *i = k;
    return any;
}

typedef struct gp_map {
    uint64_t start, end, offset;
    size_t path_off, path_len; /* into the caller's scratch text */
    int exec;
} gp_map;

/*
 * Parses a /proc/self/maps line: `start-end perms offset dev inode [path]`.
 * Returns 1 when the line has that form (m filled), else 0.
 */
static int parse_maps_line(const char *s, size_t n, gp_map *m)
{
    size_t i = 0;
    skip_spaces(s, n, &i);
    if (parse_hex(s, n, &i, &m->start) || i >= n || s[i] != '-')
        return 0;
    i++;
    if (parse_hex(s, n, &i, &m->end) || !skip_spaces(s, n, &i))
        return 0;
    if (n - i < 4 || (s[i] != 'r' && s[i] != '-') || (s[i + 1] != 'w' && s[i + 1] != '-') ||
        (s[i + 2] != 'x' && s[i + 2] != '-') || (s[i + 3] != 'p' && s[i + 3] != 's'))
        return 0;
    m->exec = s[i + 2] == 'x';
    i += 4;
    uint64_t dev_major, dev_minor, inode = 0;
    if (!skip_spaces(s, n, &i) || parse_hex(s, n, &i, &m->offset) || !skip_spaces(s, n, &i) ||
        parse_hex(s, n, &i, &dev_major) || i >= n || s[i] != ':')
        return 0;
    i++;
    if (parse_hex(s, n, &i, &dev_minor) || !skip_spaces(s, n, &i))
        return 0;
    size_t d0 = i;
    while (i < n && s[i] >= '0' && s[i] <= '9' && i - d0 < 20)
        inode = inode * 10 + (uint64_t)(s[i++] - '0');
    if (i == d0 || (i < n && s[i] != ' ' && s[i] != '\t'))
        return 0;
    (void)inode;
    skip_spaces(s, n, &i);
    size_t e = n;
    while (e > i && (s[e - 1] == ' ' || s[e - 1] == '\t'))
        e--;
    m->path_off = i;
    m->path_len = e - i;
    return m->start < m->end;
}

/*
 * Longest line $build substitution may produce: a path is at most PATH_MAX
 * (4096) bytes and a maps line's other fields under 100, so 8 KiB is more
 * than any maps line. The bound keeps each line's work and memory a
 * constant: a long build= path over many short lines naming $build would
 * otherwise cost the path's length on every line (quadratic in the input).
 */
#define GP_MAX_LINE (8u << 10)

/* A growable byte buffer for one substituted line. */
typedef struct gp_buf {
    char *p;
    size_t n, cap;
} gp_buf;

static int buf_put(gp_buf *b, const char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (b->n + n < b->n || pk_grow((void **)&b->p, &b->cap, b->n + n, 1) != 0)
        return PROFKIT_ENOMEM;
    memcpy(b->p + b->n, s, n);
    b->n += n;
    return 0;
}

/*
 * Reads the text after the trailer: build= lines (metadata `build`),
 * $build substitution, executable maps lines as mappings. Returns 0 or
 * PROFKIT_ENOMEM.
 */
static int read_text(profkit_profile *p, const uint8_t *d, size_t n)
{
    gp_buf line = { 0 }, build = { 0 };
    int have_build = 0, rc = 0;
    size_t pos = 0;
    while (pos < n && rc == 0) {
        const uint8_t *nl = memchr(d + pos, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - (d + pos)) : n - pos;
        const char *s = (const char *)d + pos;
        pos += len + (nl ? 1 : 0);
        if (len > 0 && s[len - 1] == '\r')
            len--;
        size_t i = 0;
        skip_spaces(s, len, &i);
        if (len - i >= 6 && memcmp(s + i, "build=", 6) == 0) {
            size_t e = len;
            while (e > i + 6 && (s[e - 1] == ' ' || s[e - 1] == '\t'))
                e--;
            build.n = 0;
            have_build = 1;
            if ((rc = buf_put(&build, s + i + 6, e - i - 6)) != 0 ||
                (rc = pk_meta_add_len(p, "build", build.p ? build.p : "", build.n)) != 0)
                break;
            continue;
        }
        line.n = 0;
        size_t k = 0, from = 0;
        int too_long = 0;
        while (have_build && k + 6 <= len) {
            if (memcmp(s + k, "$build", 6) == 0 &&
                (k + 6 == len || !is_word_char((uint8_t)s[k + 6]))) {
                /* Many $build in one line times a long build path would
                 * make a huge line from a small input; no maps line is
                 * that long, so such a line is ignored. */
                if (line.n + (k - from) + build.n > GP_MAX_LINE) {
                    too_long = 1;
                    break;
                }
                if ((rc = buf_put(&line, s + from, k - from)) != 0 ||
                    (rc = buf_put(&line, build.p, build.n)) != 0)
                    break;
                k += 6;
                from = k;
            } else {
                k++;
            }
        }
        if (rc)
            break;
        if (too_long)
            continue;
        if ((rc = buf_put(&line, s + from, len - from)) != 0)
            break;
        gp_map m;
        if (!line.p || !parse_maps_line(line.p, line.n, &m) || !m.exec)
            continue; /* not a maps line, or not code */
        /* The path is a C string for the model; terminate it in place. */
        if ((rc = buf_put(&line, "", 1)) != 0)
            break;
        line.p[m.path_off + m.path_len] = '\0';
        if (pk_mapping_add(p, m.start, m.end, m.offset, line.p + m.path_off, "") ==
            PROFKIT_NONE)
            rc = PROFKIT_ENOMEM;
    }
    free(line.p);
    free(build.p);
    return rc;
}

/* ---- the reader's own tables ---- */

/* Mapping ids sorted by start, for binary search. */
static int map_by_start(const void *ctx, uint32_t a, uint32_t b)
{
    const profkit_profile *p = ctx;
    uint64_t x = p->mappings[a].start, y = p->mappings[b].start;
    return x < y ? -1 : x > y;
}

static uint32_t find_mapping(const profkit_profile *p, const uint32_t *sorted, uint64_t pc)
{
    size_t lo = 0, hi = p->n_mappings;
    while (lo < hi) { /* first with start > pc */
        size_t mid = lo + (hi - lo) / 2;
        if (p->mappings[sorted[mid]].start <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return PROFKIT_NONE;
    uint32_t m = sorted[lo - 1];
    return pc < p->mappings[m].end ? m : PROFKIT_NONE;
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
    size_t n_arena, cap_arena;
    int narrow; /* arena holds uint16_t entries (set after the records) */
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

static void reader_free(gp_reader *r)
{
    free(r->buf);
    free(r->pc_val);
    free(r->pc_slots);
    free(r->arena);
    free(r->recs);
}

/*
 * Makes `need` unread bytes available in the window, or as many as the
 * input still has (r->eof then). The window grows only while the bytes keep
 * coming, so an absurd record depth costs no more than the input's size.
 */
static int fill(gp_reader *r, size_t need)
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

/* Moves the used slots to the front and gives the rest back. */
static void recs_compact(gp_reader *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->rec_cap; i++)
        if (r->recs[i].depth)
            r->recs[n++] = r->recs[i];
    if (n > 0 && n < r->rec_cap) {
        struct rec_entry *t = realloc(r->recs, n * sizeof(*t));
        if (t)
            r->recs = t;
    }
    r->rec_cap = n;
}

/* True when the distinct record x has exactly the PCs at `pcs`. */
static int rec_equal(const gp_reader *r, const struct rec_entry *x, const uint8_t *pcs, size_t depth)
{
    if (x->depth != depth)
        return 0;
    const uint32_t *key = r->arena + x->key_off;
    for (size_t i = 0; i < depth; i++)
        if (r->pc_val[key[i]] != gp_word(r->l, pcs + i * r->l->ws))
            return 0;
    return 1;
}

/*
 * Adds `count` to the distinct record with these PCs (leaf first), keeping
 * it on first sight. Returns 0, PROFKIT_ENOMEM, or PROFKIT_ECORRUPT when
 * the sum overflows 63 bits.
 */
static inline uint32_t rec_hash(const gp_reader *r, const uint8_t *pcs, size_t depth)
{
    return (uint32_t)(pk_hash_bytes(pcs, depth * r->l->ws, depth) >> 32);
}

static int add_record(gp_reader *r, const uint8_t *pcs, size_t depth, uint64_t count, uint32_t h32)
{
    if ((r->n_recs + 1) * 2 > r->rec_cap && recs_grow(r) != 0)
        return PROFKIT_ENOMEM;
    size_t j = h32 & (r->rec_cap - 1);
    for (; r->recs[j].depth; j = (j + 1) & (r->rec_cap - 1)) {
        struct rec_entry *x = &r->recs[j];
        if (x->hash == h32 && rec_equal(r, x, pcs, depth)) {
            if (count > r->max_count - x->count)
                return PROFKIT_ECORRUPT;
            x->count += count;
            return 0;
        }
    }
    if (r->n_recs >= UINT32_MAX - 1 || depth > UINT32_MAX ||
        PK_VEC_RESERVE(r->arena, r->n_arena, r->cap_arena, depth) != 0)
        return PROFKIT_ENOMEM;
    for (size_t i = 0; i < depth; i++) {
        uint32_t k = pc_index(r, gp_word(r->l, pcs + i * r->l->ws));
        if (k == PROFKIT_NONE)
            return PROFKIT_ENOMEM;
        r->arena[r->n_arena++] = k;
    }
    struct rec_entry *x = &r->recs[j];
    x->hash = h32;
    x->depth = (uint32_t)depth;
    x->key_off = r->n_arena - depth;
    x->count = count;
    r->n_recs++;
    return 0;
}

static int meta_u64(profkit_profile *p, const char *key, uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "%" PRIu64, v);
    return pk_meta_add(p, key, buf);
}

/* Reads the header into r->l and *period, or fails saying why not. */
static int read_header(gp_reader *r, uint64_t *period)
{
    int rc = fill(r, 40);
    if (rc)
        return rc;
    const uint8_t *d = r->buf + r->pos;
    size_t n = r->len - r->pos;
    pk_read_ctx *ctx = r->ctx;
    int li = gp_find_layout(d, n, HDR_OK), j;
    if (li >= 0) {
        r->l = &layouts[li];
        *period = gp_word(r->l, d + 3 * r->l->ws);
        r->pos += 5 * r->l->ws;
        return 0;
    }
    if ((j = gp_find_layout(d, n, HDR_JAVA)) >= 0)
        return pk_read_fail(ctx, PROFKIT_EUNSUPPORTED, 2 * (int64_t)layouts[j].ws,
                                 "header: word 2 is 1, pprof's Java CPU profile variant; "
                                 "it is not supported");
    if ((j = gp_find_layout(d, n, HDR_PERIOD0)) >= 0)
        return pk_read_fail(ctx, PROFKIT_EFORMAT, 3 * (int64_t)layouts[j].ws,
                                 "header: sampling period is 0; a gperftools CPU profile "
                                 "needs a period > 0 (header words 0, 3, 0, period, 0)");
    if (gp_find_layout(d, n, HDR_SHORT) >= 0 || n == 0)
        return pk_read_fail(ctx, PROFKIT_ETRUNCATED, (int64_t)n,
                                 "header: expected 5 words (0, 3, 0, period, 0), but the "
                                 "input ends after %zu bytes",
                                 n);
    return pk_read_fail(ctx, PROFKIT_EFORMAT, 0,
                             "header: expected the words 0, 3, 0, period > 0, 0 of a "
                             "gperftools CPU profile (32- or 64-bit, either byte order)");
}

/* Reads the rest of the input (the text after the trailer) into the window. */
static int read_rest(gp_reader *r)
{
    while (!r->eof) {
        int rc = fill(r, r->len - r->pos + 1);
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
    if (bytes > UINT32_MAX - b->len || PK_VEC_RESERVE(b->recs, b->n, b->cap_recs, 1) != 0 ||
        pk_grow((void **)&b->buf, &b->cap, b->len + bytes, 1) != 0)
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
        int rc = fill(r, 2 * ws);
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
                                     "(--max-depth raises it)",
                                     r->max_depth);
        size_t need = depth <= (SIZE_MAX - 2 * ws) / ws ? 2 * ws + (size_t)depth * ws : SIZE_MAX;
        if ((rc = fill(r, need)) != 0)
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
                const uint32_t *k = r->arena + x->key_off;
                for (size_t c = 0; c < x->depth; c += 16)
                    __builtin_prefetch(k + c);
                __builtin_prefetch(k + x->depth - 1);
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
static int read_records(gp_reader *r, int *trailer, uint64_t *n_records)
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

/* The PC index at position k (leaf first) of a distinct record's key. */
static inline uint32_t key_at(const gp_reader *r, const struct rec_entry *x, size_t k)
{
    return r->narrow ? ((const uint16_t *)(const void *)r->arena)[x->key_off + k]
                     : r->arena[x->key_off + k];
}

/* Sorting context: records compare from root-first position `level` on
 * (the positions before it are known equal). */
typedef struct rec_sort {
    const gp_reader *r;
    size_t level;
} rec_sort;

/* Orders distinct records by their PCs root first (shorter first on a tie):
 * neighbours then share their longest common prefix. */
static int rec_cmp(const void *ctx, uint32_t a, uint32_t b)
{
    const rec_sort *c = ctx;
    const gp_reader *r = c->r;
    const struct rec_entry *x = &r->recs[a], *y = &r->recs[b];
    size_t n = x->depth < y->depth ? x->depth : y->depth;
    for (size_t k = c->level; k < n; k++) {
        uint64_t u = r->pc_val[key_at(r, x, x->depth - 1 - k)];
        uint64_t v = r->pc_val[key_at(r, y, y->depth - 1 - k)];
        if (u != v)
            return u < v ? -1 : 1;
    }
    return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/*
 * Walking records in sorted order reads their entries and keys in random
 * places: prefetch the entry 8 records ahead and, its entry having arrived
 * by then, the key (at root-first position `level`) 4 records ahead.
 */
static inline void prefetch_key(const gp_reader *r, const uint32_t *order, size_t i, size_t end,
                                size_t level)
{
    if (i + 8 < end)
        __builtin_prefetch(&r->recs[order[i + 8]]);
    if (i + 4 < end) {
        const struct rec_entry *x = &r->recs[order[i + 4]];
        if (x->depth > level) {
            size_t k = x->key_off + x->depth - 1 - level;
            __builtin_prefetch(r->narrow ? (const void *)((const uint16_t *)(const void *)r->arena + k)
                                         : (const void *)(r->arena + k));
        }
    }
}

static int pc_by_value(const void *ctx, uint32_t a, uint32_t b)
{
    const gp_reader *r = ctx;
    return r->pc_val[a] < r->pc_val[b] ? -1 : r->pc_val[a] > r->pc_val[b];
}

/*
 * Sorts order[0..n) like rec_cmp, by most-significant-digit radix sort: a
 * range of records equal up to `level` is bucketed by its PC at that level
 * (records that end there first), and each bucket is sorted at level + 1.
 * Each record's key is then read about once per shared level, instead of
 * once per shared level per comparison; small ranges go to a merge sort.
 * Iterative (an explicit task list), so a hostile depth cannot overflow
 * the C stack.
 */
static int sort_records(const gp_reader *r, uint32_t *order, size_t n)
{
    struct task {
        size_t lo, hi, level;
    } *tasks = NULL;
    size_t n_tasks = 0, cap_tasks = 0;
    uint32_t *rank = malloc((r->n_pcs ? r->n_pcs : 1) * sizeof(uint32_t));
    uint32_t *by_value = malloc((r->n_pcs ? r->n_pcs : 1) * sizeof(uint32_t));
    size_t *count = calloc(r->n_pcs + 2, sizeof(size_t));
    uint32_t *tmp = malloc((n ? n : 1) * sizeof(uint32_t));
    uint32_t *digit = malloc((n ? n : 1) * sizeof(uint32_t));
    int rc = PROFKIT_ENOMEM;
    if (!rank || !by_value || !count || !tmp || !digit)
        goto done;
    for (size_t i = 0; i < r->n_pcs; i++)
        by_value[i] = (uint32_t)i;
    if (pk_sort_u32(by_value, r->n_pcs, pc_by_value, r) != 0)
        goto done;
    for (size_t i = 0; i < r->n_pcs; i++)
        rank[by_value[i]] = (uint32_t)i;
    size_t small = r->n_pcs / 4 > 64 ? r->n_pcs / 4 : 64;
    if (PK_VEC_RESERVE(tasks, 0, cap_tasks, 1) != 0)
        goto done;
    tasks[n_tasks++] = (struct task){ 0, n, 0 };
    while (n_tasks > 0) {
        struct task t = tasks[--n_tasks];
        if (t.hi - t.lo < 2)
            continue;
        if (t.hi - t.lo < small) {
            rec_sort c = { r, t.level };
            if (pk_sort_u32(order + t.lo, t.hi - t.lo, rec_cmp, &c) != 0)
                goto done;
            continue;
        }
        /* digit: 0 = the record ends before `level`, else rank + 1 */
        memset(count, 0, (r->n_pcs + 2) * sizeof(size_t));
        for (size_t i = t.lo; i < t.hi; i++) {
            prefetch_key(r, order, i, t.hi, t.level);
            const struct rec_entry *x = &r->recs[order[i]];
            uint32_t d = x->depth > t.level ? rank[key_at(r, x, x->depth - 1 - t.level)] + 1 : 0;
            digit[i] = d;
            count[d + 1]++;
        }
        for (size_t d = 1; d < r->n_pcs + 2; d++)
            count[d] += count[d - 1];
        for (size_t i = t.lo; i < t.hi; i++)
            tmp[count[digit[i]]++] = order[i];
        memcpy(order + t.lo, tmp, (t.hi - t.lo) * sizeof(uint32_t));
        /* count[d] is now the end of bucket d (relative); bucket 0 (ended)
         * needs no more sorting: those records are equal. */
        size_t start = count[0];
        for (size_t d = 1; d < r->n_pcs + 1; d++) {
            size_t end = count[d];
            if (end - start > 1) {
                if (PK_VEC_RESERVE(tasks, n_tasks, cap_tasks, 1) != 0)
                    goto done;
                tasks[n_tasks++] = (struct task){ t.lo + start, t.lo + end, t.level + 1 };
            }
            start = end;
        }
    }
    rc = 0;
done:
    free(tasks);
    free(rank);
    free(by_value);
    free(count);
    free(tmp);
    free(digit);
    return rc;
}

/*
 * Makes the frames, stacks and samples of the distinct records. Records go
 * in root-first PC order, so each one interns only the frames past the
 * prefix it shares with the one before (every prefix-tree node is looked up
 * once), and the stack ids come out in an order that does not depend on the
 * order of the records in the file.
 */
static int build_samples(profkit_profile *p, gp_reader *r, uint32_t th, uint32_t vs, uint32_t vc,
                         uint64_t period)
{
    int rc = 0;
    uint32_t *sorted = NULL, *frame = NULL, *order = NULL, *path_pc = NULL, *path_stack = NULL;
    size_t cap_path = 0, cap_path2 = 0, prev_depth = 0;
    if (p->n_mappings > 0) {
        if (!(sorted = malloc(p->n_mappings * sizeof(uint32_t))))
            return PROFKIT_ENOMEM;
        for (size_t i = 0; i < p->n_mappings; i++)
            sorted[i] = (uint32_t)i;
        if ((rc = pk_sort_u32(sorted, p->n_mappings, map_by_start, p)) != 0)
            goto done;
    }
    if (!(frame = malloc((r->n_pcs ? r->n_pcs : 1) * sizeof(uint32_t))) ||
        !(order = malloc((r->n_recs ? r->n_recs : 1) * sizeof(uint32_t)))) {
        rc = PROFKIT_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < r->n_pcs; i++) {
        char name[2 + 16 + 1];
        int len = snprintf(name, sizeof(name), "0x%" PRIx64, r->pc_val[i]);
        profkit_function fn;
        memset(&fn, 0, sizeof(fn));
        fn.name = profkit_string_intern(p, name, (size_t)len);
        fn.system_name = fn.name;
        profkit_frame fr;
        memset(&fr, 0, sizeof(fr));
        fr.address = r->pc_val[i];
        fr.mapping = sorted ? find_mapping(p, sorted, r->pc_val[i]) : PROFKIT_NONE;
        if (fn.name == PROFKIT_NONE ||
            (fr.function = pk_function_add(p, &fn)) == PROFKIT_NONE ||
            (frame[i] = pk_frame_add(p, &fr)) == PROFKIT_NONE) {
            rc = PROFKIT_ENOMEM;
            goto done;
        }
    }
    for (size_t i = 0; i < r->n_recs; i++)
        order[i] = (uint32_t)i;
    if ((rc = sort_records(r, order, r->n_recs)) != 0)
        goto done;
    uint64_t period_ns = period * 1000; /* checked by the caller */
    /* In a profile with no stacks yet, every node past the prefix shared
     * with the previous record is new (the records are sorted, so the
     * records sharing a prefix are adjacent), and so is every sample row:
     * append them without the lookups. */
    int fresh = p->n_stacks == 1 && p->n_samples == 0;
    for (size_t i = 0; i < r->n_recs; i++) {
        prefetch_key(r, order, i, r->n_recs, 0);
        const struct rec_entry *x = &r->recs[order[i]];
        size_t depth = x->depth;
        if (pk_grow((void **)&path_pc, &cap_path, depth, sizeof(uint32_t)) != 0 ||
            pk_grow((void **)&path_stack, &cap_path2, depth, sizeof(uint32_t)) != 0) {
            rc = PROFKIT_ENOMEM;
            goto done;
        }
        /* path_*[k]: PC index and stack id of root-first prefix k + 1 of the
         * previous record; reuse what this one shares with it. */
        size_t k = 0;
        while (k < depth && k < prev_depth && path_pc[k] == key_at(r, x, depth - 1 - k))
            k++;
        uint32_t stack = k > 0 ? path_stack[k - 1] : 0;
        for (; k < depth; k++) {
            uint32_t pci = key_at(r, x, depth - 1 - k);
            stack = fresh ? pk_stack_append(p, stack, frame[pci])
                          : pk_stack_intern(p, stack, frame[pci]);
            if (stack == PROFKIT_NONE) {
                rc = PROFKIT_ENOMEM;
                goto done;
            }
            path_pc[k] = pci;
            path_stack[k] = stack;
        }
        prev_depth = depth;
        int64_t v[2];
        v[vs] = (int64_t)x->count;
        if (__builtin_mul_overflow(v[vs], (int64_t)period_ns, &v[vc])) {
            rc = PROFKIT_ECORRUPT;
            goto done;
        }
        if ((fresh ? pk_sample_append(p, stack, th, v) : pk_sample_add(p, stack, th, v)) != 0) {
            rc = PROFKIT_ENOMEM;
            goto done;
        }
    }
done:
    free(sorted);
    free(frame);
    free(order);
    free(path_pc);
    free(path_stack);
    return rc;
}

static int gperftools_read(profkit_profile *p, pk_read_ctx *ctx)
{
    gp_reader r;
    memset(&r, 0, sizeof(r));
    r.ctx = ctx;
    uint64_t period = 0, n_records = 0;
    int trailer = 0;
    int rc = read_header(&r, &period);
    if (rc)
        goto out;
    uint64_t period_ns;
    if (__builtin_mul_overflow(period, (uint64_t)1000, &period_ns) || period_ns > INT64_MAX) {
        rc = pk_read_fail(ctx, PROFKIT_ECORRUPT, 3 * (int64_t)r.l->ws,
                               "header period: %" PRIu64 " µs does not fit in 63-bit "
                               "nanoseconds",
                               period);
        goto out;
    }
    r.period = period;
    r.max_count = (uint64_t)INT64_MAX / period_ns;
    r.max_depth = p->limit_depth; /* one PC, one frame: a record's depth is its stack's */
    if ((rc = read_records(&r, &trailer, &n_records)) != 0)
        goto out;

    uint32_t vs = pk_value_type_add(p, "samples", "count");
    uint32_t vc = pk_value_type_add(p, "cpu", "nanoseconds");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    char pbuf[24];
    snprintf(pbuf, sizeof(pbuf), "%" PRIu64, period);
    if (vs == PROFKIT_NONE || vc == PROFKIT_NONE || th == PROFKIT_NONE ||
        pk_meta_add(p, "format_version", "0") || pk_meta_add(p, "period_us", pbuf) ||
        meta_u64(p, "word_size", r.l->ws * 8) ||
        pk_meta_add(p, "byte_order", r.l->be ? "big-endian" : "little-endian") ||
        meta_u64(p, "records", n_records)) {
        rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
        goto out;
    }
    p->default_value = vc;

    if (trailer) { /* the producer read the rest of the input */
        if (read_text(p, r.buf + r.pos, r.len - r.pos) != 0) {
            rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            goto out;
        }
    } else if ((rc = pk_read_warn(ctx, PROFKIT_ETRUNCATED, (int64_t)(r.base + r.pos),
                                       "no trailer (count 0, depth 1, PC 0) after the last "
                                       "record: the profile was cut short; keeping its %" PRIu64
                                       " records, without mappings",
                                       n_records)) != 0) {
        goto out;
    }
    /* Only the distinct records and PCs are needed from here on: give the
     * rest back before the model's stack table grows, to keep the peak low. */
    free(r.buf);
    free(r.pc_slots);
    r.buf = NULL;
    r.pc_slots = NULL;
    recs_compact(&r);
    if (r.n_pcs <= 65536 && r.n_arena > 0) {
        /* Fewer than 2^16 PCs (the usual case): halve the arena in place
         * (entry i moves from byte 4i to 2i, never over an unread one). */
        uint16_t *a16 = (uint16_t *)(void *)r.arena;
        for (size_t i = 0; i < r.n_arena; i++)
            a16[i] = (uint16_t)r.arena[i];
        r.narrow = 1;
        uint32_t *a = realloc(r.arena, (r.n_arena + 1) / 2 * sizeof(uint32_t));
        if (a)
            r.arena = a;
    }
    rc = build_samples(p, &r, th, vs, vc, period);
    if (rc == PROFKIT_ECORRUPT)
        rc = pk_read_fail(ctx, rc, 3 * (int64_t)r.l->ws,
                               "header period: a stack's samples × %" PRIu64
                               " µs overflow 63-bit nanoseconds",
                               period);
    else if (rc)
        rc = pk_read_fail(ctx, rc, -1, "out of memory");
out:
    reader_free(&r);
    return rc;
}

const pk_format pk_format_gperftools = {
    { "gperftools", "gperftools CPU profile (libprofiler's CPUPROFILE output)",
      ".prof .cpu .gperftools", 1, 1 },
    gperftools_sniff,
    gperftools_read,
    pk_gperftools_write,
};
