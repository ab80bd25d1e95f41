/*
 * diff_report.c: `profkit diff BASE NEW`, what changed between two runs:
 * per key (function, file, line or address) the change of its flat and
 * cumulative value, like `pprof -diff_base=BASE NEW -top`, with both
 * profiles' values beside the change; computed by pk_diff_compute
 * (analysis/diff.c).
 */
#include "util/buf.h"
#include "analysis/analysis.h"
#include "report/rjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One failed line: "FAIL  flat  +1.2s (+12.5% of base total)  NAME". */
static void gate_line(pk_buf *out, const char *what, int64_t base, int64_t now, double btotal,
                      const char *unit, const char *name)
{
    char d[64], pc[32];
    int64_t dc = pk_diff_change(base, now);
    pk_format_value(d, sizeof(d), dc, unit);
    pk_buf_printf(out, "FAIL %-5s +%s (+%s of base total)  %s\n", what, d,
                  pk_format_pct(pc, sizeof(pc), (double)dc, btotal ? btotal : 1.0), name);
}

static const char *fail_name(const pk_diff *d, const pk_diff_fail *f, const char *total_name)
{
    return f->row == PROFKIT_NONE ? total_name : d->rows[f->row].label;
}

static void gate_text(pk_buf *out, const pk_diff *d, double pct, const char *unit)
{
    pk_buf_printf(out, "\nGate: growth above %g%% of base total: %s\n", pct,
                  d->n_fails ? "FAILED" : "passed");
    for (size_t i = 0; i < d->n_fails; i++) {
        const pk_diff_fail *f = &d->fails[i];
        gate_line(out, f->what, f->base, f->now, (double)d->base_total, unit,
                  fail_name(d, f, "(total)"));
    }
}

static void diff_json(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                      const pk_diff *d, size_t limit)
{
    pk_rjson_open(out, "diff", p, d->value, PROFKIT_NONE);
    pk_rjson_by(out, o->by);
    pk_buf_printf(out, ",\"sort\":\"%s\",\"min_percent\":%.17g,\"normalized\":%s,\"base_total\":%lld,"
                  "\"new_total\":%lld,\"total_change\":%lld,\"rows\":[",
                  o->sort_cum ? "cum" : "flat", o->cutoff_pct, o->normalize ? "true" : "false",
                  (long long)d->base_total, (long long)d->new_total,
                  (long long)pk_diff_change(d->base_total, d->new_total));
    for (size_t i = 0; i < limit; i++) {
        const pk_diff_row *r = &d->rows[d->order[i]];
        pk_buf_puts(out, i ? ",\n{\"name\":" : "\n{\"name\":");
        pk_rjson_str(out, r->label);
        if (r->src && r->frame < r->src->n_frames && r->src->frames[r->frame].function < r->src->n_functions) {
            const profkit_function *fn = &r->src->functions[r->src->frames[r->frame].function];
            if (pk_strtab_len(&r->src->strings, fn->file)) {
                pk_buf_puts(out, ",\"file\":");
                pk_rjson_strn(out, pk_str(r->src, fn->file), pk_strtab_len(&r->src->strings, fn->file));
            }
            if (fn->start_line)
                pk_buf_printf(out, ",\"line\":%u", fn->start_line);
        }
        pk_buf_printf(out, ",\"base_flat\":%lld,\"new_flat\":%lld,\"flat_change\":%lld,"
                      "\"base_cum\":%lld,\"new_cum\":%lld,\"cum_change\":%lld}",
                      (long long)r->base_flat, (long long)r->new_flat,
                      (long long)pk_diff_change(r->base_flat, r->new_flat), (long long)r->base_cum,
                      (long long)r->new_cum, (long long)pk_diff_change(r->base_cum, r->new_cum));
    }
    pk_buf_putc(out, ']');
    if (o->gate) {
        pk_buf_printf(out, ",\"gate\":{\"fail_on_increase\":");
        pk_buf_printf(out, "%.17g", o->fail_on_increase);
        pk_buf_printf(out, ",\"passed\":%s,\"failed\":[", d->n_fails ? "false" : "true");
        for (size_t i = 0; i < d->n_fails; i++) {
            const pk_diff_fail *f = &d->fails[i];
            pk_buf_puts(out, i ? ",{\"what\":" : "{\"what\":");
            pk_rjson_str(out, f->what);
            pk_buf_puts(out, ",\"name\":");
            pk_rjson_str(out, fail_name(d, f, ""));
            pk_buf_printf(out, ",\"base\":%lld,\"new\":%lld,\"change\":%lld}", (long long)f->base,
                          (long long)f->now, (long long)pk_diff_change(f->base, f->now));
        }
        pk_buf_puts(out, "]}");
    }
    pk_buf_puts(out, "}\n");
}

static int report_diff_buf(pk_buf *out, const profkit_profile *base, const profkit_profile *p,
                           const profkit_report_options *o, profkit_error *err)
{
    uint32_t v, th;
    if (pk_select(p, o->value, o->thread, &v, &th, err) != 0)
        return PROFKIT_EINVAL;
    pk_diff dd;
    int rc = pk_diff_compute(&dd, base, p, v, o->thread, o->by, o->normalize, o->cutoff_pct,
                             o->sort_cum, o->gate, o->fail_on_increase, err);
    if (rc)
        return rc;
    const pk_diff *d = &dd;
    size_t limit = o->limit && o->limit < d->n_shown ? o->limit : d->n_shown;
    int failed = o->gate && d->n_fails;
    if (o->json) {
        diff_json(out, p, o, d, limit);
        pk_diff_free(&dd);
        return failed ? 1 : 0;
    }
    size_t nt;
    const profkit_value_type *vt = profkit_profile_value_types(p, &nt);
    const char *unit = profkit_string(p, vt[v].unit);
    /* percentages of BASE's whole total, as the other reports' (after
     * filters too; --relative: of what they left; --normalize: BASE scaled) */
    int64_t bwhole = d->base_total;
    uint32_t bv, bth;
    profkit_error e2;
    if (!o->normalize && pk_select(base, profkit_string(p, vt[v].type), o->thread, &bv, &bth, &e2) == 0)
        bwhole = pk_percent_total(base, bv, bth, d->base_total);
    double btotal = bwhole ? (double)bwhole : 1.0;
    char a[64], b[64], ch[64], pc[32];
    pk_format_value(a, sizeof(a), d->base_total, unit);
    pk_format_value(b, sizeof(b), d->new_total, unit);
    int64_t dt = pk_diff_change(d->base_total, d->new_total);
    pk_format_value(ch, sizeof(ch), dt, unit);
    pk_buf_printf(out, "Value: %s (%s), base total %s, new total %s, change %s%s (%s of base)",
                  profkit_string(p, vt[v].type), unit, a, b, dt > 0 ? "+" : "", ch,
                  pk_format_pct(pc, sizeof(pc), (double)dt, btotal));
    if (o->thread)
        pk_buf_printf(out, ", thread %s", o->thread);
    pk_buf_printf(out, "\nShowing top %zu of %zu %s, sorted by %s change\n", limit, d->n_shown,
                  pk_key_name(o->by, 1), o->sort_cum ? "cum" : "flat");
    pk_buf_printf(out, "%10s %8s %10s %10s %10s %8s %10s %10s  %s\n", "flat chg", "chg%", "base flat",
                  "new flat", "cum chg", "chg%", "base cum", "new cum", pk_key_name(o->by, 0));
    for (size_t i = 0; i < limit; i++) {
        const pk_diff_row *r = &d->rows[d->order[i]];
        char f[64], fp[32], fb[64], fn[64], cd[64], cp[32], cb[64], cn[64];
        int64_t df = pk_diff_change(r->base_flat, r->new_flat), dc = pk_diff_change(r->base_cum, r->new_cum);
        size_t w = (size_t)snprintf(f, sizeof(f), "%s", df > 0 ? "+" : "");
        pk_format_value(f + w, sizeof(f) - w, df, unit);
        w = (size_t)snprintf(cd, sizeof(cd), "%s", dc > 0 ? "+" : "");
        pk_format_value(cd + w, sizeof(cd) - w, dc, unit);
        pk_format_value(fb, sizeof(fb), r->base_flat, unit);
        pk_format_value(fn, sizeof(fn), r->new_flat, unit);
        pk_format_value(cb, sizeof(cb), r->base_cum, unit);
        pk_format_value(cn, sizeof(cn), r->new_cum, unit);
        pk_buf_printf(out, "%10s %8s %10s %10s %10s %8s %10s %10s  %s\n", f,
                      pk_format_pct(fp, sizeof(fp), (double)df, btotal), fb, fn, cd,
                      pk_format_pct(cp, sizeof(cp), (double)dc, btotal), cb, cn, r->label);
    }
    if (o->gate)
        gate_text(out, d, o->fail_on_increase, unit);
    pk_diff_free(&dd);
    return failed ? 1 : 0;
}

/* The entry points: each report drains into the caller's FILE. */
int profkit_report_diff(FILE *file, const profkit_profile *base, const profkit_profile *p,
                        const profkit_report_options *o, profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_diff_buf(&out, base, p, o, err);
    pk_buf_flush(&out);
    return rc;
}
