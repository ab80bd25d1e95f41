/*
 * profkit.h: the public API of libprofkit.
 *
 * libprofkit reads profiles of many formats into one model (a profile),
 * analyses it and writes it out as a report or another format. The flow:
 *
 *   profkit_profile_read_file()  ->  profkit_profile  ->  profkit_report_*()
 *                                                     ->  profkit_profile_write_file()
 *                                                     ->  profkit_profile_write_memory()
 *
 * Conventions: functions return 0 or a negative PROFKIT_E* code; details go in
 * a caller-supplied profkit_error. Output parameters come first. Everything a
 * profile holds is owned by it and released by profkit_profile_free().
 * Ids are dense indexes into the profile's tables, never pointers.
 *
 * This header compiles as C99 and as C++. What it declares is the stable
 * API and everything libprofkit exports; docs/api.md says what may change
 * between versions and how to link.
 */
#ifndef PROFKIT_H
#define PROFKIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks what the shared library exports (it is built with hidden
 * visibility: nothing else is). */
#if defined(__GNUC__) || defined(__clang__)
#define PROFKIT_API __attribute__((visibility("default")))
#else
#define PROFKIT_API
#endif

/* The version of this header (the build reads it from here: one place).
 * PROFKIT_VERSION_NUMBER is MAJOR * 1000000 + MINOR * 1000 + PATCH, for
 * #if PROFKIT_VERSION_NUMBER >= 1002000. */
#define PROFKIT_VERSION_MAJOR 0
#define PROFKIT_VERSION_MINOR 1
#define PROFKIT_VERSION_PATCH 0
#define PROFKIT_VERSION_STRING "0.1.0"
#define PROFKIT_VERSION_NUMBER \
    (PROFKIT_VERSION_MAJOR * 1000000 + PROFKIT_VERSION_MINOR * 1000 + PROFKIT_VERSION_PATCH)

/* ---------------------------------------------------------------- errors */

/* Error codes. Values are pinned: they are part of the ABI. */
enum {
    PROFKIT_OK = 0,
    PROFKIT_EFORMAT = -1,      /* not this format / unknown format */
    PROFKIT_ETRUNCATED = -2,   /* input ends before a complete item */
    PROFKIT_ECORRUPT = -3,     /* input violates the format */
    PROFKIT_EUNSUPPORTED = -4, /* a valid variant profkit does not handle, or an
                                  optional part this library was built without */
    PROFKIT_ENOMEM = -5,       /* allocation failed or size overflow */
    PROFKIT_EIO = -6,          /* reading or writing a file failed */
    PROFKIT_EINVAL = -7,       /* bad argument (unknown value type, thread...) */
    PROFKIT_ENOTFOUND = -8     /* nothing matched (a store query that selects no profile) */
};

/* "none" for optional ids (mapping of a frame, ...). String id 0 is "". */
#define PROFKIT_NONE UINT32_MAX

/*
 * Details of an error or a warning. `file` names the input, `offset` the
 * byte offset in the (decompressed) input when has_offset is set, `line` and
 * `column` (1-based, 0 = unknown) the position in a text input.
 */
typedef struct profkit_error {
    int code;
    int has_offset;
    uint64_t offset;
    uint32_t line;
    uint32_t column;
    char file[256];
    char message[512];
} profkit_error;

/* A short constant description of an error code ("corrupt input"). */
PROFKIT_API const char *profkit_strerror(int code);

/*
 * Formats an error or warning as one line:
 *   "FILE: offset N: MESSAGE" or "FILE:LINE:COLUMN: MESSAGE" or "FILE: MESSAGE".
 * Always NUL-terminates buf (when n > 0). Returns buf.
 */
PROFKIT_API char *profkit_error_string(char *buf, size_t n, const profkit_error *e);

/* ------------------------------------------------ version and optional parts */

/*
 * The version of the library running ("0.1.0"), which may differ from the
 * header a program was compiled with (PROFKIT_VERSION_STRING) when it links
 * the shared library: compare them to refuse an older library.
 */
PROFKIT_API const char *profkit_version(void);

/*
 * The parts a libprofkit may be built without, each needing a package of
 * its own: "store" (SQLite), "clickhouse" (the store's ClickHouse engine,
 * libcurl), "server" (the local web server, libmicrohttpd), "disasm"
 * (profkit_report_list's disassembly, Capstone), "debuginfod"
 * (libdebuginfod). Without a part its functions still exist and return
 * PROFKIT_EUNSUPPORTED with a message naming the part and how to get it.
 */
typedef struct profkit_part_info {
    const char *name;        /* "store", "clickhouse", "server", "disasm", "debuginfod" */
    const char *description; /* one line: what it does and what it needs */
    int built;               /* 1: this library has it; 0: it was built without it */
} profkit_part_info;

PROFKIT_API size_t profkit_part_count(void);
/* Information about part i (0 <= i < count), or NULL. */
PROFKIT_API const profkit_part_info *profkit_part_get(size_t i);
/*
 * 0 when this library has the part `name`; PROFKIT_EUNSUPPORTED when it was
 * built without it (err says which part and how to get it), or
 * PROFKIT_EINVAL for a name that is no part. err may be NULL.
 */
PROFKIT_API int profkit_part_check(const char *name, profkit_error *err);

/* --------------------------------------------------------------- model */

typedef struct profkit_profile profkit_profile;

/* A function: name, system (mangled) name, file, module (string ids). */
typedef struct profkit_function {
    uint32_t name;
    uint32_t system_name;
    uint32_t file;
    uint32_t module;
    uint32_t start_line; /* definition line, 0 = unknown */
} profkit_function;

/*
 * A frame (location): a function at a line/column/address.
 *
 * One machine address may stand for several calls when the compiler
 * inlined functions into each other. Such an address becomes a chain of
 * frames with the same address, outermost caller first (as stacks go, root
 * to leaf): the real (out-of-line) function has inline_depth 0, the
 * function inlined into it 1, the one inlined into that 2, and so on. A
 * frame with inline_depth > 0 is always the child, in its stack, of the
 * frame it was inlined into (pprof keeps such a chain as one Location with
 * several Lines; the Firefox Profiler as frames with an inlineDepth).
 */
typedef struct profkit_frame {
    uint64_t address;      /* 0 = unknown */
    uint32_t function;     /* index into functions */
    uint32_t line;         /* 0 = unknown */
    uint32_t column;       /* 0 = unknown; format detail (BR clause) otherwise */
    uint32_t mapping;      /* index into mappings, or PROFKIT_NONE */
    uint32_t inline_depth; /* 0 = a real call; n > 0 = inlined into the frame above it */
    /* Frames are compared bytewise: these fill what was padding, 0 = none. */
    uint16_t category;     /* 1 + index into profkit_profile_categories; 0 = none (the
                              frame takes its caller's, as the Firefox Profiler's do) */
    uint8_t subcategory;   /* index into its category's subcategories */
    uint8_t flags;         /* PROFKIT_FRAME_JS, PROFKIT_FRAME_RELEVANT_FOR_JS */
} profkit_frame;

/* profkit_frame.flags: a JavaScript frame (the Firefox Profiler's isJS), a
 * native frame shown in the JS-only call tree (relevantForJS). */
#define PROFKIT_FRAME_JS 1u
#define PROFKIT_FRAME_RELEVANT_FOR_JS 2u

/*
 * A frame category (Gecko's meta.categories): name, colour (string ids,
 * colour "" = none) and its subcategories' names, the string ids
 * profkit_profile_subcategories(p)[first_subcategory .. + n_subcategories).
 */
typedef struct profkit_category {
    uint32_t name;
    uint32_t color;
    uint32_t first_subcategory;
    uint32_t n_subcategories;
} profkit_category;

/*
 * A node of the call tree: stack id s is the stack (parent, frame).
 * Stack 0 is the root: the empty stack, with frame PROFKIT_NONE.
 */
typedef struct profkit_stack {
    uint32_t parent;
    uint32_t frame;
} profkit_stack;

typedef struct profkit_value_type {
    uint32_t type; /* "cpu", "samples", ... */
    uint32_t unit; /* "nanoseconds", "count", "bytes", ... */
} profkit_value_type;

typedef struct profkit_thread {
    uint32_t name;
    uint32_t process_name;
    int64_t pid; /* -1 = unknown */
    int64_t tid; /* -1 = unknown */
    /* When its process started and when the thread was registered (Gecko
     * processStartupTime, registerTime), ns on the samples' time axis;
     * PROFKIT_NO_TIME = unknown. Not part of a thread's identity. */
    int64_t process_start;
    int64_t register_time;
    /* Its process's type as Gecko names it ("default" the parent process,
     * "tab" a content process, "gpu", ...): a string id, 0 = unknown. Not
     * part of a thread's identity. */
    uint32_t process_type;
    uint32_t reserved; /* 0 */
} profkit_thread;

typedef struct profkit_mapping {
    uint64_t start;
    uint64_t end;
    uint64_t offset;
    uint32_t path;
    uint32_t build_id;
} profkit_mapping;

typedef struct profkit_meta {
    uint32_t key;
    uint32_t value;
} profkit_meta;

/* A marker's phase, as the Firefox Profiler's (0..3). */
typedef enum profkit_marker_phase {
    PROFKIT_MARKER_INSTANT = 0,  /* a point in time: start only */
    PROFKIT_MARKER_INTERVAL = 1, /* start and end */
    PROFKIT_MARKER_START = 2,    /* the start of an interval whose end is a later marker: start only */
    PROFKIT_MARKER_END = 3       /* the end of an interval started by an earlier marker: end only */
} profkit_marker_phase;

/*
 * A marker (Gecko, processed Firefox): never part of stacks. Times in ns on
 * the samples' time axis; a time the phase does not have is
 * PROFKIT_NO_TIME (an instant's and a start's end, an end's start): none
 * is invented. The payload is the marker's data as JSON text, as it came.
 */
typedef struct profkit_marker {
    int64_t start;
    int64_t end;
    uint32_t thread;
    uint32_t name;
    uint32_t category; /* string id of its category's name, 0 = none */
    uint32_t payload;  /* JSON text, or 0 */
    uint32_t phase;    /* profkit_marker_phase */
    uint32_t cause;    /* 1 + index into profkit_profile_marker_causes, 0 = none */
} profkit_marker;

/*
 * Where a marker was caused (a Gecko marker's `data.stack`, a processed
 * one's `data.cause`): the stack captured and when (ns on the samples'
 * time axis, PROFKIT_NO_TIME = unknown). Its payload keeps the rest.
 */
typedef struct profkit_marker_cause {
    int64_t time;
    uint32_t stack;    /* a stack id */
    uint32_t reserved; /* 0 */
} profkit_marker_cause;

/*
 * Frame categories (a Gecko or Firefox profile's; empty for other formats):
 * *n receives the number of categories; profkit_profile_subcategories gives
 * the flat array of subcategory names (string ids) they index.
 */
PROFKIT_API const profkit_category *profkit_profile_categories(const profkit_profile *p, size_t *n);
/* The markers' causes (profkit_marker.cause indexes them); *n receives how many. */
PROFKIT_API const profkit_marker_cause *profkit_profile_marker_causes(const profkit_profile *p, size_t *n);
PROFKIT_API const uint32_t *profkit_profile_subcategories(const profkit_profile *p, size_t *n);
/*
 * The category of every stack as the Firefox Profiler gives it: its frame's,
 * or when the frame has none its parent's, or at the root the default
 * category (the first grey one). out[s] for s < number of stacks: 1 + the
 * category index, 0 = none. Returns 0, or PROFKIT_EINVAL when out is NULL.
 */
PROFKIT_API int profkit_profile_stack_categories(const profkit_profile *p, uint16_t *out);
/* Index of the category named `name`, or PROFKIT_NONE. */
PROFKIT_API uint32_t profkit_profile_category_find(const profkit_profile *p, const char *name);

/*
 * Counters (a Gecko or processed Firefox profile's memory and power
 * counters; bsprof's bytes in use per thread): a counter is a series of
 * samples, each a time (ns on the samples' time axis; for bsprof the
 * operation's index, as the operations have no time) and the amount
 * counted since the previous sample (`count`: bytes allocated minus bytes
 * freed, picowatt-hours, ...) and the number of events in it (`number`,
 * 0 = unknown). The running sum of the counts is what the Firefox
 * Profiler draws for a memory counter.
 */
typedef struct profkit_counter {
    uint32_t name, category, description; /* string ids ("" = none) */
    uint32_t thread;  /* the thread it belongs to (a process's main thread), or PROFKIT_NONE */
    int64_t pid;      /* its process, -1 = unknown */
    uint32_t by_order; /* 1: times are operation indexes, not ns */
    uint32_t display;  /* JSON text: how the Firefox Profiler draws it (its
                          `display`), as the input had it; 0 = none */
    size_t first, n;  /* its rows in profkit_profile_counter_samples */
} profkit_counter;

typedef struct profkit_counter_sample {
    int64_t time;
    int64_t count;
    int64_t number;
} profkit_counter_sample;

/* The counters and their samples; *n receives how many. */
PROFKIT_API const profkit_counter *profkit_profile_counters(const profkit_profile *p, size_t *n);
PROFKIT_API const profkit_counter_sample *profkit_profile_counter_samples(const profkit_profile *p,
                                                                         size_t *n);
/* Adds a counter (its first/n are set: it has no sample yet) and returns its
 * index, or PROFKIT_NONE when out of memory. */
PROFKIT_API uint32_t profkit_counter_add(profkit_profile *p, const profkit_counter *c);
/* Appends a sample to the last counter added. 0 or PROFKIT_ENOMEM. */
PROFKIT_API int profkit_counter_sample_add(profkit_profile *p, int64_t time, int64_t count,
                                           int64_t number);

/* Sample time for rows of aggregated (untimed) profiles. */
#define PROFKIT_NO_TIME INT64_MIN

/* Creates an empty profile. Returns NULL when out of memory. */
PROFKIT_API profkit_profile *profkit_profile_new(void);
/* Releases a profile and everything it owns. NULL is a no-op. */
PROFKIT_API void profkit_profile_free(profkit_profile *p);

/* The string with id `id` ("" for ids out of range). Valid while p lives. */
PROFKIT_API const char *profkit_string(const profkit_profile *p, uint32_t id);
/* Interns a string; returns its id, or PROFKIT_NONE when out of memory. */
PROFKIT_API uint32_t profkit_string_intern(profkit_profile *p, const char *s, size_t len);
PROFKIT_API uint32_t profkit_string_intern_cstr(profkit_profile *p, const char *s);

/* Read-only views of the tables; *n receives the number of rows. */
PROFKIT_API const profkit_function *profkit_profile_functions(const profkit_profile *p, size_t *n);
PROFKIT_API const profkit_frame *profkit_profile_frames(const profkit_profile *p, size_t *n);
PROFKIT_API const profkit_stack *profkit_profile_stacks(const profkit_profile *p, size_t *n);
PROFKIT_API const profkit_value_type *profkit_profile_value_types(const profkit_profile *p,
                                                                  size_t *n);
PROFKIT_API const profkit_thread *profkit_profile_threads(const profkit_profile *p, size_t *n);
PROFKIT_API const profkit_mapping *profkit_profile_mappings(const profkit_profile *p, size_t *n);
PROFKIT_API const profkit_meta *profkit_profile_metadata(const profkit_profile *p, size_t *n);
PROFKIT_API const profkit_marker *profkit_profile_markers(const profkit_profile *p, size_t *n);

/* Samples: n rows; row i has stack[i], thread[i], time[i] (ns, or
 * PROFKIT_NO_TIME) and values[i * n_value_types + v]. */
typedef struct profkit_samples {
    size_t n;
    size_t n_values;
    const uint32_t *stack;
    const uint32_t *thread;
    const int64_t *time;
    const int64_t *values;
    /* labels[i]: row i's label set (profkit_profile_labelset); NULL when
     * no row has a label (then every row's set is 0, the empty one) */
    const uint32_t *labels;
} profkit_samples;
PROFKIT_API void profkit_profile_samples(const profkit_profile *p, profkit_samples *out);

/*
 * Sample labels (pprof's Sample.label): a key and either a string value
 * (str != 0, or is_num == 0) or a number with an optional unit. A row has
 * one label set, id 0 being the empty set; equal sets share one id, and rows
 * that differ only by their label set stay apart. A set's labels are in the
 * order of their keys' string ids, several values of one key in the order
 * they were read.
 */
typedef struct profkit_label {
    uint32_t key;   /* string id */
    uint32_t str;   /* string id of the value (is_num == 0) */
    int64_t num;    /* the number (is_num == 1) */
    uint32_t unit;  /* string id of num's unit, 0 = none given */
    uint32_t is_num;
} profkit_label;
/* The labels of set `set` (*n of them; NULL and 0 for the empty set or an
 * unknown id). */
PROFKIT_API const profkit_label *profkit_profile_labelset(const profkit_profile *p, uint32_t set,
                                                          size_t *n);
/* How many label sets the profile has, the empty one (0) included. */
PROFKIT_API size_t profkit_profile_n_labelsets(const profkit_profile *p);

/* Name of the format the profile was read from ("gperftools"), or "". */
PROFKIT_API const char *profkit_profile_format(const profkit_profile *p);
/* Index of the default value type (the one reports use without --value). */
PROFKIT_API uint32_t profkit_profile_default_value(const profkit_profile *p);

/*
 * Finds a value type by its type name ("cpu") or "type/unit". Returns the
 * index, or PROFKIT_NONE.
 */
PROFKIT_API uint32_t profkit_profile_find_value(const profkit_profile *p, const char *name);

/*
 * Merges src into dst: strings, functions, frames and stacks are remapped,
 * value types are united by (type, unit) (missing values count 0), threads
 * are united by (name, process, pid, tid), samples of equal (stack, thread)
 * in untimed profiles are summed. Metadata of src is appended.
 */
PROFKIT_API int profkit_profile_merge(profkit_profile *dst, const profkit_profile *src,
                                      profkit_error *err);

/* -------------------------------------------------------- reading */

/* Called for every warning; `w->code` says what kind. */
typedef void (*profkit_warning_fn)(const profkit_error *w, void *payload);
/* Called now and then while reading: `done` of `total` bytes (total 0 = unknown).
 * A reader may call it from a thread of its own (gperftools reads in a
 * second thread), never while another callback of the same read runs. */
typedef void (*profkit_progress_fn)(uint64_t done, uint64_t total, void *payload);

typedef struct profkit_read_options {
    const char *format;     /* NULL: detect from content; else a format name */
    int strict;             /* every warning becomes an error */
    profkit_warning_fn on_warning;
    profkit_progress_fn on_progress;
    void *payload;          /* passed to the callbacks */
    int skip_markers;       /* do not keep markers (Gecko, processed Firefox):
                               for analyses that never use them; their JSON
                               is still parsed, not checked or stored */
    int skip_inuse;         /* the caller reads no inuse_objects/inuse_space:
                               a reader that finds them by matching frees
                               with allocations (bsprof) skips that, leaves
                               them 0 and does not count or report frees
                               that matched nothing */
    int skip_lines;         /* the caller keys nothing by line: a reader may
                               give frames their function's definition line
                               instead (bsprof: fewer rows) */
    /* Limits on absurd sizes (docs/formats/README.md, "Limits"); 0 takes
     * the default. Input over a limit is refused with an error naming it. */
    uint64_t max_string_size; /* one JSON string or number, in bytes: 256 MiB */
    uint32_t max_depth;       /* frames in one stack: 1 M (1048576) */
    uint32_t max_threads;     /* threads in one profile: 1 M (1048576) */
    uint64_t max_inflate;     /* decompressed bytes per compressed byte, past 1 GiB: 1000 */
    int skip_counters;        /* the caller never shows counters: a reader that
                                 builds them itself (bsprof's memory counters,
                                 a cost on every memory operation) may skip them */
    int keep_mem_ops;         /* the caller narrows memory by a range of
                                 operations (the page, profkit counters'
                                 sites): bsprof keeps a record per memory
                                 operation where it builds its counters
                                 (docs/formats/bsprof.md); others pay nothing */
} profkit_read_options;

/*
 * Reads a profile from `path` ("-" = standard input). gzip and zstd input is
 * decompressed transparently (detected from the bytes). The format is detected
 * from the content unless opts->format names one. On success *out owns the
 * new profile. On failure returns a negative code, fills *err and leaves
 * *out NULL. opts may be NULL.
 */
PROFKIT_API int profkit_profile_read_file(profkit_profile **out, const char *path,
                                          const profkit_read_options *opts, profkit_error *err);
/* Same, from memory; `name` is used in messages. The data is not retained. */
PROFKIT_API int profkit_profile_read_memory(profkit_profile **out, const void *data, size_t size,
                                            const char *name, const profkit_read_options *opts,
                                            profkit_error *err);

/* -------------------------------------------------------- writing */

typedef struct profkit_write_options {
    const char *format; /* format name; NULL: from the output path's extension
                           (profkit_profile_write_memory needs it) */
    const char *value;  /* value type for single-value formats (folded); NULL: default */
    const char *thread; /* only this thread (name or index); NULL: all */
    int by_line;        /* folded: label frames with their line */
    /* Called once for what the format cannot hold and the writer leaves
     * out (DCPI: the events other than the one written); may be NULL. */
    profkit_warning_fn on_warning;
    void *payload;
} profkit_write_options;

/*
 * Writes `p` to `path` (NULL or "-" = standard output). A file is written to
 * a temporary name beside it and renamed when complete, so no half-written
 * file is ever left. A path ending in .gz is gzip-compressed.
 */
PROFKIT_API int profkit_profile_write_file(const profkit_profile *p, const char *path,
                                           const profkit_write_options *opts, profkit_error *err);
/*
 * Writes `p` in the format opts->format names (required: there is no file
 * name to tell it from) into a new buffer: *out, NUL-terminated (the NUL
 * is not counted in *len; binary formats may hold NULs of their own), which
 * the caller free()s. The bytes are exactly those profkit_profile_write_file
 * writes to an uncompressed file with the same options; every writable
 * format can be written this way. Returns 0 or what the file write would
 * return but PROFKIT_EIO: PROFKIT_EINVAL for no or an unknown format, a
 * writer's own refusal, PROFKIT_ENOMEM; on failure *out is NULL and *len 0.
 * len may be NULL.
 */
PROFKIT_API int profkit_profile_write_memory(char **out, size_t *len, const profkit_profile *p,
                                             const profkit_write_options *opts, profkit_error *err);

/* The format name for an output path's extension, or NULL. */
PROFKIT_API const char *profkit_format_for_path(const char *path);

/* ------------------------------------------------------ symbols */

/* How symbol names are shown (--demangle). */
typedef enum profkit_demangle_mode {
    PROFKIT_DEMANGLE_SHORT = 0, /* C++/Rust demangled without parameters and
                                   template arguments, as pprof shows them */
    PROFKIT_DEMANGLE_FULL = 1,  /* demangled in full */
    PROFKIT_DEMANGLE_NONE = 2   /* the mangled (linkage) name as is */
} profkit_demangle_mode;

typedef struct profkit_symbolize_options {
    const char *const *binaries; /* ELF files to use; matched to mappings by base name
                                    (any binary covers a profile without mappings) */
    size_t n_binaries;
    int use_mapping_paths;       /* also read the files the mappings name, when present */
    const char *const *symbol_dirs; /* directories searched by build id and file name
                                       (pprof's layouts, and DIR/.build-id/ for detached
                                       debug files) */
    size_t n_symbol_dirs;
    int use_environment;         /* also PPROF_BINARY_PATH (searched as symbol_dirs) and,
                                    when DEBUGINFOD_URLS is set, debuginfod servers */
    profkit_demangle_mode demangle;
    profkit_warning_fn on_warning; /* build-id mismatches, unreadable files; may be NULL */
    void *payload;               /* passed to on_warning */
} profkit_symbolize_options;

/*
 * Names frames that have an address but no function name (or only their
 * address as a name) from the ELF files their mappings name: function,
 * source file and line from DWARF (through elfutils' libdw), with each
 * inlined call its own frame (see profkit_frame), else the function from
 * the symbol table (.symtab, MiniDebugInfo, .dynsym). Return addresses
 * (every frame but a sample's leaf) are looked up at address - 1. Stacks
 * are rebuilt, so stack ids change. A frame nothing names keeps its
 * address and gets an empty function name with the mapping's file as
 * module: its label is then FILE+0xOFFSET (as folded output labels frames).
 * Files whose build id differs from the mapping's are not used (a
 * warning). What was named, from which files, is kept for
 * profkit_report_info. Returns the number of address frames named (>= 0),
 * or a negative code with err set (out of memory only).
 */
PROFKIT_API int profkit_profile_symbolize(profkit_profile *p, const profkit_symbolize_options *o,
                                          profkit_error *err);

/* ------------------------------------------------------ formats */

typedef struct profkit_format_info {
    const char *name;        /* as --format / --to take it */
    const char *description; /* one line */
    const char *extensions;  /* space-separated, e.g. ".prof .cpu" */
    int can_read;
    int can_write;
} profkit_format_info;

PROFKIT_API size_t profkit_format_count(void);
/* Information about format i (0 <= i < count), or NULL. */
PROFKIT_API const profkit_format_info *profkit_format_get(size_t i);
/* Information about the format named `name`, or NULL. */
PROFKIT_API const profkit_format_info *profkit_format_find(const char *name);

/* ------------------------------------------------------ reports */

typedef enum profkit_key {
    PROFKIT_BY_FUNCTION = 0,
    PROFKIT_BY_FILE = 1,
    PROFKIT_BY_LINE = 2,
    PROFKIT_BY_ADDRESS = 3,
    PROFKIT_BY_MODULE = 4 /* the binary or image (DCPI: dcpiprof -i's per-image table) */
} profkit_key;

typedef struct profkit_report_options {
    const char *value;  /* value type name; NULL: default */
    const char *thread; /* thread name or index; NULL: all threads */
    profkit_key by;
    size_t limit;       /* rows; 0 = all */
    int sort_cum;       /* sort by cumulative instead of flat */
    double cutoff_pct;  /* tree: hide nodes below this percent of the total */
    size_t max_depth;   /* tree: 0 = unlimited */
    int json;           /* one JSON document instead of text (docs/json.md) */
    int gate;           /* diff: check fail_on_increase (profkit_report_diff) */
    double fail_on_increase; /* diff: percent of base's total a value may grow */
    int normalize;      /* diff: scale base to p's total first */
    const char *pattern; /* peek: POSIX extended regular expression on the key */
    const char *list_regex; /* list: the functions to show (POSIX extended) */
    const char *source_dir; /* list: where source files are looked for; NULL: their paths */
    int disasm;         /* list: the instructions of each line with their values */
    const profkit_symbolize_options *symbols; /* list --disasm: how the binaries are found
                                                 (as profkit_profile_symbolize); NULL:
                                                 only the mappings' paths */
    /* top, tree, hist: the value types shown side by side, a comma list
     * ("cpu,wall,calls"; rows sorted by the first); NULL: one value */
    const char *values;
    /* list: BASE, whose per-line (and per-instruction) values are shown
     * with the change from them to p's (as profkit_report_diff); NULL: none */
    const profkit_profile *base;
} profkit_report_options;

/* `profkit info`: format, threads, value types, counts, totals, metadata. */
PROFKIT_API int profkit_report_info(FILE *out, const profkit_profile *p, profkit_error *err);
/* The same in JSON (docs/json.md). */
PROFKIT_API int profkit_report_info_json(FILE *out, const profkit_profile *p, profkit_error *err);

/*
 * `profkit top`: flat and cumulative value per key, with percentages, sorted.
 * Recursion is counted once in the cumulative value.
 */
PROFKIT_API int profkit_report_top(FILE *out, const profkit_profile *p,
                                   const profkit_report_options *o, profkit_error *err);

/*
 * `profkit list`: per function whose name matches o->list_regex (POSIX
 * extended), as `pprof -list`: a ROUTINE header with the function's flat
 * and cumulative value, then its source lines with each line's flat value
 * (samples whose leaf frame is that line) and cumulative value (samples with
 * the line anywhere in the stack, once each), "." for zero. Source is read
 * from the function's file (its DWARF path), or under o->source_dir (the
 * path joined to it, then ever shorter tails of the path, then the base
 * name); without it, the lines with values alone. Functions by cum, then
 * name. The profile must keep lines (read as for PROFKIT_BY_LINE).
 * With o->disasm, under each line its instructions (Capstone: x86-64,
 * i386, AArch64), read from the binary the function's frames' mapping
 * names (found through o->symbols), each with its address in the file,
 * its flat value (samples whose leaf address is in it) and cumulative
 * value (samples with it anywhere in the stack; a caller's return address
 * counts for the call instruction before it); instructions of code inlined
 * into the function go under the line it was called from.
 * Returns 0, PROFKIT_EINVAL for a bad regex, value or thread, or ENOMEM;
 * with o->disasm, PROFKIT_EUNSUPPORTED when the library was built without
 * the part "disasm" (profkit_part_check).
 */
PROFKIT_API int profkit_report_list(FILE *out, const profkit_profile *p,
                                    const profkit_report_options *o, profkit_error *err);

/* ---------------------------------------- reports: tree and mem (issue 3) */

/*
 * `profkit tree`: the call tree of each thread with a non-zero total (or of
 * thread o->thread only), callers above callees, indented two spaces a
 * level; per node its total, share of the thread's total, self value and
 * callees' value, siblings biggest first. Uses o->value, o->thread,
 * o->max_depth (0 = all levels), o->cutoff_pct (nodes below it, and what
 * is under them, are hidden) and o->by (PROFKIT_BY_LINE labels NAME:LINE).
 * Returns 0, PROFKIT_EINVAL for an unknown value or thread, or ENOMEM.
 */
PROFKIT_API int profkit_report_tree(FILE *out, const profkit_profile *p,
                                    const profkit_report_options *o, profkit_error *err);

/*
 * `profkit mem`: objects and bytes allocated, freed (allocated - live) and
 * live at the end (leaks), in total, per thread and per allocating call
 * path (largest live bytes first, o->limit paths, 0 = all), and the frees
 * that matched no allocation (metadata "unmatched_frees"). Uses o->thread,
 * o->limit and o->by (PROFKIT_BY_LINE). Returns 0, PROFKIT_EINVAL when the
 * profile has no memory value types or the thread is unknown, or ENOMEM.
 */
PROFKIT_API int profkit_report_mem(FILE *out, const profkit_profile *p,
                                   const profkit_report_options *o, profkit_error *err);

/*
 * `profkit tags`: what `pprof -tags` prints: per sample label key (by
 * name) its total and per value (a string, or a number in its key's unit)
 * the value type's sum over the samples that have it and its share of the
 * key's total, largest first; numbers scaled as pprof scales them. Uses
 * o->value, o->thread, o->json. Returns 0, PROFKIT_EINVAL for an unknown
 * value or thread, or PROFKIT_ENOMEM.
 */
PROFKIT_API int profkit_report_tags(FILE *out, const profkit_profile *p,
                                    const profkit_report_options *o, profkit_error *err);

/* ---------------------------------------------- reports: hist (issue 5) */

/*
 * `profkit hist`: every value type side by side, like dcpiprof's event
 * columns: per key (o->by) and per value type its flat value, percentage of
 * that column's total and cumulative percentage down the listing. Rows are
 * sorted by the flat (o->sort_cum: cumulative) value of o->value (NULL: the
 * default value type); o->thread and o->limit as for top. Returns 0,
 * PROFKIT_EINVAL for an unknown value or thread, or PROFKIT_ENOMEM.
 */
PROFKIT_API int profkit_report_hist(FILE *out, const profkit_profile *p,
                                    const profkit_report_options *o, profkit_error *err);

/* --------------------------------------------------- reports: diff */

/*
 * `profkit diff`: how each key's value changed from `base` to `p` (p minus
 * base): per key (o->by) the change of its flat and cumulative value, the
 * change as a percentage of base's total, and both profiles' values; keys
 * of either profile, sorted by the size of the flat change (o->sort_cum:
 * the cumulative one), biggest first, then by key. The value type is
 * o->value (NULL: p's default), matched in base by type and unit;
 * o->thread selects a thread by name or index in each profile; o->limit
 * rows (0 = all). Returns 0, PROFKIT_EINVAL when a value type or thread is
 * missing from either profile, or PROFKIT_ENOMEM.
 */
/*
 * With o->normalize, base's values are scaled by p's total / base's total
 * first (pprof's -normalize). With o->gate, a gate follows the table: the
 * total, or a key's flat or cumulative value, that grew by more than
 * o->fail_on_increase percent of base's total fails it, and each failing
 * line is printed; then the return value is 1 (0 when it passed).
 * o->json prints the JSON form (docs/json.md) instead.
 */
PROFKIT_API int profkit_report_diff(FILE *out, const profkit_profile *base,
                                    const profkit_profile *p, const profkit_report_options *o,
                                    profkit_error *err);

/* ------------------------------------------------- reports: counters */

typedef struct profkit_counters_options {
    const char *thread; /* only the counters of this thread (NULL: all) */
    const char *range;  /* "START,END" as profkit_range_parse reads it (NULL: all) */
    int json;           /* one JSON document, with each counter's series */
} profkit_counters_options;

/*
 * `profkit counters`: per counter its name, category, description, thread
 * and process, and of its samples in the range: how many, the counts'
 * min, max, mean and sum, and the running sum's lowest and highest (what
 * the Firefox Profiler draws for a memory counter) and their difference.
 * In a range the running sum starts from the value carried in from before
 * it (total.start in the JSON), as the Firefox Profiler draws a zoomed
 * counter. Times are ms from the root range's start (profkit_profile_root_range;
 * the first counter sample's time when the profile has none); a counter
 * by operation order (bsprof) counts operations instead. With o->json
 * each counter's series too (docs/json.md). Returns 0, PROFKIT_EINVAL for
 * an unknown thread or a bad range, or PROFKIT_ENOMEM.
 */
PROFKIT_API int profkit_report_counters(FILE *out, const profkit_profile *p,
                                        const profkit_counters_options *o, profkit_error *err);

/* ------------------------------------------------- reports: markers */

typedef struct profkit_markers_options {
    const char *thread;   /* thread name or index; NULL: all threads */
    const char *search;   /* NULL: all; as profiler-cli's --search: comma-separated
                             terms, each a case-insensitive substring of the name,
                             category, payload type or a payload field value;
                             FIELD:TEXT that field only; -FIELD:TEXT leaves out */
    const char *category; /* NULL: all; a case-insensitive substring of the category */
    double min_duration_ms; /* < 0 or NaN: none; else intervals at least this long */
    int list;             /* each marker in time order instead of the groups */
    int json;             /* one JSON document (docs/json.md) */
} profkit_markers_options;

/*
 * `profkit markers`: the markers of each thread as the Firefox Profiler
 * shows them (a start and its end are one interval; times in ms from its
 * zero, the root range's start, so some are negative), filtered by o:
 * per thread, the markers grouped by name with their count and the
 * duration statistics of the intervals (min, max, mean, median, p95), or
 * with o->list each marker in time order (start, duration, category,
 * name, payload type). Returns 0, PROFKIT_EINVAL for an unknown thread, or
 * PROFKIT_ENOMEM.
 */
PROFKIT_API int profkit_report_markers(FILE *out, const profkit_profile *p,
                                       const profkit_markers_options *o, profkit_error *err);

/* -------------------------------------------- reports: traces and peek */

/*
 * `profkit traces`: each distinct stack (its frames labelled per o->by, so
 * stacks that print alike are one) with the sum of its value, largest
 * |value| first, then by the labels; frames leaf first, like pprof -traces.
 * Uses o->value, o->thread, o->by and o->limit (0 = all). Returns 0,
 * PROFKIT_EINVAL for an unknown value or thread, or PROFKIT_ENOMEM.
 */
PROFKIT_API int profkit_report_traces(FILE *out, const profkit_profile *p,
                                      const profkit_report_options *o, profkit_error *err);

/*
 * `profkit peek`: for each key (o->by) whose label matches o->pattern (POSIX
 * extended, unanchored), its flat and cumulative value, its callers and its
 * callees with the value that went through each call edge (an edge counted
 * once per stack; recursive calls of a key to itself are not edges), like
 * pprof -peek. Keys sorted by flat (o->sort_cum: cum) value, o->limit keys
 * (0 = all); edges by value. Returns 0, PROFKIT_EINVAL for an unknown value
 * or thread, a bad pattern or one that matches nothing, or PROFKIT_ENOMEM.
 */
PROFKIT_API int profkit_report_peek(FILE *out, const profkit_profile *p,
                                    const profkit_report_options *o, profkit_error *err);

/* ------------------------------------------------------ serving (issue 18) */

/*
 * A local web server for a running viewer: it binds 127.0.0.1 only and
 * serves named byte buffers ("resources") at http://127.0.0.1:PORT/TOKEN/NAME
 * from threads of its own, from profkit_server_start until
 * profkit_server_stop. TOKEN is a secret path segment; any other path is 404.
 * Requests whose Host is not 127.0.0.1:PORT or localhost:PORT get 421; an
 * Origin that is neither the server's own nor cors_origin gets 403; methods
 * other than GET and HEAD get 405 (OPTIONS is answered, 204, only for
 * cors_origin's preflights). docs/viewing.md says what is exposed to whom.
 * The library installs no signal handlers: the application stops the server.
 */
typedef struct profkit_server profkit_server;

typedef struct profkit_server_options {
    unsigned port;               /* 0: any free port */
    const char *token;           /* NULL: 128 random bits (getrandom) as 32 hex
                                    digits; else 16 to 128 of A-Z a-z 0-9 - _ */
    const char *cors_origin;     /* the one other origin that may read the
                                    resources, e.g. "https://profiler.firefox.com";
                                    NULL: none (a same-origin page) */
    unsigned timeout_s;          /* a connection idle this long is closed; 0: 10 */
    unsigned max_connections;    /* open connections at most; 0: 128 */
} profkit_server_options;

/*
 * Starts serving (no resources yet: every path is 404 until
 * profkit_server_set adds one). o may be NULL. On success *out owns the
 * server. Returns 0, PROFKIT_EINVAL for a bad option, PROFKIT_EIO when the
 * port cannot be bound (err says why), PROFKIT_ENOMEM, or
 * PROFKIT_EUNSUPPORTED when the library was built without the part "server"
 * (then the other profkit_server_* calls have no server to act on).
 */
PROFKIT_API int profkit_server_start(profkit_server **out, const profkit_server_options *o,
                                     profkit_error *err);

/*
 * Serves a copy of `size` bytes at /TOKEN/NAME with this Content-Type,
 * replacing what NAME served before (responses under way finish with the
 * old bytes). NAME "" is the page at /TOKEN/ (also /TOKEN/index.html). Safe
 * to call while the server runs, from any one thread at a time. Returns 0,
 * PROFKIT_EINVAL for a name with '/', a space or a control character, or
 * "." / "..", or PROFKIT_ENOMEM.
 */
PROFKIT_API int profkit_server_set(profkit_server *s, const char *name, const char *content_type,
                                   const void *data, size_t size, profkit_error *err);

/* The port it listens on (the one picked when the options said 0). */
PROFKIT_API unsigned profkit_server_port(const profkit_server *s);
/* The token in every path. Owned by the server. */
PROFKIT_API const char *profkit_server_token(const profkit_server *s);
/* "http://127.0.0.1:PORT/TOKEN/". Owned by the server. */
PROFKIT_API const char *profkit_server_url(const profkit_server *s);

/* Closes every connection, stops the server's threads and frees it. NULL is
 * a no-op. */
PROFKIT_API void profkit_server_stop(profkit_server *s);

/* ------------------------------------------- filters (issue 13) */

/*
 * pprof's sample filters. Each field is a POSIX extended regular expression
 * or NULL, matched against a frame's function name (the address as 0x...
 * when it has none), or "file:line" when by_line is set:
 *   focus       keep samples with a frame matching
 *   ignore      drop samples with a frame matching
 *   hide        remove matching frames, keep the samples
 *   show        keep only matching frames
 *   show_from   cut each stack above (the callers of) its outermost match;
 *               samples without a match are dropped
 *   prune_from  drop the frames below (the callees of) the innermost match
 * A sample left without frames by hide or show is dropped.
 */
typedef struct profkit_filter_options {
    const char *focus, *ignore, *hide, *show, *show_from, *prune_from;
    int by_line;
    /* Sample labels, as pprof's -tagfocus, -tagignore, -tagshow, -taghide,
     * -tagroot, -tagleaf (docs/formats/pprof.md, "Labels"), in pprof's
     * order: tagroot and tagleaf first (the filters above see their
     * frames), then the filters above, then the others:
     *   tagfocus, tagignore  "[KEY=]VALUE": keep / drop the samples with a
     *            label matching; VALUE is a numeric range ("64b", "1kb:1mb",
     *            ":2kb", "2kb:") or comma-separated regular expressions
     *   tagshow, taghide     keep / drop the labels whose key matches
     *   tagroot, tagleaf     comma-separated keys: a frame per key named by
     *            the sample's values of it ("" without) above the root /
     *            below the leaf */
    const char *tagfocus, *tagignore, *tagshow, *taghide, *tagroot, *tagleaf;
    /* Time filters of timed profiles (times on the Firefox Profiler's zero,
     * profkit_profile_root_range), applied before the ones above:
     *   range           "START,END" as profkit_range_parse reads it: keep
     *                   the samples with START <= time < END and the
     *                   markers overlapping it
     *   during_marker   keep the samples that fall inside a marker of their
     *                   thread whose name, category or payload string value
     *                   holds this text (ASCII case ignored)
     *   outside_marker  keep the samples outside every such marker
     * Untimed (aggregated) rows are in no range and during no marker. */
    const char *range, *during_marker, *outside_marker;
    /* Called once for each option (focus, ignore, hide, show, show_from,
     * tagfocus, tagignore, tagshow, taghide, tagroot, tagleaf) that matched
     * no sample, as pprof warns "TagRoot expression matched no samples",
     * and for a tagfocus/tagignore value taken as a numeric range (pprof's
     * "Interpreted '64b' as range, not regexp"); may be NULL. */
    profkit_warning_fn on_warning;
    void *payload; /* passed to on_warning */
} profkit_filter_options;

/*
 * A time range as the Firefox Profiler's command line (profiler-cli zoom
 * push) writes it: "START,END", each end in seconds ("2.7"), milliseconds
 * ("2700ms") or a percentage of the profile's root range ("10%"). Times
 * count from the root range's start (profkit_profile_root_range).
 */
typedef struct profkit_range {
    double start, end;               /* ms from the root range's start, or percent */
    int start_percent, end_percent;  /* 1: that end is a percentage */
} profkit_range;

/* Parses a range. Returns 0, or PROFKIT_EINVAL (err says what is wrong,
 * naming profkit_filter_options.range). */
PROFKIT_API int profkit_range_parse(profkit_range *out, const char *text, profkit_error *err);

/*
 * The root range of a timed profile, in ns on its samples' time line, as
 * the Firefox Profiler computes it: meta.profilingStartTime ..
 * profilingEndTime when recorded; else, over every thread, its first
 * sample's time to its last one's plus the sampling interval (metadata
 * "interval", ms; else 1 ms), or for a thread without samples its
 * markers' span plus the interval. Returns 0, or PROFKIT_EINVAL when the
 * profile has no sample or marker times (an aggregated profile).
 */
PROFKIT_API int profkit_profile_root_range(const profkit_profile *p, int64_t *start, int64_t *end,
                                           profkit_error *err);

/* Whether any filter of o is set (o may be NULL). */
PROFKIT_API int profkit_filter_active(const profkit_filter_options *o);
/*
 * Applies the filters to p in place: samples are dropped or get new stacks
 * (rows that end up alike are summed). Returns 0, PROFKIT_EINVAL for a bad
 * regular expression (the message names the option), or PROFKIT_ENOMEM.
 */
PROFKIT_API int profkit_profile_filter(profkit_profile *p, const profkit_filter_options *o,
                                       profkit_error *err);
/* ------------------------------------------- transforms (issue 26) */

/*
 * The ordered stack of transforms (docs/transforms.md): each step rewrites
 * the stacks of the profile the step before left, with the meaning of the
 * Firefox Profiler's transform of the same name. A RE is a POSIX extended
 * regular expression on the function's label (as the filters match it); a
 * PATH is the labels of a call node from the root joined with ';'
 * ("main;run;work"), each compared whole.
 */
typedef enum profkit_transform_kind {
    PROFKIT_TRANSFORM_FILTER,         /* "filter": pprof's filters (`filter`) as one step */
    PROFKIT_TRANSFORM_MERGE,          /* "merge" RE: the function's frames leave every
                                         stack, its self value goes to its caller */
    PROFKIT_TRANSFORM_MERGE_NODE,     /* "merge-node" PATH: that call node only */
    PROFKIT_TRANSFORM_ROOT_AT,        /* "root-at" RE: samples through the function,
                                         re-rooted at its outermost call (all call
                                         sites combined) */
    PROFKIT_TRANSFORM_FOCUS_SUBTREE,  /* "focus-subtree" PATH: samples through that call
                                         node, re-rooted there */
    PROFKIT_TRANSFORM_FOCUS_CATEGORY, /* "focus-category" NAME: needs frame categories,
                                         which the model does not hold yet (EINVAL) */
    PROFKIT_TRANSFORM_COLLAPSE_RECURSION,        /* "collapse-recursion" RE: a call of the
                                         function from within itself, through any
                                         frames, becomes its outermost call */
    PROFKIT_TRANSFORM_COLLAPSE_DIRECT_RECURSION, /* "collapse-direct-recursion" RE: only
                                         calls straight from itself */
    PROFKIT_TRANSFORM_COLLAPSE_MODULE, /* "collapse-module" RE: each run of frames of a
                                         module matching RE (the library, else the
                                         mapping's file, else the source file) becomes
                                         one frame named after the module */
    PROFKIT_TRANSFORM_N
} profkit_transform_kind;

typedef struct profkit_transform {
    profkit_transform_kind kind;
    const char *arg;                      /* RE, PATH or NAME (not for FILTER) */
    const profkit_filter_options *filter; /* FILTER only */
} profkit_transform;

/* A kind's name as above ("merge-node"), the command line's flag without
 * "--"; NULL for no kind. */
PROFKIT_API const char *profkit_transform_name(profkit_transform_kind k);
/* The kind of a name, or -1. */
PROFKIT_API int profkit_transform_kind_of(const char *name);
/*
 * Applies steps[0..n) to p in place, in order: samples are dropped or get
 * new stacks (rows that end up alike are summed); each step is linear in
 * the stacks whatever their depth. Returns 0, PROFKIT_EINVAL (a bad
 * regular expression or path, focus-category; the message names the
 * step as profkit_transform.NAME), or PROFKIT_ENOMEM. On failure the
 * steps before the failing one stay applied.
 */
PROFKIT_API int profkit_profile_transform(profkit_profile *p, const profkit_transform *steps,
                                          size_t n, profkit_error *err);
/* The errors profkit_profile_transform would give for the steps' arguments
 * (regular expressions, call paths, category names; not a FILTER step's),
 * with p unchanged: 0 or PROFKIT_EINVAL (the page's transforms: flame). */
PROFKIT_API int profkit_transform_check(const profkit_profile *p, const profkit_transform *steps,
                                        size_t n, profkit_error *err);
/*
 * The total of value type `value` over thread `thread` (PROFKIT_NONE: all)
 * as it was before p's first filter or transform, which the reports'
 * percentages (top, hist, peek, tree, traces) are of, as pprof's. Returns 1 and sets
 * *out, or 0 when p was never filtered or transformed, or the whole total
 * was dropped (the rows' own total is then what percentages are of).
 */
PROFKIT_API int profkit_profile_whole_total(const profkit_profile *p, uint32_t value,
                                            uint32_t thread, int64_t *out);
/* Forgets the whole total, so that percentages are of what the filters
 * and transforms left (pprof's -relative_percentages; `--relative`). */
PROFKIT_API void profkit_profile_drop_whole_total(profkit_profile *p);

/* ------------------------------------------- flame graphs and the viewer page */

/*
 * What `profkit flame` draws (docs/viewer.md). The page holds the call tree
 * by function of every thread and of all threads merged, with every value
 * type; nodes too small to see merge into one "(other)" node per parent.
 * Set defaults with profkit_flame_options_init().
 */
typedef struct profkit_flame_options {
    const char *value;   /* value type shown first (the SVG draws it); NULL: the default */
    const char *thread;  /* only this thread (name or index); NULL: all threads merged,
                            then each thread */
    double min_percent;  /* a node whose total is below this percent of its thread's
                            total for every value type merges into its parent's
                            "(other)"; 0 keeps every node (default 0.025: one pixel
                            of 4000) */
    size_t max_nodes;    /* nodes of all trees together, "(other)" ones included (the
                            merged tree gets up to half, each tree at least 2);
                            0 = no cap (default 100000) */
    const char *title;   /* shown by the page and the SVG; NULL: "" */
    const profkit_profile *base; /* diff: the BASE profile (the one rendered is NEW);
                                    NULL: no diff */
    const char *range;   /* the page: the time range selected when it opens, as
                            profkit_filter_options.range takes it ("2.7,3.1"); the
                            page keeps the whole profile (the range can be popped).
                            NULL: the whole range */
    const profkit_transform *transforms; /* the page: the transform stack it opens
                            with (applied by the page, each step poppable; the
                            profile given is untransformed); a FILTER step carries
                            its focus and ignore only. NULL: none */
    size_t n_transforms;
    const char *const *inputs; /* the page: the command-line arguments that name the
                            input (files; or --db DB and its --where, --since,
                            --until, --base-where, --new-where), which its "command
                            line" box repeats. NULL: it splits the title */
    size_t n_inputs;
} profkit_flame_options;

/* Fills *o with the defaults above. */
PROFKIT_API void profkit_flame_options_init(profkit_flame_options *o);

/*
 * Renders the self-contained viewer page (HTML, no network requests) for p
 * into a new buffer: *out (NUL-terminated, the caller free()s it) of *len
 * bytes. o may be NULL (defaults). Returns 0, PROFKIT_EINVAL for an unknown
 * value type or thread (err says which exist), or PROFKIT_ENOMEM; on
 * failure *out is NULL.
 */
PROFKIT_API int profkit_flame_render_html(char **out, size_t *len, const profkit_profile *p,
                                          const profkit_flame_options *o, profkit_error *err);
/*
 * Sets *exact to 1 when the page of p (options o, NULL: defaults) holds
 * every timed sample, so a range selected in it narrows every view
 * exactly; 0 when it holds each thread's activity only (past its budgets
 * of samples or bytes: docs/viewer.md, "time"), so a page opened on a
 * range should be made of the profile filtered to it. Returns 0,
 * PROFKIT_EINVAL or PROFKIT_ENOMEM, as profkit_flame_render_html.
 */
PROFKIT_API int profkit_flame_page_exact(const profkit_profile *p, const profkit_flame_options *o,
                                         int *exact, profkit_error *err);
/*
 * Writes the page to `path` (NULL or "-" = standard output) through a
 * temporary file renamed when complete, so no half-written file is left.
 * Returns 0, PROFKIT_EINVAL, PROFKIT_ENOMEM or PROFKIT_EIO (err names the path).
 */
PROFKIT_API int profkit_flame_write_html(const profkit_profile *p, const char *path,
                                         const profkit_flame_options *o, profkit_error *err);
/*
 * Renders a static flame graph SVG (flamegraph.pl style: hover titles,
 * search, click to zoom) of o->value for o->thread (NULL: all threads
 * merged), bounded like the page. In diff mode frames are coloured by the
 * change from BASE. Ownership and returns as profkit_flame_render_html.
 */
PROFKIT_API int profkit_flame_render_svg(char **out, size_t *len, const profkit_profile *p,
                                         const profkit_flame_options *o, profkit_error *err);
/* Writes the SVG to `path` as profkit_flame_write_html writes the page. */
PROFKIT_API int profkit_flame_write_svg(const profkit_profile *p, const char *path,
                                        const profkit_flame_options *o, profkit_error *err);

/* ------------------------------------------------ the profile store (issue 14) */

/*
 * A store of many profiles (docs/store.md): a SQLite file, or a ClickHouse
 * database reached through its HTTP interface. Reports run over every
 * profile a query selects as if they had been merged from files, with the
 * aggregation done in the engine.
 */
typedef struct profkit_store profkit_store;

/*
 * Opens the store `db`: a SQLite file path (created with its tables on
 * first use), or "clickhouse://HOST:PORT/DATABASE[?cluster=NAME]" (tables
 * created when missing; with a cluster, Distributed tables over the
 * cluster's shards). Returns 0, PROFKIT_EIO (err names the DB and why),
 * PROFKIT_ENOMEM, or PROFKIT_EUNSUPPORTED when the library was built
 * without the part "store" (or, for a clickhouse:// DB, "clickhouse"): no
 * store opens, so the other profkit_store_* calls, which take one, are not
 * reached (profkit_store_parse_time works in every build).
 */
PROFKIT_API int profkit_store_open(profkit_store **out, const char *db, profkit_error *err);

/*
 * How to reach a ClickHouse store beyond its URL. The URL may carry all of
 * it: clickhouse://[USER[:PASSWORD]@]HOST:PORT[,...]/DATABASE with the
 * options ?cluster=NAME, secure=1 (HTTPS: the server's certificate and
 * name are checked), cafile=PATH (the CAs to check it with), timeout=SECONDS
 * (one query at most; none by default), joined by '&'. Messages name the
 * URL without its password.
 */
typedef struct profkit_store_options {
    const char *user;     /* ClickHouse user when the URL names none; NULL: default */
    const char *password; /* its password; never printed */
} profkit_store_options;

/* profkit_store_open with options (o may be NULL). */
PROFKIT_API int profkit_store_open_opts(profkit_store **out, const char *db, const profkit_store_options *o,
                            profkit_error *err);
/* Closes the store. NULL is a no-op. */
PROFKIT_API void profkit_store_close(profkit_store *s);

typedef struct profkit_store_add_options {
    const char *const *labels; /* "KEY=VALUE" each, beside those the profile knows */
    size_t n_labels;
    const char *source;        /* the file it was read from (label "file"); NULL: none */
    int64_t time;              /* ns since 1970 UTC when the profile has no time of its
                                  own; PROFKIT_NO_TIME: the time of the add */
    size_t batch;              /* ClickHouse: hold the rows of many profiles and send
                                  them as one INSERT per table once about this many
                                  bytes are held, or at profkit_store_flush; 0: each
                                  profile at once (SQLite always) */
} profkit_store_add_options;

/*
 * Adds p as one profile, atomically: a failed or interrupted add leaves
 * nothing a query sees. Its id is a hash of its content (*id, may be NULL):
 * adding the same profile again is a no-op that returns 1 (0 when added).
 * Labels: o's, plus format, file, host (where the profile records one),
 * thread (each thread's name) and value (each value type). Returns 0, 1,
 * PROFKIT_EINVAL for a label without '=', PROFKIT_EIO or PROFKIT_ENOMEM.
 */
PROFKIT_API int profkit_store_add(profkit_store *s, const profkit_profile *p,
                                  const profkit_store_add_options *o, uint64_t *id,
                                  profkit_error *err);

/*
 * Batched adds (o->batch > 0, ClickHouse): profkit_store_add returns 2 when
 * it holds the profile's rows, not yet in the store; 0 when the profile and
 * every one held before it are in (the batch was sent); 1 when it is in the
 * store or held already. An error while sending loses the whole batch: no
 * held profile is in the store. profkit_store_flush sends what is held
 * (0: every held profile is in); profkit_store_close without it drops it.
 * Many profiles in one INSERT per table make a part per table on the server
 * instead of one per profile (docs/store.md, "ClickHouse's directory, not only its parts").
 */
PROFKIT_API int profkit_store_flush(profkit_store *s, profkit_error *err);

/*
 * Which profiles: every one of `where` ("KEY=VALUE", "KEY!=VALUE": no label
 * KEY with that value, "KEY~REGEX": a label KEY matching the POSIX
 * extended REGEX) holds, and since <= time < until (ns since 1970 UTC;
 * PROFKIT_NO_TIME: no bound).
 */
typedef struct profkit_store_query {
    const char *const *where;
    size_t n_where;
    int64_t since, until;
    const uint64_t *ids; /* only these profiles (their ids, as store ls prints
                            them); NULL or n_ids 0: no such bound */
    size_t n_ids;
} profkit_store_query;

/* Parses a time for since/until: YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS][Z] (UTC) or
 * seconds since 1970 (digits). Returns 0 or PROFKIT_EINVAL. */
PROFKIT_API int profkit_store_parse_time(const char *s, int64_t *ns);

/*
 * The selected profiles merged into one profile, as profkit_profile_merge
 * of them in the order they were added would give (untimed: the store
 * keeps per stack, thread and value type sums, not single samples). The
 * engine sums; only the aggregated rows are read. Returns 0,
 * PROFKIT_EINVAL for a bad query, PROFKIT_ENOTFOUND when no profile
 * matches, PROFKIT_EIO or PROFKIT_ENOMEM.
 */
PROFKIT_API int profkit_store_load(profkit_profile **out, profkit_store *s,
                                   const profkit_store_query *q, profkit_error *err);

/*
 * profkit_report_top over the selected profiles. By function over all
 * threads, the flat and cumulative sums are GROUP BYs in the engine and
 * only the per-function rows are read; otherwise (o->by, o->thread) the
 * profiles are loaded as by profkit_store_load. The output is the same as
 * the report on the files merged.
 */
PROFKIT_API int profkit_store_report_top(FILE *out, profkit_store *s, const profkit_store_query *q,
                                         const profkit_report_options *o, profkit_error *err);

/* `profkit store ls`: each selected profile, oldest first, with its id, time,
 * labels and totals. Returns 0 or a negative code. */
PROFKIT_API int profkit_store_list(FILE *out, profkit_store *s, const profkit_store_query *q,
                                   profkit_error *err);

typedef struct profkit_store_list_options {
    int json;     /* one JSON document (docs/json.md, "store ls") */
    int no_count; /* text: no closing "N profiles" line */
} profkit_store_list_options;

/* profkit_store_list with options (o may be NULL: the text of
 * profkit_store_list). */
PROFKIT_API int profkit_store_list_opts(FILE *out, profkit_store *s, const profkit_store_query *q,
                            const profkit_store_list_options *o, profkit_error *err);

/* What profkit_store_trend groups and measures. */
typedef struct profkit_store_trend_options {
    const char *by;       /* a label key, or "day" (UTC, of the profiles' times) */
    const char *function; /* POSIX extended regex on function names: the value
                             of the stacks with a frame it matches (each stack
                             once); NULL: the total */
    const char *value;    /* the value type (NULL: the selection's default) */
    int json;             /* one JSON document (docs/json.md, "trend") */
    const char *thread;   /* only this thread's samples: a name, an index or
                             tid:TID of the selection merged (profkit info);
                             NULL: all threads */
} profkit_store_trend_options;

/*
 * `profkit trend`: for each value of label o->by among the selected
 * profiles (in natural order: 1.9 before 1.10), or each day, the value of
 * o->function's stacks (or the total) and the total, over that group's
 * profiles merged as profkit_store_load merges them. Returns 0,
 * PROFKIT_EINVAL (a bad key or regex), PROFKIT_ENOTFOUND (no selected
 * profile has the label), PROFKIT_EIO or PROFKIT_ENOMEM.
 */
PROFKIT_API int profkit_store_trend(FILE *out, profkit_store *s, const profkit_store_query *q,
                                    const profkit_store_trend_options *o, profkit_error *err);

/*
 * Changes the labels of the selected profiles (*n: how many, may be NULL):
 * every key of `set` ("KEY=VALUE") and `unset` ("KEY") loses its values,
 * then each pair of `set` is added (so a key set twice has both values).
 * A profile's id does not change; queries after the call returns see the
 * new labels. Returns 0, PROFKIT_EINVAL for a bad label or nothing to do,
 * PROFKIT_EIO or PROFKIT_ENOMEM.
 */
PROFKIT_API int profkit_store_label(profkit_store *s, const profkit_store_query *q, const char *const *set,
                        size_t n_set, const char *const *unset, size_t n_unset, size_t *n,
                        profkit_error *err);

/* Removes the selected profiles (*n: how many, may be NULL). Returns 0 or a
 * negative code. */
PROFKIT_API int profkit_store_remove(profkit_store *s, const profkit_store_query *q, size_t *n,
                                     profkit_error *err);

/*
 * Profiles pushed over HTTP into a store (docs/store.md, "Pushing
 * profiles"): POST /ingest with Pyroscope's query parameters
 * (name=APP{KEY=VALUE,...}, from, until, format, sampleRate, spyName) and a
 * profile of any format profkit reads as the body, from threads of the
 * server's own until profkit_store_serve_stop. Every request needs
 * "Authorization: Bearer TOKEN"; Host must name the address the client
 * reached (or localhost on loopback, or one of `hosts`); a request with an
 * Origin header (a web page) is refused; a body over max_body gets 413.
 * Answers are JSON. Each push is one profkit_store_add.
 */
typedef struct profkit_store_server profkit_store_server;

typedef struct profkit_store_serve_options {
    const char *listen;          /* "ADDRESS:PORT" or "[IPV6ADDRESS]:PORT", numeric;
                                    NULL: 127.0.0.1 on any free port */
    const char *token;           /* NULL: 128 random bits as 32 hex digits; else 16
                                    to 128 of A-Z a-z 0-9 - _ */
    const char *const *hosts;    /* more Host names to answer to (at most 16) */
    size_t n_hosts;
    size_t max_body;             /* bytes of one body at most; 0: 64 MiB */
    unsigned max_connections;    /* open at once; 0: 64 */
    const char *user, *password; /* a ClickHouse store's credentials, as
                                    profkit_store_options */
    /* called after each push that was stored (or was there already) with a
     * line saying what; from the server's threads, maybe at once; NULL: none */
    void (*on_add)(void *payload, const char *line);
    void *payload;
} profkit_store_serve_options;

/* Opens the store `db` (as profkit_store_open) and starts serving (o may
 * be NULL). Returns 0, PROFKIT_EINVAL for a bad option, PROFKIT_EIO,
 * PROFKIT_ENOMEM, or PROFKIT_EUNSUPPORTED without the part "store" (or
 * "clickhouse" for such a DB) or "server". */
PROFKIT_API int profkit_store_serve_start(profkit_store_server **out, const char *db,
                                          const profkit_store_serve_options *o, profkit_error *err);
/* "http://ADDRESS:PORT/" (the port picked when the options said 0). */
PROFKIT_API const char *profkit_store_serve_url(const profkit_store_server *sv);
/* The bearer token every request needs. Owned by the server. */
PROFKIT_API const char *profkit_store_serve_token(const profkit_store_server *sv);
PROFKIT_API unsigned profkit_store_serve_port(const profkit_store_server *sv);
/* Stops serving (requests under way finish first), closes the store, frees
 * sv. NULL is a no-op. */
PROFKIT_API void profkit_store_serve_stop(profkit_store_server *sv);

/*
 * The store browser (docs/store.md, "Browsing a store"): a viewer's server
 * (as profkit_server_start: 127.0.0.1 only, TOKEN in every path, Host and
 * Origin checked) whose page at /TOKEN/ lists the store's profiles with
 * label pickers and a time range, opens one profile or a merged selection
 * in the viewer page, the diff page of two selections, and a trend chart.
 * The page uses a JSON API under /TOKEN/api/ (profiles, labels, top, view,
 * diff, trend; docs/store.md), answered from threads of the server's own
 * until profkit_store_browse_stop; the store is used by one request at a
 * time.
 */
typedef struct profkit_store_browser profkit_store_browser;

typedef struct profkit_store_browse_options {
    unsigned port;               /* 0: any free port */
    const char *token;           /* NULL: 128 random bits; else as profkit_server_options */
    const char *title;           /* the pages' title; NULL: the DB */
    const char *user, *password; /* a ClickHouse store's credentials, as
                                    profkit_store_options */
    double min_percent;          /* the viewer pages' bounds, as profkit_flame_options */
    size_t max_nodes;            /* (set both by profkit_store_browse_options_init) */
} profkit_store_browse_options;

/* Fills *o with the defaults. */
PROFKIT_API void profkit_store_browse_options_init(profkit_store_browse_options *o);
/* Opens the store `db` and starts serving its browser (o may be NULL).
 * Returns 0, PROFKIT_EINVAL for a bad option, PROFKIT_EIO, PROFKIT_ENOMEM,
 * or PROFKIT_EUNSUPPORTED without the part "store" (or "clickhouse") or
 * "server". */
PROFKIT_API int profkit_store_browse_start(profkit_store_browser **out, const char *db,
                                           const profkit_store_browse_options *o, profkit_error *err);
/* "http://127.0.0.1:PORT/TOKEN/": the browser page. Owned by the browser. */
PROFKIT_API const char *profkit_store_browse_url(const profkit_store_browser *b);
/* Stops the server, closes the store and frees b. NULL is a no-op. */
PROFKIT_API void profkit_store_browse_stop(profkit_store_browser *b);

/* Removes the shared rows (strings, functions, mappings, frames, stacks)
 * no profile of the store uses any longer (*n: how many, may be NULL).
 * Safe while nothing adds to the store (docs/store.md, "gc"). Returns 0
 * or a negative code. */
PROFKIT_API int profkit_store_gc(profkit_store *s, size_t *n, profkit_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PROFKIT_H */
