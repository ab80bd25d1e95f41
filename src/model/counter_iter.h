/*
 * counter_iter.h: one counter's samples with their running sum, the one place
 * that sum is computed, for the reports, the page and the writers
 * (src/model/counter_iter.c). Counters are model data, so this sits in the
 * model, where formats/ may use it as well as analysis/ and report/.
 */
#ifndef PROFKIT_MODEL_COUNTER_ITER_H
#define PROFKIT_MODEL_COUNTER_ITER_H

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
    int64_t t;                       /* its time: ns, or the operation index by order */
    int64_t total;                   /* the running sum of the counts up to and with it */
} pk_counter_iter;

void pk_counter_iter_init(pk_counter_iter *it, const profkit_profile *p, uint32_t counter);
int pk_counter_next(pk_counter_iter *it);

#endif
