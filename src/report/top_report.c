/* top_report.c: `profkit top`, printed like pprof -top. */
#include "analysis/analysis.h"
#include "report/report_top.h"
#include "report/rjson.h"

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
static void top_json(FILE *out, const profkit_profile *p, const pk_top *t,
                     const uint32_t *order, size_t limit, const pk_top *calls, uint32_t v,
                     uint32_t th, const profkit_report_options *o)
{
    pk_rjson_open(out, "top", p, v, th);
    pk_rjson_by(out, o->by);
    fprintf(out, ",\"sort\":\"%s\",\"min_percent\":%.17g,\"total\":%lld,\"rows\":[",
            o->sort_cum ? "cum" : "flat", o->cutoff_pct, (long long)t->total);
    size_t shown = 0;
    for (size_t i = 0; i < t->n && shown < limit; i++) {
        const pk_top_row *r = &t->rows[order[i]];
        if (!row_shown(r, t->total, o))
            continue;
        fputs(shown ? ",\n{\"name\":" : "\n{\"name\":", out);
        pk_rjson_strn(out, pk_strtab_get(&t->keys, r->key), pk_strtab_len(&t->keys, r->key));
        fprintf(out, ",\"flat\":%lld,\"cum\":%lld", (long long)r->flat, (long long)r->cum);
        if (calls)
            fprintf(out, ",\"calls\":%lld", (long long)calls->rows[r->key].flat);
        fputc('}', out);
        shown++;
    }
    fputs("]}\n", out);
}

int profkit_report_top(FILE *out, const profkit_profile *p, const profkit_report_options *o,
                       profkit_error *err)
{
    uint32_t v, th;
    if (pk_select(p, o->value, o->thread, &v, &th, err) != 0)
        return PROFKIT_EINVAL;
    /* Time values get the call count and the time per call beside them
     * when the profile counts calls (bsprof): calls are those where the
     * key is the leaf, and the average divides the cumulative time. Both
     * from one call tree. */
    uint32_t values[2] = { v, pk_report_top_calls_value(p, v) };
    int with_calls = values[1] != PROFKIT_NONE;
    pk_top t[2];
    int rc = pk_top_compute_values(t, p, values, with_calls ? 2 : 1, th, o->by, 0, err);
    if (rc)
        return rc;
    rc = pk_report_top_print(out, p, v, th, &t[0], with_calls ? &t[1] : NULL, o, err);
    pk_top_free(&t[0]);
    if (with_calls)
        pk_top_free(&t[1]);
    return rc;
}

uint32_t pk_report_top_calls_value(const profkit_profile *p, uint32_t v)
{
    const char *vname = pk_str(p, p->value_types[v].type);
    uint32_t cv = profkit_profile_find_value(p, "calls");
    if (cv != PROFKIT_NONE && cv != v && (strcmp(vname, "cpu") == 0 || strcmp(vname, "wall") == 0))
        return cv;
    return PROFKIT_NONE;
}

int pk_report_top_print(FILE *out, const profkit_profile *p, uint32_t v, uint32_t th,
                        const pk_top *tp, const pk_top *calls_p,
                        const profkit_report_options *o, profkit_error *err)
{
    const pk_top t = *tp;
    int with_calls = calls_p != NULL;
    size_t nonzero = 0;
    for (size_t i = 0; i < t.n; i++)
        nonzero += row_shown(&t.rows[i], t.total, o);
    size_t limit = o->limit && o->limit < nonzero ? o->limit : nonzero;
    /* The printed rows are the first `limit` non-zero ones in sort order;
     * the all-zero rows (skipped) may sort anywhere among them. */
    uint32_t *order = malloc((t.n ? t.n : 1) * sizeof(uint32_t));
    if (!order || pk_top_sort_first(&t, order, o->sort_cum, limit + (t.n - nonzero)) != 0) {
        free(order);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    }
    if (o->json) {
        top_json(out, p, &t, order, limit, calls_p, v, th, o);
        free(order);
        return 0;
    }
    const char *unit = pk_str(p, p->value_types[v].unit);
    size_t shown = 0;
    char tot[64];
    pk_format_value(tot, sizeof(tot), t.total, unit);
    fprintf(out, "Value: %s (%s), total %s", pk_str(p, p->value_types[v].type), unit, tot);
    if (th != PROFKIT_NONE) {
        char label[300];
        pk_thread_label(p, th, label, sizeof label);
        fprintf(out, ", thread %s", label);
    }
    fprintf(out, "\nShowing top %zu of %zu %s, sorted by %s\n", limit, nonzero, pk_key_name(o->by, 1),
            o->sort_cum ? "cum" : "flat");
    fprintf(out, "%10s %7s %7s %10s %7s", "flat", "flat%", "sum%", "cum", "cum%");
    if (with_calls)
        fprintf(out, " %10s %10s", "calls", "avg/call");
    fprintf(out, "  %s\n", pk_key_name(o->by, 0));
    double sum = 0;
    double total = t.total ? (double)t.total : 1.0;
    for (size_t i = 0; i < t.n && shown < limit; i++) {
        const pk_top_row *r = &t.rows[order[i]];
        if (!row_shown(r, t.total, o))
            continue;
        char f[64], c[64];
        pk_format_value(f, sizeof(f), r->flat, unit);
        pk_format_value(c, sizeof(c), r->cum, unit);
        sum += (double)r->flat;
        char p1[32], p2[32], p3[32];
        fprintf(out, "%10s %7s %7s %10s %7s", f, pk_format_pct(p1, sizeof(p1), (double)r->flat, total),
                pk_format_pct(p2, sizeof(p2), sum, total), c, pk_format_pct(p3, sizeof(p3), (double)r->cum, total));
        if (with_calls) {
            int64_t n = calls_p->rows[r->key].flat;
            char avg[64] = "-";
            if (n > 0)
                pk_format_value(avg, sizeof(avg), r->cum / n, unit);
            fprintf(out, " %10lld %10s", (long long)n, avg);
        }
        fputs("  ", out); /* every byte of the name, NUL bytes too */
        fwrite(pk_strtab_get(&t.keys, r->key), 1, pk_strtab_len(&t.keys, r->key), out);
        fputc('\n', out);
        shown++;
    }
    free(order);
    return 0;
}
