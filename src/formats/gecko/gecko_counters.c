/*
 * gecko_counters.c: the `counters` array of a Gecko or processed Firefox
 * profile (memory and power counters) read into the model's counters.
 *
 * Shapes accepted (each counter an object with name, category,
 * description; processed ones also pid and mainThreadIndex):
 *   raw Gecko, older:  sample_groups: {id, samples: {schema, data}} (or an
 *                      array of such groups)
 *   raw Gecko, newer:  samples: {schema: {time, count, number}, data: [[...]]}
 *   processed, older:  sampleGroups: [{id, samples: {time, count, number, length}}]
 *   processed:         samples: {time | timeDeltas, count, number, length}
 * Only a counter's first sample group is read, as the Firefox Profiler
 * does. Raw times are ms after their process's meta.startTime and get the
 * process's shift, as thread times do; processed times are ms after the
 * root's startTime.
 *
 * The input is hostile: nothing is sized by `length` (the columns grow as
 * values arrive, and `length` must agree with them), every cell is checked
 * to be a number, a schema position is under GK_CN_CELLS, and nesting is
 * bounded (a row or column never holds a container).
 */
#include "formats/gecko/gecko_reader.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { K_CAPTURE, K_LIST, K_COUNTER, K_GROUPS, K_GROUP, K_SAMPLES, K_SCHEMA, K_DATA, K_ROW, K_COLUMN };
enum { KEY_OTHER = -1, KEY_NAME, KEY_CATEGORY, KEY_DESCRIPTION, KEY_PID, KEY_MAIN, KEY_SAMPLES,
       KEY_GROUPS, KEY_DISPLAY, KEY_SCHEMA, KEY_DATA, KEY_LENGTH, KEY_COL /* + CN_* */ };
static const char *const cn_col_names[GK_CN_COLS] = { "time", "timeDeltas", "count", "number" };

static int cn_grow(double **v, size_t *n, size_t *cap, double x)
{
    if (PK_VEC_RESERVE(*v, *n, *cap, 1) != 0)
        return PROFKIT_ENOMEM;
    (*v)[(*n)++] = x;
    return 0;
}

static void counter_reset(gk_counters *c)
{
    pk_buf_clear(&c->name);
    pk_buf_clear(&c->category);
    pk_buf_clear(&c->description);
    pk_buf_clear(&c->display);
    c->pid = -1;
    c->main_thread = -1;
    for (int k = 0; k < GK_CN_COLS; k++) {
        c->n_col[k] = 0;
        c->schema[k] = -1;
    }
    c->n_cells = 0;
    c->n_rows = 0;
    c->have_samples = 0;
    c->have_length = 0;
    c->length = 0;
    c->group = 0;
}

void pk_gk_counters_free(gk_counters *c)
{
    pk_buf_free(&c->name);
    pk_buf_free(&c->category);
    pk_buf_free(&c->description);
    pk_buf_free(&c->display);
    for (int k = 0; k < GK_CN_COLS; k++)
        free(c->col[k]);
    free(c->cells);
    free(c->added);
    free(c->mains);
    memset(c, 0, sizeof *c);
}

static int push(gk_reader *r, pk_json *j, int kind)
{
    gk_counters *c = &r->cn;
    if (c->depth >= GK_CN_DEPTH)
        return pk_json_fail(j, PROFKIT_ECORRUPT, "counters[%zu]: nested deeper than %d levels",
                            c->elems[0] ? c->elems[0] - 1 : 0, GK_CN_DEPTH);
    c->kind[c->depth] = (uint8_t)kind;
    c->key[c->depth] = KEY_OTHER;
    c->elems[c->depth] = 0;
    c->depth++;
    return 0;
}

int pk_gk_counters_begin(gk_reader *r, pk_json *j, const pk_json_event *ev)
{
    if (ev->type == PK_JSON_NULL)
        return 0;
    if (ev->type != PK_JSON_ARRAY_START)
        return pk_json_fail(j, PROFKIT_ECORRUPT, "counters: expected an array, found %s",
                            pk_json_type_name(ev->type));
    gk_counters *c = &r->cn;
    c->active = 1;
    c->depth = 0;
    c->level = r->n_prof ? r->n_prof - 1 : 0;
    return push(r, j, K_LIST);
}

/* The time shift of profile level `level`: the sum of startTime
 * differences down the chain (as thread times get). */
static double level_shift(const gk_reader *r, size_t level)
{
    double shift = 0;
    for (size_t k = 1; k <= level && k < r->n_prof; k++)
        if (r->prof[k].have_start && r->prof[k - 1].have_start)
            shift += r->prof[k].start - r->prof[k - 1].start;
    return shift;
}

static uint32_t intern_buf(profkit_profile *p, pk_buf *b)
{
    if (b->len == 0)
        return 0;
    return profkit_string_intern(p, b->buf, b->len);
}

/* The counter object closed: its samples go into the model. */
static int counter_done(gk_reader *r, pk_json *j)
{
    gk_counters *c = &r->cn;
    size_t idx = c->elems[0] - 1;
    size_t n = 0;
    int raw = c->n_rows > 0 || c->schema[CN_TIME] >= 0 || c->schema[CN_COUNT] >= 0;
    if (raw) {
        if (c->n_rows > 0 && (c->schema[CN_TIME] < 0 || c->schema[CN_COUNT] < 0))
            return pk_json_fail(j, PROFKIT_ECORRUPT,
                                "counters[%zu].samples: rows (data) without a time and count in the schema",
                                idx);
        n = c->n_rows;
    } else {
        int tc = c->n_col[CN_TIME] ? CN_TIME : CN_DELTAS;
        n = c->n_col[tc];
        for (int k = 0; k < GK_CN_COLS; k++) {
            if (k == CN_TIME || k == CN_DELTAS || c->n_col[k] == 0 || c->n_col[k] == n)
                continue;
            return pk_json_fail(j, PROFKIT_ECORRUPT, "counters[%zu].samples: %s has %zu values, %s has %zu",
                                idx, cn_col_names[k], c->n_col[k], cn_col_names[tc], n);
        }
        if (n > 0 && c->n_col[CN_COUNT] == 0)
            return pk_json_fail(j, PROFKIT_ECORRUPT, "counters[%zu].samples: %s has %zu values, %s has %zu",
                                idx, cn_col_names[CN_COUNT], (size_t)0, cn_col_names[tc], n);
        if (c->have_length && c->length != (double)n)
            return pk_json_fail(j, PROFKIT_ECORRUPT, "counters[%zu].samples: length %g, but the columns hold %zu",
                                idx, c->length, n);
    }
    profkit_profile *p = r->p;
    profkit_counter pc;
    memset(&pc, 0, sizeof pc);
    pc.name = intern_buf(p, &c->name);
    pc.category = intern_buf(p, &c->category);
    pc.description = intern_buf(p, &c->description);
    if (pk_buf_error(&c->display))
        return pk_gk_oom(r);
    pc.display = intern_buf(p, &c->display);
    pc.thread = PROFKIT_NONE;
    pc.pid = c->pid;
    if (pc.name == PROFKIT_NONE || pc.category == PROFKIT_NONE || pc.description == PROFKIT_NONE ||
        pc.display == PROFKIT_NONE)
        return pk_gk_oom(r);
    uint32_t id = profkit_counter_add(p, &pc);
    if (id == PROFKIT_NONE)
        return pk_gk_oom(r);
    /* what resolves its thread once every thread is read */
    if (PK_VEC_RESERVE(c->added, c->n_added, c->cap_added, 1) != 0)
        return pk_gk_oom(r);
    c->added[c->n_added++] =
        (gk_cn_added){ id, c->level, r->n_prof ? r->prof[c->level].serial : 0, c->main_thread };
    double shift = level_shift(r, c->level), t = 0;
    for (size_t i = 0; i < n; i++) {
        double tm, cnt, num;
        if (raw) {
            const double *row = &c->cells[i * GK_CN_CELLS];
            tm = row[c->schema[CN_TIME]];
            cnt = row[c->schema[CN_COUNT]];
            num = c->schema[CN_NUMBER] >= 0 ? row[c->schema[CN_NUMBER]] : 0;
        } else {
            if (c->n_col[CN_TIME])
                tm = c->col[CN_TIME][i];
            else
                tm = t += c->col[CN_DELTAS][i];
            cnt = c->col[CN_COUNT][i];
            num = c->n_col[CN_NUMBER] ? c->col[CN_NUMBER][i] : 0;
        }
        double ns = (tm + shift) * 1e6;
        /* a null cell (NaN) or one out of range: the time in ms must fit
         * in ns, the count in 64 bits */
        if (!(ns > -9.2e18 && ns < 9.2e18) || !(cnt > -9.2e18 && cnt < 9.2e18)) {
            int time_bad = !(ns > -9.2e18 && ns < 9.2e18);
            double v = time_bad ? tm : cnt;
            char found[32];
            if (isnan(v))
                snprintf(found, sizeof found, "null");
            else
                snprintf(found, sizeof found, "%g", v);
            return pk_json_fail(j, PROFKIT_ECORRUPT, "counters[%zu].samples row %zu: %s: expected a number in range, found %s",
                                idx, i, time_bad ? "time" : "count", found);
        }
        if (!(num > -9.2e18 && num < 9.2e18))
            num = 0;
        if (profkit_counter_sample_add(p, (int64_t)llround(ns), (int64_t)llround(cnt),
                                       (int64_t)llround(num)) != 0)
            return pk_gk_oom(r);
    }
    return 0;
}

static int counter_key(const pk_json_event *ev)
{
    static const char *const keys[] = { "name", "category", "description", "pid", "mainThreadIndex",
                                        "samples", "sample_groups", "sampleGroups", "display" };
    for (int i = 0; i < 9; i++)
        if (pk_json_key_is(ev, keys[i]))
            return i == 7 ? KEY_GROUPS : i == 8 ? KEY_DISPLAY : i;
    return KEY_OTHER;
}

static int samples_key(const pk_json_event *ev)
{
    if (pk_json_key_is(ev, "schema")) return KEY_SCHEMA;
    if (pk_json_key_is(ev, "data")) return KEY_DATA;
    if (pk_json_key_is(ev, "length")) return KEY_LENGTH;
    for (int k = 0; k < GK_CN_COLS; k++)
        if (pk_json_key_is(ev, cn_col_names[k]))
            return KEY_COL + k;
    return KEY_OTHER;
}

static int set_text(gk_reader *r, pk_buf *b, const pk_json_event *ev)
{
    if (ev->type != PK_JSON_STRING)
        return 0; /* a name that is no string is no name */
    pk_buf_clear(b);
    pk_buf_put(b, ev->str, ev->len);
    return pk_buf_error(b) ? pk_gk_oom(r) : 0;
}

static int skip(pk_json *j, const pk_json_event *ev)
{
    if (ev->type == PK_JSON_MAP_START || ev->type == PK_JSON_ARRAY_START)
        pk_json_skip_value(j);
    return 0;
}

static int on_value(gk_reader *r, pk_json *j, const pk_json_event *ev)
{
    gk_counters *c = &r->cn;
    size_t d = c->depth - 1;
    int key = c->key[d];
    size_t idx = c->elems[0] ? c->elems[0] - 1 : 0;
    switch (c->kind[d]) {
    case K_LIST:
        c->elems[0]++;
        if (ev->type != PK_JSON_MAP_START)
            return pk_json_fail(j, PROFKIT_ECORRUPT, "counters[%zu]: expected an object, found %s",
                                c->elems[0] - 1, pk_json_type_name(ev->type));
        counter_reset(c);
        return push(r, j, K_COUNTER);
    case K_COUNTER:
        switch (key) {
        case KEY_NAME: return set_text(r, &c->name, ev);
        case KEY_CATEGORY: return set_text(r, &c->category, ev);
        case KEY_DESCRIPTION: return set_text(r, &c->description, ev);
        case KEY_PID: {
            int64_t v = -1;
            if (ev->type == PK_JSON_STRING || ev->type == PK_JSON_NUMBER) {
                size_t i = 0;
                v = 0;
                for (; i < ev->len && i < 18 && ev->str[i] >= '0' && ev->str[i] <= '9'; i++)
                    v = v * 10 + (ev->str[i] - '0');
                if (i == 0 || i != ev->len)
                    v = -1;
            }
            c->pid = v;
            return skip(j, ev);
        }
        case KEY_MAIN:
            if (ev->type == PK_JSON_NUMBER) {
                double v = pk_json_num(ev);
                c->main_thread = v >= 0 && v < 4294967295.0 && v == floor(v) ? v : -1;
            }
            return skip(j, ev);
        case KEY_SAMPLES:
            if (ev->type == PK_JSON_MAP_START && !c->have_samples) {
                c->have_samples = 1;
                return push(r, j, K_SAMPLES);
            }
            return skip(j, ev);
        case KEY_DISPLAY: /* kept as JSON text (an object only) */
            if (ev->type != PK_JSON_MAP_START)
                return 0;
            pk_buf_clear(&c->display);
            pk_json_text_event(&c->display, ev);
            return push(r, j, K_CAPTURE);
        case KEY_GROUPS:
            if (c->have_samples)
                return skip(j, ev);
            if (ev->type == PK_JSON_MAP_START)
                return push(r, j, K_GROUP);
            if (ev->type == PK_JSON_ARRAY_START)
                return push(r, j, K_GROUPS);
            return 0;
        default: return skip(j, ev);
        }
    case K_GROUPS:
        if (ev->type == PK_JSON_MAP_START && c->group++ == 0)
            return push(r, j, K_GROUP);
        return skip(j, ev); /* the first group only, as the Firefox Profiler */
    case K_GROUP:
        if (key == KEY_SAMPLES && ev->type == PK_JSON_MAP_START && !c->have_samples) {
            c->have_samples = 1;
            return push(r, j, K_SAMPLES);
        }
        return skip(j, ev);
    case K_SAMPLES:
        if (key == KEY_SCHEMA && ev->type == PK_JSON_MAP_START)
            return push(r, j, K_SCHEMA);
        if (key == KEY_DATA && ev->type == PK_JSON_ARRAY_START)
            return push(r, j, K_DATA);
        if (key >= KEY_COL && ev->type == PK_JSON_ARRAY_START) {
            int rc = push(r, j, K_COLUMN);
            c->key[c->depth - 1] = key; /* the column being read */
            c->n_col[key - KEY_COL] = 0;
            return rc;
        }
        if (key == KEY_LENGTH && ev->type == PK_JSON_NUMBER) {
            c->have_length = 1;
            c->length = pk_json_num(ev);
            return 0;
        }
        if (key != KEY_OTHER && key != KEY_LENGTH)
            return pk_json_fail(j, PROFKIT_ECORRUPT, "counters[%zu].samples.%s: expected %s, found %s", idx,
                                key == KEY_SCHEMA ? "schema" : key == KEY_DATA ? "data" : cn_col_names[key - KEY_COL],
                                key == KEY_SCHEMA ? "an object" : "an array", pk_json_type_name(ev->type));
        return skip(j, ev);
    case K_SCHEMA: {
        if (key < KEY_COL || key == KEY_COL + CN_DELTAS)
            return skip(j, ev);
        double v = ev->type == PK_JSON_NUMBER ? pk_json_num(ev) : -1;
        if (!(v >= 0 && v < GK_CN_CELLS && v == floor(v)))
            return pk_json_fail(j, PROFKIT_ECORRUPT,
                                "counters[%zu].samples.schema.%s: expected a position from 0 to %d",
                                idx, cn_col_names[key - KEY_COL], GK_CN_CELLS - 1);
        c->schema[key - KEY_COL] = (int)v;
        return 0;
    }
    case K_DATA:
        if (ev->type != PK_JSON_ARRAY_START)
            return pk_json_fail(j, PROFKIT_ECORRUPT, "counters[%zu].samples.data: expected a row (an array), found %s",
                                idx, pk_json_type_name(ev->type));
        if (PK_VEC_RESERVE(c->cells, c->n_cells, c->cap_cells, GK_CN_CELLS) != 0)
            return pk_gk_oom(r);
        for (int k = 0; k < GK_CN_CELLS; k++)
            c->cells[c->n_cells + k] = NAN;
        c->n_cells += GK_CN_CELLS;
        c->n_rows++;
        return push(r, j, K_ROW);
    case K_ROW: {
        size_t pos = c->elems[d]++;
        if (ev->type != PK_JSON_NUMBER && ev->type != PK_JSON_NULL)
            return pk_json_fail(j, PROFKIT_ECORRUPT, "counters[%zu].samples.%s row %zu: expected a number, found %s",
                                idx, "data", c->n_rows - 1, pk_json_type_name(ev->type));
        if (pos < GK_CN_CELLS && ev->type == PK_JSON_NUMBER)
            c->cells[(c->n_rows - 1) * GK_CN_CELLS + pos] = pk_json_num(ev);
        return 0;
    }
    case K_COLUMN: {
        int k = key - KEY_COL;
        if (ev->type != PK_JSON_NUMBER && !(ev->type == PK_JSON_NULL && k == CN_NUMBER))
            return pk_json_fail(j, PROFKIT_ECORRUPT, "counters[%zu].samples.%s row %zu: expected a number, found %s",
                                idx, cn_col_names[k], c->n_col[k], pk_json_type_name(ev->type));
        if (cn_grow(&c->col[k], &c->n_col[k], &c->cap_col[k],
                    ev->type == PK_JSON_NUMBER ? pk_json_num(ev) : 0) != 0)
            return pk_gk_oom(r);
        return 0;
    }
    default: return skip(j, ev);
    }
}

int pk_gk_counters_event(gk_reader *r, pk_json *j, const pk_json_event *ev)
{
    gk_counters *c = &r->cn;
    size_t d = c->depth - 1;
    if (c->kind[d] == K_CAPTURE) { /* a display object, as text */
        pk_json_text_event(&c->display, ev);
        if (ev->type == PK_JSON_MAP_START || ev->type == PK_JSON_ARRAY_START)
            return push(r, j, K_CAPTURE);
        if (ev->type == PK_JSON_MAP_END || ev->type == PK_JSON_ARRAY_END)
            c->depth--;
        return 0;
    }
    if (ev->type == PK_JSON_KEY) {
        switch (c->kind[d]) {
        case K_COUNTER: c->key[d] = (int8_t)counter_key(ev); break;
        case K_GROUP: c->key[d] = pk_json_key_is(ev, "samples") ? KEY_SAMPLES : KEY_OTHER; break;
        case K_SAMPLES:
        case K_SCHEMA: c->key[d] = (int8_t)samples_key(ev); break;
        default: break;
        }
        return 0;
    }
    if (ev->type == PK_JSON_MAP_END || ev->type == PK_JSON_ARRAY_END) {
        int kind = c->kind[d];
        c->depth--;
        if (kind == K_LIST)
            c->active = 0;
        else if (kind == K_COUNTER)
            return counter_done(r, j);
        return 0;
    }
    return on_value(r, j, ev);
}

int pk_gk_counters_thread_built(gk_reader *r, const gk_thread *th, uint32_t thread)
{
    gk_counters *c = &r->cn;
    if (!th->name || strcmp(th->name, "GeckoMain") != 0)
        return 0;
    for (size_t i = 0; i < c->n_mains; i++)
        if (c->mains[i].serial == th->serial)
            return 0; /* the first is the main thread */
    if (PK_VEC_RESERVE(c->mains, c->n_mains, c->cap_mains, 1) != 0)
        return PROFKIT_ENOMEM;
    c->mains[c->n_mains++] = (struct gk_cn_main){ th->serial, thread };
    return 0;
}

/*
 * A processed counter's thread is its mainThreadIndex (when that thread's
 * pid is the counter's or unknown), else its pid's GeckoMain (else the
 * pid's first thread); a raw counter's is the GeckoMain of the profile it
 * came in, and its pid that thread's (the Firefox Profiler drops a raw
 * counter whose process has no GeckoMain: it keeps no thread here).
 */
void pk_gk_counters_resolve(gk_reader *r)
{
    gk_counters *c = &r->cn;
    profkit_profile *p = r->p;
    for (size_t i = 0; i < c->n_added; i++) {
        profkit_counter *pc = &p->counters[c->added[i].id];
        double mt = c->added[i].main_thread;
        if (r->flavor == PK_GECKO_RAW) {
            for (size_t k = 0; k < c->n_mains; k++)
                if (c->mains[k].serial == c->added[i].serial && c->mains[k].thread < p->n_threads) {
                    pc->thread = c->mains[k].thread;
                    if (pc->pid < 0)
                        pc->pid = p->threads[pc->thread].pid;
                }
            continue;
        }
        if (mt >= 0 && mt < (double)p->n_threads &&
            (pc->pid < 0 || p->threads[(size_t)mt].pid < 0 || p->threads[(size_t)mt].pid == pc->pid)) {
            pc->thread = (uint32_t)mt;
            continue;
        }
        if (pc->pid < 0)
            continue;
        for (size_t t = 0; t < p->n_threads; t++) {
            if (p->threads[t].pid != pc->pid)
                continue;
            if (pc->thread == PROFKIT_NONE || strcmp(pk_str(p, p->threads[t].name), "GeckoMain") == 0)
                pc->thread = (uint32_t)t;
            if (strcmp(pk_str(p, p->threads[t].name), "GeckoMain") == 0)
                break;
        }
    }
}

/* ---------------------------------------------------------------- jank */

/*
 * Jank as the Firefox Profiler derives it from the samples' event delay
 * (or, in older profiles, responsiveness): the delay grows while the event
 * loop is blocked and falls when it runs again; when it falls from at least
 * GK_JANK_MS, the blocked span (the last time minus its delay, to that
 * time) is a jank; a thread whose last delay is that high ends in one.
 */
#define GK_JANK_MS 50.0

static int jank_add(gk_thread *th)
{
    if (PK_VEC_RESERVE(th->janks, th->n_janks, th->cap_janks, 2) != 0)
        return PROFKIT_ENOMEM;
    th->janks[th->n_janks++] = th->jank_time - th->jank_last;
    th->janks[th->n_janks++] = th->jank_time;
    return 0;
}

int pk_gk_jank_sample(gk_thread *th, double time_ms, double delay)
{
    if (!th || isnan(delay) || !(delay > -1e300 && delay < 1e300))
        return 0; /* no delay in this sample: skipped */
    int rc = 0;
    if (delay < th->jank_last && th->jank_last >= GK_JANK_MS)
        rc = jank_add(th);
    th->jank_last = delay;
    th->jank_time = time_ms;
    return rc;
}

int pk_gk_jank_end(gk_thread *th)
{
    int rc = th && th->jank_last >= GK_JANK_MS ? jank_add(th) : 0;
    if (th)
        th->jank_last = 0;
    return rc;
}

int pk_gk_jank_markers(gk_reader *r, gk_thread *th, uint32_t thread, double shift)
{
    if (pk_gk_jank_end(th) != 0)
        return pk_gk_oom(r);
    if (th->n_janks == 0 || r->ctx->opts->skip_markers)
        return 0;
    profkit_profile *p = r->p;
    uint32_t name = profkit_string_intern_cstr(p, "Jank");
    uint32_t cat = profkit_string_intern_cstr(p, "Other");
    uint32_t data = profkit_string_intern_cstr(p, "{\"type\":\"Jank\"}");
    if (name == PROFKIT_NONE || cat == PROFKIT_NONE || data == PROFKIT_NONE)
        return pk_gk_oom(r);
    for (size_t i = 0; i + 1 < th->n_janks; i += 2) {
        double a = (th->janks[i] + shift) * 1e6, b = (th->janks[i + 1] + shift) * 1e6;
        if (!(a > -9.2e18 && a < 9.2e18 && b > -9.2e18 && b < 9.2e18))
            continue; /* the sample's time was checked: only a huge delay is out of range */
        profkit_marker m;
        memset(&m, 0, sizeof m);
        m.start = (int64_t)llround(a);
        m.end = (int64_t)llround(b);
        m.thread = thread;
        m.name = name;
        m.category = cat;
        m.payload = data;
        m.phase = PROFKIT_MARKER_INTERVAL;
        if (pk_marker_add(p, &m) != 0)
            return pk_gk_oom(r);
    }
    return 0;
}
