/*
 * flame_html.c: the viewer page. The template with its CSS and JS is
 * compiled in (cmake/embed_page.cmake); the data, schema 1 of
 * docs/viewer.md, goes where the template says @PROFKIT_DATA@.
 */
#include "report/flame/flame.h"

#include <math.h>
#include <stdlib.h>

#include "analysis/analysis.h"
#include "analysis/markers.h"
#include "analysis/counters.h"
#include "io/json_fields.h"
#include "util/map64.h"

void profkit_flame_options_init(profkit_flame_options *o)
{
    memset(o, 0, sizeof(*o));
    o->min_percent = 0.025;
    o->max_nodes = 100000;
}

/* Output ids: the strings and functions the page needs, numbered in the
 * order they are first used; equal strings are one. */
typedef struct remap {
    pk_strtab str;
    uint32_t *func, *func_list;
    uint32_t *fname, *ffile, *fmodule; /* per output function */
    size_t n_func;
} remap;

static int build_remap(remap *m, const flame_data *d, uint32_t *thread_name, uint32_t *thread_proc)
{
    const profkit_profile *p = d->p;
    size_t nf = d->n_funcs ? d->n_funcs : 1;
    if (pk_strtab_init(&m->str) != 0 || !(m->func = malloc(nf * sizeof(uint32_t))) ||
        !(m->func_list = malloc(nf * sizeof(uint32_t))) || !(m->fname = malloc(nf * sizeof(uint32_t))) ||
        !(m->ffile = malloc(nf * sizeof(uint32_t))) || !(m->fmodule = malloc(nf * sizeof(uint32_t))))
        return PROFKIT_ENOMEM;
    memset(m->func, 0xff, nf * sizeof(uint32_t));
    for (size_t i = 0; i < d->n_scopes; i++) {
        const flame_scope *s = &d->scopes[i];
        const char *name = "(all threads)", *proc = "";
        size_t nlen = strlen(name), plen = 0;
        if (s->thread != PROFKIT_NONE && !s->merged) {
            const profkit_thread *th = &p->threads[s->thread];
            name = pk_str(p, th->name);
            nlen = pk_strtab_len(&p->strings, th->name);
            proc = pk_str(p, th->process_name);
            plen = pk_strtab_len(&p->strings, th->process_name);
        }
        if (s->label) { /* pagediff: a label scope's key and value */
            name = s->lkey, nlen = s->lkey_len;
            proc = s->lvalue, plen = s->lvalue_len;
        }
        if ((thread_name[i] = pk_strtab_intern(&m->str, name, nlen)) == PROFKIT_NONE ||
            (thread_proc[i] = pk_strtab_intern(&m->str, proc, plen)) == PROFKIT_NONE)
            return PROFKIT_ENOMEM;
        for (size_t j = 0; j < s->n; j++) {
            int32_t fi = s->func[j];
            if (fi < 0 || m->func[fi] != PROFKIT_NONE)
                continue;
            size_t o = m->n_func++, nl, fl, ml;
            m->func[fi] = (uint32_t)o;
            m->func_list[o] = (uint32_t)fi;
            const char *fname = pk_flame_func_name(d, (size_t)fi, &nl);
            const char *ffile = pk_flame_func_file(d, (size_t)fi, &fl);
            const char *fmod = pk_flame_func_module(d, (size_t)fi, &ml);
            if ((m->fname[o] = pk_strtab_intern(&m->str, fname, nl)) == PROFKIT_NONE ||
                (m->ffile[o] = pk_strtab_intern(&m->str, ffile, fl)) == PROFKIT_NONE ||
                (m->fmodule[o] = pk_strtab_intern(&m->str, fmod, ml)) == PROFKIT_NONE)
                return PROFKIT_ENOMEM;
        }
    }
    return 0;
}

static void put_key(pk_buf *b, const char *key)
{
    pk_buf_put(b, "\"", 1);
    pk_buf_puts(b, key);
    pk_buf_put(b, "\":", 2);
}

static void put_cstr(pk_buf *b, const char *s) { pk_buf_json(b, s, strlen(s), PK_JSON_PAGE); }

static void put_func_column(pk_buf *b, const char *key, const flame_data *d, const remap *m,
                            int which)
{
    put_key(b, key);
    pk_buf_put(b, "[", 1);
    for (size_t i = 0; i < m->n_func; i++) {
        if (i)
            pk_buf_put(b, ",", 1);
        switch (which) {
        case 0: pk_buf_i64(b, m->fname[i]); break;
        case 1: pk_buf_i64(b, m->ffile[i]); break;
        case 2: pk_buf_i64(b, d->funcs[m->func_list[i]].line); break;
        default: pk_buf_i64(b, m->fmodule[i]); break;
        }
    }
    pk_buf_put(b, "]", 1);
}

static void put_values(pk_buf *b, const char *key, const int64_t *self, size_t n, size_t nv)
{
    put_key(b, key);
    pk_buf_put(b, "[", 1);
    for (size_t v = 0; v < nv; v++) {
        pk_buf_puts(b, v ? ",[" : "[");
        for (size_t i = 0; i < n; i++) {
            if (i)
                pk_buf_put(b, ",", 1);
            pk_buf_i64(b, self[v * n + i]);
        }
        pk_buf_put(b, "]", 1);
    }
    pk_buf_put(b, "]", 1);
}

/*
 * The timeline's columns (docs/viewer.md, "timeline") are strings: base64
 * of unsigned LEB128 varints, signed ones zigzag-coded (0, -1, 1, -2, ...
 * as 0, 1, 2, 3, ...). A sample costs a few bytes instead of a JSON
 * number or two per column, so a page holds a million samples in a few
 * MB. A writer without a buffer only counts the bytes (the budget).
 */
typedef struct vwriter {
    pk_buf *b;             /* NULL: count only */
    size_t k;              /* bytes waiting in raw */
    size_t bytes;          /* varint bytes written */
    unsigned char raw[3 * 1024]; /* written out as base64 whole quanta at a time */
} vwriter;

static const char b64_digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* raw's first n bytes (a multiple of 3 unless last) as base64, padded. */
static void vw_flush(vwriter *w, size_t n)
{
    char q[4 * 1024];
    size_t o = 0, i = 0;
    const unsigned char *a = w->raw;
    for (; i + 3 <= n; i += 3) {
        q[o++] = b64_digits[a[i] >> 2];
        q[o++] = b64_digits[((a[i] & 3) << 4) | (a[i + 1] >> 4)];
        q[o++] = b64_digits[((a[i + 1] & 15) << 2) | (a[i + 2] >> 6)];
        q[o++] = b64_digits[a[i + 2] & 63];
    }
    if (i < n) {
        unsigned x = a[i], c = i + 1 < n ? a[i + 1] : 0;
        q[o++] = b64_digits[x >> 2];
        q[o++] = b64_digits[((x & 3) << 4) | (c >> 4)];
        q[o++] = i + 1 < n ? b64_digits[(c & 15) << 2] : '=';
        q[o++] = '=';
        i = n;
    }
    pk_buf_put(w->b, q, o);
    memmove(w->raw, w->raw + i, w->k - i);
    w->k -= i;
}

static inline void vw_byte(vwriter *w, unsigned c)
{
    w->raw[w->k++] = (unsigned char)c;
    if (PK_UNLIKELY(w->k == sizeof(w->raw)))
        vw_flush(w, w->k);
}

static inline void vw_u64(vwriter *w, uint64_t u)
{
    if (!w->b) {
        size_t n = 1;
        while (u >= 128)
            u >>= 7, n++;
        w->bytes += n;
        return;
    }
    while (u >= 128) {
        vw_byte(w, (unsigned)(u & 127) | 128);
        w->bytes++;
        u >>= 7;
    }
    vw_byte(w, (unsigned)u);
    w->bytes++;
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

/* The string's characters (quotes and padding included). */
static size_t vw_chars(size_t bytes) { return (bytes + 2) / 3 * 4 + 2; }

static void vw_open(vwriter *w, pk_buf *b, const char *key)
{
    w->b = b;
    w->k = 0;
    w->bytes = 0;
    if (b) {
        pk_buf_puts(b, key);
        pk_buf_putc(b, '"');
    }
}

static size_t vw_close(vwriter *w)
{
    if (w->b) {
        if (w->k)
            vw_flush(w, w->k);
        pk_buf_putc(w->b, '"');
    }
    return vw_chars(w->bytes);
}

/* The time unit of a scope's samples: the greatest common divisor of the
 * gaps between them (a perf script text's times are whole µs, a Gecko
 * profile's often whole ms fractions), so the gaps are small numbers. */
static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int64_t samp_gap(const flame_scope *s, size_t i)
{
    int64_t d;
    if (__builtin_sub_overflow(s->samp_time[i], i ? s->samp_time[i - 1] : 0, &d) || d < 0)
        d = 0;
    return d;
}

static uint64_t time_unit(const flame_scope *s)
{
    uint64_t g = 0;
    for (size_t i = 0; i < s->n_samp && g != 1; i++)
        g = gcd_u64((uint64_t)samp_gap(s, i), g);
    return g ? g : 1;
}

/* A timed scope's frame categories (docs/viewer.md, "timeline"), when the
 * profile has categories: each sample's (its stack's, as the Firefox
 * Profiler gives it: 1 + index into time.categories, 0 = none) and each
 * node's by the Firefox Profiler's call-node rule: the category of the
 * stacks that reach it (a sample's stack and its callers, level by level),
 * the profile's default one where those stacks disagree. A sample merged
 * into an "(other)" node gives none (its stack and the node's path no
 * longer line up). Left out when memory runs short (the page then draws
 * one colour). */
static void put_sample_categories(pk_buf *b, const profkit_profile *p, const flame_scope *s)
{
    size_t ncat = 0;
    profkit_profile_categories(p, &ncat);
    if (!ncat || !s->n_samp || !p->n_stacks)
        return;
    uint16_t *sc = malloc(p->n_stacks * sizeof(uint16_t));
    uint16_t *nc = malloc((s->n ? s->n : 1) * sizeof(uint16_t));
    uint8_t *seen = calloc(p->n_stacks, 1);
    if (!sc || !nc || !seen || profkit_profile_stack_categories(p, sc) != 0) {
        free(sc);
        free(nc);
        free(seen);
        return;
    }
    uint16_t def = (uint16_t)pk_default_category(p);
    memset(nc, 0xff, (s->n ? s->n : 1) * sizeof(uint16_t));
    vwriter w;
    vw_open(&w, b, ",\"category\":");
    for (size_t i = 0; i < s->n_samp; i++) {
        uint32_t st = p->sample_stack[s->samp_row[i]];
        uint16_t c = st < p->n_stacks ? sc[st] : 0;
        vw_u64(&w, c);
        uint32_t x = s->samp_node[i];
        if (x >= s->n || s->func[x] == FLAME_OTHER)
            continue;
        /* each stack once: a stack's node path is always the same */
        for (; x > 0 && x < s->n && st > 0 && st < p->n_stacks && !seen[st]; x = (uint32_t)s->parent[x]) {
            seen[st] = 1;
            nc[x] = nc[x] == 0xffff || nc[x] == sc[st] ? sc[st] : def;
            st = p->stacks[st].parent;
        }
    }
    vw_close(&w);
    pk_buf_puts(b, ",\"node_category\":[");
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            pk_buf_put(b, ",", 1);
        pk_buf_i64(b, nc[i] == 0xffff ? 0 : nc[i]);
    }
    pk_buf_put(b, "]", 1);
    free(sc);
    free(nc);
    free(seen);
}

/* The samples' CPU deltas (Gecko's threadCPUDelta) and their unit, when a
 * sample of the scope has one: the activity graph draws the CPU share from
 * them (32_timeline.js). Each sample's as 1 + its zigzag code, 0 for a
 * sample without. Returns the characters. */
static size_t put_sample_cpu(pk_buf *b, const profkit_profile *p, const flame_scope *s)
{
    size_t i = 0;
    while (i < s->n_samp && pk_sample_cpu(p, s->samp_row[i]) == PK_NO_CPU)
        i++;
    if (i == s->n_samp)
        return 0;
    vwriter w;
    vw_open(&w, b, ",\"cpu\":");
    for (i = 0; i < s->n_samp; i++) {
        int64_t d = pk_sample_cpu(p, s->samp_row[i]);
        uint64_t z = d == PK_NO_CPU ? 0 : zigzag(d);
        vw_u64(&w, d == PK_NO_CPU ? 0 : z == UINT64_MAX ? z : z + 1);
    }
    size_t n = vw_close(&w) + 20;
    if (b) {
        pk_buf_puts(b, ",\"cpu_unit\":");
        put_cstr(b, p->sample_cpu_unit ? pk_str(p, p->sample_cpu_unit) : "");
    }
    return n;
}

/* Every timed sample of a scope (docs/viewer.md, "timeline"): its count,
 * the time unit, times as gaps from the one before in that unit, nodes as
 * differences from the one before, and per value type either one number
 * (every sample's value) or the values. With b NULL, only the size: the
 * characters the columns take. */
static size_t put_timeline(pk_buf *b, const profkit_profile *p, const flame_scope *s, int lean)
{
    size_t nv = p->n_value_types, chars = 64;
    uint64_t unit = time_unit(s);
    vwriter w;
    if (b) {
        pk_buf_puts(b, ",\"timeline\":{\"n\":");
        pk_buf_u64(b, s->n_samp);
        pk_buf_puts(b, ",\"unit\":");
        pk_buf_u64(b, unit);
    }
    vw_open(&w, b, ",\"time\":");
    for (size_t i = 0; i < s->n_samp; i++)
        vw_u64(&w, (uint64_t)samp_gap(s, i) / unit);
    chars += vw_close(&w);
    vw_open(&w, b, ",\"node\":");
    for (size_t i = 0; i < s->n_samp; i++)
        vw_u64(&w, zigzag((int64_t)s->samp_node[i] - (i ? (int64_t)s->samp_node[i - 1] : 0)));
    chars += vw_close(&w);
    if (b)
        pk_buf_puts(b, ",\"value\":[");
    for (size_t v = 0; v < nv; v++) {
        if (v && b)
            pk_buf_put(b, ",", 1);
        int64_t first = p->sample_values[(size_t)s->samp_row[0] * nv + v];
        int same = 1;
        for (size_t i = 1; i < s->n_samp && same; i++)
            same = p->sample_values[(size_t)s->samp_row[i] * nv + v] == first;
        if (same) {
            if (b)
                pk_buf_i64(b, first);
            chars += 21;
            continue;
        }
        vw_open(&w, b, "");
        for (size_t i = 0; i < s->n_samp; i++)
            vw_u64(&w, zigzag(p->sample_values[(size_t)s->samp_row[i] * nv + v]));
        chars += vw_close(&w);
    }
    if (b)
        pk_buf_puts(b, "]");
    if (lean) { /* times, nodes and values only (the page's room) */
        if (b)
            pk_buf_puts(b, "}");
        return chars;
    }
    chars += put_sample_cpu(b, p, s);
    if (b) {
        put_sample_categories(b, p, s);
        pk_buf_puts(b, "}");
    } else if (s->n_samp) {
        /* a category per sample: a varint byte each (few categories) */
        size_t ncat = 0;
        profkit_profile_categories(p, &ncat);
        if (ncat)
            chars += vw_chars(s->n_samp * (ncat < 128 ? 1 : 2));
    }
    return chars;
}

/* A thread's activity when its samples are not embedded: the default
 * value per bin of the root range. */
static void put_activity(pk_buf *b, const int64_t *bins, size_t n)
{
    pk_buf_puts(b, ",\"activity\":[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            pk_buf_put(b, ",", 1);
        pk_buf_i64(b, bins[i]);
    }
    pk_buf_put(b, "]", 1);
}

/* The tree's inline flags (docs/viewer.md, "The data"), when a frame of
 * the profile is inlined: the nodes some of whose frames were inlined into
 * their caller, as pairs (gap from the node listed before, 1 every frame
 * inlined or 3 some); a function's node not listed was a real call. Few
 * nodes are inlined in most profiles: a pair each, not a digit per node. */
static void put_inline_pairs(pk_buf *b, const uint8_t *inl, size_t n)
{
    pk_buf_putc(b, '[');
    size_t prev = 0, first = 1;
    for (size_t i = 1; i < n; i++) {
        if (!(inl[i] & 1))
            continue;
        pk_buf_puts(b, first ? "" : ",");
        pk_buf_i64(b, (int64_t)(i - prev));
        pk_buf_puts(b, inl[i] & 2 ? ",3" : ",1");
        prev = i;
        first = 0;
    }
    pk_buf_putc(b, ']');
}

/* ... and "inline_values": per value type (its index) whose flags (from
 * the rows with a value of it) are not "inline"'s, its own pairs. */
static void put_inline(pk_buf *b, const flame_scope *s, size_t nv)
{
    if (!s->inl)
        return;
    pk_buf_puts(b, ",\"inline\":");
    put_inline_pairs(b, s->inl, s->n);
    if (!s->inlv)
        return;
    int first = 1;
    for (size_t v = 0; v < nv; v++) {
        const uint8_t *fl = s->inlv + v * s->n;
        if (memcmp(fl, s->inl, s->n) == 0)
            continue;
        pk_buf_puts(b, first ? ",\"inline_values\":{\"" : ",\"");
        pk_buf_i64(b, (int64_t)v);
        pk_buf_puts(b, "\":");
        put_inline_pairs(b, fl, s->n);
        first = 0;
    }
    if (!first)
        pk_buf_putc(b, '}');
}

static void put_scope(pk_buf *b, const flame_data *d, const remap *m, const flame_scope *s,
                      uint32_t name, uint32_t proc, int embed_samples, const int64_t *activity,
                      size_t bins)
{
    const profkit_profile *p = d->p;
    size_t nv = p->n_value_types;
    int64_t pid = -1, tid = -1;
    if (s->thread != PROFKIT_NONE && !s->merged) {
        pid = p->threads[s->thread].pid;
        tid = p->threads[s->thread].tid;
    }
    pk_buf_puts(b, "{\"name\":");
    pk_buf_i64(b, name);
    pk_buf_puts(b, ",\"process\":");
    pk_buf_i64(b, proc);
    pk_buf_puts(b, ",\"pid\":");
    pk_buf_i64(b, pid);
    pk_buf_puts(b, ",\"tid\":");
    pk_buf_i64(b, tid);
    pk_buf_puts(b, ",\"index\":");
    pk_buf_i64(b, s->thread != PROFKIT_NONE && !s->merged ? (int64_t)s->thread : -1);
    pk_buf_puts(b, s->merged ? ",\"merged\":true" : ",\"merged\":false");
    if (s->label) { /* pagediff: name is the label's key, process its value */
        pk_buf_puts(b, ",\"label\":true");
        if (s->lnum) { /* pagetags: a numeric key's range, unit and --tagroot name */
            pk_buf_puts(b, ",\"num\":[");
            pk_buf_i64(b, s->llo);
            pk_buf_put(b, ",", 1);
            pk_buf_i64(b, s->lhi);
            pk_buf_puts(b, "],\"unit\":");
            put_cstr(b, s->lunit ? s->lunit : "");
        }
        if (s->lgroup) { /* pagetags: one number of a bucketed key, and its bucket */
            pk_buf_puts(b, ",\"group\":true,\"bucket\":");
            pk_buf_json(b, s->lbucket, s->lbucket_len, PK_JSON_PAGE);
        }
        if (s->lframe_len) {
            pk_buf_puts(b, ",\"frame\":");
            pk_buf_json(b, s->lframe, s->lframe_len, PK_JSON_PAGE);
        }
    }
    pk_buf_puts(b, ",\"tree\":{\"parent\":[");
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            pk_buf_put(b, ",", 1);
        pk_buf_i64(b, s->parent[i]);
    }
    pk_buf_puts(b, "],\"func\":[");
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            pk_buf_put(b, ",", 1);
        pk_buf_i64(b, s->func[i] >= 0 ? (int64_t)m->func[s->func[i]] : s->func[i]);
    }
    pk_buf_puts(b, "]");
    put_inline(b, s, nv);
    pk_buf_put(b, ",", 1);
    put_values(b, "self", s->self, s->n, nv);
    if (s->base_self) {
        pk_buf_put(b, ",", 1);
        put_values(b, "base_self", s->base_self, s->n, nv);
    }
    pk_buf_put(b, "}", 1);
    if (s->timed) {
        pk_buf_puts(b, ",\"samples\":{\"start\":[");
        for (size_t i = 0; i < s->n_runs; i++) {
            if (i)
                pk_buf_put(b, ",", 1);
            pk_buf_i64(b, s->run_start[i]);
        }
        pk_buf_puts(b, "],\"node\":[");
        for (size_t i = 0; i < s->n_runs; i++) {
            if (i)
                pk_buf_put(b, ",", 1);
            pk_buf_i64(b, s->run_node[i]);
        }
        pk_buf_puts(b, "],\"end\":");
        pk_buf_i64(b, s->run_end);
        pk_buf_put(b, "}", 1);
    }
    if (s->timed && s->n_samp && !s->base_self && embed_samples)
        (void)put_timeline(b, p, s, embed_samples == 2);
    else if (activity && s->timed && !s->merged)
        put_activity(b, activity, bins);
    pk_buf_put(b, "}", 1);
}

/* The time line of a timed profile (docs/viewer.md, "time"): the root
 * range and the markers as the Firefox Profiler shows them. */
typedef struct timeinfo {
    int timed;
    int64_t time0;            /* the profile's first sample: the samples' 0 */
    int64_t zero, end;        /* the root range, ns on the model's axis */
    int has_range;
    double range_lo, range_hi; /* the range to open with, ms after zero */
    pk_shown_markers mk;
    uint32_t *mkind;                /* per marker: its kind's id in kinds (1, 2, ...) */
    uint32_t *mdata;                /* ... and its payload's in payloads (0: none) */
    pk_strtab kinds;                /* (name, category as output string ids, flags)
                                     * as 9 bytes: the markers' kinds */
    pk_strtab payloads;             /* the payloads' texts, each once */
    uint32_t *tname, *tproc;        /* per profile thread */
    int embed_samples;              /* every timed sample fits the budget (2: without
                                     * their CPU deltas and categories) */
    int over_bytes;                 /* not: their columns are past the bytes' budget */
    size_t n_samples;               /* timed samples of the page's threads */
    int64_t *activity;              /* else `bins` per scope */
    size_t bins;                    /* PK_FLAME_BINS, fewer past PK_FLAME_ACTIVITY_CELLS */
    size_t n_markers;               /* markers embedded (the first of mk) */
    size_t payload_cut;             /* markers whose payload was left out */
    /* the paused ranges (paused_make): ns on the model's axis, PAUSED_EDGE
     * for a null start or end (the root range's start, its end), the
     * reason as an output string id, the process's pid (-1: every one's) */
    struct paused_band { int64_t start, end, pid; uint32_t reason; } *paused;
    size_t n_paused;
} timeinfo;
#define PAUSED_EDGE INT64_MIN

static void timeinfo_free(timeinfo *ti)
{
    pk_shown_markers_free(&ti->mk);
    free(ti->mkind);
    free(ti->mdata);
    pk_strtab_free(&ti->kinds);
    pk_strtab_free(&ti->payloads);
    free(ti->tname);
    free(ti->tproc);
    free(ti->activity);
    free(ti->paused);
}

static uint32_t intern_id(remap *m, const profkit_profile *p, uint32_t id)
{
    return pk_strtab_intern(&m->str, pk_str(p, id), pk_strtab_len(&p->strings, id));
}

/* Whether the page embeds every timed sample (1; 2: without their CPU
 * deltas and categories, which only colour the timeline and the stack
 * chart: the ranges stay exact) or, past the budget, or a thread that
 * alone was past it, each timed thread's activity per bin of the root
 * range (0; *over_bytes: for their columns' bytes). *n_samples: the
 * timed samples of the page's threads. */
static int samples_embed(const flame_data *d, int *over_bytes, size_t *n_samples)
{
    const profkit_profile *p = d->p;
    int embed = 1;
    *over_bytes = 0;
    *n_samples = 0;
    for (size_t i = 0; i < d->n_scopes; i++) {
        const flame_scope *s = &d->scopes[i];
        *n_samples += s->n_samp;
        if (s->timed && !s->n_samp && s->n_runs)
            embed = 0;
    }
    if (*n_samples > PK_FLAME_MAX_SAMPLES)
        embed = 0;
    /* and the samples' columns fit the page's byte budget (else, before
     * none: without the CPU deltas and categories) */
    size_t chars = 0, lean = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < d->n_scopes && embed; i++) {
            const flame_scope *s = &d->scopes[i];
            if (!s->timed || !s->n_samp || s->base_self)
                continue;
            if (pass == 0)
                chars += put_timeline(NULL, p, s, 0);
            else if (chars > PK_FLAME_SAMPLE_BYTES)
                lean += put_timeline(NULL, p, s, 1);
        }
    if (embed && chars > PK_FLAME_SAMPLE_BYTES && lean <= PK_FLAME_SAMPLE_BYTES)
        return 2;
    if (embed && chars > PK_FLAME_SAMPLE_BYTES) {
        *over_bytes = 1;
        return 0;
    }
    return embed;
}

/* A paused range's time field (ms on its process's time base, plus base
 * ns) as ns on the model's axis: 1; null or absent: PAUSED_EDGE and 1;
 * anything else (not a number, out of range): 0. */
static int paused_time(const char *s, size_t n, const char *key, double base, int64_t *out)
{
    pk_json_field f;
    double ms;
    *out = PAUSED_EDGE;
    if (!pk_json_find_field(s, n, key, &f) || (f.value_len == 4 && memcmp(f.value, "null", 4) == 0))
        return 1;
    if (!pk_json_field_number(&f, &ms))
        return 0;
    double ns = ms * 1e6 + base;
    if (!(ns > -9.2e18 && ns < 9.2e18))
        return 0;
    *out = (int64_t)llround(ns);
    return 1;
}

/* The profile's paused ranges for the timeline's bands (docs/viewer.md,
 * "paused"): each range's JSON object (Gecko's pausedRanges: startTime,
 * endTime in ms, reason) with its process. Their times are on their
 * process's own start, which the model keeps as that process's threads'
 * process start (raw Gecko: the process profile's startTime, the shift
 * its samples get; processed: processStartupTime, which the Firefox
 * Profiler's processing sets to that shift and leaves the ranges as they
 * came). Equal ranges of one process (a processed profile repeats them on
 * each thread) are one; a range whose startTime is neither a number nor
 * null is left out. */
static int paused_make(timeinfo *ti, remap *m, const profkit_profile *p)
{
    if (!p->n_paused)
        return 0;
    if (!(ti->paused = malloc(p->n_paused * sizeof(*ti->paused))))
        return PROFKIT_ENOMEM;
    /* a range met before: its (range, pid) in a set, the pid as the ids of
     * the pids met (pid_ids) so the pair is one 64-bit key */
    pk_map64 seen = { 0 }, pid_ids = { 0 }, start_of = { 0 };
    int rc = 0;
    /* each pid's first thread with a process start (start_of: pid -> thread) */
    for (size_t t = 0; t < p->n_threads && rc >= 0; t++)
        if (p->threads[t].pid >= 0 && p->threads[t].process_start != PROFKIT_NO_TIME &&
            pk_map64_get(&start_of, (uint64_t)p->threads[t].pid) == PK_MAP64_EMPTY)
            rc = pk_map64_put(&start_of, (uint64_t)p->threads[t].pid, (uint32_t)t);
    rc = rc < 0 ? rc : 0;
    for (size_t i = 0; i < p->n_paused && rc == 0; i++) {
        uint32_t id = p->paused[i].range;
        int64_t pid = p->paused[i].pid;
        uint32_t pid_id = pk_map64_get(&pid_ids, (uint64_t)pid);
        if (pid_id == PK_MAP64_EMPTY && (rc = pk_map64_put(&pid_ids, (uint64_t)pid, pid_id = (uint32_t)pid_ids.count)) < 0)
            break;
        if ((rc = pk_map64_put(&seen, (uint64_t)pid_id << 32 | id, 0)) != 0) {
            rc = rc < 0 ? rc : 0; /* 1: met before */
            continue;
        }
        const char *s = pk_str(p, id);
        size_t n = pk_strtab_len(&p->strings, id);
        uint32_t t = pid >= 0 ? pk_map64_get(&start_of, (uint64_t)pid) : PK_MAP64_EMPTY;
        double base = t != PK_MAP64_EMPTY ? (double)p->threads[t].process_start : 0;
        struct paused_band r = { 0, 0, pid, 0 };
        if (!paused_time(s, n, "startTime", base, &r.start) || !paused_time(s, n, "endTime", base, &r.end))
            continue;
        if (r.start != PAUSED_EDGE && r.end != PAUSED_EDGE && r.end < r.start)
            r.end = r.start;
        /* the reason as written (a string's escapes too), "" when none */
        pk_json_field f;
        const char *rs = "";
        size_t rn = 0;
        if (pk_json_find_field(s, n, "reason", &f) && !pk_json_field_string(&f, &rs, &rn))
            rs = f.value, rn = f.value_len;
        if ((r.reason = pk_strtab_intern(&m->str, rs, rn)) == PROFKIT_NONE) {
            rc = PROFKIT_ENOMEM;
            break;
        }
        ti->paused[ti->n_paused++] = r;
    }
    pk_map64_free(&seen);
    pk_map64_free(&pid_ids);
    pk_map64_free(&start_of);
    return rc;
}

/* 0, PROFKIT_ENOMEM, or PROFKIT_EINVAL for a range it cannot use (err set). */
static int timeinfo_make(timeinfo *ti, remap *m, const flame_data *d, const char *range,
                         profkit_error *err)
{
    const profkit_profile *p = d->p;
    memset(ti, 0, sizeof(*ti));
    ti->time0 = INT64_MAX;
    for (size_t r = 0; r < p->n_samples; r++)
        if (p->sample_time[r] != PROFKIT_NO_TIME && p->sample_time[r] < ti->time0)
            ti->time0 = p->sample_time[r];
    profkit_error e2;
    memset(&e2, 0, sizeof e2);
    if (d->base || ti->time0 == INT64_MAX || profkit_profile_root_range(p, &ti->zero, &ti->end, &e2) != 0) {
        if (range)
            return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                "profkit_flame_options.range: the page has no time line to "
                                "select '%s' on (%s)",
                                range, d->base ? "a diff" : "the profile has no times");
        return 0;
    }
    ti->timed = 1;
    ti->embed_samples = samples_embed(d, &ti->over_bytes, &ti->n_samples);
    if (!ti->embed_samples) {
        uint32_t *scope_of = malloc((p->n_threads ? p->n_threads : 1) * sizeof(uint32_t));
        size_t n_timed_scopes = 0;
        for (size_t i = 0; i < d->n_scopes; i++)
            n_timed_scopes += d->scopes[i].timed && !d->scopes[i].merged;
        ti->bins = PK_FLAME_BINS;
        if (n_timed_scopes > PK_FLAME_ACTIVITY_CELLS / PK_FLAME_BINS)
            ti->bins = PK_FLAME_ACTIVITY_CELLS / n_timed_scopes ? PK_FLAME_ACTIVITY_CELLS / n_timed_scopes : 1;
        if (!scope_of || !(ti->activity = calloc(d->n_scopes * ti->bins, sizeof(int64_t)))) {
            free(scope_of);
            return PROFKIT_ENOMEM;
        }
        for (size_t t = 0; t < p->n_threads; t++)
            scope_of[t] = PROFKIT_NONE;
        for (size_t i = 0; i < d->n_scopes; i++)
            if (d->scopes[i].timed && !d->scopes[i].merged && d->scopes[i].thread < p->n_threads)
                scope_of[d->scopes[i].thread] = (uint32_t)i;
        double span = (double)ti->end - (double)ti->zero;
        size_t n_timed = 0;
        size_t nv = p->n_value_types;
        for (size_t r = 0; r < p->n_samples; r++) {
            uint32_t th = p->sample_thread[r];
            int64_t tm = p->sample_time[r];
            if (th >= p->n_threads || scope_of[th] == PROFKIT_NONE || tm == PROFKIT_NO_TIME || !(span > 0))
                continue;
            double x = ((double)tm - (double)ti->zero) / span * (double)ti->bins;
            if (!(x >= 0) || x >= (double)ti->bins)
                continue;
            n_timed++;
            pk_sat_addto(&ti->activity[(size_t)scope_of[th] * ti->bins + (size_t)x],
                         p->sample_values[(size_t)r * nv + d->value]);
        }
        free(scope_of);
        ti->n_samples = n_timed;
    }
    if (range) {
        profkit_range r;
        int rc = profkit_range_parse(&r, range, err);
        if (rc != 0)
            return rc;
        double len = ((double)ti->end - (double)ti->zero) / 1e6;
        ti->range_lo = r.start_percent ? r.start / 100.0 * len : r.start;
        ti->range_hi = r.end_percent ? r.end / 100.0 * len : r.end;
        if (!(ti->range_hi >= ti->range_lo))
            return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                "profkit_flame_options.range: the end comes before the start in '%s'",
                                range);
        ti->has_range = 1;
    }
    if (pk_markers_shown(&ti->mk, p, PROFKIT_NONE, NULL, NULL, -1) != 0 ||
        pk_strtab_init(&ti->kinds) != 0 || pk_strtab_init(&ti->payloads) != 0)
        return PROFKIT_ENOMEM;
    size_t n = ti->mk.n ? ti->mk.n : 1, nt = p->n_threads ? p->n_threads : 1;
    if (!(ti->mkind = malloc(n * sizeof(uint32_t))) || !(ti->mdata = malloc(n * sizeof(uint32_t))) ||
        !(ti->tname = malloc(nt * sizeof(uint32_t))) || !(ti->tproc = malloc(nt * sizeof(uint32_t))))
        return PROFKIT_ENOMEM;
    ti->n_markers = ti->mk.n < PK_FLAME_MAX_MARKERS ? ti->mk.n : PK_FLAME_MAX_MARKERS;
    size_t payload = 0;
    for (size_t i = 0; i < ti->n_markers; i++) {
        const pk_shown_marker *mk = &ti->mk.m[i];
        size_t plen = mk->payload ? pk_strtab_len(&p->strings, mk->payload) : 0;
        int keep = payload + plen <= PK_FLAME_MAX_PAYLOAD;
        if (keep)
            payload += plen;
        else
            ti->payload_cut++;
        uint32_t name = intern_id(m, p, mk->name);
        uint32_t cat = mk->category ? intern_id(m, p, mk->category) : pk_strtab_intern(&m->str, "Other", 5);
        ti->mdata[i] = keep && plen ? pk_strtab_intern(&ti->payloads, pk_str(p, mk->payload), plen) : 0;
        if (name == PROFKIT_NONE || cat == PROFKIT_NONE || ti->mdata[i] == PROFKIT_NONE)
            return PROFKIT_ENOMEM;
        /* the kind: name, category, and whether it has a duration (1) and a payload (2) */
        unsigned char key[9];
        memcpy(key, &name, 4);
        memcpy(key + 4, &cat, 4);
        key[8] = (unsigned char)((mk->end != PROFKIT_NO_TIME) | (ti->mdata[i] ? 2 : 0));
        if ((ti->mkind[i] = pk_strtab_intern(&ti->kinds, (const char *)key, sizeof key)) == PROFKIT_NONE)
            return PROFKIT_ENOMEM;
    }
    for (size_t t = 0; t < p->n_threads; t++)
        if ((ti->tname[t] = intern_id(m, p, p->threads[t].name)) == PROFKIT_NONE ||
            (ti->tproc[t] = intern_id(m, p, p->threads[t].process_name)) == PROFKIT_NONE)
            return PROFKIT_ENOMEM;
    return paused_make(ti, m, p);
}

/* The markers' element (docs/viewer.md, "markers"): a JSON object of
 * their kinds (name, category, flags), each once, their payloads' texts,
 * each once, and their columns packed (put_marker_packed): the threads as
 * runs, each marker's kind, its start (the first of a thread's
 * zigzag-coded, the others as the difference from the one before: a
 * thread's markers come in time order), the intervals' durations, all in
 * units of the times' greatest common divisor, and the payload of each
 * marker that has one (the difference from the one before, zigzag-coded:
 * payloads seen in order number up by one). */
/* Marker i's start less the one before of its thread (0 where out of
 * order); *first: it is its thread's first (then the zigzag-coded start). */
static uint64_t marker_start_code(const pk_shown_markers *mk, size_t i, int *first)
{
    const pk_shown_marker *x = &mk->m[i];
    int64_t v;
    *first = !i || mk->m[i - 1].thread != x->thread;
    if (*first)
        return zigzag(x->start);
    if (__builtin_sub_overflow(x->start, mk->m[i - 1].start, &v) || v < 0)
        v = 0;
    return (uint64_t)v;
}

static uint64_t marker_duration(const pk_shown_marker *x)
{
    int64_t v;
    if (__builtin_sub_overflow(x->end, x->start, &v) || v < 0)
        v = 0;
    return (uint64_t)v;
}

/* The markers' columns as base64 varints, each in its own string (the
 * form before the packed one, and what the page gets if packing fails). */
static void put_marker_columns(pk_buf *b, const timeinfo *ti, uint64_t unit)
{
    const pk_shown_markers *mk = &ti->mk;
    size_t n = ti->n_markers;
    vwriter w;
    vw_open(&w, b, ",\"threads\":");
    for (size_t i = 0, r = 0; i < n; i = r) {
        for (r = i + 1; r < n && mk->m[r].thread == mk->m[i].thread;)
            r++;
        vw_u64(&w, mk->m[i].thread);
        vw_u64(&w, r - i);
    }
    (void)vw_close(&w);
    vw_open(&w, b, ",\"kind\":");
    for (size_t i = 0; i < n; i++)
        vw_u64(&w, ti->mkind[i] - 1);
    (void)vw_close(&w);
    vw_open(&w, b, ",\"start\":");
    for (size_t i = 0; i < n; i++) {
        int first;
        uint64_t v = marker_start_code(mk, i, &first);
        vw_u64(&w, first ? zigzag(mk->m[i].start / (int64_t)unit) : v / unit);
    }
    (void)vw_close(&w);
    vw_open(&w, b, ",\"duration\":");
    for (size_t i = 0; i < n; i++) {
        if (mk->m[i].end != PROFKIT_NO_TIME)
            vw_u64(&w, marker_duration(&mk->m[i]) / unit);
    }
    (void)vw_close(&w);
    vw_open(&w, b, ",\"data\":");
    int64_t prev = 0;
    for (size_t i = 0; i < n; i++)
        if (ti->mdata[i]) {
            vw_u64(&w, zigzag((int64_t)ti->mdata[i] - 1 - prev));
            prev = (int64_t)ti->mdata[i] - 1;
        }
    (void)vw_close(&w);
}

/* The markers' columns packed (flame_pack.c): one byte stream of the
 * threads' runs, the kinds, the starts and durations as byte planes (their
 * low bytes, then the rest as varints: deflate codes each plane on its own
 * statistics), the payload indexes, the payloads' texts (a JSON array);
 * gzip-compressed, as base85 text.
 * 0, or PROFKIT_ENOMEM with nothing written. */
static int put_marker_packed(pk_buf *b, const timeinfo *ti, uint64_t unit, size_t intervals)
{
    const pk_shown_markers *mk = &ti->mk;
    size_t n = ti->n_markers, parts[6];
    pk_buf raw = PK_BUF_INIT;
    uint64_t *v = malloc((n ? n : 1) * sizeof(uint64_t));
    unsigned char *gz = NULL;
    size_t gz_n = 0;
    int s_start = 0, s_dur = 0, rc = PROFKIT_ENOMEM;
    if (!v)
        goto out;
    for (size_t i = 0, r = 0; i < n; i = r) {
        for (r = i + 1; r < n && mk->m[r].thread == mk->m[i].thread;)
            r++;
        pk_flame_raw_varint(&raw, mk->m[i].thread);
        pk_flame_raw_varint(&raw, r - i);
    }
    parts[0] = raw.len;
    for (size_t i = 0; i < n; i++)
        pk_flame_raw_varint(&raw, ti->mkind[i] - 1);
    parts[1] = raw.len - parts[0];
    for (size_t i = 0; i < n; i++) {
        int first;
        uint64_t c = marker_start_code(mk, i, &first);
        v[i] = first ? zigzag(mk->m[i].start / (int64_t)unit) : c / unit;
    }
    s_start = pk_flame_planes_for(v, n);
    if (pk_flame_put_planes(&raw, v, n, s_start) != 0)
        goto out;
    parts[2] = raw.len - parts[0] - parts[1];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (mk->m[i].end != PROFKIT_NO_TIME)
            v[k++] = marker_duration(&mk->m[i]) / unit;
    s_dur = pk_flame_planes_for(v, k);
    if (k != intervals || pk_flame_put_planes(&raw, v, k, s_dur) != 0)
        goto out;
    parts[3] = raw.len - parts[0] - parts[1] - parts[2];
    int64_t prev = 0;
    for (size_t i = 0; i < n; i++)
        if (ti->mdata[i]) {
            pk_flame_raw_varint(&raw, zigzag((int64_t)ti->mdata[i] - 1 - prev));
            prev = (int64_t)ti->mdata[i] - 1;
        }
    parts[4] = raw.len - parts[0] - parts[1] - parts[2] - parts[3];
    /* the payloads' texts: a JSON array, in UTF-8 */
    pk_buf_putc(&raw, '[');
    for (uint32_t t = 1; t < ti->payloads.n; t++) {
        if (t > 1)
            pk_buf_putc(&raw, ',');
        pk_buf_json(&raw, pk_strtab_get(&ti->payloads, t), pk_strtab_len(&ti->payloads, t), PK_JSON_PAGE);
    }
    pk_buf_putc(&raw, ']');
    parts[5] = raw.len - parts[0] - parts[1] - parts[2] - parts[3] - parts[4];
    if (pk_buf_error(&raw) || pk_flame_gzip((const unsigned char *)raw.buf, raw.len, &gz, &gz_n) != 0)
        goto out;
    pk_buf_printf(b, ",\"packed\":{\"bytes\":%zu,\"gz_bytes\":%zu,\"parts\":[%zu,%zu,%zu,%zu,%zu,%zu],"
                     "\"planes\":[%d,%d]},\"gz\":\"",
                  raw.len, gz_n, parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], s_start, s_dur);
    pk_flame_put_base85(b, gz, gz_n);
    pk_buf_putc(b, '"');
    rc = 0;
out:
    free(v);
    free(gz);
    pk_buf_free(&raw);
    return rc;
}

static void put_markers(pk_buf *b, const timeinfo *ti)
{
    const pk_shown_markers *mk = &ti->mk;
    size_t n = ti->n_markers, runs = 0, intervals = 0, with_data = 0;
    uint64_t unit = 0;
    for (size_t i = 0; i < n; i++) {
        int first;
        uint64_t v = marker_start_code(mk, i, &first);
        if (first)
            v = mk->m[i].start == INT64_MIN ? 1 : (uint64_t)(mk->m[i].start < 0 ? -mk->m[i].start : mk->m[i].start);
        runs += first;
        unit = gcd_u64(unit, v);
        if (mk->m[i].end != PROFKIT_NO_TIME) {
            intervals++;
            unit = gcd_u64(unit, marker_duration(&mk->m[i]));
        }
        with_data += ti->mdata[i] != 0;
    }
    if (!unit || unit > INT64_MAX)
        unit = 1;
    /* packed (with the payloads' texts) into a buffer of its own first;
     * none: the empty columns are shorter than an empty stream */
    pk_buf packed = PK_BUF_INIT;
    int pack = n && put_marker_packed(&packed, ti, unit, intervals) == 0 && !pk_buf_error(&packed);
    pk_buf_puts(b, "{\"n\":");
    pk_buf_u64(b, n);
    pk_buf_puts(b, ",\"kinds\":[");
    for (uint32_t k = 1; k < ti->kinds.n; k++) {
        const unsigned char *key = (const unsigned char *)pk_strtab_get(&ti->kinds, k);
        uint32_t name, cat;
        memcpy(&name, key, 4);
        memcpy(&cat, key + 4, 4);
        pk_buf_printf(b, "%s%u,%u,%u", k > 1 ? "," : "", (unsigned)name, (unsigned)cat, (unsigned)key[8]);
    }
    pk_buf_puts(b, "]");
    if (!pack) {
        pk_buf_puts(b, ",\"payloads\":[");
        for (uint32_t k = 1; k < ti->payloads.n; k++) {
            if (k > 1)
                pk_buf_put(b, ",", 1);
            pk_buf_json(b, pk_strtab_get(&ti->payloads, k), pk_strtab_len(&ti->payloads, k), PK_JSON_PAGE);
        }
        pk_buf_puts(b, "]");
    }
    pk_buf_printf(b, ",\"unit\":%llu,\"runs\":%zu,\"intervals\":%zu,\"with_data\":%zu",
                  (unsigned long long)unit, runs, intervals, with_data);
    if (pack)
        pk_buf_put(b, packed.buf, packed.len);
    else
        put_marker_columns(b, ti, unit);
    pk_buf_free(&packed);
    pk_buf_puts(b, "}");
}

/* The frame categories (docs/viewer.md, "time"): name and colour as the
 * profile names them, followed by a comma; nothing when it has none. */
static void put_category_table(pk_buf *b, const profkit_profile *p)
{
    size_t ncat = 0;
    const profkit_category *c = profkit_profile_categories(p, &ncat);
    if (!ncat)
        return;
    pk_buf_puts(b, "\"categories\":[");
    for (size_t i = 0; i < ncat; i++) {
        pk_buf_puts(b, i ? ",{\"name\":" : "{\"name\":");
        put_cstr(b, pk_str(p, c[i].name));
        pk_buf_puts(b, ",\"color\":");
        put_cstr(b, pk_str(p, c[i].color));
        pk_buf_put(b, "}", 1);
    }
    pk_buf_puts(b, "],");
}

/*
 * The counters for the page's counter tracks (33_counters.js), timed
 * ones only: per counter its name, category, thread, and per sample its
 * time (ns on the samples' axis, as the markers'), the running sum of the
 * counts (what the track draws), the count and the number of events. At
 * most PK_FLAME_MAX_COUNTER_SAMPLES samples in all (the first ones, with
 * put_order_counters' after them); a counter past them is left out.
 */
#define PK_FLAME_MAX_COUNTER_SAMPLES 1000000

/* One counter's object: name, category, thread (the profile's index, -1
 * for none) and its columns, the first (`first`) being the time less
 * time0, or the operation index for a counter by operation order. */
static void put_counter(pk_buf *b, const profkit_profile *p, size_t i, int shown,
                        const char *first, int64_t time0)
{
    const profkit_counter *c = &p->counters[i];
    pk_buf_puts(b, shown ? ",{\"name\":" : "{\"name\":");
    put_cstr(b, pk_str(p, c->name));
    pk_buf_puts(b, ",\"category\":");
    put_cstr(b, pk_str(p, c->category));
    pk_buf_puts(b, ",\"thread\":");
    pk_buf_i64(b, c->thread < p->n_threads ? (int64_t)c->thread : -1);
    const char *const cols[] = { first, "total", "count", "number" };
    for (int k = 0; k < 4; k++) {
        pk_buf_puts(b, ",\"");
        pk_buf_puts(b, cols[k]);
        pk_buf_puts(b, "\":[");
        pk_counter_iter it;
        pk_counter_iter_init(&it, p, (uint32_t)i);
        while (pk_counter_next(&it)) {
            int64_t v = k == 1 ? it.total : k == 2 ? it.s->count : it.s->number;
            if (k == 0 && __builtin_sub_overflow(it.t, time0, &v))
                v = 0;
            if (it.index)
                pk_buf_put(b, ",", 1);
            pk_buf_i64(b, v);
        }
        pk_buf_puts(b, "]");
    }
    pk_buf_puts(b, "}");
}

static size_t counter_rows(const profkit_profile *p, const profkit_counter *c)
{
    return c->first + c->n <= p->n_counter_samples ? c->n : 0;
}

static void put_counters(pk_buf *b, const timeinfo *ti, const profkit_profile *p, size_t *budget)
{
    size_t shown = 0;
    pk_buf_puts(b, ",\"counters\":[");
    for (size_t i = 0; i < p->n_counters; i++) {
        const profkit_counter *c = &p->counters[i];
        size_t n = counter_rows(p, c);
        if (c->by_order || n > *budget)
            continue;
        *budget -= n;
        put_counter(b, p, i, shown++ != 0, "t", ti->time0);
    }
    pk_buf_puts(b, "]");
}

/*
 * The counters by operation order (a bsprof file's bytes in use per
 * thread) for the Memory view's graphs (34_memgraph.js), timed profile or
 * not, of the threads the page shows (none in a diff): "order_counters",
 * per counter its name, category, thread and three
 * columns (zigzag varints in base64, as the timeline's; "n" samples):
 * "op" the operation index as steps (the first sample's index,
 * then each one's distance from the one before), "count" the change of
 * the running sum since the sample before (the first: the sum itself) and
 * "number" the operations since it; the page adds them up. Past
 * PK_FLAME_ORDER_WHOLE samples, a counter of
 * more than 3 x PK_FLAME_ORDER_COLUMNS samples is thinned for the page as
 * the reader thins (docs/formats/bsprof.md): its operations fall in
 * PK_FLAME_ORDER_COLUMNS equal runs, each keeping the samples of its
 * lowest, highest and last running sum, so the peak, the lowest point,
 * the final value and the envelope at any width up to that many pixels
 * stay exact, and the numbers still add up to the operations. Within what
 * is left of the counter samples' budget; "order_counters_left_out" the
 * number of counters past it. Nothing when the profile has none.
 */
#define PK_FLAME_ORDER_COLUMNS 2048
/* Counters whose samples fit in this many together (in the profile's
 * order) come whole, every sample, so their figures over any range of
 * operations are the command line's; the others are thinned and say so
 * ("thinned": true). A sample takes about 8 bytes of the page. */
#define PK_FLAME_ORDER_WHOLE ((size_t)400000)
typedef struct order_sample {
    int64_t op, total, cum; /* cum: the numbers up to and with it */
    size_t at;              /* its index in the counter */
} order_sample;

/* A run's samples of the lowest, highest and last running sum, in their
 * order, once each, after out's k: the new k. */
static size_t order_keep(order_sample *out, size_t k, order_sample lo, order_sample hi,
                         order_sample last)
{
    order_sample keep[3] = { lo, hi, last };
    for (int a = 0; a < 3; a++)
        for (int c = a + 1; c < 3; c++)
            if (keep[c].at < keep[a].at) {
                order_sample t = keep[a];
                keep[a] = keep[c];
                keep[c] = t;
            }
    for (int a = 0; a < 3; a++)
        if (!a || keep[a].at != keep[a - 1].at)
            out[k++] = keep[a];
    return k;
}

/* Counter i's samples for the page into out (room for all of them): how
 * many; thinned unless `whole`. */
static size_t order_thin(const profkit_profile *p, size_t i, size_t n, order_sample *out, int whole)
{
    pk_counter_iter it;
    size_t k = 0;
    int64_t cum = 0, last_op = 0;
    if (whole)
        n = 0;
    if (n > 3 * (size_t)PK_FLAME_ORDER_COLUMNS) {
        pk_counter_iter_init(&it, p, (uint32_t)i);
        while (pk_counter_next(&it))
            last_op = it.t > last_op ? it.t : last_op;
    }
    uint64_t width = n > 3 * (size_t)PK_FLAME_ORDER_COLUMNS
                         ? (uint64_t)last_op / PK_FLAME_ORDER_COLUMNS + 1 : 0;
    order_sample lo = { 0, 0, 0, 0 }, hi = lo, last = lo;
    uint64_t run = 0;
    int open = 0;
    pk_counter_iter_init(&it, p, (uint32_t)i);
    while (pk_counter_next(&it)) {
        if (__builtin_add_overflow(cum, it.s->number, &cum))
            cum = INT64_MAX;
        order_sample x = { it.t, it.total, cum, it.index };
        if (!width) {
            out[k++] = x;
            continue;
        }
        uint64_t r = it.t > 0 ? (uint64_t)it.t / width : 0;
        if (open && r != run) {
            k = order_keep(out, k, lo, hi, last);
            open = 0;
        }
        if (!open) {
            lo = hi = x;
            open = 1;
            run = r;
        }
        if (x.total < lo.total)
            lo = x;
        if (x.total > hi.total)
            hi = x;
        last = x;
    }
    if (open)
        k = order_keep(out, k, lo, hi, last);
    return k;
}

/* Whether the page shows profile thread t (a scope of its own). */
static int shows_thread(const flame_data *d, uint32_t t)
{
    for (size_t i = 0; i < d->n_scopes; i++)
        if (d->scopes[i].thread == t && !d->scopes[i].merged && !d->scopes[i].label)
            return 1;
    return 0;
}

/* Thread t's scope (its own tree), or NULL. */
static const flame_scope *thread_scope(const flame_data *d, uint32_t t)
{
    for (size_t i = 0; i < d->n_scopes; i++)
        if (d->scopes[i].thread == t && !d->scopes[i].merged && !d->scopes[i].label)
            return &d->scopes[i];
    return NULL;
}

/* The children of a scope's nodes (CSR: kid[first[u] .. first[u + 1])),
 * a memo per stack of the node its path ends at (PROFKIT_NONE: not yet;
 * OPS_STUCK set: the path left the kept nodes there, so a longer one ends
 * at the same node) and the stacks memoized (to reset them for the next
 * scope). */
#define OPS_STUCK 0x80000000u
typedef struct ops_map {
    const flame_scope *s;
    uint32_t *first, *kid;
    uint32_t *memo, *touched;
    size_t n_touched;
} ops_map;

/* Child of u with function f (FLAME_OTHER: its "(other)"), or PROFKIT_NONE. */
static uint32_t ops_child(const ops_map *m, uint32_t u, int32_t f)
{
    for (uint32_t k = m->first[u]; k < m->first[u + 1]; k++)
        if (m->s->func[m->kid[k]] == f)
            return m->kid[k];
    return PROFKIT_NONE;
}

/* The node of the scope a stack's path of functions ends at: the child of
 * each node with the next frame's function, else (the path goes on into
 * nodes merged away) that node's "(other)" child, or the node itself when
 * it has none (what was merged there was zero), as the rows' values were
 * placed (flame_tree.c). */
static uint32_t stack_scope_node(const flame_data *d, ops_map *m, uint32_t stack)
{
    const profkit_profile *p = d->p;
    if (stack == 0 || stack >= p->n_stacks)
        return 0;
    if (m->memo[stack] != PROFKIT_NONE)
        return m->memo[stack];
    /* the chain up to a known ancestor, then down */
    uint32_t chain[64];
    size_t n = 0;
    uint32_t up = stack;
    while (up && m->memo[up] == PROFKIT_NONE && n < 64) {
        chain[n++] = up;
        up = p->stacks[up].parent;
    }
    if (up && m->memo[up] == PROFKIT_NONE) /* deeper than 64: the rest first */
        (void)stack_scope_node(d, m, up);
    uint32_t at = up ? m->memo[up] : 0;
    while (n--) {
        uint32_t st = chain[n];
        if (!(at & OPS_STUCK)) {
            uint32_t k = ops_child(m, at, d->frame_func[p->stacks[st].frame]);
            if (k == PROFKIT_NONE) {
                uint32_t o = ops_child(m, at, FLAME_OTHER);
                at = (o == PROFKIT_NONE ? at : o) | OPS_STUCK;
            } else {
                at = k;
            }
        }
        m->memo[st] = at;
        m->touched[m->n_touched++] = st;
    }
    return m->memo[stack];
}

/*
 * A counter's memory operations for the Memory view's tables of a range
 * (34_memgraph.js; model/counter_iter.h): "ops" {"n", and columns as
 * order_counters' (varints in base64): "node" per operation 1 + the node
 * of thread's tree its allocation's stack is drawn at, 0 for an operation
 * that allocates nothing; "size" per allocation its bytes; "freed" per
 * operation 0, or the distance back to the allocation it frees (its index
 * less that one's)}. m: room for the scope's children and a memo per
 * stack (all PROFKIT_NONE, and left so). -1 when out of memory.
 */
static int put_order_ops(pk_buf *b, const flame_data *d, const pk_mem_thread_ops *o,
                         const flame_scope *s, ops_map *m)
{
    /* the scope's children, CSR */
    m->s = s;
    memset(m->first, 0, (s->n + 1) * sizeof(*m->first));
    for (size_t i = 1; i < s->n; i++)
        m->first[s->parent[i] + 1]++;
    for (size_t i = 0; i < s->n; i++)
        m->first[i + 1] += m->first[i];
    for (size_t i = 1; i < s->n; i++)
        m->kid[m->first[s->parent[i]]++] = (uint32_t)i;
    for (size_t i = s->n; i > 0; i--) /* back to the starts */
        m->first[i] = m->first[i - 1];
    m->first[0] = 0;
    vwriter w;
    pk_buf_puts(b, ",\"ops\":{\"n\":");
    pk_buf_u64(b, o->n);
    vw_open(&w, b, ",\"node\":");
    for (size_t i = 0; i < o->n; i++)
        vw_u64(&w, o->stack[i] == PROFKIT_NONE ? 0 : 1 + (uint64_t)(stack_scope_node(d, m, o->stack[i]) & ~OPS_STUCK));
    (void)vw_close(&w);
    vw_open(&w, b, ",\"size\":");
    for (size_t i = 0; i < o->n; i++)
        if (o->stack[i] != PROFKIT_NONE)
            vw_u64(&w, o->size[i]);
    (void)vw_close(&w);
    vw_open(&w, b, ",\"freed\":");
    for (size_t i = 0; i < o->n; i++)
        vw_u64(&w, o->freed[i] ? i + 1 - o->freed[i] : 0);
    (void)vw_close(&w);
    pk_buf_puts(b, "}");
    for (size_t k = 0; k < m->n_touched; k++)
        m->memo[m->touched[k]] = PROFKIT_NONE;
    m->n_touched = 0;
    return 0;
}

static int put_order_counters(pk_buf *b, const flame_data *d, size_t *budget)
{
    const profkit_profile *p = d->p;
    if (d->base) /* a diff: no counters (they are one profile's) */
        return 0;
    size_t shown = 0, left = 0, cap = 0, full = PK_FLAME_ORDER_WHOLE;
    for (size_t i = 0; i < p->n_counters; i++)
        if (p->counters[i].by_order && counter_rows(p, &p->counters[i]) > cap)
            cap = counter_rows(p, &p->counters[i]);
    order_sample *o = cap ? malloc(cap * sizeof(*o)) : NULL;
    if (cap && !o)
        return -1;
    ops_map om;
    memset(&om, 0, sizeof om);
    for (size_t i = 0; i < p->n_counters; i++) {
        const profkit_counter *c = &p->counters[i];
        if (!c->by_order || !shows_thread(d, c->thread))
            continue;
        size_t rows = counter_rows(p, c), whole = rows <= full;
        size_t n = order_thin(p, i, rows, o, (int)whole);
        if (n > *budget) {
            left++;
            continue;
        }
        *budget -= n;
        if (whole)
            full -= rows;
        pk_buf_puts(b, shown++ ? ",{\"name\":" : ",\"order_counters\":[{\"name\":");
        put_cstr(b, pk_str(p, c->name));
        pk_buf_puts(b, ",\"category\":");
        put_cstr(b, pk_str(p, c->category));
        pk_buf_puts(b, ",\"thread\":");
        pk_buf_i64(b, c->thread < p->n_threads ? (int64_t)c->thread : -1);
        if (n < rows)
            pk_buf_puts(b, ",\"thinned\":true");
        pk_buf_puts(b, ",\"n\":");
        pk_buf_u64(b, n);
        static const char *const cols[] = { ",\"op\":", ",\"count\":", ",\"number\":" };
        for (int k = 0; k < 3; k++) {
            vwriter w;
            vw_open(&w, b, cols[k]);
            for (size_t r = 0; r < n; r++) {
                const order_sample *x = &o[r], *prev = r ? &o[r - 1] : NULL;
                int64_t v = k == 0 ? x->op : k == 1 ? x->total : x->cum, u = 0;
                if (prev)
                    u = k == 0 ? prev->op : k == 1 ? prev->total : prev->cum;
                if (__builtin_sub_overflow(v, u, &v))
                    v = 0;
                vw_u64(&w, zigzag(v));
            }
            (void)vw_close(&w);
        }
        const pk_mem_thread_ops *ops = d->frame_func ? pk_mem_ops_of(p, (uint32_t)i) : NULL;
        const flame_scope *sc = ops ? thread_scope(d, c->thread) : NULL;
        if (sc && !om.memo) { /* the first: room for every scope's */
            size_t nmax = 0;
            for (size_t k = 0; k < d->n_scopes; k++)
                nmax = d->scopes[k].n > nmax ? d->scopes[k].n : nmax;
            om.first = malloc((nmax + 1) * sizeof(*om.first));
            om.kid = malloc((nmax + 1) * sizeof(*om.kid));
            om.memo = malloc((p->n_stacks + 1) * sizeof(*om.memo));
            om.touched = malloc((p->n_stacks + 1) * sizeof(*om.touched));
            if (!om.first || !om.kid || !om.memo || !om.touched) {
                free(om.first), free(om.kid), free(om.memo), free(om.touched), free(o);
                return -1;
            }
            memset(om.memo, 0xff, (p->n_stacks + 1) * sizeof(*om.memo));
        }
        if (sc)
            (void)put_order_ops(b, d, ops, sc, &om);
        pk_buf_puts(b, "}");
    }
    if (shown)
        pk_buf_puts(b, "]");
    if (left) {
        pk_buf_puts(b, ",\"order_counters_left_out\":");
        pk_buf_u64(b, left);
    }
    if (shown && p->mem_ops && p->mem_ops->left_out) {
        /* the memory tables cannot be narrowed: how many operations */
        pk_buf_puts(b, ",\"order_ops_left_out\":");
        pk_buf_u64(b, p->mem_ops->left_out);
    } else if (shown && p->mem_ops && !d->frame_func && !d->base) {
        pk_buf_puts(b, ",\"order_ops_changed\":true"); /* filtered or merged since it was read */
    }
    free(om.first);
    free(om.kid);
    free(om.memo);
    free(om.touched);
    free(o);
    return 0;
}

/* ,"paused":[{"start":NS,"end":NS,"reason":ID,"pid":PID},...]: the
 * paused ranges, ns on the samples' axis as "zero" (null: the root
 * range's start, its end); nothing when the profile has none. */
static void put_paused(pk_buf *b, const timeinfo *ti)
{
    for (size_t i = 0; i < ti->n_paused; i++) {
        const struct paused_band *r = &ti->paused[i];
        int64_t at[2] = { r->start, r->end };
        pk_buf_puts(b, i ? ",{" : ",\"paused\":[{");
        for (int k = 0; k < 2; k++) {
            pk_buf_puts(b, k ? ",\"end\":" : "\"start\":");
            int64_t v;
            if (at[k] == PAUSED_EDGE || __builtin_sub_overflow(at[k], ti->time0, &v))
                pk_buf_puts(b, "null");
            else
                pk_buf_i64(b, v);
        }
        pk_buf_puts(b, ",\"reason\":");
        pk_buf_u64(b, r->reason);
        pk_buf_puts(b, ",\"pid\":");
        pk_buf_i64(b, r->pid);
        pk_buf_puts(b, i + 1 < ti->n_paused ? "}" : "}]");
    }
}

static void put_time(pk_buf *b, const timeinfo *ti, const profkit_profile *p, size_t *budget)
{
    if (!ti->timed)
        return;
    int64_t z, e;
    if (__builtin_sub_overflow(ti->zero, ti->time0, &z))
        z = 0;
    if (__builtin_sub_overflow(ti->end, ti->time0, &e))
        e = z;
    pk_buf_puts(b, ",\"time\":{");
    put_category_table(b, p);
    pk_buf_puts(b, "\"zero\":");
    pk_buf_i64(b, z);
    pk_buf_puts(b, ",\"end\":");
    pk_buf_i64(b, e);
    if (ti->has_range)
        pk_buf_printf(b, ",\"range\":[%.6f,%.6f]", ti->range_lo, ti->range_hi);
    if (ti->embed_samples == 2) {
        pk_buf_puts(b, ",\"samples_lean\":");
        pk_buf_u64(b, PK_FLAME_SAMPLE_BYTES);
    }
    if (!ti->embed_samples) {
        pk_buf_puts(b, ",\"samples_left_out\":");
        pk_buf_u64(b, ti->n_samples);
        if (ti->over_bytes) {
            pk_buf_puts(b, ",\"samples_left_out_bytes\":");
            pk_buf_u64(b, PK_FLAME_SAMPLE_BYTES);
        }
    }
    if (ti->mk.n > ti->n_markers) {
        pk_buf_puts(b, ",\"markers_left_out\":");
        pk_buf_u64(b, ti->mk.n - ti->n_markers);
    }
    if (ti->payload_cut) {
        pk_buf_puts(b, ",\"payloads_left_out\":");
        pk_buf_u64(b, ti->payload_cut);
    }
    pk_buf_puts(b, ",\"threads\":[");
    for (size_t t = 0; t < p->n_threads; t++) {
        pk_buf_puts(b, t ? ",{\"name\":" : "{\"name\":");
        pk_buf_i64(b, ti->tname[t]);
        pk_buf_puts(b, ",\"process\":");
        pk_buf_i64(b, ti->tproc[t]);
        pk_buf_puts(b, ",\"pid\":");
        pk_buf_i64(b, p->threads[t].pid);
        pk_buf_puts(b, ",\"tid\":");
        pk_buf_i64(b, p->threads[t].tid);
        pk_buf_put(b, "}", 1);
    }
    pk_buf_put(b, "]", 1);
    put_paused(b, ti);
    pk_buf_puts(b, ",\"markers\":{\"element\":\"profkit-markers\",\"count\":");
    pk_buf_u64(b, ti->n_markers);
    pk_buf_puts(b, "}");
    put_counters(b, ti, p, budget);
    pk_buf_puts(b, "}");
}

/* The template's tail with the markers before its "</body>": the JSON
 * array of their columns in an element of its own after the page's
 * script, so the page starts and draws its first view while the browser
 * still reads them, and reads them after (a million markers are most of a
 * page's bytes). Its text never holds a '<'. */
static void put_tail(pk_buf *b, const timeinfo *ti)
{
    const char *t = (const char *)pk_flame_page_tail;
    size_t at = pk_flame_page_tail_len;
    for (size_t i = pk_flame_page_tail_len; ti->timed && i >= 7; i--)
        if (memcmp(t + i - 7, "</body>", 7) == 0) {
            at = i - 7;
            break;
        }
    pk_buf_put(b, t, at);
    if (at < pk_flame_page_tail_len) {
        pk_buf_puts(b, "<script type=\"application/json\" id=\"profkit-markers\">");
        put_markers(b, ti);
        pk_buf_puts(b, "</script>\n");
    }
    pk_buf_put(b, t + at, pk_flame_page_tail_len - at);
}

/* The data object of docs/viewer.md. */
/* The arguments that name the input, for the page's command line:
 * ,"inputs":[...]; nothing when not given. */
static void put_inputs(pk_buf *b, const char *const *in, size_t n)
{
    if (!in || !n)
        return;
    pk_buf_puts(b, ",\"inputs\":[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            pk_buf_put(b, ",", 1);
        put_cstr(b, in[i] ? in[i] : "");
    }
    pk_buf_put(b, "]", 1);
}

/* The transform stack the page opens with: "transforms":[[KIND, ARG], ...]
 * (a FILTER step as its "focus", "ignore", "hide", "show", "show-from" and
 * "prune-from" steps); nothing when none. */
static void put_transforms(pk_buf *b, const profkit_transform *xf, size_t n)
{
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        const char *kind[6] = { profkit_transform_name(xf[i].kind) }, *arg[6] = { xf[i].arg };
        if (xf[i].kind == PROFKIT_TRANSFORM_FILTER) {
            static const char *const names[6] = { "focus", "ignore", "hide", "show", "show-from", "prune-from" };
            const profkit_filter_options *f = xf[i].filter;
            const char *pat[6] = { f ? f->focus : NULL, f ? f->ignore : NULL, f ? f->hide : NULL,
                                   f ? f->show : NULL, f ? f->show_from : NULL, f ? f->prune_from : NULL };
            for (int k = 0; k < 6; k++) {
                kind[k] = pat[k] ? names[k] : NULL;
                arg[k] = pat[k];
            }
        }
        for (int k = 0; k < 6; k++) {
            if (!kind[k] || !arg[k])
                continue;
            pk_buf_puts(b, any ? ",[" : ",\"transforms\":[[");
            put_cstr(b, kind[k]);
            pk_buf_put(b, ",", 1);
            put_cstr(b, arg[k]);
            pk_buf_put(b, "]", 1);
            any = 1;
        }
    }
    if (any)
        pk_buf_put(b, "]", 1);
}

/* The frame categories (not in a diff): "categories":{"names":[...],
 * "default":I,"func":[1 + index per function, 0 = none]}; nothing when the
 * profile has none. */
static void put_categories(pk_buf *b, const flame_data *d, const remap *m)
{
    const profkit_profile *p = d->p;
    if (d->base || !p->n_categories)
        return;
    pk_buf_puts(b, ",\"categories\":{\"names\":[");
    for (size_t i = 0; i < p->n_categories; i++) {
        if (i)
            pk_buf_put(b, ",", 1);
        put_cstr(b, pk_str(p, p->categories[i].name));
    }
    pk_buf_puts(b, "],\"default\":");
    pk_buf_i64(b, (int64_t)pk_default_category(p) - 1);
    pk_buf_puts(b, ",\"func\":[");
    for (size_t i = 0; i < m->n_func; i++) {
        if (i)
            pk_buf_put(b, ",", 1);
        pk_buf_i64(b, d->funcs[m->func_list[i]].category);
    }
    pk_buf_puts(b, "]}");
}

static int put_data(pk_buf *b, const flame_data *d, const char *title, const char *range,
                    const profkit_transform *xf, size_t n_xf, const char *const *inputs,
                    size_t n_inputs, profkit_error *err)
{
    const profkit_profile *p = d->p;
    remap m;
    memset(&m, 0, sizeof(m));
    timeinfo ti;
    memset(&ti, 0, sizeof(ti));
    uint32_t *tname = calloc(d->n_scopes + 1, sizeof(uint32_t));
    uint32_t *tproc = calloc(d->n_scopes + 1, sizeof(uint32_t));
    int rc = PROFKIT_ENOMEM;
    if (!tname || !tproc || build_remap(&m, d, tname, tproc) != 0)
        goto done;
    if ((rc = timeinfo_make(&ti, &m, d, range, err)) != 0) {
        if (rc == PROFKIT_EINVAL)
            goto out;
        rc = PROFKIT_ENOMEM;
        goto done;
    }
    rc = PROFKIT_ENOMEM;
    pk_buf_puts(b, "{\"schema\":1,\"generator\":\"profkit " PROFKIT_VERSION_STRING "\",\"title\":");
    put_cstr(b, title);
    pk_buf_puts(b, ",\"format\":");
    put_cstr(b, profkit_profile_format(p));
    pk_buf_puts(b, d->base ? ",\"diff\":true" : ",\"diff\":false");
    pk_buf_puts(b, ",\"strings\":[");
    for (size_t i = 0; i < m.str.n; i++) {
        if (i)
            pk_buf_put(b, ",", 1);
        pk_buf_json(b, pk_strtab_get(&m.str, (uint32_t)i), pk_strtab_len(&m.str, (uint32_t)i),
                    PK_JSON_PAGE);
    }
    pk_buf_puts(b, "],\"values\":[");
    for (size_t v = 0; v < p->n_value_types; v++) {
        pk_buf_puts(b, v ? ",{\"type\":" : "{\"type\":");
        put_cstr(b, pk_str(p, p->value_types[v].type));
        pk_buf_puts(b, ",\"unit\":");
        put_cstr(b, pk_str(p, p->value_types[v].unit));
        pk_buf_put(b, "}", 1);
    }
    pk_buf_puts(b, "],\"default_value\":");
    pk_buf_i64(b, d->value);
    pk_buf_puts(b, ",\"funcs\":{");
    put_func_column(b, "name", d, &m, 0);
    pk_buf_put(b, ",", 1);
    put_func_column(b, "file", d, &m, 1);
    pk_buf_put(b, ",", 1);
    put_func_column(b, "line", d, &m, 2);
    pk_buf_put(b, ",", 1);
    put_func_column(b, "module", d, &m, 3);
    pk_buf_puts(b, "},\"threads\":[");
    for (size_t i = 0; i < d->n_scopes; i++) {
        if (i)
            pk_buf_put(b, ",", 1);
        put_scope(b, d, &m, &d->scopes[i], tname[i], tproc[i], ti.embed_samples,
                  ti.activity ? ti.activity + i * ti.bins : NULL, ti.bins);
    }
    pk_buf_put(b, "]", 1);
    put_transforms(b, xf, n_xf);
    put_inputs(b, inputs, n_inputs);
    put_categories(b, d, &m);
    size_t budget = PK_FLAME_MAX_COUNTER_SAMPLES;
    put_time(b, &ti, p, &budget);
    if (put_order_counters(b, d, &budget) != 0)
        goto done;
    pk_buf_put(b, "}", 1);
    put_tail(b, &ti);
    rc = 0;
done:
    if (rc)
        pk_error_set(err, rc, NULL, -1, "out of memory rendering the flame graph");
out:
    timeinfo_free(&ti);
    free(tname);
    free(tproc);
    pk_strtab_free(&m.str);
    free(m.func);
    free(m.func_list);
    free(m.fname);
    free(m.ffile);
    free(m.fmodule);
    return rc;
}

static int render_html(flame_out *out, const profkit_profile *p, const profkit_flame_options *opts,
                       profkit_error *err)
{
    profkit_flame_options o;
    if (opts)
        o = *opts;
    else
        profkit_flame_options_init(&o);
    flame_data d;
    int rc = pk_flame_build(&d, p, &o, 0, err);
    if (rc == 0)
        rc = pk_flame_out_open(out, err);
    if (rc == 0) {
        pk_buf *b = pk_sink_buf(out->k);
        pk_buf_put(b, pk_flame_page_head, pk_flame_page_head_len);
        rc = put_data(b, &d, o.title ? o.title : "", o.range, o.transforms, o.n_transforms, o.inputs,
                      o.n_inputs,
                      err); /* and the tail */
    }
    pk_flame_data_free(&d);
    return pk_flame_out_close(out, rc, err);
}

int profkit_flame_render_html(char **out, size_t *len, const profkit_profile *p,
                             const profkit_flame_options *o, profkit_error *err)
{
    flame_out fo;
    pk_flame_out_init(&fo, NULL, out, len);
    return render_html(&fo, p, o, err);
}

int profkit_flame_page_exact(const profkit_profile *p, const profkit_flame_options *opts,
                             int *exact, profkit_error *err)
{
    profkit_flame_options o;
    if (opts)
        o = *opts;
    else
        profkit_flame_options_init(&o);
    *exact = 1;
    flame_data d;
    int rc = pk_flame_build(&d, p, &o, 0, err);
    if (rc == 0 && !d.base) {
        int over;
        size_t n;
        *exact = samples_embed(&d, &over, &n) != 0;
    }
    pk_flame_data_free(&d);
    return rc;
}

int profkit_flame_write_html(const profkit_profile *p, const char *path,
                            const profkit_flame_options *o, profkit_error *err)
{
    flame_out fo;
    pk_flame_out_init(&fo, path, NULL, NULL);
    return render_html(&fo, p, o, err);
}
