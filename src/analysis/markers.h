/*
 * markers.h: the markers of a profile as the Firefox Profiler shows them
 * (src/analysis/markers.c): each thread's raw markers made into one list
 * as its loader derives it (a start and its end become one interval, a
 * Network request's start and stop one interval, screenshots intervals
 * until the next), times on its zero (the root range's start), filtered
 * by a search, a category and a least duration, and the statistics per
 * marker name that `profkit markers` prints (report/markers_report.c
 * formats them).
 */
#ifndef PROFKIT_ANALYSIS_MARKERS_H
#define PROFKIT_ANALYSIS_MARKERS_H

#include "model/model.h"

/* A marker as shown. Times in ns after the zero; end PROFKIT_NO_TIME for
 * an instant. */
typedef struct pk_shown_marker {
    int64_t start, end;
    uint32_t thread;
    uint32_t name;     /* string id */
    uint32_t category; /* string id; 0: "Other" */
    uint32_t payload;  /* string id of its data as it came (of the end for a
                          pair, or the start's when the end has none); 0: none */
    size_t order;      /* where the loader makes it, for a stable sort */
} pk_shown_marker;

typedef struct pk_shown_markers {
    pk_shown_marker *m; /* per thread in thread order, each in time order */
    size_t n;
    int64_t zero; /* ns on the model's axis: the root range's start */
    int64_t end;  /* ... and its end; markers outside the range are not shown */
} pk_shown_markers;

/*
 * The markers of thread `thread` (PROFKIT_NONE: every thread) as the
 * Firefox Profiler shows them (those that touch the root range), that
 * pass the filters: search (NULL: all;
 * as profiler-cli's --search: comma-separated terms, each a substring of
 * the name, the category, the payload's type or one of its field values,
 * case-insensitive; FIELD:TEXT on that payload field only; -FIELD:TEXT
 * leaves out the markers it matches), category (NULL: all; a
 * case-insensitive substring of the category's name) and min_duration_ns
 * (< 0: none; else intervals at least that long). Returns 0 or
 * PROFKIT_ENOMEM.
 */
int pk_markers_shown(pk_shown_markers *out, const profkit_profile *p, uint32_t thread,
                     const char *search, const char *category, int64_t min_duration_ns);
void pk_shown_markers_free(pk_shown_markers *s);

/* Duration statistics of n >= 1 durations, sorted in place: as the
 * Firefox Profiler's, median = d[n / 2] and p95 = d[floor(n * 0.95)]. */
typedef struct pk_duration_stats {
    int64_t min, max, median, p95;
    double mean;
} pk_duration_stats;
void pk_duration_stats_compute(int64_t *d, size_t n, pk_duration_stats *out);

/* A marker group: the markers of one name on one thread. */
typedef struct pk_marker_group {
    uint32_t thread, name;
    size_t count;     /* markers */
    size_t intervals; /* those with a duration */
    pk_duration_stats stats; /* of the intervals' durations (when any) */
    int64_t first;    /* start of the first */
    const char *label; /* the name's text */
} pk_marker_group;

/*
 * The groups of s: per thread (in thread order) one per marker name, the
 * most markers first, then by name. Returns 0 or PROFKIT_ENOMEM.
 */
int pk_marker_groups(const pk_shown_markers *s, const profkit_profile *p, pk_marker_group **out,
                     size_t *n);

#endif
