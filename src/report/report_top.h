/*
 * report_top.h: `profkit top`'s printing and the helpers the other
 * reports share with it (labels, values, percentages).
 */
#ifndef PROFKIT_REPORT_TOP_H
#define PROFKIT_REPORT_TOP_H

#include "util/buf.h"
#include "analysis/analysis.h"

/*
 * Prints top's text or JSON for rows already computed: t over value type v
 * of p (whose value types and threads name the header), thread th
 * (PROFKIT_NONE = all), and calls (the flat "calls" per key, keyed as t;
 * NULL: no calls columns). Returns 0 or PROFKIT_ENOMEM.
 */
int pk_report_top_print(pk_buf *out, const profkit_profile *p, uint32_t v, uint32_t th,
                        const pk_top *t, const pk_top *calls,
                        const profkit_report_options *o, profkit_error *err);

/* profkit_report_top into a buffer (the store's top of a loaded selection). */
int pk_report_top_buf(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                      profkit_error *err);

/* The "calls" value type shown beside v (cpu or wall time), or PROFKIT_NONE. */
uint32_t pk_report_top_calls_value(const profkit_profile *p, uint32_t v);
/* After a header's total: what the filters and transforms kept of the
 * whole profile's total ("; 1.2s (40%) after the filters"); nothing when
 * p was not filtered (or its whole total was dropped). */
void pk_report_kept(pk_buf *out, const profkit_profile *p, uint32_t v, uint32_t th, int64_t kept,
                    const char *unit, const profkit_report_options *o);

/* --values: at most this many value types side by side. */
#define PK_REPORT_MAX_VALUES 16
/* The value types of a --values list ("cpu,wall,calls") into out[0..*n);
 * PROFKIT_EINVAL (err filled) for a name the profile lacks or a bad list. */
int pk_report_values(const profkit_profile *p, const char *list, uint32_t *out, size_t max,
                     size_t *n, profkit_error *err);

#endif
