/*
 * gecko_build.c: a thread of a Gecko or processed profile goes into the
 * model once its object has closed and what it refers to (its process's
 * start time, the shared tables) is known: samples get their stacks
 * (prefixes resolved iteratively, cycles refused), frames and functions
 * their strings and location parts, markers their names and times shifted
 * by the process's start. Errors name the table and row, at the line and
 * column where that table starts. The reader's state is in gecko_reader.h.
 */
#include "formats/gecko/gecko_reader.h"
#include "io/json_fields.h"
#include "io/json_out.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- threads */

typedef struct gk_build {
    gk_reader *r;
    gk_thread *th;
    gk_tables *strings_owner;
    gk_tables *owner[T_COUNT]; /* whose table each is */
    gk_table *t[T_COUNT];
    int raw_frames;            /* frames carry location strings */
    long version;              /* processed version (0 = before 1); -1 for raw Gecko */
    double shift_ms;           /* the markers' process shift (ms) while they are completed */
    int raw_entry_old;         /* raw Gecko before version 14: "AutoEntryScript " labels */
} gk_build;

static void col_release(gk_col *c)
{
    free(c->v);
    memset(c, 0, sizeof *c);
}

static int table_fail(gk_build *b, int tk, size_t row, const char *fmt, ...) PK_PRINTF(4, 5);
static int table_fail(gk_build *b, int tk, size_t row, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const gk_table *t = b->t[tk];
    return pk_read_fail_pos(b->r->ctx, PROFKIT_ECORRUPT, t ? t->line : 0, t ? t->column : 0,
                                 "thread %zu (%s): %s row %zu: %s", b->th->index,
                                 b->th->name ? b->th->name : "", table_names[tk], row, msg);
}

/* Reads an integer cell: 0 (value in *out), 1 (null), or an error. */
static int get_int(gk_build *b, int tk, int c, size_t row, int64_t *out)
{
    double d = pk_gk_cell_at(b->t[tk], c, row);
    if (cell_is_null(d))
        return 1;
    if (cell_is_text(d) || d != d || d < -9007199254740992.0 || d > 9007199254740992.0 ||
        d != floor(d))
        return table_fail(b, tk, row, "%s: expected an integer, found %s", col_names[c],
                          cell_is_text(d) ? "text" : "a fraction or huge number");
    *out = (int64_t)d;
    return 0;
}

/* An index into a table of n rows (null allowed when nullable). */
static int get_index(gk_build *b, int tk, int c, size_t row, size_t n, const char *what,
                     int64_t *out)
{
    int rc = get_int(b, tk, c, row, out);
    if (rc < 0)
        return rc;
    if (rc == 1) {
        *out = -1;
        return 1;
    }
    if (*out < 0 || (uint64_t)*out >= n)
        return table_fail(b, tk, row, "%s %lld out of range (the %s has %zu entries)", col_names[c],
                          (long long)*out, what, n);
    return 0;
}

static int get_num(gk_build *b, int tk, int c, size_t row, double *out)
{
    double d = pk_gk_cell_at(b->t[tk], c, row);
    if (cell_is_null(d))
        return 1;
    if (cell_is_text(d))
        return table_fail(b, tk, row, "%s: expected a number, found text", col_names[c]);
    *out = d;
    return 0;
}

/*
 * Version 71+ frame tables and 75+ func tables say which optional columns
 * hold a value with a `flags` bit (the others hold 0, not null). Returns
 * whether the column guarded by `bit` is set in row `row`; true without flags.
 */
enum { FRAME_INLINED = 1, FRAME_ADDRESS = 2, FRAME_CATEGORY = 4, FRAME_LINE = 16, FRAME_COLUMN = 32 };
enum { FUNC_JS = 1, FUNC_RELEVANT_FOR_JS = 2, FUNC_RESOURCE = 4, FUNC_SOURCE = 8, FUNC_LINE = 16 };
static int has_flag(gk_build *b, int tk, size_t row, unsigned bit)
{
    const gk_table *t = b->t[tk];
    if (!t || pk_gk_col(t, COL_FLAGS)->n == 0)
        return 1;
    double d = pk_gk_cell_at(t, COL_FLAGS, row);
    if (cell_is_null(d) || cell_is_text(d) || !(d >= 0 && d < 4294967296.0))
        return 0;
    return ((uint32_t)d & bit) != 0;
}

/* get_int for a column guarded by a flags bit: 1 (null) when unflagged. */
static int get_flagged(gk_build *b, int tk, int c, size_t row, unsigned bit, int64_t *out)
{
    if (!has_flag(b, tk, row, bit))
        return 1;
    return get_int(b, tk, c, row, out);
}

/* Model string id of string index i of the strings owner. */
static int model_string(gk_build *b, int tk, size_t row, int64_t i, uint32_t *out)
{
    gk_tables *o = b->strings_owner;
    size_t n = o ? o->strings.n : 0;
    if (i < 0 || (uint64_t)i >= n)
        return table_fail(b, tk, row, "string index %lld out of range (the string table has %zu entries)",
                          (long long)i, n);
    if (!o->str_ids) {
        o->str_ids = malloc((n ? n : 1) * sizeof(uint32_t));
        if (!o->str_ids)
            return pk_gk_oom(b->r);
        memset(o->str_ids, 0xff, (n ? n : 1) * sizeof(uint32_t));
        o->n_str_ids = n;
    }
    if (o->str_ids[i] == PROFKIT_NONE) {
        size_t a = o->strings.off[i], e = o->strings.off[i + 1];
        uint32_t id = profkit_string_intern(b->r->p, o->strings.buf + a, e - a);
        if (id == PROFKIT_NONE)
            return pk_gk_oom(b->r);
        o->str_ids[i] = id;
    }
    *out = o->str_ids[i];
    return 0;
}

static int string_view(gk_build *b, int tk, size_t row, int64_t i, const char **s, size_t *len)
{
    gk_tables *o = b->strings_owner;
    size_t n = o ? o->strings.n : 0;
    if (i < 0 || (uint64_t)i >= n)
        return table_fail(b, tk, row, "string index %lld out of range (the string table has %zu entries)",
                          (long long)i, n);
    *s = o->strings.buf + o->strings.off[i];
    *len = o->strings.off[i + 1] - o->strings.off[i];
    return 0;
}

static uint32_t *cache(uint32_t **ids, size_t *n_ids, size_t n)
{
    if (!*ids) {
        *ids = malloc((n ? n : 1) * sizeof(uint32_t));
        if (!*ids)
            return NULL;
        memset(*ids, 0xff, (n ? n : 1) * sizeof(uint32_t));
        *n_ids = n;
    }
    return *ids;
}

enum { TOUCH_FUNC, TOUCH_FRAME, TOUCH_STACK };

/*
 * Notes that a cache entry of a table owner other than the thread's own was
 * set: the next thread may resolve the same shared tables with another
 * string table, and then only these entries are reset, not every row of
 * the shared tables (which, once per thread, made threads with their own
 * strings beside large shared tables quadratic).
 */
static int touch(gk_build *b, gk_tables *o, unsigned kind, size_t i)
{
    if (o == b->th->tab)
        return 0; /* a thread's own caches go with the thread */
    if (o->n_touched == o->cap_touched &&
        PK_VEC_RESERVE(o->touched, o->n_touched, o->cap_touched, 1) != 0)
        return pk_gk_oom(b->r);
    o->touched[o->n_touched++] = (uint64_t)kind << 62 | i;
    return 0;
}

/* Resets the cache entries set since the strings owner last changed. */
static void untouch(gk_tables *o)
{
    for (size_t k = 0; k < o->n_touched; k++) {
        size_t i = (size_t)(o->touched[k] & ~((uint64_t)3 << 62));
        switch ((unsigned)(o->touched[k] >> 62)) {
        case TOUCH_FUNC:
            if (o->func_ids && i < o->n_func_ids)
                o->func_ids[i] = PROFKIT_NONE;
            break;
        case TOUCH_FRAME:
            if (o->frame_ids && i < o->n_frame_ids)
                o->frame_ids[i] = PROFKIT_NONE;
            break;
        default:
            if (o->srows)
                o->srows[i].id = PROFKIT_NONE;
            break;
        }
    }
    o->n_touched = 0;
}

static int intern_len(gk_build *b, const char *s, size_t n, uint32_t *out)
{
    *out = profkit_string_intern(b->r->p, s ? s : "", s ? n : 0);
    return *out == PROFKIT_NONE ? pk_gk_oom(b->r) : 0;
}

/*
 * The name of funcTable row i, as the Firefox Profiler's upgraders leave it:
 * before version 4 a JS function's name was its whole location string
 * ("f (url:12)": split as docs/formats/gecko.md rules), and before 17 an entry label
 * read "AutoEntryScript REASON" (the prefix went).
 */
static int func_name(gk_build *b, size_t i, int64_t si, profkit_function *f)
{
    const char *s = NULL;
    size_t len = 0;
    int rc = string_view(b, T_FUNCS, i, si, &s, &len);
    if (rc < 0)
        return rc;
    static const char entry[] = "AutoEntryScript ";
    int js_old = b->version >= 0 && b->version < 4 && pk_gk_col(b->t[T_FUNCS], COL_FILE_NAME)->n == 0;
    int entry_old = b->version >= 0 && b->version < 17 && len > sizeof entry - 1 &&
                    memcmp(s, entry, sizeof entry - 1) == 0;
    if (!js_old && !entry_old)
        return model_string(b, T_FUNCS, i, si, &f->name);
    /* what the string becomes is kept with the strings, by index: many
     * functions may name one long string */
    gk_tables *o = b->strings_owner; /* string_view checked si against it */
    if (o->fnames && o->n_fnames != o->strings.n) {
        free(o->fnames);
        o->fnames = NULL;
    }
    if (!o->fnames) {
        size_t n = o->strings.n ? o->strings.n : 1;
        if (!(o->fnames = malloc(n * sizeof *o->fnames)))
            return pk_gk_oom(b->r);
        for (size_t k = 0; k < n; k++)
            o->fnames[k] = (gk_fname){ PROFKIT_NONE, PROFKIT_NONE, 0, PROFKIT_NONE };
        o->n_fnames = o->strings.n;
    }
    gk_fname *c = &o->fnames[si];
    if (js_old) {
        double js = pk_gk_cell_at(b->t[T_FUNCS], COL_IS_JS, i);
        if (!cell_is_null(js) && !cell_is_text(js) && js != 0 && has_flag(b, T_FUNCS, i, FUNC_JS)) {
            if (c->js_name == PROFKIT_NONE) {
                pk_gecko_location loc;
                pk_gecko_parse_location(s, len, &loc);
                uint32_t name = 0, file = PROFKIT_NONE;
                if (loc.file && !loc.is_address &&
                    ((rc = intern_len(b, loc.file, loc.file_len, &file)) < 0 ||
                     (rc = intern_len(b, loc.name, loc.name_len, &name)) < 0))
                    return rc;
                c->js_line = loc.line;
                c->js_file = file;
                c->js_name = name;
            }
            if (c->js_file != PROFKIT_NONE) {
                f->start_line = c->js_line;
                f->file = c->js_file;
                f->name = c->js_name;
                return 0;
            }
        }
    }
    if (entry_old) {
        if (c->entry_name == PROFKIT_NONE &&
            (rc = intern_len(b, s + sizeof entry - 1, len - (sizeof entry - 1), &c->entry_name)) < 0)
            return rc;
        f->name = c->entry_name;
        return 0;
    }
    return model_string(b, T_FUNCS, i, si, &f->name);
}

/* Processed: the model function of funcTable row i. */
static int func_id(gk_build *b, size_t i, uint32_t *out)
{
    gk_table *ft = b->t[T_FUNCS];
    size_t n = pk_gk_table_rows(ft);
    gk_tables *o = b->owner[T_FUNCS];
    uint32_t *ids = cache(&o->func_ids, &o->n_func_ids, n);
    if (!ids)
        return pk_gk_oom(b->r);
    if (ids[i] != PROFKIT_NONE) {
        *out = ids[i];
        return 0;
    }
    profkit_function f = { 0, 0, 0, 0, 0 };
    int64_t v = 0;
    int rc;
    if ((rc = get_int(b, T_FUNCS, COL_NAME, i, &v)) < 0)
        return rc;
    if (rc == 0 && (rc = func_name(b, i, v, &f)) < 0)
        return rc;
    if ((rc = get_int(b, T_FUNCS, COL_FILE_NAME, i, &v)) < 0)
        return rc;
    if (rc == 0 && (rc = model_string(b, T_FUNCS, i, v, &f.file)) < 0)
        return rc;
    if (pk_gk_col(b->t[T_FUNCS], COL_SOURCE)->n && b->t[T_SOURCES]) {
        /* version 58+: the file name is in the shared sources table */
        int64_t src = 0;
        rc = has_flag(b, T_FUNCS, i, FUNC_SOURCE)
                 ? get_index(b, T_FUNCS, COL_SOURCE, i, pk_gk_table_rows(b->t[T_SOURCES]), "sources table", &src)
                 : 1;
        if (rc < 0)
            return rc;
        if (rc == 0) {
            if ((rc = get_int(b, T_SOURCES, COL_FILENAME, (size_t)src, &v)) < 0)
                return rc;
            if (rc == 0 && (rc = model_string(b, T_SOURCES, (size_t)src, v, &f.file)) < 0)
                return rc;
        }
    }
    if ((rc = get_flagged(b, T_FUNCS, COL_LINE_NUMBER, i, FUNC_LINE, &v)) < 0)
        return rc;
    if (rc == 0 && v > 0 && v <= UINT32_MAX)
        f.start_line = (uint32_t)v;
    if ((rc = get_flagged(b, T_FUNCS, COL_RESOURCE, i, FUNC_RESOURCE, &v)) < 0)
        return rc;
    if (rc == 0 && v >= 0) {
        gk_table *rt = b->t[T_RESOURCES];
        size_t nr = rt ? pk_gk_table_rows(rt) : 0;
        if ((uint64_t)v >= nr)
            return table_fail(b, T_FUNCS, i, "resource %lld out of range (the resourceTable has %zu entries)",
                              (long long)v, nr);
        int64_t type, name;
        if ((rc = get_int(b, T_RESOURCES, COL_TYPE, (size_t)v, &type)) < 0)
            return rc;
        /* type 1 is a library: its name is the module */
        if (rc == 0 && type == 1) {
            if ((rc = get_int(b, T_RESOURCES, COL_NAME, (size_t)v, &name)) < 0)
                return rc;
            if (rc == 0 && (rc = model_string(b, T_RESOURCES, (size_t)v, name, &f.module)) < 0)
                return rc;
        }
    }
    f.system_name = f.name;
    uint32_t id = pk_function_add(b->r->p, &f);
    if (id == PROFKIT_NONE)
        return pk_gk_oom(b->r);
    if ((rc = touch(b, o, TOUCH_FUNC, i)) < 0)
        return rc;
    ids[i] = id;
    *out = id;
    return 0;
}

/*
 * A raw frame's location string s[0..len) split (docs/formats/gecko.md):
 * before Gecko version 14 an entry label read "AutoEntryScript REASON",
 * and the Firefox Profiler's upgrade takes the prefix off.
 */
static void raw_location(const gk_build *b, const char *s, size_t len, pk_gecko_location *loc)
{
    static const char entry[] = "AutoEntryScript ";
    if (b->raw_entry_old && len > sizeof entry - 1 && memcmp(s, entry, sizeof entry - 1) == 0) {
        s += sizeof entry - 1;
        len -= sizeof entry - 1;
    }
    pk_gecko_parse_location(s, len, loc);
}

/* Location string v's memo (location) once its function fn is made. */
static void loc_made(gk_tables *o, size_t v, const pk_gecko_location *loc, uint32_t file, uint32_t fn)
{
    gk_loc *l = &o->locs[v];
    l->line = loc->line;
    l->column = loc->is_address ? GK_LOC_ADDRESS : loc->column;
    if (file)
        o->loc_files[v / 8] |= (uint8_t)(1u << (v % 8));
    l->function = fn;
}

/*
 * What location string v (raw Gecko frames) becomes: parsed and its
 * function made once per string, not once per frame (frames of different
 * lines share one). The memo lives with the strings, like str_ids.
 */
static int location(gk_build *b, size_t row, int64_t v, const gk_loc **out, uint64_t *address,
                    int *has_file)
{
    const char *s = NULL;
    size_t len = 0;
    int rc;
    gk_tables *o = b->strings_owner;
    if (!o || v < 0 || (uint64_t)v >= o->strings.n) /* its error */
        return string_view(b, T_FRAMES, row, v, &s, &len);
    if (o->locs && o->n_locs != o->strings.n) { /* another string table came */
        free(o->locs); /* and loc_files, in the same block */
        o->locs = NULL;
        o->loc_files = NULL;
    }
    if (!o->locs) {
        size_t n = o->strings.n ? o->strings.n : 1;
        o->locs = malloc(n * sizeof *o->locs + (n + 7) / 8);
        if (!o->locs)
            return pk_gk_oom(b->r);
        o->loc_files = (uint8_t *)(o->locs + n);
        memset(o->loc_files, 0, (n + 7) / 8);
        for (size_t k = 0; k < n; k++)
            o->locs[k].function = PROFKIT_NONE;
        o->n_locs = o->strings.n;
    }
    gk_loc *l = &o->locs[v]; /* v < strings.n == n_locs */
    if (l->function == PROFKIT_NONE || l->column == GK_LOC_ADDRESS) /* the text is read */
        string_view(b, T_FRAMES, row, v, &s, &len);
    if (l->function == PROFKIT_NONE) {
        pk_gecko_location loc;
        raw_location(b, s, len, &loc);
        profkit_function f = { 0, 0, 0, 0, loc.line };
        if ((rc = intern_len(b, loc.name, loc.name_len, &f.name)) < 0 ||
            (rc = intern_len(b, loc.file, loc.file_len, &f.file)) < 0 ||
            (rc = intern_len(b, loc.module, loc.module_len, &f.module)) < 0)
            return rc;
        f.system_name = f.name;
        uint32_t fn = pk_function_add(b->r->p, &f);
        if (fn == PROFKIT_NONE)
            return pk_gk_oom(b->r);
        loc_made(o, (size_t)v, &loc, f.file, fn);
    }
    *has_file = (o->loc_files[v / 8] >> (v % 8)) & 1;
    *address = 0;
    if (l->column == GK_LOC_ADDRESS) {
        pk_gecko_location loc;
        raw_location(b, s, len, &loc);
        *address = loc.address;
    }
    *out = l;
    return 0;
}

/*
 * The model mapping of a processed frame's lib: the frameTable's `lib`
 * column (from version 70), else the lib of its function's resource, an
 * index into the profile's libs, which became the mappings from
 * r->libs_base in order (start 0: the frame's address is relative to its
 * lib, as pprof's file offsets are). Only with one libs list: the lists
 * of threads (before version 41) are not told apart. PROFKIT_NONE when
 * there is none.
 */
static int frame_lib(gk_build *b, size_t i, size_t func, uint32_t *out)
{
    int64_t lib = -1, res;
    int rc;
    if (pk_gk_col(b->t[T_FRAMES], COL_LIB)->n) {
        if ((rc = get_flagged(b, T_FRAMES, COL_LIB, i, FRAME_ADDRESS, &lib)) < 0)
            return rc;
    } else if (b->t[T_RESOURCES] && pk_gk_col(b->t[T_RESOURCES], COL_LIB)->n) {
        if ((rc = get_flagged(b, T_FUNCS, COL_RESOURCE, func, FUNC_RESOURCE, &res)) < 0)
            return rc;
        if (rc == 0 && res >= 0 && (size_t)res < pk_gk_table_rows(b->t[T_RESOURCES]) &&
            (rc = get_int(b, T_RESOURCES, COL_LIB, (size_t)res, &lib)) < 0)
            return rc;
    }
    const profkit_profile *p = b->r->p;
    if (lib >= 0 && b->r->n_libs_lists == 1 && b->r->libs_base + (uint64_t)lib < p->n_mappings)
        *out = (uint32_t)(b->r->libs_base + (size_t)lib);
    return 0;
}

/*
 * A frame with the inline bit (version 71+) is one deeper than the frame
 * above it when that one has its address (an inlined chain shares its
 * real call's address), else 1. Gives the frame with that depth.
 */
static int inline_frame(gk_build *b, uint32_t parent, uint32_t *frame)
{
    profkit_profile *p = b->r->p;
    profkit_frame fr = p->frames[*frame];
    uint32_t depth = 1;
    if (parent && parent < p->n_stacks) {
        const profkit_frame *up = &p->frames[p->stacks[parent].frame];
        if (up->address == fr.address && up->inline_depth < 1024)
            depth = up->inline_depth + 1;
    }
    if (depth == fr.inline_depth)
        return 0;
    fr.inline_depth = depth;
    uint32_t id = pk_frame_add(p, &fr);
    if (id == PROFKIT_NONE)
        return pk_gk_oom(b->r);
    *frame = id;
    return 0;
}

/* A boolean cell (true, or a number other than 0) of row i. */
static int cell_true(gk_build *b, int tk, int c, size_t i)
{
    double d = pk_gk_cell_at(b->t[tk], c, i);
    return !cell_is_null(d) && !cell_is_text(d) && d != 0;
}

/*
 * Frame row i's category and subcategory (a null one: none, the frame
 * takes its caller's) and its JS flags: from the function (processed:
 * funcTable isJS and relevantForJS, or from version 75 its flags) or
 * (raw) a JS location and the frame's relevantForJS.
 */
static int frame_category(gk_build *b, size_t i, int64_t func, int raw_has_file, profkit_frame *fr)
{
    int64_t v = 0;
    int rc = get_flagged(b, T_FRAMES, COL_CATEGORY, i, FRAME_CATEGORY, &v);
    if (rc < 0)
        return rc;
    /* a category past meta.categories is none (model_categories): known
     * here when meta came first, as it does in Firefox's files, so such a
     * frame is the same model frame as one without a category */
    size_t known = b->r->categories.n;
    if (rc == 0 && v >= 0 && v < (int64_t)PK_MAX_CATEGORIES && (known == 0 || (uint64_t)v < known)) {
        fr->category = (uint16_t)(v + 1);
        if ((rc = get_int(b, T_FRAMES, COL_SUBCATEGORY, i, &v)) < 0)
            return rc;
        fr->subcategory = rc == 0 && v > 0 && v <= 255 ? (uint8_t)v : 0;
    }
    if (func < 0) { /* raw: whether fr->function has a file */
        if (raw_has_file && !fr->address)
            fr->flags |= PROFKIT_FRAME_JS;
        if (cell_true(b, T_FRAMES, COL_RELEVANT_FOR_JS, i))
            fr->flags |= PROFKIT_FRAME_RELEVANT_FOR_JS;
        return 0;
    }
    if (pk_gk_col(b->t[T_FUNCS], COL_FLAGS)->n) {
        fr->flags |= has_flag(b, T_FUNCS, (size_t)func, FUNC_JS) ? PROFKIT_FRAME_JS : 0;
        fr->flags |= has_flag(b, T_FUNCS, (size_t)func, FUNC_RELEVANT_FOR_JS) ? PROFKIT_FRAME_RELEVANT_FOR_JS : 0;
    } else {
        fr->flags |= cell_true(b, T_FUNCS, COL_IS_JS, (size_t)func) ? PROFKIT_FRAME_JS : 0;
        fr->flags |= cell_true(b, T_FUNCS, COL_RELEVANT_FOR_JS, (size_t)func) ? PROFKIT_FRAME_RELEVANT_FOR_JS : 0;
    }
    return 0;
}

/* The model frame's row for frameTable row i (not added yet). */
static int frame_row(gk_build *b, size_t i, profkit_frame *out)
{
    profkit_frame fr = { 0, 0, 0, 0, PROFKIT_NONE, 0, 0, 0, 0 };
    int64_t v = 0;
    int rc;
    uint32_t loc_line = 0, loc_col = 0;
    int64_t fi = -1;
    int raw_has_file = 0;
    if (b->raw_frames) {
        if ((rc = get_int(b, T_FRAMES, COL_LOCATION, i, &v)) < 0)
            return rc;
        if (rc == 1)
            return table_fail(b, T_FRAMES, i, "location: expected a string index, found null");
        const gk_loc *l = NULL;
        if ((rc = location(b, i, v, &l, &fr.address, &raw_has_file)) < 0)
            return rc;
        fr.function = l->function;
        loc_line = l->line;
        loc_col = l->column == GK_LOC_ADDRESS ? 0 : l->column;
    } else {
        rc = get_index(b, T_FRAMES, COL_FUNC, i, pk_gk_table_rows(b->t[T_FUNCS]), "funcTable", &fi);
        if (rc < 0)
            return rc;
        if (rc == 1)
            return table_fail(b, T_FRAMES, i, "func: expected a funcTable index, found null");
        if ((rc = func_id(b, (size_t)fi, &fr.function)) < 0)
            return rc;
        if ((rc = get_flagged(b, T_FRAMES, COL_ADDRESS, i, FRAME_ADDRESS, &v)) < 0)
            return rc;
        if (rc == 0 && v >= 0)
            fr.address = (uint64_t)v;
        if (fr.address && (rc = frame_lib(b, i, (size_t)fi, &fr.mapping)) < 0)
            return rc;
        /* Inlined frames: the inlineDepth column (versions 40 to 70), or
         * from 71 the flags' inline bit, whose depth stack_id counts. */
        if ((rc = get_int(b, T_FRAMES, COL_INLINE_DEPTH, i, &v)) < 0)
            return rc;
        if (rc == 0 && v > 0 && v <= 1024)
            fr.inline_depth = (uint32_t)v;
        else if (pk_gk_col(b->t[T_FRAMES], COL_FLAGS)->n && has_flag(b, T_FRAMES, i, FRAME_INLINED))
            fr.inline_depth = 1;
    }
    if ((rc = get_flagged(b, T_FRAMES, COL_LINE, i, FRAME_LINE, &v)) < 0)
        return rc;
    fr.line = rc == 0 && v > 0 && v <= UINT32_MAX ? (uint32_t)v : loc_line;
    if ((rc = get_flagged(b, T_FRAMES, COL_COLUMN, i, FRAME_COLUMN, &v)) < 0)
        return rc;
    fr.column = rc == 0 && v > 0 && v <= UINT32_MAX ? (uint32_t)v : loc_col;
    if ((rc = frame_category(b, i, fi, raw_has_file, &fr)) < 0)
        return rc;
    *out = fr;
    return 0;
}

/* The model frame of frameTable row i; row: its row made ahead (with its
 * hash), or NULL. */
static int frame_id_ahead(gk_build *b, size_t i, const gk_ahead *row, uint32_t *out)
{
    gk_table *ft = b->t[T_FRAMES];
    size_t n = pk_gk_table_rows(ft);
    gk_tables *o = b->owner[T_FRAMES];
    uint32_t *ids = cache(&o->frame_ids, &o->n_frame_ids, n);
    if (!ids)
        return pk_gk_oom(b->r);
    if (ids[i] != PROFKIT_NONE) {
        *out = ids[i];
        return 0;
    }
    profkit_frame fr;
    uint64_t hash;
    int rc;
    if (row) {
        fr = row->frame;
        hash = row->hash;
    } else {
        if ((rc = frame_row(b, i, &fr)) < 0)
            return rc;
        hash = pk_frame_hash(&fr);
    }
    uint32_t id = pk_frame_add_hashed(b->r->p, &fr, hash);
    if (id == PROFKIT_NONE)
        return pk_gk_oom(b->r);
    if ((rc = touch(b, o, TOUCH_FRAME, i)) < 0)
        return rc;
    ids[i] = id;
    *out = id;
    return 0;
}

#define IN_PROGRESS (PROFKIT_NONE - 1)

/* The strings of a location as intern_len interns them ("" for none). */
static inline const char *loc_part(const char *s) { return s ? s : ""; }

/*
 * Raw frames: the functions of the location strings that the new frames
 * of fs[0..n) (frameTable rows, in the order they are to be made) name,
 * made before them a step at a time over all of them: each string parsed
 * and its parts' hashes taken, then the parts interned and the function's
 * hash taken, then the functions added, each step's index slots asked for
 * in the step before, so that the misses overlap instead of following
 * each other. The tables get their rows in the order location() gives
 * them. Anything else (a cell that is not a string index in range, no
 * memo yet, out of memory) is left to location(), which says what is
 * wrong where it always did.
 */
static void locations_ahead(gk_build *b, const uint32_t *fs, size_t n)
{
    gk_reader *r = b->r;
    gk_tables *o = b->strings_owner;
    const gk_table *ft = b->t[T_FRAMES];
    if (!o || !o->locs || o->n_locs != o->strings.n || !ft || n < 2)
        return;
    if (n > r->cap_locs_ahead && pk_grow((void **)&r->locs_ahead, &r->cap_locs_ahead, n,
                                         sizeof *r->locs_ahead) != 0)
        return;
    profkit_profile *p = r->p;
    gk_loc_ahead *la = r->locs_ahead;
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        double d = pk_gk_cell_at(ft, COL_LOCATION, fs[k]);
        if (!(d >= 0 && d < (double)o->n_locs && d == floor(d)))
            continue;
        size_t v = (size_t)d;
        if (o->locs[v].function != PROFKIT_NONE)
            continue;
        gk_loc_ahead *a = &la[m++];
        a->v = v;
        raw_location(b, o->strings.buf + o->strings.off[v], o->strings.off[v + 1] - o->strings.off[v], &a->loc);
        a->h[0] = pk_strtab_hash(loc_part(a->loc.name), a->loc.name ? a->loc.name_len : 0);
        a->h[1] = pk_strtab_hash(loc_part(a->loc.file), a->loc.file ? a->loc.file_len : 0);
        a->h[2] = pk_strtab_hash(loc_part(a->loc.module), a->loc.module ? a->loc.module_len : 0);
        for (int h = 0; h < 3; h++)
            pk_strtab_prefetch(&p->strings, a->h[h]);
    }
    if (m < 2)
        return; /* one alone gains nothing: location() makes it */
    for (size_t k = 0; k < m; k++) {
        gk_loc_ahead *a = &la[k];
        profkit_function *f = &a->f;
        memset(f, 0, sizeof *f);
        f->start_line = a->loc.line;
        f->name = pk_strtab_intern_hashed(&p->strings, loc_part(a->loc.name),
                                          a->loc.name ? a->loc.name_len : 0, a->h[0]);
        f->file = pk_strtab_intern_hashed(&p->strings, loc_part(a->loc.file),
                                          a->loc.file ? a->loc.file_len : 0, a->h[1]);
        f->module = pk_strtab_intern_hashed(&p->strings, loc_part(a->loc.module),
                                            a->loc.module ? a->loc.module_len : 0, a->h[2]);
        if (f->name == PROFKIT_NONE || f->file == PROFKIT_NONE || f->module == PROFKIT_NONE) {
            m = k; /* the rest to location() */
            break;
        }
        f->system_name = f->name;
        a->fh = pk_function_hash(f);
        pk_function_prefetch(p, a->fh);
    }
    for (size_t k = 0; k < m; k++) {
        gk_loc_ahead *a = &la[k];
        if (o->locs[a->v].function != PROFKIT_NONE)
            continue; /* a string named twice */
        uint32_t fn = pk_function_add_hashed(p, &a->f, a->fh);
        if (fn == PROFKIT_NONE)
            return;
        loc_made(o, a->v, &a->loc, a->f.file, fn);
    }
}

/*
 * The stackTable's rows packed for the resolution (gk_srow), made once per
 * owner in one sequential pass over the two columns. A cell that is not a
 * plain index in range becomes GK_SROW_CELL, and stack_id reads it again
 * the way it always did, so every error stays what and where it was.
 */
/* Row i of a stackTable of n rows (frames: nf rows) from its two cells. */
/* Whether d is a whole number in [0, below) (below <= GK_SROW_CELL), and
 * which: d >= 0 && d == floor(d) && d < below, by a conversion and back
 * rather than floor (false for NaN: text cells go the slow way). */
static inline int plain_index(double d, double below, uint32_t *out)
{
    if (!(d >= 0 && d < below))
        return 0;
    uint32_t u = (uint32_t)d;
    *out = u;
    return (double)u == d;
}

static inline gk_srow pack_row(size_t i, double pd, double fd, size_t n, size_t nf, int use_offset)
{
    gk_srow row = { GK_SROW_CELL, GK_SROW_CELL, PROFKIT_NONE };
    uint32_t u;
    if (cell_is_null(pd))
        row.prefix = GK_SROW_ROOT;
    else if (!use_offset) {
        if (plain_index(pd, (double)n, &u))
            row.prefix = u;
    } else if (plain_index(pd, (double)i + 1, &u)) {
        row.prefix = u == 0 ? GK_SROW_ROOT : (uint32_t)(i - u);
    }
    if (plain_index(fd, (double)nf, &u))
        row.frame = u;
    return row;
}

static gk_srow *stack_rows(gk_build *b)
{
    gk_tables *o = b->owner[T_STACKS];
    if (o->srows)
        return o->srows;
    gk_table *st = b->t[T_STACKS];
    size_t n = pk_gk_table_rows(st), nf = pk_gk_table_rows(b->t[T_FRAMES]);
    int use_offset = pk_gk_col(st, COL_PREFIX_OFFSET)->n > 0 && pk_gk_col(st, COL_PREFIX)->n == 0;
    gk_col *pc = pk_gk_col(st, use_offset ? COL_PREFIX_OFFSET : COL_PREFIX);
    gk_col *fc = pk_gk_col(st, COL_FRAME);
    if (n >= GK_SROW_CELL || nf >= GK_SROW_CELL) /* indexes must fit below the markers */
        nf = n = 0; /* every row's cells are read again */
    size_t rows_n = pk_gk_table_rows(st);
    /* A thread's own table in rows layout whose cells are all plain indexes
     * is packed in place of its prefix cells, from the last row back (row
     * i's 12 bytes cover only cells >= i), and its cells freed: nothing
     * reads them again (no error to name) and the thread's tables go once
     * it is built; the row count does not come from the columns. */
    int in_place = n > 0 && !use_offset && st->rows_layout && o == b->th->tab && pc->n == n &&
                   fc->n == n;
    for (size_t i = 0; in_place && i < n; i++) {
        gk_srow row = pack_row(i, pc->v[i], fc->v[i], n, nf, 0);
        in_place = row.prefix != GK_SROW_CELL && row.frame != GK_SROW_CELL;
    }
    gk_srow *rows;
    if (in_place) {
        char *buf = realloc(pc->v, n * sizeof(gk_srow));
        if (!buf)
            return NULL;
        pc->v = NULL; /* the buffer is o->srows's now */
        memset(pc, 0, sizeof *pc);
        for (size_t i = n; i-- > 0;) {
            double pd;
            memcpy(&pd, buf + i * sizeof(double), sizeof pd);
            gk_srow row = pack_row(i, pd, fc->v[i], n, nf, 0);
            memcpy(buf + i * sizeof(gk_srow), &row, sizeof row);
        }
        col_release(fc);
        col_release(pk_gk_col(st, COL_PREFIX_OFFSET));
        rows = (gk_srow *)(void *)buf;
    } else {
        rows = malloc((rows_n ? rows_n : 1) * sizeof *rows);
        if (!rows)
            return NULL;
        for (size_t i = 0; i < rows_n; i++) {
            double pd = i < pc->n ? pc->v[i] : boxed(BOX_NULL);
            double fd = i < fc->n ? fc->v[i] : boxed(BOX_NULL);
            rows[i] = i < n ? pack_row(i, pd, fd, n, nf, use_offset)
                            : (gk_srow){ GK_SROW_CELL, GK_SROW_CELL, PROFKIT_NONE };
        }
    }
    o->srows = rows;
    o->srows_frames = pk_gk_table_rows(b->t[T_FRAMES]);
    return rows;
}

/* The prefix of stackTable row cur from its cell (-1 for none), or an error. */
static int prefix_cell(gk_build *b, size_t cur, size_t n, int64_t *pf)
{
    gk_table *st = b->t[T_STACKS];
    int use_offset = pk_gk_col(st, COL_PREFIX_OFFSET)->n > 0 && pk_gk_col(st, COL_PREFIX)->n == 0;
    int rc;
    if (use_offset) {
        if ((rc = get_int(b, T_STACKS, COL_PREFIX_OFFSET, cur, pf)) < 0)
            return rc;
        if (rc == 0 && (*pf < 0 || (uint64_t)*pf > cur))
            return table_fail(b, T_STACKS, cur, "prefixOffset %lld points outside the table",
                              (long long)*pf);
        *pf = rc == 1 || *pf == 0 ? -1 : (int64_t)cur - *pf;
        return 0;
    }
    if ((rc = get_index(b, T_STACKS, COL_PREFIX, cur, n, "stackTable", pf)) < 0)
        return rc;
    return 0;
}

/*
 * Counts a stack made from a shared stackTable row. Threads that name the
 * functions with a string table of their own make the shared stacks anew
 * (the names differ, so no two threads can share one): T threads over a
 * chain of D rows make T x D stacks from an input of T + D lines. The read
 * stops when they pass 256 Ki plus the shared rows plus one per 4 bytes of
 * the input read, so that this amplification stays within a bound of the
 * file's size; threads of real profiles share their strings with the
 * shared tables (version 56 and later) and make each shared row once.
 */
static int shared_stack_made(gk_build *b, size_t row)
{
    gk_reader *r = b->r;
    if (b->owner[T_STACKS] == b->th->tab)
        return 0;
    if (r->j && pk_json_offset(r->j) > r->input_bytes)
        r->input_bytes = pk_json_offset(r->j);
    uint64_t limit = ((uint64_t)1 << 18) + pk_gk_table_rows(b->t[T_STACKS]) + r->input_bytes / 4;
    if (++r->shared_stacks_made <= limit)
        return 0;
    return table_fail(b, T_STACKS, row,
                      "the thread's own string table makes the shared stacks anew: more than the "
                      "limit of %llu stacks so made (256 Ki, plus the shared rows, plus one per 4 "
                      "bytes of the input read)",
                      (unsigned long long)limit);
}

/* The model stack of stackTable row i, resolving prefixes iteratively. */
static int stack_id(gk_build *b, size_t i, uint32_t *out)
{
    size_t n = pk_gk_table_rows(b->t[T_STACKS]);
    gk_srow *rows = stack_rows(b);
    if (!rows)
        return pk_gk_oom(b->r);
    gk_reader *r = b->r;
    size_t depth = 0, cur = i;
    uint32_t parent = 0;
    /* Going up, the memo of each row's frame is asked for early, for the
     * way down. */
    gk_tables *fo = b->owner[T_FRAMES];
    size_t n_frames = pk_gk_table_rows(b->t[T_FRAMES]);
    const uint32_t *frame_ids = fo ? cache(&fo->frame_ids, &fo->n_frame_ids, n_frames) : NULL;
    /* a shared stackTable's rows were checked against another frameTable */
    int frames_checked = b->owner[T_STACKS]->srows_frames == n_frames;
    for (;;) {
        gk_srow *row = &rows[cur];
        if (row->id == IN_PROGRESS)
            return table_fail(b, T_STACKS, cur, "the stack prefixes form a cycle");
        if (row->id != PROFKIT_NONE) {
            parent = row->id;
            break;
        }
        if (row->frame < GK_SROW_CELL && frames_checked && frame_ids)
            __builtin_prefetch(&frame_ids[row->frame]);
        if (depth == r->cap_chain && PK_VEC_RESERVE(r->chain, depth, r->cap_chain, 1) != 0)
            return pk_gk_oom(r);
        r->chain[depth++] = (uint32_t)cur;
        row->id = IN_PROGRESS;
        int64_t pf;
        if (row->prefix < GK_SROW_CELL) {
            pf = row->prefix;
        } else if (row->prefix == GK_SROW_ROOT) {
            pf = -1;
        } else {
            int rc = prefix_cell(b, cur, n, &pf);
            if (rc < 0)
                return rc;
        }
        if (pf < 0) {
            parent = 0;
            break;
        }
        cur = (size_t)pf;
    }
    /* The frames the way down makes anew: their cells are asked for now,
     * all at once, rather than one column's miss after another per frame. */
    const gk_table *ft = b->t[T_FRAMES];
    if (frames_checked && frame_ids && ft && ft->col)
        for (size_t k = 0; k < depth; k++) {
            uint32_t f = rows[r->chain[k]].frame;
            if (f >= GK_SROW_CELL || frame_ids[f] != PROFKIT_NONE)
                continue;
            for (int c = 0; c < GK_SLOTS; c++)
                if (f < ft->col[c].n)
                    __builtin_prefetch(&ft->col[c].v[f]);
        }
    /* Raw frames: then what their location strings became (location). */
    const gk_tables *so = b->strings_owner;
    if (b->raw_frames && frames_checked && frame_ids && ft && so && so->locs &&
        so->n_locs == so->strings.n)
        for (size_t k = 0; k < depth; k++) {
            uint32_t f = rows[r->chain[k]].frame;
            if (f >= GK_SROW_CELL || frame_ids[f] != PROFKIT_NONE)
                continue;
            double v = pk_gk_cell_at(ft, COL_LOCATION, f);
            if (v >= 0 && v < (double)so->n_locs) {
                __builtin_prefetch(&so->locs[(size_t)v]);
                __builtin_prefetch(&so->strings.off[(size_t)v]);
            }
        }
    /* And the strings' text, from the offsets asked for above (by now
     * mostly there): a location read first is parsed, and otherwise its
     * first byte was a miss in the parser. */
    if (b->raw_frames && frames_checked && frame_ids && ft && so && so->locs &&
        so->n_locs == so->strings.n)
        for (size_t k = 0; k < depth; k++) {
            uint32_t f = rows[r->chain[k]].frame;
            if (f >= GK_SROW_CELL || frame_ids[f] != PROFKIT_NONE)
                continue;
            double v = pk_gk_cell_at(ft, COL_LOCATION, f);
            if (v >= 0 && v < (double)so->n_locs)
                __builtin_prefetch(so->strings.buf + so->strings.off[(size_t)v]);
        }
    /*
     * The rows of the model frames the way down adds, made first, in its
     * order, each one's index slot asked for as soon as its hash is
     * known: the adds' misses overlap instead of following each other.
     * A row that fails stops this (nothing made ahead is lost): the way
     * down makes it again and says why, in the order it always did.
     */
    size_t n_ahead = 0, next_ahead = 0;
    if (depth > 1 && frames_checked && frame_ids && b->raw_frames) {
        /* their location strings' functions first (the chain is scratch
         * enough: the frames in the way down's order, at its end) */
        size_t nf = 0;
        if (depth * 2 > r->cap_chain && pk_grow((void **)&r->chain, &r->cap_chain, depth * 2,
                                                sizeof *r->chain) != 0)
            return pk_gk_oom(r);
        for (size_t k = depth; k-- > 0;) {
            uint32_t f = rows[r->chain[k]].frame;
            if (f < GK_SROW_CELL && frame_ids[f] == PROFKIT_NONE)
                r->chain[depth + nf++] = f;
        }
        locations_ahead(b, r->chain + depth, nf);
    }
    if (depth > 1 && frames_checked && frame_ids)
        for (size_t k = depth; k-- > 0;) {
            uint32_t f = rows[r->chain[k]].frame;
            if (f >= GK_SROW_CELL || frame_ids[f] != PROFKIT_NONE)
                continue;
            if (n_ahead == r->cap_ahead && PK_VEC_RESERVE(r->ahead, n_ahead, r->cap_ahead, 1) != 0)
                break;
            gk_ahead *a = &r->ahead[n_ahead];
            if (frame_row(b, f, &a->frame) < 0)
                break;
            a->row = f;
            a->hash = pk_frame_hash(&a->frame);
            pk_frame_prefetch(r->p, a->hash);
            n_ahead++;
        }
    while (depth > 0) {
        size_t s = r->chain[--depth];
        int64_t fi = rows[s].frame;
        int rc;
        if (rows[s].frame >= GK_SROW_CELL || !frames_checked) {
            rc = get_index(b, T_STACKS, COL_FRAME, s, n_frames, "frameTable", &fi);
            if (rc < 0)
                return rc;
            if (rc == 1)
                return table_fail(b, T_STACKS, s, "frame: expected a frameTable index, found null");
        }
        uint32_t frame = 0;
        const gk_ahead *a = NULL;
        if (next_ahead < n_ahead && r->ahead[next_ahead].row == (uint64_t)fi)
            a = &r->ahead[next_ahead++];
        if ((rc = frame_id_ahead(b, (size_t)fi, a, &frame)) < 0)
            return rc;
        /* the flags column first: the frame's row is a cache miss */
        if (pk_gk_col(b->t[T_FRAMES], COL_FLAGS)->n && r->p->frames[frame].inline_depth &&
            (rc = inline_frame(b, parent, &frame)) < 0)
            return rc;
        parent = pk_stack_intern(r->p, parent, frame);
        if (parent == PROFKIT_NONE)
            return pk_gk_oom(r);
        if ((rc = touch(b, b->owner[T_STACKS], TOUCH_STACK, s)) < 0 ||
            (rc = shared_stack_made(b, s)) < 0)
            return rc;
        rows[s].id = parent;
    }
    *out = parent;
    return 0;
}

static int ms_to_ns(gk_build *b, int tk, size_t row, double ms, int64_t *out)
{
    double ns = ms * 1e6;
    if (!(ns > -9.2e18 && ns < 9.2e18))
        return table_fail(b, tk, row, "time %g ms out of range", ms);
    *out = (int64_t)llround(ns);
    return 0;
}

/* Streamed samples: raw stack indexes become stacks, times get the shift. */
static int fix_samples(gk_build *b, gk_table *st, double shift)
{
    gk_reader *r = b->r;
    profkit_profile *p = r->p;
    size_t end = st->first + st->count;
    if (!b->t[T_STACKS] || !b->t[T_FRAMES]) {
        /* samples without a stack need no stack table */
        for (size_t k = st->first; k < end; k++)
            if (p->sample_stack[k] != PK_GK_NULL_STACK)
                return table_fail(b, T_SAMPLES, 0, "the thread has samples but no %s",
                                  b->t[T_STACKS] ? "frameTable" : "stackTable");
    }
    uint32_t vt = pk_value_type_add(p, vt_names[st->weight_type][0], vt_names[st->weight_type][1]);
    if (vt == PROFKIT_NONE)
        return pk_gk_oom(r);
    size_t nv = p->n_value_types, n_stacks = b->t[T_FRAMES] ? pk_gk_table_rows(b->t[T_STACKS]) : 0;
    int64_t sh = (int64_t)llround(shift * 1e6);
    const gk_srow *rows = n_stacks ? stack_rows(b) : NULL;
    if (n_stacks && !rows)
        return pk_gk_oom(r);
    /* The stack table is read in sample order, at random, and a new stack
     * walks up its prefixes, one dependent cache miss per row. A later
     * sample's row is asked for AHEAD samples early; from WALK samples
     * early a cursor per sample goes up its prefixes one row per sample
     * processed (read-only, until a row that has its stack), so that the
     * misses of several walks overlap instead of following each other. */
    enum { AHEAD = 16, WALK = 8 };
    uint32_t walk[WALK];
    for (size_t w = 0; w < WALK; w++)
        walk[w] = PROFKIT_NONE;
    for (size_t k = st->first; k < end; k++) {
        if (k + AHEAD < end) {
            uint32_t ahead = p->sample_stack[k + AHEAD];
            if (ahead < n_stacks)
                __builtin_prefetch(&rows[ahead]);
        }
        if (n_stacks) {
            uint32_t next = k + WALK < end ? p->sample_stack[k + WALK] : PROFKIT_NONE;
            walk[k % WALK] = next < n_stacks ? next : PROFKIT_NONE;
            for (size_t w = 0; w < WALK; w++) {
                uint32_t c = walk[w];
                if (c == PROFKIT_NONE)
                    continue;
                uint32_t up = rows[c].id == PROFKIT_NONE ? rows[c].prefix : PROFKIT_NONE;
                walk[w] = up < n_stacks ? up : PROFKIT_NONE;
                if (up < n_stacks)
                    __builtin_prefetch(&rows[up]);
            }
        }
        uint32_t idx = p->sample_stack[k], id = 0;
        if (idx == PK_GK_NULL_STACK) {
            /* a sample without a stack: the empty stack */
        } else if (idx >= n_stacks) {
            return table_fail(b, T_SAMPLES, k - st->first, "stack %u out of range (the stackTable has %zu entries)",
                              idx, n_stacks);
        } else if (rows[idx].id < IN_PROGRESS) { /* made for an earlier sample */
            id = rows[idx].id;
        } else {
            int rc = stack_id(b, idx, &id);
            if (rc < 0)
                return rc;
        }
        p->sample_stack[k] = id;
        if (__builtin_add_overflow(p->sample_time[k], sh, &p->sample_time[k]))
            return table_fail(b, T_SAMPLES, k - st->first, "time out of range after the process shift");
        if (vt != st->stream_vt) { /* weightType came after the rows */
            p->sample_values[k * nv + vt] = p->sample_values[k * nv + st->stream_vt];
            p->sample_values[k * nv + st->stream_vt] = 0;
        }
    }
    return 0;
}

/* Keeps the times of marker m's phase (pk_gk_marker_complete) and
 * shifts them by sh ns (a sub-process's). */
/* A JSON object field's value as an object (1 and *f), or 0. */
static int object_field(const char *s, size_t n, const char *key, pk_json_field *f)
{
    return pk_json_find_field(s, n, key, f) && f->value_len && f->value[0] == '{';
}

/* Cell k of the first row of `data` array text s[0..n) ("[[a, b, ...], ...]")
 * when it is a number: 1 and *out, else 0. */
static int first_row_cell(const char *s, size_t n, double k, double *out)
{
    size_t i = 0, depth = 0;
    while (i < n && depth < 2) {
        char c = s[i++];
        if (c == '[')
            depth++;
        else if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return 0;
    }
    if (depth < 2 || !(k >= 0 && k < 4096) || k != floor(k))
        return 0;
    for (size_t cell = 0; i < n; cell++) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
            i++;
        size_t start = i;
        while (i < n && s[i] != ',' && s[i] != ']' && s[i] != '[' && s[i] != '{' && s[i] != '"')
            i++;
        if (i == n || s[i] == '[' || s[i] == '{' || s[i] == '"')
            return 0; /* only numbers and null come before the cell wanted */
        if (cell == (size_t)k) {
            pk_json_field f = { NULL, 0, s + start, i - start };
            while (f.value_len && (f.value[f.value_len - 1] == ' ' || f.value[f.value_len - 1] == '\n'))
                f.value_len--;
            return pk_json_field_number(&f, out);
        }
        if (s[i] == ']')
            return 0;
        i++;
    }
    return 0;
}

static int stack_id(gk_build *b, size_t i, uint32_t *out);

/*
 * The cause of marker m from its payload: a processed marker's `cause`
 * ({time, stack}: a stackTable index), a raw one's `stack` (a sample table
 * of one row: stack and time by its schema). Its stack becomes a model
 * stack and its time ns on the model's axis (shifted by sh); a stack
 * index out of range gives no cause (the payload keeps it as it came).
 */
/*
 * The ms a processed profile's old cause time gains on the loader's
 * upgrade (none for raw Gecko, whose times are shifted by sh): before
 * version 21 a payload's `stack` becomes a cause, its time moved by the
 * thread's processStartupTime unless the thread's processType is
 * "default"; before version 34 every cause but those of "tracing" and
 * "Styles" payloads (a tracing DOMEvent is a DOMEvent from version 32 on)
 * is moved by processStartupTime as well.
 */
static double old_cause_shift(const gk_build *b, const char *s, size_t n, int from_stack)
{
    if (b->version < 0)
        return 0;
    double ps = b->th->have_process_start ? b->th->process_start : 0, add = 0;
    if (from_stack && !(b->th->process_type && strcmp(b->th->process_type, "default") == 0))
        add += ps;
    if (b->version < 34) {
        int tracing = pk_json_field_is(s, n, "type", "tracing");
        if (tracing && b->version < 32 && pk_json_field_is(s, n, "category", "DOMEvent"))
            tracing = 0;
        if (!tracing && !pk_json_field_is(s, n, "type", "Styles"))
            add += ps;
    }
    return add;
}

static int marker_cause(gk_build *b, profkit_marker *m, size_t row, int64_t sh)
{
    profkit_profile *p = b->r->p;
    if (!m->payload || m->payload >= p->strings.n)
        return 0;
    const char *s = pk_str(p, m->payload);
    size_t n = p->strings.len[m->payload];
    pk_json_field c, f;
    double idx = -1, t = NAN;
    int from_stack = 0;
    /* a processed DOMEvent before version 11 is rebuilt by the loader's
     * upgrade without its stack or cause */
    if (b->version >= 0 && b->version < 11 && m->name < p->strings.n &&
        p->strings.len[m->name] == 8 && memcmp(pk_str(p, m->name), "DOMEvent", 8) == 0)
        return 0;
    if (object_field(s, n, "cause", &c)) {
        if (pk_json_find_field(c.value, c.value_len, "stack", &f))
            pk_json_field_number(&f, &idx);
        if (pk_json_find_field(c.value, c.value_len, "time", &f) && !pk_json_field_number(&f, &t))
            t = NAN;
    } else if (b->version < 21 && object_field(s, n, "stack", &c) &&
               object_field(c.value, c.value_len, "samples", &c)) {
        /* (a processed profile's `stack` is upgraded to a cause only before
         * version 21; later ones keep none) */
        from_stack = 1;
        pk_json_field schema, data;
        double ks = -1, kt = -1;
        if (!object_field(c.value, c.value_len, "schema", &schema) ||
            !pk_json_find_field(c.value, c.value_len, "data", &data))
            return 0;
        if (pk_json_find_field(schema.value, schema.value_len, "stack", &f))
            pk_json_field_number(&f, &ks);
        if (pk_json_find_field(schema.value, schema.value_len, "time", &f))
            pk_json_field_number(&f, &kt);
        if (!first_row_cell(data.value, data.value_len, ks, &idx))
            return 0;
        if (!first_row_cell(data.value, data.value_len, kt, &t))
            t = NAN;
    } else {
        return 0;
    }
    size_t rows = pk_gk_table_rows(b->t[T_STACKS]);
    if (!(idx >= 0 && idx < (double)rows) || idx != floor(idx))
        return 0;
    uint32_t st;
    int rc = stack_id(b, (size_t)idx, &st);
    if (rc < 0)
        return rc;
    int64_t time = PROFKIT_NO_TIME;
    if (!isnan(t)) {
        t += old_cause_shift(b, s, n, from_stack);
        if ((rc = ms_to_ns(b, T_MARKERS, row, t, &time)) < 0)
            return rc;
        if (__builtin_add_overflow(time, sh, &time))
            time = PROFKIT_NO_TIME;
    }
    if (!(m->cause = pk_marker_cause_add(p, time, st)))
        return pk_gk_oom(b->r);
    return 0;
}

/* Whether the thread's string table holds s. */
static int thread_has_string(const gk_build *b, const char *s)
{
    const gk_tables *o = b->strings_owner;
    size_t n = strlen(s);
    for (size_t i = 0; o && i < o->strings.n; i++)
        if (o->strings.off[i + 1] - o->strings.off[i] == n && memcmp(o->strings.buf + o->strings.off[i], s, n) == 0)
            return 1;
    return 0;
}

/*
 * File I/O markers were once "DiskIO": before processed version 22 and
 * Gecko version 15, a marker whose payload's type is "DiskIO" is named
 * "FileIO" by the Firefox Profiler's upgrade, in a thread whose string
 * table holds "DiskIO" (as its upgrade checks first).
 */
static int old_disk_io(gk_build *b, profkit_marker *m)
{
    profkit_profile *p = b->r->p;
    int old = b->version >= 0 ? b->version < 22 : strtol(b->r->version[0], NULL, 10) < 15;
    if (!old || !m->payload || m->payload >= p->strings.n ||
        !pk_json_field_is(pk_str(p, m->payload), p->strings.len[m->payload], "type", "DiskIO") ||
        !thread_has_string(b, "DiskIO"))
        return 0;
    m->name = profkit_string_intern_cstr(p, "FileIO");
    return m->name == PROFKIT_NONE ? pk_gk_oom(b->r) : 0;
}

/* A payload's time fields that the Firefox Profiler's loader moves with
 * their sub-process (its adjustMarkerTimestamps): top-level startTime and
 * endTime, cause.time, and a Network payload's timings. */
static const char *const network_times[] = { "domainLookupStart", "domainLookupEnd", "connectStart",
                                             "tcpConnectEnd", "secureConnectionStart", "connectEnd",
                                             "requestStart", "responseStart", "responseEnd" };

static int shifted_key(const pk_json_field *f, int network)
{
    static const char *const always[] = { "startTime", "endTime" };
    for (size_t i = 0; i < 2 + (network ? sizeof network_times / sizeof *network_times : 0); i++) {
        const char *k = i < 2 ? always[i] : network_times[i - 2];
        if (f->key_len == strlen(k) && memcmp(f->key, k, f->key_len) == 0)
            return 1;
    }
    return 0;
}

/* Appends s[*copied, v) and then v's number moved by shift ms (the
 * shortest text that reads back the same), when v is a number. */
static void put_shifted(pk_buf *o, const char *s, size_t *copied, const pk_json_field *v, double shift)
{
    double d;
    if (!pk_json_field_number(v, &d))
        return;
    char t[PK_JSON_DOUBLE_MAX];
    pk_json_double_text(t, d + shift);
    pk_buf_put(o, s + *copied, (size_t)(v->value - s) - *copied);
    pk_buf_puts(o, t);
    *copied = (size_t)(v->value + v->value_len - s);
}

/*
 * A sub-process marker's payload (its times in its own process's ms) with
 * its time fields moved by the process's shift, as the loader moves them,
 * so that they are on the samples' axis as the marker's own times are.
 */
static int shift_payload(gk_build *b, profkit_marker *m, double shift)
{
    profkit_profile *p = b->r->p;
    if (shift == 0 || !m->payload || m->payload >= p->strings.n)
        return 0;
    const char *s = pk_str(p, m->payload);
    size_t n = p->strings.len[m->payload], pos = 0, copied = 0;
    int network = pk_json_field_is(s, n, "type", "Network");
    pk_buf o = PK_BUF_INIT;
    pk_json_field f, t;
    while (pk_json_next_field(s, n, &pos, &f)) {
        if (shifted_key(&f, network))
            put_shifted(&o, s, &copied, &f, shift);
        else if (f.key_len == 5 && memcmp(f.key, "cause", 5) == 0 && f.value_len && f.value[0] == '{' &&
                 pk_json_find_field(f.value, f.value_len, "time", &t))
            put_shifted(&o, s, &copied, &t, shift);
    }
    if (copied == 0) {
        pk_buf_free(&o);
        return 0;
    }
    pk_buf_put(&o, s + copied, n - copied);
    uint32_t id = o.err ? PROFKIT_NONE : profkit_string_intern(p, o.buf, o.len);
    pk_buf_free(&o);
    if (id == PROFKIT_NONE)
        return pk_gk_oom(b->r);
    m->payload = id;
    return 0;
}

static int complete_marker(gk_build *b, profkit_marker *m, size_t row, int64_t sh)
{
    int rc = old_disk_io(b, m);
    if (rc < 0)
        return rc;
    rc = pk_gk_marker_complete(b->r->p, m);
    if (rc == PROFKIT_ENOMEM)
        return pk_gk_oom(b->r);
    if (rc != 0)
        return table_fail(b, T_MARKERS, row,
                          "expected a phase 0 (instant), 1 (interval), 2 (interval start) or 3 (interval end)");
    if ((m->start != PROFKIT_NO_TIME && __builtin_add_overflow(m->start, sh, &m->start)) ||
        (m->end != PROFKIT_NO_TIME && __builtin_add_overflow(m->end, sh, &m->end)))
        return table_fail(b, T_MARKERS, row, "time out of range after the process shift");
    if ((rc = marker_cause(b, m, row, sh)) < 0)
        return rc;
    return shift_payload(b, m, b->shift_ms);
}

static int fix_markers(gk_build *b, gk_table *mt, double shift)
{
    profkit_profile *p = b->r->p;
    int64_t sh = (int64_t)llround(shift * 1e6);
    b->shift_ms = shift;
    for (size_t k = mt->first; k < mt->first + mt->count; k++) {
        profkit_marker *m = &p->markers[k];
        if (m->name == PROFKIT_NONE) {
            m->name = 0;
        } else {
            int rc = model_string(b, T_MARKERS, k - mt->first, m->name, &m->name);
            if (rc < 0)
                return rc;
        }
        int rc = complete_marker(b, m, k - mt->first, sh);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int build_samples(gk_build *b, uint32_t thread, double shift)
{
    gk_reader *r = b->r;
    gk_table *st = b->t[T_SAMPLES];
    if (st && st->stream)
        return st->count ? fix_samples(b, st, shift) : 0;
    size_t n = pk_gk_table_rows(st);
    if (n == 0)
        return 0;
    /* the tables a sample with a stack needs (one without needs none):
     * "stackTable", "frameTable" or "funcTable" when one is missing */
    const char *missing = !b->t[T_STACKS]                  ? "stackTable"
                          : !b->t[T_FRAMES]                ? "frameTable"
                          : !b->raw_frames && !b->t[T_FUNCS] ? "funcTable"
                                                             : NULL;
    uint32_t vt = pk_value_type_add(r->p, vt_names[st->weight_type][0], vt_names[st->weight_type][1]);
    if (vt == PROFKIT_NONE)
        return pk_gk_oom(r);
    size_t nv = r->p->n_value_types;
    int64_t *values = calloc(nv, sizeof *values);
    if (!values)
        return pk_gk_oom(r);
    size_t n_stacks = pk_gk_table_rows(b->t[T_STACKS]);
    int timed = pk_gk_col(st, COL_TIME)->n > 0 || pk_gk_col(st, COL_TIME_DELTAS)->n > 0;
    int deltas = pk_gk_col(st, COL_TIME)->n == 0 && pk_gk_col(st, COL_TIME_DELTAS)->n > 0;
    double t_acc = 0;
    int rc = 0;
    int delay_col = pk_gk_col(st, COL_EVENT_DELAY)->n > 0 ? COL_EVENT_DELAY : COL_RESPONSIVENESS;
    for (size_t i = 0; i < n; i++) {
        double t = 0, d = 0;
        if (deltas) {
            if ((rc = get_num(b, T_SAMPLES, COL_TIME_DELTAS, i, &d)) < 0)
                break;
            t_acc += rc == 0 ? d : 0;
            t = t_acc;
        } else if (timed) {
            if ((rc = get_num(b, T_SAMPLES, COL_TIME, i, &t)) < 0)
                break;
            if (rc == 1)
                t = t_acc; /* a null time repeats the previous one */
            t_acc = t;
        }
        /* jank, from every sample (one without a stack too) */
        if (timed && pk_gk_jank_sample(b->th, t, pk_gk_cell_at(st, delay_col, i)) != 0) {
            rc = pk_gk_oom(r);
            break;
        }
        int64_t si;
        rc = get_index(b, T_SAMPLES, COL_STACK, i, n_stacks, "stackTable", &si);
        if (rc < 0)
            break;
        /* a sample without a stack (null) keeps its time, weight and CPU
         * delta on the empty stack: in its thread's range and sample count,
         * in no function's, as the Firefox Profiler counts it */
        uint32_t stack = 0;
        if (rc == 0 && missing) {
            rc = strcmp(missing, "funcTable") == 0
                     ? table_fail(b, T_SAMPLES, 0, "the thread has samples but no funcTable")
                     : table_fail(b, T_SAMPLES, 0, "the thread has samples but no %s", missing);
            break;
        }
        if (rc == 0 && (rc = stack_id(b, (size_t)si, &stack)) < 0)
            break;
        double w = 1;
        if ((rc = get_num(b, T_SAMPLES, COL_WEIGHT, i, &w)) < 0)
            break;
        if (rc == 1)
            w = 1;
        rc = 0;
        if (!(w > -9.2e18 && w < 9.2e18)) {
            rc = table_fail(b, T_SAMPLES, i, "weight %g out of range", w);
            break;
        }
        values[vt] = (int64_t)llround(w);
        if (timed) {
            int64_t ns = 0;
            if ((rc = ms_to_ns(b, T_SAMPLES, i, t + shift, &ns)) < 0)
                break;
            rc = pk_sample_add_timed(r->p, stack, thread, ns, values);
            if (rc == 0 && (rc = pk_gk_cpu_cell(r, r->p->n_samples - 1,
                                                pk_gk_cell_at(st, COL_THREAD_CPU_DELTA, i))) < 0)
                break;
        } else {
            rc = pk_sample_add(r->p, stack, thread, values);
        }
        if (rc) {
            rc = pk_gk_oom(r);
            break;
        }
    }
    free(values);
    return rc;
}

static int build_markers(gk_build *b, uint32_t thread, double shift)
{
    gk_reader *r = b->r;
    gk_table *mt = b->t[T_MARKERS];
    if (mt && mt->stream)
        return fix_markers(b, mt, shift);
    size_t n = pk_gk_table_rows(mt);
    if (mt && !mt->rows_layout && mt->have_length && n > mt->length)
        n = mt->length; /* as above, in pk_gk_thread_done */
    int rc = 0;
    if (n == 0)
        return 0;
    int64_t sh = (int64_t)llround(shift * 1e6);
    b->shift_ms = shift;
    for (size_t i = 0; i < n; i++) {
        profkit_marker m = { PROFKIT_NO_TIME, PROFKIT_NO_TIME, thread, 0, 0, 0, PK_GK_NO_PHASE, 0 };
        int64_t v;
        if ((rc = get_int(b, T_MARKERS, COL_NAME, i, &v)) < 0)
            return rc;
        if (rc == 0 && (rc = model_string(b, T_MARKERS, i, v, &m.name)) < 0)
            return rc;
        double s = 0, e = 0, ph = 0;
        int hs, he, hp;
        if ((hs = get_num(b, T_MARKERS, pk_gk_col(mt, COL_START_TIME)->n ? COL_START_TIME : COL_TIME, i, &s)) < 0)
            return hs;
        if ((he = get_num(b, T_MARKERS, COL_END_TIME, i, &e)) < 0)
            return he;
        if ((hp = get_num(b, T_MARKERS, COL_PHASE, i, &ph)) < 0)
            return hp;
        if ((hs == 0 && (rc = ms_to_ns(b, T_MARKERS, i, s, &m.start)) < 0) ||
            (he == 0 && (rc = ms_to_ns(b, T_MARKERS, i, e, &m.end)) < 0))
            return rc;
        m.phase = hp == 1 ? PK_GK_NO_PHASE
                  : (ph >= 0 && ph <= 3 && ph == floor(ph)) ? (uint32_t)ph : PK_GK_BAD_PHASE;
        if ((rc = get_int(b, T_MARKERS, COL_CATEGORY, i, &v)) < 0)
            return rc;
        if (rc == 0 && v >= 0 && (uint64_t)v < r->categories.n) {
            const gk_strings *c = &r->categories;
            m.category = profkit_string_intern(r->p, c->buf + c->off[v], c->off[v + 1] - c->off[v]);
            if (m.category == PROFKIT_NONE)
                return pk_gk_oom(r);
        }
        double d = pk_gk_cell_at(mt, COL_DATA, i);
        if (cell_is_text(d)) {
            size_t len = 0;
            const char *txt = pk_gk_cell_text(b->owner[T_MARKERS], d, &len);
            if (txt && (m.payload = profkit_string_intern(r->p, txt, len)) == PROFKIT_NONE)
                return pk_gk_oom(r);
        }
        if ((rc = complete_marker(b, &m, i, sh)) < 0)
            return rc;
        if (pk_marker_add(r->p, &m) != 0)
            return pk_gk_oom(r);
    }
    return 0;
}

/* A thread's own paused ranges go to the model with its pid; the first
 * thread of a (sub-)profile names the pid of that profile's ranges. */
static int paused_thread_built(gk_reader *r, const gk_thread *th)
{
    for (size_t i = 0; i < th->n_paused; i++)
        if (pk_paused_add(r->p, th->paused[i], th->pid) != 0)
            return PROFKIT_ENOMEM;
    for (size_t i = 0; i < r->n_serial_pids; i++)
        if (r->serial_pids[i].serial == th->serial)
            return 0;
    if (PK_VEC_RESERVE(r->serial_pids, r->n_serial_pids, r->cap_serial_pids, 1) != 0)
        return PROFKIT_ENOMEM;
    r->serial_pids[r->n_serial_pids++] = (struct gk_serial_pid){ th->serial, th->pid };
    return 0;
}

int pk_gk_paused_resolve(gk_reader *r)
{
    for (size_t i = 0; i < r->n_paused_ranges; i++) {
        int64_t pid = -1;
        for (size_t k = 0; k < r->n_serial_pids && pid < 0; k++)
            if (r->serial_pids[k].serial == r->paused_ranges[i].serial)
                pid = r->serial_pids[k].pid;
        if (pk_paused_add(r->p, r->paused_ranges[i].range, pid) != 0)
            return pk_read_fail(r->ctx, PROFKIT_ENOMEM, -1, "out of memory");
    }
    return 0;
}

/* Sub-process time shift: sum of startTime differences down the chain. */
static double thread_shift(gk_reader *r, size_t depth)
{
    double shift = 0;
    for (size_t k = 1; k <= depth && k < r->n_prof; k++)
        if (r->prof[k].have_start && r->prof[k - 1].have_start)
            shift += r->prof[k].start - r->prof[k - 1].start;
    return shift;
}

/* A thread's process as the Firefox Profiler names it: its processName,
 * else the name of its processType ("default" is the parent process, "tab"
 * a content process, ...), else the type itself, else "". */
static const char *process_label(const gk_thread *th)
{
    static const char *const names[][2] = {
        { "default", "Parent Process" }, { "gpu", "GPU Process" },
        { "rdd", "Remote Data Decoder" }, { "tab", "Content Process" },
        { "plugin", "Plugin Process" }, { "socket", "Socket Process" },
    };
    if (th->process_name && *th->process_name)
        return th->process_name;
    if (!th->process_type)
        return "";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(th->process_type, names[i][0]) == 0)
            return names[i][1];
    return th->process_type;
}

/* Does b hold a's strings, the same at every index a has? */
static int strings_prefix(const gk_strings *a, const gk_strings *b)
{
    if (a->n > b->n)
        return 0;
    if (a->n == 0)
        return 1;
    return memcmp(a->off, b->off, (a->n + 1) * sizeof *a->off) == 0 &&
           memcmp(a->buf, b->buf, a->off[a->n]) == 0;
}

static int strings_copy(gk_strings *dst, const gk_strings *src)
{
    pk_gk_strings_free(dst);
    if (src->n == 0)
        return 0;
    size_t len = src->off[src->n];
    dst->buf = malloc(len ? len : 1);
    dst->off = malloc((src->n + 1) * sizeof *dst->off);
    if (!dst->buf || !dst->off) {
        pk_gk_strings_free(dst);
        return PROFKIT_ENOMEM;
    }
    memcpy(dst->buf, src->buf, len);
    memcpy(dst->off, src->off, (src->n + 1) * sizeof *dst->off);
    dst->len = len;
    dst->cap = len ? len : 1;
    dst->cap_off = src->n + 1;
    dst->n = src->n;
    return 0;
}

static int build_thread(gk_reader *r, gk_thread *th)
{
    gk_build b;
    memset(&b, 0, sizeof b);
    b.r = r;
    b.th = th;
    b.strings_owner = th->tab && th->tab->have_strings ? th->tab
                      : r->shared.have_strings ? &r->shared : NULL;
    for (int k = 0; k < T_COUNT; k++) {
        gk_tables *o = pk_gk_table_of(th->tab, k) ? th->tab : r->shared.t[k] ? &r->shared : NULL;
        b.owner[k] = o;
        b.t[k] = pk_gk_table_of(o, k);
    }
    /* caches hold ids made with one string table; drop them if it changes */
    for (int k = 0; k < T_COUNT; k++) {
        gk_tables *o = b.owner[k];
        if (!o)
            continue;
        if (o == th->tab) {
            if (o->cache_owner != b.strings_owner) {
                free(o->func_ids);
                free(o->frame_ids);
                free(o->srows);
                o->func_ids = o->frame_ids = NULL;
                o->srows = NULL;
                o->cache_owner = b.strings_owner;
            }
            continue;
        }
        /* Shared tables: every entry set since was noted (untouch). With
         * the thread's own strings their content decides, not the owner's
         * address: threads whose strings agree share the entries (the same
         * strings make the same model ids), and a thread freed and another
         * made at its address do not. */
        const gk_tables *so = b.strings_owner;
        if (so && so == th->tab) {
            if (o->cache_copied && strings_prefix(&o->cache_strings, &so->strings)) {
                if (o->cache_strings.n < so->strings.n && strings_copy(&o->cache_strings, &so->strings) != 0)
                    return pk_gk_oom(r);
                continue;
            }
            untouch(o);
            if (strings_copy(&o->cache_strings, &so->strings) != 0)
                return pk_gk_oom(r);
            o->cache_copied = 1;
            o->cache_owner = NULL;
        } else if (o->cache_copied || o->cache_owner != so) {
            untouch(o);
            pk_gk_strings_free(&o->cache_strings);
            o->cache_copied = 0;
            o->cache_owner = so;
        }
    }
    b.raw_frames = b.t[T_FRAMES] && (pk_gk_col(b.t[T_FRAMES], COL_LOCATION)->n > 0 ||
                                     pk_gk_schema(b.t[T_FRAMES], COL_LOCATION) >= 0);
    b.version = b.raw_frames ? -1 : strtol(r->version[1], NULL, 10);
    b.raw_entry_old = b.raw_frames && strtol(r->version[0], NULL, 10) < 14;
    /* Before processed version 1 and Gecko 4, a content process's main
     * thread was called "Content" (the upgraders rename it) */
    if (!th->process_type && th->name && strcmp(th->name, "Content") == 0 &&
        ((b.raw_frames && strtol(r->version[0], NULL, 10) < 4) || (!b.raw_frames && b.version < 1))) {
        free(th->name);
        th->name = pk_gk_dup_len("GeckoMain", 9);
        if (!th->name)
            return pk_gk_oom(r);
    }
    uint32_t thread = th->model_thread;
    const char *proc = process_label(th);
    if (thread == PROFKIT_NONE) {
        thread = pk_thread_add(r->p, th->name ? th->name : "", proc, th->pid, th->tid);
        if (thread == PROFKIT_NONE || pk_gk_thread_made(r, th, thread) != 0)
            return pk_gk_oom(r);
    } else {
        /* made at the first streamed row: the thread's fields may have come later */
        profkit_thread *mt = &r->p->threads[thread];
        mt->name = profkit_string_intern_cstr(r->p, th->name ? th->name : "");
        mt->process_name = profkit_string_intern_cstr(r->p, proc);
        if (mt->name == PROFKIT_NONE || mt->process_name == PROFKIT_NONE)
            return pk_gk_oom(r);
        mt->pid = th->pid;
        mt->tid = th->tid;
    }
    if (pk_gk_counters_thread_built(r, th, thread) != 0)
        return pk_gk_oom(r);
    if (paused_thread_built(r, th) != 0)
        return pk_gk_oom(r);
    double shift = thread_shift(r, th->depth);
    {
        /* its process's start (raw Gecko: the process profile's own
         * startTime, the shift) and its registration, on the samples' axis */
        profkit_thread *mt = &r->p->threads[thread];
        double ps = th->have_process_start ? th->process_start : r->flavor == PK_GECKO_RAW ? 0 : NAN;
        if (isfinite(ps + shift))
            mt->process_start = (int64_t)llround((ps + shift) * 1e6);
        if (th->have_register_time && isfinite(th->register_time + shift))
            mt->register_time = (int64_t)llround((th->register_time + shift) * 1e6);
        if (th->process_type && *th->process_type &&
            (mt->process_type = profkit_string_intern_cstr(r->p, th->process_type)) == PROFKIT_NONE)
            return pk_gk_oom(r);
    }
    int rc = build_samples(&b, thread, shift);
    if (!rc)
        rc = build_markers(&b, thread, shift);
    if (!rc)
        rc = pk_gk_jank_markers(r, th, thread, shift);
    r->n_built++;
    return rc;
}

/* Can a finished thread go into the model now? */
static int thread_ready(gk_reader *r, gk_thread *th)
{
    int own = pk_gk_table_of(th->tab, T_STACKS) && th->tab->have_strings;
    if (!own && !r->shared_done)
        return 0;
    for (size_t k = 0; k <= th->depth && k < r->n_prof; k++)
        if (!r->prof[k].have_start && th->depth > 0)
            return 0;
    return 1;
}

/*
 * Builds pending threads at depth >= from_depth: the ready ones, or (force)
 * all at depth >= min_depth. The pending list is in depth order (a thread
 * joins it at the depth of the profile open then, and a sub-process's close
 * forces out every thread at its depth and below), so the threads from
 * from_depth down are a suffix of it, found by binary search: an event that
 * concerns one sub-process (its start time, its close) costs what that
 * sub-process holds, not every thread still waiting at the top level.
 */
int pk_gk_flush_pending(gk_reader *r, int force, size_t min_depth, size_t from_depth)
{
    size_t lo = 0, hi = r->n_pending;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->pending[mid]->depth < from_depth)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t w = lo;
    int rc = 0;
    for (size_t i = lo; i < r->n_pending; i++) {
        gk_thread *th = r->pending[i];
        if (!rc && (thread_ready(r, th) || (force && th->depth >= min_depth))) {
            rc = build_thread(r, th);
            pk_gk_keep_columns(r, th);
            pk_gk_thread_free(th);
        } else {
            r->pending[w++] = th;
        }
    }
    r->n_pending = w;
    return rc;
}

/* Keeps buffer *v of *cap cells as kind tk's column `slot` when it is
 * larger than the one kept (which is freed); *v is NULL after. */
static void keep_buffer(gk_reader *r, int tk, int slot, double **v, size_t cap)
{
    gk_col *kept = &r->kept[tk][slot];
    if (*v && cap > kept->cap) {
        free(kept->v);
        kept->v = *v;
        kept->cap = cap;
        *v = NULL;
    }
}

void pk_gk_keep_columns(gk_reader *r, gk_thread *th)
{
    gk_tables *o = th->tab;
    if (!o)
        return;
    for (int tk = 0; tk < T_COUNT; tk++) {
        gk_table *t = o->t[tk];
        if (!t || !t->col || t->stream)
            continue;
        for (int s = 0; s < GK_SLOTS; s++) {
            keep_buffer(r, tk, s, &t->col[s].v, t->col[s].cap);
            if (!t->col[s].v)
                t->col[s].cap = t->col[s].n = 0;
        }
    }
    /* the packed rows (12 bytes each; often the prefix column's buffer,
     * packed in place) serve as the prefix column's next buffer */
    gk_table *st = o->t[T_STACKS];
    if (o->srows && st && st->col && pk_gk_table_rows(st) > 0) {
        size_t rows = pk_gk_table_rows(st);
        int slot = st->slot[COL_PREFIX];
        if (slot < GK_SLOTS) {
            double *v = (double *)(void *)o->srows;
            keep_buffer(r, T_STACKS, slot, &v, rows * sizeof(gk_srow) / sizeof(double));
            if (!v)
                o->srows = NULL;
        }
    }
}

int pk_gk_thread_done(gk_reader *r)
{
    gk_thread *th = r->cur;
    gk_table *samples = pk_gk_table_of(th->tab, T_SAMPLES);
    if (samples)
        pk_gk_compact_streamed(r, samples);
    /* a processed marker table has `length` rows: those past it are not
     * its markers (the Firefox Profiler reads no further); a streamed
     * thread's markers are the model's last ones until it is done */
    gk_table *markers = pk_gk_table_of(th->tab, T_MARKERS);
    if (markers && markers->stream && markers->have_length && markers->count > markers->length &&
        markers->first + markers->count == r->p->n_markers) {
        r->p->n_markers -= markers->count - markers->length;
        markers->count = markers->length;
    }
    r->cur = NULL;
    if (thread_ready(r, th)) {
        int rc = build_thread(r, th);
        pk_gk_keep_columns(r, th);
        pk_gk_thread_free(th);
        return rc;
    }
    if (PK_VEC_RESERVE(r->pending, r->n_pending, r->cap_pending, 1) != 0) {
        pk_gk_thread_free(th);
        return pk_gk_oom(r);
    }
    r->pending[r->n_pending++] = th;
    return 0;
}

