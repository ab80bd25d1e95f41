/* top_report.c: `profkit top`, printed like pprof -top. */
#include "util/buf.h"
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
        pk_rjson_function(out, p, t->key_frame ? t->key_frame[r->key] : PROFKIT_NONE,
                          pk_strtab_get(&t->keys, r->key), pk_strtab_len(&t->keys, r->key));
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

int pk_report_top_buf(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
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
