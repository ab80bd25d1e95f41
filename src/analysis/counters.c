/*
 * counters.c: the statistics of a counter's samples in a time range
 * (analysis/counters.h).
 */
#include "analysis/counters.h"

#include <string.h>

void pk_counter_stats_compute(const profkit_profile *p, uint32_t counter, int64_t from, int64_t to,
                              pk_counter_stats *out)
{
    memset(out, 0, sizeof *out);
    if (counter >= p->n_counters)
        return;
    const profkit_counter *c = &p->counters[counter];
    size_t end = c->first + c->n <= p->n_counter_samples ? c->first + c->n : c->first;
    int64_t total = 0;
    for (size_t k = c->first; k < end; k++) {
        const profkit_counter_sample *s = &p->counter_samples[k];
        /* the running sum saturates rather than overflow */
        if (__builtin_add_overflow(total, s->count, &total))
            total = s->count < 0 ? INT64_MIN : INT64_MAX;
        int64_t t = s->time; /* by_order: the operation index */
        if (t < from || t >= to)
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
