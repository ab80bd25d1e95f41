/*
 * traces.c: each distinct stack with its value, like pprof -traces; see
 * analysis.h. pprof prints every sample of the profile in file order; the
 * samples whose stacks print alike (labels per `by`) are one node of the
 * merged call tree, so a trace is a node with a value of its own, and they
 * are sorted largest first, so the list answers "which stacks cost most".
 */
#include "analysis/analysis.h"

#include <stdlib.h>
#include <string.h>

void pk_traces_free(pk_traces *t)
{
    pk_ltree_free(&t->tree);
    free(t->order);
    memset(t, 0, sizeof(*t));
}

static int64_t abs64(int64_t v) { return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v; }

/* Largest |value| first, then the labels leaf first (a path that is a
 * prefix of the other, leaf first, sorts first). */
static int cmp_trace(const void *ctx, uint32_t a, uint32_t b)
{
    const pk_ltree *t = ctx;
    int64_t va = abs64(t->self[a]), vb = abs64(t->self[b]);
    if (va != vb)
        return va > vb ? -1 : 1;
    for (; a != 0 && b != 0; a = t->parent[a], b = t->parent[b]) {
        if (t->key[a] == t->key[b])
            continue;
        int c = strcmp(pk_ltree_label(t, t->key[a]), pk_ltree_label(t, t->key[b]));
        if (c)
            return c;
    }
    return a == b ? 0 : a == 0 ? -1 : 1;
}

int pk_traces_compute(pk_traces *t, const profkit_profile *p, uint32_t value, uint32_t thread,
                      profkit_key by, profkit_error *err)
{
    memset(t, 0, sizeof(*t));
    pk_ltree_options lo = { .by = by, .files = 1, .merge = 1, .values = 1, .value = value, .thread = thread };
    int rc = pk_ltree_build(&t->tree, p, &lo, err);
    if (rc)
        return rc;
    const pk_ltree *tr = &t->tree;
    if (!(t->order = malloc((tr->n ? tr->n : 1) * sizeof(uint32_t))))
        goto oom;
    for (uint32_t i = 1; i < tr->n; i++)
        if (tr->self[i] != 0) {
            t->order[t->n++] = i;
            pk_sat_addto(&t->total, tr->self[i]);
        }
    if (pk_sort_u32(t->order, t->n, cmp_trace, tr) != 0)
        goto oom;
    return 0;
oom:
    pk_traces_free(t);
    return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
}
