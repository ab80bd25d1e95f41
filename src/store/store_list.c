/* store_list.c: `profkit store ls` and `profkit store rm`: the selected
 * profiles with their labels and totals, and removing them. */
#include "store/store.h"

#include "analysis/analysis.h"

#include <stdlib.h>
#include <time.h>

struct entry {
    int64_t seq, id, time;
    char *format, *source;
    char *labels;  /* "k=v k=v", grown */
    size_t labels_len;
    char *totals;
    size_t totals_len;
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

/* Appends " TEXT" to *buf. */
static int append(char **buf, size_t *len, const char *text, size_t tlen)
{
    char *b = realloc(*buf, *len + tlen + 2);
    if (!b)
        return -1;
    if (*len)
        b[(*len)++] = ' ';
    memcpy(b + *len, text, tlen);
    *len += tlen;
    b[*len] = '\0';
    *buf = b;
    return 0;
}

static struct entry *entry_of(struct listing *l, const char *seq)
{
    uint32_t i = pk_idmap_get(&l->by_seq, (uint64_t)pk_cell_i64(seq));
    return i < l->n ? &l->e[i] : NULL;
}

static int row_label(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    struct listing *l = payload;
    (void)n;
    struct entry *e = entry_of(l, c[0]);
    if (!e)
        return 0;
    size_t tl = lens[1] + 1 + lens[2];
    char *t = malloc(tl + 1);
    if (!t)
        return nomem(err);
    snprintf(t, tl + 1, "%s=%s", c[1] ? c[1] : "", c[2] ? c[2] : "");
    int bad = append(&e->labels, &e->labels_len, t, strlen(t));
    free(t);
    return bad ? nomem(err) : 0;
}

static int row_total(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    struct listing *l = payload;
    (void)lens, (void)n;
    struct entry *e = entry_of(l, c[0]);
    if (!e)
        return 0;
    char v[64], t[320];
    pk_format_value(v, sizeof(v), pk_cell_i64(c[3]), c[2] ? c[2] : "");
    snprintf(t, sizeof(t), "%s=%s", c[1] ? c[1] : "", v);
    return append(&e->totals, &e->totals_len, t, strlen(t)) ? nomem(err) : 0;
}

static void print_time(FILE *out, int64_t ns)
{
    time_t t = (time_t)(ns / 1000000000LL);
    struct tm tm;
    char buf[64];
    if (ns < 0 || !gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, sizeof(buf), "%lld", (long long)ns);
    fputs(buf, out);
}

static void listing_free(struct listing *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->e[i].format);
        free(l->e[i].source);
        free(l->e[i].labels);
        free(l->e[i].totals);
    }
    free(l->e);
    pk_idmap_free(&l->by_seq);
}

static int collect(struct listing *l, profkit_store *s, const char *sel, int details,
                   profkit_error *err)
{
    pk_sql q = { 0 };
    const char *in = pk_sql_in(s);
    pk_sql_add(&q, "SELECT seq, id, time, format, source FROM profiles WHERE seq %s (%s) ORDER BY seq",
               in, sel);
    int rc = pk_sql_query(s, &q, row_entry, l, err);
    pk_sql_free(&q);
    if (rc || !details)
        return rc;
    pk_sql_add(&q, "SELECT seq, key, value FROM labels WHERE seq %s (%s) ORDER BY seq, key, value", in, sel);
    rc = pk_sql_query(s, &q, row_label, l, err);
    pk_sql_free(&q);
    if (rc)
        return rc;
    /* totals per value type, in the profile's order of value types */
    pk_sql_add(&q, "SELECT seq, type, unit, total FROM (SELECT seq, pos, type, unit, vtype FROM profile_values "
                   "WHERE seq %s (%s)) AS pv %s (SELECT seq, vtype, sum(value) AS total FROM samples WHERE seq %s "
                   "(%s) GROUP BY seq, vtype) AS t USING (seq, vtype) ORDER BY seq, pos",
               in, sel, s->clickhouse ? "ALL LEFT JOIN" : "LEFT JOIN", in, sel);
    rc = pk_sql_query(s, &q, row_total, l, err);
    pk_sql_free(&q);
    return rc;
}

int profkit_store_list(FILE *out, profkit_store *s, const profkit_store_query *q, profkit_error *err)
{
    pk_sql sel = { 0 };
    struct listing l;
    memset(&l, 0, sizeof(l));
    int rc = pk_sql_select_profiles(&sel, s, q, err);
    if (rc == 0)
        rc = collect(&l, s, sel.buf, 1, err);
    for (size_t i = 0; rc == 0 && i < l.n; i++) {
        const struct entry *e = &l.e[i];
        fprintf(out, "%016llx  ", (unsigned long long)e->id);
        print_time(out, e->time);
        fprintf(out, "  %s  %s\n", e->format, e->source);
        fprintf(out, "    labels: %s\n", e->labels ? e->labels : "");
        fprintf(out, "    totals: %s\n", e->totals ? e->totals : "");
    }
    if (rc == 0)
        fprintf(out, "%zu profile%s\n", l.n, l.n == 1 ? "" : "s");
    if (rc && err->file[0] == '\0')
        snprintf(err->file, sizeof(err->file), "%s", s->name);
    listing_free(&l);
    pk_sql_free(&sel);
    return rc;
}

int profkit_store_remove(profkit_store *s, const profkit_store_query *q, size_t *n, profkit_error *err)
{
    pk_sql sel = { 0 };
    struct listing l;
    memset(&l, 0, sizeof(l));
    int rc = pk_sql_select_profiles(&sel, s, q, err);
    if (rc == 0)
        rc = collect(&l, s, sel.buf, 0, err);
    if (rc == 0 && l.n) {
        /* the seqs, named: the selection must not change under the deletes */
        pk_sql list = { 0 };
        for (size_t i = 0; i < l.n; i++)
            pk_sql_add(&list, i ? ",%lld" : "%lld", (long long)l.e[i].seq);
        rc = list.failed ? pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory")
                         : s->engine->remove(s, list.buf, err);
        pk_sql_free(&list);
    }
    if (n)
        *n = rc == 0 ? l.n : 0;
    if (rc && err->file[0] == '\0')
        snprintf(err->file, sizeof(err->file), "%s", s->name);
    listing_free(&l);
    pk_sql_free(&sel);
    return rc;
}
