/*
 * flame_tree.c: the flame graph's trees (docs/viewer.md, "The data").
 *
 * 1. The call tree by function (model/ltree.h, merged: a node per path of
 *    functions; the page's functions are its keys) maps every stack to its
 *    node. A diff maps BASE's stacks onto the same nodes, functions matched
 *    by name.
 * 2. Per scope (all threads, then each thread) the rows of that scope
 *    mark the nodes their stacks reach (walking up only until a marked
 *    node, so the work is the nodes touched, not stacks times depth), their
 *    values are summed at their nodes (in the same pass), totalled
 *    bottom-up, and nodes below --min-percent drop into one "(other)" per
 *    parent ("tree 1", flame_tree1.h). Timed threads get their runs of
 *    samples over tree 1 (flame_runs.c).
 * 3. When the trees together exceed --max-nodes, each is cut to its share
 *    (flame_cap.c).
 */
#include "analysis/analysis.h"
#include "analysis/tags.h"
#include "util/buf.h"
#include "model/counter_iter.h"
#include "model/ltree.h"
#include "report/flame/flame_tree1.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------ the functions */

/*
 * The page's functions are the call tree's keys (key k is function k - 1),
 * each from the first frame with that key: its function's name, file,
 * module and line. A frame of a function without a name is named as every
 * report labels it (pk_frame_label: the module's base name + offset, else
 * the address), so the page's names are `profkit top`'s. In a diff the names are copied into
 * d->strings, which outlive the profiles' string tables.
 */
static int make_funcs(flame_data *d, const pk_ltree *t, const profkit_profile *p,
                      const profkit_profile *base)
{
    size_t n = t->n_keys ? t->n_keys - 1 : 0;
    if (!(d->funcs = calloc(n ? n : 1, sizeof(flame_func))))
        return PROFKIT_ENOMEM;
    for (size_t k = 1; k < t->n_keys; k++) {
        const profkit_profile *q = k < t->n_keys_p ? p : base;
        const profkit_frame *fr = &q->frames[t->key_frame[k]];
        uint32_t fn = fr->function;
        uint32_t name = fn < q->n_functions ? q->functions[fn].name : 0;
        flame_func *f = &d->funcs[k - 1];
        f->base = q != p;
        f->name = name;
        size_t name_len = pk_strtab_len(&q->strings, name);
        if (base || !name_len) {
            char buf[320];
            const char *s = pk_str(q, name);
            if (!name_len) { /* no name: module+offset or the address, as every report labels it */
                name_len = pk_frame_label(q, t->key_frame[k], 0, buf, sizeof(buf));
                s = buf;
            }
            if ((f->name = pk_strtab_intern(&d->strings, s, name_len)) == PROFKIT_NONE)
                return PROFKIT_ENOMEM;
            f->own = 1;
        }
        f->file = f->module = PROFKIT_NONE;
        if (fn < q->n_functions) {
            const profkit_function *pf = &q->functions[fn];
            f->file = pf->file;
            f->module = pf->module;
            f->line = pf->start_line;
        }
        if ((f->module == PROFKIT_NONE || !pk_strtab_len(&q->strings, f->module)) &&
            fr->mapping < q->n_mappings && q->mappings[fr->mapping].path) /* as transform.c's module */
            f->module = q->mappings[fr->mapping].path;
        f->category = q == p && fr->category <= p->n_categories ? fr->category : 0; /* the page's focus-category */
    }
    d->n_funcs = n;
    return 0;
}

static const char *func_str(const flame_data *d, const flame_func *f, uint32_t id, int own, size_t *len)
{
    if (id == PROFKIT_NONE) {
        *len = 0;
        return "";
    }
    if (own) {
        *len = pk_strtab_len(&d->strings, id);
        return pk_strtab_get(&d->strings, id);
    }
    const profkit_profile *q = f->base ? d->base : d->p;
    *len = pk_strtab_len(&q->strings, id);
    return pk_str(q, id);
}

const char *pk_flame_func_name(const flame_data *d, size_t fi, size_t *len)
{
    const flame_func *f = &d->funcs[fi];
    return func_str(d, f, f->name, f->own, len);
}

const char *pk_flame_func_file(const flame_data *d, size_t fi, size_t *len)
{
    const flame_func *f = &d->funcs[fi];
    return func_str(d, f, f->file, 0, len);
}

const char *pk_flame_func_module(const flame_data *d, size_t fi, size_t *len)
{
    const flame_func *f = &d->funcs[fi];
    return func_str(d, f, f->module, 0, len);
}

/* ------------------------------------------------------------ rows per scope */

/* The rows of one profile that a scope reads: idx[0..n), or all rows when
 * idx is NULL. Each row's value goes straight to its node of the scope (no
 * array per stack: the nodes mark which stacks a scope reached). */
typedef struct rowset {
    const profkit_profile *p;
    const uint32_t *stack_node; /* the profile's stacks mapped to the call tree */
    const uint32_t *vmap;       /* the scope's value v is the profile's vmap[v] (NONE: 0) */
    const uint32_t *idx;
    size_t n;
} rowset;

static inline uint32_t row_at(const rowset *r, size_t i) { return r->idx ? r->idx[i] : (uint32_t)i; }

/* Row indexes grouped by thread, in row order within a thread:
 * rows of thread t are by_thread[start[t] .. start[t + 1]). counts: each
 * thread's rows, counted already, or NULL. */
static int group_rows(const profkit_profile *p, const size_t *counts, uint32_t **by_thread, size_t **start)
{
    size_t nt = p->n_threads;
    *by_thread = malloc((p->n_samples ? p->n_samples : 1) * sizeof(uint32_t));
    *start = calloc(nt + 2, sizeof(size_t));
    if (!*by_thread || !*start)
        return PROFKIT_ENOMEM;
    size_t *st = *start;
    if (counts)
        memcpy(st + 2, counts, nt * sizeof(size_t));
    else
        for (size_t r = 0; r < p->n_samples; r++)
            if (p->sample_thread[r] < nt)
                st[p->sample_thread[r] + 2]++;
    for (size_t t = 0; t < nt; t++)
        st[t + 2] += st[t + 1];
    for (size_t r = 0; r < p->n_samples; r++)
        if (p->sample_thread[r] < nt)
            (*by_thread)[st[p->sample_thread[r] + 1]++] = (uint32_t)r;
    return 0;
}

/* Rows are read in order but their stacks' nodes, marks and sums are
 * anywhere: each pass asks for the node of the row PF_FAR ahead and the
 * mark (or sum) of the row PF_NEAR ahead, whose node is there by then. */
#define PF_FAR 16
#define PF_NEAR 8

/* ------------------------------------------------------------ sums per stack */

/*
 * A page of several threads reads every row once per scope: the merged
 * scope, then each thread's. Instead one pass over the rows, in order, sums
 * each stack's values (and finds the first time); the merged scope then
 * sums its nodes per stack, and a thread whose rows reach stacks of a
 * range no other thread's rows reach (Gecko: a stack table per thread)
 * marks its nodes per stack of that range. Stacks are far fewer than rows
 * on long profiles. Used only where no sum saturates (exact): summed in
 * any order, the sums are then those of the rows in order.
 */
typedef struct stack_sums {
    int64_t *sum;       /* [s * values + v]: value v of the rows at stack s (wrapping: read only when exact) */
    uint64_t *seen;     /* a bit per stack: a row is at it */
    uint32_t *lo, *hi;  /* per thread ([n_threads]: rows of no thread): its rows' stacks' range (lo > hi: none) */
    uint8_t *exact;     /* per thread, [n_threads], then [n_threads + 1]: every row: their absolute values sum within INT64_MAX */
    int disjoint;       /* the threads' ranges do not overlap: each stack's rows are one thread's */
    uint32_t *place;    /* per stack of the thread being built: its node's place in tree 1 (made when needed) */
    uint32_t *same;     /* same[i] = i, for places (n_same entries) */
    size_t *rows;       /* per thread: its rows (group_rows) */
    size_t n_same;
} stack_sums;

static void stack_sums_free(stack_sums *ss)
{
    free(ss->sum);
    free(ss->seen);
    free(ss->lo);
    free(ss->hi);
    free(ss->exact);
    free(ss->place);
    free(ss->same);
    free(ss->rows);
    memset(ss, 0, sizeof(*ss));
}

/* Threads by the first stack their rows reach (pk_sort_u32). */
static int by_lo(const void *ctx, uint32_t a, uint32_t b)
{
    const uint32_t *lo = ctx;
    return lo[a] < lo[b] ? -1 : lo[a] > lo[b];
}

/* ss from p's rows; *time0 = the first sample time (INT64_MAX: none).
 * The sums and places go into blocks the call tree kept (pages touched
 * already: no fault per page again) where they fit. */
static int stack_sums_make(stack_sums *ss, const profkit_profile *p, pk_ltree *tree, int64_t *time0)
{
    size_t nt = p->n_threads, pnv = p->n_value_types, ns = p->n_stacks, bytes;
    uint64_t *mag = NULL;
    uint8_t *over = NULL;
    uint32_t *order = NULL;
    memset(ss, 0, sizeof(*ss));
    if (pk_mul_size(ns ? ns : 1, (pnv ? pnv : 1) * sizeof(int64_t), &bytes) == 0 &&
        (ss->sum = pk_ltree_take_scratch(tree, bytes)))
        memset(ss->sum, 0, bytes);
    ss->place = pk_ltree_take_scratch(tree, (ns ? ns : 1) * sizeof(uint32_t));
    for (void *m; (m = pk_ltree_take_scratch(tree, 0));) /* (the rest) */
        free(m);
    if (pk_mul_size(ns ? ns : 1, (pnv ? pnv : 1) * sizeof(int64_t), &bytes) != 0 ||
        (!ss->sum && !(ss->sum = calloc(1, bytes))) || !(ss->seen = calloc(ns / 64 + 1, sizeof(uint64_t))) ||
        !(ss->lo = malloc((nt + 1) * sizeof(uint32_t))) || !(ss->hi = calloc(nt + 1, sizeof(uint32_t))) ||
        !(ss->exact = malloc(nt + 2)) || !(mag = calloc(nt + 1, sizeof(uint64_t))) ||
        !(over = calloc(nt + 1, 1)) || !(order = malloc((nt + 1) * sizeof(uint32_t))) ||
        !(ss->rows = calloc(nt + 1, sizeof(size_t)))) {
        free(mag);
        free(over);
        free(order);
        stack_sums_free(ss);
        return PROFKIT_ENOMEM;
    }
    for (size_t t = 0; t <= nt; t++)
        ss->lo[t] = UINT32_MAX;
    int64_t t0 = INT64_MAX;
    for (size_t r = 0; r < p->n_samples; r++) {
        /* (each row's work is short: ask for a row's sums well ahead) */
        if (r + 4 * PF_FAR < p->n_samples && p->sample_stack[r + 4 * PF_FAR] < ns) {
            __builtin_prefetch(&ss->sum[(size_t)p->sample_stack[r + 4 * PF_FAR] * pnv]);
            __builtin_prefetch(&ss->seen[p->sample_stack[r + 4 * PF_FAR] >> 6]);
        }
        if (p->sample_time[r] != PROFKIT_NO_TIME && p->sample_time[r] < t0)
            t0 = p->sample_time[r];
        uint32_t s = p->sample_stack[r], th = p->sample_thread[r];
        if (th >= nt)
            th = (uint32_t)nt;
        ss->rows[th]++;
        if (s >= ns)
            continue;
        ss->seen[s >> 6] |= UINT64_C(1) << (s & 63);
        if (s < ss->lo[th])
            ss->lo[th] = s;
        if (s > ss->hi[th])
            ss->hi[th] = s;
        int64_t *a = ss->sum + (size_t)s * pnv;
        const int64_t *x = p->sample_values + r * pnv;
        for (size_t v = 0; v < pnv; v++) {
            a[v] = (int64_t)((uint64_t)a[v] + (uint64_t)x[v]);
            over[th] |= __builtin_add_overflow(mag[th], x[v] < 0 ? 0 - (uint64_t)x[v] : (uint64_t)x[v], &mag[th]);
        }
    }
    *time0 = t0;
    uint64_t all = 0;
    int all_over = 0;
    for (size_t t = 0; t <= nt; t++) {
        ss->exact[t] = !over[t] && mag[t] <= (uint64_t)INT64_MAX;
        all_over |= over[t] | __builtin_add_overflow(all, mag[t], &all);
    }
    ss->exact[nt + 1] = !all_over && all <= (uint64_t)INT64_MAX;
    /* the ranges in order of their first stack, each past the one before */
    size_t n = 0;
    for (size_t t = 0; t <= nt; t++)
        if (ss->lo[t] <= ss->hi[t])
            order[n++] = (uint32_t)t;
    /* (a sort, not insertion: a file's threads can come in any order of
     * their stacks, and may be tens of thousands) */
    if (pk_sort_u32(order, n, by_lo, ss->lo) != 0) {
        free(mag);
        free(over);
        free(order);
        stack_sums_free(ss);
        return PROFKIT_ENOMEM;
    }
    ss->disjoint = 1;
    for (size_t i = 1; i < n; i++)
        if (ss->lo[order[i]] <= ss->hi[order[i - 1]])
            ss->disjoint = 0;
    free(mag);
    free(over);
    free(order);
    return 0;
}

/* The bits of seen word w for stacks lo..hi. */
static inline uint64_t seen_word(const stack_sums *ss, size_t w, uint32_t lo, uint32_t hi)
{
    uint64_t m = ss->seen[w];
    if (w == lo >> 6)
        m &= ~UINT64_C(0) << (lo & 63);
    if (w == hi >> 6 && (hi & 63) != 63)
        m &= (UINT64_C(1) << ((hi & 63) + 1)) - 1;
    return m;
}

/* -------------------------------------------------- a scope before the cap */

/* Sorts a[0..n) ascending (LSD radix, two 16-bit digits). */
static int sort_ids(uint32_t *a, size_t n)
{
    uint32_t *tmp = malloc((n ? n : 1) * sizeof(uint32_t));
    size_t *cnt = malloc(65537 * sizeof(size_t));
    if (!tmp || !cnt) {
        free(tmp);
        free(cnt);
        return PROFKIT_ENOMEM;
    }
    for (int shift = 0; shift < 32; shift += 16) {
        memset(cnt, 0, 65537 * sizeof(size_t));
        for (size_t i = 0; i < n; i++)
            cnt[((a[i] >> shift) & 0xffff) + 1]++;
        for (size_t i = 1; i < 65537; i++)
            cnt[i] += cnt[i - 1];
        for (size_t i = 0; i < n; i++)
            tmp[cnt[(a[i] >> shift) & 0xffff]++] = a[i];
        memcpy(a, tmp, n * sizeof(uint32_t));
    }
    free(tmp);
    free(cnt);
    return 0;
}

/* Arrays per local node that each scope needs, kept from one scope to the
 * next (fresh big allocations cost a page fault per page every time); each
 * made only when a scope needs it: a scope over every row uses the call
 * tree's parents as its own (no lp), and map is for timed rows only. */
typedef struct work {
    int64_t *plane;           /* k entries per plane: the value types' sums */
    uint32_t *lp, *t1, *map;  /* k entries */
    uint8_t *fl;              /* k entries: the nodes' flags (NZ, SIG) */
    uint32_t *other;          /* an entry per kept node */
    int64_t *acc;             /* the planes' sums per node while nodes are marked */
    size_t k_plane, k_lp, k_t1, k_map, k_fl, k_other, cap_acc;
} work;

/* *a holds at least k entries of uint32_t (its capacity in *have). */
static int reserve_u32(uint32_t **a, size_t *have, size_t k)
{
    if (k <= *have)
        return 0;
    free(*a);
    *have = 0;
    if (!(*a = malloc(k * sizeof(uint32_t))))
        return PROFKIT_ENOMEM;
    *have = k;
    return 0;
}

static int work_reserve(work *w, size_t k, size_t planes, int need_lp, int need_map)
{
    size_t kp;
    if (pk_mul_size(k, planes ? planes : 1, &kp) != 0)
        return PROFKIT_ENOMEM;
    if (kp > w->k_plane) {
        size_t bytes;
        free(w->plane);
        w->k_plane = 0;
        if (pk_mul_size(kp, sizeof(int64_t), &bytes) != 0 || !(w->plane = malloc(bytes)))
            return PROFKIT_ENOMEM;
        w->k_plane = kp;
    }
    if (k > w->k_fl) {
        free(w->fl);
        w->k_fl = 0;
        if (!(w->fl = malloc(k)))
            return PROFKIT_ENOMEM;
        w->k_fl = k;
    }
    if ((need_lp && reserve_u32(&w->lp, &w->k_lp, k) != 0) ||
        (need_map && reserve_u32(&w->map, &w->k_map, k) != 0))
        return PROFKIT_ENOMEM;
    return 0;
}

static void work_free(work *w)
{
    free(w->plane);
    free(w->lp);
    free(w->t1);
    free(w->fl);
    free(w->other);
    free(w->map);
    free(w->acc);
}

/* What every scope shares. */
typedef struct builder {
    flame_data *d;
    pk_ltree tree;       /* the call tree by function (by name in a diff) */
    size_t nv;
    double min_pct;
    /* union node -> local index in the scope being built, NONE; made
     * with the first scope that reads only some rows (one that reads
     * every row numbers its nodes as the call tree does) */
    uint32_t *mark;
    uint32_t *touched;
    size_t cap_touched;
    int ident;        /* the scope being built reads every row: local index = node */
    int64_t time0;    /* the profile's first sample time (INT64_MAX: no row is timed) */
    int inl_any;      /* a frame of NEW or BASE was inlined: the scopes have inline flags */
    uint8_t *seen, *bseen; /* a bit per stack of NEW, of BASE (pk_inline_calls) */
    struct stack_sums *ss; /* every row's values per stack, or NULL */
    uint32_t ss_thread;  /* the thread whose rows the scope being built reads (ss), else NONE */
    work work;
} builder;

/* While a scope is built, fl[i] holds node i's flags: its total is
 * non-zero (NZ) and big enough to count (SIG) in some plane; then t1[i]
 * its number, DROPPED_NZ (dropped, non-zero, under a kept node) or NONE. */
#define NZ 1u
#define SIG 2u
#define DROPPED_NZ (PROFKIT_NONE - 1)

/* a += x, saturating (at INT64_MAX or INT64_MIN). */
static inline void add_sat(int64_t *a, int64_t x)
{
    int64_t r;
    if (__builtin_add_overflow(*a, x, &r))
        r = x > 0 ? INT64_MAX : INT64_MIN;
    *a = r;
}

static inline void prefetch_rows(const rowset *rs, size_t i, const uint32_t *mark, const void *sums,
                                 size_t size)
{
    const profkit_profile *p = rs->p;
    if (i + PF_FAR < rs->n) {
        uint32_t s = p->sample_stack[row_at(rs, i + PF_FAR)];
        if (s < p->n_stacks)
            __builtin_prefetch(&rs->stack_node[s]);
    }
    if (i + PF_NEAR < rs->n) {
        uint32_t s = p->sample_stack[row_at(rs, i + PF_NEAR)];
        if (s < p->n_stacks) {
            uint32_t u = rs->stack_node[s];
            if (mark)
                __builtin_prefetch(&mark[u]);
            else
                __builtin_prefetch((const char *)sums + (size_t)u * size);
        }
    }
}

/* Marks node u0 and its ancestors not marked yet into b->touched,
 * numbering them in the order met, each with zeroed sums (`planes` of
 * them) in b->work.acc; 0 or PROFKIT_ENOMEM. */
static inline int mark_path(builder *b, uint32_t u0, size_t *k, size_t planes)
{
    work *w = &b->work;
    for (uint32_t u = u0; b->mark[u] == PROFKIT_NONE; u = b->tree.parent[u]) {
        if (PK_VEC_RESERVE(b->touched, *k, b->cap_touched, 1) != 0 ||
            PK_VEC_RESERVE(w->acc, *k * planes, w->cap_acc, planes) != 0)
            return PROFKIT_ENOMEM;
        memset(w->acc + *k * planes, 0, planes * sizeof(int64_t));
        b->mark[u] = (uint32_t)*k;
        b->touched[(*k)++] = u;
    }
    return 0;
}

/* Marks the nodes of the stacks rs's rows reach (and their ancestors)
 * into b->touched, numbering them in the order they are met (mark[u]), and
 * sums each row's values at its node: acc[number * planes + first + v] for
 * value v of the scope (saturating, in row order: as sum_plane sums them).
 * *exact becomes 0 when the rows' absolute values may sum past INT64_MAX
 * (sum_plane). */
static int mark_rows(builder *b, const rowset *rs, size_t *k, size_t planes, size_t first, int *exact)
{
    const profkit_profile *p = rs->p;
    size_t pnv = p->n_value_types, nv = b->nv;
    work *w = &b->work;
    uint64_t mag = 0;
    int over = 0;
    for (size_t i = 0; i < rs->n; i++) {
        prefetch_rows(rs, i, b->mark, NULL, 0);
        uint32_t r = row_at(rs, i), s = p->sample_stack[r];
        if (s >= p->n_stacks)
            continue;
        uint32_t u0 = rs->stack_node[s];
        if (mark_path(b, u0, k, planes) != 0)
            return PROFKIT_ENOMEM;
        int64_t *a = w->acc + (size_t)b->mark[u0] * planes + first;
        const int64_t *x = p->sample_values + (size_t)r * pnv;
        for (size_t v = 0; v < nv; v++) {
            uint32_t pv = rs->vmap[v];
            if (pv == PROFKIT_NONE)
                continue;
            add_sat(&a[v], x[pv]);
            over |= __builtin_add_overflow(mag, x[pv] < 0 ? 0 - (uint64_t)x[pv] : (uint64_t)x[pv], &mag);
        }
    }
    if (over || mag > (uint64_t)INT64_MAX)
        *exact = 0;
    return 0;
}

/* As mark_rows, for the rows of thread th (b->ss, its range of stacks
 * its own, its sums exact): per stack of its range that a row is at. The
 * nodes are numbered in another order (sorted after) and summed in
 * another, to the same sums (no sum saturates). */
static int mark_stacks(builder *b, const rowset *rs, uint32_t th, size_t *k, size_t planes)
{
    const stack_sums *ss = b->ss;
    const profkit_profile *p = rs->p;
    size_t pnv = p->n_value_types, nv = b->nv;
    work *w = &b->work;
    uint32_t lo = ss->lo[th], hi = ss->hi[th];
    if (lo > hi)
        return 0;
    for (size_t wd = lo >> 6; wd <= hi >> 6; wd++) {
        /* the marks of the next word's stacks (where some are) */
        if (wd + 1 <= hi >> 6)
            for (uint64_t m = ss->seen[wd + 1]; m; m &= m - 1)
                __builtin_prefetch(&b->mark[rs->stack_node[(wd + 1) * 64 + (size_t)__builtin_ctzll(m)]]);
        for (uint64_t m = seen_word(ss, wd, lo, hi); m; m &= m - 1) {
            size_t s = wd * 64 + (size_t)__builtin_ctzll(m);
            uint32_t u0 = rs->stack_node[s];
            if (mark_path(b, u0, k, planes) != 0)
                return PROFKIT_ENOMEM;
            int64_t *a = w->acc + (size_t)b->mark[u0] * planes;
            const int64_t *x = ss->sum + s * pnv;
            for (size_t v = 0; v < nv; v++)
                if (rs->vmap[v] != PROFKIT_NONE)
                    add_sat(&a[v], x[rs->vmap[v]]);
        }
    }
    return 0;
}

/* For the runs of thread th (per stack, as mark_stacks): ss->place[s] =
 * place[mark[stack node of s]] for each stack s of its range a row is
 * at, so that a row's place is one look-up; 0 or ENOMEM. */
static int stack_places(builder *b, const rowset *rs, uint32_t th, size_t n1)
{
    stack_sums *ss = b->ss;
    const profkit_profile *p = rs->p;
    uint32_t lo = ss->lo[th], hi = ss->hi[th];
    if (!ss->place && !(ss->place = malloc((p->n_stacks ? p->n_stacks : 1) * sizeof(uint32_t))))
        return PROFKIT_ENOMEM;
    if (n1 > ss->n_same) {
        free(ss->same);
        ss->n_same = 0;
        if (!(ss->same = malloc(n1 * sizeof(uint32_t))))
            return PROFKIT_ENOMEM;
        for (size_t i = 0; i < n1; i++)
            ss->same[i] = (uint32_t)i;
        ss->n_same = n1;
    }
    if (lo > hi)
        return 0;
    for (size_t wd = lo >> 6; wd <= hi >> 6; wd++) {
        if (wd + 1 <= hi >> 6)
            for (uint64_t m = ss->seen[wd + 1]; m; m &= m - 1)
                __builtin_prefetch(&b->mark[rs->stack_node[(wd + 1) * 64 + (size_t)__builtin_ctzll(m)]]);
        for (uint64_t m = seen_word(ss, wd, lo, hi); m; m &= m - 1) {
            size_t s = wd * 64 + (size_t)__builtin_ctzll(m);
            ss->place[s] = b->mark[rs->stack_node[s]];
        }
    }
    return 0;
}

/* As sum_plane for a scope of every row, from b->ss when every row's
 * sums are exact (then the same sums); 0 when it cannot. */
static int sum_plane_stacks(const builder *b, const rowset *rs, size_t v, int64_t *plane, size_t k)
{
    const stack_sums *ss = b->ss;
    const profkit_profile *p = rs->p;
    uint32_t pv = rs->vmap[v];
    if (!ss || !ss->exact[p->n_threads + 1] || pv == PROFKIT_NONE)
        return 0;
    size_t pnv = p->n_value_types;
    memset(plane, 0, k * sizeof(int64_t));
    for (size_t wd = 0; wd <= p->n_stacks / 64 && p->n_stacks; wd++) {
        if (wd + 1 <= p->n_stacks / 64) /* the sums of the next word's stacks */
            for (uint64_t m = ss->seen[wd + 1]; m; m &= m - 1)
                __builtin_prefetch(&plane[rs->stack_node[(wd + 1) * 64 + (size_t)__builtin_ctzll(m)]]);
        for (uint64_t m = ss->seen[wd]; m; m &= m - 1) {
            size_t s = wd * 64 + (size_t)__builtin_ctzll(m);
            add_sat(&plane[rs->stack_node[s]], ss->sum[s * pnv + pv]);
        }
    }
    return 1;
}

/* plane[local node] = the sum of value v (of the scope's values) of rs's
 * rows at that node; 0, plane untouched, when rs's profile has no value v
 * (a diff's BASE without that value type: all zeros). *exact stays 1 when
 * the rows' absolute values sum within INT64_MAX: then no sum of any of
 * them, in any order, saturates (else it becomes 0). */
static int sum_plane(const builder *b, const rowset *rs, size_t v, int64_t *plane, size_t k, int *exact)
{
    uint32_t pv = rs->vmap[v];
    if (pv == PROFKIT_NONE)
        return 0;
    const profkit_profile *p = rs->p;
    size_t pnv = p->n_value_types;
    uint64_t mag = 0;
    int over = 0;
    memset(plane, 0, k * sizeof(int64_t));
    for (size_t i = 0; i < rs->n; i++) {
        prefetch_rows(rs, i, b->ident ? NULL : b->mark, plane, sizeof(int64_t));
        uint32_t r = row_at(rs, i), s = p->sample_stack[r];
        if (s >= p->n_stacks)
            continue;
        size_t li = b->ident ? rs->stack_node[s] : b->mark[rs->stack_node[s]];
        int64_t x = p->sample_values[(size_t)r * pnv + pv];
        add_sat(&plane[li], x);
        over |= __builtin_add_overflow(mag, x < 0 ? 0 - (uint64_t)x : (uint64_t)x, &mag);
    }
    if (over || mag > (uint64_t)INT64_MAX)
        *exact = 0;
    return 1;
}

/* out[v * n + place[local node]] += each value v (of the scope's values)
 * of rs's rows, summed (saturating) in row order; a value type rs's
 * profile lacks adds nothing (a diff's BASE without it). */
static void place_rows(const builder *b, const rowset *rs, const uint32_t *place, size_t nv, int64_t *out,
                       size_t n)
{
    const profkit_profile *p = rs->p;
    size_t pnv = p->n_value_types;
    for (size_t i = 0; i < rs->n; i++) {
        uint32_t r = row_at(rs, i), s = p->sample_stack[r];
        if (s >= p->n_stacks)
            continue;
        size_t o = place[b->ident ? rs->stack_node[s] : b->mark[rs->stack_node[s]]];
        const int64_t *x = p->sample_values + (size_t)r * pnv;
        for (size_t v = 0; v < nv; v++)
            if (rs->vmap[v] != PROFKIT_NONE)
                add_sat(&out[v * n + o], x[rs->vmap[v]]);
    }
}

/* Self sums into totals: one backward pass, as parents precede children. */
static void total_plane(int64_t *plane, const uint32_t *lp, size_t k, int scattered)
{
    size_t i = k;
    if (scattered) /* a parent is anywhere before its child: ask for it ahead */
        for (; i > PF_FAR + 1; i--) {
            __builtin_prefetch(&plane[lp[i - 1 - PF_FAR]]);
            add_sat(&plane[lp[i - 1]], plane[i - 1]);
        }
    for (; i-- > 1;)
        add_sat(&plane[lp[i]], plane[i]);
}

/* What scope_inline's visits fill: flags per node of tree 1. */
struct inl_ctx {
    const builder *b;
    const rowset *rs;
    const uint32_t *t1;
    uint8_t *fl;
};

static void inl_visit(void *ctx, uint32_t s, unsigned bits)
{
    struct inl_ctx *c = ctx;
    uint32_t u = c->rs->stack_node[s];
    uint32_t li = c->b->ident ? u : c->b->mark[u];
    if (li != PROFKIT_NONE && c->t1[li] != PROFKIT_NONE)
        c->fl[c->t1[li]] |= (uint8_t)bits;
}

/* 1 when every stack of p comes after its parent (as stacks are made):
 * then one backward pass over the stacks meets every prefix of a stack. */
static int parents_first(const profkit_profile *p)
{
    for (size_t s = 1; s < p->n_stacks; s++)
        if (p->stacks[s].parent >= s)
            return 0;
    return 1;
}

/* What pk_inline_calls visits for every row of r (value pv non-zero, or
 * every row when pv is NONE), in one backward pass over the stacks
 * instead of a walk up from each row's: the rows' stacks are marked in
 * seen (zeros), then each marked stack marks its parent and is visited.
 * The same stacks, each once, so the same flags. p's stacks parents
 * first (parents_first). */
static void every_row_calls(const builder *b, const rowset *r, uint32_t pv, const uint32_t *t1, uint8_t *fl,
                            uint8_t *seen)
{
    const profkit_profile *p = r->p;
    size_t pnv = p->n_value_types;
    for (size_t i = 0; i < p->n_samples; i++) {
        uint32_t s = p->sample_stack[i];
        if (s != 0 && s < p->n_stacks && (pv == PROFKIT_NONE || p->sample_values[i * pnv + pv] != 0))
            seen[s >> 3] |= (uint8_t)(1u << (s & 7));
    }
    for (size_t s = p->n_stacks; s-- > 1;) {
        if (!(seen[s >> 3] & (1u << (s & 7))))
            continue;
        const profkit_stack *st = &p->stacks[s];
        seen[st->parent >> 3] |= (uint8_t)(1u << (st->parent & 7));
        if (st->frame >= p->n_frames)
            continue;
        uint32_t u = r->stack_node[s];
        uint32_t li = b->ident ? u : b->mark[u];
        if (li != PROFKIT_NONE && t1[li] != PROFKIT_NONE)
            fl[t1[li]] |= (uint8_t)(p->frames[st->frame].inline_depth > 0 ? PK_CALL_INLINED : PK_CALL_REAL);
    }
}

/* fl[node of tree 1] |= the calls (pk_inline_calls) of rs's and brs's
 * rows with a value of the scope's value type v (PROFKIT_NONE: every
 * row); t1: local node -> its number in tree 1, or NONE. */
static void scope_calls(builder *b, const rowset *rs, const rowset *brs, uint32_t v, const uint32_t *t1,
                        uint8_t *fl)
{
    for (int side = 0; side < (brs ? 2 : 1); side++) {
        const rowset *r = side ? brs : rs;
        uint32_t pv = v == PROFKIT_NONE ? PROFKIT_NONE : r->vmap[v];
        uint8_t *seen = side ? b->bseen : b->seen;
        if (v != PROFKIT_NONE && pv == PROFKIT_NONE)
            continue; /* BASE has no such value type */
        memset(seen, 0, r->p->n_stacks / 8 + 1);
        if (!r->idx && parents_first(r->p)) {
            every_row_calls(b, r, pv, t1, fl, seen);
            continue;
        }
        struct inl_ctx c = { b, r, t1, fl };
        pk_inline_calls(r->p, r->idx, r->n, pv, PROFKIT_NONE, seen, inl_visit, &c);
    }
}

/* t->inlv: the inline flags (1 inlined, 2 a real call, 3 both) of tree
 * 1's kept nodes per value type ([v * n + i]), from the calls of the
 * scope's rows (NEW's and BASE's) with a value of it, by the rule top marks
 * by (src/analysis/inline_marks.c); t->inl every value type's together.
 * t->inlv stays NULL when each value type's are t->inl (found without a
 * pass per value type when every row has values of all or of none). "(other)" nodes
 * have none. */
/* 1 when each row of rs (and brs) has a value of every value type of the
 * scope or of none: then every value type's calls are value 0's. */
static int same_rows_per_value(const rowset *rs, const rowset *brs, size_t nv)
{
    for (int side = 0; side < (brs ? 2 : 1); side++) {
        const rowset *r = side ? brs : rs;
        const profkit_profile *p = r->p;
        size_t pnv = p->n_value_types;
        for (size_t v = 0; v < nv; v++)
            if (r->vmap[v] == PROFKIT_NONE)
                return 0;
        for (size_t i = 0; i < r->n; i++) {
            const int64_t *x = p->sample_values + (size_t)row_at(r, i) * pnv;
            int nz = x[r->vmap[0]] != 0;
            for (size_t v = 1; v < nv; v++)
                if ((x[r->vmap[v]] != 0) != nz)
                    return 0;
        }
    }
    return 1;
}

static int scope_inline(builder *b, tree1 *t, const rowset *rs, const rowset *brs, const uint32_t *t1)
{
    size_t n = t->n ? t->n : 1, nv = b->nv, nvn;
    if (!(t->inl = calloc(n, 1)))
        return PROFKIT_ENOMEM;
    if (nv < 2 || same_rows_per_value(rs, brs, nv)) {
        scope_calls(b, rs, brs, nv ? 0 : PROFKIT_NONE, t1, t->inl);
        return 0;
    }
    if (pk_mul_size(n, nv, &nvn) != 0 || !(t->inlv = calloc(nvn, 1)))
        return PROFKIT_ENOMEM;
    for (size_t v = 0; v < nv; v++) {
        uint8_t *fl = t->inlv + v * n;
        scope_calls(b, rs, brs, (uint32_t)v, t1, fl);
        for (size_t i = 0; i < t->n; i++)
            t->inl[i] |= fl[i];
    }
    int differ = 0;
    for (size_t v = 0; v < nv && !differ; v++)
        differ = memcmp(t->inlv + v * n, t->inl, t->n) != 0;
    if (!differ) {
        free(t->inlv);
        t->inlv = NULL;
    }
    return 0;
}

/*
 * Tree 1 of a scope: rows of NEW (rs) and of BASE (brs, or NULL).
 * timed: build the runs of rs's timed rows.
 */
static int build_tree1(builder *b, tree1 *t, const rowset *rs, const rowset *brs, int timed)
{
    size_t nv = b->nv, k = 1;
    int rc = PROFKIT_ENOMEM;
    int64_t *plane = NULL;
    const uint32_t *lp = NULL;
    uint32_t *t1 = NULL, *other = NULL, *map = NULL;
    int ident = !rs->idx && (!brs || !brs->idx);
    size_t planes = brs ? 2 * nv : nv;
    int exact = 1, per_stack = 0;
    memset(t, 0, sizeof(*t));
    /* no timed row in the profile: no runs to lay out */
    timed = timed && b->time0 != INT64_MAX;

    b->ident = ident;
    if (ident) {
        /* every row: every node, numbered as in the call tree (unreached
         * ones add zeros), the call tree's parents as the local ones */
        k = b->tree.n;
    } else {
        if (!b->mark) {
            if (!(b->mark = malloc(b->tree.n * sizeof(uint32_t))))
                goto done;
            for (size_t i = 0; i < b->tree.n; i++)
                b->mark[i] = PROFKIT_NONE;
        }
        if (PK_VEC_RESERVE(b->touched, 0, b->cap_touched, 1) != 0 ||
            PK_VEC_RESERVE(b->work.acc, 0, b->work.cap_acc, planes ? planes : 1) != 0)
            goto done;
        b->mark[0] = 0;
        b->touched[0] = 0;
        memset(b->work.acc, 0, planes * sizeof(int64_t));
        /* a thread's rows with a range of stacks of their own: per stack */
        uint32_t th = b->ss_thread;
        per_stack = !brs && th != PROFKIT_NONE && b->ss && b->ss->disjoint && b->ss->exact[th];
        if ((per_stack ? mark_stacks(b, rs, th, &k, planes) : mark_rows(b, rs, &k, planes, 0, &exact)) != 0 ||
            (brs && mark_rows(b, brs, &k, planes, nv, &exact) != 0) ||
            sort_ids(b->touched, k) != 0)
            goto done;
    }
    /* A scope over every row keeps one plane at a time when there are
     * several (every node of the call tree each: the rows are summed again
     * at the end instead); a scope of some rows has them all already. */
    int keep = !ident || planes <= 1;
    if (!keep)
        exact = 0;
    if (work_reserve(&b->work, k, keep ? planes : 1, !ident, timed) != 0)
        goto done;
    if (!ident) {
        /* nodes numbered as the call tree's (parents first), their sums
         * into the planes */
        for (size_t i = 0; i < k; i++) {
            const int64_t *a = b->work.acc + (size_t)b->mark[b->touched[i]] * planes;
            for (size_t pl = 0; pl < planes; pl++)
                b->work.plane[pl * k + i] = a[pl];
            b->mark[b->touched[i]] = (uint32_t)i;
        }
    }
    plane = b->work.plane;
    uint8_t *fl = b->work.fl;
    map = b->work.map;
    if (ident) {
        lp = b->tree.parent; /* parent[0] is 0, as lp[0] */
    } else {
        uint32_t *w = b->work.lp;
        w[0] = 0;
        for (size_t i = 1; i < k; i++)
            w[i] = b->mark[b->tree.parent[b->touched[i]]];
        lp = w;
    }
    /*
     * Each node's rows are summed per value type (a "plane": NEW's value
     * v, then BASE's): while the nodes are marked (a scope of some rows),
     * else one pass over the rows per plane. First each plane's totals say
     * which nodes count (the flags go into fl, then t1 numbers the kept
     * nodes); then kept nodes take their self sums, and each "(other)" the
     * totals of the children it merges. A node's self value is its own
     * sum (equal to its total less its children's while no sum
     * saturates). When no sum of the rows' values can saturate (exact),
     * those come from the planes, summed per node; else from one more
     * pass over the rows, summing (saturating) in row order.
     */
    memset(fl, 0, k);
    for (size_t pl = 0; pl < planes; pl++) {
        int64_t *pp = plane + (keep ? pl * k : 0);
        const rowset *r = pl < nv ? rs : brs;
        if (r->vmap[pl % nv] == PROFKIT_NONE) {
            memset(pp, 0, k * sizeof(int64_t));
            continue; /* all zeros: no node counts by this plane */
        }
        if (ident && !(!brs && sum_plane_stacks(b, r, pl % nv, pp, k))) /* else summed while the nodes were marked */
            sum_plane(b, r, pl % nv, pp, k, &exact);
        total_plane(pp, lp, k, b->tree.scattered);
        double thr = fabs((double)pp[0]) * b->min_pct / 100.0;
        for (size_t i = 1; i < k; i++) {
            int64_t x = pp[i];
            if (x)
                fl[i] |= fabs((double)x) >= thr ? SIG | NZ : NZ;
        }
    }
    /* The nodes' numbers in tree 1: where the planes were when their sums
     * are not needed again (not exact: the rows are summed again), with
     * the nodes' places after them (the planes hold 8 bytes a node). */
    if (exact) {
        if (reserve_u32(&b->work.t1, &b->work.k_t1, k) != 0)
            goto done;
        t1 = b->work.t1;
    } else {
        t1 = (uint32_t *)(void *)plane;
    }
    /* A node whose total is zero keeps its descendants' flags (a delta
     * profile's +x and -x under one node: `top` lists them both). */
    size_t up = k;
    if (b->tree.scattered)
        for (; up > PF_FAR + 1; up--) {
            __builtin_prefetch(&fl[lp[up - 1 - PF_FAR]]);
            fl[lp[up - 1]] |= fl[up - 1];
        }
    for (; up-- > 1;)
        fl[lp[up]] |= fl[up];
    /* Keep a node when its parent is kept and it is big enough; kept nodes
     * are numbered in order (parents precede children), "(other)" nodes
     * after them: one per kept node that has a dropped child with a
     * non-zero total. A kept node's "(other)" is other[its number] (kept
     * nodes are few beside every node). */
    size_t n1 = 1, n_other = 0;
    t1[0] = 0;
    for (size_t i = 1; i < k; i++) {
        uint32_t f = fl[i];
        if (t1[lp[i]] >= DROPPED_NZ)
            t1[i] = PROFKIT_NONE;
        else
            t1[i] = f & SIG ? (uint32_t)n1++ : f & NZ ? DROPPED_NZ : PROFKIT_NONE;
    }
    if (reserve_u32(&b->work.other, &b->work.k_other, n1) != 0)
        goto done;
    other = b->work.other;
    for (size_t o = 0; o < n1; o++)
        other[o] = PROFKIT_NONE;
    for (size_t i = 1; i < k; i++)
        if (t1[i] == DROPPED_NZ) {
            t1[i] = PROFKIT_NONE;
            if (other[t1[lp[i]]] == PROFKIT_NONE)
                other[t1[lp[i]]] = (uint32_t)(n1 + n_other++);
        }
    size_t n = n1 + n_other, nvn;
    t->n = n;
    if (pk_mul_size(n, nv ? nv : 1, &nvn) != 0 ||
        !(t->parent = malloc(n * sizeof(int32_t))) || !(t->func = malloc(n * sizeof(int32_t))) ||
        !(t->self = calloc(nvn, sizeof(int64_t))) ||
        (brs && !(t->bself = calloc(nvn, sizeof(int64_t)))))
        goto done;
    for (size_t i = 0; i < k; i++) {
        if (t1[i] == PROFKIT_NONE)
            continue;
        uint32_t o = t1[i];
        t->parent[o] = i ? (int32_t)t1[lp[i]] : -1;
        t->func[o] = i ? (int32_t)b->tree.key[ident ? i : b->touched[i]] - 1 : FLAME_ROOT;
        if (other[o] != PROFKIT_NONE) {
            t->parent[other[o]] = (int32_t)o;
            t->func[other[o]] = FLAME_OTHER;
        }
    }
    if (b->inl_any && scope_inline(b, t, rs, brs, t1) != 0)
        goto done;
    /* Each local node's place in tree 1: itself when kept, else the
     * "(other)" of its nearest kept ancestor (or that ancestor, when all
     * it merged was zero). The timed rows' runs need it (map); else, when
     * the rows are summed again, it goes where the plane was, after t1. */
    uint32_t *place = timed ? map : t1 + k;
    if (timed || !exact) {
        place[0] = 0;
        for (size_t i = 1; i < k; i++) {
            if (t1[i] != PROFKIT_NONE)
                place[i] = t1[i];
            else if (t1[lp[i]] != PROFKIT_NONE)
                place[i] = other[t1[lp[i]]] != PROFKIT_NONE ? other[t1[lp[i]]] : t1[lp[i]];
            else
                place[i] = place[lp[i]];
        }
    }
    /* A kept node takes its self sums and each "(other)" those of the
     * subtrees it merges (their totals). When exact, from the planes'
     * totals: a kept node's total less its children's, and each dropped
     * child of a kept node's total goes to that node's "(other)" (every
     * sum on the way is of some of the rows, so none saturates). Else one
     * more pass over the rows puts each row's values at its node's place,
     * summed (saturating) in row order. */
    if (exact) {
        for (size_t pl = 0; pl < planes; pl++) {
            const int64_t *tot = plane + pl * k;
            int64_t *out = (pl < nv ? t->self : t->bself) + (pl % nv) * n;
            out[0] += tot[0];
            for (size_t i = 1; i < k; i++) {
                uint32_t q = t1[lp[i]];
                if (q == PROFKIT_NONE)
                    continue; /* under a dropped node: in its total */
                out[q] -= tot[i];
                out[t1[i] != PROFKIT_NONE ? t1[i] : other[q] != PROFKIT_NONE ? other[q] : q] += tot[i];
            }
        }
    } else {
        place_rows(b, rs, place, nv, t->self, n);
        if (brs)
            place_rows(b, brs, place, nv, t->bself, n);
    }
    if (timed) {
        /* the marks become each node's place in tree 1 (map is that
         * already when local indexes are the nodes) */
        if (!ident)
            for (size_t i = 0; i < k; i++)
                b->mark[b->touched[i]] = map[i];
        /* per stack: each row's place is one look-up (places are few) */
        const uint32_t *sn = rs->stack_node, *nm = ident ? map : b->mark;
        if (per_stack) {
            if (stack_places(b, rs, b->ss_thread, t->n) != 0)
                goto done;
            sn = b->ss->place;
            nm = b->ss->same;
        }
        if (pk_flame_runs(t, rs->p, rs->idx, rs->n, sn, nm, b->min_pct, b->time0) != 0)
            goto done;
    }
    rc = 0;
done:
    if (!ident && b->mark && b->touched)
        for (size_t i = 0; i < k; i++)
            b->mark[b->touched[i]] = PROFKIT_NONE;
    return rc;
}

/* ------------------------------------------------------------ label scopes */

/* One label value's rows (all threads, or one thread's), for a scope of
 * its own. */
typedef struct label_group {
    uint32_t key;      /* p's string id */
    uint32_t thread;   /* the thread whose rows these are; PROFKIT_NONE: every thread's */
    uint32_t value;    /* d->strings id: the joined values ("" without), or a number's text */
    int is_num;        /* a numeric key's value or bucket: the rows whose number is in [lo, hi] */
    int64_t lo, hi;
    uint32_t unit;     /* d->strings id: the key's unit, as `tags` scales its numbers */
    uint32_t frame;    /* d->strings id: --tagroot's frame name for the number lo (lo == hi) */
    int group_only;    /* one number of a bucketed key (label_per_number) */
    uint32_t bucket;   /* d->strings id: its bucket's value (group_only) */
    uint32_t *rows;
    size_t n, cap;
} label_group;

static void label_groups_free(label_group *g, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(g[i].rows);
    free(g);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Per label set, key `key`'s value index (0..PK_FLAME_LABEL_VALUES), for a
 * numeric key: its distinct numbers sorted, each its own value when they
 * are few enough, else cut into PK_FLAME_LABEL_VALUES - 1 runs of about
 * as many numbers each (a bucket: its smallest and largest); the rows
 * without the key are the last value. Fills vals[0..*nv) (lo, hi) and
 * set_vi. Returns 0, 1 when the key is not usable (a set with two numbers
 * of it or a string), or ENOMEM. */
static int numeric_values(const profkit_profile *p, uint32_t key, uint32_t *set_vi, int64_t (*vals)[2],
                          size_t *nv)
{
    int64_t *num = malloc(p->n_labelsets * sizeof(int64_t));
    int64_t *set_num = malloc(p->n_labelsets * sizeof(int64_t));
    uint8_t *has = calloc(p->n_labelsets, 1);
    size_t cnt = 0;
    int rc = 0;
    if (!num || !set_num || !has) {
        rc = PROFKIT_ENOMEM;
        goto done;
    }
    for (size_t s = 0; s < p->n_labelsets && rc == 0; s++) {
        const struct pk_labelset *ls = &p->labelsets[s];
        for (uint32_t i = ls->first; i < ls->first + ls->n && i < p->n_labels; i++) {
            const profkit_label *l = &p->labels[i];
            if (l->key != key)
                continue;
            if (!l->is_num || has[s]) {
                rc = 1;
                break;
            }
            has[s] = 1;
            set_num[s] = l->num;
            num[cnt++] = l->num;
        }
    }
    if (rc)
        goto done;
    qsort(num, cnt, sizeof(int64_t), cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < cnt; i++)
        if (!u || num[u - 1] != num[i])
            num[u++] = num[i];
    size_t nb = u < PK_FLAME_LABEL_VALUES ? u : PK_FLAME_LABEL_VALUES - 1;
    for (size_t b = 0; b < nb; b++) {
        vals[b][0] = num[b * u / nb];
        vals[b][1] = num[(b + 1) * u / nb - 1];
    }
    for (size_t s = 0; s < p->n_labelsets; s++) {
        if (!has[s]) {
            set_vi[s] = (uint32_t)nb;
            continue;
        }
        size_t lo = 0, hi = nb; /* the bucket whose [lo, hi] holds it */
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (vals[mid][0] <= set_num[s])
                lo = mid;
            else
                hi = mid;
        }
        set_vi[s] = (uint32_t)lo;
    }
    *nv = nb + 1;
done:
    free(num);
    free(set_num);
    free(has);
    return rc;
}

/* The group of value vi of the key being grouped, for slot `slot` (0: all
 * threads, t + 1: thread t), made on first use: index into *g. */
static int group_at(label_group **g, size_t *ng, size_t *cap, size_t *gidx, size_t slot, uint32_t vi,
                    const label_group *proto, size_t *out)
{
    size_t *at = &gidx[slot * (PK_FLAME_LABEL_VALUES + 1) + vi];
    if (*at == SIZE_MAX) {
        if (PK_VEC_RESERVE(*g, *ng, *cap, 1) != 0)
            return PROFKIT_ENOMEM;
        (*g)[*ng] = proto[vi];
        (*g)[*ng].thread = slot ? (uint32_t)(slot - 1) : PROFKIT_NONE;
        *at = (*ng)++;
    }
    *out = *at;
    return 0;
}

/* The groups of one key's values proto[0..nv) (made on first use, every
 * thread's first in value order, then each thread's): each row goes to the
 * group of its label set's value set_vi[s] (UINT32_MAX: none). gidx is
 * reset by the caller for each key. 0 or ENOMEM. */
static int label_emit(const profkit_profile *p, int per_thread, const uint32_t *set_vi,
                      const label_group *proto, size_t nv, size_t *gidx, label_group **g, size_t *ng,
                      size_t *cap)
{
    uint8_t seen[PK_FLAME_LABEL_VALUES + 1] = { 0 };
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t s = p->sample_labels[r], v = set_vi[s < p->n_labelsets ? s : 0];
        if (v < nv)
            seen[v] = 1;
    }
    for (size_t v = 0; v < nv; v++) {
        size_t gi;
        if (seen[v] && group_at(g, ng, cap, gidx, 0, (uint32_t)v, proto, &gi) != 0)
            return PROFKIT_ENOMEM;
    }
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t s = p->sample_labels[r], th = p->sample_thread[r];
        uint32_t v = set_vi[s < p->n_labelsets ? s : 0];
        if (v >= nv)
            continue;
        for (size_t slot = 0; slot < (per_thread && th < p->n_threads ? 2 : 1); slot++) {
            size_t gi;
            if (group_at(g, ng, cap, gidx, slot ? th + 1 : 0, v, proto, &gi) != 0)
                return PROFKIT_ENOMEM;
            if (PK_VEC_RESERVE((*g)[gi].rows, (*g)[gi].n, (*g)[gi].cap, 1) != 0)
                return PROFKIT_ENOMEM;
            (*g)[gi].rows[(*g)[gi].n++] = (uint32_t)r;
        }
    }
    return 0;
}

/* A key some label set holds two values of, or numbers and strings of
 * (numeric_values refuses it), as pprof has it: its groups are (1) per
 * combination of values, named as --tagroot names its frame ("1kB,2kB";
 * the frame "<unknown>" without a value), for the grouping, the rows
 * without the key one of them with the value "" (a combination's value is
 * its frame, or its raw values joined when that is "<unknown>", so only
 * those rows have ""); and (2) per single value, a number (as a numeric
 * key's) or a string, for "KEY = VALUE" (pprof's -tagfocus keeps a sample
 * when one of its values matches), a row in the group of each of its
 * values. Either part is left out past PK_FLAME_LABEL_VALUES values.
 * 0 or ENOMEM. */
static int label_multi(flame_data *d, const profkit_profile *p, uint32_t key, int per_thread,
                       uint32_t *set_vi, size_t *gidx, size_t slots, label_group **g, size_t *ng,
                       size_t *cap)
{
    label_group proto[PK_FLAME_LABEL_VALUES + 1];
    uint32_t ids[PK_FLAME_LABEL_VALUES + 1];
    pk_buf name;
    pk_buf_init(&name, 0);
    char buf[1024];
    const char *unit = pk_label_key_unit(p, key);
    uint32_t uid = pk_strtab_intern(&d->strings, unit, strlen(unit));
    uint32_t none = pk_strtab_intern(&d->strings, PK_TAG_NO_VALUE, strlen(PK_TAG_NO_VALUE));
    int rc = PROFKIT_ENOMEM, usable = 1;
    size_t nv = 0;
    if (uid == PROFKIT_NONE || none == PROFKIT_NONE)
        goto done;
    /* (1) the combinations */
    memset(proto, 0, sizeof(proto));
    for (size_t s = 0; s < p->n_labelsets && usable; s++) {
        const struct pk_labelset *ls = &p->labelsets[s];
        size_t n = ls->first < p->n_labels ? p->n_labels - ls->first : 0;
        n = ls->n < n ? ls->n : n;
        const profkit_label *l = n ? &p->labels[ls->first] : NULL;
        int has = 0;
        if (pk_tags_frame_name(p, key, l, n, &name, &has) != 0)
            goto done;
        uint32_t frame = name.len ? pk_strtab_intern(&d->strings, pk_buf_cstr(&name), name.len) : none;
        size_t len = 0; /* the value: the frame's name, else the raw values */
        for (size_t i = 0; i < n && !name.len; i++) {
            if (l[i].key != key)
                continue;
            if (len && len < sizeof(buf) - 1)
                buf[len++] = ',';
            if (len < sizeof(buf) - 1)
                len += l[i].is_num ? (size_t)snprintf(buf + len, sizeof(buf) - len, "%" PRId64, l[i].num)
                                   : pk_str_copy(p, l[i].str, buf + len, sizeof(buf) - len);
            if (len > sizeof(buf) - 1)
                len = sizeof(buf) - 1;
        }
        uint32_t id = name.len ? frame : pk_strtab_intern(&d->strings, buf, len);
        if (frame == PROFKIT_NONE || id == PROFKIT_NONE)
            goto done;
        size_t v = 0;
        while (v < nv && ids[v] != id)
            v++;
        if (v == nv) {
            if (nv == PK_FLAME_LABEL_VALUES) {
                usable = 0;
                break;
            }
            ids[nv++] = id;
            proto[v].key = key;
            proto[v].value = id;
            proto[v].frame = frame;
        }
        set_vi[s] = (uint32_t)v;
    }
    if (usable) {
        memset(gidx, 0xff, slots * (PK_FLAME_LABEL_VALUES + 1) * sizeof(size_t));
        if (label_emit(p, per_thread, set_vi, proto, nv, gidx, g, ng, cap) != 0)
            goto done;
    }
    /* (2) the single values: numbers by value, strings by string id */
    memset(proto, 0, sizeof(proto));
    nv = 0;
    usable = 1;
    int64_t num[PK_FLAME_LABEL_VALUES];
    uint8_t isnum[PK_FLAME_LABEL_VALUES];
    for (size_t i = 0; i < p->n_labels && usable; i++) {
        const profkit_label *l = &p->labels[i];
        if (l->key != key)
            continue;
        size_t v = 0;
        while (v < nv && !(isnum[v] == l->is_num && (l->is_num ? num[v] == l->num : ids[v] == l->str)))
            v++;
        if (v < nv)
            continue;
        if (nv == PK_FLAME_LABEL_VALUES) {
            usable = 0;
            break;
        }
        isnum[v] = (uint8_t)l->is_num;
        num[v] = l->num;
        ids[v] = l->str;
        label_group *x = &proto[nv++];
        x->key = key;
        x->unit = uid;
        if (l->is_num) {
            x->is_num = 1;
            x->lo = x->hi = l->num;
            size_t w = pk_pprof_label(buf, sizeof(buf), l->num, unit, "minimum");
            x->value = pk_strtab_intern(&d->strings, buf, w);
            w = l->unit ? pk_pprof_label(buf, sizeof(buf), l->num, pk_str(p, l->unit), "minimum")
                        : (size_t)snprintf(buf, sizeof(buf), "%s", PK_TAG_NO_VALUE);
            x->frame = pk_strtab_intern(&d->strings, buf, w);
        } else {
            x->value = pk_strtab_intern(&d->strings, pk_str(p, l->str), pk_strtab_len(&p->strings, l->str));
        }
        if (x->value == PROFKIT_NONE || x->frame == PROFKIT_NONE)
            goto done;
    }
    if (usable && nv) {
        /* a pass per place in a set: each set's k-th distinct value of the key */
        memset(gidx, 0xff, slots * (PK_FLAME_LABEL_VALUES + 1) * sizeof(size_t));
        for (size_t k = 0; k < nv; k++) {
            int any = 0;
            for (size_t s = 0; s < p->n_labelsets; s++) {
                const struct pk_labelset *ls = &p->labelsets[s];
                uint32_t seen[PK_FLAME_LABEL_VALUES];
                size_t ns = 0;
                set_vi[s] = UINT32_MAX;
                for (uint32_t i = ls->first; i < ls->first + ls->n && i < p->n_labels; i++) {
                    const profkit_label *l = &p->labels[i];
                    if (l->key != key)
                        continue;
                    size_t v = 0;
                    while (v < nv && !(isnum[v] == l->is_num && (l->is_num ? num[v] == l->num : ids[v] == l->str)))
                        v++;
                    size_t j = 0;
                    while (j < ns && seen[j] != v)
                        j++;
                    if (v == nv || j < ns)
                        continue;
                    if (ns == k) {
                        set_vi[s] = (uint32_t)v;
                        any = 1;
                        break;
                    }
                    seen[ns++] = (uint32_t)v;
                }
            }
            if (!any)
                break;
            if (label_emit(p, per_thread, set_vi, proto, nv, gidx, g, ng, cap) != 0)
                goto done;
        }
    }
    rc = 0;
done:
    pk_buf_free(&name);
    return rc;
}

/* A bucketed numeric key (one number per label set, numeric_values)
 * whose numbers have a unit: a group per distinct number (every thread's
 * rows), so that "group by" has --tagroot's frames, one per number (named
 * in the labels' own unit, as --tagroot names them), when there are at
 * most PK_FLAME_LABEL_GROUP_VALUES numbers; each names its bucket (of
 * buckets[0..nb), by value), which the page makes of its numbers' trees.
 * *made: whether any was made. 0 or ENOMEM. */
static int label_per_number(flame_data *d, const profkit_profile *p, uint32_t key,
                            const label_group *buckets, size_t nb, label_group **g, size_t *ng,
                            size_t *cap, int *made)
{
    *made = 0;
    size_t n_sets = p->n_labelsets;
    int64_t *num = malloc(n_sets * sizeof(int64_t)), *set_num = malloc(n_sets * sizeof(int64_t));
    uint32_t *set_unit = malloc(n_sets * sizeof(uint32_t)), *set_vi = malloc(n_sets * sizeof(uint32_t));
    size_t *at = NULL, cnt = 0, u = 0;
    int rc = PROFKIT_ENOMEM, any_unit = 0;
    if (!num || !set_num || !set_unit || !set_vi)
        goto done;
    for (size_t s = 0; s < n_sets; s++) {
        set_vi[s] = UINT32_MAX;
        const struct pk_labelset *ls = &p->labelsets[s];
        for (uint32_t i = ls->first; i < ls->first + ls->n && i < p->n_labels; i++) {
            const profkit_label *l = &p->labels[i];
            if (l->key != key || !l->is_num)
                continue;
            set_num[s] = l->num;
            set_unit[s] = l->unit;
            set_vi[s] = 0;
            any_unit |= l->unit != 0;
            num[cnt++] = l->num;
            break;
        }
    }
    rc = 0;
    if (!any_unit) /* no unit: every number is --tagroot's <unknown>, the buckets lose nothing */
        goto done;
    qsort(num, cnt, sizeof(int64_t), cmp_i64);
    for (size_t i = 0; i < cnt; i++)
        if (!u || num[u - 1] != num[i])
            num[u++] = num[i];
    if (u > PK_FLAME_LABEL_GROUP_VALUES || u < PK_FLAME_LABEL_VALUES)
        goto done;
    rc = PROFKIT_ENOMEM;
    if (!(at = malloc(u * sizeof(size_t))))
        goto done;
    for (size_t v = 0; v < u; v++)
        at[v] = SIZE_MAX;
    for (size_t s = 0; s < n_sets; s++) {
        if (set_vi[s] == UINT32_MAX)
            continue;
        size_t lo = 0, hi = u;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (num[mid] <= set_num[s])
                lo = mid;
            else
                hi = mid;
        }
        set_vi[s] = (uint32_t)lo;
    }
    const char *unit = pk_label_key_unit(p, key);
    uint32_t uid = pk_strtab_intern(&d->strings, unit, strlen(unit));
    if (uid == PROFKIT_NONE)
        goto done;
    char buf[128];
    /* the numbers some row has (at[v]: the unit of its first row's label,
     * as --tagroot names it, for now), then their groups in number order */
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t s = p->sample_labels[r];
        if (s < n_sets && set_vi[s] != UINT32_MAX && at[set_vi[s]] == SIZE_MAX)
            at[set_vi[s]] = set_unit[s];
    }
    for (size_t v = 0; v < u; v++) {
        if (at[v] == SIZE_MAX)
            continue;
        if (PK_VEC_RESERVE(*g, *ng, *cap, 1) != 0)
            goto done;
        label_group *x = &(*g)[*ng];
        memset(x, 0, sizeof(*x));
        x->key = key;
        x->thread = PROFKIT_NONE;
        x->is_num = 1;
        x->group_only = 1;
        x->lo = x->hi = num[v];
        x->unit = uid;
        size_t blo = 0, bhi = nb; /* its bucket */
        while (bhi - blo > 1) {
            size_t mid = (blo + bhi) / 2;
            if (buckets[mid].lo <= num[v])
                blo = mid;
            else
                bhi = mid;
        }
        x->bucket = buckets[blo].value;
        size_t w = pk_pprof_label(buf, sizeof(buf), num[v], unit, "minimum");
        x->value = pk_strtab_intern(&d->strings, buf, w);
        uint32_t lunit = (uint32_t)at[v]; /* --tagroot's name: in the labels' own unit */
        w = lunit ? pk_pprof_label(buf, sizeof(buf), num[v], pk_str(p, lunit), "minimum")
                  : (size_t)snprintf(buf, sizeof(buf), "%s", PK_TAG_NO_VALUE);
        x->frame = pk_strtab_intern(&d->strings, buf, w);
        if (x->value == PROFKIT_NONE || x->frame == PROFKIT_NONE)
            goto done;
        at[v] = (*ng)++;
        *made = 1;
    }
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t s = p->sample_labels[r];
        if (s >= n_sets || set_vi[s] == UINT32_MAX)
            continue;
        label_group *x = &(*g)[at[set_vi[s]]];
        if (PK_VEC_RESERVE(x->rows, x->n, x->cap, 1) != 0)
            goto done;
        x->rows[x->n++] = (uint32_t)r;
    }
    rc = 0;
done:
    free(num);
    free(set_num);
    free(set_unit);
    free(set_vi);
    free(at);
    return rc;
}

/*
 * The rows of every label key (at most PK_FLAME_LABEL_KEYS keys), grouped
 * by the key's value: a string key's values joined by "," (as --tagroot
 * names its frame; "" for rows without the key), at most
 * PK_FLAME_LABEL_VALUES of them (a key of more is left out); a numeric
 * key's numbers, or buckets of them when there are more (numeric_values);
 * a key a sample has two values of, or numbers and strings of, per
 * combination and per single value (label_multi).
 * Per value the rows of every thread, and, when the page shows several
 * threads (`per_thread`), each thread's own, unless that would make more
 * than PK_FLAME_LABEL_SCOPES groups. Returns 0 or PROFKIT_ENOMEM; *out
 * NULL and *n_out 0 when there is nothing to group.
 */
static int label_groups(flame_data *d, const profkit_profile *p, int per_thread, label_group **out,
                        size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (!p->sample_labels || p->n_labelsets < 2)
        return 0;
    uint32_t keys[PK_FLAME_LABEL_KEYS];
    size_t nk = 0;
    for (size_t i = 0; i < p->n_labels && nk < PK_FLAME_LABEL_KEYS; i++) {
        uint32_t k = p->labels[i].key;
        size_t j = 0;
        while (j < nk && keys[j] != k)
            j++;
        if (j == nk)
            keys[nk++] = k;
    }
    label_group *g = NULL, proto[PK_FLAME_LABEL_VALUES + 1];
    size_t ng = 0, cap = 0, slots = 1 + (per_thread ? p->n_threads : 0);
    uint32_t *set_vi = malloc(p->n_labelsets * sizeof(uint32_t));
    size_t *gidx = malloc(slots * (PK_FLAME_LABEL_VALUES + 1) * sizeof(size_t));
    if (!set_vi || !gidx)
        goto oom;
    char buf[1024];
    for (size_t ki = 0; ki < nk; ki++) {
        uint32_t key = keys[ki];
        size_t nv = 0;
        int is_num = 0, usable = 1;
        for (size_t i = 0; i < p->n_labels; i++)
            if (p->labels[i].key == key && p->labels[i].is_num) {
                is_num = 1;
                break;
            }
        memset(proto, 0, sizeof(proto));
        if (is_num) {
            int64_t vals[PK_FLAME_LABEL_VALUES][2];
            int r = numeric_values(p, key, set_vi, vals, &nv);
            if (r == PROFKIT_ENOMEM)
                goto oom;
            if (r == 1) { /* two values of it in a set, or numbers and strings */
                if (label_multi(d, p, key, per_thread, set_vi, gidx, slots, &g, &ng, &cap) != 0)
                    goto oom;
                continue;
            }
            usable = r == 0;
            const char *unit = pk_label_key_unit(p, key);
            uint32_t uid = pk_strtab_intern(&d->strings, unit, strlen(unit));
            for (size_t v = 0; v < nv && usable; v++) {
                label_group *x = &proto[v];
                x->key = key;
                x->unit = uid;
                if (v + 1 == nv) { /* the rows without the key */
                    x->value = pk_strtab_intern(&d->strings, "", 0);
                    x->frame = pk_strtab_intern(&d->strings, PK_TAG_NO_VALUE, strlen(PK_TAG_NO_VALUE));
                    continue;
                }
                x->is_num = 1;
                x->lo = vals[v][0];
                x->hi = vals[v][1];
                size_t w = pk_pprof_label(buf, sizeof(buf), x->lo, unit, "minimum");
                if (x->hi != x->lo) {
                    buf[w++] = ':';
                    w += pk_pprof_label(buf + w, sizeof(buf) - w, x->hi, unit, "minimum");
                }
                x->value = pk_strtab_intern(&d->strings, buf, w);
                /* --tagroot's name: scaled in the labels' own unit, none without */
                uint32_t lunit = 0;
                for (size_t i = 0; i < p->n_labels; i++)
                    if (p->labels[i].key == key && p->labels[i].is_num && p->labels[i].num == x->lo) {
                        lunit = p->labels[i].unit;
                        break;
                    }
                w = lunit ? pk_pprof_label(buf, sizeof(buf), x->lo, pk_str(p, lunit), "minimum")
                          : (size_t)snprintf(buf, sizeof(buf), "%s", PK_TAG_NO_VALUE);
                x->frame = pk_strtab_intern(&d->strings, buf, w);
            }
        } else {
            /* each label set's joined value of this key, as a value index */
            uint32_t ids[PK_FLAME_LABEL_VALUES + 1];
            for (size_t s = 0; s < p->n_labelsets && usable; s++) {
                size_t len = 0;
                const struct pk_labelset *ls = &p->labelsets[s];
                for (uint32_t i = ls->first; i < ls->first + ls->n && i < p->n_labels; i++) {
                    const profkit_label *l = &p->labels[i];
                    if (l->key != key)
                        continue;
                    if (len && len < sizeof(buf) - 1)
                        buf[len++] = ',';
                    if (len < sizeof(buf) - 1) /* (a value past 1 KB is cut) */
                        len += pk_str_copy(p, l->str, buf + len, sizeof(buf) - len);
                }
                uint32_t id = pk_strtab_intern(&d->strings, buf, len);
                if (id == PROFKIT_NONE)
                    goto oom;
                size_t v = 0;
                while (v < nv && ids[v] != id)
                    v++;
                if (v == nv) {
                    if (nv == PK_FLAME_LABEL_VALUES) {
                        usable = 0;
                        break;
                    }
                    ids[nv++] = id;
                    proto[v].key = key;
                    proto[v].value = id;
                }
                set_vi[s] = (uint32_t)v;
            }
        }
        if (!usable)
            continue;
        for (size_t v = 0; v < nv; v++)
            if (proto[v].value == PROFKIT_NONE || proto[v].frame == PROFKIT_NONE ||
                (is_num && proto[v].unit == PROFKIT_NONE))
                goto oom;
        memset(gidx, 0xff, slots * (PK_FLAME_LABEL_VALUES + 1) * sizeof(size_t));
        size_t first = ng;
        if (label_emit(p, per_thread, set_vi, proto, nv, gidx, &g, &ng, &cap) != 0)
            goto oom;
        /* a bucketed key with a unit: a group per number (every thread's),
         * a frame each for "group by"; the page makes each bucket of every
         * thread's from its numbers' (so those are not kept twice) */
        int made = 0;
        if (is_num && nv == PK_FLAME_LABEL_VALUES &&
            label_per_number(d, p, key, proto, nv - 1, &g, &ng, &cap, &made) != 0)
            goto oom;
        if (made) {
            size_t k = first;
            for (size_t i = first; i < ng; i++) {
                if (g[i].thread == PROFKIT_NONE && g[i].is_num && !g[i].group_only)
                    free(g[i].rows);
                else
                    g[k++] = g[i];
            }
            ng = k;
        }
    }
    size_t n_scoped = 0; /* (the per-number groups are every thread's) */
    for (size_t i = 0; i < ng; i++)
        n_scoped += !g[i].group_only;
    if (per_thread && n_scoped > PK_FLAME_LABEL_SCOPES) { /* too many: every thread's groups only */
        size_t k = 0;
        for (size_t i = 0; i < ng; i++) {
            if (g[i].thread == PROFKIT_NONE)
                g[k++] = g[i];
            else
                free(g[i].rows);
        }
        ng = k;
    }
    free(set_vi);
    free(gidx);
    *out = g;
    *n_out = ng;
    return 0;
oom:
    free(set_vi);
    free(gidx);
    label_groups_free(g, ng);
    return PROFKIT_ENOMEM;
}

/* ------------------------------------------------------------ the whole */

/* *to = a copy of untimed tree 1 `from` (no runs, no BASE); 0 or ENOMEM. */
static int tree1_copy(tree1 *to, const tree1 *from, size_t nv)
{
    size_t n = from->n, nvn;
    memset(to, 0, sizeof(*to));
    if (pk_mul_size(n ? n : 1, nv ? nv : 1, &nvn) != 0 ||
        !(to->parent = malloc((n ? n : 1) * sizeof(int32_t))) ||
        !(to->func = malloc((n ? n : 1) * sizeof(int32_t))) ||
        !(to->self = malloc(nvn * sizeof(int64_t)))) {
        pk_flame_tree1_free(to);
        return PROFKIT_ENOMEM;
    }
    to->n = n;
    memcpy(to->parent, from->parent, n * sizeof(int32_t));
    memcpy(to->func, from->func, n * sizeof(int32_t));
    memcpy(to->self, from->self, n * (nv ? nv : 1) * sizeof(int64_t));
    if (from->inl) {
        if (!(to->inl = malloc(n ? n : 1))) {
            pk_flame_tree1_free(to);
            return PROFKIT_ENOMEM;
        }
        memcpy(to->inl, from->inl, n);
    }
    if (from->inlv) {
        if (!(to->inlv = malloc((n ? n : 1) * nv))) {
            pk_flame_tree1_free(to);
            return PROFKIT_ENOMEM;
        }
        memcpy(to->inlv, from->inlv, n * nv);
    }
    return 0;
}

void pk_flame_data_free(flame_data *d)
{
    for (size_t i = 0; i < d->n_scopes; i++) {
        flame_scope *s = &d->scopes[i];
        free(s->parent);
        free(s->func);
        free(s->self);
        free(s->base_self);
        free(s->run_start);
        free(s->run_node);
        free(s->samp_time);
        free(s->samp_node);
        free(s->samp_row);
        free(s->inl);
        free(s->inlv);
    }
    free(d->scopes);
    free(d->funcs);
    free(d->frame_func);
    pk_strtab_free(&d->strings);
    memset(d, 0, sizeof(*d));
}

int pk_flame_build(flame_data *d, const profkit_profile *p, const profkit_flame_options *o,
                int one_tree, profkit_error *err)
{
    builder b;
    memset(&b, 0, sizeof(b));
    memset(d, 0, sizeof(*d));
    d->p = p;
    d->base = o->base;
    b.d = d;
    b.nv = p->n_value_types;
    b.min_pct = o->min_percent > 0 ? o->min_percent : 0;
    const uint32_t *stack_node = NULL, *bstack_node = NULL;
    uint32_t *vmap = NULL, *bvmap = NULL;
    uint32_t *by_thread = NULL;
    size_t *tstart = NULL;
    tree1 *t1 = NULL;
    size_t *caps = NULL;
    size_t nt = 0;
    int rc;
    /* A thread with every row, when no row is timed (no runs), has the
     * merged scope's tree: a copy of it, not a second build. */
    tree1 same;
    int have_same = 0;
    memset(&same, 0, sizeof(same));
    stack_sums ss;
    memset(&ss, 0, sizeof(ss));

    uint32_t thread = PROFKIT_NONE, bthread = PROFKIT_NONE;
    if ((rc = pk_select(p, o->value, o->thread, &d->value, &thread, err)) != 0)
        return rc;
    if (o->base) {
        int ok;
        bthread = pk_select_thread(o->base, o->thread, &ok, err);
        if (!ok)
            return PROFKIT_EINVAL;
    }
    /* the label picker's scopes: a page of all threads, not a diff */
    label_group *lg = NULL;
    size_t n_lg = 0;
    int several = 0; /* label scopes per thread too: the page shows several threads */
    for (size_t r = 1; p->sample_labels && r < p->n_samples && !several; r++)
        several = p->sample_thread[r] != p->sample_thread[0];
    if (!o->base && !one_tree && thread == PROFKIT_NONE && pk_strtab_init(&d->strings) == 0 &&
        label_groups(d, p, several, &lg, &n_lg) != 0)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory building the flame graph");
    size_t max_scopes = 1 + p->n_threads + n_lg;
    rc = PROFKIT_ENOMEM;
    /* The call tree by function (by name in a diff, BASE's stacks on the
     * same nodes); its keys are the page's functions. */
    /* A page of all threads, none with every row: the rows' sums per
     * stack, in the pass that finds the first time (below). */
    int one_thread = p->n_samples && p->sample_thread[0] < p->n_threads; /* it is the merged scope */
    for (size_t r = 1; r < p->n_samples && one_thread; r++)
        one_thread = p->sample_thread[r] == p->sample_thread[0];
    int per_stack = !o->base && !one_tree && thread == PROFKIT_NONE && p->n_samples && !one_thread;
    pk_ltree_options lo = { .keys = o->base ? PK_LTREE_NAMES : PK_LTREE_FUNCTIONS, .merge = 1,
                            .base = o->base, .keep_scratch = per_stack };
    if (!d->strings.n && pk_strtab_init(&d->strings) != 0)
        goto oom;
    if ((rc = pk_ltree_build(&b.tree, p, &lo, err)) != 0)
        goto done;
    rc = PROFKIT_ENOMEM;
    if (make_funcs(d, &b.tree, p, o->base) != 0)
        goto oom;
    if (!o->base && pk_mem_ops_valid(p) && p->n_frames) {
        if (!(d->frame_func = malloc(p->n_frames * sizeof(int32_t))))
            goto oom;
        for (size_t f = 0; f < p->n_frames; f++)
            d->frame_func[f] = (int32_t)b.tree.frame_key[f] - 1;
    }
    b.inl_any = pk_inline_any(p) || (o->base && pk_inline_any(o->base));
    if (b.inl_any && (!(b.seen = malloc(p->n_stacks / 8 + 1)) ||
                      (o->base && !(b.bseen = malloc(o->base->n_stacks / 8 + 1)))))
        goto oom;
    stack_node = b.tree.stack_node;
    bstack_node = b.tree.base_node;
    if (!(vmap = malloc((b.nv + 1) * sizeof(uint32_t))) ||
        !(bvmap = malloc((b.nv + 1) * sizeof(uint32_t))))
        goto oom;
    for (size_t v = 0; v < b.nv; v++) {
        vmap[v] = (uint32_t)v;
        bvmap[v] = PROFKIT_NONE;
        if (o->base)
            for (size_t w = 0; w < o->base->n_value_types; w++)
                if (strcmp(pk_str(p, p->value_types[v].type),
                           pk_str(o->base, o->base->value_types[w].type)) == 0 &&
                    strcmp(pk_str(p, p->value_types[v].unit),
                           pk_str(o->base, o->base->value_types[w].unit)) == 0) {
                    bvmap[v] = (uint32_t)w;
                    break;
                }
    }
    if (per_stack) {
        if (stack_sums_make(&ss, p, &b.tree, &b.time0) != 0)
            goto oom;
        b.ss = &ss;
    } else {
        b.time0 = INT64_MAX;
        for (size_t r = 0; r < p->n_samples; r++)
            if (p->sample_time[r] != PROFKIT_NO_TIME && p->sample_time[r] < b.time0)
                b.time0 = p->sample_time[r];
    }
    b.ss_thread = PROFKIT_NONE;

    /* Scopes: a diff or --thread is one tree; else all threads merged and
     * each thread with samples. */
    if (group_rows(p, b.ss ? ss.rows : NULL, &by_thread, &tstart) != 0)
        goto oom;
    if (!(t1 = calloc(max_scopes, sizeof(tree1))) || !(caps = calloc(max_scopes, sizeof(size_t))) ||
        !(d->scopes = calloc(max_scopes, sizeof(flame_scope))))
        goto oom;
    int merged = 0;
    size_t shrunk0 = 0;

    if (o->base) {
        uint32_t *bby = NULL;
        size_t *bst = NULL;
        rowset rs = { p, stack_node, vmap, NULL, p->n_samples };
        rowset brs = { o->base, bstack_node, bvmap, NULL, o->base->n_samples };
        if (thread != PROFKIT_NONE) {
            rs.idx = by_thread + tstart[thread];
            rs.n = tstart[thread + 1] - tstart[thread];
            if (group_rows(o->base, NULL, &bby, &bst) != 0) {
                free(bby);
                free(bst);
                goto oom;
            }
            brs.idx = bby + bst[bthread];
            brs.n = bst[bthread + 1] - bst[bthread];
        }
        rc = build_tree1(&b, &t1[0], &rs, &brs, 0);
        free(bby);
        free(bst);
        if (rc)
            goto oom;
        d->scopes[0].thread = thread;
        d->scopes[0].merged = thread == PROFKIT_NONE;
        nt = 1;
    } else {
        if (thread == PROFKIT_NONE) {
            rowset rs = { p, stack_node, vmap, NULL, p->n_samples };
            if (build_tree1(&b, &t1[0], &rs, NULL, 0) != 0)
                goto oom;
            d->scopes[0].thread = PROFKIT_NONE;
            d->scopes[0].merged = merged = 1;
            nt = 1;
            /* The merged tree's cap depends only on its size and how many
             * trees there are: cut it now, so that it is not kept whole
             * while the threads' trees are built. */
            size_t trees = 1;
            for (size_t th = 0; th < p->n_threads && !one_tree; th++)
                trees += tstart[th + 1] > tstart[th];
            trees += n_lg;
            size_t n0 = t1[0].n;
            for (size_t th = 0; th < p->n_threads && !one_tree && b.time0 == INT64_MAX; th++)
                if (p->n_samples && tstart[th + 1] - tstart[th] == p->n_samples) {
                    if (tree1_copy(&same, &t1[0], b.nv) != 0)
                        goto oom;
                    have_same = 1;
                }
            d->n_scopes = 1;
            if (pk_flame_shrink(&d->scopes[0], &t1[0], b.nv,
                                pk_flame_merged_cap(n0, trees, o->max_nodes)) != 0)
                goto oom;
            pk_flame_tree1_free(&t1[0]);
            t1[0].n = n0;
            shrunk0 = 1;
        }
        for (size_t th = 0; th < p->n_threads && !(one_tree && nt); th++) {
            size_t n = tstart[th + 1] - tstart[th];
            if ((thread != PROFKIT_NONE && th != thread) || (thread == PROFKIT_NONE && n == 0))
                continue;
            /* a thread with every row reads them all, in order: as the
             * merged scope does, without marking its nodes */
            rowset rs = { p, stack_node, vmap, n == p->n_samples ? NULL : by_thread + tstart[th], n };
            b.ss_thread = (uint32_t)th;
            if (have_same && n == p->n_samples) {
                t1[nt] = same;
                have_same = 0;
            } else if (build_tree1(&b, &t1[nt], &rs, NULL, 1) != 0) {
                goto oom;
            }
            b.ss_thread = PROFKIT_NONE;
            d->scopes[nt].thread = (uint32_t)th;
            nt++;
        }
        stack_sums_free(&ss);
        b.ss = NULL;
        /* each label value's rows, over every thread */
        for (size_t i = 0; i < n_lg; i++) {
            rowset rs = { p, stack_node, vmap, lg[i].rows, lg[i].n };
            if (build_tree1(&b, &t1[nt], &rs, NULL, 0) != 0)
                goto oom;
            flame_scope *sc = &d->scopes[nt++];
            sc->thread = lg[i].thread;
            sc->label = 1;
            sc->lnum = lg[i].is_num;
            sc->lgroup = lg[i].group_only;
            if (sc->lgroup) {
                sc->lbucket = pk_strtab_get(&d->strings, lg[i].bucket);
                sc->lbucket_len = pk_strtab_len(&d->strings, lg[i].bucket);
            }
            sc->llo = lg[i].lo;
            sc->lhi = lg[i].hi;
            sc->lunit = pk_strtab_get(&d->strings, lg[i].unit);
            sc->lframe = pk_strtab_get(&d->strings, lg[i].frame);
            sc->lframe_len = pk_strtab_len(&d->strings, lg[i].frame);
            sc->lkey = pk_str(p, lg[i].key);
            sc->lkey_len = pk_strtab_len(&p->strings, lg[i].key);
            sc->lvalue = pk_strtab_get(&d->strings, lg[i].value);
            sc->lvalue_len = pk_strtab_len(&d->strings, lg[i].value);
        }
    }
    if (pk_flame_share_caps(caps, t1, nt, merged, o->max_nodes) != 0)
        goto oom;
    for (size_t i = shrunk0; i < nt; i++) {
        d->n_scopes = i + 1;
        if (pk_flame_shrink(&d->scopes[i], &t1[i], b.nv, caps[i]) != 0)
            goto oom;
    }
    rc = 0;
    goto done;
oom:
    rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory building the flame graph");
done:
    if (t1)
        for (size_t i = 0; i < max_scopes; i++)
            pk_flame_tree1_free(&t1[i]);
    if (have_same)
        pk_flame_tree1_free(&same);
    free(t1);
    free(caps);
    free(vmap);
    free(bvmap);
    free(by_thread);
    free(tstart);
    free(b.mark);
    free(b.touched);
    free(b.seen);
    free(b.bseen);
    stack_sums_free(&ss);
    label_groups_free(lg, n_lg);
    work_free(&b.work);
    pk_ltree_free(&b.tree);
    return rc;
}
