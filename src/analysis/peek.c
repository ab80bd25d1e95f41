/*
 * peek.c: each matching key's callers and callees, like pprof -peek; see
 * analysis.h. The sums are top's (flat, cum) over the call tree, with the
 * calls from or to a matching key counted beside them.
 */
#include "analysis/analysis.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

void pk_peek_free(pk_peek *k)
{
    pk_ltree_free(&k->tree);
    pk_keysums_free(&k->sums);
    free(k->match);
    free(k->order);
    memset(k, 0, sizeof(*k));
}

static int64_t abs64(int64_t v) { return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v; }

typedef struct sort_ctx {
    const pk_peek *k;
    int by_cum;
} sort_ctx;

static int cmp_key(const void *ctx, uint32_t a, uint32_t b)
{
    const sort_ctx *c = ctx;
    const pk_keysums *s = &c->k->sums;
    int64_t va = abs64(c->by_cum ? s->cum[a] : s->flat[a]);
    int64_t vb = abs64(c->by_cum ? s->cum[b] : s->flat[b]);
    if (va != vb)
        return va > vb ? -1 : 1;
    return strcmp(pk_ltree_label(&c->k->tree, a), pk_ltree_label(&c->k->tree, b));
}

/* Edges by |weight| descending, then caller, then callee (pprof's order). */
static int cmp_edge(const void *ctx, uint32_t a, uint32_t b)
{
    const pk_peek *k = ctx;
    const pk_key_edge *x = &k->sums.edges[a], *y = &k->sums.edges[b];
    int64_t va = abs64(x->weight), vb = abs64(y->weight);
    if (va != vb)
        return va > vb ? -1 : 1;
    int c = strcmp(pk_ltree_label(&k->tree, x->from), pk_ltree_label(&k->tree, y->from));
    return c ? c : strcmp(pk_ltree_label(&k->tree, x->to), pk_ltree_label(&k->tree, y->to));
}

int pk_peek_compute(pk_peek *k, const profkit_profile *p, uint32_t value, uint32_t thread,
                    profkit_key by, const char *pattern, int sort_cum, profkit_error *err)
{
    memset(k, 0, sizeof(*k));
    if (!pattern)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "no regular expression to match");
    regex_t re;
    int e = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
    if (e != 0) {
        char msg[256];
        regerror(e, &re, msg, sizeof(msg));
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "bad regular expression '%s': %s",
                            pattern, msg);
    }
    pk_ltree_options lo = { .by = by, .files = 1 };
    int rc = pk_ltree_build(&k->tree, p, &lo, err);
    if (rc) {
        regfree(&re);
        return rc;
    }
    size_t n = k->tree.n_keys;
    rc = PROFKIT_ENOMEM;
    if (!(k->match = calloc(n ? n : 1, 1)) || !(k->order = malloc((n ? n : 1) * sizeof(uint32_t))))
        goto done;
    for (size_t i = 1; i < n; i++)
        k->match[i] = regexec(&re, pk_ltree_label(&k->tree, (uint32_t)i), 0, NULL, 0) == 0;
    if (pk_keysums_compute(&k->sums, &k->tree, value, thread, k->match) != 0)
        goto done;
    for (uint32_t i = 1; i < n; i++)
        if (k->match[i] && (k->sums.flat[i] != 0 || k->sums.cum[i] != 0))
            k->order[k->n++] = i;
    sort_ctx sc = { k, sort_cum };
    if (pk_sort_u32(k->order, k->n, cmp_key, &sc) != 0)
        goto done;
    if (k->n == 0) {
        rc = pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "no %s matches '%s'", pk_key_name(by, 0),
                          pattern);
        regfree(&re);
        pk_peek_free(k);
        return rc;
    }
    rc = 0;
done:
    regfree(&re);
    if (rc) {
        pk_peek_free(k);
        pk_error_set(err, rc, NULL, -1, "out of memory");
    }
    return rc;
}

uint32_t *pk_peek_edges(const pk_peek *k, uint32_t key, int in, size_t *n)
{
    const pk_keysums *s = &k->sums;
    uint32_t *ids = malloc((s->n_edges ? s->n_edges : 1) * sizeof(uint32_t));
    *n = 0;
    if (!ids)
        return NULL;
    for (size_t i = 0; i < s->n_edges; i++)
        if ((in ? s->edges[i].to : s->edges[i].from) == key && s->edges[i].weight != 0)
            ids[(*n)++] = (uint32_t)i;
    if (pk_sort_u32(ids, *n, cmp_edge, k) != 0) {
        free(ids);
        return NULL;
    }
    return ids;
}
