/*
 * markers_report.c: `profkit markers`, the markers as the Firefox Profiler
 * shows them, per name with duration statistics or listed in time order;
 * computed by pk_markers_shown and pk_marker_groups (analysis/markers.c).
 */
#include "analysis/markers.h"
#include "io/json_fields.h"
#include "report/rjson.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The same with three decimals, for the text. */
static void text_ms(pk_buf *out, int64_t ns, int width)
{
    pk_buf_printf(out, "%*.3f", width, (double)ns / 1e6);
}

static void put_mean_ms(pk_buf *out, double ns)
{
    pk_buf_printf(out, "%.9g", ns / 1e6);
}

static const char *category_name(const profkit_profile *p, uint32_t c)
{
    return c ? pk_str(p, c) : "Other";
}

/* The payload's "type" (s, n), or 0. */
static int payload_type(const profkit_profile *p, uint32_t payload, const char **s, size_t *n)
{
    if (!payload)
        return 0;
    const char *t = pk_str(p, payload);
    pk_json_field f;
    return pk_json_find_field(t, strlen(t), "type", &f) && pk_json_field_string(&f, s, n);
}

static void text_thread(pk_buf *out, const profkit_profile *p, uint32_t t, size_t n)
{
    const profkit_thread *th = &p->threads[t];
    pk_buf_printf(out, "thread %u: %s", t, pk_str(p, th->name));
    const char *proc = pk_str(p, th->process_name);
    if (*proc || th->pid >= 0 || th->tid >= 0) {
        pk_buf_puts(out, " (");
        const char *sep = "";
        if (*proc)
            pk_buf_printf(out, "%s", proc), sep = ", ";
        if (th->pid >= 0)
            pk_buf_printf(out, "%spid %" PRId64, sep, th->pid), sep = ", ";
        if (th->tid >= 0)
            pk_buf_printf(out, "%stid %" PRId64, sep, th->tid);
        pk_buf_puts(out, ")");
    }
    pk_buf_printf(out, ": %zu marker%s\n", n, n == 1 ? "" : "s");
}

static int report_list(pk_buf *out, const profkit_profile *p, const pk_shown_markers *s, int json)
{
    if (json) {
        pk_buf_puts(out, ",\"markers\":[");
        for (size_t i = 0; i < s->n; i++) {
            const pk_shown_marker *m = &s->m[i];
            pk_buf_puts(out, i ? ",\n{\"thread\":" : "\n{\"thread\":");
            pk_rjson_thread(out, p, m->thread);
            pk_buf_puts(out, ",\"name\":");
            pk_rjson_str(out, pk_str(p, m->name));
            pk_buf_puts(out, ",\"category\":");
            pk_rjson_str(out, category_name(p, m->category));
            pk_buf_puts(out, ",\"start\":");
            pk_rjson_ms(out, m->start);
            if (m->end != PROFKIT_NO_TIME) {
                pk_buf_puts(out, ",\"duration\":");
                pk_rjson_ms(out, m->end - m->start);
            }
            const char *ty;
            size_t tn;
            pk_buf_puts(out, ",\"type\":");
            if (payload_type(p, m->payload, &ty, &tn))
                pk_buf_printf(out, "\"%.*s\"", (int)tn, ty); /* as the payload's JSON has it */
            else
                pk_buf_puts(out, "null");
            pk_buf_puts(out, ",\"data\":");
            const char *d = m->payload ? pk_str(p, m->payload) : "";
            if (*d == '{')
                pk_buf_puts(out, d);
            else
                pk_buf_puts(out, "null");
            pk_buf_putc(out, '}');
        }
        pk_buf_puts(out, "]}\n");
        return 0;
    }
    for (size_t i = 0; i < s->n;) {
        uint32_t t = s->m[i].thread;
        size_t j = i;
        while (j < s->n && s->m[j].thread == t)
            j++;
        if (i)
            pk_buf_putc(out, '\n');
        text_thread(out, p, t, j - i);
        pk_buf_printf(out, "%14s %14s  %-16s %s\n", "start (ms)", "duration (ms)", "category", "name [type]");
        for (; i < j; i++) {
            const pk_shown_marker *m = &s->m[i];
            text_ms(out, m->start, 14);
            if (m->end != PROFKIT_NO_TIME) {
                pk_buf_putc(out, ' ');
                text_ms(out, m->end - m->start, 14);
            } else {
                pk_buf_printf(out, " %14s", "-");
            }
            pk_buf_printf(out, "  %-16s %s", category_name(p, m->category), pk_str(p, m->name));
            const char *ty;
            size_t tn;
            if (payload_type(p, m->payload, &ty, &tn))
                pk_buf_printf(out, " [%.*s]", (int)tn, ty);
            pk_buf_putc(out, '\n');
        }
    }
    return 0;
}

static int report_groups(pk_buf *out, const profkit_profile *p, const pk_shown_markers *s, int json,
                         profkit_error *err)
{
    pk_marker_group *g;
    size_t ng;
    if (pk_marker_groups(s, p, &g, &ng) != 0)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    if (json) {
        pk_buf_puts(out, ",\"groups\":[");
        for (size_t i = 0; i < ng; i++) {
            const pk_marker_group *x = &g[i];
            pk_buf_puts(out, i ? ",\n{\"thread\":" : "\n{\"thread\":");
            pk_rjson_thread(out, p, x->thread);
            pk_buf_puts(out, ",\"name\":");
            pk_rjson_str(out, x->label);
            pk_buf_printf(out, ",\"count\":%zu,\"intervals\":%zu", x->count, x->intervals);
            if (x->intervals) {
                pk_buf_puts(out, ",\"duration\":{\"min\":");
                pk_rjson_ms(out, x->stats.min);
                pk_buf_puts(out, ",\"max\":");
                pk_rjson_ms(out, x->stats.max);
                pk_buf_puts(out, ",\"mean\":");
                put_mean_ms(out, x->stats.mean);
                pk_buf_puts(out, ",\"median\":");
                pk_rjson_ms(out, x->stats.median);
                pk_buf_puts(out, ",\"p95\":");
                pk_rjson_ms(out, x->stats.p95);
                pk_buf_putc(out, '}');
            }
            pk_buf_putc(out, '}');
        }
        pk_buf_puts(out, "]}\n");
        free(g);
        return 0;
    }
    for (size_t i = 0; i < ng;) {
        uint32_t t = g[i].thread;
        size_t n = 0, j = i;
        for (; j < ng && g[j].thread == t; j++)
            n += g[j].count;
        if (i)
            pk_buf_putc(out, '\n');
        text_thread(out, p, t, n);
        pk_buf_printf(out, "%8s %12s %12s %12s %12s %12s  %s\n", "count", "min (ms)", "max (ms)", "mean (ms)",
                      "median (ms)", "p95 (ms)", "name");
        for (; i < j; i++) {
            const pk_marker_group *x = &g[i];
            pk_buf_printf(out, "%8zu", x->count);
            if (x->intervals) {
                pk_buf_putc(out, ' ');
                text_ms(out, x->stats.min, 12);
                pk_buf_putc(out, ' ');
                text_ms(out, x->stats.max, 12);
                pk_buf_printf(out, " %12.3f ", x->stats.mean / 1e6);
                text_ms(out, x->stats.median, 12);
                pk_buf_putc(out, ' ');
                text_ms(out, x->stats.p95, 12);
            } else {
                pk_buf_printf(out, " %12s %12s %12s %12s %12s", "-", "-", "-", "-", "-");
            }
            pk_buf_printf(out, "  %s", x->label);
            if (x->intervals && x->intervals < x->count)
                pk_buf_printf(out, " (%zu instant%s)", x->count - x->intervals,
                              x->count - x->intervals == 1 ? "" : "s");
            pk_buf_putc(out, '\n');
        }
    }
    free(g);
    return 0;
}

static int report_markers_buf(pk_buf *out, const profkit_profile *p,
                              const profkit_markers_options *o, profkit_error *err)
{
    int ok;
    uint32_t th = pk_select_thread(p, o->thread, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    int64_t min_ns = -1;
    if (o->min_duration_ms >= 0 && o->min_duration_ms < 9.2e12)
        min_ns = (int64_t)llround(o->min_duration_ms * 1e6);
    pk_shown_markers s;
    if (pk_markers_shown(&s, p, th, o->search && *o->search ? o->search : NULL,
                         o->category && *o->category ? o->category : NULL, min_ns) != 0)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    if (o->json) {
        pk_rjson_open(out, "markers", p, PROFKIT_NONE, th);
        pk_buf_puts(out, ",\"zero\":");
        pk_rjson_ms(out, s.zero);
        pk_buf_printf(out, ",\"count\":%zu", s.n);
    } else if (s.n == 0) {
        pk_buf_printf(out, "no markers%s\n", p->n_markers ? " match" : "");
    }
    int rc = o->list ? report_list(out, p, &s, o->json) : report_groups(out, p, &s, o->json, err);
    pk_shown_markers_free(&s);
    return rc;
}

/* The entry points: each report drains into the caller's FILE. */
int profkit_report_markers(FILE *file, const profkit_profile *p, const profkit_markers_options *o,
                           profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_markers_buf(&out, p, o, err);
    pk_buf_flush(&out);
    return rc;
}
