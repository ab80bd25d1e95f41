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

/* ns as ms, exactly: up to six decimals, trailing zeros cut. */
static void put_ms(FILE *out, int64_t ns)
{
    uint64_t m = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    char frac[8];
    snprintf(frac, sizeof frac, "%06" PRIu64, m % 1000000);
    size_t n = 6;
    while (n && frac[n - 1] == '0')
        n--;
    frac[n] = 0;
    fprintf(out, "%s%" PRIu64 "%s%s", ns < 0 ? "-" : "", m / 1000000, n ? "." : "", frac);
}

/* The same with three decimals, for the text. */
static void text_ms(FILE *out, int64_t ns, int width)
{
    fprintf(out, "%*.3f", width, (double)ns / 1e6);
}

static void put_mean_ms(FILE *out, double ns)
{
    fprintf(out, "%.9g", ns / 1e6);
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

static void json_thread(FILE *out, const profkit_profile *p, uint32_t t)
{
    const profkit_thread *th = &p->threads[t];
    fprintf(out, "{\"index\":%u,\"name\":", t);
    pk_rjson_str(out, pk_str(p, th->name));
    fputs(",\"process\":", out);
    pk_rjson_str(out, pk_str(p, th->process_name));
    if (th->pid >= 0)
        fprintf(out, ",\"pid\":%" PRId64, th->pid);
    else
        fputs(",\"pid\":null", out);
    if (th->tid >= 0)
        fprintf(out, ",\"tid\":%" PRId64 "}", th->tid);
    else
        fputs(",\"tid\":null}", out);
}

static void text_thread(FILE *out, const profkit_profile *p, uint32_t t, size_t n)
{
    const profkit_thread *th = &p->threads[t];
    fprintf(out, "thread %u: %s", t, pk_str(p, th->name));
    const char *proc = pk_str(p, th->process_name);
    if (*proc || th->pid >= 0 || th->tid >= 0) {
        fputs(" (", out);
        const char *sep = "";
        if (*proc)
            fprintf(out, "%s", proc), sep = ", ";
        if (th->pid >= 0)
            fprintf(out, "%spid %" PRId64, sep, th->pid), sep = ", ";
        if (th->tid >= 0)
            fprintf(out, "%stid %" PRId64, sep, th->tid);
        fputs(")", out);
    }
    fprintf(out, ": %zu marker%s\n", n, n == 1 ? "" : "s");
}

static int report_list(FILE *out, const profkit_profile *p, const pk_shown_markers *s, int json)
{
    if (json) {
        fputs(",\"markers\":[", out);
        for (size_t i = 0; i < s->n; i++) {
            const pk_shown_marker *m = &s->m[i];
            fputs(i ? ",\n{\"thread\":" : "\n{\"thread\":", out);
            json_thread(out, p, m->thread);
            fputs(",\"name\":", out);
            pk_rjson_str(out, pk_str(p, m->name));
            fputs(",\"category\":", out);
            pk_rjson_str(out, category_name(p, m->category));
            fputs(",\"start\":", out);
            put_ms(out, m->start);
            if (m->end != PROFKIT_NO_TIME) {
                fputs(",\"duration\":", out);
                put_ms(out, m->end - m->start);
            }
            const char *ty;
            size_t tn;
            fputs(",\"type\":", out);
            if (payload_type(p, m->payload, &ty, &tn))
                fprintf(out, "\"%.*s\"", (int)tn, ty); /* as the payload's JSON has it */
            else
                fputs("null", out);
            fputs(",\"data\":", out);
            const char *d = m->payload ? pk_str(p, m->payload) : "";
            if (*d == '{')
                fputs(d, out);
            else
                fputs("null", out);
            fputc('}', out);
        }
        fputs("]}\n", out);
        return 0;
    }
    for (size_t i = 0; i < s->n;) {
        uint32_t t = s->m[i].thread;
        size_t j = i;
        while (j < s->n && s->m[j].thread == t)
            j++;
        if (i)
            fputc('\n', out);
        text_thread(out, p, t, j - i);
        fprintf(out, "%14s %14s  %-16s %s\n", "start (ms)", "duration (ms)", "category", "name [type]");
        for (; i < j; i++) {
            const pk_shown_marker *m = &s->m[i];
            text_ms(out, m->start, 14);
            if (m->end != PROFKIT_NO_TIME) {
                fputc(' ', out);
                text_ms(out, m->end - m->start, 14);
            } else {
                fprintf(out, " %14s", "-");
            }
            fprintf(out, "  %-16s %s", category_name(p, m->category), pk_str(p, m->name));
            const char *ty;
            size_t tn;
            if (payload_type(p, m->payload, &ty, &tn))
                fprintf(out, " [%.*s]", (int)tn, ty);
            fputc('\n', out);
        }
    }
    return 0;
}

static int report_groups(FILE *out, const profkit_profile *p, const pk_shown_markers *s, int json,
                         profkit_error *err)
{
    pk_marker_group *g;
    size_t ng;
    if (pk_marker_groups(s, p, &g, &ng) != 0)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    if (json) {
        fputs(",\"groups\":[", out);
        for (size_t i = 0; i < ng; i++) {
            const pk_marker_group *x = &g[i];
            fputs(i ? ",\n{\"thread\":" : "\n{\"thread\":", out);
            json_thread(out, p, x->thread);
            fputs(",\"name\":", out);
            pk_rjson_str(out, x->label);
            fprintf(out, ",\"count\":%zu,\"intervals\":%zu", x->count, x->intervals);
            if (x->intervals) {
                fputs(",\"duration\":{\"min\":", out);
                put_ms(out, x->stats.min);
                fputs(",\"max\":", out);
                put_ms(out, x->stats.max);
                fputs(",\"mean\":", out);
                put_mean_ms(out, x->stats.mean);
                fputs(",\"median\":", out);
                put_ms(out, x->stats.median);
                fputs(",\"p95\":", out);
                put_ms(out, x->stats.p95);
                fputc('}', out);
            }
            fputc('}', out);
        }
        fputs("]}\n", out);
        free(g);
        return 0;
    }
    for (size_t i = 0; i < ng;) {
        uint32_t t = g[i].thread;
        size_t n = 0, j = i;
        for (; j < ng && g[j].thread == t; j++)
            n += g[j].count;
        if (i)
            fputc('\n', out);
        text_thread(out, p, t, n);
        fprintf(out, "%8s %12s %12s %12s %12s %12s  %s\n", "count", "min (ms)", "max (ms)", "mean (ms)",
                "median (ms)", "p95 (ms)", "name");
        for (; i < j; i++) {
            const pk_marker_group *x = &g[i];
            fprintf(out, "%8zu", x->count);
            if (x->intervals) {
                fputc(' ', out);
                text_ms(out, x->stats.min, 12);
                fputc(' ', out);
                text_ms(out, x->stats.max, 12);
                fprintf(out, " %12.3f ", x->stats.mean / 1e6);
                text_ms(out, x->stats.median, 12);
                fputc(' ', out);
                text_ms(out, x->stats.p95, 12);
            } else {
                fprintf(out, " %12s %12s %12s %12s %12s", "-", "-", "-", "-", "-");
            }
            fprintf(out, "  %s", x->label);
            if (x->intervals && x->intervals < x->count)
                fprintf(out, " (%zu instant%s)", x->count - x->intervals,
                        x->count - x->intervals == 1 ? "" : "s");
            fputc('\n', out);
        }
    }
    free(g);
    return 0;
}

int profkit_report_markers(FILE *out, const profkit_profile *p, const profkit_markers_options *o,
                           profkit_error *err)
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
        fputs(",\"zero\":", out);
        put_ms(out, s.zero);
        fprintf(out, ",\"count\":%zu", s.n);
    } else if (s.n == 0) {
        fprintf(out, "no markers%s\n", p->n_markers ? " match" : "");
    }
    int rc = o->list ? report_list(out, p, &s, o->json) : report_groups(out, p, &s, o->json, err);
    pk_shown_markers_free(&s);
    return rc;
}
