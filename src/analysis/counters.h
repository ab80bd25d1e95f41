/*
 * counters.h: a counter's statistics in a time range, for `profkit
 * counters` and the page's counter tracks (src/analysis/counters.c); the
 * samples with their running sum are model/counter_iter.h's iterator.
 */
#ifndef PROFKIT_ANALYSIS_COUNTERS_H
#define PROFKIT_ANALYSIS_COUNTERS_H

#include "model/counter_iter.h"

/*
 * Counter `counter`'s samples with from <= time < to (ns on the model's
 * axis; a counter by operation order compares its operation indexes;
 * rows are in time order as the formats give them, a row out of order is
 * compared alone): how many (n), the counts' min, max, sum and mean (0
 * when n == 0).
 *
 * The running sum as the Firefox Profiler scales a counter's track in a
 * range (its "memory range in graph", profiler-cli's count-range under a
 * zoom): `start` is the running sum carried into the range (at the last
 * sample before `from`; 0 when there is none), the value the track starts
 * at. total_min / total_max are the lowest and highest running sum over
 * the samples in the range, the last one before it, the one before that
 * and the first one after it (the Firefox Profiler takes a counter's
 * first count as its baseline and accumulates from one sample before and
 * to one after the range); range = total_max - total_min. has_total: that
 * set is not empty (the counter has samples), else those figures are 0.
 */
typedef struct pk_counter_stats {
    size_t n;
    int64_t count_min, count_max, count_sum;
    double count_mean;
    int has_total;
    int64_t start;
    int64_t total_min, total_max, range;
} pk_counter_stats;

void pk_counter_stats_compute(const profkit_profile *p, uint32_t counter, int64_t from, int64_t to,
                              pk_counter_stats *out);

#endif
