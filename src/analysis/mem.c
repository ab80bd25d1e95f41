/* mem.c: allocations, frees and leaks per thread and call path; see analysis.h. */
#include "analysis/analysis.h"

#include <stdlib.h>

enum { M_AOBJ, M_ASPACE, M_FOBJ, M_IOBJ, M_ISPACE, M_N };
static const char *const mem_types[M_N] = { "alloc_objects", "alloc_space", "free_objects",
                                            "inuse_objects", "inuse_space" };

/* Sums of another reader's values may not fit: saturate. */
static void sat(int64_t *a, int64_t b)
{
    if (__builtin_add_overflow(*a, b, a))
        *a = b > 0 ? INT64_MAX : INT64_MIN;
}

static void add_row(profkit_mem_row *r, const int64_t *v)
{
    sat(&r->alloc_objects, v[M_AOBJ]);
    sat(&r->alloc_space, v[M_ASPACE]);
    sat(&r->free_objects, v[M_FOBJ]);
    sat(&r->inuse_objects, v[M_IOBJ]);
    sat(&r->inuse_space, v[M_ISPACE]);
}

void profkit_mem_free(profkit_mem *m)
{
    free(m->threads);
    free(m->paths);
    profkit_strtab_free(&m->path_labels);
    memset(m, 0, sizeof(*m));
}

/* Appends the label path of stack s (root first, ';' between) to *buf. */
static int path_label(const profkit_profile *p, uint32_t s, int by_line, char **buf, size_t *cap,
                      size_t *len)
{
    char label[4096];
    *len = 0;
    /* Frames come leaf first; write them right to left from the end. */
    size_t total = 0;
    for (uint32_t c = s; c != 0; c = p->stacks[c].parent)
        total += profkit_frame_label(p, p->stacks[c].frame, by_line, label, sizeof(label)) + 1;
    if (profkit_grow((void **)buf, cap, total + 1, 1) != 0)
        return PROFKIT_ENOMEM;
    size_t end = total ? total - 1 : 0;
    (*buf)[end] = '\0';
    for (uint32_t c = s; c != 0; c = p->stacks[c].parent) {
        size_t n = profkit_frame_label(p, p->stacks[c].frame, by_line, label, sizeof(label));
        for (size_t i = 0; i < n; i++)
            if (label[i] == ';' || label[i] == '\n' || label[i] == '\r')
                label[i] = '_';
        end -= n;
        memcpy(*buf + end, label, n);
        if (end)
            (*buf)[--end] = ';';
    }
    *len = total ? total - 1 : 0;
    return 0;
}

int profkit_mem_compute(profkit_mem *m, const profkit_profile *p, uint32_t thread, int by_line,
                        profkit_error *err)
{
    memset(m, 0, sizeof(*m));
    m->unmatched_frees = -1;
    uint32_t vt[M_N];
    int any = 0;
    for (int i = 0; i < M_N; i++) {
        vt[i] = PROFKIT_NONE;
        for (size_t v = 0; v < p->n_value_types; v++)
            if (strcmp(profkit_str(p, p->value_types[v].type), mem_types[i]) == 0)
                vt[i] = (uint32_t)v;
        any |= vt[i] != PROFKIT_NONE;
    }
    if (!any)
        return profkit_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                 "the profile has no memory values (alloc_objects, alloc_space, "
                                 "free_objects, inuse_objects, inuse_space)");
    const char *um = profkit_meta_get(p, "unmatched_frees");
    if (um && *um >= '0' && *um <= '9')
        m->unmatched_frees = (int64_t)strtoll(um, NULL, 10);

    int rc = PROFKIT_ENOMEM;
    int64_t *per_stack = NULL; /* M_N sums per stack id */
    char *buf = NULL;
    size_t cap = 0, len, cap_paths = 0, cells;
    if (profkit_strtab_init(&m->path_labels) != 0 ||
        !(m->threads = calloc(p->n_threads ? p->n_threads : 1, sizeof(profkit_mem_row))) ||
        profkit_mul_size(p->n_stacks, M_N * sizeof(int64_t), &cells) != 0 ||
        !(per_stack = calloc(1, cells ? cells : 1)))
        goto done;
    m->n_threads = p->n_threads;
    for (size_t t = 0; t < p->n_threads; t++)
        m->threads[t].key = (uint32_t)t;
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t t = p->sample_thread[r], s = p->sample_stack[r];
        if (thread != PROFKIT_NONE && t != thread)
            continue;
        int64_t v[M_N];
        for (int i = 0; i < M_N; i++)
            v[i] = vt[i] == PROFKIT_NONE ? 0 : p->sample_values[r * p->n_value_types + vt[i]];
        add_row(&m->total, v);
        if (t < p->n_threads)
            add_row(&m->threads[t], v);
        if (s < p->n_stacks)
            for (int i = 0; i < M_N; i++)
                sat(&per_stack[(size_t)s * M_N + i], v[i]);
    }
    /* Call paths that allocated: the same label path from several stacks
     * (frames that differ only in what is not printed) is one path. */
    for (size_t s = 0; s < p->n_stacks; s++) {
        const int64_t *v = per_stack + s * M_N;
        if (!v[M_AOBJ] && !v[M_ASPACE] && !v[M_IOBJ] && !v[M_ISPACE])
            continue;
        if (path_label(p, (uint32_t)s, by_line, &buf, &cap, &len) != 0)
            goto done;
        uint32_t id = profkit_strtab_intern(&m->path_labels, buf, len);
        if (id == PROFKIT_NONE)
            goto done;
        /* Label ids are dense and new ones come last: index paths by them. */
        if (id >= m->n_paths) {
            if (profkit_grow((void **)&m->paths, &cap_paths, (size_t)id + 1, sizeof(profkit_mem_row)) != 0)
                goto done;
            memset(m->paths + m->n_paths, 0, ((size_t)id + 1 - m->n_paths) * sizeof(profkit_mem_row));
            for (size_t k = m->n_paths; k <= id; k++)
                m->paths[k].key = (uint32_t)k;
            m->n_paths = (size_t)id + 1;
        }
        int64_t w[M_N];
        memcpy(w, v, sizeof(w));
        w[M_FOBJ] = 0; /* frees belong to the freeing path, not listed here */
        add_row(&m->paths[id], w);
    }
    rc = 0;
done:
    free(per_stack);
    free(buf);
    if (rc) {
        profkit_mem_free(m);
        profkit_error_set(err, rc, NULL, -1, "out of memory computing the memory report");
    }
    return rc;
}
