/*
 * counters.h: the statistics of a counter's samples in a time range, for
 * `profkit counters` and the page (src/analysis/counters.c).
 */
#ifndef PROFKIT_ANALYSIS_COUNTERS_H
#define PROFKIT_ANALYSIS_COUNTERS_H

#include "model/model.h"

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
