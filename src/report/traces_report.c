/*
 * traces_report.c: `profkit traces`, each distinct stack with its value,
 * like pprof -traces. pprof prints every sample of the profile in file
 * order; we merge the samples whose stacks print alike (labels per --by)
 * and sort them, largest first, so the list answers "which stacks cost
 * most" and -n cuts it.
 */
#include "analysis/analysis.h"
#include "report/rjson.h"

#include <stdlib.h>
#include <string.h>

typedef struct traces {
    pk_strtab keys;  /* frame labels */
    pk_strtab paths; /* a trace: its key ids, leaf first, as bytes */
    int64_t *value;       /* per path id */
    size_t cap;
    uint32_t *order;      /* path ids with a non-zero value, sorted */
    size_t n;
    int64_t total;
} traces;

static void traces_free(traces *t)
{
    pk_strtab_free(&t->keys);
    pk_strtab_free(&t->paths);
    free(t->value);
    free(t->order);
}

static size_t path_len(const traces *t, uint32_t id) { return pk_strtab_len(&t->paths, id) / 4; }
static uint32_t path_key(const traces *t, uint32_t id, size_t i)
{
    uint32_t k;
    memcpy(&k, pk_strtab_get(&t->paths, id) + 4 * i, 4);
    return k;
}

static int64_t abs64(int64_t v) { return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v; }

/* Largest |value| first, then the labels leaf first. */
static int cmp_trace(const void *ctx, uint32_t a, uint32_t b)
{
    const traces *t = ctx;
    int64_t va = abs64(t->value[a]), vb = abs64(t->value[b]);
    if (va != vb)
        return va > vb ? -1 : 1;
    size_t na = path_len(t, a), nb = path_len(t, b);
    for (size_t i = 0; i < na && i < nb; i++) {
        int c = strcmp(pk_strtab_get(&t->keys, path_key(t, a, i)),
                       pk_strtab_get(&t->keys, path_key(t, b, i)));
        if (c)
            return c;
    }
    return na < nb ? -1 : na > nb;
}

static int traces_compute(traces *t, const profkit_profile *p, uint32_t v, uint32_t th,
                          profkit_key by, profkit_error *err)
{
    memset(t, 0, sizeof(*t));
    int64_t *self = NULL;
    uint32_t *fkey = NULL, *buf = NULL;
    size_t bufcap = 0;
    int rc = PROFKIT_ENOMEM;
    if (pk_strtab_init(&t->keys) != 0 || pk_strtab_init(&t->paths) != 0)
        goto done;
    if (!(fkey = malloc((p->n_frames ? p->n_frames : 1) * sizeof(uint32_t))))
        goto done;
    for (size_t f = 0; f < p->n_frames; f++) {
        char label[4096];
        size_t len = pk_frame_key_label(p, (uint32_t)f, by, label, sizeof(label));
        if ((fkey[f] = pk_strtab_intern(&t->keys, label, len)) == PROFKIT_NONE)
            goto done;
    }
    if (pk_stack_self(p, v, th, &self) != 0)
        goto done;
    for (size_t s = 1; s < p->n_stacks; s++) {
        if (self[s] == 0)
            continue;
        size_t d = 0;
        for (uint32_t u = (uint32_t)s; u != 0; u = p->stacks[u].parent) {
            if (d == bufcap && pk_grow((void **)&buf, &bufcap, d + 1, sizeof(uint32_t)) != 0)
                goto done;
            buf[d++] = fkey[p->stacks[u].frame];
        }
        uint32_t id = pk_strtab_intern(&t->paths, (const char *)buf, d * 4);
        if (id == PROFKIT_NONE)
            goto done;
        if (id >= t->cap) {
            size_t old = t->cap;
            if (pk_grow((void **)&t->value, &t->cap, (size_t)id + 1, sizeof(int64_t)) != 0)
                goto done;
            memset(t->value + old, 0, (t->cap - old) * sizeof(int64_t));
        }
        pk_sat_addto(&t->value[id], self[s]);
        pk_sat_addto(&t->total, self[s]);
    }
    if (!(t->order = malloc((t->paths.n ? t->paths.n : 1) * sizeof(uint32_t))))
        goto done;
    for (uint32_t id = 1; id < t->paths.n; id++)
        if (id < t->cap && t->value[id] != 0)
            t->order[t->n++] = id;
    if (pk_sort_u32(t->order, t->n, cmp_trace, t) != 0)
        goto done;
    rc = 0;
done:
    free(self);
    free(fkey);
    free(buf);
    if (rc) {
        traces_free(t);
        return pk_error_set(err, rc, NULL, -1, "out of memory");
    }
    return 0;
}

int profkit_report_traces(FILE *out, const profkit_profile *p, const profkit_report_options *o,
                          profkit_error *err)
{
    uint32_t v, th;
    if (pk_select(p, o->value, o->thread, &v, &th, err) != 0)
        return PROFKIT_EINVAL;
    traces t;
    int rc = traces_compute(&t, p, v, th, o->by, err);
    if (rc)
        return rc;
    size_t shown = o->limit && o->limit < t.n ? o->limit : t.n;
    if (o->json) {
        pk_rjson_open(out, "traces", p, v, th);
        pk_rjson_by(out, o->by);
        fprintf(out, ",\"total\":%lld,\"count\":%zu,\"traces\":[", (long long)t.total, t.n);
        for (size_t i = 0; i < shown; i++) {
            uint32_t id = t.order[i];
            fprintf(out, "%s{\"value\":%lld,\"stack\":[", i ? ",\n" : "\n", (long long)t.value[id]);
            for (size_t j = 0; j < path_len(&t, id); j++) {
                if (j)
                    fputc(',', out);
                pk_rjson_str(out, pk_strtab_get(&t.keys, path_key(&t, id, j)));
            }
            fputs("]}", out);
        }
        fputs("]}\n", out);
        traces_free(&t);
        return 0;
    }
    const char *unit = pk_str(p, p->value_types[v].unit);
    char buf[64];
    pk_format_value(buf, sizeof(buf), t.total, unit);
    fprintf(out, "Value: %s (%s), total %s", pk_str(p, p->value_types[v].type), unit, buf);
    if (th != PROFKIT_NONE)
        fprintf(out, ", thread %s", pk_str(p, p->threads[th].name));
    fprintf(out, "\nShowing %zu of %zu stacks, largest first, leaf first, by %s\n", shown, t.n,
            pk_key_name(o->by, 0));
    static const char sep[] = "-------------------+-------------------------------------------------------\n";
    double total = t.total ? (double)t.total : 1.0;
    for (size_t i = 0; i < shown; i++) {
        uint32_t id = t.order[i];
        fputs(sep, out);
        char pct[32];
        pk_format_value(buf, sizeof(buf), t.value[id], unit);
        for (size_t j = 0; j < path_len(&t, id); j++)
            fprintf(out, "%10s %7s   %s\n", j ? "" : buf,
                    j ? "" : pk_format_pct(pct, sizeof(pct), (double)t.value[id], total),
                    pk_strtab_get(&t.keys, path_key(&t, id, j)));
    }
    fputs(sep, out);
    traces_free(&t);
    return 0;
}
