/* tree_report.c: `profkit tree`, the call tree per thread, indented. */
#include "util/buf.h"
#include "analysis/analysis.h"
#include "report/report_top.h"
#include "report/rjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int print_nodes(pk_buf *out, const profkit_profile *p, pk_ltree *tp, uint32_t v,
                       uint32_t th, const profkit_report_options *o, int *first,
                       const uint32_t *vals, size_t nv, int64_t **xs, int64_t **xt,
                       const uint32_t *nodes, const uint32_t *depths, size_t n,
                       const unsigned char *marks);

/* Prints one thread's tree (thread PROFKIT_NONE: every thread merged):
 * the call tree's values for that thread. */
/* --values: the self and total per node of each value after the first
 * (which the tree's own values hold), nv - 1 pairs of arrays. */
static int extra_values(const pk_ltree *t, const uint32_t *vals, size_t nv, uint32_t th,
                        int64_t **self, int64_t **total)
{
    for (size_t c = 1; c < nv; c++) {
        if (!(self[c] = pk_ltree_self(t, vals[c], th)) ||
            !(total[c] = malloc((t->n ? t->n : 1) * sizeof(int64_t))))
            return PROFKIT_ENOMEM;
        memcpy(total[c], self[c], t->n * sizeof(int64_t));
        for (size_t i = t->n; i-- > 1;)
            pk_sat_addto(&total[c][t->parent[i]], total[c][i]);
    }
    return 0;
}

static int print_thread(pk_buf *out, const profkit_profile *p, pk_ltree *tp, uint32_t v,
                        uint32_t th, const profkit_report_options *o, int *first,
                        const uint32_t *vals, size_t nv, const unsigned char *marks,
                        profkit_error *err)
{
    uint32_t *nodes, *depths;
    size_t n;
    int64_t *xs[PK_REPORT_MAX_VALUES] = { 0 }, *xt[PK_REPORT_MAX_VALUES] = { 0 };
    if (pk_ltree_set_values(tp, v, th) != 0 ||
        pk_tree_walk(tp, o->max_depth, o->cutoff_pct, &nodes, &depths, &n) != 0)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    if (extra_values(tp, vals, nv, th, xs, xt) != 0) {
        for (size_t c = 0; c < nv; c++) {
            free(xs[c]);
            free(xt[c]);
        }
        free(nodes);
        free(depths);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    }
    int rc = print_nodes(out, p, tp, v, th, o, first, vals, nv, xs, xt, nodes, depths, n, marks);
    for (size_t c = 0; c < nv; c++) {
        free(xs[c]);
        free(xt[c]);
    }
    free(nodes);
    free(depths);
    return rc;
}

static int print_nodes(pk_buf *out, const profkit_profile *p, pk_ltree *tp, uint32_t v,
                       uint32_t th, const profkit_report_options *o, int *first,
                       const uint32_t *vals, size_t nv, int64_t **xs, int64_t **xt,
                       const uint32_t *nodes, const uint32_t *depths, size_t n,
                       const unsigned char *marks)
{
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
                         pk_strtab_len(&t.labels, t.key[x]), PROFKIT_BY_FUNCTION,
                         o->by == PROFKIT_BY_LINE);
            const char *inl = pk_inline_json(marks, x);
            if (inl)
                pk_buf_printf(out, ",\"inline\":\"%s\"", inl);
            pk_buf_printf(out, ",\"total\":%lld,\"self\":%lld", (long long)t.total[x], (long long)t.self[x]);
            if (nv > 0) {
                pk_buf_printf(out, ",\"values\":[{\"total\":%lld,\"self\":%lld}", (long long)t.total[x],
                              (long long)t.self[x]);
                for (size_t c = 1; c < nv; c++)
                    pk_buf_printf(out, ",{\"total\":%lld,\"self\":%lld}", (long long)xt[c][x],
                                  (long long)xs[c][x]);
                pk_buf_putc(out, ']');
            }
            pk_buf_putc(out, '}');
        }
        pk_buf_puts(out, "]}");
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
    pk_buf_printf(out, "%10s %7s %10s %10s", "total", "total%", "self", "callees");
    for (size_t k = 1; k < nv; k++) {
        const char *ty = pk_str(p, p->value_types[vals[k]].type);
        int wd = (int)strlen(ty) + 6 > 10 ? (int)strlen(ty) + 6 : 10;
        char h1[300], h2[300];
        snprintf(h1, sizeof(h1), "%s total", ty);
        snprintf(h2, sizeof(h2), "%s self", ty);
        pk_buf_printf(out, " %*s %*s", wd, h1, wd, h2);
    }
    pk_buf_puts(out, "  name\n");
    double base = whole ? (double)whole : 1.0;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = nodes[i];
        pk_format_value(a, sizeof(a), t.total[x], unit);
        pk_format_value(b, sizeof(b), t.self[x], unit);
        pk_format_value(c, sizeof(c), pk_sat_add(t.total[x], -(t.self[x] == INT64_MIN ? INT64_MAX : t.self[x])), unit);
        pk_buf_printf(out, "%10s %6.2f%% %10s %10s", a, 100.0 * (double)t.total[x] / base, b, c);
        for (size_t k = 1; k < nv; k++) {
            const char *ty = pk_str(p, p->value_types[vals[k]].type);
            const char *u = pk_str(p, p->value_types[vals[k]].unit);
            int wd = (int)strlen(ty) + 6 > 10 ? (int)strlen(ty) + 6 : 10;
            char e1[64], e2[64];
            pk_format_value(e1, sizeof(e1), xt[k][x], u);
            pk_format_value(e2, sizeof(e2), xs[k][x], u);
            pk_buf_printf(out, " %*s %*s", wd, e1, wd, e2);
        }
        pk_buf_printf(out, "  %*s%s%s\n", (int)(2 * (depths[i] - 1)), "", pk_strtab_get(&t.labels, t.key[x]),
                      pk_inline_mark(marks, x));
    }
    return 0;
}

static int report_tree_buf(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                           profkit_error *err)
{
    uint32_t v, th;
    if (pk_select(p, o->value, o->thread, &v, &th, err) != 0)
        return PROFKIT_EINVAL;
    /* --values: the tree by the first, each other's total and self beside */
    uint32_t vals[PK_REPORT_MAX_VALUES];
    size_t nv = 0;
    if (o->values) {
        if (pk_report_values(p, o->values, vals, PK_REPORT_MAX_VALUES, &nv, err) != 0)
            return PROFKIT_EINVAL;
        v = vals[0];
    }
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
        pk_buf_printf(out, ",\"total\":%lld,\"max_depth\":%zu,\"min_percent\":%.17g,",
                      (long long)total, o->max_depth, o->cutoff_pct);
        if (nv) { /* --values: the type of each node's values[i] */
            pk_buf_puts(out, "\"columns\":[");
            for (size_t c = 0; c < nv; c++) {
                pk_buf_puts(out, c ? ",{\"type\":" : "{\"type\":");
                pk_rjson_str(out, pk_str(p, p->value_types[vals[c]].type));
                pk_buf_puts(out, ",\"unit\":");
                pk_rjson_str(out, pk_str(p, p->value_types[vals[c]].unit));
                pk_buf_putc(out, '}');
            }
            pk_buf_puts(out, "],");
        }
        pk_buf_puts(out, "\"trees\":[");
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
    for (size_t i = 0; i < nt && !rc; i++) {
        /* each node's mark from the thread's calls with a value, as top's */
        unsigned char *marks = NULL;
        if (pk_node_inline(p, &t, v, threads[i], &marks) != 0)
            rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        else
            rc = print_thread(out, p, &t, v, threads[i], o, &first, vals, nv, marks, err);
        free(marks);
    }
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
