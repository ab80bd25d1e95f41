/*
 * diff.c: what changed between two runs per key, like `pprof
 * -diff_base=BASE NEW -top`; see analysis.h. Keys are matched by their
 * label, so the two profiles may come from different formats; keys found
 * in only one of them count 0 in the other.
 */
#include "analysis/analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t pk_diff_change(int64_t base, int64_t now)
{
    return pk_sat_add(now, base == INT64_MIN ? INT64_MAX : -base);
}

static uint64_t magnitude(int64_t d) { return d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d; }

typedef struct diff_sort {
    const pk_diff_row *rows;
    int by_cum;
} diff_sort;

/* Biggest change first (flat, or cum), then the other change, then label. */
static int row_cmp(const void *ctx, uint32_t a, uint32_t b)
{
    const diff_sort *c = ctx;
    const pk_diff_row *x = &c->rows[a], *y = &c->rows[b];
    uint64_t fx = magnitude(pk_diff_change(x->base_flat, x->new_flat));
    uint64_t fy = magnitude(pk_diff_change(y->base_flat, y->new_flat));
    uint64_t cx = magnitude(pk_diff_change(x->base_cum, x->new_cum));
    uint64_t cy = magnitude(pk_diff_change(y->base_cum, y->new_cum));
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
                 "the base profile has no value %s (%s) to compare with; it has: %s", type, unit,
                 n ? have : "none");
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
    return (double)pk_diff_change(base, now) > limit;
}

static int add_fail(pk_diff *d, size_t *cap, const char *what, uint32_t row, int64_t base,
                    int64_t now)
{
    if (PK_VEC_RESERVE(d->fails, d->n_fails, *cap, 1) != 0)
        return PROFKIT_ENOMEM;
    pk_diff_fail f = { what, row, base, now };
    d->fails[d->n_fails++] = f;
    return 0;
}

/* What passes fail_on_increase percent of BASE's total: the total first,
 * then per row its flat and its cum. */
static int gate(pk_diff *d, double pct)
{
    double limit = pct / 100.0 * (double)d->base_total;
    size_t cap = 0;
    if (over(d->base_total, d->new_total, limit) &&
        add_fail(d, &cap, "total", PROFKIT_NONE, d->base_total, d->new_total) != 0)
        return PROFKIT_ENOMEM;
    for (size_t i = 0; i < d->n; i++) {
        const pk_diff_row *r = &d->rows[i];
        if ((over(r->base_flat, r->new_flat, limit) &&
             add_fail(d, &cap, "flat", (uint32_t)i, r->base_flat, r->new_flat) != 0) ||
            (over(r->base_cum, r->new_cum, limit) &&
             add_fail(d, &cap, "cum", (uint32_t)i, r->base_cum, r->new_cum) != 0))
            return PROFKIT_ENOMEM;
    }
    return 0;
}

void pk_diff_free(pk_diff *d)
{
    pk_top_free(&d->tn);
    pk_top_free(&d->tb);
    free(d->rows);
    free(d->order);
    free(d->fails);
    pk_strtab_free(&d->labels);
    memset(d, 0, sizeof(*d));
}

/* Rows of one label whose functions are of different files (one in each
 * profile, each alone in its own): "LABEL FILE", as the tops label the
 * functions of a name that two files have. */
static int label_by_file(pk_diff *d)
{
    pk_strtab seen;
    uint32_t *count = NULL;
    int rc = PROFKIT_ENOMEM;
    if (pk_strtab_init(&seen) != 0)
        return rc;
    if (!(count = calloc(d->n + 2, sizeof(uint32_t))))
        goto out;
    uint32_t *id = malloc((d->n ? d->n : 1) * sizeof(uint32_t));
    if (!id)
        goto out;
    for (size_t i = 0; i < d->n; i++) {
        if ((id[i] = pk_strtab_intern(&seen, d->rows[i].label, strlen(d->rows[i].label))) == PROFKIT_NONE ||
            id[i] >= d->n + 2) {
            free(id);
            goto out;
        }
        count[id[i]]++;
    }
    char buf[4096];
    for (size_t i = 0; i < d->n; i++) {
        pk_diff_row *r = &d->rows[i];
        if (count[id[i]] < 2 || !r->src || r->frame >= r->src->n_frames)
            continue;
        uint32_t fn = r->src->frames[r->frame].function;
        uint32_t file = fn < r->src->n_functions ? r->src->functions[fn].file : 0;
        if (!pk_strtab_len(&r->src->strings, file))
            continue;
        int w = snprintf(buf, sizeof(buf), "%s %s", r->label, pk_str(r->src, file));
        size_t len = w < 0 ? 0 : (size_t)w < sizeof(buf) ? (size_t)w : sizeof(buf) - 1;
        uint32_t l = pk_strtab_intern(&d->labels, buf, len);
        if (l == PROFKIT_NONE) {
            free(id);
            goto out;
        }
        r->label = pk_strtab_get(&d->labels, l);
    }
    free(id);
    rc = 0;
out:
    free(count);
    pk_strtab_free(&seen);
    return rc;
}

/* What matches a key by function across two profiles: its function's
 * label, a NUL, and its file. */
static size_t match_key(const profkit_profile *p, uint32_t frame, char *buf, size_t n)
{
    if (frame >= p->n_frames)
        return 0;
    size_t len = pk_frame_label(p, frame, 0, buf, n - 1);
    buf[len++] = '\0';
    uint32_t fn = p->frames[frame].function;
    if (fn < p->n_functions)
        len += pk_str_copy(p, p->functions[fn].file, buf + len, n - len);
    return len;
}

int pk_diff_compute(pk_diff *d, const profkit_profile *base, const profkit_profile *p,
                    uint32_t value, const char *thread, profkit_key by, int normalize,
                    double cutoff_pct, int sort_cum, int with_gate, double fail_on_increase,
                    profkit_error *err)
{
    memset(d, 0, sizeof(*d));
    d->value = value;
    int ok;
    uint32_t th = pk_select_thread(p, thread, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    uint32_t bv = base_value(base, p, value, err);
    if (bv == PROFKIT_NONE)
        return PROFKIT_EINVAL;
    uint32_t bth = pk_select_thread(base, thread, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    int rc = pk_top_compute(&d->tn, p, value, th, by, err);
    if (rc)
        return rc;
    if ((rc = pk_top_compute(&d->tb, base, bv, bth, by, err)) != 0) {
        pk_diff_free(d);
        return rc;
    }
    const pk_top *tn = &d->tn, *tb = &d->tb;
    rc = PROFKIT_ENOMEM;
    pk_strtab bnames = { 0 };
    uint32_t *bname = NULL, *bkey_of = NULL; /* base key -> bnames id, and back */
    char buf[4096];
    uint8_t *matched = calloc(tb->n + 1, 1);
    if (!(d->rows = malloc((tn->n + tb->n + 1) * sizeof(*d->rows))) || !matched)
        goto done;
    /* By function, a key is matched by its function's name and file (one
     * side may add the file to a label where the other has no second
     * function of that name: the row shows the label with the file). */
    int by_fn = tn->key_frame && tb->key_frame;
    if (by_fn && (pk_strtab_init(&bnames) != 0 || !(bname = malloc((tb->n ? tb->n : 1) * sizeof(uint32_t)))))
        goto done;
    for (size_t k = 1; by_fn && k < tb->n; k++) {
        size_t len = match_key(base, tb->key_frame[k], buf, sizeof(buf));
        if ((bname[k] = pk_strtab_intern(&bnames, buf, len)) == PROFKIT_NONE)
            goto done;
    }
    if (by_fn) {
        if (!(bkey_of = malloc((bnames.n ? bnames.n : 1) * sizeof(uint32_t))))
            goto done;
        for (size_t i = 0; i < bnames.n; i++)
            bkey_of[i] = PROFKIT_NONE;
        /* a label split by file keeps a key no frame has: skip the empty */
        for (size_t k = tb->n; k-- > 1;)
            if (tb->rows[k].flat || tb->rows[k].cum || bkey_of[bname[k]] == PROFKIT_NONE)
                bkey_of[bname[k]] = (uint32_t)k;
    }
    /* Key 0 of a top is "" and never a row's key. */
    for (size_t k = 1; k < tn->n; k++) {
        if (tn->rows[k].flat == 0 && tn->rows[k].cum == 0)
            continue; /* not a row (BASE's key, if any, stays a row of its own) */
        const char *label = pk_strtab_get(&tn->keys, (uint32_t)k);
        uint32_t bk;
        if (by_fn) {
            size_t len = match_key(p, tn->key_frame[k], buf, sizeof(buf));
            uint32_t id = pk_strtab_find(&bnames, buf, len);
            bk = id == PROFKIT_NONE ? PROFKIT_NONE : bkey_of[id];
        } else {
            bk = pk_strtab_find(&tb->keys, label, pk_strtab_len(&tn->keys, (uint32_t)k));
        }
        pk_diff_row r = { label, 0, tn->rows[k].flat, 0, tn->rows[k].cum,
                          by_fn ? p : NULL, by_fn ? tn->key_frame[k] : PROFKIT_NONE };
        if (bk != PROFKIT_NONE && bk < tb->n) {
            r.base_flat = tb->rows[bk].flat;
            r.base_cum = tb->rows[bk].cum;
            matched[bk] = 1;
            if (pk_strtab_len(&tb->keys, bk) > pk_strtab_len(&tn->keys, (uint32_t)k))
                r.label = pk_strtab_get(&tb->keys, bk);
        }
        if (r.base_flat || r.new_flat || r.base_cum || r.new_cum)
            d->rows[d->n++] = r;
    }
    for (size_t k = 1; k < tb->n; k++) {
        if (matched[k] || (tb->rows[k].flat == 0 && tb->rows[k].cum == 0))
            continue;
        pk_diff_row r = { pk_strtab_get(&tb->keys, (uint32_t)k), tb->rows[k].flat, 0,
                          tb->rows[k].cum, 0, by_fn ? base : NULL,
                          by_fn ? tb->key_frame[k] : PROFKIT_NONE };
        d->rows[d->n++] = r;
    }
    if (by_fn && (pk_strtab_init(&d->labels) != 0 || label_by_file(d) != 0))
        goto done;
    d->base_total = tb->total;
    d->new_total = tn->total;
    if (normalize && d->base_total != 0 && d->base_total != d->new_total) {
        /* pprof's -normalize: base scaled so that its total is new's. */
        double f = (double)d->new_total / (double)d->base_total;
        for (size_t i = 0; i < d->n; i++) {
            d->rows[i].base_flat = scale(d->rows[i].base_flat, f);
            d->rows[i].base_cum = scale(d->rows[i].base_cum, f);
        }
        d->base_total = d->new_total;
    }
    if (!(d->order = malloc((d->n ? d->n : 1) * sizeof(uint32_t))))
        goto done;
    /* cutoff_pct: rows whose change (flat, or cum) is below that percent
     * of base's total are not shown (the gate still sees every row). */
    for (size_t i = 0; i < d->n; i++) {
        const pk_diff_row *r = &d->rows[i];
        double ch = (double)(sort_cum ? pk_diff_change(r->base_cum, r->new_cum)
                                      : pk_diff_change(r->base_flat, r->new_flat));
        double bt = (double)d->base_total;
        if (cutoff_pct > 0 && 100.0 * (ch < 0 ? -ch : ch) < cutoff_pct * (bt < 0 ? -bt : bt))
            continue;
        d->order[d->n_shown++] = (uint32_t)i;
    }
    diff_sort c = { d->rows, sort_cum };
    if (pk_sort_u32(d->order, d->n_shown, row_cmp, &c) != 0)
        goto done;
    if (with_gate && gate(d, fail_on_increase) != 0)
        goto done;
    rc = 0;
done:
    free(matched);
    free(bname);
    free(bkey_of);
    pk_strtab_free(&bnames);
    if (rc) {
        pk_diff_free(d);
        pk_error_set(err, rc, NULL, -1, "out of memory comparing profiles");
    }
    return rc;
}
