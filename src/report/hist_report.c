/*
 * hist_report.c: `profkit hist`, a histogram of every value type side by
 * side, like dcpiprof's event columns: per key (function, file, line or
 * address) and per value type, the value, its percentage of that column's
 * total and the cumulative percentage down the listing. Rows are sorted by
 * one column (--value, default the profile's default value type).
 */
#include "util/buf.h"
#include "analysis/analysis.h"
#include "report/report_top.h"
#include "report/rjson.h"

#include <stdlib.h>
#include <string.h>

/* The widest the value columns go together (the labels come after). */
#define COLUMNS_WIDTH 78

/* A value column's width: its type's name whole, 9 at least. */
static size_t column_width(const profkit_profile *p, uint32_t v)
{
    size_t n = pk_strtab_len(&p->strings, p->value_types[v].type);
    return n > 9 ? n : 9;
}

/* Value type v's sum over the rows of thread th (PROFKIT_NONE: all). */
static int64_t value_total(const profkit_profile *p, uint32_t v, uint32_t th)
{
    int64_t sum = 0;
    for (size_t r = 0; r < p->n_samples; r++)
        if (th == PROFKIT_NONE || p->sample_thread[r] == th)
            pk_sat_addto(&sum, p->sample_values[r * p->n_value_types + v]);
    return sum;
}

static void pct(char *buf, size_t n, double part, double total)
{
    snprintf(buf, n, "%.2f%%", total != 0 ? 100.0 * part / total : 0.0);
}

/* Whether key k is shown: some column's flat value is not 0, and the sort
 * column's value (flat, or cum) is at least o->cutoff_pct percent of that
 * column's total (--min-percent). */
static int row_shown(const profkit_profile *p, uint32_t th, const pk_top *t, size_t nv, uint32_t sv,
                     const uint32_t *values, size_t k, const profkit_report_options *o)
{
    int any = 0;
    for (size_t v = 0; v < nv; v++)
        any |= t[v].rows[k].flat != 0;
    if (!any || !(o->cutoff_pct > 0))
        return any;
    double x = (double)(o->sort_cum ? t[sv].rows[k].cum : t[sv].rows[k].flat);
    double total = (double)pk_percent_total(p, values[sv], th, t[sv].total);
    return 100.0 * (x < 0 ? -x : x) >= o->cutoff_pct * (total < 0 ? -total : total);
}

static int report_hist_buf(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                           profkit_error *err)
{
    uint32_t sv, th;
    if (pk_select(p, o->value, o->thread, &sv, &th, err) != 0)
        return PROFKIT_EINVAL;
    size_t nv = p->n_value_types;
    pk_top *t = calloc(nv ? nv : 1, sizeof(*t));
    uint32_t *values = malloc((nv ? nv : 1) * sizeof(uint32_t));
    double *run = calloc(nv ? nv : 1, sizeof(double));
    uint32_t *order = NULL;
    unsigned char *marks = NULL;
    int rc = 0;
    size_t done = 0;
    if (!t || !run || !values) {
        rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        goto out;
    }
    /* The columns: --values; in JSON every value type; in the text the
     * value types with a value, as many as fit in COLUMNS_WIDTH (the sort
     * column among them), those left out named under the header. */
    size_t hidden = 0;
    if (o->values) {
        if ((rc = pk_report_values(p, o->values, values, nv, &nv, err)) != 0)
            goto out;
        sv = values[0];
    } else if (o->json) { /* every value type */
        for (size_t v = 0; v < nv; v++)
            values[v] = (uint32_t)v;
    } else {
        size_t n = 0, width = 0;
        for (size_t v = 0; v < p->n_value_types; v++) {
            int64_t tot = 0;
            if (v != sv && (tot = value_total(p, (uint32_t)v, th)) == 0)
                continue;
            size_t w = column_width(p, (uint32_t)v) + 16 + (n ? 1 : 0);
            if (width + w > COLUMNS_WIDTH && v != sv) {
                hidden++;
                continue;
            }
            if (width + w > COLUMNS_WIDTH && n > 0) { /* the sort column in place of the last */
                hidden++;
                width -= column_width(p, values[n - 1]) + 17;
                n--;
            }
            values[n++] = (uint32_t)v;
            width += w;
        }
        nv = n;
    }
    uint32_t sc = 0; /* the sort column */
    for (size_t c = 0; c < nv; c++)
        if (values[c] == sv)
            sc = (uint32_t)c;
    /* Every column over one call tree: the same keys in the same order,
     * the labels in the sort column's top. */
    if ((rc = pk_top_compute_values(t, p, values, nv, th, o->by, sc, err)) != 0)
        goto out;
    done = nv;
    const pk_top *st = &t[sc];
    size_t nonzero = 0;
    for (size_t k = 0; k < st->n; k++)
        nonzero += row_shown(p, th, t, nv, sc, values, k, o);
    size_t limit = o->limit && o->limit < nonzero ? o->limit : nonzero;
    /* Only the printed rows need their order; skipped rows may sort among them. */
    if (!(order = malloc((st->n ? st->n : 1) * sizeof(uint32_t))) ||
        pk_top_sort_first(st, order, o->sort_cum, limit + (st->n - nonzero)) != 0) {
        rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        goto out;
    }
    if (pk_key_inline(p, st->frame_key, st->n, sv, th, &marks) != 0) {
        rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        goto out;
    }
    if (o->json) {
        pk_rjson_open(out, "hist", p, sv, th);
        pk_rjson_by(out, o->by);
        pk_buf_printf(out, ",\"sort\":\"%s\",\"min_percent\":%.17g,\"columns\":[", o->sort_cum ? "cum" : "flat",
                      o->cutoff_pct);
        for (size_t v = 0; v < nv; v++) {
            pk_buf_puts(out, v ? ",{\"type\":" : "{\"type\":");
            pk_rjson_str(out, pk_str(p, p->value_types[values[v]].type));
            pk_buf_puts(out, ",\"unit\":");
            pk_rjson_str(out, pk_str(p, p->value_types[values[v]].unit));
            pk_buf_printf(out, ",\"total\":%lld", (long long)t[v].total);
            int64_t w;
            if (profkit_profile_whole_total(p, values[v], th, &w))
                pk_buf_printf(out, ",\"whole_total\":%lld", (long long)w);
            pk_buf_putc(out, '}');
        }
        pk_buf_puts(out, "],\"rows\":[");
        size_t shown = 0;
        for (size_t i = 0; i < st->n && shown < limit; i++) {
            uint32_t k = order[i];
            if (!row_shown(p, th, t, nv, sc, values, k, o))
                continue;
            pk_buf_puts(out, shown ? ",\n{" : "\n{");
            pk_rjson_key(out, p, st->key_frame, st->rows[k].key, pk_strtab_get(&st->keys, st->rows[k].key),
                         pk_strtab_len(&st->keys, st->rows[k].key), o->by, 0);
            const char *inl = pk_inline_json(marks, st->rows[k].key);
            if (inl)
                pk_buf_printf(out, ",\"inline\":\"%s\"", inl);
            pk_buf_puts(out, ",\"values\":[");
            for (size_t v = 0; v < nv; v++)
                pk_buf_printf(out, "%s%lld", v ? "," : "", (long long)t[v].rows[k].flat);
            pk_buf_puts(out, "]}");
            shown++;
        }
        pk_buf_puts(out, "]}\n");
        goto out;
    }
    pk_buf_printf(out, "Columns:");
    for (size_t v = 0; v < nv; v++) {
        char tot[64];
        const char *unit = pk_str(p, p->value_types[values[v]].unit);
        pk_format_value(tot, sizeof(tot), pk_percent_total(p, values[v], th, t[v].total),
                        unit);
        pk_buf_printf(out, "%s %s (%s) total %s", v ? ";" : "", pk_str(p, p->value_types[values[v]].type),
                      unit, tot);
        pk_report_kept(out, p, values[v], th, t[v].total, unit, o);
    }
    if (th != PROFKIT_NONE) {
        char label[300];
        pk_thread_label(p, th, label, sizeof label);
        pk_buf_printf(out, "; thread %s", label);
    }
    pk_buf_printf(out, "\nShowing top %zu of %zu %s, sorted by %s %s\n", limit, nonzero, pk_key_name(o->by, 1),
                  pk_str(p, p->value_types[sv].type), o->sort_cum ? "cum" : "flat");
    if (hidden) {
        pk_buf_puts(out, "Not shown (see --values):");
        for (size_t v = 0, first = 1; v < p->n_value_types; v++) {
            int in = 0;
            int64_t tot = 0;
            for (size_t c = 0; c < nv; c++)
                in |= values[c] == v;
            if (in || (tot = value_total(p, (uint32_t)v, th)) == 0)
                continue;
            pk_buf_printf(out, "%s %s", first ? "" : ",", pk_str(p, p->value_types[v].type));
            first = 0;
        }
        pk_buf_putc(out, '\n');
    }
    for (size_t v = 0; v < nv; v++)
        pk_buf_printf(out, "%s%*s %7s %7s", v ? " " : "", (int)column_width(p, values[v]),
                      pk_str(p, p->value_types[values[v]].type), "%", "cum%");
    pk_buf_printf(out, "  %s\n", pk_key_name(o->by, 0));
    size_t shown = 0;
    for (size_t i = 0; i < st->n && shown < limit; i++) {
        uint32_t k = order[i];
        if (!row_shown(p, th, t, nv, sc, values, k, o))
            continue;
        for (size_t v = 0; v < nv; v++) {
            const pk_top_row *r = &t[v].rows[k];
            char val[64], p1[32], p2[32];
            pk_format_value(val, sizeof(val), r->flat, pk_str(p, p->value_types[values[v]].unit));
            run[v] += (double)r->flat;
            double whole = (double)pk_percent_total(p, values[v], th, t[v].total);
            pct(p1, sizeof(p1), (double)r->flat, whole);
            pct(p2, sizeof(p2), run[v], whole);
            pk_buf_printf(out, "%s%*s %7s %7s", v ? " " : "", (int)column_width(p, values[v]), val, p1, p2);
        }
        pk_buf_printf(out, "  %s%s\n", pk_strtab_get(&st->keys, st->rows[k].key),
                      pk_inline_mark(marks, st->rows[k].key));
        shown++;
    }
out:
    for (size_t v = 0; t && v < done; v++)
        pk_top_free(&t[v]);
    free(t);
    free(values);
    free(run);
    free(order);
    free(marks);
    return rc;
}

/* The entry points: each report drains into the caller's FILE. */
int profkit_report_hist(FILE *file, const profkit_profile *p, const profkit_report_options *o,
                        profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_hist_buf(&out, p, o, err);
    pk_buf_flush(&out);
    return rc;
}
