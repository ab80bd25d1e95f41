/* tree.c: the call tree in the order `profkit tree` prints it; see analysis.h. */
#include "analysis/analysis.h"

#include <stdlib.h>

struct order_ctx {
    const pk_ltree *t;
};

/* Bigger totals first; equal totals by label bytes (the ltree's own order). */
static int by_total(const void *ctx, uint32_t a, uint32_t b)
{
    const pk_ltree *t = ((const struct order_ctx *)ctx)->t;
    if (t->total[a] != t->total[b])
        return t->total[a] > t->total[b] ? -1 : 1;
    return 0; /* stable sort keeps the label order */
}

static int64_t abs64(int64_t v) { return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v; }

int pk_tree_walk(const pk_ltree *t, size_t max_depth, double min_pct, uint32_t **nodes,
                      uint32_t **depths, size_t *n)
{
    *nodes = NULL;
    *depths = NULL;
    *n = 0;
    uint32_t *kids = NULL, *out = NULL, *dep = NULL, *stack = NULL, *sdep = NULL;
    int rc = PROFKIT_ENOMEM;
    size_t nn = t->n ? t->n : 1;
    if (!(kids = malloc(nn * sizeof(uint32_t))) || !(out = malloc(nn * sizeof(uint32_t))) ||
        !(dep = malloc(nn * sizeof(uint32_t))) || !(stack = malloc(nn * sizeof(uint32_t))) ||
        !(sdep = malloc(nn * sizeof(uint32_t))))
        goto done;
    if (t->n)
        memcpy(kids, t->children, (t->n - 1) * sizeof(uint32_t));
    struct order_ctx c = { t };
    for (size_t i = 0; i < t->n; i++) {
        size_t a = t->child_start[i], b = t->child_start[i + 1];
        if (b - a > 1 && pk_sort_u32(kids + a, b - a, by_total, &c) != 0)
            goto done;
    }
    double base = (double)abs64(t->grand_total);
    size_t sp = 0, count = 0;
    /* Push the root's children in reverse so the first pops first. */
    if (t->n) {
        for (size_t k = t->child_start[1]; k-- > t->child_start[0];) {
            stack[sp] = kids[k];
            sdep[sp++] = 1;
        }
    }
    while (sp) {
        uint32_t v = stack[--sp], d = sdep[sp];
        if (max_depth && d > max_depth)
            continue;
        if (t->total[v] == 0 && t->self[v] == 0)
            continue;
        if (min_pct > 0 && base > 0 && 100.0 * (double)abs64(t->total[v]) / base < min_pct)
            continue;
        out[count] = v;
        dep[count++] = d;
        for (size_t k = t->child_start[v + 1]; k-- > t->child_start[v];) {
            stack[sp] = kids[k];
            sdep[sp++] = d + 1;
        }
    }
    *nodes = out;
    *depths = dep;
    *n = count;
    out = dep = NULL;
    rc = 0;
done:
    free(kids);
    free(out);
    free(dep);
    free(stack);
    free(sdep);
    return rc;
}

int pk_tree_threads(const profkit_profile *p, uint32_t value, uint32_t thread, uint32_t **threads,
                    size_t *n, int64_t *total)
{
    *threads = NULL;
    *n = 0;
    *total = 0;
    int64_t *sum = calloc(p->n_threads + 1, sizeof(int64_t));
    uint32_t *out = malloc((p->n_threads + 1) * sizeof(uint32_t));
    if (!sum || !out) {
        free(sum);
        free(out);
        return PROFKIT_ENOMEM;
    }
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t t = p->sample_thread[r];
        int64_t x = p->sample_values[r * p->n_value_types + value];
        *total = pk_sat_add(*total, x);
        int64_t *st = &sum[t < p->n_threads ? t : p->n_threads];
        *st = pk_sat_add(*st, x);
    }
    if (thread != PROFKIT_NONE || p->n_threads == 0 || sum[p->n_threads] != 0) {
        /* One thread asked for, or rows whose thread is unknown: one tree. */
        out[(*n)++] = thread;
    } else {
        for (uint32_t t = 0; t < p->n_threads; t++)
            if (sum[t] != 0)
                out[(*n)++] = t;
    }
    free(sum);
    *threads = out;
    return 0;
}
