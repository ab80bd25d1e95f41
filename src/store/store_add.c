/* store_add.c: adding one profile to the store (docs/store.md): every row
 * gets its content id, shared rows (strings, functions, mappings, frames,
 * stacks: one row per sampled stack, its frames as an array, root first)
 * are written once whatever number of profiles use them, samples
 * are summed per stack, thread and value type, and the profile's own rows
 * go in one transaction (SQLite) or before its `profiles` row, which is
 * what makes it visible (ClickHouse). A batched add on ClickHouse
 * (profkit_store_add_options.batch) holds the rows of many profiles in the
 * connection and sends them as one INSERT per table, `profiles` last. */
#include "store/store.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

typedef struct rows {
    pk_cell *c;
    size_t n, cap; /* cells */
} rows;

static void put_i(rows *r, int64_t v, int *bad)
{
    if (PK_VEC_RESERVE(r->c, r->n, r->cap, 1) != 0) {
        *bad = 1;
        return;
    }
    r->c[r->n++] = (pk_cell){ NULL, 0, v, PK_CELL_INT };
}

static void put_s(rows *r, const char *s, size_t len, int *bad)
{
    if (PK_VEC_RESERVE(r->c, r->n, r->cap, 1) != 0) {
        *bad = 1;
        return;
    }
    r->c[r->n++] = (pk_cell){ s, len, 0, PK_CELL_TEXT };
}

/* An array cell: its text is at offset `at` of the add's `arrays`, which
 * may still move; the pointer is set when every array is written. */
static void put_a(rows *r, size_t at, size_t len, int *bad)
{
    if (PK_VEC_RESERVE(r->c, r->n, r->cap, 1) != 0) {
        *bad = 1;
        return;
    }
    r->c[r->n++] = (pk_cell){ NULL, len, (int64_t)at, PK_CELL_ARRAY };
}

enum { T_STRINGS, T_FUNCTIONS, T_MAPPINGS, T_FRAMES, T_STACKS, T_LABELSETS, T_SAMPLES, T_LABELS,
       T_META, T_VALUES, T_THREADS, T_PROFILES, N_TABLES };
static const char *const table_name[N_TABLES] = {
    "strings", "functions", "mappings", "frames", "stacks", "labelsets", "samples", "labels",
    "meta", "profile_values", "profile_threads", "profiles",
};
static const size_t table_cols[N_TABLES] = { 2, 6, 6, 8, 2, 2, 6, 3, 4, 6, 7, 6 };

struct add {
    profkit_store *s;
    const profkit_profile *p;
    int bad; /* out of memory */
    rows t[N_TABLES];
    pk_idmap seen; /* string ids written in this add */
    pk_idmap label_seen; /* a hash of each label pair -> its row */
    pk_buf arrays; /* the text of the stacks' arrays, "[1,2][3,4]..." */
    uint64_t *str_id, *fn_id, *map_id, *frame_id, *stack_id, *thread_id, *vt_id;
    uint32_t *thread_first; /* the first thread of each thread's identity (its id) */
    uint32_t *depth;
    /* samples summed per (stack, thread, label set); with labels, the rows
     * of one (stack, thread) are chained (row_next) from the map's */
    pk_idmap rowmap;
    uint32_t *row_stack, *row_thread;
    uint32_t *row_labels, *row_next; /* NULL when the profile has no labels */
    size_t cap_row_labels, cap_row_next;
    uint64_t *ls_id; /* each label set's id, 0 = not made yet */
    int64_t *row_values;
    size_t n_rows, cap_rows, cap_thread, cap_row_values;
    /* the content id, hashed as the rows go by */
    uint64_t acc[64];
    size_t n_acc;
    uint64_t content;
};

static void acc(struct add *a, uint64_t w)
{
    if (a->n_acc == 64) {
        a->content = pk_store_hash_words(a->acc, 64, a->content ^ PK_ID_PROFILE);
        a->n_acc = 0;
    }
    a->acc[a->n_acc++] = w;
}

static uint64_t text_id(const char *s, size_t len) { return pk_store_hash(s, len, PK_ID_STRING); }

/* The id of text, written to `strings` once per add. */
static uint64_t string_row(struct add *a, const char *s, size_t len)
{
    uint64_t id = text_id(s, len);
    if (pk_idmap_get(&a->seen, id) == PROFKIT_NONE) {
        if (pk_idmap_put(&a->seen, id, 1) != 0)
            a->bad = 1;
        put_i(&a->t[T_STRINGS], (int64_t)id, &a->bad);
        put_s(&a->t[T_STRINGS], s, len, &a->bad);
    }
    return id;
}

/* The id of the profile's string `id` (no row written). */
static uint64_t pstr(struct add *a, uint32_t id)
{
    const profkit_profile *p = a->p;
    if (id >= p->strings.n)
        id = 0;
    if (!a->str_id[id])
        a->str_id[id] = text_id(pk_strtab_get(&p->strings, id), pk_strtab_len(&p->strings, id));
    return a->str_id[id];
}

/* The row of the profile's string `id` (once per add). */
static void pstr_row(struct add *a, uint32_t id)
{
    const profkit_profile *p = a->p;
    if (id >= p->strings.n)
        id = 0;
    string_row(a, pk_strtab_get(&p->strings, id), pk_strtab_len(&p->strings, id));
}

static uint64_t words_id(uint64_t tag, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                         uint64_t a4, uint64_t a5)
{
    uint64_t w[6] = { a0, a1, a2, a3, a4, a5 };
    return pk_store_hash_words(w, 6, tag);
}

/* The ids of the profile's functions, mappings, frames and stacks; no row
 * is written yet. */
static void dictionary_ids(struct add *a)
{
    const profkit_profile *p = a->p;
    for (size_t i = 0; i < p->n_functions; i++) {
        const profkit_function *f = &p->functions[i];
        a->fn_id[i] = words_id(PK_ID_FUNCTION, pstr(a, f->name), pstr(a, f->system_name),
                               pstr(a, f->file), pstr(a, f->module), f->start_line, 0);
    }
    for (size_t i = 0; i < p->n_mappings; i++) {
        const profkit_mapping *m = &p->mappings[i];
        a->map_id[i] = words_id(PK_ID_MAPPING, m->start, m->end, m->offset, pstr(a, m->path),
                                pstr(a, m->build_id), 0);
    }
    for (size_t i = 0; i < p->n_frames && !a->bad; i++) {
        const profkit_frame *f = &p->frames[i];
        uint64_t fn = f->function < p->n_functions ? a->fn_id[f->function] : 0;
        uint64_t mp = f->mapping < p->n_mappings ? a->map_id[f->mapping] : 0;
        a->frame_id[i] = words_id(PK_ID_FRAME, f->address, fn, ((uint64_t)f->line << 32) | f->column,
                                  mp, f->inline_depth, 0);
    }
    /* parents precede children in the model's stack table */
    a->stack_id[0] = 0;
    a->depth[0] = 0;
    for (size_t i = 1; i < p->n_stacks; i++) {
        const profkit_stack *st = &p->stacks[i];
        uint32_t par = st->parent < i ? st->parent : 0;
        uint64_t fr = st->frame < p->n_frames ? a->frame_id[st->frame] : 0;
        a->stack_id[i] = words_id(PK_ID_STACK, a->stack_id[par], fr, 0, 0, 0, 0);
        a->depth[i] = a->depth[par] + 1;
    }
}

/* Marks what the sample rows use: their stacks and every prefix, the
 * frames of those, and the frames' functions and mappings. Only these get
 * rows, so the store holds what its samples need and nothing more, and rm
 * can tell what no profile uses any longer (docs/store.md). */
static void mark_used(struct add *a, uint8_t *stack, uint8_t *frame, uint8_t *fn, uint8_t *map)
{
    const profkit_profile *p = a->p;
    if (!p->n_value_types) /* no value type: no sample row */
        return;
    for (size_t r = 0; r < a->n_rows; r++)
        for (uint32_t s = a->row_stack[r]; s != 0 && s < p->n_stacks && !stack[s]; s = p->stacks[s].parent) {
            stack[s] = 1;
            if (p->stacks[s].parent >= s) /* parents precede children: a loop otherwise */
                break;
        }
    for (size_t i = 1; i < p->n_stacks; i++)
        if (stack[i] && p->stacks[i].frame < p->n_frames)
            frame[p->stacks[i].frame] = 1;
    for (size_t i = 0; i < p->n_frames; i++) {
        if (!frame[i])
            continue;
        if (p->frames[i].function < p->n_functions)
            fn[p->frames[i].function] = 1;
        if (p->frames[i].mapping < p->n_mappings)
            map[p->frames[i].mapping] = 1;
    }
}

static void function_row(struct add *a, size_t i)
{
    const profkit_function *f = &a->p->functions[i];
    rows *r = &a->t[T_FUNCTIONS];
    put_i(r, (int64_t)a->fn_id[i], &a->bad);
    put_i(r, (int64_t)pstr(a, f->name), &a->bad);
    put_i(r, (int64_t)pstr(a, f->system_name), &a->bad);
    put_i(r, (int64_t)pstr(a, f->file), &a->bad);
    put_i(r, (int64_t)pstr(a, f->module), &a->bad);
    put_i(r, f->start_line, &a->bad);
    pstr_row(a, f->name);
    pstr_row(a, f->system_name);
    pstr_row(a, f->file);
    pstr_row(a, f->module);
}

static void mapping_row(struct add *a, size_t i)
{
    const profkit_mapping *m = &a->p->mappings[i];
    rows *r = &a->t[T_MAPPINGS];
    put_i(r, (int64_t)a->map_id[i], &a->bad);
    put_i(r, (int64_t)m->start, &a->bad);
    put_i(r, (int64_t)m->end, &a->bad);
    put_i(r, (int64_t)m->offset, &a->bad);
    put_i(r, (int64_t)pstr(a, m->path), &a->bad);
    put_i(r, (int64_t)pstr(a, m->build_id), &a->bad);
    pstr_row(a, m->path);
    pstr_row(a, m->build_id);
}

static void frame_row(struct add *a, size_t i)
{
    const profkit_profile *p = a->p;
    const profkit_frame *f = &p->frames[i];
    rows *r = &a->t[T_FRAMES];
    put_i(r, (int64_t)a->frame_id[i], &a->bad);
    put_i(r, (int64_t)f->address, &a->bad);
    put_i(r, (int64_t)(f->function < p->n_functions ? a->fn_id[f->function] : 0), &a->bad);
    put_i(r, f->line, &a->bad);
    put_i(r, f->column, &a->bad);
    put_i(r, (int64_t)(f->mapping < p->n_mappings ? a->map_id[f->mapping] : 0), &a->bad);
    put_i(r, f->inline_depth, &a->bad);
    /* key: 0. It was the frame's label by function name, what top grouped
     * by in the engine; no report reads it (docs/store.md, "Aggregation"),
     * and its ids and strings took room */
    put_i(r, 0, &a->bad);
}

/* The shared rows the samples use (mark_used), and their strings. */
static void dictionary_rows(struct add *a)
{
    const profkit_profile *p = a->p;
    uint8_t *stack = calloc(p->n_stacks + 1, 1), *frame = calloc(p->n_frames + 1, 1),
            *fn = calloc(p->n_functions + 1, 1), *map = calloc(p->n_mappings + 1, 1);
    if (!stack || !frame || !fn || !map) {
        a->bad = 1;
    } else {
        mark_used(a, stack, frame, fn, map);
        for (size_t i = 0; i < p->n_functions; i++)
            if (fn[i])
                function_row(a, i);
        for (size_t i = 0; i < p->n_mappings; i++)
            if (map[i])
                mapping_row(a, i);
        for (size_t i = 0; i < p->n_frames; i++)
            if (frame[i])
                frame_row(a, i);
    }
    free(stack);
    free(frame);
    free(fn);
    free(map);
}

static void array_text(struct add *a, const uint64_t *w, size_t n, size_t *at, size_t *len);

/* The id of label set ls: its labels' words (key, kind, value, unit: the
 * strings' ids, or the number), and its row and strings once per add. */
static uint64_t labelset_id(struct add *a, uint32_t ls)
{
    const profkit_profile *p = a->p;
    if (a->ls_id[ls])
        return a->ls_id[ls];
    size_t n = 0;
    const profkit_label *l = profkit_profile_labelset(p, ls, &n);
    uint64_t *w = malloc((4 * n + 1) * sizeof(uint64_t));
    if (!w) {
        a->bad = 1;
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        w[4 * i] = pstr(a, l[i].key);
        w[4 * i + 1] = l[i].is_num;
        w[4 * i + 2] = l[i].is_num ? (uint64_t)l[i].num : pstr(a, l[i].str);
        w[4 * i + 3] = l[i].is_num ? pstr(a, l[i].unit) : 0;
        pstr_row(a, l[i].key);
        pstr_row(a, l[i].is_num ? l[i].unit : l[i].str);
    }
    uint64_t id = pk_store_hash_words(w, 4 * n, PK_ID_LABELSET);
    size_t at, len;
    rows *r = &a->t[T_LABELSETS];
    put_i(r, (int64_t)id, &a->bad);
    array_text(a, w, 4 * n, &at, &len);
    put_a(r, at, len, &a->bad);
    free(w);
    return a->ls_id[ls] = id;
}

/* Sums the sample rows per (stack, thread, label set): a timed profile has
 * a row per sample, the store one per stack, thread and label set. */
static void sum_samples(struct add *a)
{
    const profkit_profile *p = a->p;
    size_t nv = p->n_value_types;
    if (p->sample_labels && !(a->ls_id = calloc(p->n_labelsets, sizeof(uint64_t)))) {
        a->bad = 1;
        return;
    }
    for (size_t r = 0; r < p->n_samples && !a->bad; r++) {
        uint32_t st = p->sample_stack[r], th = p->sample_thread[r], ls = pk_sample_labels(p, r);
        if (th < p->n_threads) /* threads of one identity are one thread in the store */
            th = a->thread_first[th];
        const int64_t *v = p->sample_values + r * nv;
        acc(a, st < p->n_stacks ? a->stack_id[st] : 0);
        acc(a, th < p->n_threads ? a->thread_id[th] : 0);
        acc(a, (uint64_t)p->sample_time[r]);
        for (size_t k = 0; k < nv; k++)
            acc(a, (uint64_t)v[k]);
        if (ls) /* only labelled rows add words: the ids of other profiles stay */
            acc(a, labelset_id(a, ls));
        uint64_t key = (((uint64_t)st << 32) | th) + 1;
        uint32_t head = pk_idmap_get(&a->rowmap, key), i = head;
        while (i != PROFKIT_NONE && a->row_labels && a->row_labels[i] != ls)
            i = a->row_next[i];
        if (i == PROFKIT_NONE) {
            i = (uint32_t)a->n_rows;
            if (pk_idmap_put(&a->rowmap, key, i) != 0 ||
                PK_VEC_RESERVE(a->row_stack, a->n_rows, a->cap_rows, 1) != 0 ||
                PK_VEC_RESERVE(a->row_thread, a->n_rows, a->cap_thread, 1) != 0 ||
                (p->sample_labels &&
                 (PK_VEC_RESERVE(a->row_labels, a->n_rows, a->cap_row_labels, 1) != 0 ||
                  PK_VEC_RESERVE(a->row_next, a->n_rows, a->cap_row_next, 1) != 0)) ||
                pk_grow((void **)&a->row_values, &a->cap_row_values,
                             (a->n_rows + 1) * (nv ? nv : 1), sizeof(int64_t)) != 0) {
                a->bad = 1;
                return;
            }
            a->row_stack[i] = st;
            a->row_thread[i] = th;
            if (a->row_labels) {
                a->row_labels[i] = ls;
                a->row_next[i] = head;
            }
            memset(a->row_values + (size_t)i * nv, 0, nv * sizeof(int64_t));
            a->n_rows++;
        }
        for (size_t k = 0; k < nv; k++)
            pk_sat_addto(&a->row_values[(size_t)i * nv + k], v[k]);
    }
}

/* The identities of the threads no sample row names go into the content
 * id too (a sample row names its thread's already): the store keeps every
 * thread of a profile (profile_threads), so two profiles without samples,
 * or with the same samples and another thread beside them, are not one.
 * A profile whose threads all have samples keeps the id it had. */
static void idle_threads(struct add *a)
{
    const profkit_profile *p = a->p;
    if (!p->n_threads)
        return;
    unsigned char *used = calloc(p->n_threads, 1);
    if (!used) {
        a->bad = 1;
        return;
    }
    for (size_t r = 0; r < a->n_rows; r++)
        if (a->row_thread[r] < p->n_threads)
            used[a->row_thread[r]] = 1;
    for (size_t i = 0; i < p->n_threads; i++)
        if (a->thread_first[i] == i && !used[i])
            acc(a, a->thread_id[i]);
    free(used);
}

/* Appends "[x,y,...]" of n words to a->arrays; the cell's offset and length. */
static void array_text(struct add *a, const uint64_t *w, size_t n, size_t *at, size_t *len)
{
    *at = a->arrays.len;
    pk_buf_putc(&a->arrays, '[');
    for (size_t i = 0; i < n; i++) { /* as %lld, without printf's cost on 500,000 words */
        if (i)
            pk_buf_putc(&a->arrays, ',');
        pk_buf_i64(&a->arrays, (int64_t)w[i]);
    }
    pk_buf_putc(&a->arrays, ']');
    *len = a->arrays.len - *at;
}

/* A row of `stacks` per distinct stack the sample rows name: its id and
 * its frames' ids, root first (each frame's row has the label `top`
 * groups by, its key). */
static void stack_rows(struct add *a)
{
    const profkit_profile *p = a->p;
    pk_idmap done = { 0 };
    uint32_t max_depth = 0;
    if (!p->n_value_types) /* no value type: no sample row */
        return;
    for (size_t i = 0; i < p->n_stacks; i++)
        if (a->depth[i] > max_depth)
            max_depth = a->depth[i];
    uint64_t *fr = calloc((size_t)max_depth + 1, 8);
    if (!fr)
        a->bad = 1;
    for (size_t i = 0; i < a->n_rows && !a->bad; i++) {
        uint32_t st = a->row_stack[i];
        if (st == 0 || st >= p->n_stacks || pk_idmap_get(&done, a->stack_id[st]) != PROFKIT_NONE)
            continue;
        if (pk_idmap_put(&done, a->stack_id[st], 1) != 0) {
            a->bad = 1;
            break;
        }
        /* depth[st] frames, filled from the leaf back to the root */
        size_t n = a->depth[st], k = n;
        for (uint32_t s = st; s != 0 && k > 0; s = p->stacks[s].parent < s ? p->stacks[s].parent : 0) {
            /* the parents dictionary_ids hashed: one before its child, or the root */
            uint32_t f = p->stacks[s].frame;
            k--;
            fr[k] = f < p->n_frames ? a->frame_id[f] : 0;
        }
        size_t at, len;
        rows *r = &a->t[T_STACKS];
        put_i(r, (int64_t)a->stack_id[st], &a->bad);
        array_text(a, fr + k, n - k, &at, &len);
        put_a(r, at, len, &a->bad);
    }
    if (pk_buf_error(&a->arrays))
        a->bad = 1;
    for (int t = T_STACKS; t <= T_LABELSETS; t++)
        for (size_t c = 0; !a->bad && c < a->t[t].n; c++) {
            pk_cell *x = &a->t[t].c[c];
            if (x->kind == PK_CELL_ARRAY)
                x->s = a->arrays.buf + x->i;
        }
    pk_idmap_free(&done);
    free(fr);
}

/* Whether row i of labels is the pair (k, v). */
static int label_is(const rows *r, size_t i, const char *k, size_t klen, const char *v, size_t vlen)
{
    const pk_cell *c = &r->c[i * 3];
    return c[1].len == klen && memcmp(c[1].s, k, klen) == 0 && c[2].len == vlen &&
           memcmp(c[2].s, v, vlen) == 0;
}

static void label(struct add *a, int64_t seq, const char *k, size_t klen, const char *v,
                  size_t vlen)
{
    rows *r = &a->t[T_LABELS];
    /* the same pair twice is one label: found by its hash (a profile may
     * have thousands of threads, each a label), compared in full */
    uint64_t h = pk_store_hash(v, vlen, pk_store_hash(k, klen, PK_ID_STRING));
    uint32_t at = pk_idmap_get(&a->label_seen, h);
    if (at != PROFKIT_NONE) {
        if (label_is(r, at, k, klen, v, vlen))
            return;
        for (size_t i = 0; i < r->n / 3; i++) /* two pairs of one hash: never seen, but exact */
            if (label_is(r, i, k, klen, v, vlen))
                return;
    } else if (pk_idmap_put(&a->label_seen, h, (uint32_t)(r->n / 3)) != 0) {
        a->bad = 1;
        return;
    }
    put_i(r, seq, &a->bad);
    put_s(r, k, klen, &a->bad);
    put_s(r, v, vlen, &a->bad);
}

/* A label whose key is a C string constant. */
static void label_c(struct add *a, int64_t seq, const char *k, const char *v)
{
    label(a, seq, k, strlen(k), v, strlen(v));
}

/* The profile's own time, from what its format records, or 0. */
static int64_t profile_time(const profkit_profile *p)
{
    const char *v;
    if ((v = pk_meta_get(p, "time_nanos")) && *v)
        return strtoll(v, NULL, 10);
    static const char *const ms_keys[] = { "startTime", "start_timestamp_ms" };
    for (size_t i = 0; i < 2; i++)
        if ((v = pk_meta_get(p, ms_keys[i])) && *v) {
            double ms = strtod(v, NULL);
            if (ms > 0 && ms < 9.2e15) /* a wall-clock time, not one relative to a start */
                return (int64_t)llround(ms * 1e6);
        }
    return 0;
}

static int row_seq(void *payload, char **cells, const size_t *lens, size_t n, profkit_error *err)
{
    (void)lens, (void)err;
    if (n > 0 && cells[0])
        *(int64_t *)payload = pk_cell_i64(cells[0]);
    return 0;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sample_row(struct add *a, int64_t seq, size_t r, size_t vt, int64_t v)
{
    const profkit_profile *p = a->p;
    rows *t = &a->t[T_SAMPLES];
    uint32_t st = a->row_stack[r], th = a->row_thread[r];
    put_i(t, seq, &a->bad);
    put_i(t, (int64_t)(st < p->n_stacks ? a->stack_id[st] : 0), &a->bad);
    put_i(t, (int64_t)(th < p->n_threads ? a->thread_id[th] : 0), &a->bad);
    put_i(t, (int64_t)a->vt_id[vt], &a->bad);
    put_i(t, v, &a->bad);
    put_i(t, a->row_labels && a->row_labels[r] ? (int64_t)a->ls_id[a->row_labels[r]] : 0, &a->bad);
}

/* The per-profile rows, once its seq is known. */
static void profile_rows(struct add *a, int64_t seq, const profkit_store_add_options *o,
                         int64_t when)
{
    const profkit_profile *p = a->p;
    size_t nv = p->n_value_types;
    for (size_t r = 0; r < a->n_rows && nv; r++) {
        int any = 0;
        for (size_t k = 0; k < nv; k++) {
            int64_t v = a->row_values[r * nv + k];
            if (v == 0)
                continue;
            any = 1;
            sample_row(a, seq, r, k, v);
        }
        if (!any) /* a row of zeros keeps its stack, as in the merged profile */
            sample_row(a, seq, r, p->default_value < nv ? p->default_value : 0, 0);
    }
    for (size_t i = 0; i < p->n_value_types; i++) {
        rows *t = &a->t[T_VALUES];
        const char *ty = pk_str(p, p->value_types[i].type);
        const char *un = pk_str(p, p->value_types[i].unit);
        put_i(t, seq, &a->bad);
        put_i(t, (int64_t)i, &a->bad);
        put_i(t, (int64_t)a->vt_id[i], &a->bad);
        put_s(t, ty, strlen(ty), &a->bad);
        put_s(t, un, strlen(un), &a->bad);
        put_i(t, i == p->default_value, &a->bad);
        label_c(a, seq, "value", ty);
    }
    for (size_t i = 0; i < p->n_threads; i++) {
        rows *t = &a->t[T_THREADS];
        const profkit_thread *th = &p->threads[i];
        const char *nm = pk_str(p, th->name), *pn = pk_str(p, th->process_name);
        put_i(t, seq, &a->bad);
        put_i(t, (int64_t)i, &a->bad);
        put_i(t, (int64_t)a->thread_id[i], &a->bad);
        put_s(t, nm, strlen(nm), &a->bad);
        put_s(t, pn, strlen(pn), &a->bad);
        put_i(t, th->pid, &a->bad);
        put_i(t, th->tid, &a->bad);
        if (*nm)
            label_c(a, seq, "thread", nm);
    }
    for (size_t i = 0; i < p->n_metadata; i++) {
        rows *t = &a->t[T_META];
        const profkit_meta *m = &p->metadata[i];
        put_i(t, seq, &a->bad);
        put_i(t, (int64_t)i, &a->bad);
        put_s(t, pk_str(p, m->key), pk_strtab_len(&p->strings, m->key), &a->bad);
        put_s(t, pk_str(p, m->value), pk_strtab_len(&p->strings, m->value), &a->bad);
        const char *k = pk_str(p, m->key);
        if (strcmp(k, "host") == 0 || strcmp(k, "hostname") == 0 || strcmp(k, "device") == 0)
            label_c(a, seq, "host", pk_str(p, m->value));
    }
    label_c(a, seq, "format", p->format);
    if (o && o->source)
        label_c(a, seq, "file", o->source);
    for (size_t i = 0; o && i < o->n_labels; i++) {
        const char *l = o->labels[i], *eq = strchr(l, '=');
        label(a, seq, l, (size_t)(eq - l), eq + 1, strlen(eq + 1));
    }
    rows *t = &a->t[T_PROFILES];
    put_i(t, seq, &a->bad);
    put_i(t, (int64_t)a->content, &a->bad);
    put_i(t, when, &a->bad);
    put_i(t, now_ns(), &a->bad);
    put_s(t, p->format, strlen(p->format), &a->bad);
    put_s(t, o && o->source ? o->source : "", o && o->source ? strlen(o->source) : 0, &a->bad);
}

static void add_free(struct add *a)
{
    for (int i = 0; i < N_TABLES; i++)
        free(a->t[i].c);
    pk_idmap_free(&a->seen);
    pk_idmap_free(&a->label_seen);
    pk_buf_free(&a->arrays);
    pk_idmap_free(&a->rowmap);
    free(a->str_id);
    free(a->fn_id);
    free(a->map_id);
    free(a->frame_id);
    free(a->stack_id);
    free(a->thread_id);
    free(a->thread_first);
    free(a->vt_id);
    free(a->depth);
    free(a->row_stack);
    free(a->row_thread);
    free(a->row_labels);
    free(a->row_next);
    free(a->ls_id);
    free(a->row_values);
}

static void *ids(size_t n, size_t elem) { return calloc(n ? n : 1, elem); }

/* Checks the labels: KEY=VALUE with a key of letters, digits, _ . - */
static int check_labels(const profkit_store *s, const profkit_store_add_options *o, profkit_error *err)
{
    for (size_t i = 0; o && i < o->n_labels; i++) {
        const char *l = o->labels[i], *eq = strchr(l, '=');
        size_t kl = eq ? (size_t)(eq - l) : 0;
        int ok = eq && kl > 0 && kl < 128;
        for (size_t j = 0; ok && j < kl; j++)
            ok = (l[j] >= 'a' && l[j] <= 'z') || (l[j] >= 'A' && l[j] <= 'Z') ||
                 (l[j] >= '0' && l[j] <= '9') || l[j] == '_' || l[j] == '.' || l[j] == '-';
        if (!ok)
            return pk_error_set(err, PROFKIT_EINVAL, s->name, -1,
                                     "profkit_store_add_options.labels '%s': expected KEY=VALUE (KEY of 1 "
                                     "to 127 letters, "
                                     "digits, '_', '.', '-')", l);
    }
    return 0;
}

static int add_one(profkit_store *s, const profkit_profile *p, const profkit_store_add_options *o,
                   uint64_t *id, profkit_error *err)
{
    int rc = check_labels(s, o, err);
    if (rc)
        return rc;
    struct add a;
    memset(&a, 0, sizeof(a));
    a.s = s;
    a.p = p;
    if (!(a.str_id = ids(p->strings.n, 8)) ||
        !(a.fn_id = ids(p->n_functions, 8)) || !(a.map_id = ids(p->n_mappings, 8)) ||
        !(a.frame_id = ids(p->n_frames, 8)) ||
        !(a.stack_id = ids(p->n_stacks, 8)) || !(a.depth = ids(p->n_stacks, 4)) ||
        !(a.thread_id = ids(p->n_threads, 8)) || !(a.vt_id = ids(p->n_value_types, 8)))
        a.bad = 1;
    if (!a.bad)
        dictionary_ids(&a);
    acc(&a, text_id(p->format, strlen(p->format)));
    for (size_t i = 0; !a.bad && i < p->n_threads; i++) {
        const profkit_thread *t = &p->threads[i];
        const char *nm = pk_str(p, t->name), *pn = pk_str(p, t->process_name);
        a.thread_id[i] = words_id(PK_ID_THREAD, text_id(nm, strlen(nm)), text_id(pn, strlen(pn)),
                                  (uint64_t)t->pid, (uint64_t)t->tid, 0, 0);
    }
    /* two threads that agree on name, process, pid and tid have one id:
     * their samples are summed as one thread's (one row per stack, thread,
     * label set and value type) */
    pk_idmap first = { 0 };
    if (!a.bad && !(a.thread_first = ids(p->n_threads, 4)))
        a.bad = 1;
    for (size_t i = 0; !a.bad && i < p->n_threads; i++) {
        uint32_t f = pk_idmap_get(&first, a.thread_id[i]);
        if (f == PROFKIT_NONE && pk_idmap_put(&first, a.thread_id[i], (uint32_t)i) != 0)
            a.bad = 1;
        a.thread_first[i] = f == PROFKIT_NONE ? (uint32_t)i : f;
    }
    pk_idmap_free(&first);
    for (size_t i = 0; !a.bad && i < p->n_value_types; i++) {
        const char *ty = pk_str(p, p->value_types[i].type), *un = pk_str(p, p->value_types[i].unit);
        a.vt_id[i] = pk_store_value_id(ty, un);
        acc(&a, a.vt_id[i]);
    }
    acc(&a, p->default_value);
    if (!a.bad)
        sum_samples(&a);
    if (!a.bad)
        idle_threads(&a);
    for (size_t i = 0; !a.bad && i < p->n_metadata; i++) {
        acc(&a, pstr(&a, p->metadata[i].key));
        acc(&a, pstr(&a, p->metadata[i].value));
    }
    if (!a.bad)
        dictionary_rows(&a);
    if (!a.bad)
        stack_rows(&a);
    a.content = pk_store_hash_words(a.acc, a.n_acc, a.content ^ PK_ID_PROFILE);
    if (id)
        *id = a.content;
    if (a.bad) {
        add_free(&a);
        return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory adding a profile");
    }

    /* batched (ClickHouse): the rows wait in the connection's batch */
    int hold = s->clickhouse && o && o->batch > 0;
    int64_t when = profile_time(p);
    if (!when)
        when = o && o->time != PROFKIT_NO_TIME ? o->time : now_ns();
    int began = 0;
    if ((rc = s->engine->begin(s, err)) != 0)
        goto done;
    began = 1;
    int64_t seq = 0;
    pk_buf q = PK_BUF_INIT;
    /* An aggregate, not LIMIT 1: on Distributed tables a LIMIT ends the
     * query once one shard answers and cancels the others while they may
     * still be receiving GLOBAL NOT IN's temporary table, which they then
     * report missing ("Table default._data1 doesn't exist"). */
    pk_buf_printf(&q, "SELECT max(seq) FROM profiles WHERE id = %lld AND seq %s (SELECT seq FROM removed)",
               (long long)a.content, pk_sql_not_in(s));
    rc = pk_sql_query(s, &q, row_seq, &seq, err);
    pk_buf_free(&q);
    if (rc)
        goto done;
    if (seq || (hold && pk_store_ch_held(s, a.content, NULL, NULL, NULL))) {
        rc = 1; /* there already, or held */
        goto done;
    }
    int64_t last = 0;
    pk_buf_printf(&q, "SELECT max(seq) FROM profiles");
    rc = pk_sql_query(s, &q, row_seq, &last, err);
    pk_buf_free(&q);
    if (rc)
        goto done;
    /* ClickHouse has no transactions: a seq is never reused, so rows of an
     * add that was cut short are never taken for a later profile's. */
    seq = last + 1;
    if (s->clickhouse && now_ns() > seq)
        seq = now_ns();
    if (hold) { /* after those held, which max(seq) does not see */
        int64_t held_seq = 0;
        pk_store_ch_held(s, 0, &held_seq, NULL, NULL);
        if (held_seq >= seq)
            seq = held_seq + 1;
    }
    profile_rows(&a, seq, o, when);
    if (a.bad) {
        rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory adding a profile");
        goto done;
    }
    if (hold) {
        /* the rows join the batch, `profiles` last; the batch goes once it
         * holds o->batch bytes (or a million rows: ClickHouse makes one
         * part of at most that many), and this profile with it */
        size_t bytes = 0, n_rows = 0;
        for (int t = 0; t < N_TABLES && rc == 0; t++)
            rc = pk_store_ch_hold(s, table_name[t], table_cols[t], a.t[t].c, a.t[t].n / table_cols[t], err);
        if (rc == 0)
            rc = pk_store_ch_hold_profile(s, a.content, seq, err);
        if (rc == 0)
            pk_store_ch_held(s, 0, NULL, &bytes, &n_rows);
        if (rc == 0 && (bytes >= o->batch || n_rows >= 1000000))
            rc = pk_store_ch_flush(s, err);
        else if (rc == 0)
            rc = 2; /* held */
        began = 0;
        goto done;
    }
    /* the value types before the samples (SQLite keeps a sample's values
     * in the order of its profile's value types: store_sqlite.c) */
    static const int order[N_TABLES] = { T_STRINGS, T_FUNCTIONS, T_MAPPINGS, T_FRAMES, T_STACKS, T_LABELSETS,
                                         T_VALUES, T_SAMPLES, T_LABELS, T_META, T_THREADS, T_PROFILES };
    for (int i = 0; i < N_TABLES && rc == 0; i++) {
        int t = order[i];
        rc = s->engine->insert(s, table_name[t], table_cols[t], a.t[t].c, a.t[t].n / table_cols[t], err);
    }
    if (rc == 0)
        rc = s->engine->commit(s, err);
    if (rc == 0)
        began = 0;
done:
    if (began)
        s->engine->rollback(s);
    add_free(&a);
    return rc;
}

int profkit_store_add(profkit_store *s, const profkit_profile *p,
                      const profkit_store_add_options *o, uint64_t *id, profkit_error *err)
{
    int rc = add_one(s, p, o, id, err);
    /* batched: an error loses the batch (profkit.h), whatever failed */
    if (rc < 0 && s->clickhouse && o && o->batch > 0)
        pk_store_ch_drop(s);
    return rc;
}

int profkit_store_flush(profkit_store *s, profkit_error *err)
{
    return s->clickhouse ? pk_store_ch_flush(s, err) : 0;
}
