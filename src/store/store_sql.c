/* store_sql.c: building the store's SQL text: literals, the profile
 * selection of --where/--since/--until, and the times they take. */
#include "store/store.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* SQLite doubles quotes; ClickHouse escapes with backslashes (and takes
 * any byte after one). A NUL cannot be in SQLite text: the caller's
 * strings are C strings there. */
void pk_sql_str(pk_buf *q, const profkit_store *s, const char *v, size_t len)
{
    if (pk_buf_reserve(q, 2 * len + 2) != 0)
        return;
    char *o = q->buf + q->len;
    *o++ = '\'';
    for (size_t i = 0; i < len; i++) {
        char c = v[i];
        if (c == '\'')
            *o++ = s->clickhouse ? '\\' : '\'';
        else if (c == '\\' && s->clickhouse)
            *o++ = '\\';
        *o++ = c;
    }
    *o++ = '\'';
    *o = '\0';
    q->len = (size_t)(o - q->buf);
}

const char *pk_sql_in(const profkit_store *s) { return s->distributed ? "GLOBAL IN" : "IN"; }
const char *pk_sql_not_in(const profkit_store *s)
{
    return s->distributed ? "GLOBAL NOT IN" : "NOT IN";
}

int64_t pk_cell_i64(const char *c) { return c ? strtoll(c, NULL, 10) : 0; }

int pk_sql_query(profkit_store *s, pk_buf *q, pk_store_row_fn fn, void *payload,
                 profkit_error *err)
{
    if (pk_buf_error(q) || !q->buf)
        return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory building a query");
    return s->engine->query(s, q->buf, fn, payload, err);
}

int pk_sql_exec(profkit_store *s, pk_buf *q, profkit_error *err)
{
    if (pk_buf_error(q) || !q->buf)
        return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory building a query");
    return s->engine->exec(s, q->buf, err);
}

int pk_store_key_ok(const char *k, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = k[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

/* One --where term into q: AND seq [NOT] IN (labels that match). */
static int where_term(pk_buf *q, const profkit_store *s, const char *w, profkit_error *err)
{
    size_t k = strcspn(w, "=~");
    int neg = 0;
    char op = w[k];
    size_t klen = k;
    if (op == '=' && k > 0 && w[k - 1] == '!') {
        neg = 1;
        klen = k - 1;
    }
    if (!op || !pk_store_key_ok(w, klen))
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                 "profkit_store_query.where '%s': expected KEY=VALUE, KEY!=VALUE or "
                                 "KEY~REGEX "
                                 "(KEY of letters, digits, '_', '.', '-')", w);
    const char *v = w + k + 1;
    if (op == '~') {
        regex_t re;
        int rc = regcomp(&re, v, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[256];
            regerror(rc, &re, msg, sizeof(msg));
            return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                     "profkit_store_query.where '%s': bad regular expression: %s", w,
                                     msg);
        }
        regfree(&re);
    }
    pk_buf_printf(q, " AND seq %s (SELECT seq FROM labels WHERE key = ", neg ? pk_sql_not_in(s) : pk_sql_in(s));
    pk_sql_str(q, s, w, klen);
    if (op == '=') {
        pk_buf_printf(q, " AND value = ");
        pk_sql_str(q, s, v, strlen(v));
    } else if (s->clickhouse) {
        pk_buf_printf(q, " AND match(value, ");
        pk_sql_str(q, s, v, strlen(v));
        pk_buf_printf(q, ")");
    } else {
        pk_buf_printf(q, " AND regexp(");
        pk_sql_str(q, s, v, strlen(v));
        pk_buf_printf(q, ", value)");
    }
    pk_buf_printf(q, ")");
    return 0;
}

struct keys {
    char **k;
    size_t n, cap;
    int failed;
};

static int row_key(void *payload, char **cells, const size_t *lens, size_t n, profkit_error *err)
{
    struct keys *ks = payload;
    (void)n, (void)err;
    char *k = malloc(lens[0] + 1);
    if (!k || PK_VEC_RESERVE(ks->k, ks->n, ks->cap, 1) != 0) {
        free(k);
        ks->failed = 1;
        return 0;
    }
    memcpy(k, cells[0] ? cells[0] : "", lens[0]);
    k[lens[0]] = '\0';
    ks->k[ks->n++] = k;
    return 0;
}

static void keys_free(struct keys *ks)
{
    for (size_t i = 0; i < ks->n; i++)
        free(ks->k[i]);
    free(ks->k);
}

/* Each where term's key must be a key some profile has: a misspelt key
 * would select nothing (or, negated, everything) without a word. The
 * error lists the keys the store has. */
static int check_keys(profkit_store *s, const profkit_store_query *q, profkit_error *err)
{
    if (!q || q->n_where == 0)
        return 0;
    pk_buf sql = PK_BUF_INIT;
    pk_buf_printf(&sql, "SELECT DISTINCT key FROM labels WHERE key IN (");
    for (size_t i = 0; i < q->n_where; i++) {
        size_t k = strcspn(q->where[i], "=~!");
        pk_buf_printf(&sql, i ? "," : "");
        pk_sql_str(&sql, s, q->where[i], k);
    }
    pk_buf_printf(&sql, ")");
    struct keys have = { 0 };
    int rc = pk_sql_query(s, &sql, row_key, &have, err);
    pk_buf_free(&sql);
    if (rc == 0 && have.failed)
        rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    const char *missing = NULL;
    size_t mlen = 0;
    for (size_t i = 0; rc == 0 && !missing && i < q->n_where; i++) {
        size_t k = strcspn(q->where[i], "=~!"), j = 0;
        while (j < have.n && !(strlen(have.k[j]) == k && memcmp(have.k[j], q->where[i], k) == 0))
            j++;
        if (j == have.n) {
            missing = q->where[i];
            mlen = k;
        }
    }
    keys_free(&have);
    if (rc || !missing)
        return rc;
    struct keys all = { 0 };
    pk_buf_printf(&sql, "SELECT DISTINCT key FROM labels ORDER BY key");
    rc = pk_sql_query(s, &sql, row_key, &all, err);
    pk_buf_free(&sql);
    if (rc == 0 && all.failed)
        rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    if (rc == 0) {
        char list[400];
        size_t len = 0;
        list[0] = '\0';
        for (size_t i = 0; i < all.n && len < sizeof(list); i++) {
            int w = snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", all.k[i]);
            if (w < 0 || (size_t)w >= sizeof(list) - len) {
                snprintf(list + (len < sizeof(list) - 5 ? len : sizeof(list) - 5), 5, ", ..");
                break;
            }
            len += (size_t)w;
        }
        rc = pk_error_set(err, PROFKIT_EINVAL, s->name, -1,
                          "'%s': no profile has a label '%.*s'; the keys in the store are: %s", missing,
                          (int)mlen, missing, all.n ? list : "none (the store holds no profile)");
    }
    keys_free(&all);
    return rc;
}

int pk_sql_select_profiles(pk_buf *out, profkit_store *s, const profkit_store_query *q,
                           profkit_error *err)
{
    pk_buf_printf(out, "SELECT seq FROM profiles WHERE seq %s (SELECT seq FROM removed)", pk_sql_not_in(s));
    if (q && q->since != PROFKIT_NO_TIME)
        pk_buf_printf(out, " AND time >= %lld", (long long)q->since);
    if (q && q->until != PROFKIT_NO_TIME)
        pk_buf_printf(out, " AND time < %lld", (long long)q->until);
    if (q && q->n_ids) {
        pk_buf_printf(out, " AND id IN (");
        for (size_t i = 0; i < q->n_ids; i++)
            pk_buf_printf(out, i ? ",%lld" : "%lld", (long long)q->ids[i]);
        pk_buf_printf(out, ")");
    }
    for (size_t i = 0; q && i < q->n_where; i++) {
        int rc = where_term(out, s, q->where[i], err);
        if (rc)
            return rc;
    }
    if (pk_buf_error(out))
        return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory building a query");
    return check_keys(s, q, err);
}

int profkit_store_parse_time(const char *s, int64_t *ns)
{
    size_t n = strlen(s);
    if (n > 0 && n <= 10 && strspn(s, "0123456789") == n) {
        long long v = strtoll(s, NULL, 10);
        if (v > INT64_MAX / 1000000000LL) /* past 2262: not a time in ns */
            return PROFKIT_EINVAL;
        *ns = v * 1000000000LL;
        return 0;
    }
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    int used = 0;
    if (sscanf(s, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &used) != 3 || used != 10)
        return PROFKIT_EINVAL;
    const char *r = s + used;
    if (*r == 'T' || *r == ' ') {
        int u2 = 0;
        if (sscanf(r + 1, "%2d:%2d%n", &tm.tm_hour, &tm.tm_min, &u2) != 2 || u2 != 5)
            return PROFKIT_EINVAL;
        r += 1 + u2;
        if (*r == ':') {
            if (sscanf(r + 1, "%2d%n", &tm.tm_sec, &u2) != 1 || u2 != 2)
                return PROFKIT_EINVAL;
            r += 3;
        }
        if (*r == 'Z')
            r++;
    }
    if (*r || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
        tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
        return PROFKIT_EINVAL;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    time_t t = timegm(&tm);
    if (t == (time_t)-1 || (int64_t)t > INT64_MAX / 1000000000LL || (int64_t)t < INT64_MIN / 1000000000LL)
        return PROFKIT_EINVAL; /* outside 1677-2262: not a time in ns */
    *ns = (int64_t)t * 1000000000LL;
    return 0;
}

/* The old schema's column the check found, as text. */
static int row_found(void *payload, char **cells, const size_t *lens, size_t n, profkit_error *err)
{
    (void)err;
    snprintf(payload, 32, "%.*s", n && cells[0] ? (int)(lens[0] < 31 ? lens[0] : 31) : 0, n && cells[0] ? cells[0] : "");
    if (!*(char *)payload)
        snprintf(payload, 32, "?");
    return 0;
}

int pk_store_check_stacks(profkit_store *s, const char *old_sql, profkit_error *err)
{
    char old[32] = "";
    int rc = s->engine->query(s, old_sql, row_found, old, err);
    if (rc == 0 && old[0])
        rc = pk_error_set(err, PROFKIT_EUNSUPPORTED, s->name, -1,
                               "the store's stacks table has a '%s' column: it was written by an older "
                               "profkit (stacks as %s); add its files to a new store (its profiles "
                               "table's source column names them)", old,
                          strcmp(old, "parent") == 0 ? "parent/frame pairs"
                          : strcmp(old, "h") == 0    ? "rows beside their content ids"
                                                     : "arrays of frames and keys");
    return rc;
}

int pk_store_check_small_ids(profkit_store *s, const char *old_sql, profkit_error *err)
{
    char old[32] = "";
    int rc = s->engine->query(s, old_sql, row_found, old, err);
    if (rc == 0 && old[0])
        rc = pk_error_set(err, PROFKIT_EUNSUPPORTED, s->name, -1,
                          "the store has no 'idents' table: it was written by an older "
                          "profkit (rows named by their content ids); add its files to a new store "
                          "(its profiles table's source column names them)");
    return rc;
}

const char *const pk_store_own_tables[PK_STORE_N_OWN] = { "samples", "labels", "meta", "profile_values",
                                                          "profile_threads", "profiles" };
