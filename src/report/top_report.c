/* top_report.c: `profkit top`, printed like pprof -top. */
#include "util/buf.h"
#include "analysis/analysis.h"
#include "report/report_top.h"
#include "report/rjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether a row is shown: not all zero, and its sort value (flat, or cum)
 * at least o->cutoff_pct percent of the total (--min-percent). */
static int row_shown(const pk_top_row *r, int64_t total, const profkit_report_options *o)
{
    if (r->flat == 0 && r->cum == 0)
        return 0;
    if (!(o->cutoff_pct > 0))
        return 1;
    double v = (double)(o->sort_cum ? r->cum : r->flat);
    return 100.0 * (v < 0 ? -v : v) >= o->cutoff_pct * (total < 0 ? -(double)total : (double)total);
}

/* The JSON form (docs/json.md): the same rows as the text, raw values. */
static void top_json(pk_buf *out, const profkit_profile *p, const pk_top *t,
                     const uint32_t *order, size_t limit, const pk_top *calls, uint32_t v,
                     uint32_t th, const profkit_report_options *o, const unsigned char *marks)
{
    pk_rjson_open(out, "top", p, v, th);
    pk_rjson_by(out, o->by);
    int64_t whole = pk_percent_total(p, v, th, t->total);
    pk_buf_printf(out, ",\"sort\":\"%s\",\"min_percent\":%.17g,\"total\":%lld,",
                  o->sort_cum ? "cum" : "flat", o->cutoff_pct, (long long)t->total);
    int64_t w;
    if (profkit_profile_whole_total(p, v, th, &w))
        pk_buf_printf(out, "\"whole_total\":%lld,", (long long)w);
    pk_buf_puts(out, "\"rows\":[");
    size_t shown = 0;
    for (size_t i = 0; i < t->n && shown < limit; i++) {
        const pk_top_row *r = &t->rows[order[i]];
        if (!row_shown(r, whole, o))
            continue;
        pk_buf_puts(out, shown ? ",\n{" : "\n{");
        pk_rjson_key(out, p, t->key_frame, r->key, pk_strtab_get(&t->keys, r->key),
                     pk_strtab_len(&t->keys, r->key), o->by, 0);
        const char *inl = pk_inline_json(marks, r->key);
        if (inl)
            pk_buf_printf(out, ",\"inline\":\"%s\"", inl);
        pk_buf_printf(out, ",\"flat\":%lld,\"cum\":%lld", (long long)r->flat, (long long)r->cum);
        if (calls)
            pk_buf_printf(out, ",\"calls\":%lld", (long long)calls->rows[r->key].flat);
        pk_buf_putc(out, '}');
        shown++;
    }
    pk_buf_puts(out, "]}\n");
}

/* The calls of each line key's function, as rows keyed like lines. */
static int line_calls(pk_top *calls, const profkit_profile *p, const pk_top *lines, uint32_t cv,
                      uint32_t th, profkit_error *err)
{
    pk_top fn;
    memset(calls, 0, sizeof(*calls));
    int rc = pk_top_compute_values(&fn, p, &cv, 1, th, PROFKIT_BY_FUNCTION, 0, err);
    if (rc)
        return rc;
    calls->n = lines->n;
    if (!(calls->rows = calloc(lines->n ? lines->n : 1, sizeof(*calls->rows)))) {
        pk_top_free(&fn);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    }
    for (size_t k = 1; k < lines->n; k++) {
        uint32_t f = lines->key_frame ? lines->key_frame[k] : PROFKIT_NONE;
        calls->rows[k].key = (uint32_t)k;
        if (f < p->n_frames && fn.frame_key && fn.frame_key[f] < fn.n)
            calls->rows[k].flat = fn.rows[fn.frame_key[f]].flat;
    }
    pk_top_free(&fn);
    return 0;
}

/* By line, the function a row's line is in, before the label (as pprof
 * -lines prints "NAME FILE:LINE"); nothing when the label is NAME:LINE. */
static void line_function(pk_buf *out, const profkit_profile *p, const pk_top *t, uint32_t k)
{
    uint32_t f = t->key_frame ? t->key_frame[k] : PROFKIT_NONE;
    if (f >= p->n_frames)
        return;
    uint32_t fn = p->frames[f].function;
    if (fn >= p->n_functions || !pk_strtab_len(&p->strings, p->functions[fn].file) || !p->frames[f].line)
        return;
    char buf[4096];
    size_t len = pk_frame_label(p, f, 0, buf, sizeof(buf));
    pk_buf_put(out, buf, len);
    pk_buf_putc(out, ' ');
}

int pk_report_values(const profkit_profile *p, const char *list, uint32_t *out, size_t max,
                     size_t *n, profkit_error *err)
{
    *n = 0;
    for (const char *a = list; *a;) {
        const char *e = strchr(a, ',');
        size_t len = e ? (size_t)(e - a) : strlen(a);
        char name[256];
        if (len == 0 || len >= sizeof(name) || *n >= max)
            return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                "--values takes up to %zu value type names separated by commas, not '%s'",
                                max, list);
        memcpy(name, a, len);
        name[len] = '\0';
        uint32_t v = pk_select_value(p, name, err);
        if (v == PROFKIT_NONE)
            return PROFKIT_EINVAL;
        out[(*n)++] = v;
        a += len + (e != NULL);
    }
    if (*n == 0)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                            "--values takes up to %zu value type names separated by commas, not '%s'",
                            max, list);
    return 0;
}

/* top --values: the first value's columns as top's, then each other
 * value's flat and cum; rows sorted by the first. */
static int top_values(pk_buf *out, const profkit_profile *p, uint32_t th,
                      const profkit_report_options *o, profkit_error *err)
{
    uint32_t vals[PK_REPORT_MAX_VALUES];
    size_t nv;
    int rc = pk_report_values(p, o->values, vals, PK_REPORT_MAX_VALUES, &nv, err);
    if (rc)
        return rc;
    pk_top t[PK_REPORT_MAX_VALUES];
    if ((rc = pk_top_compute_values(t, p, vals, nv, th, o->by, 0, err)) != 0)
        return rc;
    const pk_top *t0 = &t[0];
    uint32_t v = vals[0];
    int64_t whole = pk_percent_total(p, v, th, t0->total);
    size_t nonzero = 0;
    for (size_t i = 0; i < t0->n; i++)
        nonzero += row_shown(&t0->rows[i], whole, o);
    size_t limit = o->limit && o->limit < nonzero ? o->limit : nonzero;
    uint32_t *order = malloc((t0->n ? t0->n : 1) * sizeof(uint32_t));
    unsigned char *marks = NULL;
    if (!order || pk_top_sort_first(t0, order, o->sort_cum, limit + (t0->n - nonzero)) != 0 ||
        pk_key_inline(p, t0->frame_key, t0->n, v, th, &marks) != 0) {
        rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        goto done;
    }
    if (o->json) {
        pk_rjson_open(out, "top", p, v, th);
        pk_rjson_by(out, o->by);
        pk_buf_printf(out, ",\"sort\":\"%s\",\"min_percent\":%.17g,\"total\":%lld,",
                      o->sort_cum ? "cum" : "flat", o->cutoff_pct, (long long)t0->total);
        int64_t w;
        if (profkit_profile_whole_total(p, v, th, &w))
            pk_buf_printf(out, "\"whole_total\":%lld,", (long long)w);
        pk_buf_puts(out, "\"columns\":[");
        for (size_t c = 0; c < nv; c++) {
            pk_buf_puts(out, c ? ",{\"type\":" : "{\"type\":");
            pk_rjson_str(out, pk_str(p, p->value_types[vals[c]].type));
            pk_buf_puts(out, ",\"unit\":");
            pk_rjson_str(out, pk_str(p, p->value_types[vals[c]].unit));
            pk_buf_printf(out, ",\"total\":%lld}", (long long)t[c].total);
        }
        pk_buf_puts(out, "],\"rows\":[");
    } else {
        pk_buf_puts(out, "Values:");
        for (size_t c = 0; c < nv; c++) {
            char tot[64];
            const char *unit = pk_str(p, p->value_types[vals[c]].unit);
            pk_format_value(tot, sizeof(tot), pk_percent_total(p, vals[c], th, t[c].total), unit);
            pk_buf_printf(out, "%s %s (%s) total %s", c ? ";" : "", pk_str(p, p->value_types[vals[c]].type),
                          unit, tot);
        }
        if (th != PROFKIT_NONE) {
            char label[300];
            pk_thread_label(p, th, label, sizeof label);
            pk_buf_printf(out, "; thread %s", label);
        }
        pk_report_kept(out, p, v, th, t0->total, pk_str(p, p->value_types[v].unit), o);
        pk_buf_printf(out, "\nShowing top %zu of %zu %s, sorted by %s %s\n", limit, nonzero,
                      pk_key_name(o->by, 1), pk_str(p, p->value_types[v].type), o->sort_cum ? "cum" : "flat");
        /* each value: flat and cum, headed "TYPE flat", "TYPE cum" whole */
        for (size_t c = 0; c < nv; c++) {
            const char *ty = pk_str(p, p->value_types[vals[c]].type);
            int wd = (int)strlen(ty) + 5 > 10 ? (int)strlen(ty) + 5 : 10;
            char h1[300], h2[300];
            snprintf(h1, sizeof(h1), "%s flat", ty);
            snprintf(h2, sizeof(h2), "%s cum", ty);
            if (c == 0)
                pk_buf_printf(out, "%*s %7s %*s %7s", wd, h1, "flat%", wd, h2, "cum%");
            else
                pk_buf_printf(out, " %*s %*s", wd, h1, wd, h2);
        }
        pk_buf_printf(out, "  %s\n", pk_key_name(o->by, 0));
    }
    double total = whole ? (double)whole : 1.0;
    size_t shown = 0;
    for (size_t i = 0; i < t0->n && shown < limit; i++) {
        uint32_t k = order[i];
        const pk_top_row *r = &t0->rows[k];
        if (!row_shown(r, whole, o))
            continue;
        if (o->json) {
            pk_buf_puts(out, shown ? ",\n{" : "\n{");
            pk_rjson_key(out, p, t0->key_frame, k, pk_strtab_get(&t0->keys, k), pk_strtab_len(&t0->keys, k),
                         o->by, 0);
            const char *inl = pk_inline_json(marks, k);
            if (inl)
                pk_buf_printf(out, ",\"inline\":\"%s\"", inl);
            pk_buf_printf(out, ",\"flat\":%lld,\"cum\":%lld,\"values\":[", (long long)r->flat,
                          (long long)r->cum);
            for (size_t c = 0; c < nv; c++)
                pk_buf_printf(out, "%s{\"flat\":%lld,\"cum\":%lld}", c ? "," : "",
                              (long long)t[c].rows[k].flat, (long long)t[c].rows[k].cum);
            pk_buf_puts(out, "]}");
            shown++;
            continue;
        }
        for (size_t c = 0; c < nv; c++) {
            const char *ty = pk_str(p, p->value_types[vals[c]].type);
            const char *unit = pk_str(p, p->value_types[vals[c]].unit);
            int wd = (int)strlen(ty) + 5 > 10 ? (int)strlen(ty) + 5 : 10;
            char f[64], cu[64], p1[32], p2[32];
            pk_format_value(f, sizeof(f), t[c].rows[k].flat, unit);
            pk_format_value(cu, sizeof(cu), t[c].rows[k].cum, unit);
            if (c == 0)
                pk_buf_printf(out, "%*s %7s %*s %7s", wd, f, pk_format_pct(p1, sizeof(p1), (double)r->flat, total),
                              wd, cu, pk_format_pct(p2, sizeof(p2), (double)r->cum, total));
            else
                pk_buf_printf(out, " %*s %*s", wd, f, wd, cu);
        }
        pk_buf_puts(out, "  ");
        if (o->by == PROFKIT_BY_LINE)
            line_function(out, p, t0, k);
        pk_buf_put(out, pk_strtab_get(&t0->keys, k), pk_strtab_len(&t0->keys, k));
        pk_buf_puts(out, pk_inline_mark(marks, k));
        pk_buf_putc(out, '\n');
        shown++;
    }
    if (o->json)
        pk_buf_puts(out, "]}\n");
done:
    free(order);
    free(marks);
    for (size_t c = 0; c < nv; c++)
        pk_top_free(&t[c]);
    return rc;
}

int pk_report_top_buf(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                          profkit_error *err)
{
    uint32_t v, th;
    if (pk_select(p, o->value, o->thread, &v, &th, err) != 0)
        return PROFKIT_EINVAL;
    if (o->values)
        return top_values(out, p, th, o, err);
    /* Time values get the call count and the time per call beside them
     * when the profile counts calls (bsprof): calls are those where the
     * key is the leaf, and the average divides the cumulative time. Both
     * from one call tree. */
    uint32_t values[2] = { v, pk_report_top_calls_value(p, v) };
    int with_calls = values[1] != PROFKIT_NONE;
    pk_top t[2];
    /* By line, a line's calls are its function's (calls are counted where
     * the function starts, not on the lines its time is on). */
    int fn_calls = with_calls && o->by == PROFKIT_BY_LINE;
    int rc = pk_top_compute_values(t, p, values, with_calls && !fn_calls ? 2 : 1, th, o->by, 0, err);
    if (rc)
        return rc;
    if (fn_calls && (rc = line_calls(&t[1], p, &t[0], values[1], th, err)) != 0) {
        pk_top_free(&t[0]);
        return rc;
    }
    rc = pk_report_top_print(out, p, v, th, &t[0], with_calls ? &t[1] : NULL, o, err);
    pk_top_free(&t[0]);
    if (with_calls)
        pk_top_free(&t[1]);
    return rc;
}

void pk_report_kept(pk_buf *out, const profkit_profile *p, uint32_t v, uint32_t th, int64_t kept,
                    const char *unit, const profkit_report_options *o)
{
    int64_t w;
    if (!profkit_profile_whole_total(p, v, th, &w) || w == kept)
        return;
    char k[64], pc[32];
    pk_format_value(k, sizeof(k), kept, unit);
    pk_buf_printf(out, "; %s (%s) after the filters", k,
                  pk_format_pct(pc, sizeof(pc), (double)kept, w ? (double)w : 1.0));
}

uint32_t pk_report_top_calls_value(const profkit_profile *p, uint32_t v)
{
    const char *vname = pk_str(p, p->value_types[v].type);
    uint32_t cv = profkit_profile_find_value(p, "calls");
    if (cv != PROFKIT_NONE && cv != v && (strcmp(vname, "cpu") == 0 || strcmp(vname, "wall") == 0))
        return cv;
    return PROFKIT_NONE;
}

int pk_report_top_print(pk_buf *out, const profkit_profile *p, uint32_t v, uint32_t th,
                        const pk_top *tp, const pk_top *calls_p,
                        const profkit_report_options *o, profkit_error *err)
{
    const pk_top t = *tp;
    int with_calls = calls_p != NULL;
    /* percentages of the whole profile's total (as pprof), or with
     * profkit_profile_drop_whole_total of what the filters left */
    int64_t whole = pk_percent_total(p, v, th, t.total);
    size_t nonzero = 0;
    for (size_t i = 0; i < t.n; i++)
        nonzero += row_shown(&t.rows[i], whole, o);
    size_t limit = o->limit && o->limit < nonzero ? o->limit : nonzero;
    /* The printed rows are the first `limit` non-zero ones in sort order;
     * the all-zero rows (skipped) may sort anywhere among them. */
    uint32_t *order = malloc((t.n ? t.n : 1) * sizeof(uint32_t));
    if (!order || pk_top_sort_first(&t, order, o->sort_cum, limit + (t.n - nonzero)) != 0) {
        free(order);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    }
    /* inlined functions marked as pprof marks them */
    unsigned char *marks = NULL;
    if (pk_key_inline(p, t.frame_key, t.n, v, th, &marks) != 0) {
        free(order);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    }
    if (o->json) {
        top_json(out, p, &t, order, limit, calls_p, v, th, o, marks);
        free(order);
        free(marks);
        return 0;
    }
    const char *unit = pk_str(p, p->value_types[v].unit);
    size_t shown = 0;
    char tot[64];
    pk_format_value(tot, sizeof(tot), whole, unit);
    pk_buf_printf(out, "Value: %s (%s), total %s", pk_str(p, p->value_types[v].type), unit, tot);
    if (th != PROFKIT_NONE) {
        char label[300];
        pk_thread_label(p, th, label, sizeof label);
        pk_buf_printf(out, ", thread %s", label);
    }
    pk_report_kept(out, p, v, th, t.total, unit, o);
    pk_buf_printf(out, "\nShowing top %zu of %zu %s, sorted by %s\n", limit, nonzero, pk_key_name(o->by, 1),
                  o->sort_cum ? "cum" : "flat");
    pk_buf_printf(out, "%10s %7s %7s %10s %7s", "flat", "flat%", "sum%", "cum", "cum%");
    if (with_calls)
        pk_buf_printf(out, " %10s %10s", "calls", "avg/call");
    pk_buf_printf(out, "  %s\n", pk_key_name(o->by, 0));
    double sum = 0;
    double total = whole ? (double)whole : 1.0;
    for (size_t i = 0; i < t.n && shown < limit; i++) {
        const pk_top_row *r = &t.rows[order[i]];
        if (!row_shown(r, whole, o))
            continue;
        char f[64], c[64];
        pk_format_value(f, sizeof(f), r->flat, unit);
        pk_format_value(c, sizeof(c), r->cum, unit);
        sum += (double)r->flat;
        char p1[32], p2[32], p3[32];
        pk_buf_printf(out, "%10s %7s %7s %10s %7s", f, pk_format_pct(p1, sizeof(p1), (double)r->flat, total),
                      pk_format_pct(p2, sizeof(p2), sum, total), c, pk_format_pct(p3, sizeof(p3), (double)r->cum, total));
        if (with_calls) {
            int64_t n = calls_p->rows[r->key].flat;
            char avg[64] = "-";
            if (n > 0)
                pk_format_value(avg, sizeof(avg), r->cum / n, unit);
            pk_buf_printf(out, " %10lld %10s", (long long)n, avg);
        }
        pk_buf_puts(out, "  "); /* every byte of the name, NUL bytes too */
        if (o->by == PROFKIT_BY_LINE)
            line_function(out, p, &t, r->key);
        pk_buf_put(out, pk_strtab_get(&t.keys, r->key), pk_strtab_len(&t.keys, r->key));
        pk_buf_puts(out, pk_inline_mark(marks, r->key));
        pk_buf_putc(out, '\n');
        shown++;
    }
    free(order);
    free(marks);
    return 0;
}

/* The entry points: each report drains into the caller's FILE. */
int profkit_report_top(FILE *file, const profkit_profile *p, const profkit_report_options *o,
                       profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = pk_report_top_buf(&out, p, o, err);
    pk_buf_flush(&out);
    return rc;
}
