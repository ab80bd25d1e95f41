/*
 * peek_report.c: `profkit peek RE`, each matching key's callers and
 * callees, like pprof -peek. Edges are counted as pprof's call graph counts
 * them: once per stack that holds the call (however often it recurs), and
 * a key calling itself is no edge; flat and cum as in `top`.
 */
#include "analysis/analysis.h"
#include "report/rjson.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

typedef struct edge {
    uint32_t from, to;
    int64_t weight;
    uint32_t stamp; /* the last stack that counted it */
} edge;

typedef struct peek {
    pk_strtab keys;
    int64_t *flat, *cum;
    uint32_t *stamp;
    unsigned char *match;
    edge *edges;
    size_t n_edges, cap_edges;
    uint32_t *slot; /* open addressing: edge index + 1, 0 = empty */
    size_t n_slots;
    int64_t total;
} peek;

static void peek_free(peek *k)
{
    pk_strtab_free(&k->keys);
    free(k->flat);
    free(k->cum);
    free(k->stamp);
    free(k->match);
    free(k->edges);
    free(k->slot);
}

static uint64_t edge_hash(uint32_t a, uint32_t b) { return pk_hash_u64(((uint64_t)a << 32) | b); }

static int rehash(peek *k)
{
    size_t n = k->n_slots ? k->n_slots * 2 : 64;
    uint32_t *s = calloc(n, sizeof(uint32_t));
    if (!s)
        return -1;
    for (size_t i = 0; i < k->n_edges; i++) {
        size_t h = (size_t)edge_hash(k->edges[i].from, k->edges[i].to) & (n - 1);
        while (s[h])
            h = (h + 1) & (n - 1);
        s[h] = (uint32_t)i + 1;
    }
    free(k->slot);
    k->slot = s;
    k->n_slots = n;
    return 0;
}

/* The edge a -> b, added with weight 0 when new; NULL when out of memory. */
static edge *edge_get(peek *k, uint32_t a, uint32_t b)
{
    if ((k->n_edges + 1) * 2 > k->n_slots && rehash(k) != 0)
        return NULL;
    size_t h = (size_t)edge_hash(a, b) & (k->n_slots - 1);
    while (k->slot[h]) {
        edge *e = &k->edges[k->slot[h] - 1];
        if (e->from == a && e->to == b)
            return e;
        h = (h + 1) & (k->n_slots - 1);
    }
    if (PK_VEC_RESERVE(k->edges, k->n_edges, k->cap_edges, 1) != 0)
        return NULL;
    edge *e = &k->edges[k->n_edges++];
    e->from = a;
    e->to = b;
    e->weight = 0;
    e->stamp = 0;
    k->slot[h] = (uint32_t)k->n_edges;
    return e;
}

static int64_t abs64(int64_t v) { return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v; }

typedef struct sort_ctx {
    const peek *k;
    int by_cum;
} sort_ctx;

static int cmp_key(const void *ctx, uint32_t a, uint32_t b)
{
    const sort_ctx *c = ctx;
    int64_t va = abs64(c->by_cum ? c->k->cum[a] : c->k->flat[a]);
    int64_t vb = abs64(c->by_cum ? c->k->cum[b] : c->k->flat[b]);
    if (va != vb)
        return va > vb ? -1 : 1;
    return strcmp(pk_strtab_get(&c->k->keys, a), pk_strtab_get(&c->k->keys, b));
}

/* Edges by |weight| descending, then caller, then callee (pprof's order). */
static int cmp_edge(const void *ctx, uint32_t a, uint32_t b)
{
    const peek *k = ctx;
    const edge *x = &k->edges[a], *y = &k->edges[b];
    int64_t va = abs64(x->weight), vb = abs64(y->weight);
    if (va != vb)
        return va > vb ? -1 : 1;
    int c = strcmp(pk_strtab_get(&k->keys, x->from), pk_strtab_get(&k->keys, y->from));
    return c ? c : strcmp(pk_strtab_get(&k->keys, x->to), pk_strtab_get(&k->keys, y->to));
}

static int peek_compute(peek *k, const profkit_profile *p, uint32_t v, uint32_t th, profkit_key by,
                        const regex_t *re)
{
    memset(k, 0, sizeof(*k));
    uint32_t *fkey = NULL;
    int64_t *self = NULL;
    int rc = -1;
    if (pk_strtab_init(&k->keys) != 0 ||
        !(fkey = malloc((p->n_frames ? p->n_frames : 1) * sizeof(uint32_t))))
        goto done;
    for (size_t f = 0; f < p->n_frames; f++) {
        char label[4096];
        size_t len = pk_frame_key_label(p, (uint32_t)f, by, label, sizeof(label));
        if ((fkey[f] = pk_strtab_intern(&k->keys, label, len)) == PROFKIT_NONE)
            goto done;
    }
    size_t n = k->keys.n;
    if (!(k->flat = calloc(n, sizeof(int64_t))) || !(k->cum = calloc(n, sizeof(int64_t))) ||
        !(k->stamp = calloc(n, sizeof(uint32_t))) || !(k->match = calloc(n, 1)))
        goto done;
    for (size_t i = 1; i < n; i++)
        k->match[i] = regexec(re, pk_strtab_get(&k->keys, (uint32_t)i), 0, NULL, 0) == 0;
    if (pk_stack_self(p, v, th, &self) != 0)
        goto done;
    uint32_t stamp = 0;
    for (size_t s = 1; s < p->n_stacks; s++) {
        int64_t w = self[s];
        if (w == 0)
            continue;
        stamp++;
        pk_sat_addto(&k->total, w);
        pk_sat_addto(&k->flat[fkey[p->stacks[s].frame]], w);
        for (uint32_t u = (uint32_t)s; u != 0; u = p->stacks[u].parent) {
            uint32_t key = fkey[p->stacks[u].frame];
            if (k->stamp[key] != stamp) {
                k->stamp[key] = stamp;
                pk_sat_addto(&k->cum[key], w);
            }
            uint32_t up = p->stacks[u].parent;
            if (up == 0)
                continue;
            uint32_t caller = fkey[p->stacks[up].frame];
            if (caller == key || !(k->match[caller] || k->match[key]))
                continue;
            edge *e = edge_get(k, caller, key);
            if (!e)
                goto done;
            if (e->stamp != stamp) {
                e->stamp = stamp;
                pk_sat_addto(&e->weight, w);
            }
        }
    }
    rc = 0;
done:
    free(fkey);
    free(self);
    if (rc)
        peek_free(k);
    return rc;
}

/* The edges into (in = 1) or out of key, sorted, as a new array. */
static uint32_t *edges_of(const peek *k, uint32_t key, int in, size_t *n)
{
    uint32_t *ids = malloc((k->n_edges ? k->n_edges : 1) * sizeof(uint32_t));
    *n = 0;
    if (!ids)
        return NULL;
    for (size_t i = 0; i < k->n_edges; i++)
        if ((in ? k->edges[i].to : k->edges[i].from) == key && k->edges[i].weight != 0)
            ids[(*n)++] = (uint32_t)i;
    if (pk_sort_u32(ids, *n, cmp_edge, k) != 0) {
        free(ids);
        return NULL;
    }
    return ids;
}

static void json_edges(FILE *out, const peek *k, const uint32_t *ids, size_t n, int in)
{
    fputc('[', out);
    for (size_t i = 0; i < n; i++) {
        const edge *e = &k->edges[ids[i]];
        fputs(i ? ",{\"name\":" : "{\"name\":", out);
        pk_rjson_str(out, pk_strtab_get(&k->keys, in ? e->from : e->to));
        fprintf(out, ",\"value\":%lld}", (long long)e->weight);
    }
    fputc(']', out);
}

static void text_edges(FILE *out, const peek *k, const uint32_t *ids, size_t n, int in, int64_t cum,
                       const char *unit)
{
    for (size_t i = 0; i < n; i++) {
        const edge *e = &k->edges[ids[i]];
        char w[64], pct[32];
        pk_format_value(w, sizeof(w), e->weight, unit);
        fprintf(out, "%50s %7s |   %s\n", w,
                pk_format_pct(pct, sizeof(pct), (double)e->weight, (double)cum),
                pk_strtab_get(&k->keys, in ? e->from : e->to));
    }
}

int profkit_report_peek(FILE *out, const profkit_profile *p, const profkit_report_options *o,
                        profkit_error *err)
{
    uint32_t v, th;
    if (pk_select(p, o->value, o->thread, &v, &th, err) != 0)
        return PROFKIT_EINVAL;
    if (!o->pattern)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "no regular expression to match");
    regex_t re;
    int e = regcomp(&re, o->pattern, REG_EXTENDED | REG_NOSUB);
    if (e != 0) {
        char msg[256];
        regerror(e, &re, msg, sizeof(msg));
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "bad regular expression '%s': %s",
                                 o->pattern, msg);
    }
    peek k;
    int rc = peek_compute(&k, p, v, th, o->by, &re);
    regfree(&re);
    if (rc)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    uint32_t *order = malloc((k.keys.n ? k.keys.n : 1) * sizeof(uint32_t));
    if (!order) {
        peek_free(&k);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    }
    size_t n = 0;
    for (uint32_t i = 1; i < k.keys.n; i++)
        if (k.match[i] && (k.flat[i] != 0 || k.cum[i] != 0))
            order[n++] = i;
    sort_ctx sc = { &k, o->sort_cum };
    if (pk_sort_u32(order, n, cmp_key, &sc) != 0) {
        free(order);
        peek_free(&k);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    }
    if (n == 0) {
        free(order);
        peek_free(&k);
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "no %s matches '%s'",
                                 pk_key_name(o->by, 0), o->pattern);
    }
    size_t shown = o->limit && o->limit < n ? o->limit : n;
    const char *unit = pk_str(p, p->value_types[v].unit);
    static const char sep[] = "-----------------------------------------------------------+-------------\n";
    if (o->json) {
        pk_rjson_open(out, "peek", p, v, th);
        pk_rjson_by(out, o->by);
        fprintf(out, ",\"sort\":\"%s\",\"pattern\":", o->sort_cum ? "cum" : "flat");
        pk_rjson_str(out, o->pattern);
        fprintf(out, ",\"total\":%lld,\"rows\":[", (long long)k.total);
    } else {
        char tot[64];
        pk_format_value(tot, sizeof(tot), k.total, unit);
        fprintf(out, "Value: %s (%s), total %s", pk_str(p, p->value_types[v].type), unit, tot);
        if (th != PROFKIT_NONE)
            fprintf(out, ", thread %s", pk_str(p, p->threads[th].name));
        fprintf(out, "\nShowing %zu of %zu %s matching '%s', sorted by %s\n", shown, n,
                pk_key_name(o->by, 1), o->pattern, o->sort_cum ? "cum" : "flat");
        fputs(sep, out);
        fprintf(out, "%10s %7s %7s %10s %7s %13s | %s\n", "flat", "flat%", "sum%", "cum", "cum%",
                "calls calls%", "callers above, callees below");
    }
    double total = k.total ? (double)k.total : 1.0, sum = 0;
    rc = 0;
    for (size_t i = 0; i < shown; i++) {
        uint32_t key = order[i];
        size_t nin, nout;
        uint32_t *in = edges_of(&k, key, 1, &nin), *outs = edges_of(&k, key, 0, &nout);
        if (!in || !outs) {
            free(in);
            free(outs);
            rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
            break;
        }
        if (o->json) {
            fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
            pk_rjson_str(out, pk_strtab_get(&k.keys, key));
            fprintf(out, ",\"flat\":%lld,\"cum\":%lld,\"callers\":", (long long)k.flat[key],
                    (long long)k.cum[key]);
            json_edges(out, &k, in, nin, 1);
            fputs(",\"callees\":", out);
            json_edges(out, &k, outs, nout, 0);
            fputc('}', out);
        } else {
            fputs(sep, out);
            text_edges(out, &k, in, nin, 1, k.cum[key], unit);
            char f[64], c[64], p1[32], p2[32], p3[32];
            sum += (double)k.flat[key];
            pk_format_value(f, sizeof(f), k.flat[key], unit);
            pk_format_value(c, sizeof(c), k.cum[key], unit);
            fprintf(out, "%10s %7s %7s %10s %7s %13s | %s\n", f,
                    pk_format_pct(p1, sizeof(p1), (double)k.flat[key], total),
                    pk_format_pct(p2, sizeof(p2), sum, total), c,
                    pk_format_pct(p3, sizeof(p3), (double)k.cum[key], total), "",
                    pk_strtab_get(&k.keys, key));
            text_edges(out, &k, outs, nout, 0, k.cum[key], unit);
        }
        free(in);
        free(outs);
    }
    if (rc == 0)
        fputs(o->json ? "]}\n" : sep, out);
    free(order);
    peek_free(&k);
    return rc;
}
