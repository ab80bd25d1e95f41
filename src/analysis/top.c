/* top.c: flat and cumulative values per function, file, line, address or module. */
#include "analysis/analysis.h"

#include <stdlib.h>

void pk_top_free(pk_top *t)
{
    pk_strtab_free(&t->keys);
    free(t->rows);
    free(t->frame_key);
    free(t->key_frame);
    memset(t, 0, sizeof(*t));
}

/* ---------------------------------------------- flat and cum per key */

void pk_keysums_free(pk_keysums *s)
{
    free(s->flat);
    free(s->cum);
    free(s->edges);
    free(s->slot);
    memset(s, 0, sizeof(*s));
}

static uint64_t edge_hash(uint32_t a, uint32_t b) { return pk_hash_u64(((uint64_t)a << 32) | b); }

static int edge_rehash(pk_keysums *s)
{
    size_t n = s->n_slots ? s->n_slots * 2 : 64;
    uint32_t *sl = calloc(n, sizeof(uint32_t));
    if (!sl)
        return -1;
    for (size_t i = 0; i < s->n_edges; i++) {
        size_t h = (size_t)edge_hash(s->edges[i].from, s->edges[i].to) & (n - 1);
        while (sl[h])
            h = (h + 1) & (n - 1);
        sl[h] = (uint32_t)i + 1;
    }
    free(s->slot);
    s->slot = sl;
    s->n_slots = n;
    return 0;
}

/* The index of edge a -> b, added with weight 0 when new; PROFKIT_NONE
 * when out of memory. */
static uint32_t edge_get(pk_keysums *s, uint32_t a, uint32_t b)
{
    if ((s->n_edges + 1) * 2 > s->n_slots && edge_rehash(s) != 0)
        return PROFKIT_NONE;
    size_t h = (size_t)edge_hash(a, b) & (s->n_slots - 1);
    while (s->slot[h]) {
        const pk_key_edge *e = &s->edges[s->slot[h] - 1];
        if (e->from == a && e->to == b)
            return s->slot[h] - 1;
        h = (h + 1) & (s->n_slots - 1);
    }
    if (s->n_edges >= PROFKIT_NONE - 1 || PK_VEC_RESERVE(s->edges, s->n_edges, s->cap_edges, 1) != 0)
        return PROFKIT_NONE;
    pk_key_edge *e = &s->edges[s->n_edges];
    e->from = a;
    e->to = b;
    e->weight = 0;
    e->mark = 0;
    s->slot[h] = (uint32_t)++s->n_edges;
    return (uint32_t)s->n_edges - 1;
}

/* The edge into node u (from its parent's key), when counted: NONE when
 * u's parent is the root, the keys are equal, or neither end is asked
 * for; *oom on failure. */
static uint32_t node_edge(pk_keysums *s, const pk_ltree *t, uint32_t u, uint32_t k, int *oom)
{
    uint32_t up = pk_ltree_parent(t, u);
    if (up == 0)
        return PROFKIT_NONE;
    uint32_t c = pk_ltree_key(t, up);
    if (c == k || !(s->edge_keys[c] || s->edge_keys[k]))
        return PROFKIT_NONE;
    uint32_t e = edge_get(s, c, k);
    if (e == PROFKIT_NONE)
        *oom = 1;
    return e;
}

static void sums_clear(pk_keysums *s)
{
    memset(s->flat, 0, s->n * sizeof(int64_t));
    memset(s->cum, 0, s->n * sizeof(int64_t));
    s->total = s->root = 0;
    s->n_edges = 0;
    if (s->slot)
        memset(s->slot, 0, s->n_slots * sizeof(uint32_t));
}

/* The depth of node u, or cap when it is deeper. */
static uint64_t depth_upto(const pk_ltree *t, uint32_t u, uint64_t cap)
{
    uint64_t d = 0;
    for (; u != 0 && d < cap; u = pk_ltree_parent(t, u))
        d++;
    return d;
}

/*
 * Whether the walks up would likely stay within the budget: the mean
 * depth of a few items spread over them (rows, or the nodes with a value),
 * times their number. A guess, so the walks still stop at the budget; it
 * spares most of the walking a deep profile would do before they stop.
 */
#define SAMPLES 64
static int walks_look_cheap(const pk_ltree *t, const int64_t *self, uint64_t budget)
{
    const profkit_profile *p = t->p;
    size_t m = self ? t->n : p->n_samples, count = 0;
    if (self) {
        for (size_t i = 1; i < m; i++)
            count += self[i] != 0;
    } else {
        count = m;
    }
    if (count == 0)
        return 1;
    uint64_t cap = budget / SAMPLES + 1, sum = 0, seen = 0;
    size_t from = 1; /* nodes before it were looked at: each is looked at once */
    for (size_t j = 0; j < SAMPLES; j++) {
        size_t i = (size_t)((uint64_t)j * m / SAMPLES);
        uint32_t u;
        if (self) {
            if (i < from)
                i = from;
            while (i < m && self[i] == 0)
                i++;
            if (i >= m)
                break;
            from = i + 1;
            u = (uint32_t)i;
        } else {
            if (i >= m)
                break;
            uint32_t st = p->sample_stack[i];
            if (st >= p->n_stacks)
                continue;
            u = pk_ltree_node(t, st);
        }
        uint64_t d = depth_upto(t, u, cap);
        if (d >= cap)
            return 0;
        sum += d;
        seen++;
    }
    return seen == 0 || (double)sum / (double)seen * (double)count <= (double)budget;
}

/*
 * The sums by walking up from each node with a value, each key (and edge)
 * counted once per walk: from each row's own node (self NULL: no array per
 * node), or from each node with a self value. Gives up (*over = 1) past
 * `budget` steps: the walks cost the depth of every node with a value,
 * which a deep chain with a value at every level makes quadratic.
 */
static int sums_walk(pk_keysums *s, const pk_ltree *t, const int64_t *self, uint32_t value,
                     uint32_t thread, uint64_t budget, int *over)
{
    const profkit_profile *p = t->p;
    size_t nv = p->n_value_types;
    uint32_t *stamp = calloc(s->n ? s->n : 1, sizeof(uint32_t));
    uint32_t cur = 0;
    int rc = PROFKIT_ENOMEM, oom = 0;
    if (!stamp)
        goto out;
    size_t m = self ? t->n : p->n_samples;
    for (size_t i = 0; i < m; i++) {
        uint32_t node;
        int64_t w;
        if (!self) {
            uint32_t st = p->sample_stack[i];
            if ((thread != PROFKIT_NONE && p->sample_thread[i] != thread) || st >= p->n_stacks)
                continue;
            w = p->sample_values[i * nv + value];
            node = pk_ltree_node(t, st);
        } else {
            node = (uint32_t)i;
            w = self[i];
        }
        if (w == 0)
            continue;
        if (node == 0) {
            pk_sat_addto(&s->root, w);
            continue;
        }
        if (++cur == 0) { /* the stamps wrapped: none is current */
            memset(stamp, 0, s->n * sizeof(uint32_t));
            for (size_t e = 0; e < s->n_edges; e++)
                s->edges[e].mark = 0;
            cur = 1;
        }
        pk_sat_addto(&s->total, w);
        pk_sat_addto(&s->flat[pk_ltree_key(t, node)], w);
        for (uint32_t u = node; u != 0; u = pk_ltree_parent(t, u)) {
            if (budget-- == 0) {
                *over = 1;
                rc = 0;
                goto out;
            }
            uint32_t k = pk_ltree_key(t, u);
            if (stamp[k] != cur) {
                stamp[k] = cur;
                pk_sat_addto(&s->cum[k], w);
            }
            if (s->edge_keys) {
                uint32_t e = node_edge(s, t, u, k, &oom);
                if (oom)
                    goto out;
                if (e != PROFKIT_NONE && s->edges[e].mark != cur) {
                    s->edges[e].mark = cur;
                    pk_sat_addto(&s->edges[e].weight, w);
                }
            }
        }
    }
    rc = 0;
out:
    free(stamp);
    return rc;
}

/*
 * The sums in one depth-first walk, whatever the depth: self values sit on
 * the nodes, a node's total is its subtree's sum (children before parents),
 * and a key's cumulative value is the sum of the totals of its topmost
 * nodes, those with no ancestor of the same key (recursion counts once);
 * an edge's, of its topmost places. The walk keeps, per key (and edge),
 * how many nodes of the current path have it. Two arrays per node (the
 * totals, in place of the self values `tot` holds, and the children as
 * lists), so only when the walks up cost more.
 */
static int sums_dfs(pk_keysums *s, const pk_ltree *t, int64_t *tot)
{
    size_t n = t->n;
    int rc = PROFKIT_ENOMEM, oom = 0;
    uint32_t *first = NULL, *next = NULL, *on_path = NULL, *path = NULL, *pedge = NULL;
    size_t cap_path = 0, cap_pedge = 0;
    if (!(first = malloc((n ? n : 1) * sizeof(uint32_t))) ||
        !(next = malloc((n ? n : 1) * sizeof(uint32_t))) ||
        !(on_path = calloc(s->n ? s->n : 1, sizeof(uint32_t))))
        goto out;
    s->root = n ? tot[0] : 0;
    for (size_t i = 1; i < n; i++)
        if (tot[i]) {
            pk_sat_addto(&s->total, tot[i]);
            pk_sat_addto(&s->flat[pk_ltree_key(t, (uint32_t)i)], tot[i]);
        }
    /* totals in place of the self values; children as linked lists */
    for (size_t i = 0; i < n; i++)
        first[i] = PROFKIT_NONE;
    for (size_t i = n; i-- > 1;) {
        uint32_t par = pk_ltree_parent(t, (uint32_t)i);
        pk_sat_addto(&tot[par], tot[i]);
        next[i] = first[par];
        first[par] = (uint32_t)i;
    }
    /* path[0..d) is the current path below the root; first[] is consumed as
     * each node's next child to visit. */
    size_t d = 0;
    uint32_t child = n ? first[0] : PROFKIT_NONE;
    for (;;) {
        if (child != PROFKIT_NONE) {
            uint32_t u = child, k = pk_ltree_key(t, u), e = PROFKIT_NONE;
            on_path[k]++;
            if (s->edge_keys) {
                if ((e = node_edge(s, t, u, k, &oom)) == PROFKIT_NONE && oom)
                    goto out;
                if (e != PROFKIT_NONE)
                    s->edges[e].mark++;
                if (PK_VEC_RESERVE(pedge, d, cap_pedge, 1) != 0)
                    goto out;
                pedge[d] = e;
            }
            if (PK_VEC_RESERVE(path, d, cap_path, 1) != 0)
                goto out;
            path[d++] = u;
            child = first[u];
            first[u] = PROFKIT_NONE;
            continue;
        }
        if (d == 0)
            break;
        uint32_t u = path[--d], k = pk_ltree_key(t, u);
        if (--on_path[k] == 0) /* no ancestor has this key: topmost */
            pk_sat_addto(&s->cum[k], tot[u]);
        if (s->edge_keys && pedge[d] != PROFKIT_NONE && --s->edges[pedge[d]].mark == 0)
            pk_sat_addto(&s->edges[pedge[d]].weight, tot[u]);
        child = next[u];
    }
    rc = 0;
out:
    free(first);
    free(next);
    free(on_path);
    free(path);
    free(pedge);
    return rc;
}

int pk_keysums_compute(pk_keysums *s, const pk_ltree *t, uint32_t value, uint32_t thread,
                       const unsigned char *edge_keys)
{
    return pk_keysums_compute_within(s, t, value, thread, edge_keys, 0, 1);
}

int pk_keysums_compute_within(pk_keysums *s, const pk_ltree *t, uint32_t value, uint32_t thread,
                              const unsigned char *edge_keys, uint64_t budget, int guess)
{
    memset(s, 0, sizeof(*s));
    s->n = t->n_keys;
    s->edge_keys = edge_keys;
    if (!(s->flat = calloc(s->n ? s->n : 1, sizeof(int64_t))) ||
        !(s->cum = calloc(s->n ? s->n : 1, sizeof(int64_t))))
        goto oom;
    /* The walks up while they cost a few steps per node and row, which
     * the usual profile does (each row from its node when the rows are
     * fewer than the nodes: no array per node); the depth-first walk past
     * that. */
    if (budget == 0)
        budget = 4 * (uint64_t)t->n + 2 * (uint64_t)t->p->n_samples + 4096;
    int64_t *self = NULL;
    int over = 0;
    if (t->p->n_samples > t->n && !(self = pk_ltree_self(t, value, thread)))
        goto oom;
    if (guess && !walks_look_cheap(t, self, budget))
        over = 1;
    else if (sums_walk(s, t, self, value, thread, budget, &over) != 0)
        goto oom_self;
    if (over) {
        sums_clear(s);
        if ((!self && !(self = pk_ltree_self(t, value, thread))) || sums_dfs(s, t, self) != 0)
            goto oom_self;
    }
    free(self);
    return 0;
oom_self:
    free(self);
oom:
    pk_keysums_free(s);
    return PROFKIT_ENOMEM;
}

/* ---------------------------------------------------------------- top */

static int top_from_sums(pk_top *t, const pk_keysums *s)
{
    t->n = s->n;
    if (!(t->rows = calloc(t->n ? t->n : 1, sizeof(*t->rows))))
        return PROFKIT_ENOMEM;
    for (size_t k = 0; k < t->n; k++) {
        t->rows[k].key = (uint32_t)k;
        t->rows[k].flat = s->flat[k];
        t->rows[k].cum = s->cum[k];
    }
    t->total = pk_sat_add(s->total, s->root); /* samples with an empty stack count in the total */
    return 0;
}

int pk_top_compute_values(pk_top *tops, const profkit_profile *p, const uint32_t *values,
                          size_t n, uint32_t thread, profkit_key by, size_t keys_in,
                          profkit_error *err)
{
    memset(tops, 0, n * sizeof(*tops));
    pk_ltree tree;
    pk_ltree_options lo = { .by = by, .files = 1 }; /* a function is its name and file */
    int rc = pk_ltree_build(&tree, p, &lo, err);
    if (rc)
        return rc;
    rc = PROFKIT_ENOMEM;
    /* Key 0 is "" (the labels' own); it only names frames without any
     * label, which cannot happen: labels fall back to the address. */
    for (size_t i = 0; i < n; i++) {
        pk_keysums s;
        if (pk_keysums_compute(&s, &tree, values[i], thread, NULL) != 0)
            goto done;
        int r = top_from_sums(&tops[i], &s);
        pk_keysums_free(&s);
        if (r != 0)
            goto done;
    }
    if (keys_in < n) {
        tops[keys_in].keys = tree.labels;
        tops[keys_in].frame_key = tree.frame_key;
        tops[keys_in].key_frame = tree.key_frame;
        memset(&tree.labels, 0, sizeof(tree.labels));
        tree.frame_key = NULL;
        tree.key_frame = NULL;
    }
    rc = 0;
done:
    pk_ltree_free(&tree);
    if (rc) {
        for (size_t i = 0; i < n; i++)
            pk_top_free(&tops[i]);
        pk_error_set(err, rc, NULL, -1, "out of memory computing top");
    }
    return rc;
}

int pk_top_compute(pk_top *t, const profkit_profile *p, uint32_t value, uint32_t thread,
                   profkit_key by, profkit_error *err)
{
    return pk_top_compute_values(t, p, &value, 1, thread, by, 0, err);
}

struct sort_ctx {
    const pk_top *t;
    int by_cum;
};

static int row_cmp(const void *ctx, uint32_t a, uint32_t b)
{
    const struct sort_ctx *c = ctx;
    const pk_top_row *x = &c->t->rows[a], *y = &c->t->rows[b];
    int64_t vx = c->by_cum ? x->cum : x->flat, vy = c->by_cum ? y->cum : y->flat;
    if (vx != vy)
        return vx > vy ? -1 : 1;
    int64_t wx = c->by_cum ? x->flat : x->cum, wy = c->by_cum ? y->flat : y->cum;
    if (wx != wy)
        return wx > wy ? -1 : 1;
    return strcmp(pk_strtab_get(&c->t->keys, x->key), pk_strtab_get(&c->t->keys, y->key));
}

int pk_top_sort(const pk_top *t, uint32_t *order, int by_cum)
{
    for (size_t i = 0; i < t->n; i++)
        order[i] = (uint32_t)i;
    struct sort_ctx c = { t, by_cum };
    return pk_sort_u32(order, t->n, row_cmp, &c);
}

/* Max-heap of row indexes by row_cmp (the row that sorts last on top). */
static void heap_down(uint32_t *h, size_t n, size_t i, const struct sort_ctx *c)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && row_cmp(c, h[l], h[m]) > 0)
            m = l;
        if (l + 1 < n && row_cmp(c, h[l + 1], h[m]) > 0)
            m = l + 1;
        if (m == i)
            return;
        uint32_t x = h[i];
        h[i] = h[m];
        h[m] = x;
        i = m;
    }
}

int pk_top_sort_first(const pk_top *t, uint32_t *order, int by_cum, size_t first)
{
    size_t n = t->n;
    if (first >= n / 4)
        return pk_top_sort(t, order, by_cum);
    struct sort_ctx c = { t, by_cum };
    /* order[0..first) is the heap of the best rows seen so far; a row that
     * sorts before its top replaces the top, which goes to the back part. */
    size_t back = first;
    for (size_t i = 0; i < first; i++)
        order[i] = (uint32_t)i;
    for (size_t i = first / 2; i-- > 0;)
        heap_down(order, first, i, &c);
    for (size_t i = first; i < n; i++) {
        uint32_t x = (uint32_t)i;
        if (first > 0 && row_cmp(&c, x, order[0]) < 0) {
            uint32_t out = order[0];
            order[0] = x;
            heap_down(order, first, 0, &c);
            x = out;
        }
        order[back++] = x;
    }
    return pk_sort_u32(order, first, row_cmp, &c);
}

