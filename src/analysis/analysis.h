/*
 * analysis.h: aggregations over the model that the reports share: top,
 * the call tree walk, memory, value formatting. The label tree they build
 * on is in model/ltree.h, below the formats, which use it too.
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
} pk_top;

/*
 * Computes flat and cumulative values per key for value type `value` over
 * thread `thread` (PROFKIT_NONE = all). Recursion counts once in cum.
 */
int pk_top_compute(pk_top *t, const profkit_profile *p, uint32_t value, uint32_t thread,
                        profkit_key by, profkit_error *err);
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
 * the label tree (labels as in folded output; by_line: NAME:LINE), so
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

#endif
