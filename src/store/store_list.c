/* store_list.c: `profkit store ls` (text or JSON), `profkit store rm` and
 * `profkit store label`: the selected profiles with their labels and
 * totals, removing them, changing their labels. */
#include "util/buf.h"
#include "store/store.h"

#include "analysis/analysis.h"
#include "report/rjson.h"

#include <stdlib.h>
#include <time.h>

struct pair {
    char *a, *b;  /* label: key, value; total: type, unit */
    int64_t v;    /* total: the sum */
};

struct entry {
    int64_t seq, id, time;
    char *format, *source;
    struct pair *labels, *totals;
    size_t n_labels, cap_labels, n_totals, cap_totals;
};

struct listing {
    struct entry *e;
    size_t n, cap;
    pk_idmap by_seq;
};

static char *dup_cell(const char *c, size_t len)
{
    char *s = malloc(len + 1);
    if (s) {
        memcpy(s, c ? c : "", len);
        s[len] = '\0';
    }
    return s;
}

static int nomem(profkit_error *err)
{
    return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory listing the store");
}

static int row_entry(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    struct listing *l = payload;
    (void)n;
    if (PK_VEC_RESERVE(l->e, l->n, l->cap, 1) != 0)
        return nomem(err);
    struct entry *e = &l->e[l->n];
    memset(e, 0, sizeof(*e));
    e->seq = pk_cell_i64(c[0]);
    e->id = pk_cell_i64(c[1]);
    e->time = pk_cell_i64(c[2]);
    if (!(e->format = dup_cell(c[3], lens[3])) || !(e->source = dup_cell(c[4], lens[4])) ||
        pk_idmap_put(&l->by_seq, (uint64_t)e->seq, (uint32_t)l->n) != 0) {
        free(e->format);
        free(e->source);
        return nomem(err);
    }
    l->n++;
    return 0;
}

static struct entry *entry_of(struct listing *l, const char *seq)
{
    uint32_t i = pk_idmap_get(&l->by_seq, (uint64_t)pk_cell_i64(seq));
    return i < l->n ? &l->e[i] : NULL;
}

/* Appends (a, b, v) to *v. */
static int add_pair(struct pair **v, size_t *n, size_t *cap, char **c, const size_t *lens, int64_t val)
{
    if (PK_VEC_RESERVE(*v, *n, *cap, 1) != 0)
        return -1;
    struct pair *p = &(*v)[*n];
    p->a = dup_cell(c[0], lens[0]);
    p->b = dup_cell(c[1], lens[1]);
    p->v = val;
    if (!p->a || !p->b) {
        free(p->a);
        free(p->b);
        return -1;
    }
    (*n)++;
    return 0;
}

static int row_label(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    struct entry *e = entry_of(payload, c[0]);
    (void)n;
    if (e && add_pair(&e->labels, &e->n_labels, &e->cap_labels, c + 1, lens + 1, 0) != 0)
        return nomem(err);
    return 0;
}

static int row_total(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    struct entry *e = entry_of(payload, c[0]);
    (void)n;
    if (e && add_pair(&e->totals, &e->n_totals, &e->cap_totals, c + 1, lens + 1, pk_cell_i64(c[3])) != 0)
        return nomem(err);
    return 0;
}

static const char *time_text(char *buf, size_t n, int64_t ns)
{
    time_t t = (time_t)(ns / 1000000000LL);
    struct tm tm;
    if (ns < 0 || !gmtime_r(&t, &tm) || !strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, n, "%lld", (long long)ns);
    return buf;
}

static void pairs_free(struct pair *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].a);
        free(v[i].b);
    }
    free(v);
}

static void listing_free(struct listing *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->e[i].format);
        free(l->e[i].source);
        pairs_free(l->e[i].labels, l->e[i].n_labels);
        pairs_free(l->e[i].totals, l->e[i].n_totals);
    }
    free(l->e);
    pk_idmap_free(&l->by_seq);
}

static int collect(struct listing *l, profkit_store *s, const char *sel, int details,
                   profkit_error *err)
{
    pk_buf q = PK_BUF_INIT;
    const char *in = pk_sql_in(s);
    pk_buf_printf(&q, "SELECT seq, id, time, format, source FROM profiles WHERE seq %s (%s) ORDER BY seq",
               in, sel);
    int rc = pk_sql_query(s, &q, row_entry, l, err);
    pk_buf_free(&q);
    if (rc || !details)
        return rc;
    pk_buf_printf(&q, "SELECT seq, key, value FROM labels WHERE seq %s (%s) ORDER BY seq, key, value", in, sel);
    rc = pk_sql_query(s, &q, row_label, l, err);
    pk_buf_free(&q);
    if (rc)
        return rc;
    /* totals per value type, in the profile's order of value types */
    if (s->clickhouse)
        pk_buf_printf(&q, "SELECT seq, type, unit, total FROM (SELECT seq, pos, type, unit, vtype FROM profile_values "
                      "WHERE seq %s (%s)) AS pv ALL LEFT JOIN (SELECT seq, vtype, sum(value) AS total FROM samples "
                      "WHERE seq %s (%s) GROUP BY seq, vtype) AS t USING (seq, vtype) ORDER BY seq, pos",
                      in, sel, in, sel);
    else /* a sample row's values of every value type together (store_sqlite.c) */
        pk_buf_printf(&q, "SELECT v.seq, v.type, v.unit, (SELECT sum(pk_val(s.vals, v.pos)) FROM samples AS s "
                      "WHERE s.seq = v.seq) FROM profile_values AS v WHERE v.seq IN (%s) ORDER BY v.seq, v.pos",
                      sel);
    rc = pk_sql_query(s, &q, row_total, l, err);
    pk_buf_free(&q);
    return rc;
}

static void print_text(pk_buf *out, const struct entry *e)
{
    char t[64];
    pk_buf_printf(out, "%016llx  %s  %s  %s\n", (unsigned long long)e->id, time_text(t, sizeof(t), e->time),
                  e->format, e->source);
    pk_buf_puts(out, "    labels: ");
    for (size_t i = 0; i < e->n_labels; i++)
        pk_buf_printf(out, "%s%s=%s", i ? " " : "", e->labels[i].a, e->labels[i].b);
    pk_buf_puts(out, "\n    totals: ");
    for (size_t i = 0; i < e->n_totals; i++) {
        char v[64];
        pk_format_value(v, sizeof(v), e->totals[i].v, e->totals[i].b);
        pk_buf_printf(out, "%s%s=%s", i ? " " : "", e->totals[i].a, v);
    }
    pk_buf_putc(out, '\n');
}

/* {"id":"HEX","time":NS,"utc":"...","format":..,"file":..,
 *  "labels":{"KEY":["VALUE",...],...},"totals":[{"type","unit","value"}]} */
static void print_json(pk_buf *out, const struct entry *e)
{
    char t[64];
    pk_buf_printf(out, "{\"id\":\"%016llx\",\"time\":%lld,\"utc\":", (unsigned long long)e->id, (long long)e->time);
    pk_rjson_str(out, time_text(t, sizeof(t), e->time));
    pk_buf_puts(out, ",\"format\":");
    pk_rjson_str(out, e->format);
    pk_buf_puts(out, ",\"file\":");
    pk_rjson_str(out, e->source);
    pk_buf_puts(out, ",\"labels\":{");
    /* labels come sorted by key, then value: one array per key */
    for (size_t i = 0; i < e->n_labels; i++) {
        int first = i == 0 || strcmp(e->labels[i - 1].a, e->labels[i].a) != 0;
        if (first) {
            if (i)
                pk_buf_puts(out, "],");
            pk_rjson_str(out, e->labels[i].a);
            pk_buf_puts(out, ":[");
        } else {
            pk_buf_putc(out, ',');
        }
        pk_rjson_str(out, e->labels[i].b);
    }
    pk_buf_puts(out, e->n_labels ? "]},\"totals\":[" : "},\"totals\":[");
    for (size_t i = 0; i < e->n_totals; i++) {
        pk_buf_puts(out, i ? ",{\"type\":" : "{\"type\":");
        pk_rjson_str(out, e->totals[i].a);
        pk_buf_puts(out, ",\"unit\":");
        pk_rjson_str(out, e->totals[i].b);
        pk_buf_printf(out, ",\"value\":%lld}", (long long)e->totals[i].v);
    }
    pk_buf_puts(out, "]}");
}

static int report_store_list_opts_buf(pk_buf *out, profkit_store *s, const profkit_store_query *q,
                                      const profkit_store_list_options *o, profkit_error *err)
{
    pk_buf sel = PK_BUF_INIT;
    struct listing l;
    memset(&l, 0, sizeof(l));
    int json = o && o->json, count = !(o && o->no_count);
    int rc = pk_sql_select_profiles(&sel, s, q, err);
    if (rc == 0)
        rc = collect(&l, s, sel.buf, 1, err);
    if (rc == 0 && json)
        pk_buf_printf(out, "{\"schema\":%d,\"report\":\"store_ls\",\"profiles\":[", PK_RJSON_SCHEMA);
    for (size_t i = 0; rc == 0 && i < l.n; i++) {
        if (json) {
            if (i)
                pk_buf_putc(out, ',');
            print_json(out, &l.e[i]);
        } else {
            print_text(out, &l.e[i]);
        }
    }
    if (rc == 0 && json)
        pk_buf_printf(out, "],\"count\":%zu}\n", l.n);
    else if (rc == 0 && count)
        pk_buf_printf(out, "%zu profile%s\n", l.n, l.n == 1 ? "" : "s");
    if (rc && err->file[0] == '\0')
        snprintf(err->file, sizeof(err->file), "%s", s->name);
    listing_free(&l);
    pk_buf_free(&sel);
    return rc;
}

static int report_store_list_buf(pk_buf *out, profkit_store *s, const profkit_store_query *q,
                                 profkit_error *err)
{
    return report_store_list_opts_buf(out, s, q, NULL, err);
}

/* The seqs of the selected profiles, "1,2,3" in *list (empty: none). */
int pk_store_selected_seqs(pk_buf *list, size_t *n, profkit_store *s, const profkit_store_query *q,
                           profkit_error *err)
{
    pk_buf sel = PK_BUF_INIT;
    struct listing l;
    memset(&l, 0, sizeof(l));
    int rc = pk_sql_select_profiles(&sel, s, q, err);
    if (rc == 0)
        rc = collect(&l, s, sel.buf, 0, err);
    /* the seqs, named: the selection must not change under the changes */
    for (size_t i = 0; rc == 0 && i < l.n; i++)
        pk_buf_printf(list, i ? ",%lld" : "%lld", (long long)l.e[i].seq);
    if (rc == 0 && pk_buf_error(list))
        rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    *n = rc == 0 ? l.n : 0;
    listing_free(&l);
    pk_buf_free(&sel);
    return rc;
}

int profkit_store_remove(profkit_store *s, const profkit_store_query *q, size_t *n, profkit_error *err)
{
    pk_buf list = PK_BUF_INIT;
    size_t k = 0;
    int rc = pk_store_selected_seqs(&list, &k, s, q, err);
    if (rc == 0 && k)
        rc = s->engine->remove(s, list.buf, err);
    if (n)
        *n = rc == 0 ? k : 0;
    if (rc && err->file[0] == '\0')
        snprintf(err->file, sizeof(err->file), "%s", s->name);
    pk_buf_free(&list);
    return rc;
}

int profkit_store_gc(profkit_store *s, size_t *n, profkit_error *err)
{
    size_t k = 0;
    int rc = s->engine->gc(s, &k, err);
    if (n)
        *n = rc == 0 ? k : 0;
    if (rc && err->file[0] == '\0')
        snprintf(err->file, sizeof(err->file), "%s", s->name);
    return rc;
}

/* The entry points: each report drains into the caller's FILE. */
int profkit_store_list_opts(FILE *file, profkit_store *s, const profkit_store_query *q,
                            const profkit_store_list_options *o, profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_store_list_opts_buf(&out, s, q, o, err);
    pk_buf_flush(&out);
    return rc;
}

int profkit_store_list(FILE *file, profkit_store *s, const profkit_store_query *q,
                       profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_store_list_buf(&out, s, q, err);
    pk_buf_flush(&out);
    return rc;
}

/* ---- the store browser's label pickers (store_web.c) ---- */

static int pair_cmp(const void *x, const void *y)
{
    const struct pair *a = *(const struct pair *const *)x, *b = *(const struct pair *const *)y;
    int c = strcmp(a->a, b->a);
    return c ? c : strcmp(a->b, b->b);
}

/* {"schema":..,"report":"store_labels","keys":[{"key":K,"values":[{"value":V,
 * "profiles":N},...]},...],"count":PROFILES}: every label key of the
 * selected profiles with its values and how many profiles have each. */
int pk_store_label_index(pk_buf *out, profkit_store *s, const profkit_store_query *q, profkit_error *err)
{
    pk_buf sel = PK_BUF_INIT;
    struct listing l;
    memset(&l, 0, sizeof(l));
    const struct pair **all = NULL;
    int rc = pk_sql_select_profiles(&sel, s, q, err);
    if (rc == 0)
        rc = collect(&l, s, sel.buf, 1, err);
    size_t n = 0;
    for (size_t i = 0; rc == 0 && i < l.n; i++)
        n += l.e[i].n_labels;
    if (rc == 0 && n && !(all = malloc(n * sizeof(*all))))
        rc = nomem(err);
    if (rc == 0) {
        size_t k = 0;
        for (size_t i = 0; i < l.n; i++)
            for (size_t j = 0; j < l.e[i].n_labels; j++)
                all[k++] = &l.e[i].labels[j];
        if (n)
            qsort(all, n, sizeof(*all), pair_cmp);
        pk_buf_printf(out, "{\"schema\":%d,\"report\":\"store_labels\",\"keys\":[", PK_RJSON_SCHEMA);
        for (size_t i = 0; i < n;) {
            size_t j = i;
            if (i)
                pk_buf_puts(out, "]},");
            pk_buf_puts(out, "{\"key\":");
            pk_rjson_str(out, all[i]->a);
            pk_buf_puts(out, ",\"values\":[");
            for (; j < n && strcmp(all[j]->a, all[i]->a) == 0;) {
                size_t m = j;
                while (m < n && pair_cmp(&all[m], &all[j]) == 0)
                    m++;
                pk_buf_puts(out, j > i ? ",{\"value\":" : "{\"value\":");
                pk_rjson_str(out, all[j]->b);
                pk_buf_printf(out, ",\"profiles\":%zu}", m - j);
                j = m;
            }
            i = j;
        }
        pk_buf_printf(out, "%s],\"count\":%zu}\n", n ? "]}" : "", l.n);
    }
    if (rc && err->file[0] == '\0')
        snprintf(err->file, sizeof(err->file), "%s", s->name);
    free(all);
    listing_free(&l);
    pk_buf_free(&sel);
    return rc;
}
