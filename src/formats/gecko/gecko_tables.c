/*
 * gecko_tables.c: what the streaming reader (gecko_common.c) and the thread
 * builder (gecko_build.c) both use: the storage of cells, tables and string
 * tables, and the parsing of a raw frame's location string. It calls
 * neither of them, so the reader calls the builder and the builder calls
 * only this file: no circle. The rules for location strings are in
 * docs/formats/gecko.md.
 */
#include "formats/gecko/gecko_reader.h"

#include <math.h>

#include "io/json_fields.h"
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

int pk_gk_oom(gk_reader *r)
{
    if (r->j) /* the position matters when this is a limit of the model's */
        return pk_json_fail(r->j, PROFKIT_ENOMEM, "out of memory");
    return pk_read_fail(r->ctx, PROFKIT_ENOMEM, -1, "out of memory");
}

void pk_gk_col_free(gk_col *c)
{
    free(c->v);
    memset(c, 0, sizeof *c);
}

gk_col *pk_gk_cols_make(gk_table *t)
{
    if (!t->col)
        t->col = calloc(GK_SLOTS + 1, sizeof *t->col);
    return t->col;
}

void pk_gk_table_free(gk_table *t)
{
    for (int i = 0; t->col && i <= GK_SLOTS; i++)
        pk_gk_col_free(&t->col[i]);
    free(t->col);
    pk_gk_col_free(&t->pre);
    free(t->pre_start);
    free(t->pos_col);
    memset(t, 0, sizeof *t);
}

void pk_gk_strings_free(gk_strings *s)
{
    free(s->buf);
    free(s->off);
    memset(s, 0, sizeof *s);
}

void pk_gk_tables_free(gk_tables *t)
{
    for (int i = 0; i < T_COUNT; i++) {
        if (t->t[i])
            pk_gk_table_free(t->t[i]);
        free(t->t[i]);
    }
    pk_gk_strings_free(&t->strings);
    pk_gk_strings_free(&t->cache_strings);
    pk_buf_free(&t->text);
    free(t->str_ids);
    free(t->locs); /* and loc_files, in the same block */
    free(t->fnames);
    free(t->func_ids);
    free(t->frame_ids);
    free(t->srows);
    free(t->touched);
    memset(t, 0, sizeof *t);
}

void pk_gk_thread_free(gk_thread *th)
{
    if (!th)
        return;
    if (th->tab)
        pk_gk_tables_free(th->tab);
    free(th->tab);
    free(th->name);
    free(th->process_name);
    free(th->process_type);
    free(th->paused);
    free(th->janks);
    free(th);
}

char *pk_gk_dup_len(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

const char *pk_gk_cell_text(const gk_tables *o, double d, size_t *n)
{
    size_t off = (size_t)(bits_of(d) & ~BOX_MASK);
    uint32_t len;
    if (off + 4 > o->text.len)
        return NULL;
    memcpy(&len, o->text.buf + off, 4);
    *n = len;
    return o->text.buf + off + 4;
}

int pk_gk_cpu_cell(gk_reader *r, size_t row, double d)
{
    /* a number; null (the first sample's) or another cell: none */
    if (cell_is_null(d) || cell_is_text(d) || !(d > -9.2e18 && d < 9.2e18))
        return 0;
    return pk_sample_set_cpu(r->p, row, (int64_t)llround(d)) != 0 ? pk_gk_oom(r) : 0;
}

/* Drops streamed rows that never got a stack cell; they are the newest
 * rows. A row whose stack is null (PK_GK_NULL_STACK) is a sample and stays. */
void pk_gk_compact_streamed(gk_reader *r, gk_table *t)
{
    profkit_profile *p = r->p;
    if (!t->stream || t->count == 0 || t->first + t->count != p->n_samples)
        return;
    size_t nv = p->n_value_types, w = t->first;
    for (size_t k = t->first; k < t->first + t->count; k++) {
        if (p->sample_stack[k] == PROFKIT_NONE)
            continue;
        if (w != k) {
            p->sample_stack[w] = p->sample_stack[k];
            p->sample_thread[w] = p->sample_thread[k];
            p->sample_time[w] = p->sample_time[k];
            if (p->sample_cpu)
                p->sample_cpu[w] = p->sample_cpu[k];
            memmove(p->sample_values + w * nv, p->sample_values + k * nv, nv * sizeof(int64_t));
        }
        w++;
    }
    p->n_samples = w;
    t->count = w - t->first;
}

static int all_digits(const char *s, size_t n)
{
    if (n == 0 || n > 9)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

static uint32_t digits_value(const char *s, size_t n)
{
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (uint32_t)(s[i] - '0');
    return v;
}

void pk_gecko_parse_location(const char *s, size_t len, pk_gecko_location *out)
{
    memset(out, 0, sizeof *out);
    out->name = s;
    out->name_len = len;
    /* 0x... : an address, labelled with the string itself */
    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && len <= 18) {
        uint64_t a = 0;
        size_t i = 2;
        for (; i < len; i++) {
            char c = s[i];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0)
                break;
            a = a << 4 | (uint64_t)d;
        }
        if (i == len) {
            out->is_address = 1;
            out->address = a;
            return;
        }
    }
    size_t n = len;
    /* Gecko 32+: "name (url:1:2)[7]" - the trailing [source index] goes */
    if (n > 2 && s[n - 1] == ']') {
        size_t k = n - 1;
        while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
            k--;
        if (k > 1 && k < n - 1 && s[k - 1] == '[' && s[k - 2] == ')')
            n = k - 1;
    }
    if (n < 4 || s[n - 1] != ')')
        return;
    /* the last " (" opens the location */
    size_t open = SIZE_MAX;
    for (size_t i = n - 1; i-- > 1;) {
        if (s[i] == '(' && s[i - 1] == ' ') {
            open = i;
            break;
        }
    }
    if (open == SIZE_MAX || open < 2)
        return;
    const char *in = s + open + 1;
    size_t in_len = n - 1 - (open + 1);
    size_t name_len = open - 1;
    if (in_len > 3 && memcmp(in, "in ", 3) == 0) {
        out->name_len = name_len;
        out->module = in + 3;
        out->module_len = in_len - 3;
        return;
    }
    /* URL:LINE or URL:LINE:COL */
    size_t c1 = SIZE_MAX;
    for (size_t i = in_len; i-- > 0;)
        if (in[i] == ':') {
            c1 = i;
            break;
        }
    if (c1 == SIZE_MAX || !all_digits(in + c1 + 1, in_len - c1 - 1))
        return;
    uint32_t a = digits_value(in + c1 + 1, in_len - c1 - 1), col = 0, line = a;
    size_t url_end = c1;
    size_t c2 = SIZE_MAX;
    for (size_t i = c1; i-- > 0;)
        if (in[i] == ':') {
            c2 = i;
            break;
        }
    if (c2 != SIZE_MAX && all_digits(in + c2 + 1, c1 - c2 - 1)) {
        line = digits_value(in + c2 + 1, c1 - c2 - 1);
        col = a;
        url_end = c2;
    }
    if (url_end == 0)
        return;
    out->name_len = name_len;
    out->file = in;
    out->file_len = url_end;
    out->line = line;
    out->column = col;
}

/* ms (a payload's time) as ns: 1, or 0 when out of range. */
static int payload_ns(const pk_json_field *f, int64_t *out)
{
    double ms;
    if (!pk_json_field_number(f, &ms))
        return 0;
    double ns = ms * 1e6;
    if (!(ns > -9.2e18 && ns < 9.2e18))
        return 0;
    *out = (int64_t)llround(ns);
    return 1;
}

/* The category the Firefox Profiler gives a marker that has none (its
 * upgrade of old profiles): by its payload's type (a tracing payload's
 * category; a DOMEvent's, whose old payloads had the event as their
 * type), else by its name; "Other" for any other. */
static const char *const default_category[][2] = {
    { "DOMEvent", "DOM" }, { "Navigation::DOMComplete", "DOM" }, { "Navigation::DOMInteractive", "DOM" },
    { "Navigation::Start", "DOM" }, { "UserTiming", "DOM" }, { "CC", "GC / CC" }, { "GCMajor", "GC / CC" },
    { "GCMinor", "GC / CC" }, { "GCSlice", "GC / CC" }, { "Paint", "Graphics" },
    { "VsyncTimestamp", "Graphics" }, { "CompositorScreenshot", "Graphics" },
    { "JS allocation", "JavaScript" }, { "Styles", "Layout" },
    { "nsRefreshDriver::Tick waiting for paint", "Layout" }, { "Navigation", "Network" },
    { "Network", "Network" },
};

static int marker_category(profkit_profile *p, profkit_marker *m, const char *s, size_t n)
{
    pk_json_field f;
    const char *key = pk_str(p, m->name);
    size_t kl = strlen(key);
    if (pk_json_find_field(s, n, "type", &f) && pk_json_field_string(&f, &key, &kl) && kl == 7 &&
        memcmp(key, "tracing", 7) == 0) {
        if (!pk_json_find_field(s, n, "category", &f) || !pk_json_field_string(&f, &key, &kl))
            key = "", kl = 0;
    }
    else if (strcmp(pk_str(p, m->name), "DOMEvent") == 0)
        key = "DOMEvent", kl = 8; /* old profiles: the type was the event's (upgraded to DOMEvent) */
    const char *cat = "Other";
    for (size_t i = 0; i < sizeof default_category / sizeof default_category[0]; i++)
        if (strlen(default_category[i][0]) == kl && memcmp(default_category[i][0], key, kl) == 0)
            cat = default_category[i][1];
    m->category = profkit_string_intern_cstr(p, cat);
    return m->category == PROFKIT_NONE ? PROFKIT_ENOMEM : 0;
}

int pk_gk_marker_complete(profkit_profile *p, profkit_marker *m)
{
    if (m->category == 0) {
        const char *s = m->payload ? pk_str(p, m->payload) : NULL;
        if (marker_category(p, m, s, s ? strlen(s) : 0) != 0)
            return PROFKIT_ENOMEM;
    }
    if (m->phase == PK_GK_NO_PHASE) {
        /* No phase column (Gecko before version 20, processed before 30):
         * the Firefox Profiler's upgrade. A tracing payload's interval
         * "start" or "end" makes an interval's start or end at the time;
         * a payload with numbers startTime != endTime, an interval of
         * those; anything else, an instant at the time. */
        int64_t t = m->start != PROFKIT_NO_TIME ? m->start : m->end;
        const char *s = m->payload ? pk_str(p, m->payload) : NULL;
        size_t n = s ? strlen(s) : 0;
        pk_json_field f;
        const char *v;
        size_t vl;
        m->phase = PROFKIT_MARKER_INSTANT;
        m->start = t;
        m->end = PROFKIT_NO_TIME;
        if (pk_json_find_field(s, n, "type", &f) && pk_json_field_string(&f, &v, &vl) && vl == 7 &&
            memcmp(v, "tracing", 7) == 0) {
            if (pk_json_find_field(s, n, "interval", &f) && pk_json_field_string(&f, &v, &vl)) {
                if (vl == 5 && memcmp(v, "start", 5) == 0) {
                    m->phase = PROFKIT_MARKER_START;
                } else if (vl == 3 && memcmp(v, "end", 3) == 0) {
                    m->phase = PROFKIT_MARKER_END;
                    m->start = PROFKIT_NO_TIME;
                    m->end = t;
                }
            }
            return 0;
        }
        pk_json_field fs, fe;
        int64_t a, b;
        if (pk_json_find_field(s, n, "startTime", &fs) && pk_json_find_field(s, n, "endTime", &fe) &&
            payload_ns(&fs, &a) && payload_ns(&fe, &b) && a != b) {
            m->phase = PROFKIT_MARKER_INTERVAL;
            m->start = a;
            m->end = b;
        }
        return 0;
    }
    switch (m->phase) {
    case PROFKIT_MARKER_INSTANT:
    case PROFKIT_MARKER_START: m->end = PROFKIT_NO_TIME; return 0;
    case PROFKIT_MARKER_END: m->start = PROFKIT_NO_TIME; return 0;
    case PROFKIT_MARKER_INTERVAL: return 0;
    default: return PROFKIT_ECORRUPT;
    }
}
