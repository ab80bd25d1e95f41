/*
 * counter_iter.c: one counter's samples with their running sum
 * (model/counter_iter.h).
 */
#include "model/counter_iter.h"

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
