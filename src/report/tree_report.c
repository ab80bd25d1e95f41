/* tree_report.c: `profkit tree`, the call tree per thread, indented. */
#include "util/buf.h"
#include "analysis/analysis.h"
#include "report/report_top.h"
#include "report/rjson.h"

#include <stdlib.h>

/* Prints one thread's tree (thread PROFKIT_NONE: every thread merged):
 * the call tree's values for that thread. */
static int print_thread(pk_buf *out, const profkit_profile *p, pk_ltree *tp, uint32_t v,
                        uint32_t th, const profkit_report_options *o, int *first,
                        profkit_error *err)
{
    uint32_t *nodes, *depths;
    size_t n;
    if (pk_ltree_set_values(tp, v, th) != 0 ||
        pk_tree_walk(tp, o->max_depth, o->cutoff_pct, &nodes, &depths, &n) != 0)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    const pk_ltree t = *tp;
    if (o->json) {
        /* {"thread":..,"total":N,"nodes":[{"depth","name","total","self"}]} */
        pk_buf_puts(out, *first ? "\n{\"thread\":" : ",\n{\"thread\":");
        *first = 0;
        if (th == PROFKIT_NONE)
            pk_buf_puts(out, "null");
        else
            pk_rjson_str(out, pk_str(p, p->threads[th].name));
        pk_buf_printf(out, ",\"total\":%lld,\"nodes\":[", (long long)t.grand_total);
        for (size_t i = 0; i < n; i++) {
            uint32_t x = nodes[i];
            pk_buf_printf(out, "%s{\"depth\":%u,", i ? ",\n" : "\n", depths[i]);
            pk_rjson_key(out, p, t.key_frame, t.key[x], pk_strtab_get(&t.labels, t.key[x]),
                         pk_strtab_len(&t.labels, t.key[x]), o->by == PROFKIT_BY_LINE);
            pk_buf_printf(out, ",\"total\":%lld,\"self\":%lld}", (long long)t.total[x], (long long)t.self[x]);
        }
        pk_buf_puts(out, "]}");
        free(nodes);
        free(depths);
        return 0;
    }
    const char *unit = pk_str(p, p->value_types[v].unit);
    char tot[64], a[64], b[64], c[64];
    /* percentages of the whole profile's total, as top's */
    int64_t whole = pk_percent_total(p, v, th, t.grand_total);
    pk_format_value(tot, sizeof(tot), whole, unit);
    if (th != PROFKIT_NONE) {
        char label[300];
        pk_thread_label(p, th, label, sizeof label);
        pk_buf_printf(out, "\nThread %u: %s, total %s", th, label, tot);
    } else {
        pk_buf_printf(out, "\nAll threads, total %s", tot);
    }
    pk_report_kept(out, p, v, th, t.grand_total, unit, o);
    pk_buf_putc(out, '\n');
    pk_buf_printf(out, "%10s %7s %10s %10s  %s\n", "total", "total%", "self", "callees", "name");
    double base = whole ? (double)whole : 1.0;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = nodes[i];
        pk_format_value(a, sizeof(a), t.total[x], unit);
        pk_format_value(b, sizeof(b), t.self[x], unit);
        pk_format_value(c, sizeof(c), pk_sat_add(t.total[x], -(t.self[x] == INT64_MIN ? INT64_MAX : t.self[x])), unit);
        pk_buf_printf(out, "%10s %6.2f%% %10s %10s  %*s%s\n", a, 100.0 * (double)t.total[x] / base, b, c,
                      (int)(2 * (depths[i] - 1)), "", pk_strtab_get(&t.labels, t.key[x]));
    }
    free(nodes);
    free(depths);
    return 0;
}

static int report_tree_buf(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                           profkit_error *err)
{
    uint32_t v, th;
    if (pk_select(p, o->value, o->thread, &v, &th, err) != 0)
        return PROFKIT_EINVAL;
    uint32_t *threads;
    size_t nt;
    int64_t total;
    if (pk_tree_threads(p, v, th, &threads, &nt, &total) != 0)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    /* One call tree; each thread's values over it in turn. */
    pk_ltree t;
    pk_ltree_options lo = { .by = PROFKIT_BY_FUNCTION, .files = 1, .by_line = o->by == PROFKIT_BY_LINE,
                            .merge = 1, .children = 1 };
    int rc = pk_ltree_build(&t, p, &lo, err);
    if (rc) {
        free(threads);
        return rc;
    }
    char tot[64];
    const char *unit = pk_str(p, p->value_types[v].unit);
    int first = 1;
    if (o->json) {
        pk_rjson_open(out, "tree", p, v, th);
        pk_buf_printf(out, ",\"total\":%lld,\"max_depth\":%zu,\"min_percent\":%.17g,\"trees\":[",
                      (long long)total, o->max_depth, o->cutoff_pct);
    } else {
        pk_format_value(tot, sizeof(tot), pk_percent_total(p, v, th, total), unit);
        pk_buf_printf(out, "Value: %s (%s), total %s", pk_str(p, p->value_types[v].type), unit, tot);
        pk_report_kept(out, p, v, th, total, unit, o);
        if (o->max_depth)
            pk_buf_printf(out, ", depth <= %zu", o->max_depth);
        if (o->cutoff_pct > 0)
            pk_buf_printf(out, ", nodes >= %g%% of their thread", o->cutoff_pct);
        pk_buf_putc(out, '\n');
    }
    for (size_t i = 0; i < nt && !rc; i++)
        rc = print_thread(out, p, &t, v, threads[i], o, &first, err);
    if (o->json && rc == 0)
        pk_buf_puts(out, "]}\n");
    pk_ltree_free(&t);
    free(threads);
    return rc;
}

/* The entry points: each report drains into the caller's FILE. */
int profkit_report_tree(FILE *file, const profkit_profile *p, const profkit_report_options *o,
                        profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_tree_buf(&out, p, o, err);
    pk_buf_flush(&out);
    return rc;
}
