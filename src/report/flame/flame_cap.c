/*
 * flame_cap.c: --max-nodes. Each tree gets a share of the cap, and a tree
 * over its share keeps its most important nodes, the rest merged into one
 * "(other)" per parent (docs/viewer.md).
 */
#include "report/flame/flame_tree1.h"

#include <math.h>
#include <stdlib.h>

void pk_flame_tree1_free(tree1 *t)
{
    free(t->parent);
    free(t->func);
    free(t->self);
    free(t->bself);
    free(t->run_start);
    free(t->run_node);
    free(t->samp_time);
    free(t->samp_node);
    free(t->samp_row);
    free(t->inl);
    free(t->inlv);
    memset(t, 0, sizeof(*t));
}

struct imp_ctx {
    const double *imp;
};

static int imp_cmp(const void *ctx, uint32_t a, uint32_t b)
{
    const double *imp = ((const struct imp_ctx *)ctx)->imp;
    if (imp[a] != imp[b])
        return imp[a] > imp[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

/*
 * The scope s from tree 1 in at most `cap` nodes (0 = no cap), "(other)"
 * nodes counted: nodes are taken by importance (the largest share of the
 * scope's total over the value types, never more than the parent's), each
 * one's children that were not taken merge into its "(other)".
 */
int pk_flame_shrink(flame_scope *s, tree1 *t, size_t nv, size_t cap)
{
    size_t n = t->n;
    int rc = PROFKIT_ENOMEM;
    int64_t *tot = NULL, *btot = NULL;
    double *imp = NULL;
    uint32_t *order = NULL, *pending = NULL, *out = NULL, *other = NULL;
    uint8_t *sel = NULL;
    if (cap == 0 || n <= cap) {
        s->n = n;
        s->parent = t->parent;
        s->func = t->func;
        s->self = t->self;
        s->base_self = t->bself;
        s->n_runs = t->n_runs;
        s->run_start = t->run_start;
        s->run_node = t->run_node;
        s->run_end = t->run_end;
        s->timed = t->timed;
        s->n_samp = t->n_samp;
        s->samp_time = t->samp_time;
        s->samp_node = t->samp_node;
        s->samp_row = t->samp_row;
        s->inl = t->inl;
        s->inlv = t->inlv;
        memset(t, 0, sizeof(*t));
        return 0;
    }
    if (cap < 2)
        cap = 2;
    size_t nvn = n * (nv ? nv : 1); /* tree 1's arrays exist, so this fits */
    if (!(tot = malloc(nvn * sizeof(int64_t))) || (t->bself && !(btot = malloc(nvn * sizeof(int64_t)))) ||
        !(imp = malloc(n * sizeof(double))) || !(order = malloc(n * sizeof(uint32_t))) ||
        !(pending = calloc(n, sizeof(uint32_t))) || !(out = malloc(n * sizeof(uint32_t))) ||
        !(other = malloc(n * sizeof(uint32_t))) || !(sel = calloc(n, 1)))
        goto done;
    memcpy(tot, t->self, nvn * sizeof(int64_t));
    if (btot)
        memcpy(btot, t->bself, nvn * sizeof(int64_t));
    for (size_t v = 0; v < nv; v++)
        for (size_t i = n; i-- > 1;) {
            pk_sat_addto(&tot[v * n + (size_t)t->parent[i]], tot[v * n + i]);
            if (btot)
                pk_sat_addto(&btot[v * n + (size_t)t->parent[i]], btot[v * n + i]);
        }
    imp[0] = INFINITY;
    size_t nc = 0;
    for (size_t i = 1; i < n; i++) {
        double m = 0;
        for (size_t v = 0; v < nv; v++) {
            if (tot[v * n])
                m = fmax(m, fabs((double)tot[v * n + i]) / fabs((double)tot[v * n]));
            if (btot && btot[v * n])
                m = fmax(m, fabs((double)btot[v * n + i]) / fabs((double)btot[v * n]));
        }
        imp[i] = fmin(m, imp[t->parent[i]]);
        pending[t->parent[i]]++;
        if (t->func[i] != FLAME_OTHER)
            order[nc++] = (uint32_t)i;
    }
    struct imp_ctx ic = { imp };
    if (pk_sort_u32(order, nc, imp_cmp, &ic) != 0)
        goto done;
    /* Parents sort before their children (importance never grows downwards,
     * ties go to the smaller index), so each node taken has its parent. */
    sel[0] = 1;
    size_t count = 1 + (pending[0] > 0);
    for (size_t j = 0; j < nc; j++) {
        uint32_t c = order[j], p = (uint32_t)t->parent[c];
        if (!sel[p])
            continue;
        size_t add = 1 + (pending[c] > 0), drop = pending[p] == 1;
        if (count + add - drop > cap)
            break;
        sel[c] = 1;
        pending[p]--;
        count += add - drop;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        out[i] = sel[i] ? (uint32_t)m++ : PROFKIT_NONE;
    for (size_t i = 0; i < n; i++)
        other[i] = sel[i] && pending[i] ? (uint32_t)m++ : PROFKIT_NONE;
    s->n = m;
    if (!(s->parent = malloc(m * sizeof(int32_t))) || !(s->func = malloc(m * sizeof(int32_t))) ||
        !(s->self = calloc(m * (nv ? nv : 1), sizeof(int64_t))) ||
        (btot && !(s->base_self = calloc(m * (nv ? nv : 1), sizeof(int64_t)))) ||
        (t->inl && !(s->inl = calloc(m, 1))) || (t->inlv && !(s->inlv = calloc(m * nv, 1))))
        goto done;
    for (size_t i = 0; i < n; i++) {
        if (sel[i]) {
            uint32_t o = out[i];
            s->parent[o] = i ? (int32_t)out[t->parent[i]] : -1;
            s->func[o] = t->func[i];
            if (t->inl)
                s->inl[o] = t->inl[i];
            for (size_t v = 0; t->inlv && v < nv; v++)
                s->inlv[v * m + o] = t->inlv[v * n + i];
            for (size_t v = 0; v < nv; v++) {
                s->self[v * m + o] = t->self[v * n + i];
                if (btot)
                    s->base_self[v * m + o] = t->bself[v * n + i];
            }
            if (other[i] != PROFKIT_NONE) {
                s->parent[other[i]] = (int32_t)o;
                s->func[other[i]] = FLAME_OTHER;
            }
            out[i] = o;
        } else {
            uint32_t p = (uint32_t)t->parent[i];
            if (sel[p]) {
                for (size_t v = 0; v < nv; v++) {
                    pk_sat_addto(&s->self[v * m + other[p]], tot[v * n + i]);
                    if (btot)
                        pk_sat_addto(&s->base_self[v * m + other[p]], btot[v * n + i]);
                }
                out[i] = other[p];
            } else {
                out[i] = out[p];
            }
        }
    }
    /* Runs follow their nodes; runs that now share a node join. */
    s->run_end = t->run_end;
    s->timed = t->timed;
    s->run_start = t->run_start;
    s->run_node = t->run_node;
    t->run_start = NULL;
    t->run_node = NULL;
    for (size_t r = 0; r < t->n_runs; r++) {
        uint32_t node = out[s->run_node[r]];
        if (s->n_runs && s->run_node[s->n_runs - 1] == node)
            continue;
        s->run_start[s->n_runs] = s->run_start[r];
        s->run_node[s->n_runs++] = node;
    }
    /* samples follow their nodes too */
    s->n_samp = t->n_samp;
    s->samp_time = t->samp_time;
    s->samp_node = t->samp_node;
    s->samp_row = t->samp_row;
    t->samp_time = NULL;
    t->samp_node = t->samp_row = NULL;
    for (size_t r = 0; r < s->n_samp; r++)
        s->samp_node[r] = out[s->samp_node[r]];
    rc = 0;
done:
    free(tot);
    free(btot);
    free(imp);
    free(order);
    free(pending);
    free(out);
    free(other);
    free(sel);
    return rc;
}

/* Caps per tree: the merged tree (index 0 when `merged`) gets up to half,
 * the others share the rest equally, a tree that needs less leaving its
 * share to the bigger ones; at least 2 each (a root and its "(other)"). */
struct size_ctx {
    const tree1 *t;
};

static int size_cmp(const void *ctx, uint32_t a, uint32_t b)
{
    const tree1 *t = ((const struct size_ctx *)ctx)->t;
    return t[a].n < t[b].n ? -1 : t[a].n > t[b].n;
}

size_t pk_flame_merged_cap(size_t n0, size_t trees, size_t max_nodes)
{
    if (max_nodes == 0 || trees == 0)
        return 0;
    if (max_nodes < 2 * trees)
        return 2;
    size_t cap;
    if (trees > 1) {
        /* half, leaving the others 2 each */
        size_t half = max_nodes / 2, room = max_nodes - 2 * (trees - 1);
        cap = n0 < half ? n0 : half;
        if (cap > room)
            cap = room;
    } else {
        cap = n0 < max_nodes ? n0 : max_nodes;
    }
    return cap < 2 ? 2 : cap;
}

int pk_flame_share_caps(size_t *cap, const tree1 *t, size_t n, int merged, size_t max_nodes)
{
    size_t left = max_nodes, first = 0;
    for (size_t i = 0; i < n; i++)
        cap[i] = 0;
    if (max_nodes == 0 || n == 0)
        return 0;
    if (max_nodes < 2 * n) {
        for (size_t i = 0; i < n; i++)
            cap[i] = 2;
        return 0;
    }
    if (merged && n > 1) {
        cap[0] = pk_flame_merged_cap(t[0].n, n, max_nodes);
        left -= cap[0];
        first = 1;
    }
    uint32_t *order = malloc(n * sizeof(uint32_t));
    if (!order)
        return PROFKIT_ENOMEM;
    size_t m = 0;
    for (size_t i = first; i < n; i++)
        order[m++] = (uint32_t)i;
    struct size_ctx sc = { t };
    if (pk_sort_u32(order, m, size_cmp, &sc) != 0) {
        free(order);
        return PROFKIT_ENOMEM;
    }
    for (size_t j = 0; j < m; j++) {
        size_t share = left / (m - j), i = order[j];
        cap[i] = t[i].n < share ? t[i].n : share;
        left -= cap[i];
    }
    for (size_t i = 0; i < n; i++)
        if (cap[i] < 2)
            cap[i] = 2;
    free(order);
    return 0;
}

