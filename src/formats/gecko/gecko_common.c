/*
 * gecko_common.c: one streaming reader for raw Gecko profiles and processed
 * Firefox Profiler profiles (docs/formats/gecko.md and
 * docs/formats/firefox.md).
 *
 * Shape of the input, both flavors:
 *   { meta: {...}, libs: [...], threads: [thread...], processes: [profile...],
 *     shared: {stringArray, stackTable, frameTable, funcTable, resourceTable,
 *              sources}, pausedRanges: [...] }
 * A table is either raw ({schema: {column: position}, data: [[row]...]}) or
 * processed ({column: [values...], length}); the reader takes either layout
 * wherever a table belongs.
 *
 * How it stays in bounded memory: the JSON is streamed through yajl and no
 * tree is built. Only the columns the model needs are kept, as 8-byte cells
 * (a double; null and JSON text references are NaN-boxed), per thread. When
 * a thread's object closes (and what it refers to - its process's start
 * time, the shared tables - is known) the thread goes into the model
 * (gecko_build.c; the state both files share is in gecko_reader.h) and its
 * cells are freed. Rows that arrive before their table's schema are kept as
 * they come (cell after cell, with each row's start) and named once the
 * schema is seen.
 *
 * Errors found while parsing name the token's line and column; errors found
 * when a thread is built (an index out of range, a cycle of stack prefixes)
 * name the table and row, at the line and column where that table starts.
 */
#include "formats/gecko/gecko_reader.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/json.h"

/* ---------------------------------------------------------------- helpers */

static int col_push(gk_col *c, double v)
{
    if (PK_UNLIKELY(c->n == c->cap) && PK_VEC_RESERVE(c->v, c->n, c->cap, 1) != 0)
        return PROFKIT_ENOMEM;
    c->v[c->n++] = v;
    return 0;
}

/*
 * Makes room for one more cell in column col of table t, a stored table's
 * (read by rows). The first time, it takes the buffer the same column of
 * the same table kind had in the thread built before (kept by
 * pk_gk_keep_columns): threads of one profile have tables of like sizes,
 * and a column grown by doubling from 16 copies itself a dozen times and
 * touches new memory at each thread, where the kept buffer's pages are
 * there already.
 */
static int col_grow_hinted(gk_reader *r, gk_table *t, gk_col *col)
{
    gk_col *kept = &r->kept[t->kind < T_COUNT ? t->kind : 0][col - t->col];
    if (col->cap == 0 && kept->v) {
        free(col->v);
        col->v = kept->v;
        col->cap = kept->cap;
        kept->v = NULL;
        kept->cap = 0;
    }
    if (PK_VEC_RESERVE(col->v, col->n, col->cap, 1) != 0)
        return PROFKIT_ENOMEM;
    return 0;
}

static void table_init(gk_table *t, int tk, uint32_t line, uint32_t column)
{
    pk_gk_table_free(t);
    t->present = 1;
    t->kind = (uint8_t)tk;
    int s = 0;
    for (int c = 0; c < N_COLS; c++)
        t->slot[c] = (table_wants[tk] & B(c)) && s < GK_SLOTS ? (uint8_t)s++ : GK_SLOTS;
    for (int i = 0; i <= GK_SLOTS; i++)
        t->schema[i] = -1;
    t->line = line;
    t->column = column;
}

static int strings_push(gk_strings *s, const char *str, size_t len)
{
    if (s->n + 2 > s->cap_off && PK_VEC_RESERVE(s->off, s->n, s->cap_off, 2) != 0)
        return PROFKIT_ENOMEM;
    if (s->len + len + 1 > s->cap) { /* + 1: buf exists even when every string is empty */
        if (pk_grow((void **)&s->buf, &s->cap, s->len + len + 1, 1) != 0)
            return PROFKIT_ENOMEM;
    }
    if (s->n == 0)
        s->off[0] = 0;
    if (len)
        memcpy(s->buf + s->len, str, len);
    s->len += len;
    s->off[++s->n] = s->len;
    return 0;
}

static const char *ev_type_name(const pk_json_event *ev)
{
    switch (ev->type) {
    case PK_JSON_NULL: return "null";
    case PK_JSON_BOOL: return "a boolean";
    case PK_JSON_NUMBER: return "a number";
    case PK_JSON_STRING: return "a string";
    case PK_JSON_MAP_START: return "an object";
    case PK_JSON_ARRAY_START: return "an array";
    default: return "something else";
    }
}

static int is_start(const pk_json_event *ev)
{
    return ev->type == PK_JSON_MAP_START || ev->type == PK_JSON_ARRAY_START;
}

static int key_is(const pk_json_event *ev, const char *k)
{
    size_t n = strlen(k);
    return ev->len == n && memcmp(ev->str, k, n) == 0;
}

static int col_id(const pk_json_event *ev)
{
    for (int i = 0; i < N_COLS; i++)
        if (key_is(ev, col_names[i]))
            return i;
    return -1;
}

static int table_id(const pk_json_event *ev)
{
    for (int i = 0; i < T_COUNT; i++)
        if (key_is(ev, table_names[i]))
            return i;
    return -1;
}

static int push_frame(gk_reader *r, gk_kind kind)
{
    if (PK_UNLIKELY(r->n_fs == r->cap_fs) && PK_VEC_RESERVE(r->fs, r->n_fs, r->cap_fs, 1) != 0)
        return pk_gk_oom(r);
    gk_frame *f = &r->fs[r->n_fs++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->key = -1;
    return 0;
}

/* Skips the value ev begins (nothing to do for scalars): pk_gecko_on_event
 * hands it to the parser, which does not deliver its events. */
static int skip_value(gk_reader *r, const pk_json_event *ev)
{
    if (is_start(ev))
        r->skip = 1;
    return 0;
}

/* ---------------------------------------------------------------- capture */

/* Stores a captured JSON text in the owner's text arena as a cell. */
static int text_cell(gk_tables *o, const char *s, size_t n, double *out)
{
    size_t off = o->text.len;
    if (off >= (1ull << 48) || n > UINT32_MAX)
        return PROFKIT_ENOMEM;
    uint32_t len = (uint32_t)n;
    /* length prefix, then the bytes; written raw (not as JSON events) */
    pk_buf_put(&o->text, &len, 4);
    pk_buf_put(&o->text, s, n);
    if (pk_buf_error(&o->text))
        return PROFKIT_ENOMEM;
    *out = boxed(BOX_TEXT | off);
    return 0;
}

static int begin_capture(gk_reader *r, const pk_json_event *ev, gk_col *target, gk_tables *owner,
                         int paused)
{
    pk_buf_clear(&r->cap_text);
    r->cap_stream = NULL;
    r->cap_marker = 0;
    r->cap_target = target;
    r->cap_owner = owner;
    r->cap_paused = paused;
    pk_json_text_event(&r->cap_text, ev);
    r->capture = is_start(ev) ? 1 : 0;
    return 0;
}

static int end_capture(gk_reader *r)
{
    if (pk_buf_error(&r->cap_text))
        return pk_gk_oom(r);
    const char *s = pk_buf_cstr(&r->cap_text);
    if (r->cap_paused) {
        if (pk_meta_add_len(r->p, "pausedRange", s, r->cap_text.len) != 0)
            return pk_gk_oom(r);
        /* whose: a thread's own (processed), else its (sub-)profile's (raw) */
        uint32_t id = profkit_string_intern(r->p, s, r->cap_text.len);
        if (id == PROFKIT_NONE)
            return pk_gk_oom(r);
        if (r->cap_paused == 2 && r->cur) {
            gk_thread *th = r->cur;
            if (PK_VEC_RESERVE(th->paused, th->n_paused, th->cap_paused, 1) != 0)
                return pk_gk_oom(r);
            th->paused[th->n_paused++] = id;
            return 0;
        }
        if (PK_VEC_RESERVE(r->paused_ranges, r->n_paused_ranges, r->cap_paused_ranges, 1) != 0)
            return pk_gk_oom(r);
        r->paused_ranges[r->n_paused_ranges++] = (struct gk_paused){ id, r->n_prof ? r->prof[r->n_prof - 1].serial : 0 };
        return 0;
    }
    if (r->cap_marker) {
        uint32_t id = profkit_string_intern(r->p, s, r->cap_text.len);
        if (id == PROFKIT_NONE)
            return pk_gk_oom(r);
        r->p->markers[r->cap_marker - 1].payload = id;
        return 0;
    }
    if (r->cap_stream) {
        r->row_payload = profkit_string_intern(r->p, s, r->cap_text.len);
        return r->row_payload == PROFKIT_NONE ? pk_gk_oom(r) : 0;
    }
    double cell;
    if (text_cell(r->cap_owner, s, r->cap_text.len, &cell) != 0 || col_push(r->cap_target, cell) != 0)
        return pk_gk_oom(r);
    return 0;
}

/* A scalar or container cell going into column c of owner o. */
static int put_cell(gk_reader *r, gk_col *c, gk_tables *o, const pk_json_event *ev)
{
    int rc = 0;
    switch (ev->type) {
    case PK_JSON_NUMBER: rc = col_push(c, pk_json_num(ev)); break;
    case PK_JSON_NULL: rc = col_push(c, boxed(BOX_NULL)); break;
    case PK_JSON_BOOL: rc = col_push(c, ev->boolean ? 1.0 : 0.0); break;
    default:
        begin_capture(r, ev, c, o, 0);
        return r->capture ? 0 : end_capture(r);
    }
    return rc ? pk_gk_oom(r) : 0;
}

/* ---------------------------------------------------------------- tables */

/* Names the columns of rows read before the schema, once it is known. */
static int apply_schema(gk_reader *r, gk_table *t, uint64_t wants, int tk, gk_tables *owner)
{
    /* rows of a thread's samples (with times) or markers can go straight
     * into the model when the schema comes before them, as Gecko writes it */
    if (t->n_rows == 0 && r->cur && owner == r->cur->tab &&
        ((tk == T_SAMPLES && pk_gk_schema(t, COL_STACK) >= 0 && pk_gk_schema(t, COL_TIME) >= 0) ||
         (tk == T_MARKERS && pk_gk_schema(t, COL_NAME) >= 0)))
        t->stream = 1;
    size_t max = 0;
    for (int s = 0; s < GK_SLOTS; s++)
        if (t->schema[s] >= 0 && (size_t)t->schema[s] + 1 > max)
            max = (size_t)t->schema[s] + 1;
    free(t->pos_col);
    t->pos_col = malloc(max ? max : 1);
    if (!t->pos_col)
        return pk_gk_oom(r);
    memset(t->pos_col, -1, max ? max : 1);
    t->n_pos_map = max;
    for (int c = 0; c < N_COLS; c++) {
        if (pk_gk_schema(t, c) < 0 || !(wants & B(c)))
            continue;
        size_t p = (size_t)pk_gk_schema(t, c);
        if (t->pos_col[p] < 0)
            t->pos_col[p] = (int8_t)c;
        if (t->n_rows == 0 && !t->col)
            continue; /* nothing to name yet, and no column to make */
        gk_col *col = pk_gk_col_w(t, c);
        if (!col)
            return pk_gk_oom(r);
        pk_gk_col_free(col);
        /* the rows so far, position p of each (null past a row's end; a
         * position two names share is copied to both) */
        if (t->n_rows && PK_VEC_RESERVE(col->v, 0, col->cap, t->n_rows) != 0)
            return pk_gk_oom(r);
        for (size_t i = 0; i < t->n_rows; i++) {
            size_t a = t->pre_start ? t->pre_start[i] : 0, e = t->pre_start ? t->pre_start[i + 1] : 0;
            col->v[i] = p < e - a ? t->pre.v[a + p] : boxed(BOX_NULL);
        }
        col->n = t->n_rows;
    }
    pk_gk_col_free(&t->pre);
    free(t->pre_start);
    t->pre_start = NULL;
    t->cap_pre_start = 0;
    t->n_row_cols = 0;
    for (int c = 0; c < N_COLS; c++)
        if (pk_gk_schema(t, c) >= 0)
            t->row_cols[t->n_row_cols++] = (uint8_t)c;
    t->have_schema = 1;
    return 0;
}

/* Where the cell at `pos` of the current row goes, or NULL to drop it. */
static gk_col *row_target(gk_reader *r, gk_table *t, size_t pos, int *err)
{
    *err = 0;
    if (t->have_schema) {
        if (pos >= t->n_pos_map || t->pos_col[pos] < 0)
            return NULL;
        gk_col *col = pk_gk_col_w(t, t->pos_col[pos]);
        if (!col)
            *err = pk_gk_oom(r);
        return col;
    }
    (void)r;
    /* before the schema every cell is kept in row order: positions come
     * one after another, so the row's cell k is its k-th in t->pre */
    if (pos >= MAX_SCHEMA_POS)
        return NULL;
    return &t->pre;
}

/* A row ended: columns it did not reach read as null. */
static int emit_sample(gk_reader *r, pk_json *j, gk_table *t);
static int emit_marker(gk_reader *r, pk_json *j, gk_table *t);

static int end_row(gk_reader *r, pk_json *j, gk_table *t, int tk)
{
    if (t->stream) {
        int rc = tk == T_SAMPLES ? emit_sample(r, j, t) : emit_marker(r, j, t);
        t->n_rows++;
        return rc;
    }
    t->n_rows++;
    if (t->have_schema) {
        for (int k = 0; k < t->n_row_cols; k++) {
            gk_col *c = pk_gk_col_w(t, t->row_cols[k]);
            if (!c || (c->n < t->n_rows && col_push(c, boxed(BOX_NULL)) != 0))
                return pk_gk_oom(r);
        }
    } else {
        /* where the next row's cells start */
        if (t->n_rows + 1 > t->cap_pre_start &&
            PK_VEC_RESERVE(t->pre_start, t->n_rows, t->cap_pre_start, 1) != 0)
            return pk_gk_oom(r);
        t->pre_start[0] = 0;
        t->pre_start[t->n_rows] = t->pre.n;
    }
    return 0;
}

/* ---------------------------------------------------------------- streaming */

static uint32_t model_thread(gk_reader *r, gk_thread *th)
{
    if (th->model_thread == PROFKIT_NONE) {
        th->model_thread = pk_thread_add(r->p, th->name ? th->name : "",
                                              th->process_name ? th->process_name : "", th->pid, th->tid);
        if (th->model_thread != PROFKIT_NONE && pk_gk_thread_made(r, th, th->model_thread) != 0)
            return PROFKIT_NONE;
    }
    return th->model_thread;
}

/* An integer cell of a streamed row: 0, 1 (null) or an error at the row. */
static int row_int(gk_reader *r, pk_json *j, gk_table *t, int tk, int c, int64_t *out)
{
    double d = r->row[c];
    if (cell_is_null(d))
        return 1;
    if (!(d >= 0 && d < 4294967295.0) || d != floor(d))
        return pk_json_fail(j, PROFKIT_ECORRUPT, "%s row %zu: %s: expected an index, found %g",
                            table_names[tk], t->n_rows, col_names[c], d);
    *out = (int64_t)d;
    return 0;
}

static int row_ns(gk_reader *r, pk_json *j, gk_table *t, int tk, double ms, int64_t *out)
{
    (void)r;
    double ns = ms * 1e6;
    if (!(ns > -9.2e18 && ns < 9.2e18))
        return pk_json_fail(j, PROFKIT_ECORRUPT, "%s row %zu: time %g ms out of range",
                            table_names[tk], t->n_rows, ms);
    *out = (int64_t)llround(ns);
    return 0;
}

/* The model string id of category index c (0 when c names none). */
static int category_id(gk_reader *r, double c, uint32_t *out)
{
    *out = 0;
    if (cell_is_null(c) || !(c >= 0 && c < (double)r->categories.n) || c != floor(c))
        return 0;
    const gk_strings *cs = &r->categories;
    size_t k = (size_t)c;
    if (r->n_category_ids != cs->n) {
        free(r->category_ids);
        r->category_ids = malloc(cs->n * sizeof *r->category_ids);
        if (!r->category_ids)
            return pk_gk_oom(r);
        memset(r->category_ids, 0xff, cs->n * sizeof *r->category_ids);
        r->n_category_ids = cs->n;
    }
    if (r->category_ids[k] == PROFKIT_NONE) {
        r->category_ids[k] = profkit_string_intern(r->p, cs->buf + cs->off[k], cs->off[k + 1] - cs->off[k]);
        if (r->category_ids[k] == PROFKIT_NONE)
            return pk_gk_oom(r);
    }
    *out = r->category_ids[k];
    return 0;
}

/* r->values as one zeroed value per value type of the model, or NULL when
 * out of memory: the values of a streamed sample row. */
static int64_t *zero_values(gk_reader *r)
{
    size_t nv = r->p->n_value_types;
    if (nv > r->cap_values) {
        free(r->values);
        r->values = calloc(nv, sizeof *r->values);
        r->cap_values = r->values ? nv : 0;
        if (!r->values)
            return NULL;
    }
    memset(r->values, 0, nv * sizeof *r->values);
    return r->values;
}

static int emit_sample(gk_reader *r, pk_json *j, gk_table *t)
{
    if (!r->cur)
        return 0;
    double ms = r->row[COL_TIME];
    if (cell_is_text(ms))
        return pk_json_fail(j, PROFKIT_ECORRUPT, "samples row %zu: time: expected a number", t->n_rows);
    if (cell_is_null(ms))
        ms = t->last_time;
    t->last_time = ms;
    /* jank, from every sample (one without a stack too), as the Firefox Profiler */
    if (pk_gk_jank_sample(r->cur, ms, r->row[pk_gk_schema(t, COL_EVENT_DELAY) >= 0 ? COL_EVENT_DELAY
                                                                              : COL_RESPONSIVENESS]) != 0)
        return pk_gk_oom(r);
    int64_t stack = 0;
    int rc = row_int(r, j, t, T_SAMPLES, COL_STACK, &stack);
    if (rc < 0)
        return rc;
    if (rc == 1) /* a sample without a stack: its time counts, no function has it */
        stack = PK_GK_NULL_STACK;
    else if (stack >= PK_GK_NULL_STACK)
        return pk_json_fail(j, PROFKIT_ECORRUPT, "%s row %zu: %s: expected an index, found %g",
                            table_names[T_SAMPLES], t->n_rows, col_names[COL_STACK], (double)stack);
    double w = r->row[COL_WEIGHT];
    if (cell_is_null(w))
        w = 1;
    if (!(w > -9.2e18 && w < 9.2e18))
        return pk_json_fail(j, PROFKIT_ECORRUPT, "samples row %zu: weight %g out of range", t->n_rows, w);
    int64_t ns = 0;
    if ((rc = row_ns(r, j, t, T_SAMPLES, ms, &ns)) != 0)
        return rc;
    uint32_t thread = model_thread(r, r->cur);
    if (thread == PROFKIT_NONE)
        return pk_gk_oom(r);
    if (t->count == 0) {
        t->first = r->p->n_samples;
        t->stream_vt = pk_value_type_add(r->p, vt_names[t->weight_type][0], vt_names[t->weight_type][1]);
        if (t->stream_vt == PROFKIT_NONE)
            return pk_gk_oom(r);
    }
    if (!zero_values(r))
        return pk_gk_oom(r);
    r->values[t->stream_vt] = (int64_t)llround(w);
    if (pk_sample_add_timed(r->p, (uint32_t)stack, thread, ns, r->values) != 0)
        return pk_gk_oom(r);
    t->count++;
    return pk_gk_cpu_cell(r, r->p->n_samples - 1, r->row[COL_THREAD_CPU_DELTA]);
}


/* A phase cell as the model keeps it while reading (PK_GK_NO_PHASE: null). */
static uint32_t phase_of(double v)
{
    if (cell_is_null(v))
        return PK_GK_NO_PHASE;
    if (cell_is_text(v) || !(v >= 0 && v <= 3) || v != floor(v))
        return PK_GK_BAD_PHASE;
    return (uint32_t)v;
}

static int emit_marker(gk_reader *r, pk_json *j, gk_table *t)
{
    if (!r->cur)
        return 0;
    profkit_marker m = { PROFKIT_NO_TIME, PROFKIT_NO_TIME, 0, PROFKIT_NONE, 0, r->row_payload,
                         PK_GK_NO_PHASE, 0 };
    int64_t v = 0;
    int rc = row_int(r, j, t, T_MARKERS, COL_NAME, &v);
    if (rc < 0)
        return rc;
    if (rc == 0)
        m.name = (uint32_t)v; /* a string index until the string table is known */
    double st = r->row[COL_START_TIME], e = r->row[COL_END_TIME];
    if (cell_is_null(st))
        st = r->row[COL_TIME];
    if (cell_is_text(st) || cell_is_text(e))
        return pk_json_fail(j, PROFKIT_ECORRUPT, "markers row %zu: expected times", t->n_rows);
    /* the times as they came: fix_markers keeps those of the phase */
    if ((!cell_is_null(st) && (rc = row_ns(r, j, t, T_MARKERS, st, &m.start)) != 0) ||
        (!cell_is_null(e) && (rc = row_ns(r, j, t, T_MARKERS, e, &m.end)) != 0))
        return rc;
    m.phase = phase_of(r->row[COL_PHASE]);
    int rc2 = category_id(r, r->row[COL_CATEGORY], &m.category);
    if (rc2)
        return rc2;
    m.thread = model_thread(r, r->cur);
    if (m.thread == PROFKIT_NONE)
        return pk_gk_oom(r);
    if (t->count == 0)
        t->first = r->p->n_markers;
    if (pk_marker_add(r->p, &m) != 0)
        return pk_gk_oom(r);
    t->count++;
    return 0;
}

static void row_reset(gk_reader *r, gk_table *t)
{
    /* a streamed row's cells are those of the schema's columns; the
     * others stay null from the reset when the rows began (rows_begin) */
    for (int k = 0; k < t->n_row_cols; k++)
        r->row[t->row_cols[k]] = boxed(BOX_NULL);
    r->row_payload = 0;
}

/* A table's rows begin: no cell of another table's rows stays in r->row. */
static void rows_begin(gk_reader *r)
{
    for (int c = 0; c < N_COLS; c++)
        r->row[c] = boxed(BOX_NULL);
    r->row_payload = 0;
}

/* A cell of a streamed row. */
static int stream_cell(gk_reader *r, pk_json *j, gk_table *t, int tk, int c, const pk_json_event *ev)
{
    switch (ev->type) {
    case PK_JSON_NUMBER: r->row[c] = pk_json_num(ev); return 0;
    case PK_JSON_NULL: r->row[c] = boxed(BOX_NULL); return 0;
    case PK_JSON_BOOL: r->row[c] = ev->boolean; return 0;
    default: break;
    }
    if (c == COL_DATA) {
        begin_capture(r, ev, NULL, NULL, 0);
        r->cap_stream = t;
        return r->capture ? 0 : end_capture(r);
    }
    return pk_json_fail(j, PROFKIT_ECORRUPT, "%s row %zu: %s: expected a number, found %s",
                        table_names[tk], t->n_rows, col_names[c], ev_type_name(ev));
}

/*
 * One value of a streamed sample column (processed layout): element k of
 * any column is model row first + k, made by whichever column comes first.
 */
static int stream_column_value(gk_reader *r, pk_json *j, gk_frame *f, const pk_json_event *ev)
{
    gk_table *t = f->table;
    profkit_profile *p = r->p;
    size_t k = f->index++;
    if (ev->type != PK_JSON_NUMBER && ev->type != PK_JSON_NULL)
        return pk_json_fail(j, PROFKIT_ECORRUPT, "samples.%s[%zu]: expected a number, found %s",
                            col_names[f->key], k, ev_type_name(ev));
    int null = ev->type == PK_JSON_NULL;
    double v = null ? 0 : pk_json_num(ev);
    uint32_t thread = model_thread(r, r->cur);
    if (thread == PROFKIT_NONE)
        return pk_gk_oom(r);
    if (t->count == 0) {
        t->first = p->n_samples;
        t->stream_vt = pk_value_type_add(p, vt_names[t->weight_type][0], vt_names[t->weight_type][1]);
        if (t->stream_vt == PROFKIT_NONE)
            return pk_gk_oom(r);
    }
    if (t->first + t->count != p->n_samples)
        return pk_json_fail(j, PROFKIT_ECORRUPT, "samples: rows of another thread in between");
    size_t nv = p->n_value_types;
    while (t->count <= k) {
        if (!zero_values(r))
            return pk_gk_oom(r);
        r->values[t->stream_vt] = 1; /* until a weight says otherwise */
        if (pk_sample_add_timed(p, PROFKIT_NONE, thread, 0, r->values) != 0)
            return pk_gk_oom(r);
        t->count++;
    }
    size_t row = t->first + k;
    switch (f->key) {
    case COL_STACK:
        if (null) {
            p->sample_stack[row] = PK_GK_NULL_STACK;
        } else if (v >= 0 && v < 4294967290.0 && v == floor(v)) {
            p->sample_stack[row] = (uint32_t)v;
        } else {
            return pk_json_fail(j, PROFKIT_ECORRUPT, "samples.stack[%zu]: expected an index, found %g", k, v);
        }
        return 0;
    case COL_TIME:
    case COL_TIME_DELTAS: {
        if (f->key == COL_TIME)
            t->last_time = null ? t->last_time : v;
        else
            t->last_time += null ? 0 : v;
        return row_ns(r, j, t, T_SAMPLES, t->last_time, &p->sample_time[row]);
    }
    case COL_WEIGHT: {
        double w = null ? 1 : v;
        if (!(w > -9.2e18 && w < 9.2e18))
            return pk_json_fail(j, PROFKIT_ECORRUPT, "samples.weight[%zu]: %g out of range", k, w);
        p->sample_values[row * nv + t->stream_vt] = (int64_t)llround(w);
        return 0;
    }
    case COL_THREAD_CPU_DELTA: return null ? 0 : pk_gk_cpu_cell(r, row, v);
    default: return 0;
    }
}

/*
 * One value of a streamed marker column (processed layout): element k is
 * the thread's marker first + k. Times are kept raw (PROFKIT_NO_TIME for
 * null) and completed by fix_markers; a payload is captured and interned.
 */
static int stream_marker_value(gk_reader *r, pk_json *j, gk_frame *f, const pk_json_event *ev)
{
    gk_table *t = f->table;
    profkit_profile *p = r->p;
    size_t k = f->index++;
    uint32_t thread = model_thread(r, r->cur);
    if (thread == PROFKIT_NONE)
        return pk_gk_oom(r);
    if (t->count == 0)
        t->first = p->n_markers;
    if (t->first + t->count != p->n_markers)
        return pk_json_fail(j, PROFKIT_ECORRUPT, "markers: rows of another thread in between");
    while (t->count <= k) {
        profkit_marker m = { PROFKIT_NO_TIME, PROFKIT_NO_TIME, thread, PROFKIT_NONE, 0, 0,
                             PK_GK_NO_PHASE, 0 };
        if (pk_marker_add(p, &m) != 0)
            return pk_gk_oom(r);
        t->count++;
    }
    profkit_marker *m = &p->markers[t->first + k];
    if (f->key == COL_DATA) {
        if (ev->type == PK_JSON_NULL)
            return 0;
        begin_capture(r, ev, NULL, NULL, 0);
        r->cap_marker = t->first + k + 1;
        return r->capture ? 0 : end_capture(r);
    }
    if (ev->type != PK_JSON_NUMBER && ev->type != PK_JSON_NULL)
        return pk_json_fail(j, PROFKIT_ECORRUPT, "markers.%s[%zu]: expected a number, found %s",
                            col_names[f->key], k, ev_type_name(ev));
    int null = ev->type == PK_JSON_NULL;
    double v = null ? 0 : pk_json_num(ev);
    switch (f->key) {
    case COL_NAME:
        if (null)
            return 0;
        if (!(v >= 0 && v < 4294967290.0) || v != floor(v))
            return pk_json_fail(j, PROFKIT_ECORRUPT, "markers.name[%zu]: expected a string index, found %g", k, v);
        m->name = (uint32_t)v;
        return 0;
    case COL_TIME:
    case COL_START_TIME:
        return null ? 0 : row_ns(r, j, t, T_MARKERS, v, &m->start);
    case COL_END_TIME:
        return null ? 0 : row_ns(r, j, t, T_MARKERS, v, &m->end);
    case COL_CATEGORY: return category_id(r, null ? boxed(BOX_NULL) : v, &m->category);
    case COL_PHASE: m->phase = phase_of(null ? boxed(BOX_NULL) : v); return 0;
    default: return 0;
    }
}

/* ---------------------------------------------------------------- events */

static int set_string_field(gk_reader *r, pk_json *j, char **dst, const pk_json_event *ev,
                            const char *what)
{
    char buf[32];
    const char *s = ev->str;
    size_t n = ev->len;
    if (ev->type == PK_JSON_NUMBER) {
        /* numbers (pids) are kept as their text */
        n = ev->len < sizeof buf - 1 ? ev->len : sizeof buf - 1;
        memcpy(buf, ev->str, n);
        s = buf;
    } else if (ev->type == PK_JSON_NULL) {
        return 0;
    } else if (ev->type != PK_JSON_STRING) {
        return pk_json_fail(j, PROFKIT_ECORRUPT, "%s: expected a string, found %s", what,
                            ev_type_name(ev));
    }
    free(*dst);
    *dst = pk_gk_dup_len(s, n);
    return *dst ? 0 : pk_gk_oom(r);
}

static int set_id_field(pk_json *j, int64_t *dst, const pk_json_event *ev, const char *what)
{
    if (ev->type == PK_JSON_NUMBER) {
        double v = pk_json_num(ev);
        *dst = v >= 0 && v < 9.2e18 ? (int64_t)v : -1;
        return 0;
    }
    if (ev->type == PK_JSON_STRING) {
        /* "123" is a number in a string; "Unknown Process 1" is no number */
        int64_t v = 0;
        size_t i = 0;
        for (; i < ev->len && i < 18 && ev->str[i] >= '0' && ev->str[i] <= '9'; i++)
            v = v * 10 + (ev->str[i] - '0');
        *dst = i > 0 && i == ev->len ? v : -1;
        return 0;
    }
    if (ev->type == PK_JSON_NULL)
        return 0;
    return pk_json_fail(j, PROFKIT_ECORRUPT, "%s: expected a number or a string, found %s", what,
                        ev_type_name(ev));
}

static int expect(pk_json *j, const pk_json_event *ev, pk_json_type want, const char *what)
{
    if (ev->type == want)
        return 0;
    return pk_json_fail(j, PROFKIT_ECORRUPT, "%s: expected %s, found %s", what,
                        want == PK_JSON_MAP_START ? "an object" : "an array", ev_type_name(ev));
}

static int open_table(gk_reader *r, pk_json *j, const pk_json_event *ev, gk_tables *owner, int tk)
{
    int rc = expect(j, ev, PK_JSON_MAP_START, table_names[tk]);
    if (rc)
        return rc;
    gk_table *t = owner->t[tk];
    if (t && t->stream && t->count > 0)
        return pk_json_fail(j, PROFKIT_ECORRUPT, "%s: a second table in the same thread",
                            table_names[tk]);
    if (!t && !(t = owner->t[tk] = calloc(1, sizeof *t)))
        return pk_gk_oom(r);
    uint32_t line, col;
    pk_json_where(j, &line, &col);
    table_init(t, tk, line, col);
    if ((rc = push_frame(r, C_TABLE)) != 0)
        return rc;
    gk_frame *f = &r->fs[r->n_fs - 1];
    f->table = t;
    f->owner = owner;
    f->table_kind = tk;
    return 0;
}

static int open_strings(gk_reader *r, pk_json *j, const pk_json_event *ev, gk_tables *owner,
                        const char *what)
{
    int rc = expect(j, ev, PK_JSON_ARRAY_START, what);
    if (rc)
        return rc;
    pk_gk_strings_free(&owner->strings);
    owner->have_strings = 1;
    pk_json_where(j, &owner->strings_line, &owner->strings_column);
    if ((rc = push_frame(r, C_STRINGS)) != 0)
        return rc;
    r->fs[r->n_fs - 1].owner = owner;
    return 0;
}

static int open_profile(gk_reader *r, pk_json *j, const pk_json_event *ev)
{
    int rc = expect(j, ev, PK_JSON_MAP_START, r->n_prof ? "processes element" : "the document");
    if (rc)
        return rc;
    if (r->n_prof >= MAX_NESTING)
        return pk_json_fail(j, PROFKIT_EUNSUPPORTED, "processes nested deeper than %d levels",
                            MAX_NESTING);
    if (PK_VEC_RESERVE(r->prof, r->n_prof, r->cap_prof, 1) != 0)
        return pk_gk_oom(r);
    r->prof[r->n_prof].have_start = 0;
    r->prof[r->n_prof].start = 0;
    r->prof[r->n_prof].serial = ++r->cn.next_serial;
    r->n_prof++;
    return push_frame(r, C_PROFILE);
}

static int on_libs_value(gk_reader *r, pk_json *j, const pk_json_event *ev, const char *what);
int pk_gecko_on_event(pk_json *j, void *payload, const pk_json_event *ev);

static int meta_value(gk_reader *r, pk_json *j, gk_frame *f, const pk_json_event *ev)
{
    int root = r->n_prof == 1;
    if (f->key == 1 /* startTime */ && ev->type == PK_JSON_NUMBER) {
        r->prof[r->n_prof - 1].start = pk_json_num(ev);
        r->prof[r->n_prof - 1].have_start = 1;
    }
    if (f->key == 4 /* categories */ && root) {
        if (ev->type != PK_JSON_ARRAY_START)
            return skip_value(r, ev);
        pk_gk_strings_free(&r->categories);
        pk_gk_strings_free(&r->cat_colors);
        pk_gk_strings_free(&r->cat_subs);
        r->n_category_ids = (size_t)-1;
        return push_frame(r, C_CATEGORIES);
    }
    if (f->key == 5 /* sampleUnits */ && root && ev->type == PK_JSON_MAP_START)
        return push_frame(r, C_SAMPLE_UNITS);
    if (is_start(ev) || !root)
        return skip_value(r, ev);
    if (f->key == 2 || f->key == 3) { /* version, preprocessedProfileVersion */
        if (ev->type != PK_JSON_NUMBER)
            return pk_json_fail(j, PROFKIT_ECORRUPT, "meta.%s: expected a number, found %s",
                                r->meta_key, ev_type_name(ev));
        char *v = r->version[f->key - 2];
        size_t n = ev->len < sizeof r->version[0] - 1 ? ev->len : sizeof r->version[0] - 1;
        memcpy(v, ev->str, n);
        v[n] = 0;
        /* before version 3 (2013's Cleopatra format: profileJSON and a
         * symbolicationTable) there are no threads to read: say so rather
         * than read nothing, as the Firefox Profiler refuses it too */
        if (f->key == 2 && r->flavor == PK_GECKO_RAW && pk_json_num(ev) < 3)
            return pk_json_fail(j, PROFKIT_EFORMAT,
                                "meta.version: Gecko profile version %s is too old: profkit reads version 3 "
                                "and later (the Firefox Profiler too)",
                                v);
    }
    if (ev->type == PK_JSON_STRING || ev->type == PK_JSON_NUMBER) {
        if (pk_meta_add_len(r->p, r->meta_key, ev->str, ev->len) != 0)
            return pk_gk_oom(r);
    } else if (ev->type == PK_JSON_BOOL) {
        if (pk_meta_add(r->p, r->meta_key, ev->boolean ? "true" : "false") != 0)
            return pk_gk_oom(r);
    }
    return 0;
}

/* The thread's own tables, made when the first of them comes (NULL when
 * out of memory). */
static gk_tables *thread_tables(gk_reader *r, gk_thread *th)
{
    (void)r;
    if (!th->tab)
        th->tab = calloc(1, sizeof *th->tab);
    return th->tab;
}

static int thread_value(gk_reader *r, pk_json *j, gk_frame *f, const pk_json_event *ev,
                        const char *key, size_t key_len)
{
    gk_thread *th = r->cur;
    (void)key_len;
    switch (f->key) {
    case 100: return set_string_field(r, j, &th->name, ev, "thread name");
    case 101: return set_string_field(r, j, &th->process_name, ev, "processName");
    case 102: return set_string_field(r, j, &th->process_type, ev, "processType");
    case 103: return set_id_field(j, &th->pid, ev, "pid");
    case 104: return set_id_field(j, &th->tid, ev, "tid");
    case 105: return thread_tables(r, th) ? open_strings(r, j, ev, th->tab, key) : pk_gk_oom(r);
    case 106: return on_libs_value(r, j, ev, "libs");
    case 108:
    case 109:
        /* processStartupTime, registerTime (ms): kept when numbers */
        if (ev->type == PK_JSON_NUMBER) {
            double v = pk_json_num(ev);
            if (v > -9.2e12 && v < 9.2e12) {
                if (f->key == 108)
                    th->process_start = v, th->have_process_start = 1;
                else
                    th->register_time = v, th->have_register_time = 1;
            }
        }
        return skip_value(r, ev);
    case 107: {
        if (ev->type == PK_JSON_NULL)
            return 0;
        int rc = expect(j, ev, PK_JSON_ARRAY_START, "pausedRanges");
        return rc ? rc : push_frame(r, C_PAUSED);
    }
    default:
        if (f->key == 200 + T_MARKERS && r->ctx->opts->skip_markers) {
            /* Not wanted: parsed (yajl checks the syntax) but neither kept
             * nor checked, save that it is a table. */
            int rc = expect(j, ev, PK_JSON_MAP_START, table_names[T_MARKERS]);
            return rc ? rc : skip_value(r, ev);
        }
        if (f->key >= 200 && f->key < 200 + T_COUNT)
            return thread_tables(r, th) ? open_table(r, j, ev, th->tab, f->key - 200) : pk_gk_oom(r);
        return skip_value(r, ev);
    }
}

static int thread_key(const pk_json_event *ev)
{
    if (key_is(ev, "name")) return 100;
    if (key_is(ev, "processName")) return 101;
    if (key_is(ev, "processType")) return 102;
    if (key_is(ev, "pid")) return 103;
    if (key_is(ev, "tid")) return 104;
    if (key_is(ev, "stringTable") || key_is(ev, "stringArray")) return 105;
    if (key_is(ev, "libs")) return 106;
    if (key_is(ev, "pausedRanges")) return 107;
    if (key_is(ev, "processStartupTime")) return 108;
    if (key_is(ev, "registerTime")) return 109;
    int t = table_id(ev);
    return t >= 0 && t != T_SOURCES ? 200 + t : -1;
}

static int profile_key(const pk_json_event *ev)
{
    static const char *const keys[] = { "meta", "libs", "threads", "processes", "pausedRanges",
                                        "shared", "profile" };
    for (int i = 0; i < 7; i++)
        if (key_is(ev, keys[i]))
            return i;
    if (key_is(ev, "counters"))
        return 7;
    return -1;
}

static int meta_key(const pk_json_event *ev)
{
    if (key_is(ev, "startTime")) return 1;
    if (key_is(ev, "version")) return 2;
    if (key_is(ev, "preprocessedProfileVersion")) return 3;
    if (key_is(ev, "categories")) return 4;
    if (key_is(ev, "sampleUnits")) return 5;
    return 0;
}

static int lib_key(const pk_json_event *ev)
{
    static const char *const keys[] = { "start", "end", "offset", "name", "path", "debugName",
                                        "breakpadId", "debugId", "codeId" };
    for (int i = 0; i < 9; i++)
        if (key_is(ev, keys[i]))
            return i;
    return -1;
}

/*
 * Gecko 3 and 4 embed JSON text in strings: the libs list, and whole
 * sub-process profiles as elements of `threads`. It is parsed in place, with
 * the same handlers, under a C_NESTED frame saying what it must be.
 */
static int nested_parse(gk_reader *r, pk_json *j, const pk_json_event *ev, int what)
{
    int rc = push_frame(r, C_NESTED);
    if (rc)
        return rc;
    size_t at = r->n_fs;
    r->fs[at - 1].key = what;
    rc = pk_json_parse_memory(r->ctx, ev->str, ev->len, j, pk_gecko_on_event, r);
    r->j = j; /* the nested parser is gone */
    if (rc)
        return rc;
    r->n_fs = at - 1;
    return 0;
}

static int on_libs_value(gk_reader *r, pk_json *j, const pk_json_event *ev, const char *what)
{
    if (ev->type == PK_JSON_STRING)
        return nested_parse(r, j, ev, 0);
    if (ev->type == PK_JSON_NULL)
        return 0;
    int rc = expect(j, ev, PK_JSON_ARRAY_START, what);
    r->libs_base = r->p->n_mappings; /* processed frames name their lib by index */
    r->n_libs_lists++;
    return rc ? rc : push_frame(r, C_LIBS);
}

static int lib_done(gk_reader *r)
{
    gk_lib *l = &r->lib;
    const char *path = l->path && *l->path ? l->path : l->name ? l->name : l->debug_name;
    uint64_t start = l->start > 0 && l->start < 1.8e19 ? (uint64_t)l->start : 0;
    uint64_t end = l->end > 0 && l->end < 1.8e19 ? (uint64_t)l->end : 0;
    uint64_t off = l->offset > 0 && l->offset < 1.8e19 ? (uint64_t)l->offset : 0;
    uint32_t id = pk_mapping_add(r->p, start, end, off, path ? path : "",
                                      l->build_id ? l->build_id : "");
    free(l->name);
    free(l->path);
    free(l->debug_name);
    free(l->build_id);
    memset(l, 0, sizeof *l);
    return id == PROFKIT_NONE ? pk_gk_oom(r) : 0;
}

static int lib_value(gk_reader *r, pk_json *j, gk_frame *f, const pk_json_event *ev)
{
    gk_lib *l = &r->lib;
    if (is_start(ev))
        return skip_value(r, ev);
    switch (f->key) {
    case 0: case 1: case 2:
        if (ev->type == PK_JSON_NUMBER)
            *(f->key == 0 ? &l->start : f->key == 1 ? &l->end : &l->offset) = pk_json_num(ev);
        return 0;
    case 3: return set_string_field(r, j, &l->name, ev, "lib name");
    case 4: return set_string_field(r, j, &l->path, ev, "lib path");
    case 5: return set_string_field(r, j, &l->debug_name, ev, "lib debugName");
    case 6: case 7: case 8:
        if (l->build_id && f->key == 8)
            return 0; /* breakpadId/debugId win over codeId */
        return set_string_field(r, j, &l->build_id, ev, "lib id");
    default: return 0;
    }
}

static int take_row(pk_json *j, void *payload, const pk_json_scalar *cells, size_t n);

static int table_value(gk_reader *r, pk_json *j, gk_frame *f, const pk_json_event *ev)
{
    gk_table *t = f->table;
    uint64_t wants = table_wants[f->table_kind];
    int k = f->key;
    if (k == -2) { /* schema */
        if (t->rows_layout && t->have_schema)
            return pk_json_fail(j, PROFKIT_ECORRUPT, "%s: a second schema", table_names[f->table_kind]);
        int rc = expect(j, ev, PK_JSON_MAP_START, "schema");
        if (rc)
            return rc;
        t->rows_layout = 1;
        if ((rc = push_frame(r, C_SCHEMA)) != 0)
            return rc;
        gk_frame *s = &r->fs[r->n_fs - 1];
        s->table = t;
        s->owner = f->owner;
        s->table_kind = f->table_kind;
        return 0;
    }
    if (k == -3) { /* data: rows; or, in a processed marker table, the payload column */
        int rc = expect(j, ev, PK_JSON_ARRAY_START, "data");
        if (rc)
            return rc;
        int undecided = f->table_kind == T_MARKERS && !t->rows_layout;
        if (!undecided)
            t->rows_layout = 1;
        rows_begin(r);
        if ((rc = push_frame(r, C_DATA)) != 0)
            return rc;
        gk_frame *s = &r->fs[r->n_fs - 1];
        s->table = t;
        s->owner = f->owner;
        s->table_kind = f->table_kind;
        s->key = undecided ? -9 : -1;
        pk_json_take_rows(j, take_row, r);
        return 0;
    }
    if (k == -5) { /* length (processed markers): rows past it are not read */
        int64_t n;
        if (ev->type == PK_JSON_NUMBER && pk_json_as_int(ev, &n) && n >= 0) {
            t->length = (size_t)n;
            t->have_length = 1;
        }
        return skip_value(r, ev);
    }
    if (k == -4) { /* weightType */
        if (ev->type != PK_JSON_STRING)
            return skip_value(r, ev);
        if (key_is(ev, "tracing-ms"))
            t->weight_type = WT_TRACING_MS;
        else if (key_is(ev, "bytes"))
            t->weight_type = WT_BYTES;
        else if (key_is(ev, "samples"))
            t->weight_type = WT_SAMPLES;
        else
            return pk_json_fail(j, PROFKIT_EUNSUPPORTED,
                                "weightType: expected \"samples\", \"tracing-ms\" or \"bytes\", found \"%.*s\"",
                                (int)(ev->len > 40 ? 40 : ev->len), ev->str);
        return 0;
    }
    if (k >= 0 && (wants & B(k))) {
        if (ev->type == PK_JSON_NULL)
            return 0; /* a null column is an absent one */
        int rc = expect(j, ev, PK_JSON_ARRAY_START, col_names[k]);
        if (rc)
            return rc;
        if ((f->table_kind == T_SAMPLES || f->table_kind == T_MARKERS) && !t->rows_layout && r->cur &&
            f->owner == r->cur->tab) {
            /* a thread's sample columns go straight into the model rows */
            t->stream = 1;
            if ((rc = push_frame(r, C_COLUMN)) != 0)
                return rc;
            gk_frame *s = &r->fs[r->n_fs - 1];
            s->table = t;
            s->owner = f->owner;
            s->table_kind = f->table_kind;
            s->key = k;
            return 0;
        }
        gk_col *col = pk_gk_col_w(t, k);
        if (!col)
            return pk_gk_oom(r);
        pk_gk_col_free(col);
        if ((rc = push_frame(r, C_COLUMN)) != 0)
            return rc;
        gk_frame *s = &r->fs[r->n_fs - 1];
        s->table = t;
        s->owner = f->owner;
        s->table_kind = f->table_kind;
        s->target = col;
        s->key = k;
        return 0;
    }
    return skip_value(r, ev);
}

/* A cell of a table row (most of a profile's events). */
static inline int row_value(gk_reader *r, pk_json *j, gk_frame *f, const pk_json_event *ev)
{
    gk_table *t = f->table;
    size_t pos = f->index++;
    if (t->stream) {
        /* Streamed rows name model columns through the schema (their cells
         * go to r->row, not to columns); a table that began as columns (no
         * schema) has none to name them. */
        if (!t->have_schema)
            return pk_json_fail(j, PROFKIT_ECORRUPT,
                                "%s: rows in a table that has columns: a table is either "
                                "a schema with data rows or one array per column",
                                table_names[f->table_kind]);
        if (pos >= t->n_pos_map || t->pos_col[pos] < 0)
            return skip_value(r, ev);
        return stream_cell(r, j, t, f->table_kind, t->pos_col[pos], ev);
    }
    int err;
    gk_col *c = row_target(r, t, pos, &err);
    if (err)
        return err;
    if (!c)
        return skip_value(r, ev);
    return put_cell(r, c, f->owner, ev);
}

/*
 * A row of scalars handed whole by the parser (pk_json_take_rows): what its
 * events do (on_value's C_DATA, row_value per cell, end_row), without an
 * event per cell. Rows that could fail before their end (a streamed row in
 * a table without a schema) are left to the events: 1.
 */
static int take_row(pk_json *j, void *payload, const pk_json_scalar *cells, size_t n)
{
    gk_reader *r = payload;
    gk_frame *f = &r->fs[r->n_fs - 1];
    if (r->capture || r->cn.active || f->kind != C_DATA)
        return 1;
    gk_table *t = f->table;
    if (!t->have_schema) /* cells in row order (pre), or an error for a streamed table */
        return 1;
    r->j = j;
    if (f->key == -9) { /* the first element decides: a row */
        f->key = -1;
        t->rows_layout = 1;
    }
    f->index++;
    if (t->stream) {
        row_reset(r, t);
        for (size_t pos = 0; pos < n && pos < t->n_pos_map; pos++) {
            int c = t->pos_col[pos];
            if (c < 0)
                continue;
            const pk_json_scalar *x = &cells[pos];
            r->row[c] = x->type == PK_JSON_NUMBER ? (x->has_num ? x->num : pk_json_number(x->str, x->len))
                        : x->type == PK_JSON_NULL ? boxed(BOX_NULL)
                                                  : (double)x->boolean;
        }
        return end_row(r, j, t, f->table_kind);
    }
    /* A stored row (stackTable, frameTable, ...): each cell to its
     * column, then a null to each of the schema's columns the row did not
     * reach (what row_value and end_row do, without a call per cell). */
    if (PK_UNLIKELY(!t->col) && !pk_gk_cols_make(t))
        return pk_gk_oom(r);
    size_t lim = n < t->n_pos_map ? n : t->n_pos_map;
    for (size_t pos = 0; pos < lim; pos++) {
        int c = t->pos_col[pos];
        if (c < 0)
            continue;
        gk_col *col = &t->col[t->slot[c]];
        const pk_json_scalar *x = &cells[pos];
        double v = x->type == PK_JSON_NUMBER ? (x->has_num ? x->num : pk_json_number(x->str, x->len))
                   : x->type == PK_JSON_NULL ? boxed(BOX_NULL)
                                             : (x->boolean ? 1.0 : 0.0);
        if (PK_UNLIKELY(col->n == col->cap) && col_grow_hinted(r, t, col) != 0)
            return pk_gk_oom(r);
        col->v[col->n++] = v;
    }
    t->n_rows++;
    for (int k = 0; k < t->n_row_cols; k++) {
        gk_col *col = &t->col[t->slot[t->row_cols[k]]];
        if (col->n < t->n_rows) {
            if (PK_UNLIKELY(col->n == col->cap) && col_grow_hinted(r, t, col) != 0)
                return pk_gk_oom(r);
            col->v[col->n++] = boxed(BOX_NULL);
        }
    }
    return 0;
}

static int on_value(gk_reader *r, pk_json *j, const pk_json_event *ev)
{
    gk_frame *f = &r->fs[r->n_fs - 1];
    switch (f->kind) {
    case C_DOC:
        if (f->index++ > 0)
            return skip_value(r, ev);
        return open_profile(r, j, ev);
    case C_PROFILE:
        if (r->n_prof == 1 && f->key >= 0 && f->key != 6)
            r->root_used = 1;
        switch (f->key) {
        case 0: { /* meta */
            r->shaped = 1;
            int rc = expect(j, ev, PK_JSON_MAP_START, "meta");
            return rc ? rc : push_frame(r, C_META);
        }
        case 1: return on_libs_value(r, j, ev, "libs");
        case 2: {
            r->shaped = 1;
            int rc = expect(j, ev, PK_JSON_ARRAY_START, "threads");
            return rc ? rc : push_frame(r, C_THREADS);
        }
        case 3: {
            if (ev->type == PK_JSON_NULL)
                return 0;
            int rc = expect(j, ev, PK_JSON_ARRAY_START, "processes");
            return rc ? rc : push_frame(r, C_PROCESSES);
        }
        case 4: {
            if (ev->type == PK_JSON_NULL)
                return 0;
            int rc = expect(j, ev, PK_JSON_ARRAY_START, "pausedRanges");
            return rc ? rc : push_frame(r, C_PAUSED);
        }
        case 5: {
            if (r->n_prof != 1)
                return skip_value(r, ev);
            int rc = expect(j, ev, PK_JSON_MAP_START, "shared");
            if (rc)
                return rc;
            return push_frame(r, C_SHARED);
        }
        case 7: return pk_gk_counters_begin(r, j, ev);
        case 6: /* profile: Firefox DevTools' wrapper {fileType, version, profile} */
            if (r->flavor != PK_GECKO_RAW || r->n_prof != 1 || r->root_used ||
                ev->type != PK_JSON_MAP_START)
                return skip_value(r, ev);
            /* the object under "profile" is the document; the wrapper's
             * other keys are skipped (its frame becomes a used C_DOC) */
            f->kind = C_DOC;
            f->index = 1;
            r->n_prof--;
            r->root_used = 1;
            return open_profile(r, j, ev);
        default: return skip_value(r, ev);
        }
    case C_META: return meta_value(r, j, f, ev);
    case C_SAMPLE_UNITS:
        /* the unit of the samples' threadCPUDelta: "µs", "ns" or "variable CPU cycles" */
        if (f->key == 1 && ev->type == PK_JSON_STRING) {
            r->p->sample_cpu_unit = profkit_string_intern(r->p, ev->str, ev->len);
            if (r->p->sample_cpu_unit == PROFKIT_NONE)
                return pk_gk_oom(r);
            return 0;
        }
        return skip_value(r, ev);
    case C_CATEGORIES:
        /* keep indexes aligned: a non-object category has no name */
        if (strings_push(&r->categories, "", 0) != 0 || strings_push(&r->cat_colors, "", 0) != 0 ||
            PK_VEC_RESERVE(r->cat_n_subs, r->categories.n - 1, r->cap_cat_n_subs, 1) != 0)
            return pk_gk_oom(r);
        r->cat_n_subs[r->categories.n - 1] = 0;
        if (ev->type != PK_JSON_MAP_START)
            return skip_value(r, ev);
        return push_frame(r, C_CATEGORY);
    case C_CATEGORY:
        if ((f->key == 1 || f->key == 2) && ev->type == PK_JSON_STRING) {
            /* replace the placeholder pushed at the object's start */
            gk_strings *c = f->key == 1 ? &r->categories : &r->cat_colors;
            c->n--;
            c->len = c->off[c->n];
            if (strings_push(c, ev->str, ev->len) != 0)
                return pk_gk_oom(r);
            return 0;
        }
        if (f->key == 3 && ev->type == PK_JSON_ARRAY_START)
            return push_frame(r, C_SUBCATS);
        return skip_value(r, ev);
    case C_SUBCATS:
        /* a subcategory that is no string keeps its index, named "" */
        if (strings_push(&r->cat_subs, ev->type == PK_JSON_STRING ? ev->str : "",
                         ev->type == PK_JSON_STRING ? ev->len : 0) != 0)
            return pk_gk_oom(r);
        r->cat_n_subs[r->categories.n - 1]++;
        return ev->type == PK_JSON_STRING ? 0 : skip_value(r, ev);
    case C_NESTED:
        if (f->index++ > 0)
            return skip_value(r, ev);
        if (f->key == 1)
            return open_profile(r, j, ev);
        {
            int rc = expect(j, ev, PK_JSON_ARRAY_START, "libs (JSON text)");
            r->libs_base = r->p->n_mappings;
            r->n_libs_lists++;
            return rc ? rc : push_frame(r, C_LIBS);
        }
    case C_LIBS:
        if (ev->type != PK_JSON_MAP_START)
            return pk_json_fail(j, PROFKIT_ECORRUPT, "libs[%zu]: expected an object, found %s",
                                f->index, ev_type_name(ev));
        f->index++;
        return push_frame(r, C_LIB);
    case C_LIB: return lib_value(r, j, f, ev);
    case C_THREADS: {
        if (ev->type == PK_JSON_STRING) /* Gecko 3-4: a sub-process profile as JSON text */
            return nested_parse(r, j, ev, 1);
        int rc = expect(j, ev, PK_JSON_MAP_START, "threads element");
        if (rc)
            return rc;
        gk_thread *th = calloc(1, sizeof *th);
        if (!th)
            return pk_gk_oom(r);
        th->pid = th->tid = -1;
        th->model_thread = PROFKIT_NONE;
        th->depth = r->n_prof - 1;
        th->serial = r->n_prof ? r->prof[r->n_prof - 1].serial : 0;
        th->index = r->n_threads++;
        pk_json_where(j, &th->line, &th->column);
        r->cur = th;
        return push_frame(r, C_THREAD);
    }
    case C_THREAD: return thread_value(r, j, f, ev, "stringTable", 0);
    case C_PROCESSES: return open_profile(r, j, ev);
    case C_PAUSED:
        begin_capture(r, ev, NULL, NULL,
                      r->n_fs > 1 && r->fs[r->n_fs - 2].kind == C_THREAD ? 2 : 1);
        return r->capture ? 0 : end_capture(r);
    case C_SHARED:
        if (f->key == 105)
            return open_strings(r, j, ev, &r->shared, "shared.stringArray");
        if (f->key >= 200)
            return open_table(r, j, ev, &r->shared, f->key - 200);
        return skip_value(r, ev);
    case C_TABLE: return table_value(r, j, f, ev);
    case C_SCHEMA:
        if (f->key >= 0) {
            double v = ev->type == PK_JSON_NUMBER ? pk_json_num(ev) : -1;
            if (ev->type != PK_JSON_NUMBER || v < 0 || v >= MAX_SCHEMA_POS || v != floor(v))
                return pk_json_fail(j, PROFKIT_ECORRUPT,
                                    "schema.%s: expected a column position (0 to %d), found %s",
                                    col_names[f->key], MAX_SCHEMA_POS - 1,
                                    ev->type == PK_JSON_NUMBER ? "a number outside it" : ev_type_name(ev));
            f->table->schema[f->table->slot[f->key]] = (int16_t)v;
        }
        return skip_value(r, ev);
    case C_DATA: {
        if (f->key == -9) {
            /* the first element decides: a row, or a marker payload */
            f->key = -1;
            if (ev->type == PK_JSON_ARRAY_START) {
                f->table->rows_layout = 1;
            } else if (r->cur && f->owner == r->cur->tab) {
                f->kind = C_COLUMN;
                f->table->stream = 1;
                f->target = NULL;
                f->key = COL_DATA;
                return stream_marker_value(r, j, f, ev);
            } else {
                f->kind = C_COLUMN;
                if (!(f->target = pk_gk_col_w(f->table, COL_DATA)))
                    return pk_gk_oom(r);
                pk_gk_col_free(f->target);
                return put_cell(r, f->target, f->owner, ev);
            }
        }
        if (ev->type != PK_JSON_ARRAY_START)
            return pk_json_fail(j, PROFKIT_ECORRUPT, "%s.data[%zu]: expected a row (an array), found %s",
                                table_names[f->table_kind], f->index, ev_type_name(ev));
        f->index++;
        gk_table *t = f->table;
        gk_tables *o = f->owner;
        int tk = f->table_kind;
        int rc = push_frame(r, C_ROW);
        if (rc)
            return rc;
        gk_frame *s = &r->fs[r->n_fs - 1];
        s->table = t;
        s->owner = o;
        s->table_kind = tk;
        if (t->stream)
            row_reset(r, t);
        return 0;
    }
    case C_ROW: return row_value(r, j, f, ev);
    case C_COLUMN:
        if (!f->target)
            return f->table_kind == T_MARKERS ? stream_marker_value(r, j, f, ev)
                                              : stream_column_value(r, j, f, ev);
        return put_cell(r, f->target, f->owner, ev);
    case C_STRINGS:
        if (ev->type == PK_JSON_STRING || ev->type == PK_JSON_NULL) {
            if (strings_push(&f->owner->strings, ev->str, ev->type == PK_JSON_NULL ? 0 : ev->len) != 0)
                return pk_gk_oom(r);
            return 0;
        }
        return pk_json_fail(j, PROFKIT_ECORRUPT, "string table entry %zu: expected a string, found %s",
                            f->owner->strings.n, ev_type_name(ev));
    }
    return skip_value(r, ev);
}

static int on_key(gk_reader *r, const pk_json_event *ev)
{
    gk_frame *f = &r->fs[r->n_fs - 1];
    switch (f->kind) {
    case C_PROFILE: f->key = profile_key(ev); break;
    case C_META:
        f->key = meta_key(ev);
        {
            size_t n = ev->len < sizeof r->meta_key - 1 ? ev->len : sizeof r->meta_key - 1;
            memcpy(r->meta_key, ev->str, n);
            r->meta_key[n] = 0;
        }
        break;
    case C_CATEGORY:
        f->key = key_is(ev, "name") ? 1 : key_is(ev, "color") ? 2 : key_is(ev, "subcategories") ? 3 : 0;
        break;
    case C_SAMPLE_UNITS: f->key = key_is(ev, "threadCPUDelta") ? 1 : 0; break;
    case C_LIB: f->key = lib_key(ev); break;
    case C_THREAD: f->key = thread_key(ev); break;
    case C_SHARED:
        if (key_is(ev, "stringArray"))
            f->key = 105;
        else
            f->key = table_id(ev) >= 0 && table_id(ev) != T_SAMPLES && table_id(ev) != T_MARKERS
                         ? 200 + table_id(ev)
                         : -1;
        break;
    case C_TABLE:
        if (key_is(ev, "schema"))
            f->key = -2;
        else if (key_is(ev, "data"))
            f->key = -3;
        else if (key_is(ev, "weightType"))
            f->key = -4;
        else if (key_is(ev, "length") && f->table_kind == T_MARKERS)
            f->key = -5;
        else
            f->key = col_id(ev);
        break;
    case C_SCHEMA: {
        int c = col_id(ev);
        f->key = c >= 0 && (table_wants[f->table_kind] & B(c)) ? c : -1;
        break;
    }
    default: f->key = -1; break;
    }
    return 0;
}

static int on_close(gk_reader *r, pk_json *j)
{
    gk_frame *f = &r->fs[r->n_fs - 1];
    int rc = 0;
    switch (f->kind) {
    case C_PROFILE:
        if (pk_json_offset(j) > r->input_bytes) /* the last flush comes after the parser */
            r->input_bytes = pk_json_offset(j);
        rc = pk_gk_flush_pending(r, r->n_prof == 1, r->n_prof - 1, r->n_prof - 1);
        if (!rc && r->n_prof > 1) {
            /* force what still waits for this level's start time */
            rc = pk_gk_flush_pending(r, 1, r->n_prof - 1, r->n_prof - 1);
        }
        r->n_prof--;
        break;
    case C_META:
        /* this profile's start time concerns only its threads and deeper */
        rc = pk_gk_flush_pending(r, 0, 0, r->n_prof ? r->n_prof - 1 : 0);
        break;
    case C_LIB: rc = lib_done(r); break;
    case C_THREAD: rc = pk_gk_thread_done(r); break;
    case C_SHARED:
        /* only the first shared block's close can make a thread ready */
        if (!r->shared_done) {
            r->shared_done = 1;
            rc = pk_gk_flush_pending(r, 0, 0, 0);
        }
        break;
    case C_SCHEMA:
        rc = apply_schema(r, f->table, table_wants[f->table_kind], f->table_kind, f->owner);
        break;
    case C_ROW: rc = end_row(r, j, f->table, f->table_kind); break;
    case C_TABLE:
        if (f->table->rows_layout && !f->table->have_schema && f->table->n_rows > 0)
            rc = pk_json_fail(j, PROFKIT_ECORRUPT, "%s: rows (data) without a schema",
                              table_names[f->table_kind]);
        break;
    default: break;
    }
    r->n_fs--;
    return rc;
}

int pk_gecko_on_event(pk_json *j, void *payload, const pk_json_event *ev);
int pk_gecko_on_event(pk_json *j, void *payload, const pk_json_event *ev)
{
    gk_reader *r = payload;
    r->j = j;
    if (r->capture) {
        pk_json_text_event(&r->cap_text, ev);
        if (is_start(ev))
            r->capture++;
        else if (ev->type == PK_JSON_MAP_END || ev->type == PK_JSON_ARRAY_END)
            r->capture--;
        return r->capture ? 0 : end_capture(r);
    }
    if (r->cn.active)
        return pk_gk_counters_event(r, j, ev);
    /* the common case first: a number in a table row (no skip to ask for) */
    gk_frame *top = &r->fs[r->n_fs - 1];
    if (top->kind == C_ROW && ev->type == PK_JSON_NUMBER)
        return row_value(r, j, top, ev);
    if (ev->type == PK_JSON_KEY)
        return on_key(r, ev);
    if (ev->type == PK_JSON_MAP_END || ev->type == PK_JSON_ARRAY_END)
        return on_close(r, j);
    int rc = on_value(r, j, ev);
    if (r->skip) { /* a handler does not want this value: the parser skips it */
        r->skip = 0;
        pk_json_skip_value(j);
    }
    return rc;
}

/* ---------------------------------------------------------------- entry */

static void reader_free(gk_reader *r)
{
    pk_gk_thread_free(r->cur);
    for (size_t i = 0; i < r->n_pending; i++)
        pk_gk_thread_free(r->pending[i]);
    free(r->pending);
    pk_gk_tables_free(&r->shared);
    for (int k = 0; k < T_COUNT; k++)
        for (int c = 0; c <= GK_SLOTS; c++)
            free(r->kept[k][c].v);
    pk_gk_counters_free(&r->cn);
    pk_gk_strings_free(&r->categories);
    pk_gk_strings_free(&r->cat_colors);
    pk_gk_strings_free(&r->cat_subs);
    free(r->cat_n_subs);
    free(r->thread_keys);
    free(r->category_ids);
    pk_buf_free(&r->cap_text);
    free(r->lib.name);
    free(r->lib.path);
    free(r->lib.debug_name);
    free(r->lib.build_id);
    free(r->fs);
    free(r->prof);
    free(r->chain);
    free(r->ahead);
    free(r->locs_ahead);
    free(r->paused_ranges);
    free(r->serial_pids);
    free(r->values);
}

/*
 * The root's meta.categories become the model's frame categories, in
 * order (frames hold their index). A frame whose category is past them
 * (the file names none such) has none, as one without.
 */
static int model_categories(gk_reader *r)
{
    profkit_profile *p = r->p;
    const gk_strings *c = &r->categories;
    size_t sub = 0;
    uint32_t *ids = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < c->n && i < PK_MAX_CATEGORIES; i++) {
        size_t ns = r->cat_n_subs[i];
        if (PK_VEC_RESERVE(ids, 0, cap, ns ? ns : 1) != 0)
            goto oom;
        for (size_t k = 0; k < ns; k++, sub++) {
            const gk_strings *s = &r->cat_subs;
            ids[k] = profkit_string_intern(p, s->buf + s->off[sub], s->off[sub + 1] - s->off[sub]);
            if (ids[k] == PROFKIT_NONE)
                goto oom;
        }
        uint32_t name = profkit_string_intern(p, c->buf + c->off[i], c->off[i + 1] - c->off[i]);
        const gk_strings *cl = &r->cat_colors;
        uint32_t color = profkit_string_intern(p, cl->buf + cl->off[i], cl->off[i + 1] - cl->off[i]);
        if (name == PROFKIT_NONE || color == PROFKIT_NONE ||
            pk_category_add(p, name, color, ids, ns) == PROFKIT_NONE)
            goto oom;
    }
    free(ids);
    int changed = 0;
    for (size_t i = 0; i < p->n_frames; i++) {
        profkit_frame *f = &p->frames[i];
        if (f->category > p->n_categories) {
            f->category = 0;
            f->subcategory = 0;
            changed = 1;
        }
    }
    if (changed && pk_profile_reindex_frames(p) != 0)
        return pk_read_fail(r->ctx, PROFKIT_ENOMEM, -1, "out of memory");
    return 0;
oom:
    free(ids);
    return pk_read_fail(r->ctx, PROFKIT_ENOMEM, -1, "out of memory");
}

/* A profile with markers named "IPC" gets the names the Firefox Profiler
 * shows them by (src/analysis/markers_ipc.c). 0 or PROFKIT_ENOMEM. */
static int ipc_names(profkit_profile *p)
{
    static const char *const kinds[4] = { "IPCOut", "IPCIn", "SyncIPCOut", "SyncIPCIn" };
    if (pk_strtab_find(&p->strings, "IPC", 3) == PROFKIT_NONE)
        return 0;
    for (int i = 0; i < 4; i++)
        if (profkit_string_intern_cstr(p, kinds[i]) == PROFKIT_NONE)
            return PROFKIT_ENOMEM;
    return 0;
}

int pk_gecko_read(profkit_profile *p, pk_read_ctx *ctx, pk_gecko_flavor flavor)
{
    gk_reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.ctx = ctx;
    r.flavor = flavor;
    int rc = push_frame(&r, C_DOC);
    if (!rc)
        rc = pk_json_parse_source(ctx, pk_gecko_on_event, &r);
    r.j = NULL;
    if (!rc && r.n_prof == 0 && r.fs[0].index == 0)
        rc = pk_read_fail(ctx, PROFKIT_EFORMAT, -1, "empty input: expected a JSON object");
    /* an object with neither key (a Safari recording, say, whose head
     * mentions both): no profile to read, rather than one of no samples */
    if (!rc && r.fs[0].index > 0 && !r.shaped)
        rc = pk_read_fail_pos(ctx, PROFKIT_EFORMAT, 1, 1,
                              "expected a %s profile: an object with \"meta\" and \"threads\"; found neither "
                              "at its top level",
                              flavor == PK_GECKO_RAW ? "Gecko" : "Firefox Profiler");
    if (!rc)
        rc = pk_gk_flush_pending(&r, 1, 0, 0);
    if (rc == PROFKIT_ETRUNCATED && r.cur) {
        /* the unfinished thread's streamed rows are the newest: drop them */
        gk_table *st = pk_gk_table_of(r.cur->tab, T_SAMPLES), *mt = pk_gk_table_of(r.cur->tab, T_MARKERS);
        if (st && st->stream && st->count)
            p->n_samples = st->first;
        if (mt && mt->stream && mt->count)
            p->n_markers = mt->first;
        if (r.cur->model_thread != PROFKIT_NONE && r.cur->model_thread + 1 == p->n_threads) {
            p->n_threads--;
            if (r.n_thread_keys > p->n_threads)
                r.n_thread_keys = p->n_threads; /* its place goes with it */
        }
    }
    if (rc == PROFKIT_ETRUNCATED) {
        /* keep the threads that were complete before the cut, and say so;
         * one still waiting for the shared tables cannot be built */
        size_t w = 0;
        for (size_t i = 0; i < r.n_pending; i++) {
            gk_thread *th = r.pending[i];
            if (!r.shared_done && !(pk_gk_table_of(th->tab, T_STACKS) && th->tab->have_strings))
                pk_gk_thread_free(th);
            else
                r.pending[w++] = th;
        }
        r.n_pending = w;
        size_t complete = r.n_built + r.n_pending;
        if (complete > 0) {
            profkit_error cut = *ctx->err;
            rc = pk_gk_flush_pending(&r, 1, 0, 0);
            if (!rc)
                rc = pk_read_warn_pos(ctx, PROFKIT_ETRUNCATED, cut.line, cut.column,
                                           "%s; kept the %zu complete thread%s before the cut",
                                           cut.message, complete, complete == 1 ? "" : "s");
        }
    }
    pk_gk_counters_resolve(&r);
    if (!rc)
        rc = pk_gk_paused_resolve(&r);
    if (!rc)
        rc = pk_gk_order_threads(&r);
    if (!rc)
        rc = pk_gk_order_counters(&r);
    if (!rc)
        rc = model_categories(&r);
    if (!rc && ipc_names(p) != 0)
        rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    if (!rc && p->n_value_types == 0 && pk_value_type_add(p, "samples", "count") == PROFKIT_NONE)
        rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    if (!rc) {
        /* a processed profile without preprocessedProfileVersion predates version 1 */
        const char *v = flavor == PK_GECKO_PROCESSED ? (r.version[1][0] ? r.version[1] : "0")
                                                     : r.version[0];
        if (*v && pk_meta_add(p, "format_version", v) != 0)
            rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    }
    if (!rc) {
        uint32_t s = profkit_profile_find_value(p, "samples");
        p->default_value = s != PROFKIT_NONE ? s : 0;
    }
    reader_free(&r);
    return rc;
}

/* ---------------------------------------------------------------- locations */

/* ---------------------------------------------------------------- sniff */

static int head_has(const uint8_t *d, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (d[i] == (uint8_t)needle[0] && memcmp(d + i, needle, k) == 0)
            return 1;
    return 0;
}

/* "fileType": "Recorded Performance Data" (blanks allowed around the colon). */
static int is_devtools_wrapper(const uint8_t *d, size_t n)
{
    static const char key[] = "\"fileType\"", value[] = "\"Recorded Performance Data\"";
    size_t kl = sizeof key - 1, vl = sizeof value - 1;
    for (size_t i = 0; i + kl <= n; i++) {
        if (d[i] != '"' || memcmp(d + i, key, kl) != 0)
            continue;
        size_t k = i + kl;
        while (k < n && (d[k] == ' ' || d[k] == '\t' || d[k] == '\n' || d[k] == '\r'))
            k++;
        if (k == n || d[k] != ':')
            continue;
        k++;
        while (k < n && (d[k] == ' ' || d[k] == '\t' || d[k] == '\n' || d[k] == '\r'))
            k++;
        if (k + vl <= n && memcmp(d + k, value, vl) == 0)
            return 1;
    }
    return 0;
}

static size_t skip_blanks(const uint8_t *d, size_t n, size_t i)
{
    while (i < n && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t'))
        i++;
    return i;
}

/* The end of the JSON string opening at d[i] (just past its closing quote),
 * or n when the head ends first. */
static size_t skip_string(const uint8_t *d, size_t n, size_t i)
{
    for (i++; i < n; i++) {
        if (d[i] == '\\')
            i++;
        else if (d[i] == '"')
            return i + 1;
    }
    return n;
}

/* The end of the JSON value starting at d[i] (not checked beyond its
 * brackets and strings), or n when the head ends first. */
static size_t skip_json_value(const uint8_t *d, size_t n, size_t i)
{
    size_t depth = 0;
    while (i < n) {
        uint8_t c = d[i];
        if (c == '"') {
            i = skip_string(d, n, i);
            if (depth == 0)
                return i;
            continue;
        }
        if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return i; /* the enclosing object ends: an empty value */
            if (--depth == 0)
                return i + 1;
        } else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t')) {
            return i; /* the end of a number or literal */
        }
        i++;
    }
    return n;
}

/*
 * The old Firefox DevTools performance panel saves its recording as one
 * object of these keys, "profile" (the raw Gecko profile) among them and
 * "fileType" last, after megabytes of markers and frames; so the wrapper
 * is told by walking the top-level keys, skipping their values: 95 once
 * "fileType": "Recorded Performance Data" or a "profile" object is met
 * among the panel's keys, PK_SNIFF_MORE while the head ends among them, 0
 * (not the wrapper) at any other key before two of the panel's own (a
 * later version's extra key after them is skipped like theirs).
 */
static int devtools_keys(const uint8_t *d, size_t n, size_t i, int complete)
{
    static const char *const panel[] = { "label", "duration", "markers", "frames", "memory",
                                         "ticks", "allocations", "configuration", "systemHost",
                                         "systemClient", "version", "fileType", "profile" };
    static const char file_type[] = "\"Recorded Performance Data\"";
    unsigned seen = 0; /* the panel's own keys met (not version, fileType, profile) */
    i = skip_blanks(d, n, i + 1);
    while (i < n && d[i] == '"') {
        size_t k = i + 1, end = skip_string(d, n, i);
        if (end == n)
            break;
        size_t kl = end - 1 - k;
        int which = -1;
        for (int w = 0; w < (int)(sizeof panel / sizeof panel[0]); w++)
            if (strlen(panel[w]) == kl && memcmp(d + k, panel[w], kl) == 0)
                which = w;
        if (which < 0 && __builtin_popcount(seen) < 2)
            return 0;
        if (which >= 0 && which < 10)
            seen |= 1u << which;
        i = skip_blanks(d, n, end);
        if (i == n)
            break;
        if (d[i] != ':')
            return 0;
        i = skip_blanks(d, n, i + 1);
        if (i == n)
            break;
        if (which == 11 && n - i >= sizeof file_type - 1 &&
            memcmp(d + i, file_type, sizeof file_type - 1) == 0)
            return 95;
        if (which == 12 && d[i] == '{')
            return 95;
        i = skip_blanks(d, n, skip_json_value(d, n, i));
        if (i == n)
            break;
        if (d[i] != ',')
            return 0;
        i = skip_blanks(d, n, i + 1);
    }
    return i == n && !complete ? PK_SNIFF_MORE : 0;
}

/* Whether the head is an object whose top-level keys, up to where it ends
 * inside one's value, are all keys Gecko profiles have before "meta" and
 * "threads" when written in another order (sorted keys put "libs" first;
 * a processed profile may start with "shared"): more of it tells. */
static int gecko_keys_so_far(const uint8_t *d, size_t n, size_t i)
{
    static const char *const keys[] = { "libs", "shared", "counters", "pages", "profilerOverhead",
                                        "processes", "pausedRanges", "profileGatheringLog" };
    for (i++;;) {
        i = skip_blanks(d, n, i);
        if (i == n || d[i] != '"')
            return 0;
        size_t e = skip_string(d, n, i);
        if (e == n)
            return 0;
        int known = 0;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0] && !known; k++)
            known = e - i - 2 == strlen(keys[k]) && memcmp(d + i + 1, keys[k], e - i - 2) == 0;
        if (!known)
            return 0;
        i = skip_blanks(d, n, e);
        if (i == n || d[i] != ':')
            return 0;
        i = skip_json_value(d, n, skip_blanks(d, n, i + 1));
        if (i >= n)
            return 1; /* the head ends inside its value */
        i = skip_blanks(d, n, i);
        if (i == n || d[i] != ',')
            return 0;
        i++;
    }
}

int pk_gecko_sniff(const uint8_t *d, size_t n, pk_gecko_flavor flavor, int complete)
{
    size_t i = skip_blanks(d, n, 0);
    if (i == n || d[i] != '{')
        return 0;
    if (is_devtools_wrapper(d, n)) /* Firefox DevTools' wrapper of a raw profile */
        return flavor == PK_GECKO_RAW ? 95 : 0;
    if (flavor == PK_GECKO_RAW) {
        int w = devtools_keys(d, n, i, complete);
        if (w)
            return w;
    }
    int processed = head_has(d, n, "\"preprocessedProfileVersion\"") || head_has(d, n, "\"stringArray\"");
    int raw = head_has(d, n, "\"schema\"") || head_has(d, n, "\"stringTable\"");
    int shaped = head_has(d, n, "\"meta\"") || head_has(d, n, "\"threads\"");
    if (!shaped)
        return !complete && gecko_keys_so_far(d, n, i) ? PK_SNIFF_MORE : 0;
    if (flavor == PK_GECKO_PROCESSED)
        return processed ? 90 : raw ? 0 : 20;
    return raw && !processed ? 90 : processed ? 0 : 25;
}
