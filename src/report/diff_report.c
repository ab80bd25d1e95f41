/*
 * diff_report.c: `profkit diff BASE NEW`, what changed between two runs:
 * per key (function, file, line or address) the change of its flat and
 * cumulative value, like `pprof -diff_base=BASE NEW -top`, with both
 * profiles' values beside the change. Keys are matched by their label, so
 * the two profiles may come from different formats; keys found in only one
 * of them count 0 in the other.
 */
#include "analysis/analysis.h"
#include "report/rjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct diff_row {
    const char *label;
    int64_t base_flat, new_flat, base_cum, new_cum;
} diff_row;

/* new - base, saturating; and its magnitude as an unsigned for sorting. */
static int64_t change(int64_t base, int64_t now)
{
    return pk_sat_add(now, base == INT64_MIN ? INT64_MAX : -base);
}
static uint64_t magnitude(int64_t d) { return d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d; }

typedef struct diff_sort {
    const diff_row *rows;
    int by_cum;
} diff_sort;

/* Biggest change first (flat, or cum), then the other change, then label. */
static int row_cmp(const void *ctx, uint32_t a, uint32_t b)
{
    const diff_sort *c = ctx;
    const diff_row *x = &c->rows[a], *y = &c->rows[b];
    uint64_t fx = magnitude(change(x->base_flat, x->new_flat)), fy = magnitude(change(y->base_flat, y->new_flat));
    uint64_t cx = magnitude(change(x->base_cum, x->new_cum)), cy = magnitude(change(y->base_cum, y->new_cum));
    uint64_t kx = c->by_cum ? cx : fx, ky = c->by_cum ? cy : fy;
    if (kx != ky)
        return kx > ky ? -1 : 1;
    uint64_t ox = c->by_cum ? fx : cx, oy = c->by_cum ? fy : cy;
    if (ox != oy)
        return ox > oy ? -1 : 1;
    return strcmp(x->label, y->label);
}

/* The base's index of value type `v` of p (same type and unit), or fails. */
static uint32_t base_value(const profkit_profile *base, const profkit_profile *p, uint32_t v,
                           profkit_error *err)
{
    size_t n;
    const profkit_value_type *vt = profkit_profile_value_types(p, &n);
    const char *type = profkit_string(p, vt[v].type), *unit = profkit_string(p, vt[v].unit);
    char name[512];
    snprintf(name, sizeof(name), "%s/%s", type, unit);
    uint32_t bv = profkit_profile_find_value(base, name);
    if (bv != PROFKIT_NONE)
        return bv;
    char have[256] = "";
    const profkit_value_type *bt = profkit_profile_value_types(base, &n);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(have);
        snprintf(have + len, sizeof(have) - len, "%s%s (%s)", i ? ", " : "",
                 profkit_string(base, bt[i].type), profkit_string(base, bt[i].unit));
    }
    pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                      "the base profile has no value %s (%s) to compare with; it has: %s", type,
                      unit, n ? have : "none");
    return PROFKIT_NONE;
}

static int64_t scale(int64_t x, double f)
{
    double y = (double)x * f;
    y = y < 0 ? y - 0.5 : y + 0.5;
    return y >= 9.2e18 ? INT64_MAX : y <= -9.2e18 ? INT64_MIN : (int64_t)y;
}

/* The gate: a change above limit = pct percent of base's total fails. */
static int over(int64_t base, int64_t now, double limit)
{
    return (double)change(base, now) > limit;
}

static int gate_count(const diff_row *rows, size_t n, int64_t btotal, int64_t ntotal, double pct)
{
    double limit = pct / 100.0 * (double)btotal;
    int failed = over(btotal, ntotal, limit);
    for (size_t i = 0; i < n; i++)
        failed += over(rows[i].base_flat, rows[i].new_flat, limit) +
                  over(rows[i].base_cum, rows[i].new_cum, limit);
    return failed;
}

/* One failed line: "FAIL  flat  +1.2s (+12.5% of base total)  NAME". */
static void gate_line(FILE *out, const char *what, int64_t base, int64_t now, double btotal,
                      const char *unit, const char *name)
{
    char d[64], pc[32];
    int64_t dc = change(base, now);
    pk_format_value(d, sizeof(d), dc, unit);
    fprintf(out, "FAIL %-5s +%s (+%s of base total)  %s\n", what, d,
            pk_format_pct(pc, sizeof(pc), (double)dc, btotal ? btotal : 1.0), name);
}

static void gate_text(FILE *out, const diff_row *rows, size_t n, int64_t btotal, int64_t ntotal,
                      double pct, const char *unit)
{
    double limit = pct / 100.0 * (double)btotal;
    int failed = gate_count(rows, n, btotal, ntotal, pct);
    fprintf(out, "\nGate: growth above %g%% of base total: %s\n", pct,
            failed ? "FAILED" : "passed");
    if (over(btotal, ntotal, limit))
        gate_line(out, "total", btotal, ntotal, (double)btotal, unit, "(total)");
    for (size_t i = 0; i < n; i++) {
        if (over(rows[i].base_flat, rows[i].new_flat, limit))
            gate_line(out, "flat", rows[i].base_flat, rows[i].new_flat, (double)btotal, unit, rows[i].label);
        if (over(rows[i].base_cum, rows[i].new_cum, limit))
            gate_line(out, "cum", rows[i].base_cum, rows[i].new_cum, (double)btotal, unit, rows[i].label);
    }
}

static void gate_json_item(FILE *out, int *first, const char *what, const char *name, int64_t base,
                           int64_t now)
{
    fputs(*first ? "{\"what\":" : ",{\"what\":", out);
    *first = 0;
    pk_rjson_str(out, what);
    fputs(",\"name\":", out);
    pk_rjson_str(out, name);
    fprintf(out, ",\"base\":%lld,\"new\":%lld,\"change\":%lld}", (long long)base,
            (long long)now, (long long)change(base, now));
}

static void diff_json(FILE *out, const profkit_profile *p, uint32_t v,
                      const profkit_report_options *o, const diff_row *rows, const uint32_t *order,
                      size_t limit, size_t n, int64_t btotal, int64_t ntotal)
{
    pk_rjson_open(out, "diff", p, v, PROFKIT_NONE);
    pk_rjson_by(out, o->by);
    fprintf(out, ",\"sort\":\"%s\",\"min_percent\":%.17g,\"normalized\":%s,\"base_total\":%lld,"
            "\"new_total\":%lld,\"total_change\":%lld,\"rows\":[",
            o->sort_cum ? "cum" : "flat", o->cutoff_pct, o->normalize ? "true" : "false", (long long)btotal,
            (long long)ntotal, (long long)change(btotal, ntotal));
    for (size_t i = 0; i < limit; i++) {
        const diff_row *r = &rows[order[i]];
        fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
        pk_rjson_str(out, r->label);
        fprintf(out, ",\"base_flat\":%lld,\"new_flat\":%lld,\"flat_change\":%lld,"
                "\"base_cum\":%lld,\"new_cum\":%lld,\"cum_change\":%lld}",
                (long long)r->base_flat, (long long)r->new_flat,
                (long long)change(r->base_flat, r->new_flat), (long long)r->base_cum,
                (long long)r->new_cum, (long long)change(r->base_cum, r->new_cum));
    }
    fputc(']', out);
    if (o->gate) {
        double limit_v = o->fail_on_increase / 100.0 * (double)btotal;
        int failed = gate_count(rows, n, btotal, ntotal, o->fail_on_increase);
        fprintf(out, ",\"gate\":{\"fail_on_increase\":");
        fprintf(out, "%.17g", o->fail_on_increase);
        fprintf(out, ",\"passed\":%s,\"failed\":[", failed ? "false" : "true");
        int first = 1;
        if (over(btotal, ntotal, limit_v))
            gate_json_item(out, &first, "total", "", btotal, ntotal);
        for (size_t i = 0; i < n; i++) {
            if (over(rows[i].base_flat, rows[i].new_flat, limit_v))
                gate_json_item(out, &first, "flat", rows[i].label, rows[i].base_flat, rows[i].new_flat);
            if (over(rows[i].base_cum, rows[i].new_cum, limit_v))
                gate_json_item(out, &first, "cum", rows[i].label, rows[i].base_cum, rows[i].new_cum);
        }
        fputs("]}", out);
    }
    fputs("}\n", out);
}

int profkit_report_diff(FILE *out, const profkit_profile *base, const profkit_profile *p,
                        const profkit_report_options *o, profkit_error *err)
{
    int ok;
    uint32_t v, th;
    if (pk_select(p, o->value, o->thread, &v, &th, err) != 0)
        return PROFKIT_EINVAL;
    uint32_t bv = base_value(base, p, v, err);
    if (bv == PROFKIT_NONE)
        return PROFKIT_EINVAL;
    uint32_t bth = pk_select_thread(base, o->thread, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    pk_top tn, tb;
    int rc = pk_top_compute(&tn, p, v, th, o->by, err);
    if (rc)
        return rc;
    if ((rc = pk_top_compute(&tb, base, bv, bth, o->by, err)) != 0) {
        pk_top_free(&tn);
        return rc;
    }
    rc = PROFKIT_ENOMEM;
    diff_row *rows = malloc((tn.n + tb.n + 1) * sizeof(*rows));
    uint8_t *matched = calloc(tb.n + 1, 1);
    uint32_t *order = NULL;
    size_t n = 0;
    if (!rows || !matched)
        goto done;
    /* Key 0 of a top is "" and never a row's key. Interning a label of p
     * into the base's keys finds the base's row, if any (a new id is >= tb.n). */
    for (size_t k = 1; k < tn.n; k++) {
        const char *label = pk_strtab_get(&tn.keys, (uint32_t)k);
        uint32_t bk = pk_strtab_intern(&tb.keys, label, strlen(label));
        if (bk == PROFKIT_NONE)
            goto done;
        diff_row r = { label, 0, tn.rows[k].flat, 0, tn.rows[k].cum };
        if (bk < tb.n) {
            r.base_flat = tb.rows[bk].flat;
            r.base_cum = tb.rows[bk].cum;
            matched[bk] = 1;
        }
        if (r.base_flat || r.new_flat || r.base_cum || r.new_cum)
            rows[n++] = r;
    }
    for (size_t k = 1; k < tb.n; k++) {
        if (matched[k] || (tb.rows[k].flat == 0 && tb.rows[k].cum == 0))
            continue;
        diff_row r = { pk_strtab_get(&tb.keys, (uint32_t)k), tb.rows[k].flat, 0, tb.rows[k].cum, 0 };
        rows[n++] = r;
    }
    if (o->normalize && tb.total != 0 && tb.total != tn.total) {
        /* pprof's -normalize: base scaled so that its total is new's. */
        double f = (double)tn.total / (double)tb.total;
        for (size_t i = 0; i < n; i++) {
            rows[i].base_flat = scale(rows[i].base_flat, f);
            rows[i].base_cum = scale(rows[i].base_cum, f);
        }
        tb.total = tn.total;
    }
    if (!(order = malloc((n ? n : 1) * sizeof(uint32_t))))
        goto done;
    /* --min-percent: rows whose change (flat, or cum) is below that percent
     * of base's total are not shown (the gate still sees every row). */
    size_t shown_n = 0;
    for (size_t i = 0; i < n; i++) {
        double ch = (double)(o->sort_cum ? change(rows[i].base_cum, rows[i].new_cum)
                                         : change(rows[i].base_flat, rows[i].new_flat));
        double bt = (double)tb.total;
        if (o->cutoff_pct > 0 && 100.0 * (ch < 0 ? -ch : ch) < o->cutoff_pct * (bt < 0 ? -bt : bt))
            continue;
        order[shown_n++] = (uint32_t)i;
    }
    diff_sort c = { rows, o->sort_cum };
    if (pk_sort_u32(order, shown_n, row_cmp, &c) != 0)
        goto done;
    size_t limit = o->limit && o->limit < shown_n ? o->limit : shown_n;

    int failed = o->gate ? gate_count(rows, n, tb.total, tn.total, o->fail_on_increase) : 0;
    if (o->json) {
        diff_json(out, p, v, o, rows, order, limit, n, tb.total, tn.total);
        rc = failed ? 1 : 0;
        goto done;
    }
    size_t nt;
    const profkit_value_type *vt = profkit_profile_value_types(p, &nt);
    const char *unit = profkit_string(p, vt[v].unit);
    double btotal = tb.total ? (double)tb.total : 1.0;
    char a[64], b[64], d[64], pc[32];
    pk_format_value(a, sizeof(a), tb.total, unit);
    pk_format_value(b, sizeof(b), tn.total, unit);
    int64_t dt = change(tb.total, tn.total);
    pk_format_value(d, sizeof(d), dt, unit);
    fprintf(out, "Value: %s (%s), base total %s, new total %s, change %s%s (%s of base)",
            profkit_string(p, vt[v].type), unit, a, b, dt > 0 ? "+" : "", d,
            pk_format_pct(pc, sizeof(pc), (double)dt, btotal));
    if (o->thread)
        fprintf(out, ", thread %s", o->thread);
    fprintf(out, "\nShowing top %zu of %zu %s, sorted by %s change\n", limit, shown_n,
            pk_key_name(o->by, 1), o->sort_cum ? "cum" : "flat");
    fprintf(out, "%10s %8s %10s %10s %10s %8s %10s %10s  %s\n", "flat chg", "chg%", "base flat",
            "new flat", "cum chg", "chg%", "base cum", "new cum", pk_key_name(o->by, 0));
    for (size_t i = 0; i < limit; i++) {
        const diff_row *r = &rows[order[i]];
        char f[64], fp[32], fb[64], fn[64], cd[64], cp[32], cb[64], cn[64];
        int64_t df = change(r->base_flat, r->new_flat), dc = change(r->base_cum, r->new_cum);
        size_t w = (size_t)snprintf(f, sizeof(f), "%s", df > 0 ? "+" : "");
        pk_format_value(f + w, sizeof(f) - w, df, unit);
        w = (size_t)snprintf(cd, sizeof(cd), "%s", dc > 0 ? "+" : "");
        pk_format_value(cd + w, sizeof(cd) - w, dc, unit);
        pk_format_value(fb, sizeof(fb), r->base_flat, unit);
        pk_format_value(fn, sizeof(fn), r->new_flat, unit);
        pk_format_value(cb, sizeof(cb), r->base_cum, unit);
        pk_format_value(cn, sizeof(cn), r->new_cum, unit);
        fprintf(out, "%10s %8s %10s %10s %10s %8s %10s %10s  %s\n", f,
                pk_format_pct(fp, sizeof(fp), (double)df, btotal), fb, fn, cd,
                pk_format_pct(cp, sizeof(cp), (double)dc, btotal), cb, cn, r->label);
    }
    if (o->gate)
        gate_text(out, rows, n, tb.total, tn.total, o->fail_on_increase, unit);
    rc = failed ? 1 : 0;
done:
    free(rows);
    free(matched);
    free(order);
    pk_top_free(&tn);
    pk_top_free(&tb);
    if (rc < 0)
        pk_error_set(err, rc, NULL, -1, "out of memory comparing profiles");
    return rc;
}
