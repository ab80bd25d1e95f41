/*
 * gecko_reader.h: the state of the streaming Gecko / processed-profile
 * reader, shared by its three files: gecko_common.c (JSON events, cells,
 * tables, streamed rows, sniffing), which calls gecko_build.c (a finished
 * thread's tables resolved into the model), and gecko_tables.c (table
 * storage and location strings), which both call and which calls neither.
 * Private to src/formats/gecko/.
 */
#ifndef PROFKIT_GECKO_READER_H
#define PROFKIT_GECKO_READER_H

#include "formats/gecko/gecko_common.h"

#include <stdint.h>
#include <string.h>

#include "io/json.h"

/* ---------------------------------------------------------------- cells */

#define BOX_NULL 0x7ff9000000000000ull
#define BOX_TEXT 0x7ffa000000000000ull
#define BOX_MASK 0xffff000000000000ull

static inline uint64_t bits_of(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}
static inline double boxed(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}
static inline int cell_is_null(double d) { return bits_of(d) == BOX_NULL; }
static inline int cell_is_text(double d) { return (bits_of(d) & BOX_MASK) == BOX_TEXT; }

/* Columns the model needs, across all tables. */
enum {
    COL_STACK, COL_TIME, COL_TIME_DELTAS, COL_WEIGHT, COL_PREFIX, COL_PREFIX_OFFSET,
    COL_FRAME, COL_LOCATION, COL_LINE, COL_COLUMN, COL_FUNC, COL_ADDRESS, COL_NAME,
    COL_FILE_NAME, COL_SOURCE, COL_LINE_NUMBER, COL_RESOURCE, COL_TYPE, COL_START_TIME,
    COL_END_TIME, COL_PHASE, COL_CATEGORY, COL_DATA, COL_FILENAME, COL_IS_JS, COL_FLAGS, COL_LIB,
    COL_INLINE_DEPTH, COL_SUBCATEGORY, COL_RELEVANT_FOR_JS, COL_EVENT_DELAY, COL_RESPONSIVENESS,
    COL_THREAD_CPU_DELTA, N_COLS
};
static const char *const col_names[N_COLS] = {
    "stack", "time", "timeDeltas", "weight", "prefix", "prefixOffset", "frame", "location",
    "line", "column", "func", "address", "name", "fileName", "source", "lineNumber",
    "resource", "type", "startTime", "endTime", "phase", "category", "data", "filename", "isJS", "flags",
    "lib", "inlineDepth", "subcategory", "relevantForJS", "eventDelay", "responsiveness", "threadCPUDelta"
};

enum { T_SAMPLES, T_MARKERS, T_STACKS, T_FRAMES, T_FUNCS, T_RESOURCES, T_SOURCES, T_COUNT };
static const char *const table_names[T_COUNT] = {
    "samples", "markers", "stackTable", "frameTable", "funcTable", "resourceTable", "sources"
};
#define B(c) (1ull << (c))
static const uint64_t table_wants[T_COUNT] = {
    B(COL_STACK) | B(COL_TIME) | B(COL_TIME_DELTAS) | B(COL_WEIGHT) | B(COL_EVENT_DELAY) |
        B(COL_RESPONSIVENESS) | B(COL_THREAD_CPU_DELTA),
    B(COL_NAME) | B(COL_TIME) | B(COL_START_TIME) | B(COL_END_TIME) | B(COL_PHASE) |
        B(COL_CATEGORY) | B(COL_DATA),
    B(COL_PREFIX) | B(COL_PREFIX_OFFSET) | B(COL_FRAME),
    B(COL_LOCATION) | B(COL_LINE) | B(COL_COLUMN) | B(COL_FUNC) | B(COL_ADDRESS) | B(COL_FLAGS) |
        B(COL_LIB) | B(COL_INLINE_DEPTH) | B(COL_CATEGORY) | B(COL_SUBCATEGORY) |
        B(COL_RELEVANT_FOR_JS),
    B(COL_NAME) | B(COL_FILE_NAME) | B(COL_SOURCE) | B(COL_LINE_NUMBER) | B(COL_RESOURCE) |
        B(COL_IS_JS) | B(COL_FLAGS) | B(COL_RELEVANT_FOR_JS),
    B(COL_NAME) | B(COL_TYPE) | B(COL_LIB),
    B(COL_FILENAME),
};

#define MAX_SCHEMA_POS 4096 /* a schema position beyond this is not a real column */
#define MAX_NESTING 256     /* processes inside processes */

typedef struct gk_col {
    double *v;
    size_t n, cap;
} gk_col;

typedef enum { WT_SAMPLES, WT_TRACING_MS, WT_BYTES } gk_weight_type;
/* The value type (type, unit) each weight type becomes. */
static const char *const vt_names[][2] = { { "samples", "count" }, { "wall", "milliseconds" },
                                           { "bytes", "bytes" } };

/* The most columns one table kind wants (the frameTable's eleven). */
#define GK_SLOTS 11

/*
 * A table's columns are kept by slot, one for each column its kind wants
 * (table_wants), not one for each column any table wants, and only once
 * a column holds something: a table that holds nothing costs a few
 * hundred bytes, not a kilobyte and more, which adds up over thousands of
 * threads. Slot GK_SLOTS stays empty: a column the kind does not want
 * reads as absent. pk_gk_col (to read) and pk_gk_col_w (to write) and
 * pk_gk_schema find a column by its id.
 */
typedef struct gk_table {
    uint8_t present;
    uint8_t rows_layout;     /* saw schema or data */
    uint8_t have_schema;
    uint8_t stream;          /* see below */
    uint8_t kind;            /* T_SAMPLES ... */
    uint8_t n_row_cols;
    uint8_t slot[N_COLS];    /* column id -> slot (GK_SLOTS: not wanted) */
    uint8_t row_cols[GK_SLOTS]; /* the columns the schema names, in column order */
    int16_t schema[GK_SLOTS + 1]; /* position of each slot's column, -1 = absent */
    gk_col *col;             /* GK_SLOTS + 1 columns, NULL until one is written */
    int8_t *pos_col;         /* position -> column id (-1 = dropped), once the schema is known */
    size_t n_pos_map;
    /* Rows read before the schema: their cells one after another (cell k
     * of a row is its position k) and where each row starts (n_rows + 1
     * entries once a row ended). The cells cost what the rows hold, so one
     * wide row among narrow ones is its own width, not the width of every
     * row; the schema, when it comes, names the positions it wants. */
    gk_col pre;
    size_t *pre_start;
    size_t cap_pre_start;
    size_t n_rows;           /* rows layout */
    gk_weight_type weight_type;
    uint32_t line, column;   /* where the table starts */
    /* Streaming (`stream`: a thread's samples or markers under a known
     * schema): each row goes straight into the model, its stack or name as
     * the raw index, resolved when the thread's tables are known (see
     * fix_streamed); the row being read is the reader's (gk_reader.row). */
    size_t first, count;     /* the rows' range in the model */
    uint32_t stream_vt;      /* value type the weights went to */
    double last_time;        /* a null time repeats the previous one */
    size_t length;           /* a processed marker table's `length` (have_length) */
    uint8_t have_length;
} gk_table;

/* Column c of table t, to read: an empty one when t's kind does not want
 * c or t holds no column yet (never written through). */
static const gk_col pk_gk_no_col;
static inline gk_col *pk_gk_col(const gk_table *t, int c)
{
    return t->col ? &t->col[t->slot[c]] : (gk_col *)&pk_gk_no_col;
}
/* The position the schema gives column c of table t (-1: none). */
static inline int pk_gk_schema(const gk_table *t, int c)
{
    return t->schema[t->slot[c]];
}

typedef struct gk_strings {
    char *buf;
    size_t len, cap;
    size_t *off; /* n + 1 offsets */
    size_t n, cap_off;
} gk_strings;

/* What a frame location string (raw Gecko) became: its function and the
 * line and column a frame takes from it; `function` is PROFKIT_NONE until
 * made. An address ("0x...") has column GK_LOC_ADDRESS and is parsed again
 * for its value (12 bytes a string, not 24). */
typedef struct gk_loc {
    uint32_t function, line, column;
} gk_loc;
#define GK_LOC_ADDRESS UINT32_MAX

/* What a funcTable name string of an old processed profile became (see
 * func_name in gecko_build.c), made once per string, not once per function
 * naming it: a JS location split into name, file and line (js_name is
 * PROFKIT_NONE until made; js_file PROFKIT_NONE when the string is no
 * location), and the name without its "AutoEntryScript " (PROFKIT_NONE
 * until made). */
typedef struct gk_fname {
    uint32_t js_name, js_file, js_line, entry_name;
} gk_fname;

/* A stackTable row as the stack resolution reads it, one cache line away
 * instead of three (two columns of cells and the memo): the prefix row
 * (GK_SROW_ROOT for none) and the frame row when their cells are plain
 * indexes in range, else GK_SROW_CELL (the cell is read again, for its
 * error); `id` is the model stack once made (PROFKIT_NONE until then). */
typedef struct gk_srow {
    uint32_t prefix, frame, id;
} gk_srow;
#define GK_SROW_ROOT UINT32_MAX
#define GK_SROW_CELL (UINT32_MAX - 1)

/* Tables, strings and the model ids already made from them. A table is
 * allocated when it comes in the file (NULL: absent), so what a thread or
 * process costs follows what it holds: a thread without tables is a few
 * pointers, not seven tables of every column. */
typedef struct gk_tables {
    gk_table *t[T_COUNT];
    gk_strings strings;
    int have_strings;
    uint32_t strings_line, strings_column;
    pk_buf text; /* JSON text of captured cells: [u32 length][bytes] */
    /* caches, valid for the strings owner `cache_owner`; for shared tables
     * resolved with a thread's own strings, valid for those strings'
     * content, kept in cache_strings (the thread goes once built, and a
     * later one may come at the same address) */
    const struct gk_tables *cache_owner;
    gk_strings cache_strings;
    int cache_copied;
    uint32_t *str_ids, *func_ids, *frame_ids;
    size_t n_str_ids, n_func_ids, n_frame_ids;
    gk_srow *srows; /* the stackTable's rows with their model stacks */
    size_t srows_frames; /* rows of the frameTable the frame indexes were checked against */
    /* shared tables: the cache entries set since cache_owner was set,
     * (kind << 62) | index, so a change of strings owner resets only them */
    uint64_t *touched;
    size_t n_touched, cap_touched;
    gk_loc *locs; /* per string index of this owner: frames sharing a location string */
    size_t n_locs;
    /* a bit per string index: its location's function has a file (a JS
     * frame), which spares a frame the read of the function's row; in the
     * block of locs, after it */
    uint8_t *loc_files;
    gk_fname *fnames; /* per string index of this owner: old functions sharing a name string */
    size_t n_fnames;
} gk_tables;

typedef struct gk_thread {
    gk_tables *tab; /* its own tables and strings; NULL until one comes */
    char *name, *process_name, *process_type;
    int64_t pid, tid;
    size_t depth;    /* depth of its (sub-)profile; 0 = the root */
    size_t index;    /* in file order, for messages */
    uint32_t line, column;
    uint32_t model_thread; /* made at the first streamed row, else when built */
    uint32_t serial;       /* its (sub-)profile's gk_profile_ctx.serial */
    double process_start, register_time; /* processStartupTime, registerTime (ms) */
    /* jank (gecko_counters.c): the last sample's event delay and time (ms),
     * and the jank intervals found, start and end (ms, before the shift) */
    double jank_last, jank_time;
    double *janks;
    size_t n_janks, cap_janks;
    uint8_t have_process_start, have_register_time;
    uint32_t *paused; /* its own pausedRanges (string ids), kept with its pid when built */
    size_t n_paused, cap_paused;
} gk_thread;

typedef struct gk_profile_ctx {
    double start;    /* meta.startTime, ms */
    int have_start;
    uint32_t serial;   /* which (sub-)profile: its counters go to its GeckoMain */
} gk_profile_ctx;

typedef enum {
    C_DOC, C_PROFILE, C_META, C_CATEGORIES, C_CATEGORY, C_NESTED, C_LIBS, C_LIB,
    C_THREADS, C_THREAD, C_PROCESSES, C_PAUSED, C_SHARED, C_TABLE, C_SCHEMA, C_DATA, C_ROW,
    C_COLUMN, C_STRINGS, C_SUBCATS, C_SAMPLE_UNITS
} gk_kind;

typedef struct gk_frame {
    gk_kind kind;
    int key;          /* id of the last key (meaning depends on kind), -1 = other */
    gk_table *table;  /* C_TABLE, C_SCHEMA, C_DATA, C_ROW, C_COLUMN */
    gk_tables *owner; /* whose strings/tables/text */
    int table_kind;
    size_t index;     /* elements seen (arrays) */
    gk_col *target;   /* C_COLUMN: where values go */
} gk_frame;

typedef struct gk_lib {
    double start, end, offset;
    char *name, *path, *debug_name, *build_id;
} gk_lib;

/* The `counters` array being read (gecko_counters.c). */
enum { CN_TIME, CN_DELTAS, CN_COUNT, CN_NUMBER, GK_CN_COLS };
#define GK_CN_CELLS 8 /* cells kept of a raw counter row: a schema position is under this */
#define GK_CN_DEPTH 16
typedef struct gk_cn_added {
    uint32_t id;        /* model counter */
    size_t level;       /* profile level it came in */
    uint32_t serial;    /* the (sub-)profile it came in (gk_profile_ctx.serial) */
    double main_thread; /* processed mainThreadIndex, -1 = none */
} gk_cn_added;
typedef struct gk_counters {
    int active;
    size_t depth, level;
    uint8_t kind[GK_CN_DEPTH];
    int8_t key[GK_CN_DEPTH];
    size_t elems[GK_CN_DEPTH];
    /* the counter being read */
    pk_buf name, category, description, display;
    int64_t pid;
    double main_thread;
    int have_samples, have_length;
    double length;
    size_t group;
    double *col[GK_CN_COLS];  /* processed columns */
    size_t n_col[GK_CN_COLS], cap_col[GK_CN_COLS];
    int schema[GK_CN_COLS];   /* raw: position of each column, -1 = none */
    double *cells;            /* raw rows, GK_CN_CELLS each (NaN = absent) */
    size_t n_cells, cap_cells, n_rows;
    gk_cn_added *added;       /* the counters this read made */
    size_t n_added, cap_added;
    uint32_t next_serial;
    struct gk_cn_main { uint32_t serial, thread; } *mains; /* each profile's GeckoMain */
    size_t n_mains, cap_mains;
} gk_counters;

/* A model frame's row made ahead of its add (stack_id): for frameTable
 * row `row`, with its hash. */
typedef struct gk_ahead {
    profkit_frame frame;
    uint64_t hash;
    uint64_t row;
} gk_ahead;

/* A location string's function made ahead (locations_ahead). */
typedef struct gk_loc_ahead {
    size_t v;
    pk_gecko_location loc;
    uint64_t h[3]; /* its name's, file's and module's hashes */
    profkit_function f;
    uint64_t fh;
} gk_loc_ahead;

typedef struct gk_reader {
    profkit_profile *p;
    pk_read_ctx *ctx;
    pk_json *j; /* while parsing: for the position of errors such as pk_gk_oom's */
    pk_gecko_flavor flavor;
    gk_frame *fs;
    size_t n_fs, cap_fs;
    gk_profile_ctx *prof;
    size_t n_prof, cap_prof;
    int skip;               /* a handler does not want the value it got: skip it */
    int capture;            /* depth of a subtree being captured */
    pk_buf cap_text;
    gk_col *cap_target;     /* capture into this column's owner text */
    gk_tables *cap_owner;
    int cap_paused;         /* capture is a pausedRanges element (2: a thread's) */
    /* a (sub-)profile's pausedRanges, until one of its threads gives its pid */
    struct gk_paused { uint32_t range, serial; } *paused_ranges;
    size_t n_paused_ranges, cap_paused_ranges;
    struct gk_serial_pid { uint32_t serial; int64_t pid; } *serial_pids;
    size_t n_serial_pids, cap_serial_pids;
    gk_table *cap_stream;   /* capture is the payload of a streamed marker row */
    size_t cap_marker;      /* capture is the payload of model marker cap_marker - 1 */
    double row[N_COLS];     /* the streamed row being read (one at a time) */
    uint32_t row_payload;   /* its marker payload (model string id) */
    int64_t *values;        /* one streamed sample's values */
    size_t cap_values;
    gk_thread *cur;         /* thread being parsed */
    gk_thread **pending;    /* complete threads waiting for a start time or the shared tables */
    size_t n_pending, cap_pending;
    size_t n_threads, n_built;
    gk_tables shared;
    int shared_done;
    /* stacks made from the shared stackTable, and the input read, for the
     * limit on threads whose own strings make them again (gecko_build.c) */
    uint64_t shared_stacks_made;
    uint64_t input_bytes;
    gk_lib lib;
    size_t libs_base;       /* the model mapping of the libs list's first lib */
    size_t n_libs_lists;    /* processed frames' lib indexes are used when there is one */
    gk_strings categories;  /* the root's meta.categories: names, */
    gk_strings cat_colors;  /* colours (aligned with the names), */
    gk_strings cat_subs;    /* and subcategories, one after another: */
    size_t *cat_n_subs;     /* how many each category has */
    size_t cap_cat_n_subs;
    uint32_t *category_ids; /* model string id per category, PROFKIT_NONE until made */
    size_t n_category_ids;
    char meta_key[64];
    uint32_t *chain;        /* stack resolution scratch */
    size_t cap_chain;
    gk_loc_ahead *locs_ahead;
    size_t cap_locs_ahead;
    gk_ahead *ahead;        /* the frames a resolution adds, made ahead (stack_id) */
    size_t cap_ahead;
    /* per table kind and slot, the buffer of a built thread's stored
     * column, for the same column of the next thread (pk_gk_keep_columns;
     * n unused) */
    gk_col kept[T_COUNT][GK_SLOTS + 1];
    char version[2][24]; /* meta.version, meta.preprocessedProfileVersion */
    int root_used;       /* the root object had a profile key: not a DevTools wrapper */
    int shaped;          /* the document had "meta" or "threads": a profile at all */
    gk_counters cn;      /* counters (gecko_counters.c) */
    /* per model thread, its place in the loader's order (gecko_order.c):
     * its profile's serial (top bit: a process inside a sub-process) and
     * its index in the file; thread_keys_off: a thread was made without one */
    struct gk_thread_key { uint32_t group, index; } *thread_keys;
    size_t n_thread_keys, cap_thread_keys;
    int thread_keys_off;
} gk_reader;

/* ---- in gecko_tables.c (used by both; calls neither) ---- */

/* Frees a column. */
void pk_gk_col_free(gk_col *c);
/* Makes a table's columns (NULL when out of memory). */
gk_col *pk_gk_cols_make(gk_table *t);
/* Column c of table t, to write: the columns are made at the first (NULL
 * when out of memory). */
static inline gk_col *pk_gk_col_w(gk_table *t, int c)
{
    if (PK_UNLIKELY(!t->col) && !pk_gk_cols_make(t))
        return NULL;
    return &t->col[t->slot[c]];
}
/* Frees a table's columns and positional rows. */
void pk_gk_table_free(gk_table *t);
/* Frees a string table. */
void pk_gk_strings_free(gk_strings *s);
/* Frees a thread's or a process's tables and string table. */
void pk_gk_tables_free(gk_tables *t);
/* Fails with "out of memory" (PROFKIT_ENOMEM); returns the code. */
int pk_gk_oom(gk_reader *r);
/* Frees a thread and everything it holds. */
void pk_gk_thread_free(gk_thread *th);
/* A NUL-terminated copy of s[0..n), or NULL when out of memory. */
char *pk_gk_dup_len(const char *s, size_t n);
/* The JSON text a text cell refers to (*n bytes), or NULL. */
const char *pk_gk_cell_text(const gk_tables *o, double d, size_t *n);
/* Drops a streamed table's rows that never got a stack cell (the newest
 * rows); a row whose stack is null (PK_GK_NULL_STACK) stays. */
void pk_gk_compact_streamed(gk_reader *r, gk_table *t);
/* A streamed sample's stack while it is read: the file's null (a sample
 * without a stack: a time on its thread, attributed to no function, which
 * becomes the model's empty stack, 0). Raw indexes stay below it. */
#define PK_GK_NULL_STACK (UINT32_MAX - 1)
/* Table tk of owner o, or NULL when it has none (o may be NULL). */
static inline gk_table *pk_gk_table_of(const gk_tables *o, int tk)
{
    return o ? o->t[tk] : NULL;
}
/* Rows in a table (0 for NULL). */
static inline size_t pk_gk_table_rows(const gk_table *t)
{
    if (!t || !t->present)
        return 0;
    if (t->rows_layout)
        return t->n_rows;
    size_t n = 0;
    for (int s = 0; t->col && s < GK_SLOTS; s++)
        if (t->col[s].n > n)
            n = t->col[s].n;
    return n;
}
/* Cell (row i, column c), or a null cell when absent. */
static inline double pk_gk_cell_at(const gk_table *t, int c, size_t i)
{
    if (!t || !t->col)
        return boxed(BOX_NULL);
    const gk_col *col = &t->col[t->slot[c]];
    return i < col->n ? col->v[i] : boxed(BOX_NULL);
}

/* A marker's phase while it is read: the table has no phase column. */
#define PK_GK_NO_PHASE UINT32_MAX
/* ... a phase that is none of 0..3 (an error once the marker is complete). */
#define PK_GK_BAD_PHASE (UINT32_MAX - 1)
/*
 * Completes marker m read with its times as they came (PROFKIT_NO_TIME for
 * null) and its phase (PK_GK_NO_PHASE: none, an old profile, upgraded as
 * the Firefox Profiler does from the payload): the times its phase does
 * not have become PROFKIT_NO_TIME, and a marker without a category gets
 * the one the Firefox Profiler gives it. Returns 0, PROFKIT_ECORRUPT for a
 * phase that is none of 0..3, or PROFKIT_ENOMEM.
 */
int pk_gk_marker_complete(profkit_profile *p, profkit_marker *m);

/* ---- in gecko_counters.c (called by gecko_common.c) ---- */

/* `counters` (ev: its value) begins: an array (read through
 * pk_gk_counters_event while r->cn.active) or null. */
int pk_gk_counters_begin(gk_reader *r, pk_json *j, const pk_json_event *ev);
int pk_gk_counters_event(gk_reader *r, pk_json *j, const pk_json_event *ev);
/* Thread th was built as model thread `thread`: a GeckoMain is its
 * profile's main thread, the thread of the profile's counters. */
int pk_gk_counters_thread_built(gk_reader *r, const gk_thread *th, uint32_t thread);
/* Every thread is read: each counter gets its process's main thread. */
void pk_gk_counters_resolve(gk_reader *r);
/* Gives each (sub-)profile's pausedRanges its process's pid. 0 or an error. */
int pk_gk_paused_resolve(gk_reader *r);
void pk_gk_counters_free(gk_counters *c);
/* A sample of thread th at time_ms with event delay `delay` (ms; NaN: none)
 * for its jank as the Firefox Profiler finds it; `last`: th has no sample
 * after it (ends an open jank). 0 or PROFKIT_ENOMEM. */
int pk_gk_jank_sample(gk_thread *th, double time_ms, double delay);
/* Sample row `row`'s threadCPUDelta from its cell d (a number; else none).
 * 0, or the out-of-memory error. */
int pk_gk_cpu_cell(gk_reader *r, size_t row, double d);
int pk_gk_jank_end(gk_thread *th);
/* Adds th's jank as "Jank" interval markers of model thread `thread`,
 * shifted by shift ms. 0 or PROFKIT_ENOMEM. */
int pk_gk_jank_markers(gk_reader *r, gk_thread *th, uint32_t thread, double shift);

/* ---- in gecko_order.c (called by gecko_common.c and gecko_build.c) ---- */

/* Model thread `thread` was made for th (the next thread): notes its place
 * in the Firefox Profiler's order. 0 or PROFKIT_ENOMEM. */
int pk_gk_thread_made(gk_reader *r, const gk_thread *th, uint32_t thread);
/* Every thread is read: renumbers the model's threads into the Firefox
 * Profiler's order (nothing to do, one pass over the threads, when they
 * are in it). 0 or the out-of-memory error. */
int pk_gk_order_threads(gk_reader *r);
/* The same for the counters (after pk_gk_counters_resolve): the root's
 * first, then each sub-process's. 0 or the out-of-memory error. */
int pk_gk_order_counters(gk_reader *r);

/* ---- in gecko_build.c (called by gecko_common.c; never calls it) ---- */

/* Builds the pending threads at depth >= from_depth that are ready, or
 * (force) all at depth >= min_depth. */
int pk_gk_flush_pending(gk_reader *r, int force, size_t min_depth, size_t from_depth);
/* Thread th is built and about to be freed: the buffers of its stored
 * tables' columns (and of its packed stackTable rows) are kept for the
 * next thread's (the largest one of each column). */
void pk_gk_keep_columns(gk_reader *r, gk_thread *th);
/* The current thread's object closed: builds it now or keeps it pending. */
int pk_gk_thread_done(gk_reader *r);

#endif
