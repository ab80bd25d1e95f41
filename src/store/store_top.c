/* store_top.c: `top` over the store as GROUP BYs in the engine: the flat
 * value per leaf function (the last element of stacks.keys) and the
 * cumulative one through each stack's distinct functions (the keys of the
 * frames of stacks.frames: ARRAY JOIN on ClickHouse; on SQLite the stacks'
 * sums with their frames are grouped by key here), over
 * per-stack sums of the selected profiles; profkit reads one row per
 * function and prints them with top's own code. */
#include "util/buf.h"
#include "store/store.h"

#include "report/report_top.h"

#include <stdlib.h>

struct keyed {
    pk_idmap map; /* key id -> index in ids */
    uint64_t *ids;
    int64_t *flat, *cum, *calls;
    size_t n, cap[4];
    int which; /* 0 flat, 1 cum, 2 calls */
    int64_t total;
};

static int row_key(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    struct keyed *k = payload;
    (void)lens, (void)n;
    uint64_t id = (uint64_t)pk_cell_i64(c[0]);
    int64_t v = pk_cell_i64(c[1]);
    uint32_t i = pk_idmap_get(&k->map, id);
    if (i == PROFKIT_NONE) {
        i = (uint32_t)k->n;
        if (pk_idmap_put(&k->map, id, i) != 0 || PK_VEC_RESERVE(k->ids, k->n, k->cap[0], 1) != 0 ||
            PK_VEC_RESERVE(k->flat, k->n, k->cap[1], 1) != 0 ||
            PK_VEC_RESERVE(k->cum, k->n, k->cap[2], 1) != 0 ||
            PK_VEC_RESERVE(k->calls, k->n, k->cap[3], 1) != 0)
            return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory reading top's rows");
        k->ids[i] = id;
        k->flat[i] = k->cum[i] = k->calls[i] = 0;
        k->n++;
    }
    int64_t *col = k->which == 0 ? k->flat : k->which == 1 ? k->cum : k->calls;
    pk_sat_addto(&col[i], v);
    return 0;
}

static int row_total(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    (void)lens, (void)n, (void)err;
    ((struct keyed *)payload)->total = pk_cell_i64(c[0]);
    return 0;
}

/* ClickHouse: SELECT key, sum over the selected profiles' stacks of value
 * type vt, grouped by the leaf frame's key (cum = 0) or by each distinct
 * key of the stack's frames (cum = 1: a recursive function counts once per
 * stack). */
static void grouped(pk_buf *q, const profkit_store *s, const char *sel, uint64_t vt, int cum)
{
    char a[64];
    snprintf(a, sizeof(a), "vtype = %lld", (long long)vt);
    /* the copies of a stack or frame merge in the background: one per id
     * here; each step a subquery (ARRAY JOIN comes before a JOIN in a
     * SELECT, and sees only the FROM's columns). Flat: only the leaf frame
     * of a stack leaves the stacks' GROUP BY; cum: each stack's distinct
     * keys (groupUniqArray), then one row per key */
    if (!cum)
        pk_buf_printf(q, "SELECT k, sum(v) FROM (SELECT k, v FROM (SELECT stack, v, f FROM (SELECT stack, "
                      "sum(value) AS v FROM samples WHERE %s AND seq %s (%s) GROUP BY stack) ALL INNER JOIN "
                      "(SELECT id AS stack, any(frames[length(frames)]) AS f FROM stacks GROUP BY id) USING stack) "
                      "ALL INNER JOIN (SELECT id AS f, any(key) AS k FROM frames GROUP BY id) USING f) GROUP BY k",
                      a, pk_sql_in(s), sel);
    else
        pk_buf_printf(q, "SELECT k, sum(v) FROM (SELECT stack, v, groupUniqArray(k) AS ks FROM (SELECT stack, v, f "
                      "FROM (SELECT stack, v, frames FROM (SELECT stack, sum(value) AS v FROM samples WHERE %s AND "
                      "seq %s (%s) GROUP BY stack) ALL INNER JOIN (SELECT id AS stack, any(frames) AS frames FROM "
                      "stacks GROUP BY id) USING stack) ARRAY JOIN frames AS f) ALL INNER JOIN (SELECT id AS f, "
                      "any(key) AS k FROM frames GROUP BY id) USING f GROUP BY stack, v) ARRAY JOIN ks AS k "
                      "GROUP BY k",
                      a, pk_sql_in(s), sel);
}

/* SQLite: the selected stacks' sums with their frames (blobs of 8-byte
 * words, root first), gathered here; the frames' keys are read once per
 * distinct frame, and the sums are grouped by key in C (a join per frame
 * of every stack costs more than this in the engine). */
struct stacks_agg {
    pk_idmap fmap;   /* frame id -> index in fid */
    uint64_t *fid, *fkey;
    size_t nf, cap_f, cap_k;
    uint32_t *path;  /* the frames of stack i: path[at[i] .. at[i + 1]) */
    size_t np, cap_p;
    size_t *at;
    int64_t *v;
    size_t ns, cap_at, cap_v;
    int bad;
};

static int row_stack_frames(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    struct stacks_agg *g = payload;
    (void)n;
    if (lens[0] % 8 != 0 || lens[0] == 0)
        return pk_error_set(err, PROFKIT_ECORRUPT, NULL, -1,
                            "stacks: a row's frames are not a list of ids (%zu bytes; a damaged store?)",
                            lens[0]);
    if (PK_VEC_RESERVE(g->at, g->ns, g->cap_at, 2) != 0 || PK_VEC_RESERVE(g->v, g->ns, g->cap_v, 1) != 0)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory reading top's rows");
    g->at[g->ns] = g->np;
    g->v[g->ns] = pk_cell_i64(c[1]);
    const unsigned char *b = (const unsigned char *)c[0];
    for (size_t i = 0; i < lens[0]; i += 8) {
        uint64_t id = 0;
        for (int k = 7; k >= 0; k--)
            id = (id << 8) | b[i + k];
        uint32_t x = pk_idmap_get(&g->fmap, id);
        if (x == PROFKIT_NONE) {
            x = (uint32_t)g->nf;
            if (pk_idmap_put(&g->fmap, id, x) != 0 || PK_VEC_RESERVE(g->fid, g->nf, g->cap_f, 1) != 0 ||
                PK_VEC_RESERVE(g->fkey, g->nf, g->cap_k, 1) != 0)
                return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory reading top's rows");
            g->fid[g->nf] = id;
            g->fkey[g->nf] = 0;
            g->nf++;
        }
        if (PK_VEC_RESERVE(g->path, g->np, g->cap_p, 1) != 0)
            return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory reading top's rows");
        g->path[g->np++] = x;
    }
    g->ns++;
    g->at[g->ns] = g->np;
    return 0;
}

static int row_frame_key(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    struct stacks_agg *g = payload;
    (void)lens, (void)n, (void)err;
    uint32_t x = pk_idmap_get(&g->fmap, (uint64_t)pk_cell_i64(c[0]));
    if (x != PROFKIT_NONE)
        g->fkey[x] = (uint64_t)pk_cell_i64(c[1]);
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The rows of grouped() on SQLite, fed to row_key. */
static int sqlite_grouped(profkit_store *s, const char *sel, uint64_t vt, int cum, struct keyed *k,
                          profkit_error *err)
{
    struct stacks_agg g;
    memset(&g, 0, sizeof(g));
    pk_buf q = PK_BUF_INIT;
    pk_buf_printf(&q, "SELECT x.frames, a.v FROM (SELECT stack, sum(value) AS v FROM samples WHERE vtype = %lld "
                  "AND seq IN (%s) GROUP BY stack) AS a JOIN stacks AS x ON x.id = a.stack",
                  (long long)vt, sel);
    int rc = pk_sql_query(s, &q, row_stack_frames, &g, err);
    for (size_t done = 0; rc == 0 && done < g.nf;) {
        size_t end = done + 2000 < g.nf ? done + 2000 : g.nf;
        pk_buf_free(&q);
        pk_buf_printf(&q, "SELECT id, key FROM frames WHERE id IN (");
        for (size_t i = done; i < end; i++)
            pk_buf_printf(&q, i > done ? ",%lld" : "%lld", (long long)g.fid[i]);
        pk_buf_printf(&q, ")");
        rc = pk_sql_query(s, &q, row_frame_key, &g, err);
        done = end;
    }
    for (size_t i = 0; rc == 0 && i < g.nf; i++)
        if (!g.fkey[i])
            rc = pk_error_set(err, PROFKIT_ECORRUPT, NULL, -1,
                              "stacks: a stack names frame %lld, which is not in the store (a damaged store?)",
                              (long long)g.fid[i]);
    uint64_t *keys = NULL;
    size_t cap = 0;
    char val[32], key[32];
    char *cells[2] = { key, val };
    size_t lens[2] = { 0, 0 };
    for (size_t i = 0; rc == 0 && i < g.ns; i++) {
        size_t a = g.at[i], b = g.at[i + 1], n = 0;
        snprintf(val, sizeof(val), "%lld", (long long)g.v[i]);
        if (!cum) {
            snprintf(key, sizeof(key), "%lld", (long long)g.fkey[g.path[b - 1]]);
            rc = row_key(k, cells, lens, 2, err);
            continue;
        }
        if (b - a > cap) {
            free(keys);
            cap = b - a;
            if (!(keys = malloc(cap * sizeof(*keys)))) {
                rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory reading top's rows");
                break;
            }
        }
        for (size_t j = a; j < b; j++)
            keys[n++] = g.fkey[g.path[j]];
        qsort(keys, n, sizeof(*keys), cmp_u64);
        for (size_t j = 0; j < n && rc == 0; j++) {
            if (j && keys[j] == keys[j - 1])
                continue; /* a recursive function counts once per stack */
            snprintf(key, sizeof(key), "%lld", (long long)keys[j]);
            rc = row_key(k, cells, lens, 2, err);
        }
    }
    free(keys);
    pk_buf_free(&q);
    pk_idmap_free(&g.fmap);
    free(g.fid);
    free(g.fkey);
    free(g.path);
    free(g.at);
    free(g.v);
    return rc;
}

struct texts {
    struct keyed *k;
    char **text;
    size_t *len;
};

static int row_text(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    struct texts *t = payload;
    (void)n;
    uint32_t i = pk_idmap_get(&t->k->map, (uint64_t)pk_cell_i64(c[0]));
    if (i == PROFKIT_NONE || t->text[i])
        return 0;
    if (!(t->text[i] = malloc(lens[1] + 1)))
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory reading top's rows");
    memcpy(t->text[i], c[1] ? c[1] : "", lens[1]);
    t->text[i][lens[1]] = '\0';
    t->len[i] = lens[1];
    return 0;
}

/* The rows as pk_top keyed by label, rows[i].key == i. */
static int to_top(profkit_store *s, struct keyed *k, pk_top *t, pk_top *calls,
                  profkit_error *err)
{
    struct texts tx = { k, calloc(k->n + 1, sizeof(char *)), calloc(k->n + 1, sizeof(size_t)) };
    int rc = 0;
    memset(t, 0, sizeof(*t));
    memset(calls, 0, sizeof(*calls));
    if (!tx.text || !tx.len || pk_strtab_init(&t->keys) != 0 || pk_strtab_init(&calls->keys) != 0)
        rc = PROFKIT_ENOMEM;
    for (size_t done = 0; rc == 0 && done < k->n;) {
        pk_buf q = PK_BUF_INIT;
        size_t end = done + 2000 < k->n ? done + 2000 : k->n;
        pk_buf_printf(&q, "SELECT id, text FROM strings WHERE id IN (");
        for (size_t i = done; i < end; i++)
            pk_buf_printf(&q, i > done ? ",%lld" : "%lld", (long long)k->ids[i]);
        pk_buf_printf(&q, ")");
        rc = pk_sql_query(s, &q, row_text, &tx, err);
        pk_buf_free(&q);
        done = end;
    }
    uint32_t *at = rc == 0 ? malloc((k->n + 1) * sizeof(uint32_t)) : NULL;
    if (rc == 0 && !at)
        rc = PROFKIT_ENOMEM;
    for (size_t i = 0; rc == 0 && i < k->n; i++) {
        if (!tx.text[i]) {
            rc = pk_error_set(err, PROFKIT_ECORRUPT, s->name, -1,
                                   "strings: no row with id %lld, a function's label", (long long)k->ids[i]);
            break;
        }
        if ((at[i] = pk_strtab_intern(&t->keys, tx.text[i], tx.len[i])) == PROFKIT_NONE)
            rc = PROFKIT_ENOMEM;
    }
    if (rc == 0) {
        t->n = calls->n = t->keys.n;
        t->rows = calloc(t->n + 1, sizeof(*t->rows));
        calls->rows = calloc(t->n + 1, sizeof(*calls->rows));
        if (!t->rows || !calls->rows)
            rc = PROFKIT_ENOMEM;
    }
    for (size_t i = 0; rc == 0 && i < t->n; i++)
        t->rows[i].key = calls->rows[i].key = (uint32_t)i;
    for (size_t i = 0; rc == 0 && i < k->n; i++) {
        pk_sat_addto(&t->rows[at[i]].flat, k->flat[i]);
        pk_sat_addto(&t->rows[at[i]].cum, k->cum[i]);
        pk_sat_addto(&calls->rows[at[i]].flat, k->calls[i]);
    }
    t->total = k->total;
    for (size_t i = 0; tx.text && i < k->n; i++)
        free(tx.text[i]);
    free(tx.text);
    free(tx.len);
    free(at);
    if (rc == PROFKIT_ENOMEM)
        pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory reading top's rows");
    return rc;
}

static int report_store_report_top_buf(pk_buf *out, profkit_store *s, const profkit_store_query *q,
                                       const profkit_report_options *o, profkit_error *err)
{
    int rc;
    if (o->by != PROFKIT_BY_FUNCTION || o->thread) {
        /* keyed by what stacks.keys does not hold, or one thread: the
         * aggregated stacks, then top's own code */
        profkit_profile *p;
        if ((rc = profkit_store_load(&p, s, q, err)) != 0)
            return rc;
        rc = pk_report_top_buf(out, p, o, err);
        profkit_profile_free(p);
        return rc;
    }
    pk_buf sel = PK_BUF_INIT, qs = PK_BUF_INIT;
    profkit_profile *h = NULL;
    struct keyed k;
    memset(&k, 0, sizeof(k));
    pk_top t, calls;
    memset(&t, 0, sizeof(t));
    memset(&calls, 0, sizeof(calls));
    uint32_t v, th, cv = PROFKIT_NONE;
    if ((rc = pk_sql_select_profiles(&sel, s, q, err)) != 0 ||
        (rc = pk_store_header(&h, s, sel.buf, err)) != 0)
        goto done;
    if (pk_select(h, o->value, NULL, &v, &th, err) != 0) {
        rc = PROFKIT_EINVAL;
        goto done;
    }
    uint64_t vt = pk_store_value_id(pk_str(h, h->value_types[v].type),
                                    pk_str(h, h->value_types[v].unit));
    pk_buf_printf(&qs, "SELECT sum(value) FROM samples WHERE vtype = %lld AND seq %s (%s)", (long long)vt,
               pk_sql_in(s), sel.buf);
    if ((rc = pk_sql_query(s, &qs, row_total, &k, err)) != 0)
        goto done;
    for (k.which = 0; k.which < 3; k.which++) {
        uint64_t id = vt;
        if (k.which == 2) {
            if ((cv = pk_report_top_calls_value(h, v)) == PROFKIT_NONE)
                break;
            id = pk_store_value_id(pk_str(h, h->value_types[cv].type),
                                   pk_str(h, h->value_types[cv].unit));
        }
        pk_buf_free(&qs);
        if (!s->clickhouse) {
            if ((rc = sqlite_grouped(s, sel.buf, id, k.which == 1, &k, err)) != 0)
                goto done;
            continue;
        }
        grouped(&qs, s, sel.buf, id, k.which == 1);
        if ((rc = pk_sql_query(s, &qs, row_key, &k, err)) != 0)
            goto done;
    }
    if ((rc = to_top(s, &k, &t, &calls, err)) != 0)
        goto done;
    rc = pk_report_top_print(out, h, v, PROFKIT_NONE, &t, cv != PROFKIT_NONE ? &calls : NULL, o, err);
done:
    if (rc && err->file[0] == '\0')
        snprintf(err->file, sizeof(err->file), "%s", s->name);
    pk_top_free(&t);
    pk_top_free(&calls);
    pk_idmap_free(&k.map);
    free(k.ids);
    free(k.flat);
    free(k.cum);
    free(k.calls);
    profkit_profile_free(h);
    pk_buf_free(&sel);
    pk_buf_free(&qs);
    return rc;
}

/* The entry points: each report drains into the caller's FILE. */
int profkit_store_report_top(FILE *file, profkit_store *s, const profkit_store_query *q,
                             const profkit_report_options *o, profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_store_report_top_buf(&out, s, q, o, err);
    pk_buf_flush(&out);
    return rc;
}
