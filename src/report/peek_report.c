/*
 * peek_report.c: `profkit peek RE`, each matching key's callers and
 * callees, like pprof -peek; computed by pk_peek_compute (analysis/peek.c).
 */
#include "util/buf.h"
#include "analysis/analysis.h"
#include "report/report_top.h"
#include "report/rjson.h"

#include <stdlib.h>
#include <string.h>

static void json_edges(pk_buf *out, const pk_peek *k, const uint32_t *ids, size_t n, int in,
                       profkit_key by)
{
    pk_buf_putc(out, '[');
    for (size_t i = 0; i < n; i++) {
        const pk_key_edge *e = &k->sums.edges[ids[i]];
        uint32_t key = in ? e->from : e->to;
        pk_buf_puts(out, i ? ",{" : "{");
        pk_rjson_key(out, k->tree.p, k->tree.key_frame, key, pk_ltree_label(&k->tree, key),
                     pk_ltree_label_len(&k->tree, key), by, 0);
        pk_buf_printf(out, ",\"value\":%lld}", (long long)e->weight);
    }
    pk_buf_putc(out, ']');
}

static void text_edges(pk_buf *out, const pk_peek *k, const uint32_t *ids, size_t n, int in,
                       int64_t cum, const char *unit)
{
    for (size_t i = 0; i < n; i++) {
        const pk_key_edge *e = &k->sums.edges[ids[i]];
        char w[64], pct[32];
        pk_format_value(w, sizeof(w), e->weight, unit);
        pk_buf_printf(out, "%50s %7s |   %s\n", w,
                      pk_format_pct(pct, sizeof(pct), (double)e->weight, (double)cum),
                      pk_ltree_label(&k->tree, in ? e->from : e->to));
    }
}

static int report_peek_buf(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                           profkit_error *err)
{
    uint32_t v, th;
    if (pk_select(p, o->value, o->thread, &v, &th, err) != 0)
        return PROFKIT_EINVAL;
    pk_peek k;
    int rc = pk_peek_compute(&k, p, v, th, o->by, o->pattern, o->sort_cum, err);
    if (rc)
        return rc;
    const int64_t *flat = k.sums.flat, *cum = k.sums.cum;
    unsigned char *marks = NULL; /* inlined functions, as top marks them */
    if (pk_key_inline(p, k.tree.frame_key, k.tree.n_keys, v, th, &marks) != 0) {
        pk_peek_free(&k);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    }
    size_t n = k.n, shown = o->limit && o->limit < n ? o->limit : n;
    const char *unit = pk_str(p, p->value_types[v].unit);
    static const char sep[] = "-----------------------------------------------------------+-------------\n";
    if (o->json) {
        pk_rjson_open(out, "peek", p, v, th);
        pk_rjson_by(out, o->by);
        pk_buf_printf(out, ",\"sort\":\"%s\",\"pattern\":", o->sort_cum ? "cum" : "flat");
        pk_rjson_str(out, o->pattern);
        pk_buf_printf(out, ",\"total\":%lld,\"rows\":[", (long long)k.sums.total);
    } else {
        char tot[64];
        pk_format_value(tot, sizeof(tot), pk_percent_total(p, v, th, k.sums.total), unit);
        pk_buf_printf(out, "Value: %s (%s), total %s", pk_str(p, p->value_types[v].type), unit, tot);
        if (th != PROFKIT_NONE) {
            char label[300];
            pk_thread_label(p, th, label, sizeof label);
            pk_buf_printf(out, ", thread %s", label);
        }
        pk_report_kept(out, p, v, th, k.sums.total, unit, o);
        pk_buf_printf(out, "\nShowing %zu of %zu %s matching '%s', sorted by %s\n", shown, n,
                      pk_key_name(o->by, 1), o->pattern, o->sort_cum ? "cum" : "flat");
        pk_buf_puts(out, sep);
        pk_buf_printf(out, "%10s %7s %7s %10s %7s %13s | %s\n", "flat", "flat%", "sum%", "cum", "cum%",
                      "calls calls%", "callers above, callees below");
    }
    int64_t whole = pk_percent_total(p, v, th, k.sums.total);
    double total = whole ? (double)whole : 1.0, sum = 0;
    for (size_t i = 0; i < shown; i++) {
        uint32_t key = k.order[i];
        size_t nin, nout;
        uint32_t *in = pk_peek_edges(&k, key, 1, &nin), *outs = pk_peek_edges(&k, key, 0, &nout);
        if (!in || !outs) {
            free(in);
            free(outs);
            rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
            break;
        }
        if (o->json) {
            pk_buf_puts(out, i ? ",\n{" : "\n{");
            pk_rjson_key(out, p, k.tree.key_frame, key, pk_ltree_label(&k.tree, key),
                         pk_ltree_label_len(&k.tree, key), o->by, 0);
            const char *inl = pk_inline_json(marks, key);
            if (inl)
                pk_buf_printf(out, ",\"inline\":\"%s\"", inl);
            pk_buf_printf(out, ",\"flat\":%lld,\"cum\":%lld,\"callers\":", (long long)flat[key],
                          (long long)cum[key]);
            json_edges(out, &k, in, nin, 1, o->by);
            pk_buf_puts(out, ",\"callees\":");
            json_edges(out, &k, outs, nout, 0, o->by);
            pk_buf_putc(out, '}');
        } else {
            pk_buf_puts(out, sep);
            text_edges(out, &k, in, nin, 1, cum[key], unit);
            char f[64], c[64], p1[32], p2[32], p3[32];
            sum += (double)flat[key];
            pk_format_value(f, sizeof(f), flat[key], unit);
            pk_format_value(c, sizeof(c), cum[key], unit);
            pk_buf_printf(out, "%10s %7s %7s %10s %7s %13s | %s%s\n", f,
                          pk_format_pct(p1, sizeof(p1), (double)flat[key], total),
                          pk_format_pct(p2, sizeof(p2), sum, total), c,
                          pk_format_pct(p3, sizeof(p3), (double)cum[key], total), "",
                          pk_ltree_label(&k.tree, key), pk_inline_mark(marks, key));
            text_edges(out, &k, outs, nout, 0, cum[key], unit);
        }
        free(in);
        free(outs);
    }
    if (rc == 0)
        pk_buf_puts(out, o->json ? "]}\n" : sep);
    pk_peek_free(&k);
    free(marks);
    return rc;
}

/* The entry points: each report drains into the caller's FILE. */
int profkit_report_peek(FILE *file, const profkit_profile *p, const profkit_report_options *o,
                        profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_peek_buf(&out, p, o, err);
    pk_buf_flush(&out);
    return rc;
}
