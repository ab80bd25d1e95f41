/*
 * counters.h: a counter's samples with their running sum, and their
 * statistics in a time range, for `profkit counters`, the page's counter
 * tracks and the writers (src/analysis/counters.c).
 */
#ifndef PROFKIT_ANALYSIS_COUNTERS_H
#define PROFKIT_ANALYSIS_COUNTERS_H

#include "model/model.h"

/*
 * One counter's samples in their order, each with its position (time, or
 * operation index for a counter by operation order) and the running sum
 * of the counts from the counter's first sample up to it (what the
 * Firefox Profiler draws for a memory counter). The sum saturates at
 * INT64_MIN / INT64_MAX rather than overflow. The one place that sum is
 * computed:
 *
 *     pk_counter_iter it;
 *     pk_counter_iter_init(&it, p, counter);
 *     while (pk_counter_next(&it))
 *         use(it.s, it.t, it.total);
 *
 * A counter index past the profile's counters, or rows past its samples,
 * give no sample.
 */
typedef struct pk_counter_iter {
    const profkit_counter_sample *rows;
    size_t first, end, k;
    int by_order;
    const profkit_counter_sample *s; /* the current sample */
    size_t index;                    /* its index in the counter (0: the first) */
    int64_t t;                       /* its time (ns), or its index when by order */
    int64_t total;                   /* the running sum of the counts up to and with it */
} pk_counter_iter;

void pk_counter_iter_init(pk_counter_iter *it, const profkit_profile *p, uint32_t counter);
int pk_counter_next(pk_counter_iter *it);

/*
 * Counter `counter`'s samples with from <= time < to (ns on the model's
 * axis; a counter by operation order compares its operation indexes):
 * rows [first, end) of the profile's counter samples (they are in time
 * order as the formats give them; a row out of order is compared alone),
 * how many, the counts' min, max, sum and mean, and the running sum of
 * the counts from the counter's first sample (what the Firefox Profiler
 * draws for a memory counter) at its lowest and highest in the range;
 * `range` is highest - lowest (its "memory range in graph"). n == 0:
 * every figure is 0.
 */
typedef struct pk_counter_stats {
    size_t n;
    int64_t count_min, count_max, count_sum;
    double count_mean;
    int64_t total_min, total_max, range;
} pk_counter_stats;

void pk_counter_stats_compute(const profkit_profile *p, uint32_t counter, int64_t from, int64_t to,
                              pk_counter_stats *out);

#endif
