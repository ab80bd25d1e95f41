/*
 * pprof_write.c: the pprof protobuf writer (the reader and the message
 * layout are in pprof.c; rulings in docs/formats/pprof.md).
 *
 * Any profile maps onto one Profile message:
 *   - every value type is a sample_type; default_sample_type names the
 *     profile's default value type;
 *   - every sample row is one Sample: location ids leaf first, one value per
 *     sample type (both packed), a `thread` string label when the
 *     profile has several threads, and the row's label set (string and
 *     numeric labels, with their units);
 *   - every frame is one Location (id = frame index + 1) with its address,
 *     mapping and one Line (function, line, column). A frame whose function
 *     is only its address (the name the readers give an unsymbolized PC,
 *     no file, no line) gets no Line, as unsymbolized pprof locations have
 *     none;
 *   - an inline chain (a frame with inline_depth 0 followed in the stack by
 *     frames of the same address with inline_depth 1, 2, ...: what the
 *     symbolizer makes of one address) is one Location with one Line per
 *     frame, innermost first, as pprof writes them; such Locations get ids
 *     after the frames' (n_frames + 1 + chain index), one per distinct
 *     chain. A frame with inline_depth > 0 that does not continue its
 *     parent's chain is a Location of its own;
 *   - functions referenced by those Lines, and every mapping (id = index + 1);
 *   - period and period_type from the metadata `period`/`period_type` (or
 *     the gperftools reader's `period_us`), time_nanos, duration_nanos,
 *     drop_frames, keep_frames and comments from theirs.
 * The string table is built as strings are used ("" first) and written last;
 * protobuf allows fields in any order. Top-level fields go straight to the
 * sink; only one submessage at a time is assembled in memory.
 */
#include "formats/pprof/pprof_wire.h"
#include "util/cursor.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static void pb_varint(pk_buf *b, uint64_t v)
{
    uint8_t t[10];
    pk_buf_put(b, t, pk_varint_encode(t, v));
}

static void pb_tag(pk_buf *b, uint32_t num, unsigned wt) { pb_varint(b, pp_tag(num, wt)); }

/* A varint field; zero is the default and is left out, as protobuf does. */
static void pb_uint(pk_buf *b, uint32_t num, uint64_t v)
{
    if (v) {
        pb_tag(b, num, WT_VARINT);
        pb_varint(b, v);
    }
}

static void pb_bytes(pk_buf *b, uint32_t num, const void *d, size_t n)
{
    pb_tag(b, num, WT_LEN);
    pb_varint(b, n);
    pk_buf_put(b, d, n);
}

typedef struct pw {
    const profkit_profile *p;
    pk_sink *sink;
    pk_strtab tab;  /* the output string table; id = pprof index */
    uint32_t *smap;      /* profile string id -> pprof index, or NONE */
    pk_buf msg, sub; /* the submessage being assembled, and its parts */
    int oom;
    /* inline chains: chain k = Location n_frames + 1 + k, made of the
     * Location chain_prev[k] (a frame's, or another chain's) and one more
     * inlined frame chain_frame[k] */
    uint64_t *chain_prev;
    uint32_t *chain_frame;
    size_t n_chains, cap_prev, cap_frame;
    pk_idset chain_set;
    uint64_t *locs; /* one sample's Location ids, leaf first */
    size_t cap_locs;
    uint32_t *path; /* one sample's frames, leaf first */
    size_t cap_path;
} pw;

typedef struct chain_key {
    uint64_t prev;
    uint32_t frame;
} chain_key;

static int chain_eq(const void *ctx, uint32_t id, const void *key)
{
    const pw *w = ctx;
    const chain_key *k = key;
    return w->chain_prev[id] == k->prev && w->chain_frame[id] == k->frame;
}

/* The Location of chain `prev` continued by inlined frame f (0 = no memory). */
static uint64_t pw_chain(pw *w, uint64_t prev, uint32_t f)
{
    chain_key k = { prev, f };
    uint64_t h = pk_hash_u64(prev * 0x9e3779b97f4a7c15ull ^ f);
    uint32_t id = pk_idset_find(&w->chain_set, h, chain_eq, w, &k);
    if (id == PROFKIT_NONE) {
        if (w->n_chains >= UINT32_MAX - 1 ||
            PK_VEC_RESERVE(w->chain_prev, w->n_chains, w->cap_prev, 1) ||
            PK_VEC_RESERVE(w->chain_frame, w->n_chains, w->cap_frame, 1) ||
            pk_idset_insert(&w->chain_set, h, (uint32_t)w->n_chains)) {
            w->oom = 1;
            return 0;
        }
        id = (uint32_t)w->n_chains;
        w->chain_prev[id] = prev;
        w->chain_frame[id] = f;
        w->n_chains++;
    }
    return (uint64_t)w->p->n_frames + 1 + id;
}

/* Whether frame c (in the stack, the child of frame a) continues a's chain. */
static int continues(const profkit_profile *p, uint32_t a, uint32_t c)
{
    const profkit_frame *fa = &p->frames[a], *fc = &p->frames[c];
    return fc->inline_depth > 0 && fc->inline_depth == fa->inline_depth + 1 && fc->address == fa->address &&
           fc->mapping == fa->mapping;
}

/* One sample's Location ids, leaf first, into w->locs; returns how many. */
static size_t pw_sample_locations(pw *w, uint32_t stack)
{
    const profkit_profile *p = w->p;
    size_t n = 0;
    for (uint32_t s = stack; s != 0 && s < p->n_stacks; s = p->stacks[s].parent) {
        if (PK_VEC_RESERVE(w->path, n, w->cap_path, 1)) {
            w->oom = 1;
            return 0;
        }
        w->path[n++] = p->stacks[s].frame;
    }
    size_t k = 0;
    uint64_t loc = 0;
    /* root to leaf: a run of frames continuing one chain is one Location */
    for (size_t i = n; i-- > 0;) {
        uint32_t f = w->path[i];
        if (loc && i + 1 < n && continues(p, w->path[i + 1], f)) {
            loc = pw_chain(w, loc, f);
            if (w->oom)
                return 0;
            continue;
        }
        if (loc) {
            if (PK_VEC_RESERVE(w->locs, k, w->cap_locs, 1)) {
                w->oom = 1;
                return 0;
            }
            w->locs[k++] = loc;
        }
        loc = (uint64_t)f + 1;
    }
    if (loc) {
        if (PK_VEC_RESERVE(w->locs, k, w->cap_locs, 1)) {
            w->oom = 1;
            return 0;
        }
        w->locs[k++] = loc;
    }
    /* reverse: leaf first */
    for (size_t a = 0, b = k; a + 1 < b; a++, b--) {
        uint64_t t = w->locs[a];
        w->locs[a] = w->locs[b - 1];
        w->locs[b - 1] = t;
    }
    return k;
}

static int64_t pw_str(pw *w, uint32_t id)
{
    if (id >= w->p->strings.n)
        return 0;
    if (w->smap[id] == PROFKIT_NONE) {
        w->smap[id] = pk_strtab_intern(&w->tab, pk_strtab_get(&w->p->strings, id),
                                            pk_strtab_len(&w->p->strings, id));
        if (w->smap[id] == PROFKIT_NONE) {
            w->oom = 1;
            return 0;
        }
    }
    return w->smap[id];
}

static int64_t pw_cstr(pw *w, const char *s, size_t len)
{
    uint32_t id = pk_strtab_intern(&w->tab, s, len);
    if (id == PROFKIT_NONE) {
        w->oom = 1;
        return 0;
    }
    return id;
}

/* Sends w->msg to the sink as top-level field num and empties it. */
static void pw_emit(pw *w, uint32_t num)
{
    uint8_t t[20];
    size_t k = pk_varint_encode(t, pp_tag(num, WT_LEN));
    k += pk_varint_encode(t + k, w->msg.len);
    pk_sink_write(w->sink, t, k);
    pk_sink_write(w->sink, w->msg.buf, w->msg.len);
    if (pk_buf_error(&w->msg))
        w->oom = 1;
    pk_buf_clear(&w->msg);
}

/* A ValueType submessage from "type" and "unit" as output string indexes. */
static void pw_value_type(pw *w, uint32_t num, int64_t type, int64_t unit)
{
    pb_uint(&w->msg, 1, (uint64_t)type);
    pb_uint(&w->msg, 2, (uint64_t)unit);
    pw_emit(w, num);
}

/* A frame whose function is nothing but its address: no Line for it. */
static int unsymbolized(const profkit_profile *p, const profkit_frame *fr)
{
    const profkit_function *f = &p->functions[fr->function];
    if (f->file != 0 || fr->line != 0)
        return 0;
    const char *name = pk_str(p, f->name);
    if (pk_strtab_len(&p->strings, f->name) == 0) /* (a name may start with a NUL) */
        return 1;
    char buf[24];
    snprintf(buf, sizeof(buf), "0x%" PRIx64, fr->address);
    return strcmp(name, buf) == 0;
}

static int parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end)
        return 0;
    *out = v;
    return 1;
}

static void pw_period(pw *w)
{
    const profkit_profile *p = w->p;
    const char *pt = pk_meta_get(p, "period_type");
    int64_t period = 0;
    if (pt && strchr(pt, '/')) {
        const char *slash = strchr(pt, '/');
        pw_value_type(w, 11, pw_cstr(w, pt, (size_t)(slash - pt)),
                      pw_cstr(w, slash + 1, strlen(slash + 1)));
        if (parse_i64(pk_meta_get(p, "period"), &period))
            pb_uint(&w->msg, 12, (uint64_t)period);
    } else if (parse_i64(pk_meta_get(p, "period_us"), &period) && period > 0 &&
               period <= INT64_MAX / 1000) {
        /* gperftools: the sampling period in µs, as Go pprof converts it */
        pw_value_type(w, 11, pw_cstr(w, "cpu", 3), pw_cstr(w, "nanoseconds", 11));
        pb_uint(&w->msg, 12, (uint64_t)(period * 1000));
    }
}

static void pw_metadata(pw *w)
{
    const profkit_profile *p = w->p;
    int64_t v;
    /* Scalars go into w->msg, which pw_period may already have started; the
     * caller writes them out as raw top-level bytes. */
    if (parse_i64(pk_meta_get(p, "time_nanos"), &v))
        pb_uint(&w->msg, 9, (uint64_t)v);
    if (parse_i64(pk_meta_get(p, "duration_nanos"), &v))
        pb_uint(&w->msg, 10, (uint64_t)v);
    const char *s = pk_meta_get(p, "drop_frames");
    if (s)
        pb_uint(&w->msg, 7, (uint64_t)pw_cstr(w, s, strlen(s)));
    s = pk_meta_get(p, "keep_frames");
    if (s)
        pb_uint(&w->msg, 8, (uint64_t)pw_cstr(w, s, strlen(s)));
    for (size_t i = 0; i < p->n_metadata; i++)
        if (strcmp(pk_str(p, p->metadata[i].key), "comment") == 0)
            pb_uint(&w->msg, 13, (uint64_t)pw_str(w, p->metadata[i].value));
    if (p->n_value_types > 0 && p->default_value < p->n_value_types)
        pb_uint(&w->msg, 14, (uint64_t)pw_str(w, p->value_types[p->default_value].type));
}

static void pw_samples(pw *w, uint32_t thread)
{
    const profkit_profile *p = w->p;
    size_t nv = p->n_value_types;
    int label = thread == PROFKIT_NONE && p->n_threads > 1;
    int64_t thread_key = label ? pw_cstr(w, "thread", 6) : 0;
    for (size_t i = 0; i < p->n_samples && !w->oom && !pk_sink_failed(w->sink); i++) {
        if (thread != PROFKIT_NONE && p->sample_thread[i] != thread)
            continue;
        size_t nl = pw_sample_locations(w, p->sample_stack[i]);
        pk_buf_clear(&w->sub);
        for (size_t k = 0; k < nl; k++)
            pb_varint(&w->sub, w->locs[k]);
        if (w->sub.len)
            pb_bytes(&w->msg, 1, w->sub.buf, w->sub.len);
        pk_buf_clear(&w->sub);
        for (size_t v = 0; v < nv; v++)
            pb_varint(&w->sub, (uint64_t)p->sample_values[i * nv + v]);
        if (w->sub.len)
            pb_bytes(&w->msg, 2, w->sub.buf, w->sub.len);
        if (label) {
            pk_buf_clear(&w->sub);
            pb_uint(&w->sub, 1, (uint64_t)thread_key);
            pb_uint(&w->sub, 2, (uint64_t)pw_str(w, p->threads[p->sample_thread[i]].name));
            pb_bytes(&w->msg, 3, w->sub.buf, w->sub.len);
        }
        size_t nlab = 0;
        const profkit_label *lab = profkit_profile_labelset(p, pk_sample_labels(p, i), &nlab);
        for (size_t k = 0; k < nlab; k++) {
            pk_buf_clear(&w->sub);
            pb_uint(&w->sub, 1, (uint64_t)pw_str(w, lab[k].key));
            if (lab[k].is_num) {
                pb_uint(&w->sub, 3, (uint64_t)lab[k].num);
                pb_uint(&w->sub, 4, (uint64_t)pw_str(w, lab[k].unit));
            } else {
                pb_uint(&w->sub, 2, (uint64_t)pw_str(w, lab[k].str));
            }
            pb_bytes(&w->msg, 3, w->sub.buf, w->sub.len);
        }
        if (pk_buf_error(&w->sub))
            w->oom = 1;
        pw_emit(w, 2);
    }
}

static void pw_line(pw *w, const profkit_frame *fr, uint8_t *used)
{
    if (fr->function >= w->p->n_functions)
        return;
    used[fr->function] = 1;
    pk_buf_clear(&w->sub);
    pb_uint(&w->sub, 1, (uint64_t)fr->function + 1);
    pb_uint(&w->sub, 2, fr->line);
    pb_uint(&w->sub, 3, fr->column);
    pb_bytes(&w->msg, 4, w->sub.buf, w->sub.len);
    if (pk_buf_error(&w->sub))
        w->oom = 1;
}

/* Locations for every frame and every inline chain; marks in used[] the
 * functions their Lines use. */
static void pw_locations(pw *w, uint8_t *used)
{
    const profkit_profile *p = w->p;
    for (size_t i = 0; i < p->n_frames && !w->oom; i++) {
        const profkit_frame *fr = &p->frames[i];
        pb_uint(&w->msg, 1, i + 1);
        if (fr->mapping != PROFKIT_NONE && fr->mapping < p->n_mappings)
            pb_uint(&w->msg, 2, (uint64_t)fr->mapping + 1);
        pb_uint(&w->msg, 3, fr->address);
        if (fr->function < p->n_functions && !unsymbolized(p, fr))
            pw_line(w, fr, used);
        pw_emit(w, 4);
    }
    /* Inline chains: Lines innermost first, down to the real call's frame. */
    for (size_t c = 0; c < w->n_chains && !w->oom; c++) {
        uint64_t loc = (uint64_t)p->n_frames + 1 + c;
        pb_uint(&w->msg, 1, loc);
        uint64_t l = loc;
        while (l > p->n_frames)
            l = w->chain_prev[l - p->n_frames - 1];
        const profkit_frame *outer = &p->frames[l - 1];
        if (outer->mapping != PROFKIT_NONE && outer->mapping < p->n_mappings)
            pb_uint(&w->msg, 2, (uint64_t)outer->mapping + 1);
        pb_uint(&w->msg, 3, outer->address);
        for (l = loc; l > p->n_frames; l = w->chain_prev[l - p->n_frames - 1])
            pw_line(w, &p->frames[w->chain_frame[l - p->n_frames - 1]], used);
        pw_line(w, outer, used);
        pw_emit(w, 4);
    }
}

static void pw_functions(pw *w, const uint8_t *used)
{
    const profkit_profile *p = w->p;
    for (size_t i = 0; i < p->n_functions && !w->oom; i++) {
        if (!used[i])
            continue;
        const profkit_function *f = &p->functions[i];
        pb_uint(&w->msg, 1, i + 1);
        pb_uint(&w->msg, 2, (uint64_t)pw_str(w, f->name));
        pb_uint(&w->msg, 3, (uint64_t)pw_str(w, f->system_name ? f->system_name : f->name));
        pb_uint(&w->msg, 4, (uint64_t)pw_str(w, f->file));
        pb_uint(&w->msg, 5, f->start_line);
        pw_emit(w, 5);
    }
}

static void pw_mappings(pw *w)
{
    const profkit_profile *p = w->p;
    for (size_t i = 0; i < p->n_mappings && !w->oom; i++) {
        const profkit_mapping *m = &p->mappings[i];
        pb_uint(&w->msg, 1, i + 1);
        pb_uint(&w->msg, 2, m->start);
        pb_uint(&w->msg, 3, m->end);
        pb_uint(&w->msg, 4, m->offset);
        pb_uint(&w->msg, 5, (uint64_t)pw_str(w, m->path));
        pb_uint(&w->msg, 6, (uint64_t)pw_str(w, m->build_id));
        pw_emit(w, 3);
    }
}

int pk_pprof_write(const profkit_profile *p, pk_sink *sink,
                        const profkit_write_options *o, profkit_error *err)
{
    int ok;
    uint32_t thread = pk_select_thread(p, o ? o->thread : NULL, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    pw w;
    memset(&w, 0, sizeof(w));
    w.p = p;
    w.sink = sink;
    uint8_t *used = calloc(p->n_functions ? p->n_functions : 1, 1);
    w.smap = malloc((p->strings.n ? p->strings.n : 1) * sizeof(uint32_t));
    if (!used || !w.smap || pk_strtab_init(&w.tab)) {
        free(used);
        free(w.smap);
        pk_strtab_free(&w.tab);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory writing pprof");
    }
    for (size_t i = 0; i < p->strings.n; i++)
        w.smap[i] = PROFKIT_NONE;
    w.smap[0] = 0;

    for (size_t v = 0; v < p->n_value_types; v++)
        pw_value_type(&w, 1, pw_str(&w, p->value_types[v].type), pw_str(&w, p->value_types[v].unit));
    pw_samples(&w, thread);
    pw_mappings(&w);
    pw_locations(&w, used);
    pw_functions(&w, used);
    pw_period(&w);
    /* The scalar fields are complete top-level fields already. */
    pw_metadata(&w);
    if (pk_buf_error(&w.msg))
        w.oom = 1;
    pk_sink_write(sink, w.msg.buf, w.msg.len);
    pk_buf_clear(&w.msg);
    for (size_t i = 0; i < w.tab.n && !w.oom; i++) {
        pb_bytes(&w.msg, 6, pk_strtab_get(&w.tab, (uint32_t)i), pk_strtab_len(&w.tab, (uint32_t)i));
        if (w.msg.len >= 64 * 1024 || i + 1 == w.tab.n) {
            if (pk_buf_error(&w.msg))
                w.oom = 1;
            pk_sink_write(sink, w.msg.buf, w.msg.len);
            pk_buf_clear(&w.msg);
        }
    }
    int oom = w.oom;
    free(w.chain_prev);
    free(w.chain_frame);
    free(w.locs);
    free(w.path);
    pk_idset_free(&w.chain_set);
    free(used);
    free(w.smap);
    pk_buf_free(&w.msg);
    pk_buf_free(&w.sub);
    pk_strtab_free(&w.tab);
    if (oom)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory writing pprof");
    return 0;
}
