/*
 * gecko_order.c: the model's threads in the order the Firefox Profiler's
 * loader gives them (docs/formats/gecko.md, "Threads"). A raw profile's
 * own `threads` come first and each of its `processes`' threads after
 * them, process by process, wherever the keys are in the file; threads of
 * a process inside a sub-process (which the loader does not read) come
 * after every thread it reads, depth first. The reader makes a model
 * thread when a thread's first row streams in or when it is built, which
 * is file order when `threads` comes before `processes`; otherwise the
 * threads are renumbered once every one is read. The counters (each
 * profile's `counters`) are put in the same order of profiles.
 */
#include "formats/gecko/gecko_reader.h"

#include <stdlib.h>

#include "model/model.h"

/* A thread's place: (its group, its index in the file). The group is its
 * (sub-)profile's serial, which numbers the profiles depth first in the
 * order they open (the root 1, then each sub-process as it begins), with
 * the top bit set for a process nested in a sub-process. */
#define GK_DEEP 0x80000000u

int pk_gk_thread_made(gk_reader *r, const gk_thread *th, uint32_t thread)
{
    if (thread != r->n_thread_keys) {
        /* not the next thread (none expected): the order cannot be told */
        r->thread_keys_off = 1;
        return 0;
    }
    if (PK_VEC_RESERVE(r->thread_keys, r->n_thread_keys, r->cap_thread_keys, 1) != 0)
        return PROFKIT_ENOMEM;
    uint32_t group = th->serial & ~GK_DEEP;
    if (th->depth >= 2)
        group |= GK_DEEP;
    r->thread_keys[thread].group = group;
    r->thread_keys[thread].index = (uint32_t)th->index;
    r->n_thread_keys++;
    return 0;
}

static int key_less(const struct gk_thread_key *a, const struct gk_thread_key *b)
{
    return a->group < b->group || (a->group == b->group && a->index < b->index);
}

int pk_gk_order_threads(gk_reader *r)
{
    profkit_profile *p = r->p;
    size_t n = p->n_threads;
    if (n < 2 || r->thread_keys_off || r->n_thread_keys < n)
        return 0;
    const struct gk_thread_key *k = r->thread_keys;
    size_t t = 1;
    while (t < n && !key_less(&k[t], &k[t - 1]))
        t++;
    if (t == n)
        return 0; /* already in order: the common case, one pass over n keys */

    /* Two stable counting passes: by file index, then by group (groups
     * are dense: serials below next_serial + 1, twice for the top bit). */
    size_t n_index = 0, n_group = 2 * ((size_t)r->cn.next_serial + 1);
    for (t = 0; t < n; t++) {
        if (k[t].index >= n_index)
            n_index = (size_t)k[t].index + 1;
        if ((k[t].group & ~GK_DEEP) > r->cn.next_serial)
            return 0; /* not a serial this read gave: leave the order alone */
    }
    size_t *count = calloc((n_index > n_group ? n_index : n_group) + 1, sizeof *count);
    uint32_t *by_index = malloc(n * sizeof *by_index);
    uint32_t *to = malloc(n * sizeof *to);
    if (!count || !by_index || !to) {
        free(count);
        free(by_index);
        free(to);
        return pk_gk_oom(r);
    }
    for (t = 0; t < n; t++)
        count[k[t].index + 1]++;
    for (size_t i = 1; i <= n_index; i++)
        count[i] += count[i - 1];
    for (t = 0; t < n; t++)
        by_index[count[k[t].index]++] = (uint32_t)t;
    memset(count, 0, (n_group + 1) * sizeof *count);
#define GROUP_SLOT(g) ((((g) & GK_DEEP) ? n_group / 2 : 0) + ((g) & ~GK_DEEP))
    for (t = 0; t < n; t++)
        count[GROUP_SLOT(k[t].group) + 1]++;
    for (size_t i = 1; i <= n_group; i++)
        count[i] += count[i - 1];
    for (size_t i = 0; i < n; i++) {
        uint32_t m = by_index[i];
        to[m] = (uint32_t)count[GROUP_SLOT(k[m].group)]++;
    }
#undef GROUP_SLOT
    free(count);
    free(by_index);
    int rc = pk_profile_renumber_threads(p, to);
    free(to);
    return rc ? pk_gk_oom(r) : 0;
}

int pk_gk_order_counters(gk_reader *r)
{
    profkit_profile *p = r->p;
    const gk_counters *c = &r->cn;
    size_t n = p->n_counters;
    if (n < 2 || c->n_added != n)
        return 0;
    /* the loader's counters: the root's, then each sub-process's, as its
     * threads (a counter's rows stay where they are: it names them) */
    uint32_t prev = 0;
    int sorted = 1;
    for (size_t i = 0; i < n; i++) {
        if (c->added[i].id != i || c->added[i].serial > c->next_serial)
            return 0; /* not the counters this read made, in order */
        uint32_t g = c->added[i].serial | (c->added[i].level >= 2 ? GK_DEEP : 0);
        if (i && g < prev)
            sorted = 0;
        prev = g;
    }
    if (sorted)
        return 0;
    size_t n_group = 2 * ((size_t)c->next_serial + 1);
    size_t *count = calloc(n_group + 1, sizeof *count);
    profkit_counter *out = malloc(n * sizeof *out);
    if (!count || !out) {
        free(count);
        free(out);
        return pk_gk_oom(r);
    }
#define GROUP_SLOT(i) ((c->added[i].level >= 2 ? n_group / 2 : 0) + c->added[i].serial)
    for (size_t i = 0; i < n; i++)
        count[GROUP_SLOT(i) + 1]++;
    for (size_t g = 1; g <= n_group; g++)
        count[g] += count[g - 1];
    for (size_t i = 0; i < n; i++)
        out[count[GROUP_SLOT(i)]++] = p->counters[i];
#undef GROUP_SLOT
    memcpy(p->counters, out, n * sizeof *out);
    free(out);
    free(count);
    return 0;
}
