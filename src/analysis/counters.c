/*
 * counters.c: a counter's statistics in a time range
 * (analysis/counters.h).
 */
#include "analysis/counters.h"

#include <string.h>

static void extend(pk_counter_stats *out, int64_t v)
{
    if (!out->has_total) {
        out->has_total = 1;
        out->total_min = out->total_max = v;
    } else if (v < out->total_min) {
        out->total_min = v;
    } else if (v > out->total_max) {
        out->total_max = v;
    }
}

void pk_counter_stats_compute(const profkit_profile *p, uint32_t counter, int64_t from, int64_t to,
                              pk_counter_stats *out)
{
    memset(out, 0, sizeof *out);
    pk_counter_iter it;
    pk_counter_iter_init(&it, p, counter);
    /* the last sample before the range, its running sum and the one
     * before it (the first sample has none: the Firefox Profiler counts
     * from it, its count a baseline) */
    int before = 0, after = 0, has_base = 0, has_prev = 0;
    int64_t before_total = 0, base = 0, prev = 0;
    while (pk_counter_next(&it)) {
        const profkit_counter_sample *s = it.s;
        if (it.t < from) {
            before = 1, before_total = it.total, has_base = has_prev, base = prev;
        } else if (it.t < to) {
            if (out->n == 0)
                out->count_min = out->count_max = s->count;
            if (s->count < out->count_min)
                out->count_min = s->count;
            if (s->count > out->count_max)
                out->count_max = s->count;
            if (__builtin_add_overflow(out->count_sum, s->count, &out->count_sum))
                out->count_sum = s->count < 0 ? INT64_MIN : INT64_MAX;
            extend(out, it.total);
            out->n++;
        } else if (!after) {
            after = 1;
            extend(out, it.total);
        }
        prev = it.total, has_prev = 1;
    }
    if (before) {
        out->start = before_total;
        extend(out, before_total);
    }
    if (has_base)
        extend(out, base);
    if (out->n)
        out->count_mean = (double)out->count_sum / (double)out->n;
    if (out->has_total && __builtin_sub_overflow(out->total_max, out->total_min, &out->range))
        out->range = INT64_MAX;
}
