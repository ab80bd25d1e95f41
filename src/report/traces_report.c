/*
 * traces_report.c: `profkit traces`, each distinct stack with its value,
 * like pprof -traces; computed by pk_traces_compute (analysis/traces.c).
 */
#include "util/buf.h"
#include "analysis/analysis.h"
#include "report/report_top.h"
#include "report/rjson.h"

#include <stdlib.h>
#include <string.h>

static int report_traces_buf(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                             profkit_error *err)
{
    uint32_t v, th;
    if (pk_select(p, o->value, o->thread, &v, &th, err) != 0)
        return PROFKIT_EINVAL;
    pk_traces t;
    int rc = pk_traces_compute(&t, p, v, th, o->by, err);
    if (rc)
        return rc;
    const pk_ltree *tr = &t.tree;
    size_t shown = o->limit && o->limit < t.n ? o->limit : t.n;
    if (o->json) {
        pk_rjson_open(out, "traces", p, v, th);
        pk_rjson_by(out, o->by);
        pk_buf_printf(out, ",\"total\":%lld,\"count\":%zu,\"traces\":[", (long long)t.total, t.n);
        for (size_t i = 0; i < shown; i++) {
            uint32_t id = t.order[i];
            pk_buf_printf(out, "%s{\"value\":%lld,\"stack\":[", i ? ",\n" : "\n", (long long)tr->self[id]);
            for (uint32_t u = id; u != 0; u = tr->parent[u]) {
                if (u != id)
                    pk_buf_putc(out, ',');
                pk_rjson_str(out, pk_ltree_label(tr, tr->key[u]));
            }
            pk_buf_puts(out, "]}");
        }
        pk_buf_puts(out, "]}\n");
        pk_traces_free(&t);
        return 0;
    }
    const char *unit = pk_str(p, p->value_types[v].unit);
    char buf[64];
    int64_t whole = pk_percent_total(p, v, th, t.total); /* as top's */
    pk_format_value(buf, sizeof(buf), whole, unit);
    pk_buf_printf(out, "Value: %s (%s), total %s", pk_str(p, p->value_types[v].type), unit, buf);
    if (th != PROFKIT_NONE) {
        char label[300];
        pk_thread_label(p, th, label, sizeof label);
        pk_buf_printf(out, ", thread %s", label);
    }
    pk_report_kept(out, p, v, th, t.total, unit, o);
    pk_buf_printf(out, "\nShowing %zu of %zu stacks, largest first, leaf first, by %s\n", shown, t.n,
                  pk_key_name(o->by, 0));
    static const char sep[] = "-------------------+-------------------------------------------------------\n";
    double total = whole ? (double)whole : 1.0;
    for (size_t i = 0; i < shown; i++) {
        uint32_t id = t.order[i];
        pk_buf_puts(out, sep);
        char pct[32];
        pk_format_value(buf, sizeof(buf), tr->self[id], unit);
        for (uint32_t u = id; u != 0; u = tr->parent[u])
            pk_buf_printf(out, "%10s %7s   %s\n", u != id ? "" : buf,
                          u != id ? "" : pk_format_pct(pct, sizeof(pct), (double)tr->self[id], total),
                          pk_ltree_label(tr, tr->key[u]));
    }
    pk_buf_puts(out, sep);
    pk_traces_free(&t);
    return 0;
}

/* The entry points: each report drains into the caller's FILE. */
int profkit_report_traces(FILE *file, const profkit_profile *p, const profkit_report_options *o,
                          profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_traces_buf(&out, p, o, err);
    pk_buf_flush(&out);
    return rc;
}
