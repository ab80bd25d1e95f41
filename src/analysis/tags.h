/*
 * tags.h: sample labels the way pprof reads them: its units, the numeric
 * ranges of -tagfocus/-tagignore, the label options as a step of the
 * filters, and the -tags report's sums (src/analysis/tags.c).
 */
#ifndef PROFKIT_TAGS_H
#define PROFKIT_TAGS_H

#include "model/model.h"

/*
 * pprof's measurement.Scale: value in unit `from` expressed in unit `to`
 * (memory, time or GCU units by their names and aliases; "minimum" or
 * "auto": the largest unit the value reaches one of). *unit is the unit's
 * canonical name ("kB", "ms"), "" for a count, else `to` itself.
 */
double pk_pprof_scale(int64_t value, const char *from, const char *to, const char **unit);
/* pprof's ScaledLabel: "%.2f" of the scaled value without ".00", then the
 * unit ("12.50kB", "64B", "0"). Returns the length written. */
size_t pk_pprof_label(char *buf, size_t n, int64_t value, const char *from, const char *to);
/* pprof's Percentage: "  100%", "%5.2f%%", or "%5.2g%%" below 1%. */
const char *pk_pprof_percentage(char *buf, size_t n, int64_t value, int64_t total);
/* The unit of numeric label key `key` (a string id): the first unit one of
 * its labels gives, else "bytes" for alignment and request, else the key. */
const char *pk_label_key_unit(const profkit_profile *p, uint32_t key);

/* A numeric range of a tag filter, in unit `unit`: lo <= x <= hi where set. */
typedef struct pk_tag_range {
    double lo, hi;
    int has_lo, has_hi;
    char unit[16];
} pk_tag_range;
/*
 * Parses s as pprof's tag range: "N[UNIT]" (equal), "N[UNIT]:" (at least),
 * ":N[UNIT]" (at most), "N[UNIT]:M[UNIT]" (both, M's unit of N's kind).
 * Returns 1 with *r set, 0 when s is not a range (a regular expression
 * then), -1 when a number does not fit in 64 bits.
 */
int pk_tag_range_parse(const char *s, pk_tag_range *r);
/* Whether v in unit `unit` is inside r (a unit of another kind never is). */
int pk_tag_range_match(const pk_tag_range *r, int64_t v, const char *unit);

/* The name of a --tagroot/--tagleaf frame of a sample without a value of
 * the key (or whose numbers have no unit): pprof's frame has no name, and
 * pprof prints a frame without a name as this. */
#define PK_TAG_NO_VALUE "<unknown>"

/* The name of --tagroot's frame for key `key` of a sample whose labels are
 * l[0..n) into b: its string values, then its numbers (scaled when they
 * have units, left out when none has), joined by ','; "" when that leaves
 * nothing (the frame is then PK_TAG_NO_VALUE). *has: whether the sample
 * has a value of the key there (pprof's match). 0 or PROFKIT_ENOMEM. */
struct pk_buf;
int pk_tags_frame_name(const profkit_profile *p, uint32_t key, const profkit_label *l, size_t n,
                       struct pk_buf *b, int *has);

/* Whether any label option of o is set. */
int pk_tags_active(const profkit_filter_options *o);
/*
 * The label options of o over p's rows, in pprof's order: tagroot and
 * tagleaf first (row_stack[r], the row's stack on entry, becomes the stack
 * with their frames), then between(ctx, row_stack) (the name filters, which
 * may set row_stack[r] to another stack or to PROFKIT_NONE to drop the
 * row; NULL: none), then tagfocus/tagignore (row_stack[r] becomes
 * PROFKIT_NONE when they drop the row) and tagshow/taghide (row_labels[r]:
 * the row's label set after them). The rows themselves are left to the
 * caller (filter.c rebuilds them). o->on_warning hears pprof's warnings
 * (an option that matched no sample, a value taken as a numeric range).
 * Returns 0, or PROFKIT_EINVAL (a bad regular expression or number) or
 * PROFKIT_ENOMEM with err set (or what between returned).
 */
int pk_tags_apply(profkit_profile *p, const profkit_filter_options *o, uint32_t *row_stack,
                  uint32_t *row_labels, int (*between)(void *ctx, uint32_t *row_stack), void *ctx,
                  profkit_error *err);

/* pprof's warning for an option that matched no sample ("Focus expression
 * matched no samples"), naming the option by its API name `opt` and its
 * value, to o->on_warning. */
void pk_filter_warn_no_match(const profkit_filter_options *o, const char *what, const char *opt,
                             const char *expr);

/* ---- the -tags report's sums ---- */

typedef struct pk_tag_value {
    uint32_t name;  /* id in pk_tags.names: the value as pprof prints it */
    int64_t value;  /* the sum of the rows that have it */
    const char *text; /* its text (in names) */
} pk_tag_value;

typedef struct pk_tag_key {
    uint32_t key;           /* string id of the profile */
    const char *text;       /* the key's name */
    int64_t total;          /* the sum of its values */
    pk_tag_value *values;   /* largest |value| first, then by name */
    size_t n;
} pk_tag_key;

typedef struct pk_tags {
    pk_strtab names;  /* the values' texts */
    pk_tag_key *keys; /* by name */
    size_t n;
} pk_tags;

/*
 * pprof -tags: per label key, per value (a string, or a number scaled in
 * its key's unit as pprof prints it: "64B", "1.50kB"), the sum of value
 * type `value` over the rows of thread `thread` (PROFKIT_NONE = all) that
 * have it, a row counted once per value it has. Returns 0 or ENOMEM.
 */
int pk_tags_compute(pk_tags *t, const profkit_profile *p, uint32_t value, uint32_t thread);
void pk_tags_free(pk_tags *t);

#endif
