/*
 * counters.c: a counter's samples with their running sum, and their
 * statistics in a time range (analysis/counters.h).
 */
#include "analysis/counters.h"

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
    it->t = it->by_order ? (int64_t)it->index : s->time;
    it->k++;
    return 1;
}

void pk_counter_stats_compute(const profkit_profile *p, uint32_t counter, int64_t from, int64_t to,
                              pk_counter_stats *out)
{
    memset(out, 0, sizeof *out);
    pk_counter_iter it;
    pk_counter_iter_init(&it, p, counter);
    while (pk_counter_next(&it)) {
        const profkit_counter_sample *s = it.s;
        int64_t total = it.total;
        if (it.t < from || it.t >= to)
            continue;
        if (out->n == 0) {
            out->count_min = out->count_max = s->count;
            out->total_min = out->total_max = total;
        }
        if (s->count < out->count_min)
            out->count_min = s->count;
        if (s->count > out->count_max)
            out->count_max = s->count;
        if (total < out->total_min)
            out->total_min = total;
        if (total > out->total_max)
            out->total_max = total;
        if (__builtin_add_overflow(out->count_sum, s->count, &out->count_sum))
            out->count_sum = s->count < 0 ? INT64_MIN : INT64_MAX;
        out->n++;
    }
    if (out->n) {
        out->count_mean = (double)out->count_sum / (double)out->n;
        if (__builtin_sub_overflow(out->total_max, out->total_min, &out->range))
            out->range = INT64_MAX;
    }
}
