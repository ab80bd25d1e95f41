/*
 * analysis.h: what the reports print, computed: flat and cumulative values
 * (top, hist), callers and callees (peek), the traces, the diff's rows,
 * the call tree walk, memory, value formatting. The call tree they read is
 * in model/ltree.h, below the formats, which read it too; report/ only
 * formats what these return.
 */
#ifndef PROFKIT_ANALYSIS_H
#define PROFKIT_ANALYSIS_H

#include "model/ltree.h"
#include "model/model.h"

/* Formats value in its unit for people ("1.25s", "340ms", "12.5MB", "42"). */
size_t pk_format_value(char *buf, size_t n, int64_t value, const char *unit);
/* part / total as a percentage the way pprof prints it: two decimals with
 * trailing zeros cut ("12.5%", "3%"); 0% when total is 0. Returns buf. */
const char *pk_format_pct(char *buf, size_t n, double part, double total);
/* "function", "file", "line", "address" (plural: "functions", ...). */
const char *pk_key_name(profkit_key by, int plural);


/* ---- flat and cumulative values per key of a call tree (src/analysis/top.c) ---- */

/* A call between two keys (peek): caller `from`, callee `to`. */
typedef struct pk_key_edge {
    uint32_t from, to;
    int64_t weight; /* the value of the stacks that make the call, once per stack */
    uint32_t mark;  /* while summing */
} pk_key_edge;

typedef struct pk_keysums {
    size_t n;        /* keys of the tree */
    int64_t *flat;   /* flat[k]: value where key k is the leaf */
    int64_t *cum;    /* cum[k]: value where key k is anywhere in the stack, once per stack */
    int64_t total;   /* value of the stacks below the root */
    int64_t root;    /* value of the empty stack */
    /* with edge_keys: the calls between keys either end of which is set
     * in edge_keys (a caller and callee of one key are no call) */
    const unsigned char *edge_keys;
    pk_key_edge *edges;
    size_t n_edges, cap_edges;
    uint32_t *slot;
    size_t n_slots;
} pk_keysums;

/*
 * Sums value type `value` over rows of thread `thread` (PROFKIT_NONE = all)
 * per key of t (either shape: both give the same sums), and the calls
 * touching edge_keys (NULL: none). Recursion counts once in cum and in a
 * call's weight. Linear in the nodes and rows whatever the depth: walks up
 * from each row's node (no array per node when the rows are fewer than the
 * nodes, else the self values) while they cost a few steps per node and
 * row, one depth-first walk (two arrays per node) past that. Returns 0 or
 * PROFKIT_ENOMEM.
 */
int pk_keysums_compute(pk_keysums *s, const pk_ltree *t, uint32_t value, uint32_t thread,
                       const unsigned char *edge_keys);
/*
 * The same, the walks up allowed `budget` steps (0: the default, a few per
 * node and row) before the depth-first walk takes over, and with guess,
 * not started when a few of them say they would pass it. Tests force each
 * way with it; the sums are the same whichever way.
 */
int pk_keysums_compute_within(pk_keysums *s, const pk_ltree *t, uint32_t value, uint32_t thread,
                              const unsigned char *edge_keys, uint64_t budget, int guess);
void pk_keysums_free(pk_keysums *s);

/* ---- top: flat and cumulative value per key ---- */

typedef struct pk_top_row {
    uint32_t key; /* id in pk_top.keys */
    int64_t flat; /* value where the key is the leaf */
    int64_t cum;  /* value where the key is anywhere in the stack, once per stack */
} pk_top_row;

typedef struct pk_top {
    pk_strtab keys;
    pk_top_row *rows; /* one per key, in key order (rows[i].key == i) */
    size_t n;
    int64_t total;         /* sum of the value over the selected samples */
    uint32_t *frame_key;   /* key of each frame */
    /* by function and by line: each key's first frame (its function's
     * name, file and line), NULL otherwise; in tops[keys_in] only */
    uint32_t *key_frame;
} pk_top;

/*
 * Computes flat and cumulative values per key for value type `value` over
 * thread `thread` (PROFKIT_NONE = all): the call tree by `by`, unmerged, and
 * its sums. Recursion counts once in cum.
 */
int pk_top_compute(pk_top *t, const profkit_profile *p, uint32_t value, uint32_t thread,
                        profkit_key by, profkit_error *err);
/*
 * The same for several value types over one call tree: tops[i] for value
 * type values[i] (`top` and its calls, `hist` and every column); the key
 * labels go into tops[keys_in].keys only (the others' keys are empty), the
 * rows of every top are in the same key order. Returns 0 or PROFKIT_ENOMEM
 * (err filled; every top empty).
 */
int pk_top_compute_values(pk_top *tops, const profkit_profile *p, const uint32_t *values,
                          size_t n, uint32_t thread, profkit_key by, size_t keys_in,
                          profkit_error *err);
void pk_top_free(pk_top *t);
/* Sorts row indexes: by flat (or cum) descending, then key label ascending. */
int pk_top_sort(const pk_top *t, uint32_t *order, int by_cum);
/*
 * The same order for order[0..first) only (the rows a report prints); the
 * rest of order holds the other rows in no particular order. Selecting the
 * first rows with a heap costs n log(first) cheap comparisons instead of
 * sorting every row, most of which tie and compare their labels.
 * Returns 0 or PROFKIT_ENOMEM.
 */
int pk_top_sort_first(const pk_top *t, uint32_t *order, int by_cum, size_t first);

/* ---- inlined functions (src/analysis/inline_marks.c) ---- */

enum { PK_INLINE_ALL = 1, PK_INLINE_SOME = 2 };
/*
 * One rule for every mark (top, peek, hist, tree, the page): a call is a
 * stack of a row with a value (of value type `value`, PROFKIT_NONE: any
 * row; thread `thread`, PROFKIT_NONE: any) or a prefix of one; its frame
 * was inlined into its caller or was a real call. A key (a node) is
 * PK_INLINE_ALL when every call into it was inlined, PK_INLINE_SOME when
 * some were (as Go pprof marks "(inline)" and "(partial-inline)" rows).
 */
enum { PK_CALL_INLINED = 1, PK_CALL_REAL = 2 };
/* 1 when a frame of p was inlined (else no mark anywhere). */
int pk_inline_any(const profkit_profile *p);
/* Called once per call met (stack s, PK_CALL_INLINED or PK_CALL_REAL). */
typedef void (*pk_inline_visit)(void *ctx, uint32_t s, unsigned bits);
/*
 * The calls of rows[0..n_rows) (rows NULL: every row) as above: visit()
 * once per stack met whose frame exists. seen: a bit per stack of p
 * (p->n_stacks / 8 + 1 bytes), zero for the stacks not met yet; the
 * stacks met are set (clear it to start again).
 */
void pk_inline_calls(const profkit_profile *p, const uint32_t *rows, size_t n_rows, uint32_t value,
                     uint32_t thread, uint8_t *seen, pk_inline_visit visit, void *ctx);
/* PK_CALL_INLINED | PK_CALL_REAL bits gathered for a key: its mark. */
static inline unsigned char pk_inline_flag(unsigned bits)
{
    bits &= PK_CALL_INLINED | PK_CALL_REAL;
    return bits == PK_CALL_INLINED ? PK_INLINE_ALL
           : bits == (PK_CALL_INLINED | PK_CALL_REAL) ? PK_INLINE_SOME : 0;
}
/*
 * Per key of frame_key (n_keys keys), its mark from the calls into it from
 * a caller (a stack not at the root) of the rows of value type `value` and
 * thread `thread`. *out is a new array, or NULL when no frame of p is
 * inlined. Returns 0 or PROFKIT_ENOMEM.
 */
int pk_key_inline(const profkit_profile *p, const uint32_t *frame_key, size_t n_keys, uint32_t value,
                  uint32_t thread, unsigned char **out);
/* Per node of t (a call tree of p), its mark from its calls, as
 * pk_key_inline; *out NULL when no frame of p is inlined. */
int pk_node_inline(const profkit_profile *p, const pk_ltree *t, uint32_t value, uint32_t thread,
                   unsigned char **out);
/* " (inline)", " (partial-inline)" or "" for key k (marks may be NULL). */
const char *pk_inline_mark(const unsigned char *marks, uint32_t k);
/* "all", "partial" or NULL: the JSON rows' `inline`. */
const char *pk_inline_json(const unsigned char *marks, uint32_t k);

/* ---- peek: callers and callees of the keys matching a pattern (src/analysis/peek.c) ---- */

typedef struct pk_peek {
    pk_ltree tree;        /* unmerged, keyed by `by`: key labels in tree.labels */
    pk_keysums sums;      /* flat, cum, and the calls from or to a matching key */
    unsigned char *match; /* per key */
    uint32_t *order;      /* matching keys with a value, sorted by |flat| (or |cum|), then label */
    size_t n;
} pk_peek;

/*
 * Computes peek for value `value` over thread `thread`, keys by `by`,
 * matching the POSIX extended regular expression `pattern`. Calls are
 * counted as pprof's call graph counts them: once per stack that holds the
 * call (however often it recurs), a key calling itself is no call.
 * Returns 0, PROFKIT_EINVAL (no pattern, a bad one, or no key matches) or
 * PROFKIT_ENOMEM, with err filled.
 */
int pk_peek_compute(pk_peek *k, const profkit_profile *p, uint32_t value, uint32_t thread,
                    profkit_key by, const char *pattern, int sort_cum, profkit_error *err);
/* The calls into (in = 1) or out of key with a non-zero weight, by |weight|
 * descending, then caller, then callee: a new array of *n edge indexes
 * (into k->sums.edges), or NULL when out of memory. */
uint32_t *pk_peek_edges(const pk_peek *k, uint32_t key, int in, size_t *n);
void pk_peek_free(pk_peek *k);

/* ---- traces: each distinct stack with its value (src/analysis/traces.c) ---- */

typedef struct pk_traces {
    pk_ltree tree;   /* merged, keyed by `by`: a node is a trace */
    uint32_t *order; /* nodes with a non-zero self value, largest |value| first, then labels leaf first */
    size_t n;
    int64_t total;   /* value of the stacks below the root */
} pk_traces;

/* Computes the traces of value `value` over thread `thread`, frames labelled
 * by `by`. Returns 0 or PROFKIT_ENOMEM (err filled). */
int pk_traces_compute(pk_traces *t, const profkit_profile *p, uint32_t value, uint32_t thread,
                      profkit_key by, profkit_error *err);
void pk_traces_free(pk_traces *t);

/* ---- diff: per key, the change between two profiles (src/analysis/diff.c) ---- */

typedef struct pk_diff_row {
    const char *label;
    int64_t base_flat, new_flat, base_cum, new_cum;
    /* by function: the function's first frame, of NEW or else BASE (its
     * file and line); src NULL otherwise */
    const profkit_profile *src;
    uint32_t frame;
} pk_diff_row;

/* One failure of the gate: `what` ("total", "flat", "cum") of row `row`
 * (PROFKIT_NONE for the total) grew past the limit. */
typedef struct pk_diff_fail {
    const char *what;
    uint32_t row;
    int64_t base, now;
} pk_diff_fail;

typedef struct pk_diff {
    uint32_t value;        /* the value type in NEW */
    pk_top tn, tb;         /* NEW's and BASE's top (their labels) */
    pk_diff_row *rows;     /* every key with a value in either, NEW's first */
    size_t n;
    uint32_t *order;       /* rows shown (--min-percent), biggest change first */
    size_t n_shown;
    int64_t base_total, new_total; /* base_total scaled with normalize */
    pk_strtab labels;      /* rows' labels with the file a name of two files adds */
    pk_diff_fail *fails;   /* with a gate: what grew too much, in row order */
    size_t n_fails;
} pk_diff;

/* new - base, saturating. */
int64_t pk_diff_change(int64_t base, int64_t now);
/*
 * Compares NEW (p) with BASE per key by `by` (labels matched, so the two
 * may come from different formats) for value type `value` of p (BASE's of
 * the same type and unit) over thread `thread` (a name, in both; NULL =
 * all): base scaled to NEW's total with normalize; rows whose change (flat,
 * or cum with sort_cum) is below cutoff_pct percent of BASE's total are not
 * shown; with gate, the rows (and the total) whose growth passes
 * fail_on_increase percent of BASE's total. Returns 0, PROFKIT_EINVAL (no
 * such value type in BASE, unknown thread) or PROFKIT_ENOMEM, err filled.
 */
int pk_diff_compute(pk_diff *d, const profkit_profile *base, const profkit_profile *p,
                    uint32_t value, const char *thread, profkit_key by, int normalize,
                    double cutoff_pct, int sort_cum, int gate, double fail_on_increase,
                    profkit_error *err);
void pk_diff_free(pk_diff *d);

/* ---- tree: the call tree in print order (src/analysis/tree.c) ---- */

/*
 * The nodes of t that `profkit tree` shows, in print order: depth first,
 * children by total descending (then label), nodes at depth > max_depth
 * (0 = unlimited) or with |total| below min_pct percent of t->grand_total
 * left out with everything under them. *nodes and *depths (1 = a root's
 * child of the tree, i.e. an outermost frame) are new arrays of *n entries
 * the caller frees. Returns 0 or PROFKIT_ENOMEM.
 */
int pk_tree_walk(const pk_ltree *t, size_t max_depth, double min_pct, uint32_t **nodes,
                      uint32_t **depths, size_t *n);
/*
 * The trees `profkit tree` prints for value type `value`: thread `thread`
 * alone; for all threads (PROFKIT_NONE), each thread whose rows sum to
 * non-zero, or one tree of them all (PROFKIT_NONE) when the profile has no
 * threads or rows of no thread of its own sum to non-zero. *threads is a
 * new array of *n entries; *total the value over every row. Returns 0 or
 * PROFKIT_ENOMEM.
 */
int pk_tree_threads(const profkit_profile *p, uint32_t value, uint32_t thread, uint32_t **threads,
                    size_t *n, int64_t *total);

/* ---- mem: allocations, frees and leaks (src/analysis/mem.c) ---- */

typedef struct pk_mem_row {
    uint32_t key; /* thread index, or the path's node in pk_mem.tree */
    int64_t alloc_objects, alloc_space, free_objects, inuse_objects, inuse_space;
} pk_mem_row;

typedef struct pk_mem {
    pk_mem_row total;
    pk_mem_row *threads; /* one per thread of the profile, key = index */
    size_t n_threads;
    pk_mem_row *paths;   /* allocating call paths, key = node in tree */
    size_t n_paths;
    pk_ltree tree;       /* the call tree by label: a node is a path */
    int64_t unmatched_frees;  /* from metadata "unmatched_frees", -1 = unknown */
} pk_mem;

/*
 * Sums the memory value types (alloc_objects, alloc_space, free_objects,
 * inuse_objects, inuse_space; a missing one counts 0) per thread and per
 * call path over thread `thread` (PROFKIT_NONE = all). A path is a node of
 * the call tree (labels as in folded output; by_line: NAME:LINE), so
 * stacks that print alike are one path; only paths that allocated are
 * listed. Returns 0, PROFKIT_EINVAL when the profile has none of those
 * value types, or PROFKIT_ENOMEM (err filled).
 */
int pk_mem_compute(pk_mem *m, const profkit_profile *p, uint32_t thread, int by_line,
                        profkit_error *err);
/* Writes path `key` as "root;...;leaf" into *buf (grown as needed, the
 * caller frees it). Returns the length, or (size_t)-1 when out of memory. */
size_t pk_mem_path_label(const pk_mem *m, uint32_t key, char **buf, size_t *cap);
void pk_mem_free(pk_mem *m);

/* ---- filters and transforms (src/analysis/filter.c, transform.c) ---- */

/*
 * Rebuilds p's sample rows with stack newstack[s] for old stack s
 * (PROFKIT_NONE: the row is dropped; newstack NULL: s itself); rows now alike are summed, timed
 * rows keep their order. Returns 0 or PROFKIT_ENOMEM.
 */
int pk_filter_rebuild_samples(profkit_profile *p, const uint32_t *newstack, const uint32_t *row_stack,
                              const uint32_t *row_labels);
/* ---- time filters (src/analysis/time_range.c) ---- */

/* The range, during_marker and outside_marker filters of o over p, in
 * place (profkit_profile_filter runs them first). Returns 0,
 * PROFKIT_EINVAL (a bad range, an untimed profile) or PROFKIT_ENOMEM. */
int pk_profile_filter_time(profkit_profile *p, const profkit_filter_options *o, profkit_error *err);

#endif
