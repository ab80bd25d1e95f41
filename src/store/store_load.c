/* store_load.c: a profile from the store's aggregated rows, as merging the
 * selected profiles would give: the engine sums samples per stack, thread
 * and value type, and only those sums and the rows they name (stacks, each
 * with its frames as an array, then frames, functions, mappings, strings)
 * are read: one round per table, whatever the depth. */
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- the header: value types, threads, metadata, format ---- */

struct header {
    profkit_profile *p;
    int64_t first_seq;
    size_t n_profiles;
    pk_idmap *threads; /* thread id -> index (may be NULL) */
    pk_idmap *vtypes;  /* value type id -> index (may be NULL) */
};

static int row_profile(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    struct header *h = payload;
    (void)err;
    if (h->n_profiles++ == 0) {
        h->first_seq = pk_cell_i64(c[0]);
        pk_profile_set_format(h->p, c[1] ? c[1] : "");
    }
    (void)lens, (void)n;
    return 0;
}

static int nomem(profkit_error *err)
{
    return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory reading the store");
}

static int row_value(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    struct header *h = payload;
    (void)lens, (void)n;
    uint32_t v = pk_value_type_add(h->p, c[2] ? c[2] : "", c[3] ? c[3] : "");
    if (v == PROFKIT_NONE || (h->vtypes && pk_idmap_put(h->vtypes, (uint64_t)pk_cell_i64(c[5]), v) != 0))
        return nomem(err);
    if (pk_cell_i64(c[0]) == h->first_seq && pk_cell_i64(c[4]))
        h->p->default_value = v;
    return 0;
}

static int row_thread(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    struct header *h = payload;
    (void)lens, (void)n;
    uint32_t t = pk_thread_get(h->p, c[2] ? c[2] : "", c[3] ? c[3] : "", pk_cell_i64(c[4]),
                                    pk_cell_i64(c[5]));
    if (t == PROFKIT_NONE || (h->threads && pk_idmap_put(h->threads, (uint64_t)pk_cell_i64(c[6]), t) != 0))
        return nomem(err);
    return 0;
}

static int row_meta(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    struct header *h = payload;
    (void)n;
    if (pk_meta_add_len(h->p, c[0] ? c[0] : "", c[1] ? c[1] : "", c[1] ? lens[1] : 0) != 0)
        return nomem(err);
    return 0;
}

static int header_load(struct header *h, profkit_store *s, const char *sel, profkit_error *err)
{
    const char *in = pk_sql_in(s);
    pk_buf q = PK_BUF_INIT;
    int rc;
    if (!(h->p = profkit_profile_new()))
        return nomem(err);
    pk_buf_printf(&q, "SELECT seq, format FROM profiles WHERE seq %s (%s) ORDER BY seq", in, sel);
    if ((rc = pk_sql_query(s, &q, row_profile, h, err)) != 0)
        goto done;
    if (h->n_profiles == 0) {
        rc = pk_error_set(err, PROFKIT_ENOTFOUND, s->name, -1,
                               "no profile in the store matches the query (profkit_store_query: "
                               "where, since, until)");
        goto done;
    }
    pk_buf_free(&q);
    pk_buf_printf(&q, "SELECT seq, pos, type, unit, is_default, vtype FROM profile_values WHERE seq %s (%s) "
                   "ORDER BY seq, pos", in, sel);
    if ((rc = pk_sql_query(s, &q, row_value, h, err)) != 0)
        goto done;
    pk_buf_free(&q);
    pk_buf_printf(&q, "SELECT seq, pos, name, process_name, pid, tid, thread FROM profile_threads "
                   "WHERE seq %s (%s) ORDER BY seq, pos", in, sel);
    if ((rc = pk_sql_query(s, &q, row_thread, h, err)) != 0)
        goto done;
    pk_buf_free(&q);
    pk_buf_printf(&q, "SELECT key, value FROM meta WHERE seq %s (%s) ORDER BY seq, pos", in, sel);
    rc = pk_sql_query(s, &q, row_meta, h, err);
done:
    pk_buf_free(&q);
    if (rc) {
        profkit_profile_free(h->p);
        h->p = NULL;
    }
    return rc;
}

int pk_store_header(profkit_profile **out, profkit_store *s, const char *sel, profkit_error *err)
{
    struct header h = { 0 };
    int rc = header_load(&h, s, sel, err);
    *out = h.p;
    return rc;
}

/* ---- the rows the samples name, fetched by id in chunks ---- */

typedef struct table {
    pk_idmap map;  /* id -> row */
    int64_t *v;    /* rows of `cols` integers */
    char **text;   /* strings: the text of each row */
    size_t *len;
    size_t n, cap, cap_text, cap_len, cols;
    uint64_t *want; /* ids not fetched yet */
    size_t n_want, cap_want;
} table;

static void table_free(table *t)
{
    pk_idmap_free(&t->map);
    for (size_t i = 0; t->text && i < t->n; i++)
        free(t->text[i]);
    free(t->text);
    free(t->len);
    free(t->v);
    free(t->want);
}

/* Asks for id (0 = none) unless it is there or asked for already. */
static int want(table *t, uint64_t id)
{
    if (!id || pk_idmap_get(&t->map, id) != PROFKIT_NONE)
        return 0;
    if (pk_idmap_put(&t->map, id, PROFKIT_NONE - 1) != 0 ||
        PK_VEC_RESERVE(t->want, t->n_want, t->cap_want, 1) != 0)
        return PROFKIT_ENOMEM;
    t->want[t->n_want++] = id;
    return 0;
}

static int row_table(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    table *t = payload;
    uint64_t id = (uint64_t)pk_cell_i64(c[0]);
    uint32_t at = pk_idmap_get(&t->map, id);
    if (at != PROFKIT_NONE - 1) /* not asked for, or a copy (ClickHouse merges copies later) */
        return 0;
    if (pk_grow((void **)&t->v, &t->cap, (t->n + 1) * t->cols, sizeof(int64_t)) != 0)
        return nomem(err);
    for (size_t i = 0; i < t->cols; i++)
        t->v[t->n * t->cols + i] = i + 1 < n ? pk_cell_i64(c[i + 1]) : 0;
    if (!t->cols) {
        if (PK_VEC_RESERVE(t->text, t->n, t->cap_text, 1) != 0 ||
            PK_VEC_RESERVE(t->len, t->n, t->cap_len, 1) != 0)
            return nomem(err);
        size_t l = n > 1 && c[1] ? lens[1] : 0;
        if (!(t->text[t->n] = malloc(l + 1)))
            return nomem(err);
        memcpy(t->text[t->n], n > 1 && c[1] ? c[1] : "", l);
        t->text[t->n][l] = '\0';
        t->len[t->n] = l;
    }
    if (pk_idmap_put(&t->map, id, (uint32_t)t->n) != 0)
        return nomem(err);
    t->n++;
    return 0;
}

static int fetched(profkit_store *s, table *t, const char *select, profkit_error *err);

/* Fetches the wanted rows: "SELECT id, COLS FROM NAME WHERE id IN (...)
 * ORDER BY id". */
static int fetch(profkit_store *s, table *t, const char *select, profkit_error *err)
{
    int rc = 0;
    size_t done = 0;
    while (done < t->n_want && rc == 0) {
        pk_buf q = PK_BUF_INIT;
        pk_buf_printf(&q, "%s WHERE id IN (", select);
        size_t end = done + 2000 < t->n_want ? done + 2000 : t->n_want;
        for (size_t i = done; i < end; i++)
            pk_buf_printf(&q, i > done ? ",%lld" : "%lld", (long long)t->want[i]);
        /* in the order of the ids: ClickHouse sends rows in no fixed order,
         * and the model numbers its rows (functions, frames...) in the
         * order they come, which the page shows: the same selection loads
         * the same profile, byte for byte, in every run */
        pk_buf_printf(&q, ") ORDER BY id");
        rc = pk_sql_query(s, &q, row_table, t, err);
        pk_buf_free(&q);
        done = end;
    }
    return rc ? rc : fetched(s, t, select, err);
}

/* Every wanted row came (else an error naming the first that did not). */
static int fetched(profkit_store *s, table *t, const char *select, profkit_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < t->n_want && rc == 0; i++)
        if (pk_idmap_get(&t->map, t->want[i]) == PROFKIT_NONE - 1)
            rc = pk_error_set(err, PROFKIT_ECORRUPT, s->name, -1,
                                   "%s: no row with id %lld, which a sample needs (a damaged store?)",
                                   select, (long long)t->want[i]);
    t->n_want = 0;
    return rc;
}

/* ---- the samples ---- */

struct sums {
    uint64_t *stack, *thread, *vtype, *labels;
    int64_t *value;
    size_t n, cap[5];
};

static int row_sum(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    struct sums *x = payload;
    (void)lens, (void)n;
    if (PK_VEC_RESERVE(x->stack, x->n, x->cap[0], 1) != 0 ||
        PK_VEC_RESERVE(x->thread, x->n, x->cap[1], 1) != 0 ||
        PK_VEC_RESERVE(x->vtype, x->n, x->cap[2], 1) != 0 ||
        PK_VEC_RESERVE(x->value, x->n, x->cap[3], 1) != 0 ||
        PK_VEC_RESERVE(x->labels, x->n, x->cap[4], 1) != 0)
        return nomem(err);
    x->stack[x->n] = (uint64_t)pk_cell_i64(c[0]);
    x->thread[x->n] = (uint64_t)pk_cell_i64(c[1]);
    x->vtype[x->n] = (uint64_t)pk_cell_i64(c[2]);
    x->value[x->n] = pk_cell_i64(c[3]);
    x->labels[x->n] = n > 4 && c[4] ? (uint64_t)pk_cell_i64(c[4]) : 0;
    x->n++;
    return 0;
}

/* ---- SQLite's sample rows: every value type's value in one row ---- */

/* The sums per (stack, thread, value type, label set), summed here from
 * SQLite's rows (docs/store.md, "SQLite's layout"): a hash table of the
 * keys met, then the keys in order, as the engine's GROUP BY ... ORDER BY
 * gives them on ClickHouse. */
struct agg {
    uint64_t (*key)[4]; /* stack, thread, vtype, labels */
    int64_t *sum;
    size_t n, cap_key, cap_sum;
    uint32_t *slot; /* index + 1, 0: empty */
    size_t n_slots;
    /* the value types of each selected profile, in pos order: profile i's
     * are vt[first[i] .. first[i] + count[i]) */
    pk_idmap seq_at; /* seq -> i */
    uint64_t *vt;
    size_t *first, *count;
    size_t n_vt, cap_vt, n_seq, cap_first, cap_count;
    int64_t last_seq;
    int bad; /* a row the layout does not allow */
};

static void agg_free(struct agg *a)
{
    free(a->key);
    free(a->sum);
    free(a->slot);
    free(a->vt);
    free(a->first);
    free(a->count);
    pk_idmap_free(&a->seq_at);
}

static uint64_t agg_hash(const uint64_t *k)
{
    uint64_t h = k[0] * 0x9E3779B97F4A7C15ull ^ k[1] * 0xC2B2AE3D27D4EB4Full ^ k[2] * 0x165667B19E3779F9ull ^
                 k[3] * 0x27D4EB2F165667C5ull;
    return h ^ (h >> 31);
}

static int agg_add(struct agg *a, const uint64_t *k, int64_t v)
{
    if ((a->n + 1) * 2 > a->n_slots) { /* grow, and place every key again */
        size_t n = a->n_slots ? a->n_slots * 2 : 1024;
        uint32_t *s = calloc(n, sizeof(*s));
        if (!s)
            return PROFKIT_ENOMEM;
        for (size_t i = 0; i < a->n; i++) {
            size_t at = agg_hash(a->key[i]) & (n - 1);
            while (s[at])
                at = (at + 1) & (n - 1);
            s[at] = (uint32_t)i + 1;
        }
        free(a->slot);
        a->slot = s;
        a->n_slots = n;
    }
    size_t at = agg_hash(k) & (a->n_slots - 1);
    for (; a->slot[at]; at = (at + 1) & (a->n_slots - 1)) {
        uint64_t *x = a->key[a->slot[at] - 1];
        if (x[0] == k[0] && x[1] == k[1] && x[2] == k[2] && x[3] == k[3]) {
            pk_sat_addto(&a->sum[a->slot[at] - 1], v);
            return 0;
        }
    }
    if (a->n >= UINT32_MAX - 1 || PK_VEC_RESERVE(a->key, a->n, a->cap_key, 1) != 0 ||
        PK_VEC_RESERVE(a->sum, a->n, a->cap_sum, 1) != 0)
        return PROFKIT_ENOMEM;
    memcpy(a->key[a->n], k, sizeof(a->key[a->n]));
    a->sum[a->n] = v;
    a->slot[at] = (uint32_t)++a->n;
    return 0;
}

/* profile_values (seq, pos, vtype, ''), ordered by seq and pos */
static int row_vt(void *payload, const int64_t *c, size_t n, const unsigned char *b, size_t len, profkit_error *err)
{
    struct agg *a = payload;
    (void)n, (void)b, (void)len;
    int64_t seq = c[0], pos = c[1];
    if (a->n_seq == 0 || seq != a->last_seq) {
        if (a->n_seq >= UINT32_MAX - 1 || pk_idmap_put(&a->seq_at, (uint64_t)seq, (uint32_t)a->n_seq) != 0 ||
            PK_VEC_RESERVE(a->first, a->n_seq, a->cap_first, 1) != 0 ||
            PK_VEC_RESERVE(a->count, a->n_seq, a->cap_count, 1) != 0)
            return nomem(err);
        a->first[a->n_seq] = a->n_vt;
        a->count[a->n_seq++] = 0;
        a->last_seq = seq;
    }
    if (pos != (int64_t)a->count[a->n_seq - 1])
        a->bad = 1;
    if (PK_VEC_RESERVE(a->vt, a->n_vt, a->cap_vt, 1) != 0)
        return nomem(err);
    a->vt[a->n_vt++] = (uint64_t)c[2];
    a->count[a->n_seq - 1]++;
    return 0;
}

/* samples (seq, stack, thread, labels, vals) */
static int row_vals(void *payload, const int64_t *c, size_t n, const unsigned char *b, size_t len, profkit_error *err)
{
    struct agg *a = payload;
    (void)n;
    int64_t seq = c[0];
    uint32_t i = pk_idmap_get(&a->seq_at, (uint64_t)seq);
    size_t at = 0, k = 0;
    uint64_t key[4] = { (uint64_t)c[1], (uint64_t)c[2], 0, (uint64_t)c[3] };
    int any = 0;
    if (i == PROFKIT_NONE || i >= a->n_seq) {
        a->bad = 1;
        return 0;
    }
    const uint64_t *vt = a->vt + a->first[i];
    size_t nv = a->count[i];
    for (; at < len; k++) {
        uint64_t u = 0;
        unsigned shift = 0;
        for (;; shift += 7) { /* a varint: 7 bits a byte, low first */
            if (at >= len || shift > 63) {
                a->bad = 1;
                return 0;
            }
            unsigned char x = b[at++];
            u |= (uint64_t)(x & 0x7f) << shift;
            if (!(x & 0x80))
                break;
        }
        int64_t v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
        if (k >= nv) {
            a->bad = 1;
            return 0;
        }
        if (v) {
            key[2] = vt[k];
            if (agg_add(a, key, v) != 0)
                return nomem(err);
            any = 1;
        }
    }
    if (!any) { /* a row of zeros: the last one's value type */
        if (k == 0) {
            a->bad = 1;
            return 0;
        }
        key[2] = vt[k - 1];
        if (agg_add(a, key, 0) != 0)
            return nomem(err);
    }
    return 0;
}

struct agg_out {
    uint64_t k[4];
    int64_t v;
};
static int agg_cmp(const void *x, const void *y)
{
    const uint64_t *a = ((const struct agg_out *)x)->k, *b = ((const struct agg_out *)y)->k;
    for (int i = 0; i < 4; i++) {
        /* as SQLite orders them: signed */
        if ((int64_t)a[i] != (int64_t)b[i])
            return (int64_t)a[i] < (int64_t)b[i] ? -1 : 1;
    }
    return 0;
}

/* SQLite's sums of the profiles sel selects into x, in the order of
 * (stack, thread, vtype, labels). */
static int sqlite_sums(profkit_store *s, const char *sel, struct sums *x, profkit_error *err)
{
    struct agg a;
    memset(&a, 0, sizeof(a));
    pk_buf q = PK_BUF_INIT;
    pk_buf_printf(&q, "SELECT seq, pos, vtype, '' FROM profile_values WHERE seq IN (%s) ORDER BY seq, pos", sel);
    int rc = pk_buf_error(&q) ? nomem(err) : s->query_ints(s, q.buf, row_vt, &a, err);
    pk_buf_free(&q);
    if (rc == 0) {
        pk_buf_printf(&q, "SELECT seq, stack, thread, labels, vals FROM samples WHERE seq IN (%s)", sel);
        rc = pk_buf_error(&q) ? nomem(err) : s->query_ints(s, q.buf, row_vals, &a, err);
        pk_buf_free(&q);
    }
    if (rc == 0 && a.bad)
        rc = pk_error_set(err, PROFKIT_ECORRUPT, NULL, -1,
                          "samples: a row's values do not fit its profile's value types (a damaged store?)");
    struct agg_out *order = rc == 0 ? malloc((a.n ? a.n : 1) * sizeof(*order)) : NULL;
    if (rc == 0 && !order)
        rc = nomem(err);
    if (rc == 0) {
        for (size_t i = 0; i < a.n; i++) {
            memcpy(order[i].k, a.key[i], sizeof(order[i].k));
            order[i].v = a.sum[i];
        }
        qsort(order, a.n, sizeof(*order), agg_cmp);
        if (PK_VEC_RESERVE(x->stack, 0, x->cap[0], a.n) != 0 || PK_VEC_RESERVE(x->thread, 0, x->cap[1], a.n) != 0 ||
            PK_VEC_RESERVE(x->vtype, 0, x->cap[2], a.n) != 0 || PK_VEC_RESERVE(x->value, 0, x->cap[3], a.n) != 0 ||
            PK_VEC_RESERVE(x->labels, 0, x->cap[4], a.n) != 0)
            rc = nomem(err);
    }
    for (size_t i = 0; rc == 0 && i < a.n; i++) {
        const uint64_t *k = order[i].k;
        x->stack[i] = k[0];
        x->thread[i] = k[1];
        x->vtype[i] = k[2];
        x->labels[i] = k[3];
        x->value[i] = order[i].v;
        x->n = i + 1;
    }
    free(order);
    agg_free(&a);
    return rc;
}

struct load {
    table stacks, frames, functions, mappings, strings, labelsets;
    /* the words of labelsets row i: words[words_at[i] .. words_at[i + 1]) */
    int64_t *words;
    size_t *words_at, n_words, cap_words, cap_wat;
    /* the frames of stacks row i: path[path_at[i] .. path_at[i + 1]) */
    uint64_t *path;
    size_t *path_at, n_path, cap_path, cap_at;
    struct sums sums;
    pk_idmap threads, vtypes; /* ids -> the header's indexes */
};

static void load_free(struct load *l)
{
    table_free(&l->stacks);
    table_free(&l->frames);
    table_free(&l->functions);
    table_free(&l->mappings);
    table_free(&l->strings);
    table_free(&l->labelsets);
    free(l->words);
    free(l->words_at);
    free(l->sums.labels);
    free(l->path);
    free(l->path_at);
    free(l->sums.stack);
    free(l->sums.thread);
    free(l->sums.vtype);
    free(l->sums.value);
    pk_idmap_free(&l->threads);
    pk_idmap_free(&l->vtypes);
}

static const char *text_of(const table *t, uint64_t id, size_t *len)
{
    uint32_t i = pk_idmap_get(&t->map, id);
    if (i >= t->n) {
        *len = 0;
        return "";
    }
    *len = t->len[i];
    return t->text[i];
}

static uint32_t intern(profkit_profile *p, const table *strings, uint64_t id)
{
    size_t len;
    const char *s = text_of(strings, id, &len);
    return profkit_string_intern(p, s, len);
}

/* Parses stacks row i's frames, "[id,id,...]" (root first), into l->path. */
static int parse_path(struct load *l, size_t i, profkit_error *err)
{
    const char *c = l->stacks.text[i], *e = c + l->stacks.len[i];
    if (PK_VEC_RESERVE(l->path_at, i + 1, l->cap_at, 1) != 0)
        return nomem(err);
    l->path_at[i] = l->n_path;
    int ok = c < e && *c++ == '[';
    while (ok && c < e && *c != ']') {
        uint64_t v = 0;
        int digits = 0;
        while (c < e && *c >= '0' && *c <= '9' && digits < 19) {
            v = v * 10 + (uint64_t)(*c++ - '0');
            digits++;
        }
        if (PK_VEC_RESERVE(l->path, l->n_path, l->cap_path, 1) != 0)
            return nomem(err);
        l->path[l->n_path++] = v;
        ok = digits > 0 && v > 0 && c < e && (*c == ']' || (*c == ',' && c + 1 < e && c[1] != ']'));
        if (ok && *c == ',')
            c++;
    }
    if (!ok || c + 1 != e || l->n_path == l->path_at[i])
        return pk_error_set(err, PROFKIT_ECORRUPT, NULL, -1,
                                 "stacks: row %zu: expected its frames as [ID,ID,...], got '%.40s' "
                                 "(a damaged store?)", i, l->stacks.text[i]);
    l->path_at[i + 1] = l->n_path;
    return 0;
}

/* Parses labelsets row i, "[w,w,...]" (four words a label: key, kind,
 * value, unit), into l->words. */
static int parse_labelset(struct load *l, size_t i, profkit_error *err)
{
    const char *c = l->labelsets.text[i], *e = c + l->labelsets.len[i];
    if (PK_VEC_RESERVE(l->words_at, i + 1, l->cap_wat, 1) != 0)
        return nomem(err);
    l->words_at[i] = l->n_words;
    int ok = c < e && *c++ == '[';
    while (ok && c < e && *c != ']') {
        int neg = *c == '-';
        c += neg;
        uint64_t v = 0;
        int digits = 0;
        while (c < e && *c >= '0' && *c <= '9' && digits < 20) {
            v = v * 10 + (uint64_t)(*c++ - '0');
            digits++;
        }
        if (PK_VEC_RESERVE(l->words, l->n_words, l->cap_words, 1) != 0)
            return nomem(err);
        l->words[l->n_words++] = neg ? (int64_t)(0 - v) : (int64_t)v;
        ok = digits > 0 && c < e && (*c == ']' || (*c == ',' && c + 1 < e && c[1] != ']'));
        if (ok && *c == ',')
            c++;
    }
    size_t n = l->n_words - l->words_at[i];
    if (!ok || c + 1 != e || n == 0 || n % 4 != 0)
        return pk_error_set(err, PROFKIT_ECORRUPT, NULL, -1,
                                 "labelsets: row %zu: expected its labels as [KEY,KIND,VALUE,UNIT,...], "
                                 "got '%.40s' (a damaged store?)", i, l->labelsets.text[i]);
    l->words_at[i + 1] = l->n_words;
    return 0;
}

/* Fetches every row the sums name: their stacks, the frames those list,
 * then the frames' functions and mappings, and the strings these name. */
static int fetch_rows(profkit_store *s, struct load *l, profkit_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < l->sums.n && rc == 0; i++)
        rc = want(&l->stacks, l->sums.stack[i]);
    if (rc == 0)
        rc = fetch(s, &l->stacks, s->clickhouse ? "SELECT id, frames FROM stacks"
                                                : "SELECT id, pk_ids(frames, 2) FROM stacks", err);
    for (size_t i = 0; i < l->stacks.n && rc == 0; i++)
        if ((rc = parse_path(l, i, err)) == 0)
            for (size_t k = l->path_at[i]; k < l->path_at[i + 1] && rc == 0; k++)
                rc = want(&l->frames, l->path[k]);
    if (rc == 0)
        rc = fetch(s, &l->frames,
                   "SELECT id, address, function, line, col, mapping, inline_depth FROM frames", err);
    for (size_t i = 0; i < l->frames.n && rc == 0; i++)
        if ((rc = want(&l->functions, (uint64_t)l->frames.v[i * 6 + 1])) == 0)
            rc = want(&l->mappings, (uint64_t)l->frames.v[i * 6 + 4]);
    if (rc == 0)
        rc = fetch(s, &l->functions,
                   "SELECT id, name, system_name, file, module, start_line FROM functions", err);
    if (rc == 0)
        rc = fetch(s, &l->mappings,
                   "SELECT id, memory_start, memory_end, file_offset, path, build_id FROM mappings", err);
    for (size_t i = 0; i < l->functions.n && rc == 0; i++)
        for (size_t k = 0; k < 4 && rc == 0; k++)
            rc = want(&l->strings, (uint64_t)l->functions.v[i * 5 + k]);
    for (size_t i = 0; i < l->mappings.n && rc == 0; i++)
        for (size_t k = 3; k < 5 && rc == 0; k++)
            rc = want(&l->strings, (uint64_t)l->mappings.v[i * 5 + k]);
    for (size_t i = 0; i < l->sums.n && rc == 0; i++)
        rc = want(&l->labelsets, l->sums.labels[i]);
    if (rc == 0 && l->labelsets.n_want)
        rc = fetch(s, &l->labelsets, s->clickhouse ? "SELECT id, labels FROM labelsets"
                                                   : "SELECT id, pk_ids(labels) FROM labelsets", err);
    for (size_t i = 0; i < l->labelsets.n && rc == 0; i++)
        if ((rc = parse_labelset(l, i, err)) == 0)
            for (size_t k = l->words_at[i]; k < l->words_at[i + 1] && rc == 0; k += 4) {
                rc = want(&l->strings, (uint64_t)l->words[k]);
                if (rc == 0)
                    rc = want(&l->strings, (uint64_t)l->words[k + (l->words[k + 1] ? 3 : 2)]);
            }
    if (rc == 0 && s->strings) /* SQLite: strings in compressed blocks */
        rc = s->strings(s, l->strings.want, l->strings.n_want, row_table, &l->strings, err);
    if (rc == 0)
        rc = s->strings ? fetched(s, &l->strings, "strings", err)
                                : fetch(s, &l->strings, "SELECT id, text FROM strings", err);
    return rc == PROFKIT_ENOMEM && !err->message[0] ? nomem(err) : rc;
}

/* The model's index of a fetched row by id (`model` is per row). */
static uint32_t model_of(const table *t, const uint32_t *model, uint64_t id)
{
    uint32_t i = pk_idmap_get(&t->map, id);
    return i < t->n ? model[i] : PROFKIT_NONE;
}

/* The model's rows for the fetched ones, then the samples. */
static int build(profkit_profile *p, struct load *l, profkit_error *err)
{
    int rc = PROFKIT_ENOMEM;
    uint32_t *mm = calloc(l->mappings.n + 1, 4), *mf = calloc(l->functions.n + 1, 4),
             *mr = calloc(l->frames.n + 1, 4), *ms = calloc(l->stacks.n + 1, 4);
    int64_t *vals = calloc(p->n_value_types + 1, sizeof(int64_t));
    uint32_t *mls = calloc(l->labelsets.n + 1, 4);
    profkit_label *lab = NULL;
    size_t cap_lab = 0;
    if (!mm || !mf || !mr || !ms || !vals || !mls)
        goto done;
    for (size_t i = 0; i < l->labelsets.n; i++) {
        size_t n = (l->words_at[i + 1] - l->words_at[i]) / 4;
        if (PK_VEC_RESERVE(lab, 0, cap_lab, n) != 0)
            goto done;
        for (size_t k = 0; k < n; k++) {
            const int64_t *w = &l->words[l->words_at[i] + 4 * k];
            memset(&lab[k], 0, sizeof(lab[k]));
            lab[k].key = intern(p, &l->strings, (uint64_t)w[0]);
            lab[k].is_num = w[1] != 0;
            if (lab[k].is_num) {
                lab[k].num = w[2];
                lab[k].unit = intern(p, &l->strings, (uint64_t)w[3]);
            } else {
                lab[k].str = intern(p, &l->strings, (uint64_t)w[2]);
            }
            if (lab[k].key == PROFKIT_NONE || lab[k].str == PROFKIT_NONE || lab[k].unit == PROFKIT_NONE)
                goto done;
        }
        if ((mls[i] = pk_labelset_intern(p, lab, n)) == PROFKIT_NONE)
            goto done;
    }
    for (size_t i = 0; i < l->mappings.n; i++) {
        const int64_t *m = &l->mappings.v[i * 5];
        size_t n1, n2;
        const char *path = text_of(&l->strings, (uint64_t)m[3], &n1);
        const char *bid = text_of(&l->strings, (uint64_t)m[4], &n2);
        if ((mm[i] = pk_mapping_add(p, (uint64_t)m[0], (uint64_t)m[1], (uint64_t)m[2], path, bid)) ==
            PROFKIT_NONE)
            goto done;
    }
    for (size_t i = 0; i < l->functions.n; i++) {
        const int64_t *f = &l->functions.v[i * 5];
        profkit_function fn = { intern(p, &l->strings, (uint64_t)f[0]),
                                intern(p, &l->strings, (uint64_t)f[1]),
                                intern(p, &l->strings, (uint64_t)f[2]),
                                intern(p, &l->strings, (uint64_t)f[3]), (uint32_t)f[4] };
        if (fn.name == PROFKIT_NONE || fn.system_name == PROFKIT_NONE || fn.file == PROFKIT_NONE ||
            fn.module == PROFKIT_NONE || (mf[i] = pk_function_add(p, &fn)) == PROFKIT_NONE)
            goto done;
    }
    for (size_t i = 0; i < l->frames.n; i++) {
        const int64_t *f = &l->frames.v[i * 6];
        profkit_frame fr;
        memset(&fr, 0, sizeof(fr));
        fr.address = (uint64_t)f[0];
        fr.function = model_of(&l->functions, mf, (uint64_t)f[1]);
        fr.line = (uint32_t)f[2];
        fr.column = (uint32_t)f[3];
        fr.mapping = f[4] ? model_of(&l->mappings, mm, (uint64_t)f[4]) : PROFKIT_NONE;
        fr.inline_depth = (uint32_t)f[5];
        if (fr.function == PROFKIT_NONE) {
            rc = pk_error_set(err, PROFKIT_ECORRUPT, NULL, -1,
                                   "frames: row %zu names function %lld, which is not in the store",
                                   i, (long long)f[1]);
            goto done;
        }
        if ((mr[i] = pk_frame_add(p, &fr)) == PROFKIT_NONE)
            goto done;
    }
    /* each stack down its frames from the root: the model interns the prefixes */
    for (size_t i = 0; i < l->stacks.n; i++) {
        uint32_t node = 0;
        for (size_t k = l->path_at[i]; k < l->path_at[i + 1]; k++) {
            uint32_t frame = model_of(&l->frames, mr, l->path[k]);
            if (frame == PROFKIT_NONE) {
                rc = pk_error_set(err, PROFKIT_ECORRUPT, NULL, -1,
                                       "stacks: row %zu names frame %lld, which is not in the store",
                                       i, (long long)l->path[k]);
                goto done;
            }
            if ((node = pk_stack_intern(p, node, frame)) == PROFKIT_NONE)
                goto done;
        }
        ms[i] = node;
    }
    for (size_t i = 0; i < l->sums.n; i++) {
        uint32_t st = l->sums.stack[i] ? model_of(&l->stacks, ms, l->sums.stack[i]) : 0;
        uint32_t th = pk_idmap_get(&l->threads, l->sums.thread[i]);
        uint32_t vt = pk_idmap_get(&l->vtypes, l->sums.vtype[i]);
        if (th == PROFKIT_NONE && p->n_threads)
            th = 0; /* a profile without threads: its samples' thread is none */
        if (st == PROFKIT_NONE || th == PROFKIT_NONE || vt == PROFKIT_NONE) {
            rc = pk_error_set(err, PROFKIT_ECORRUPT, NULL, -1,
                                   "samples: a sum names a stack, thread or value type the "
                                   "selected profiles do not have");
            goto done;
        }
        uint32_t ls = l->sums.labels[i] ? model_of(&l->labelsets, mls, l->sums.labels[i]) : 0;
        if (ls == PROFKIT_NONE) {
            rc = pk_error_set(err, PROFKIT_ECORRUPT, NULL, -1,
                                   "samples: a sum names label set %lld, which is not in the store",
                                   (long long)l->sums.labels[i]);
            goto done;
        }
        vals[vt] = l->sums.value[i];
        int r = pk_sample_add_labeled(p, st, th, ls, vals);
        vals[vt] = 0;
        if (r != 0)
            goto done;
    }
    rc = 0;
done:
    free(mm);
    free(mf);
    free(mr);
    free(ms);
    free(vals);
    free(mls);
    free(lab);
    if (rc == PROFKIT_ENOMEM)
        nomem(err);
    return rc;
}

int profkit_store_load(profkit_profile **out, profkit_store *s, const profkit_store_query *q,
                       profkit_error *err)
{
    *out = NULL;
    struct load l;
    memset(&l, 0, sizeof(l));
    l.stacks.cols = 0; /* text: the frames array */
    l.frames.cols = 6;
    l.functions.cols = 5;
    l.mappings.cols = 5;
    l.strings.cols = 0;
    l.labelsets.cols = 0; /* text: the words array */
    pk_buf sel = PK_BUF_INIT, qs = PK_BUF_INIT;
    struct header h = { 0 };
    h.threads = &l.threads;
    h.vtypes = &l.vtypes;
    int rc = pk_sql_select_profiles(&sel, s, q, err);
    if (rc == 0 && pk_buf_error(&sel))
        rc = nomem(err);
    if (rc == 0)
        rc = header_load(&h, s, sel.buf, err);
    if (rc == 0) {
        if (!s->query_ints)
            pk_buf_printf(&qs, "SELECT stack, thread, vtype, sum(value), labels FROM samples WHERE seq %s (%s) "
                          "GROUP BY stack, thread, vtype, labels ORDER BY stack, thread, vtype, labels",
                          pk_sql_in(s), sel.buf);
        /* SQLite: a row's values of every value type together, summed
         * here (docs/store.md, "SQLite's layout") */
        rc = s->query_ints ? sqlite_sums(s, sel.buf, &l.sums, err) : pk_sql_query(s, &qs, row_sum, &l.sums, err);
    }
    if (rc == 0)
        rc = fetch_rows(s, &l, err);
    if (rc == 0)
        rc = build(h.p, &l, err);
    if (rc && err->file[0] == '\0')
        snprintf(err->file, sizeof(err->file), "%s", s->name);
    pk_buf_free(&sel);
    pk_buf_free(&qs);
    load_free(&l);
    if (rc) {
        profkit_profile_free(h.p);
        return rc;
    }
    *out = h.p;
    return 0;
}
