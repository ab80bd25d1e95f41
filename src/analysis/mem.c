/* mem.c: allocations, frees and leaks per thread and call path; see analysis.h. */
#include "analysis/analysis.h"

#include <stdlib.h>

enum { M_AOBJ, M_ASPACE, M_FOBJ, M_IOBJ, M_ISPACE, M_N };
static const char *const mem_types[M_N] = { "alloc_objects", "alloc_space", "free_objects",
                                            "inuse_objects", "inuse_space" };


static void add_row(pk_mem_row *r, const int64_t *v)
{
    pk_sat_addto(&r->alloc_objects, v[M_AOBJ]);
    pk_sat_addto(&r->alloc_space, v[M_ASPACE]);
    pk_sat_addto(&r->free_objects, v[M_FOBJ]);
    pk_sat_addto(&r->inuse_objects, v[M_IOBJ]);
    pk_sat_addto(&r->inuse_space, v[M_ISPACE]);
}

void pk_mem_free(pk_mem *m)
{
    free(m->threads);
    free(m->paths);
    pk_ltree_free(&m->tree);
    memset(m, 0, sizeof(*m));
}

size_t pk_mem_path_label(const pk_mem *m, uint32_t key, char **buf, size_t *cap)
{
    const pk_ltree *t = &m->tree;
    size_t total = 0;
    for (uint32_t n = key; n != 0; n = t->parent[n])
        total += pk_strtab_len(&t->labels, t->key[n]) + 1;
    if (pk_grow((void **)buf, cap, total + 1, 1) != 0)
        return (size_t)-1;
    /* Nodes come leaf first: fill from the end. */
    size_t end = total ? total - 1 : 0;
    (*buf)[end] = '\0';
    for (uint32_t n = key; n != 0; n = t->parent[n]) {
        size_t len = pk_strtab_len(&t->labels, t->key[n]);
        end -= len;
        memcpy(*buf + end, pk_strtab_get(&t->labels, t->key[n]), len);
        if (end)
            (*buf)[--end] = ';';
    }
    return total ? total - 1 : 0;
}

int pk_mem_compute(pk_mem *m, const profkit_profile *p, uint32_t thread, int by_line,
                        profkit_error *err)
{
    memset(m, 0, sizeof(*m));
    m->unmatched_frees = -1;
    uint32_t vt[M_N];
    int any = 0;
    for (int i = 0; i < M_N; i++) {
        vt[i] = PROFKIT_NONE;
        for (size_t v = 0; v < p->n_value_types; v++)
            if (strcmp(pk_str(p, p->value_types[v].type), mem_types[i]) == 0)
                vt[i] = (uint32_t)v;
        any |= vt[i] != PROFKIT_NONE;
    }
    if (!any)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                 "the profile has no memory values (alloc_objects, alloc_space, "
                                 "free_objects, inuse_objects, inuse_space)");
    const char *um = pk_meta_get(p, "unmatched_frees");
    if (um && *um >= '0' && *um <= '9')
        m->unmatched_frees = (int64_t)strtoll(um, NULL, 10);

    int rc = PROFKIT_ENOMEM;
    int64_t *self[M_N] = { NULL };
    if (!(m->threads = calloc(p->n_threads ? p->n_threads : 1, sizeof(pk_mem_row))))
        goto done;
    m->n_threads = p->n_threads;
    for (size_t t = 0; t < p->n_threads; t++)
        m->threads[t].key = (uint32_t)t;
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t t = p->sample_thread[r];
        if (thread != PROFKIT_NONE && t != thread)
            continue;
        int64_t v[M_N];
        for (int i = 0; i < M_N; i++)
            v[i] = vt[i] == PROFKIT_NONE ? 0 : p->sample_values[r * p->n_value_types + vt[i]];
        add_row(&m->total, v);
        if (t < p->n_threads)
            add_row(&m->threads[t], v);
    }
    /* One call tree (its nodes do not depend on the value), and each
     * value's self per node: that path's value. A path's free_objects are
     * the frees made on it (as `traces --value free_objects` shows them);
     * the paths listed are the allocating ones. */
    for (int i = 0; i < M_N; i++) {
        if (vt[i] == PROFKIT_NONE)
            continue;
        if (!m->tree.n) {
            pk_ltree_options lo = { .by = PROFKIT_BY_FUNCTION, .files = 1, .by_line = by_line, .sanitize = 1,
                                    .merge = 1 };
            if ((rc = pk_ltree_build(&m->tree, p, &lo, err)) != 0)
                goto done;
            rc = PROFKIT_ENOMEM;
        }
        if (!(self[i] = pk_ltree_self(&m->tree, vt[i], thread)))
            goto done;
    }
    if (!(m->paths = calloc(m->tree.n ? m->tree.n : 1, sizeof(pk_mem_row))))
        goto done;
    for (size_t n = 1; n < m->tree.n; n++) {
        int64_t v[M_N] = { 0 };
        for (int i = 0; i < M_N; i++)
            v[i] = self[i] ? self[i][n] : 0;
        if (!v[M_AOBJ] && !v[M_ASPACE] && !v[M_IOBJ] && !v[M_ISPACE])
            continue;
        pk_mem_row *row = &m->paths[m->n_paths++];
        row->key = (uint32_t)n;
        add_row(row, v);
    }
    rc = 0;
done:
    for (int i = 0; i < M_N; i++)
        free(self[i]);
    if (rc) {
        pk_mem_free(m);
        pk_error_set(err, rc, NULL, -1, "out of memory computing the memory report");
    }
    return rc;
}
