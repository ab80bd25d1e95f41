/*
 * model.h: the profile model's internals, for readers, writers and analyses
 * inside the library. The public header exposes the same tables read-only.
 *
 * Every table is a plain array indexed by dense ids. Functions, frames and
 * stacks are hash-consed: adding an equal row returns the existing id, so a
 * stack id is a node of the call tree and every prefix is shared.
 * Samples are parallel arrays; untimed rows are aggregated per
 * (stack, thread), timed rows are appended in order.
 */
#ifndef PROFKIT_MODEL_H
#define PROFKIT_MODEL_H

#include "profkit.h"
#include "util/strtab.h"
#include "util/util.h"

/*
 * What symbolization did (profkit_profile_symbolize), for the info report:
 * how many address frames it named, the files it used, and the mappings
 * it found no file for. It owns its strings.
 */
enum { PK_SYM_SRC_NONE, PK_SYM_SRC_DWARF, PK_SYM_SRC_SYMTAB, PK_SYM_SRC_DYNSYM };
enum { PK_SYM_FOUND_BINARIES, PK_SYM_FOUND_SYMBOL_DIRS, PK_SYM_FOUND_ENVIRONMENT,
       PK_SYM_FOUND_MAPPED_PATH, PK_SYM_FOUND_DEBUGINFOD };

typedef struct pk_sym_file {
    char *path;
    size_t named;      /* addresses it named */
    int source;        /* where its names came from: PK_SYM_SRC_* */
    int found_by;      /* PK_SYM_FOUND_*: binaries, symbol_dirs (options),
                          PPROF_BINARY_PATH, the mapping's path, debuginfod */
    char build_id[2 * 64 + 1]; /* lowercase hex, "" = none */
} pk_sym_file;

typedef struct pk_sym_summary {
    size_t named, wanted; /* address frames named, of those to name */
    size_t chain_frames;  /* the frames the lookups gave (an inlined call is one) */
    pk_sym_file *files;   /* the files used, in the order they were found */
    size_t n_files;
    char **no_file;       /* paths of the mappings no file was found for ("" = anonymous) */
    size_t n_no_file;
} pk_sym_summary;

void pk_sym_summary_free(pk_sym_summary *s);

struct profkit_profile {
    pk_strtab strings;

    profkit_function *functions;
    size_t n_functions, cap_functions;
    pk_idset function_set;
    size_t functions_indexed; /* rows [0, functions_indexed) are in function_set */

    profkit_frame *frames;
    size_t n_frames, cap_frames;
    pk_idset frame_set;
    size_t frames_indexed; /* rows [0, frames_indexed) are in frame_set */

    profkit_stack *stacks; /* stacks[0] is the root */
    size_t n_stacks, cap_stacks;
    pk_idset stack_set;
    size_t stacks_indexed; /* rows [1, stacks_indexed) are in stack_set */
    /* The row pk_stack_intern made last, while it has no child (else
     * PROFKIT_NONE): a child of it cannot be in the table yet, so it is
     * appended without a lookup and indexed with the next lookup's catch-up. */
    uint32_t stack_childless;

    /* The limits of a read (pk_profile_limit): a new stack deeper than
     * limit_depth frames or a thread past limit_threads is refused
     * (PROFKIT_NONE) and limit_hit says which; stack_depth holds each
     * stack's depth while a depth limit is set. 0 = no limit. */
    uint32_t limit_depth, limit_threads;
    int limit_hit;
    uint32_t *stack_depth;
    size_t cap_stack_depth;

    profkit_value_type *value_types;
    size_t n_value_types, cap_value_types;
    uint32_t default_value;
    pk_idset value_type_set; /* by (type, unit); rows [0, value_types_indexed) */
    size_t value_types_indexed;

    /* samples: parallel arrays of n_samples rows */
    uint32_t *sample_stack;
    uint32_t *sample_thread;
    int64_t *sample_time;
    int64_t *sample_values; /* n_samples * n_value_types */
    size_t n_samples, cap_samples;
    uint32_t *sample_labels; /* each row's label set; NULL while every row's is 0 */
    pk_idset sample_set; /* untimed rows by (stack, thread, label set) */
    /* A timed row's CPU use since its thread's previous sample (Gecko's
     * threadCPUDelta), in sample_cpu_unit (a string: "µs", "ns" or
     * "variable CPU cycles"; 0 when the file named none). NULL while no row
     * has one; PK_NO_CPU for a row without. */
    int64_t *sample_cpu;
    uint32_t sample_cpu_unit;
    /* Paused ranges (Gecko pausedRanges): each the JSON object as it came
     * (a string id) and the pid of the process it belongs to (-1: unknown,
     * every thread's). */
    struct pk_paused_range { uint32_t range; int64_t pid; } *paused;
    size_t n_paused, cap_paused;
    size_t samples_indexed;   /* rows [0, samples_indexed) went through sample_set */

    /* label sets: set i is labels[sets[i].first .. + sets[i].n), hash-consed
     * (labelset_set, rows [0, labelsets_indexed)); set 0 is the empty one and
     * exists once a set was added (n_labelsets == 0: no labels at all) */
    profkit_label *labels;
    size_t n_labels, cap_labels;
    struct pk_labelset { uint32_t first, n; } *labelsets;
    size_t n_labelsets, cap_labelsets;
    pk_idset labelset_set;

    profkit_thread *threads;
    size_t n_threads, cap_threads;
    /* threads by (name, process, pid, tid): rows [0, threads_indexed), the
     * first of equal rows only; caught up (or rebuilt, when rows were
     * dropped) at the next lookup */
    pk_idset thread_set;
    size_t threads_indexed;

    profkit_mapping *mappings;
    size_t n_mappings, cap_mappings;
    /* 1: a frame's mapping is final (PROFKIT_NONE = none), no step looks
     * its address up among the mappings (set by a merge: mapping.c) */
    int mappings_settled;

    profkit_meta *metadata;
    size_t n_metadata, cap_metadata;

    profkit_marker *markers;
    size_t n_markers, cap_markers;
    profkit_marker_cause *marker_causes; /* only markers with a cause have one */
    size_t n_marker_causes, cap_marker_causes;

    /* frame categories (profkit_category) and their subcategories' names */
    profkit_category *categories;
    size_t n_categories, cap_categories;
    uint32_t *subcategories;
    size_t n_subcategories, cap_subcategories;

    /* counters (profkit_counter) and their samples, each counter's rows
     * one run in counter_samples */
    profkit_counter *counters;
    size_t n_counters, cap_counters;
    profkit_counter_sample *counter_samples;
    size_t n_counter_samples, cap_counter_samples;
    /* the memory operations behind counters by operation order, when a
     * reader kept them (model/counter_iter.h); NULL: none */
    struct pk_mem_ops *mem_ops;

    char format[32]; /* name of the format read */

    pk_sym_summary *symbols; /* what symbolization did (profkit_report_info
                                prints it); NULL = nothing to name */

    /* The totals before the first filter or transform (what percentages
     * are of, as pprof's): whole_totals[t * n_value_types + v] for thread
     * t, row whole_threads for all threads; NULL until one ran. */
    int64_t *whole_totals;
    size_t whole_threads, whole_values;
};

/* ---- the whole total (src/model/totals.c) ---- */
/* Keeps p's totals per thread and value type before its first filter or
 * transform (p->whole_totals), once. Returns 0 or PROFKIT_ENOMEM. */
int pk_note_whole_totals(profkit_profile *p);
/* What a report's percentages of value type `value` over thread `thread`
 * (PROFKIT_NONE: all) are of: the whole profile's total as it was before
 * the filters and transforms, as pprof's are, or `total` (the rows' total
 * after them) when nothing filtered p or its whole total was dropped
 * (profkit_profile_drop_whole_total: --relative). */
int64_t pk_percent_total(const profkit_profile *p, uint32_t value, uint32_t thread, int64_t total);

/* String helpers (intern returns PROFKIT_NONE when out of memory). */
static inline const char *pk_str(const profkit_profile *p, uint32_t id)
{
    return pk_strtab_get(&p->strings, id);
}

/*
 * Adds a function (hash-consed on all fields). Returns its id or PROFKIT_NONE
 * when out of memory.
 */
uint32_t pk_function_add(profkit_profile *p, const profkit_function *f);
/* The same in steps, as pk_frame_hash and the rest below. */
uint64_t pk_function_hash(const profkit_function *f);
void pk_function_prefetch(const profkit_profile *p, uint64_t hash);
uint32_t pk_function_add_hashed(profkit_profile *p, const profkit_function *f, uint64_t hash);
/* Convenience: a function from C strings (NULL = ""). */
uint32_t pk_function_add_named(profkit_profile *p, const char *name, const char *file,
                                    const char *module, uint32_t start_line);
/* Mapping ids sorted by start (malloc'd; NULL when out of memory). */
uint32_t *pk_mappings_by_start(const profkit_profile *p);
/* The mapping holding addr (sorted from pk_mappings_by_start), or
 * PROFKIT_NONE. Overlapping mappings: the nearest start wins. */
uint32_t pk_mapping_at(const profkit_profile *p, const uint32_t *sorted, uint64_t addr);
/* Gives each frame with an address and no mapping the mapping holding the
 * address, and marks the mappings settled. Returns 0 or PROFKIT_ENOMEM. */
int pk_profile_settle_mappings(profkit_profile *p);
/* Rebuilds the frame index after frames were changed in place (symbolization). */
int pk_profile_reindex_frames(profkit_profile *p);
/* Adds a frame (hash-consed). Returns its id or PROFKIT_NONE. */
uint32_t pk_frame_add(profkit_profile *p, const profkit_frame *f);
/*
 * The same in steps, for a reader that has several frames to add: each
 * one's hash (pk_frame_hash) and its index slot asked for early
 * (pk_frame_prefetch), so the misses of several lookups overlap; then
 * pk_frame_add_hashed with that hash, in the order pk_frame_add would
 * have been called (the ids are the same).
 */
uint64_t pk_frame_hash(const profkit_frame *f);
void pk_frame_prefetch(const profkit_profile *p, uint64_t hash);
uint32_t pk_frame_add_hashed(profkit_profile *p, const profkit_frame *f, uint64_t hash);
/*
 * Appends a frame the caller knows is not in the table yet (as
 * pk_stack_append below: no lookup; the index catches up on the next
 * pk_frame_add). Returns its id or PROFKIT_NONE.
 */
uint32_t pk_frame_append(profkit_profile *p, const profkit_frame *f);
/* Interns the stack (parent, frame). parent 0 = root. Returns id or
 * PROFKIT_NONE (out of memory, or a new stack past the read's depth limit:
 * see pk_profile_limit). */
uint32_t pk_stack_intern(profkit_profile *p, uint32_t parent, uint32_t frame);
/*
 * Appends the stack (parent, frame) that the caller knows is not in the
 * table yet: a child of a node made in the same pass, or of a node whose
 * children are all known (a reader walking sorted stacks). It skips the
 * lookup, and the index catches up the next time pk_stack_intern runs,
 * so a reader that only appends never builds it. A wrong "not there yet"
 * leaves two equal nodes, which every analysis still sums correctly.
 * Returns the id or PROFKIT_NONE when out of memory.
 */
uint32_t pk_stack_append(profkit_profile *p, uint32_t parent, uint32_t frame);
/*
 * Sets the limits of a read (0 = none; the registry sets them before a
 * reader runs and clears them after): a new stack deeper than max_depth
 * frames, or a new thread past max_threads, is refused with PROFKIT_NONE,
 * as when out of memory, and p->limit_hit says which (PROFKIT_LIMIT_*),
 * so no reader needs code of its own to stop at the limit, and memory
 * stays bounded while reading. Returns 0 or PROFKIT_ENOMEM.
 */
enum { PROFKIT_LIMIT_DEPTH = 1, PROFKIT_LIMIT_THREADS = 2 };
int pk_profile_limit(profkit_profile *p, uint32_t max_depth, uint32_t max_threads);
/* Interns a whole stack given root-first frames. Returns id or PROFKIT_NONE. */
uint32_t pk_stack_intern_frames(profkit_profile *p, const uint32_t *frames, size_t n);
/*
 * Hands the stack table to the caller (*old, *n_old rows; free() it) and
 * leaves p with the root stack only, so the stacks can be built again
 * (symbolization turns one frame into a chain of inlined ones). Sample
 * rows keep their stack ids: the caller rewrites every one. Returns 0 or
 * PROFKIT_ENOMEM (nothing changed).
 */
int pk_profile_take_stacks(profkit_profile *p, profkit_stack **old, size_t *n_old);
/*
 * Says that the caller rewrote the stack table in place (rows p->stacks[1,
 * n) with n <= p->n_stacks, parents before children, no two rows alike):
 * the table keeps n rows and the indexes by stack are built again by the
 * next lookup that needs them. Only without a depth limit (limit_depth 0).
 */
void pk_profile_stacks_rewritten(profkit_profile *p, size_t n);
/*
 * Drops the frames no stack uses and the functions no frame uses, and
 * renumbers the rest (order kept). Returns 0 or PROFKIT_ENOMEM.
 */
int pk_profile_compact(profkit_profile *p);
/* Depth of a stack (root = 0). */
size_t pk_stack_depth(const profkit_profile *p, uint32_t stack);

/*
 * Adds a value type; returns its index, or PROFKIT_NONE when out of memory.
 * An existing (type, unit) returns the existing index. Adding a value type
 * after samples exist re-lays the value array (new column = 0).
 */
uint32_t pk_value_type_add(profkit_profile *p, const char *type, const char *unit);

/* Adds a thread; returns its index or PROFKIT_NONE. pid/tid -1 = unknown. */
uint32_t pk_thread_add(profkit_profile *p, const char *name, const char *process_name,
                            int64_t pid, int64_t tid);
/* Finds a thread with this exact name, pid and tid, or adds it. */
uint32_t pk_thread_get(profkit_profile *p, const char *name, const char *process_name,
                            int64_t pid, int64_t tid);

/*
 * Renumbers the threads: thread t becomes thread to[t] (to: a permutation
 * of 0 .. n_threads - 1), and everything that names a thread by index
 * follows (sample rows, markers, counters, kept memory operations, the
 * whole totals); the thread and sample indexes are built again at their
 * next lookup. Linear in the threads, rows and markers. Returns 0 or
 * PROFKIT_ENOMEM (nothing changed).
 */
int pk_profile_renumber_threads(profkit_profile *p, const uint32_t *to);

/* Adds a mapping; returns its index or PROFKIT_NONE. */
uint32_t pk_mapping_add(profkit_profile *p, uint64_t start, uint64_t end, uint64_t offset,
                             const char *path, const char *build_id);
/* Appends a metadata pair (order kept, duplicates allowed). 0 or PROFKIT_ENOMEM. */
int pk_meta_add(profkit_profile *p, const char *key, const char *value);
int pk_meta_add_len(profkit_profile *p, const char *key, const char *value, size_t len);
/* The last value of metadata key, or NULL. */
const char *pk_meta_get(const profkit_profile *p, const char *key);
/* Whether a metadata key is a reader's hint to the analyses rather than
 * something the file said ("threadRange", "markerType": a Chrome trace's
 * threads' ranges and marker types in the Firefox Profiler's importer):
 * `info` does not list them. */
static inline int pk_meta_hint(const char *key)
{
    return strcmp(key, "threadRange") == 0 || strcmp(key, "markerType") == 0;
}
/*
 * Appends a frame category with its subcategories' names (string ids) and
 * returns its index, or PROFKIT_NONE when out of memory or when the
 * profile has PK_MAX_CATEGORIES already (a frame's category is 16 bits).
 */
#define PK_MAX_CATEGORIES 65535u
uint32_t pk_category_add(profkit_profile *p, uint32_t name, uint32_t color, const uint32_t *subs,
                         size_t n_subs);
/* The default category as the Firefox Profiler takes it: 1 + the index of
 * the first grey one, 0 = none. */
uint32_t pk_default_category(const profkit_profile *p);
/* Appends a marker cause; returns what profkit_marker.cause takes (1 +
 * its index), or 0 when out of memory. */
uint32_t pk_marker_cause_add(profkit_profile *p, int64_t time, uint32_t stack);
/* Appends a marker. 0 or PROFKIT_ENOMEM. */
int pk_marker_add(profkit_profile *p, const profkit_marker *m);

/*
 * Adds values (n_value_types of them) to the untimed row (stack, thread),
 * creating it when new. Returns 0 or PROFKIT_ENOMEM.
 */
int pk_sample_add(profkit_profile *p, uint32_t stack, uint32_t thread, const int64_t *values);
/*
 * Appends the untimed row (stack, thread) that the caller knows is new (its
 * stack was made in this pass), like pk_stack_append: the row index
 * catches up on the next pk_sample_add. Returns 0 or PROFKIT_ENOMEM.
 */
int pk_sample_append(profkit_profile *p, uint32_t stack, uint32_t thread,
                          const int64_t *values);
/* Appends a timed row (time in ns). Returns 0 or PROFKIT_ENOMEM. */
int pk_sample_add_timed(profkit_profile *p, uint32_t stack, uint32_t thread, int64_t time,
                             const int64_t *values);
/*
 * Label sets. pk_labelset_intern sorts l[0..n) by key (stable: the values
 * of one key keep their order) and returns the set's id (0 when n == 0),
 * or PROFKIT_NONE when out of memory. The _labeled adds are pk_sample_add
 * and pk_sample_add_timed with a set: rows of different sets stay apart.
 * The per-row array exists only once a row has a set other than 0.
 */
uint32_t pk_labelset_intern(profkit_profile *p, profkit_label *l, size_t n);
int pk_sample_add_labeled(profkit_profile *p, uint32_t stack, uint32_t thread, uint32_t labels,
                               const int64_t *values);
int pk_sample_add_timed_labeled(profkit_profile *p, uint32_t stack, uint32_t thread,
                                     int64_t time, uint32_t labels, const int64_t *values);
/* The label set of row r (0 when the profile has none). */
static inline uint32_t pk_sample_labels(const profkit_profile *p, size_t r)
{
    return p->sample_labels ? p->sample_labels[r] : 0;
}
/* Row r's CPU delta (profkit_profile.sample_cpu) or PK_NO_CPU. */
#define PK_NO_CPU INT64_MIN
static inline int64_t pk_sample_cpu(const profkit_profile *p, size_t r)
{
    return p->sample_cpu && r < p->n_samples ? p->sample_cpu[r] : PK_NO_CPU;
}
/* Adds a paused range (profkit_profile.paused). 0 or PROFKIT_ENOMEM. */
int pk_paused_add(profkit_profile *p, uint32_t range, int64_t pid);
/* Sets row r's CPU delta, making the column on the first. 0 or PROFKIT_ENOMEM. */
int pk_sample_set_cpu(profkit_profile *p, size_t r, int64_t delta);
/* True when any sample row carries a time. */
int pk_profile_is_timed(const profkit_profile *p);

/* Sets the name of the format the profile came from. */
void pk_profile_set_format(profkit_profile *p, const char *name);

/* ---- selection helpers shared by writers and reports ---- */

/*
 * Resolves a value name (NULL = default) to an index; on failure fills err
 * (PROFKIT_EINVAL, listing the available names) and returns PROFKIT_NONE.
 */
uint32_t pk_select_value(const profkit_profile *p, const char *name, profkit_error *err);
/*
 * Resolves a thread selector (NULL = all) to a thread index, or PROFKIT_NONE
 * for "all threads": a thread's name, its index (also "t-N", the Firefox
 * Profiler's handle) or its tid ("tid:TID", or a number that is no index).
 * A selector that matches no thread, or several (two threads of one name),
 * fills err (PROFKIT_EINVAL; several are listed) and sets *ok = 0.
 */
uint32_t pk_select_thread(const profkit_profile *p, const char *sel, int *ok, profkit_error *err);
/*
 * A thread as the Firefox Profiler names it: "NAME (PROCESS, pid P, tid T)",
 * each part in parentheses only when the profile knows it ("main" alone
 * when none). Returns the length written to buf (NUL-terminated, cut to n).
 */
size_t pk_thread_label(const profkit_profile *p, uint32_t t, char *buf, size_t n);
/*
 * Both, as reports and writers take them: *value from `value` and *thread
 * from `thread` (PROFKIT_NONE = all threads). Returns 0, or PROFKIT_EINVAL
 * with err filled.
 */
int pk_select(const profkit_profile *p, const char *value, const char *thread,
                   uint32_t *value_out, uint32_t *thread_out, profkit_error *err);

/*
 * The label of a frame as folded output and reports print it: the function
 * name; an empty name is the mapping's file name and the offset in the
 * file (FILE+0xOFFSET: the same in every run under ASLR) when the frame
 * has a mapping with a path, else the address as 0x + lowercase hex. With by_line the
 * label gets ":LINE" (and ":COLUMN") when the frame has a line. Writes into
 * buf (always NUL-terminated) and returns the length written. A name is
 * copied whole, NUL bytes included (pprof strings may hold them), so use
 * the length, not strlen, to keep every byte.
 */
size_t pk_frame_label(const profkit_profile *p, uint32_t frame, int by_line, char *buf,
                           size_t n);

/*
 * Copies string `id` into buf (n > 0 bytes, always NUL-terminated) as
 * "%s" prints it (up to a NUL byte), cut to n - 1 bytes, and returns the
 * length written. It costs what it copies, not
 * the string's length: a label of a long name, made once per frame, stays a
 * constant per frame (snprintf("%s") walks the whole string every time).
 */
size_t pk_str_copy(const profkit_profile *p, uint32_t id, char *buf, size_t n);

#endif
