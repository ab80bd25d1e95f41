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

/*
 * What operations [from, to) of counter `counter` (by operation order,
 * with its operations kept: pk_mem_ops_of) did per allocation site: the
 * sites in the order first met, each its stack and
 *
 *   alloc_objects, alloc_space  the allocations in the range made there
 *   free_objects, freed_space   the frees in the range of allocations made
 *                               there (in the range or before it)
 *   inuse_objects, inuse_space  the allocations in the range made there
 *                               and not freed in it: still live after
 *                               operation to - 1
 *
 * and *unmatched the frees in the range that matched no live allocation
 * (no site, no size). The counter's running sum after operation to - 1
 * is the one before `from` plus the alloc_space less the freed_space of
 * every site. Returns 0 (*out malloc'd, *n sites; *n 0 and *out NULL
 * without records of every operation of the range: pk_mem_ops_covers), or
 * PROFKIT_ENOMEM.
 */
typedef struct pk_mem_site {
    uint32_t stack;
    int64_t alloc_objects, alloc_space, free_objects, freed_space, inuse_objects, inuse_space;
} pk_mem_site;

int pk_mem_sites_compute(const profkit_profile *p, uint32_t counter, int64_t from, int64_t to,
                         pk_mem_site **out, size_t *n, int64_t *unmatched);

/* A stack's call path as the page names it: its functions' names, root
 * first, joined by ';' ("(unknown)" for a function without a name), into
 * buf (grown as needed). The length, or (size_t)-1 when out of memory. */
size_t pk_mem_site_path(const profkit_profile *p, uint32_t stack, char **buf, size_t *cap);

#endif
