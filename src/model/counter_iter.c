/*
 * counter_iter.c: one counter's samples with their running sum
 * (model/counter_iter.h).
 */
#include "model/counter_iter.h"

#include <stdlib.h>
#include <string.h>

void pk_counter_iter_init(pk_counter_iter *it, const profkit_profile *p, uint32_t counter)
{
    memset(it, 0, sizeof *it);
    if (counter >= p->n_counters)
        return;
    const profkit_counter *c = &p->counters[counter];
    it->rows = p->counter_samples;
    it->first = it->k = c->first;
    it->end = c->first <= p->n_counter_samples && c->n <= p->n_counter_samples - c->first ? c->first + c->n
                                                                                             : c->first;
    it->by_order = c->by_order;
}

int pk_counter_next(pk_counter_iter *it)
{
    if (it->k >= it->end)
        return 0;
    const profkit_counter_sample *s = &it->rows[it->k];
    /* the running sum saturates rather than overflow */
    if (__builtin_add_overflow(it->total, s->count, &it->total))
        it->total = s->count < 0 ? INT64_MIN : INT64_MAX;
    it->s = s;
    it->index = it->k - it->first;
    it->t = s->time; /* by_order: the operation index (profkit.h) */
    it->k++;
    return 1;
}

void pk_mem_ops_free(pk_mem_ops *m)
{
    if (!m)
        return;
    for (size_t t = 0; t < m->n_th; t++) {
        free(m->th[t].stack);
        free(m->th[t].size);
        free(m->th[t].freed);
    }
    free(m->th);
    free(m);
}

static int grow_thread(pk_mem_thread_ops *t)
{
    size_t cap = t->cap ? t->cap * 2 : 256;
    uint32_t *st = realloc(t->stack, cap * sizeof(*st));
    if (st)
        t->stack = st;
    uint64_t *sz = st ? realloc(t->size, cap * sizeof(*sz)) : NULL;
    if (sz)
        t->size = sz;
    uint32_t *fr = sz ? realloc(t->freed, cap * sizeof(*fr)) : NULL;
    if (!fr)
        return PROFKIT_ENOMEM;
    t->freed = fr;
    t->cap = cap;
    return 0;
}

int pk_mem_ops_reserve(pk_mem_ops *m, uint32_t th)
{
    if (th >= m->n_th) {
        size_t n = m->n_th ? m->n_th : 16;
        while (n <= th)
            n *= 2;
        pk_mem_thread_ops *a = realloc(m->th, n * sizeof(*a));
        if (!a)
            return PROFKIT_ENOMEM;
        for (size_t t = m->n_th; t < n; t++)
            a[t] = (pk_mem_thread_ops){ (uint32_t)t, PROFKIT_NONE, 0, 0, 0, NULL, NULL, NULL };
        m->th = a;
        m->n_th = n;
    }
    return 0;
}

int pk_mem_ops_add(pk_mem_ops *m, uint32_t th, uint32_t stack, uint64_t size, uint32_t freed)
{
    if (pk_mem_ops_reserve(m, th) != 0)
        return PROFKIT_ENOMEM;
    pk_mem_thread_ops *t = &m->th[th];
    if (t->n == t->cap && grow_thread(t) != 0)
        return PROFKIT_ENOMEM;
    pk_mem_ops_push(m, th, stack, size, freed);
    return 0;
}

int pk_mem_ops_valid(const profkit_profile *p)
{
    const pk_mem_ops *m = p->mem_ops;
    return m && m->n_stacks == p->n_stacks && m->n_counters == p->n_counters &&
           m->n_threads == p->n_threads && m->n_samples == p->n_samples && !p->whole_totals;
}

const pk_mem_thread_ops *pk_mem_ops_of(const profkit_profile *p, uint32_t counter)
{
    if (!pk_mem_ops_valid(p) || counter >= p->n_counters)
        return NULL;
    const pk_mem_ops *m = p->mem_ops;
    uint32_t th = p->counters[counter].thread;
    if (th >= m->n_th || m->th[th].counter != counter)
        return NULL;
    return &m->th[th];
}

int pk_mem_ops_covers(const pk_mem_thread_ops *o, int64_t from, int64_t to)
{
    if (!o)
        return 0;
    uint64_t end = to < 0 ? 0 : (uint64_t)to;
    if (end > o->ops)
        end = o->ops;
    (void)from; /* a prefix: [from, to) is in it when its end is */
    return end <= o->n;
}
