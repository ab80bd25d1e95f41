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
#include "formats/gperftools/gperftools_reader.h"
#include "util/buf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- layout: word size and byte order ---- */

static const gp_layout layouts[4] = {
    { 4, 0, "32-bit little-endian" },
    { 4, 1, "32-bit big-endian" },
    { 8, 0, "64-bit little-endian" },
    { 8, 1, "64-bit big-endian" },
};

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

/*
 * Reads the text after the trailer: build= lines (metadata `build`),
 * $build substitution, executable maps lines as mappings. Returns 0 or
 * PROFKIT_ENOMEM.
 */
static int read_text(profkit_profile *p, const uint8_t *d, size_t n)
{
    pk_buf line = PK_BUF_INIT, build = PK_BUF_INIT; /* a substituted line, the build path */
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
            pk_buf_clear(&build);
            have_build = 1;
            pk_buf_put(&build, s + i + 6, e - i - 6);
            if ((rc = pk_buf_error(&build)) != 0 ||
                (rc = pk_meta_add_len(p, "build", pk_buf_cstr(&build), build.len)) != 0)
                break;
            continue;
        }
        pk_buf_clear(&line);
        size_t k = 0, from = 0;
        int too_long = 0;
        while (have_build && k + 6 <= len) {
            if (memcmp(s + k, "$build", 6) == 0 &&
                (k + 6 == len || !is_word_char((uint8_t)s[k + 6]))) {
                /* Many $build in one line times a long build path would
                 * make a huge line from a small input; no maps line is
                 * that long, so such a line is ignored. */
                if (line.len + (k - from) + build.len > GP_MAX_LINE) {
                    too_long = 1;
                    break;
                }
                pk_buf_put(&line, s + from, k - from);
                pk_buf_put(&line, pk_buf_cstr(&build), build.len);
                k += 6;
                from = k;
            } else {
                k++;
            }
        }
        if (too_long)
            continue;
        pk_buf_put(&line, s + from, len - from);
        if ((rc = pk_buf_error(&line)) != 0)
            break;
        gp_map m;
        if (!parse_maps_line(pk_buf_cstr(&line), line.len, &m) || !m.exec)
            continue; /* not a maps line, or not code */
        /* The path is a C string for the model: the buffer holds a NUL after
         * its bytes, so one more ends the path in place. */
        line.buf[m.path_off + m.path_len] = '\0';
        if (pk_mapping_add(p, m.start, m.end, m.offset, line.buf + m.path_off, "") ==
            PROFKIT_NONE)
            rc = PROFKIT_ENOMEM;
    }
    pk_buf_free(&line);
    pk_buf_free(&build);
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

static void reader_free(gp_reader *r)
{
    free(r->buf);
    free(r->pc_val);
    free(r->pc_slots);
    free(r->arena);
    free(r->recs);
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

static int meta_u64(profkit_profile *p, const char *key, uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "%" PRIu64, v);
    return pk_meta_add(p, key, buf);
}

/* Reads the header into r->l and *period, or fails saying why not. */
static int read_header(gp_reader *r, uint64_t *period)
{
    int rc = pk_gperftools_fill(r, 40);
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


/* The PC index at position k (leaf first) of a distinct record's key. */
static inline uint32_t key_at(const gp_reader *r, const struct rec_entry *x, size_t k)
{
    return gp_arena_at(r, x->key_off + k);
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

/* Sorts a few records (fewer than 24) like rec_cmp, in place. Distinct
 * records differ, so any correct sort gives this order. */
static void insertion_sort(uint32_t *a, size_t n, const rec_sort *c)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t x = a[i];
        size_t j = i;
        for (; j > 0 && rec_cmp(c, a[j - 1], x) > 0; j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
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

/* Sorts a[0..n) (tmp: room for n more): runs of 16 by insertion, then
 * merged bottom-up. */
static void sort_u64(uint64_t *a, uint64_t *tmp, size_t n)
{
    for (size_t lo = 0; lo < n; lo += 16) {
        size_t hi = lo + 16 < n ? lo + 16 : n;
        for (size_t i = lo + 1; i < hi; i++) {
            uint64_t x = a[i];
            size_t j = i;
            for (; j > lo && a[j - 1] > x; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
    }
    uint64_t *from = a, *to = tmp;
    for (size_t w = 16; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                to[k++] = from[j] < from[i] ? from[j++] : from[i++];
            while (i < mid)
                to[k++] = from[i++];
            while (j < hi)
                to[k++] = from[j++];
        }
        uint64_t *t = from;
        from = to;
        to = t;
    }
    if (from != a)
        memcpy(a, from, n * sizeof(uint64_t));
}

/*
 * Sorts order[0..n) like rec_cmp, by most-significant-digit radix sort: a
 * range of records equal up to `level` is bucketed by its PC at that level
 * (records that end there first), and each bucket is sorted at level + 1.
 * Each record's key is then read about once per shared level, instead of
 * once per shared level per comparison. A range too small for a pass over
 * every PC's bucket is sorted by its digits, each read once into an array
 * of (digit, record) pairs, and split the same way; a tiny one goes to a
 * merge sort. Iterative (an explicit task list), so a hostile depth cannot
 * overflow the C stack.
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
    uint32_t *tmp = malloc((n ? n : 1) * 2 * sizeof(uint32_t)); /* tmp, then digit */
    uint32_t *digit = tmp ? tmp + (n ? n : 1) : NULL;
    size_t small = r->n_pcs / 4 > 64 ? r->n_pcs / 4 : 64;
    /* a small range's pairs and their merge buffer: 2 * small words, in
     * tmp and digit when they are that big (no radix pass runs meanwhile) */
    size_t room = (n ? n : 1) * 2 * sizeof(uint32_t);
    uint64_t *pairs = NULL, *pairs_own = NULL;
    int rc = PROFKIT_ENOMEM;
    if (!rank || !by_value || !count || !tmp || !digit)
        goto done;
    if (room / sizeof(uint64_t) >= 2 * small)
        pairs = (uint64_t *)(void *)tmp;
    else if (!(pairs = pairs_own = malloc(2 * small * sizeof(uint64_t))))
        goto done;
    for (size_t i = 0; i < r->n_pcs; i++)
        by_value[i] = (uint32_t)i;
    if (pk_sort_u32(by_value, r->n_pcs, pc_by_value, r) != 0)
        goto done;
    for (size_t i = 0; i < r->n_pcs; i++)
        rank[by_value[i]] = (uint32_t)i;
    if (PK_VEC_RESERVE(tasks, 0, cap_tasks, 1) != 0)
        goto done;
    tasks[n_tasks++] = (struct task){ 0, n, 0 };
    while (n_tasks > 0) {
        struct task t = tasks[--n_tasks];
        if (t.hi - t.lo < 2)
            continue;
        if (t.hi - t.lo < 24) {
            rec_sort c = { r, t.level };
            insertion_sort(order + t.lo, t.hi - t.lo, &c);
            continue;
        }
        if (t.hi - t.lo < small) {
            size_t m = t.hi - t.lo;
            for (size_t i = t.lo; i < t.hi; i++) {
                prefetch_key(r, order, i, t.hi, t.level);
                const struct rec_entry *x = &r->recs[order[i]];
                uint64_t d = x->depth > t.level ? rank[key_at(r, x, x->depth - 1 - t.level)] + 1ull : 0;
                pairs[i - t.lo] = d << 32 | order[i];
            }
            sort_u64(pairs, pairs + small, m);
            for (size_t i = 0, start = 0; i <= m; i++) {
                if (i < m)
                    order[t.lo + i] = (uint32_t)pairs[i];
                if (i == m || (pairs[i] >> 32) != (pairs[start] >> 32)) {
                    /* records [start, i) share a digit (those that ended
                     * are equal); a few are sorted now, not left on the
                     * task list, which then stays short */
                    if (i - start > 1 && (pairs[start] >> 32) != 0 && i - start < 24) {
                        rec_sort c = { r, t.level + 1 };
                        insertion_sort(order + t.lo + start, i - start, &c);
                    } else if (i - start > 1 && (pairs[start] >> 32) != 0) {
                        if (PK_VEC_RESERVE(tasks, n_tasks, cap_tasks, 1) != 0)
                            goto done;
                        tasks[n_tasks++] = (struct task){ t.lo + start, t.lo + i, t.level + 1 };
                    }
                    start = i;
                }
            }
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
    free(pairs_own);
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
    /* The new nodes are written in place, room made once per record: what
     * pk_stack_append does (with a depth limit, each node's depth is its
     * root-first position + 1), minus two calls and capacity checks per
     * node (a third of this function's instructions on the gperftools
     * benchmark). A record deeper than the limit (the read-ahead thread
     * stopped at any with samples) goes through pk_stack_append. */
    int in_place = fresh;
    if (in_place)
        p->stack_childless = PROFKIT_NONE; /* as pk_stack_append leaves it */
    for (size_t i = 0; i < r->n_recs; i++) {
        prefetch_key(r, order, i, r->n_recs, 0);
        const struct rec_entry *x = &r->recs[order[i]];
        size_t depth = x->depth;
        if ((depth > cap_path && pk_grow((void **)&path_pc, &cap_path, depth, sizeof(uint32_t)) != 0) ||
            (depth > cap_path2 &&
             pk_grow((void **)&path_stack, &cap_path2, depth, sizeof(uint32_t)) != 0)) {
            rc = PROFKIT_ENOMEM;
            goto done;
        }
        /* path_*[k]: PC index and stack id of root-first prefix k + 1 of the
         * previous record; reuse what this one shares with it. */
        size_t k = 0;
        while (k < depth && k < prev_depth && path_pc[k] == key_at(r, x, depth - 1 - k))
            k++;
        uint32_t stack = k > 0 ? path_stack[k - 1] : 0;
        if (in_place && (!p->limit_depth || depth <= p->limit_depth)) {
            size_t more = depth - k;
            if ((p->cap_stacks - p->n_stacks < more &&
                 (more >= PROFKIT_NONE - 1 - p->n_stacks ||
                  PK_VEC_RESERVE(p->stacks, p->n_stacks, p->cap_stacks, more) != 0)) ||
                (p->limit_depth && p->cap_stack_depth < p->n_stacks + more &&
                 pk_grow((void **)&p->stack_depth, &p->cap_stack_depth, p->n_stacks + more,
                         sizeof(uint32_t)) != 0)) {
                rc = PROFKIT_ENOMEM;
                goto done;
            }
            profkit_stack *st = p->stacks;
            uint32_t *sd = p->limit_depth ? p->stack_depth : NULL;
            uint32_t next = (uint32_t)p->n_stacks;
            for (; k < depth; k++) {
                uint32_t pci = key_at(r, x, depth - 1 - k);
                st[next].parent = stack;
                st[next].frame = frame[pci];
                if (sd)
                    sd[next] = (uint32_t)k + 1;
                stack = next++;
                path_pc[k] = pci;
                path_stack[k] = stack;
            }
            p->n_stacks = next;
        }
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
    r.narrow = 1; /* no PCs yet */
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
    if ((rc = pk_gperftools_read_records(&r, &trailer, &n_records)) != 0)
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
    if (!r.narrow && r.n_pcs <= 65536 && r.n_arena > 0) {
        /* Fewer than 2^16 PCs (the usual case): halve the arena in place
         * (entry i moves from byte 4i to 2i, never over an unread one). */
        uint16_t *a16 = (uint16_t *)(void *)r.arena;
        for (size_t i = 0; i < r.n_arena; i++)
            a16[i] = (uint16_t)r.arena[i];
        r.narrow = 1;
        uint32_t *a = realloc(r.arena, (r.n_arena + 1) / 2 * sizeof(uint32_t));
        if (a)
            r.arena = a;
    } else if (r.narrow && r.n_arena > 0) { /* 16-bit from the start: the slack back */
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
