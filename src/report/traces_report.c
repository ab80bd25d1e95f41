/*
 * traces_report.c: `profkit traces`, each distinct stack with its value,
 * like pprof -traces; computed by pk_traces_compute (analysis/traces.c).
 */
#include "analysis/analysis.h"
#include "report/rjson.h"

#include <stdlib.h>
#include <string.h>

int profkit_report_traces(FILE *out, const profkit_profile *p, const profkit_report_options *o,
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
        fprintf(out, ",\"total\":%lld,\"count\":%zu,\"traces\":[", (long long)t.total, t.n);
        for (size_t i = 0; i < shown; i++) {
            uint32_t id = t.order[i];
            fprintf(out, "%s{\"value\":%lld,\"stack\":[", i ? ",\n" : "\n", (long long)tr->self[id]);
            for (uint32_t u = id; u != 0; u = tr->parent[u]) {
                if (u != id)
                    fputc(',', out);
                pk_rjson_str(out, pk_ltree_label(tr, tr->key[u]));
            }
            fputs("]}", out);
        }
        fputs("]}\n", out);
        pk_traces_free(&t);
        return 0;
    }
    const char *unit = pk_str(p, p->value_types[v].unit);
    char buf[64];
    pk_format_value(buf, sizeof(buf), t.total, unit);
    fprintf(out, "Value: %s (%s), total %s", pk_str(p, p->value_types[v].type), unit, buf);
    if (th != PROFKIT_NONE) {
        char label[300];
        pk_thread_label(p, th, label, sizeof label);
        fprintf(out, ", thread %s", label);
    }
    fprintf(out, "\nShowing %zu of %zu stacks, largest first, leaf first, by %s\n", shown, t.n,
            pk_key_name(o->by, 0));
    static const char sep[] = "-------------------+-------------------------------------------------------\n";
    double total = t.total ? (double)t.total : 1.0;
    for (size_t i = 0; i < shown; i++) {
        uint32_t id = t.order[i];
        fputs(sep, out);
        char pct[32];
        pk_format_value(buf, sizeof(buf), tr->self[id], unit);
        for (uint32_t u = id; u != 0; u = tr->parent[u])
            fprintf(out, "%10s %7s   %s\n", u != id ? "" : buf,
                    u != id ? "" : pk_format_pct(pct, sizeof(pct), (double)tr->self[id], total),
                    pk_ltree_label(tr, tr->key[u]));
    }
    fputs(sep, out);
    pk_traces_free(&t);
    return 0;
}
