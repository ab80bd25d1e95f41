/* store_clickhouse.c: the store on ClickHouse, through its HTTP interface
 * with libcurl (docs/store.md). Tables are MergeTree; the shared rows
 * (strings, functions, mappings, frames, stacks) are
 * ReplacingMergeTree, so the copies every add sends merge into one, and
 * queries read them with DISTINCT until they have. With ?cluster=NAME the
 * tables are *_local ones on every shard the URL lists and Distributed
 * tables over them on each, so the same queries run on one node or many.
 * There are no transactions: a profile's rows go in before its row of
 * `profiles`, which is what every query starts from. */
#include "store/store.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_SHARDS 16

/* The shared tables (rows named by their content id, the first column),
 * in the order of `tables` below. */
static const char *const shared_tables[] = { "strings", "functions", "mappings", "frames", "stacks", "labelsets" };
enum { N_SHARED = sizeof(shared_tables) / sizeof(shared_tables[0]) };
/* What `sent` remembers per table at most; past it, it starts again. */
#define SENT_MAX (1u << 20)

struct ch {
    CURL *curl;
    char base[MAX_SHARDS][300]; /* http(s)://HOST:PORT/ of each shard; queries go to the first */
    size_t n_shards;
    char db[128];
    char cluster[128];
    char user[128], password[256]; /* never printed */
    char cafile[512];              /* ?cafile=: the CAs of an https server's certificate */
    int secure;                    /* ?secure=1: https */
    long timeout_s;                /* ?timeout=: one query at most; 0: none */
    pk_buf body; /* the response */
    /* The ids of the shared rows this connection has inserted (INSERTs
     * that returned success), per table of shared_tables: an add does not
     * send them again. A row ClickHouse has taken stays until `store gc`
     * (rm leaves shared rows), so skipping it is safe while nothing runs
     * gc beside this connection, the rule gc has anyway (docs/store.md);
     * this connection's own gc forgets them. Every row an add sends is
     * an INSERT, a part per table on the server: a `store add` of many
     * files (or `store serve`) whose profiles share their stacks and
     * frames then makes a part per profile in the profile's own tables
     * only, instead of one in every shared table too. */
    pk_idmap sent[N_SHARED];
    /* Batched adds (profkit_store_add_options.batch): the rows held for
     * one INSERT per table, each table's VALUES in the order the tables
     * were first held (an add holds `profiles` last, so it goes last),
     * the shared rows' ids among them (not in `sent` until the INSERT
     * was accepted), and the profiles held (their content ids). */
    struct {
        char table[32];
        pk_buf body;
        size_t rows;
    } held[16];
    size_t n_held, held_bytes, held_rows;
    pk_idmap held_ids[N_SHARED];
    pk_idmap held_profiles;
    int64_t held_seq; /* the largest seq held */
    int wrote;        /* an INSERT of this connection was accepted: compact() at close */
};

static struct ch *ch_of(profkit_store *s) { return s->impl; }

static size_t on_data(char *data, size_t size, size_t n, void *payload)
{
    pk_buf *b = payload;
    pk_buf_put(b, data, size * n);
    return pk_buf_error(b) ? 0 : size * n;
}

/* POSTs body to shard `shard` with the query string `params`; the response
 * is in ch->body. */
static int post(profkit_store *s, size_t shard, const char *params, const char *body, size_t len,
                profkit_error *err)
{
    struct ch *c = ch_of(s);
    pk_buf url = PK_BUF_INIT;
    pk_buf_printf(&url, "%s?%s", c->base[shard], params);
    pk_buf_free(&c->body);
    if (pk_buf_error(&url))
        return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    curl_easy_setopt(c->curl, CURLOPT_URL, url.buf);
    curl_easy_setopt(c->curl, CURLOPT_POST, 1L);
    curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &c->body);
    CURLcode rc = curl_easy_perform(c->curl);
    pk_buf_free(&url);
    if (rc != CURLE_OK && c->n_shards > 1)
        return pk_error_set(err, PROFKIT_EIO, s->name, -1, "ClickHouse at %s (shard %zu of %zu): %s",
                            c->base[shard], shard + 1, c->n_shards, curl_easy_strerror(rc));
    if (rc != CURLE_OK)
        return pk_error_set(err, PROFKIT_EIO, s->name, -1, "ClickHouse at %s: %s", c->base[shard],
                                 curl_easy_strerror(rc));
    long status = 0;
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
    if (pk_buf_error(&c->body))
        return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory reading ClickHouse's answer");
    if (status != 200) {
        const char *m = c->body.buf ? c->body.buf : "";
        int ml = (int)strcspn(m, "\n");
        return pk_error_set(err, PROFKIT_EIO, s->name, -1, "ClickHouse answered %ld: %.*s", status,
                                 ml > 400 ? 400 : ml, m);
    }
    return 0;
}

/* The query string: the database, and inserts into Distributed tables
 * that return once every shard has the rows. */
static void params(pk_buf *p, const struct ch *c, const char *query)
{
    pk_buf_printf(p, "database=%s", c->db);
    if (c->cluster[0])
        pk_buf_printf(p, "&insert_distributed_sync=1");
    if (query) {
        char *e = curl_easy_escape(c->curl, query, 0);
        pk_buf_printf(p, "&query=%s", e ? e : "");
        curl_free(e);
    }
}

static int run(profkit_store *s, size_t shard, const char *sql, profkit_error *err)
{
    pk_buf p = PK_BUF_INIT;
    params(&p, ch_of(s), NULL);
    int rc = pk_buf_error(&p) ? pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory")
                      : post(s, shard, p.buf, sql, strlen(sql), err);
    pk_buf_free(&p);
    return rc;
}

/* run, and the answer's first line into out (n bytes). */
static int answer(profkit_store *s, size_t shard, const char *sql, char *out, size_t n,
                  profkit_error *err)
{
    int rc = run(s, shard, sql, err);
    if (rc == 0) {
        const char *b = ch_of(s)->body.buf ? ch_of(s)->body.buf : "";
        snprintf(out, n, "%.*s", (int)strcspn(b, "\n"), b);
    }
    return rc;
}

static int ch_exec(profkit_store *s, const char *sql, profkit_error *err) { return run(s, 0, sql, err); }

/* Undoes TabSeparated's escapes in place; returns the length. */
static size_t unescape(char *c, size_t n)
{
    size_t w = 0;
    for (size_t r = 0; r < n; r++) {
        char x = c[r];
        if (x == '\\' && r + 1 < n) {
            char y = c[++r];
            x = y == 'n' ? '\n' : y == 't' ? '\t' : y == 'r' ? '\r' : y == '0' ? '\0' : y == 'b' ? '\b'
              : y == 'f' ? '\f' : y;
        }
        c[w++] = x;
    }
    c[w] = '\0';
    return w;
}

static int ch_query(profkit_store *s, const char *sql, pk_store_row_fn fn, void *payload,
                    profkit_error *err)
{
    pk_buf q = PK_BUF_INIT;
    pk_buf_printf(&q, "%s FORMAT TabSeparated", sql);
    int rc = pk_buf_error(&q) ? pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory")
                      : run(s, 0, q.buf, err);
    pk_buf_free(&q);
    if (rc)
        return rc;
    struct ch *c = ch_of(s);
    char *cells[16];
    size_t lens[16];
    char *p = c->body.buf, *end = p + c->body.len;
    size_t row = 0;
    while (p && p < end && rc == 0) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            nl = end;
        size_t n = 0;
        for (char *cell = p; n < 16;) {
            char *tab = memchr(cell, '\t', (size_t)(nl - cell));
            char *ce = tab ? tab : nl;
            *ce = '\0';
            if (ce - cell == 2 && cell[0] == '\\' && cell[1] == 'N') {
                cells[n] = NULL;
                lens[n++] = 0;
            } else {
                lens[n] = unescape(cell, (size_t)(ce - cell));
                cells[n++] = cell;
            }
            if (!tab)
                break;
            cell = tab + 1;
        }
        rc = fn(payload, cells, lens, n, err);
        row++;
        p = nl + 1;
    }
    return rc;
}

/* A string literal of the VALUES format: quote and backslash escaped, NUL
 * as \0; other bytes as they are. */
static void literal(pk_buf *b, const char *s, size_t len)
{
    pk_buf_printf(b, "'");
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '\'' || c == '\\')
            pk_buf_printf(b, "\\%c", c);
        else if (c == '\0')
            pk_buf_printf(b, "\\0");
        else
            pk_buf_printf(b, "%c", c);
    }
    pk_buf_printf(b, "'");
}

/* The shared table's index in shared_tables, or -1. */
static int shared_index(const char *table, size_t n_cols, const pk_cell *cells)
{
    for (size_t i = 0; i < N_SHARED && n_cols > 0; i++)
        if (strcmp(table, shared_tables[i]) == 0 && cells[0].kind == PK_CELL_INT)
            return (int)i;
    return -1;
}

/* Appends the rows to body as VALUES tuples, "(a, b),(c, d)", but those
 * whose id (first cell) is in `sent` or `held`; the ids appended go into
 * `held` when it is not NULL. *n counts the tuples in body (a comma goes
 * before all but the first). Returns 0 or -1 (out of memory). */
static int values(pk_buf *body, size_t *n, size_t n_cols, const pk_cell *cells, size_t n_rows,
                  const pk_idmap *sent, pk_idmap *held)
{
    for (size_t r = 0; r < n_rows; r++) {
        uint64_t id = (uint64_t)cells[r * n_cols].i;
        if (sent && pk_idmap_get(sent, id) != PROFKIT_NONE)
            continue; /* this connection has inserted it */
        if (held && pk_idmap_get(held, id) != PROFKIT_NONE)
            continue; /* in the batch already */
        if (held && pk_idmap_put(held, id, 1) < 0)
            return -1;
        pk_buf_printf(body, (*n)++ ? ",(" : "(");
        for (size_t c = 0; c < n_cols; c++) {
            const pk_cell *x = &cells[r * n_cols + c];
            if (c)
                pk_buf_printf(body, ",");
            if (x->kind == PK_CELL_TEXT)
                literal(body, x->s ? x->s : "", x->len);
            else if (x->kind == PK_CELL_ARRAY) /* profkit's own "[1,2,3]" */
                pk_buf_printf(body, "%.*s", (int)x->len, x->s ? x->s : "[]");
            else
                pk_buf_printf(body, "%lld", (long long)x->i);
        }
        pk_buf_printf(body, ")");
    }
    return pk_buf_error(body) ? -1 : 0;
}

/* POSTs "INSERT INTO table VALUES" with body. */
static int insert_body(profkit_store *s, const char *table, const pk_buf *body, profkit_error *err)
{
    pk_buf q = PK_BUF_INIT, p = PK_BUF_INIT;
    pk_buf_printf(&q, "INSERT INTO %s VALUES", table);
    params(&p, ch_of(s), q.buf);
    int rc = pk_buf_error(body) || pk_buf_error(&q) || pk_buf_error(&p)
                 ? pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory")
                 : post(s, 0, p.buf, body->buf, body->len, err);
    if (rc == 0)
        ch_of(s)->wrote = 1;
    pk_buf_free(&q);
    pk_buf_free(&p);
    return rc;
}

/* Remembers id as inserted by this connection (out of memory, or past
 * SENT_MAX, only forgets). */
static void remember(pk_idmap *sent, uint64_t id)
{
    if (sent->count >= SENT_MAX)
        pk_idmap_free(sent);
    if (pk_idmap_put(sent, id, 1) < 0)
        pk_idmap_free(sent);
}

/* Rows go as VALUES (a, b), (c, d): a body cut short (an add killed while
 * sending) ends inside a tuple, which ClickHouse refuses whole, where in
 * TabSeparated the last row's last number or text, cut, would be taken as
 * it came and could name a shared row wrongly. */
static int ch_insert(profkit_store *s, const char *table, size_t n_cols, const pk_cell *cells,
                     size_t n_rows, profkit_error *err)
{
    if (n_rows == 0)
        return 0;
    struct ch *conn = ch_of(s);
    int sh = shared_index(table, n_cols, cells);
    pk_idmap *sent = sh >= 0 ? &conn->sent[sh] : NULL;
    size_t n_sent = 0; /* rows in the body */
    pk_buf body = PK_BUF_INIT;
    if (values(&body, &n_sent, n_cols, cells, n_rows, sent, NULL) != 0) {
        pk_buf_free(&body);
        return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    }
    int rc = n_sent ? insert_body(s, table, &body, err) : 0;
    /* in the table now: remembered */
    for (size_t r = 0; rc == 0 && n_sent && sent && r < n_rows; r++)
        remember(sent, (uint64_t)cells[r * n_cols].i);
    pk_buf_free(&body);
    return rc;
}

/* Drops the rows held (none of them was sent). */
void pk_store_ch_drop(profkit_store *s)
{
    struct ch *c = ch_of(s);
    for (size_t t = 0; t < c->n_held; t++)
        pk_buf_free(&c->held[t].body);
    for (size_t i = 0; i < N_SHARED; i++)
        pk_idmap_free(&c->held_ids[i]);
    pk_idmap_free(&c->held_profiles);
    c->n_held = c->held_bytes = c->held_rows = 0;
}

int pk_store_ch_hold(profkit_store *s, const char *table, size_t n_cols, const pk_cell *cells,
                     size_t n_rows, profkit_error *err)
{
    struct ch *c = ch_of(s);
    if (n_rows == 0)
        return 0;
    size_t t = 0;
    while (t < c->n_held && strcmp(c->held[t].table, table) != 0)
        t++;
    if (t == c->n_held) {
        if (t == sizeof(c->held) / sizeof(c->held[0]) || strlen(table) >= sizeof(c->held[t].table))
            return pk_error_set(err, PROFKIT_EINVAL, s->name, -1, "table %s: not held", table);
        snprintf(c->held[t].table, sizeof(c->held[t].table), "%s", table);
        pk_buf_init(&c->held[t].body, 0);
        c->held[t].rows = 0;
        c->n_held++;
    }
    int sh = shared_index(table, n_cols, cells);
    size_t before = c->held[t].body.len, rows = c->held[t].rows;
    if (values(&c->held[t].body, &c->held[t].rows, n_cols, cells, n_rows, sh >= 0 ? &c->sent[sh] : NULL,
               sh >= 0 ? &c->held_ids[sh] : NULL) != 0)
        return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory adding a profile");
    c->held_bytes += c->held[t].body.len - before;
    c->held_rows += c->held[t].rows - rows;
    return 0;
}

int pk_store_ch_hold_profile(profkit_store *s, uint64_t content, int64_t seq, profkit_error *err)
{
    struct ch *c = ch_of(s);
    if (pk_idmap_put(&c->held_profiles, content, 1) < 0)
        return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory adding a profile");
    if (seq > c->held_seq)
        c->held_seq = seq;
    return 0;
}

int pk_store_ch_held(profkit_store *s, uint64_t content, int64_t *last_seq, size_t *bytes, size_t *rows)
{
    struct ch *c = ch_of(s);
    if (last_seq)
        *last_seq = c->held_seq;
    if (bytes)
        *bytes = c->held_bytes;
    if (rows)
        *rows = c->held_rows;
    return content && pk_idmap_get(&c->held_profiles, content) != PROFKIT_NONE;
}

/* One INSERT per table of what is held, in the order held (`profiles`
 * last: what makes the profiles visible goes in once all their rows
 * are); then the shared rows count as sent. On an error the rest is
 * dropped: the profiles whose `profiles` rows were not accepted are not
 * in the store, and a shared row ClickHouse took is only sent again. */
int pk_store_ch_flush(profkit_store *s, profkit_error *err)
{
    struct ch *c = ch_of(s);
    int rc = 0;
    for (size_t t = 0; t < c->n_held && rc == 0; t++)
        if (c->held[t].rows)
            rc = insert_body(s, c->held[t].table, &c->held[t].body, err);
    for (size_t i = 0; i < N_SHARED && rc == 0; i++) {
        const pk_idmap *h = &c->held_ids[i];
        for (size_t k = 0; k < h->cap; k++)
            if (h->vals[k] != PK_MAP64_EMPTY)
                remember(&c->sent[i], h->keys[k]);
    }
    pk_store_ch_drop(s);
    return rc;
}

static int ch_begin(profkit_store *s, profkit_error *err) { (void)s, (void)err; return 0; }
static int ch_commit(profkit_store *s, profkit_error *err) { (void)s, (void)err; return 0; }
static void ch_rollback(profkit_store *s) { (void)s; }

/* Removing profiles: a tombstone in `removed` hides them from every query
 * at once (there is no DELETE on a Distributed table and no transaction),
 * then a mutation on each server's tables deletes their own rows in the
 * background (ALTER TABLE ... DELETE, on the *_local tables of every shard
 * the URL lists). The shared rows stay: with no transaction, deleting one
 * that looks unused could race an add sending the same row (the same
 * content, so the same id), which would then name a row that is gone
 * (docs/store.md). */
static int ch_remove(profkit_store *s, const char *seqs, profkit_error *err)
{
    struct ch *c = ch_of(s);
    pk_buf q = PK_BUF_INIT;
    pk_buf_printf(&q, "INSERT INTO removed SELECT seq FROM profiles WHERE seq IN (%s)", seqs);
    int rc = pk_sql_exec(s, &q, err);
    for (size_t h = 0; h < c->n_shards && rc == 0; h++)
        for (size_t t = 0; t < PK_STORE_N_OWN && rc == 0; t++) {
            pk_buf_free(&q);
            pk_buf_printf(&q, "ALTER TABLE %s%s DELETE WHERE seq IN (%s)", pk_store_own_tables[t],
                       c->cluster[0] ? "_local" : "", seqs);
            rc = pk_buf_error(&q) ? pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory")
                          : run(s, h, q.buf, err);
        }
    pk_buf_free(&q);
    return rc;
}

/* Waits until no mutation of `table` is left on shard h (what a query
 * after this sees is then without the deleted rows). 20 s at most, then
 * an error naming what is still under way and what that means (`then`). */
static int wait_mutations(profkit_store *s, size_t h, const char *table, const char *what,
                          const char *then, profkit_error *err)
{
    struct ch *c = ch_of(s);
    pk_buf q = PK_BUF_INIT;
    int rc = 0;
    int64_t pending = 1;
    for (int tries = 0; rc == 0 && pending > 0; tries++) {
        if (tries == 400) {
            rc = pk_error_set(err, PROFKIT_EIO, s->name, -1,
                              "shard %s: %s has not finished after 20 s; %s", c->base[h], what, then);
            break;
        }
        if (tries)
            nanosleep(&(struct timespec){ 0, 50000000L }, NULL);
        pk_buf_free(&q);
        pk_buf_printf(&q, "SELECT count() FROM system.mutations WHERE database = '%s' AND table = '%s' "
                       "AND is_done = 0 FORMAT TabSeparated", c->db, table);
        rc = pk_buf_error(&q) ? pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory") : run(s, h, q.buf, err);
        if (rc == 0)
            pending = c->body.buf ? strtoll(c->body.buf, NULL, 10) : 0;
    }
    pk_buf_free(&q);
    return rc;
}

/* Changing labels: a mutation deletes the old rows of those keys on every
 * shard, and the call waits until every shard has done it (a mutation runs
 * in the background), so a query after it sees the new labels only. The
 * new rows are inserted after the mutation was made, which it does not
 * touch (a mutation applies to the parts that exist when it is made). */
static int ch_unlabel(profkit_store *s, const char *seqs, const char *keys, profkit_error *err)
{
    struct ch *c = ch_of(s);
    const char *table = c->cluster[0] ? "labels_local" : "labels";
    pk_buf q = PK_BUF_INIT;
    int rc = 0;
    for (size_t h = 0; h < c->n_shards && rc == 0; h++) {
        pk_buf_free(&q);
        pk_buf_printf(&q, "ALTER TABLE %s DELETE WHERE seq IN (%s) AND key IN (%s)", table, seqs, keys);
        rc = pk_buf_error(&q) ? pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory") : run(s, h, q.buf, err);
    }
    /* 20 s at most per shard, then an error: the labels are changing */
    for (size_t h = 0; h < c->n_shards && rc == 0; h++)
        rc = wait_mutations(s, h, table, "the label change", "queries may see the old labels until it has",
                            err);
    pk_buf_free(&q);
    return rc;
}


static int row_id_list(void *payload, char **cells, const size_t *lens, size_t n, profkit_error *err)
{
    (void)err;
    pk_buf *b = payload;
    if (n > 0 && cells[0] && lens[0])
        pk_buf_printf(b, "%s%.*s", b->len ? "," : "", (int)lens[0], cells[0]);
    return 0;
}

/* gc: the shared rows no live profile uses, found as set differences from
 * the live profiles down (samples -> stacks -> frames -> functions and
 * mappings -> strings), each level against what the level above keeps,
 * then deleted with a mutation per table on every server the URL lists,
 * waited for. Every set is computed before any row goes, so the order of
 * the mutations does not matter. Rows of an add under way (written before
 * its `profiles` row) look unused: gc must run while nothing adds
 * (docs/store.md). */
static int ch_gc(profkit_store *s, size_t *n, profkit_error *err)
{
    struct ch *c = ch_of(s);
    const char *in = pk_sql_in(s), *not_in = pk_sql_not_in(s);
    pk_buf live_stacks = PK_BUF_INIT, live_frames = PK_BUF_INIT, live_fn = PK_BUF_INIT,
           live_map = PK_BUF_INIT, live_str = PK_BUF_INIT;
    pk_buf_printf(&live_stacks, "SELECT DISTINCT stack FROM samples WHERE seq %s (SELECT seq FROM profiles "
                  "WHERE seq %s (SELECT seq FROM removed))", in, not_in);
    pk_buf_printf(&live_frames, "SELECT DISTINCT arrayJoin(frames) FROM stacks WHERE id %s (%s)", in,
                  live_stacks.buf ? live_stacks.buf : "");
    pk_buf_printf(&live_fn, "SELECT DISTINCT function FROM frames WHERE id %s (%s)", in,
                  live_frames.buf ? live_frames.buf : "");
    pk_buf_printf(&live_map, "SELECT DISTINCT mapping FROM frames WHERE id %s (%s)", in,
                  live_frames.buf ? live_frames.buf : "");
    pk_buf_printf(&live_str,
                  "SELECT arrayJoin([name, system_name, file, module]) FROM functions WHERE id %s (%s)"
                  " UNION ALL SELECT arrayJoin([path, build_id]) FROM mappings WHERE id %s (%s)"
                  " UNION ALL SELECT key FROM frames WHERE id %s (%s)",
                  in, live_fn.buf ? live_fn.buf : "", in, live_map.buf ? live_map.buf : "", in,
                  live_frames.buf ? live_frames.buf : "");
    struct {
        const char *table;
        const pk_buf *live;
    } levels[] = {
        { "stacks", &live_stacks }, { "frames", &live_frames }, { "functions", &live_fn },
        { "mappings", &live_map },  { "strings", &live_str },
    };
    enum { N_LEVELS = sizeof(levels) / sizeof(levels[0]) };
    /* the rows it deletes may be rows this connection sent */
    for (size_t i = 0; i < N_SHARED; i++)
        pk_idmap_free(&c->sent[i]);
    pk_buf dead[N_LEVELS];
    for (size_t i = 0; i < N_LEVELS; i++)
        pk_buf_init(&dead[i], 0);
    pk_buf q = PK_BUF_INIT;
    int rc = 0;
    *n = 0;
    for (size_t i = 0; i < N_LEVELS && rc == 0; i++) {
        pk_buf_clear(&q);
        pk_buf_printf(&q, "SELECT DISTINCT id FROM %s WHERE id %s (SELECT * FROM (%s))", levels[i].table,
                      not_in, levels[i].live->buf ? levels[i].live->buf : "");
        if (pk_buf_error(levels[i].live))
            q.err = PROFKIT_ENOMEM;
        rc = pk_sql_query(s, &q, row_id_list, &dead[i], err);
        if (rc == 0 && pk_buf_error(&dead[i]))
            rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    }
    /* the deletes, 10,000 ids a mutation */
    for (size_t i = 0; i < N_LEVELS && rc == 0; i++) {
        const char *list = dead[i].buf ? dead[i].buf : "";
        size_t len = dead[i].len, at = 0;
        while (at < len && rc == 0) {
            size_t end = at, k = 0;
            while (end < len && k < 10000) {
                const char *comma = memchr(list + end, ',', len - end);
                end = comma ? (size_t)(comma - list) + 1 : len;
                k++;
            }
            size_t stop = end < len ? end - 1 : len; /* without the last comma */
            *n += k;
            for (size_t h = 0; h < c->n_shards && rc == 0; h++) {
                pk_buf_clear(&q);
                pk_buf_printf(&q, "ALTER TABLE %s%s DELETE WHERE id IN (%.*s)", levels[i].table,
                              c->cluster[0] ? "_local" : "", (int)(stop - at), list + at);
                rc = pk_buf_error(&q) ? pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory")
                                      : run(s, h, q.buf, err);
            }
            at = end;
        }
    }
    for (size_t i = 0; i < N_LEVELS && rc == 0; i++) {
        char table[64];
        snprintf(table, sizeof(table), "%s%s", levels[i].table, c->cluster[0] ? "_local" : "");
        for (size_t h = 0; h < c->n_shards && rc == 0 && dead[i].len; h++)
            rc = wait_mutations(s, h, table, "the deletion of unused rows", "it goes on in the background", err);
    }
    for (size_t i = 0; i < N_LEVELS; i++)
        pk_buf_free(&dead[i]);
    pk_buf_free(&q);
    pk_buf_free(&live_stacks);
    pk_buf_free(&live_frames);
    pk_buf_free(&live_fn);
    pk_buf_free(&live_map);
    pk_buf_free(&live_str);
    return rc;
}

/* A small table's parts merged into one once an add is done. Each part
 * is a directory of two files a column and four more (du counts 4 kB for
 * the directory alone, ~6 kB a part in all), and the server's own merges
 * leave a table in 3 or 4 parts for good (they merge parts of like
 * sizes): for a store of a few profiles those directories weigh more
 * than the rows (docs/BENCHMARKS.md, "Schema 2 and merged parts on
 * ClickHouse"). OPTIMIZE ... FINAL rewrites the whole table, and the
 * parts it replaces stay old_parts_lifetime (60 s): an add that merged
 * a table of megabytes would leave a copy of it on disk for a minute
 * (1,000 generated profiles in 20 adds: the directory 6.8x the inputs
 * during the adds with tables up to 8 MB merged, against 1.7x). So a
 * table is merged only when it holds at most COMPACT_PER_PART bytes for
 * each part the merge removes: the copy is small, the directories saved
 * are for good; larger tables are left to the server's merges (their
 * few directories are a small share of them). It changes no row that a
 * query sees (a shared table's copies of a row merge into one, which
 * queries read with DISTINCT anyway) and may run while other adds and
 * queries do; it is best effort: an error (a merge of those parts under
 * way, merges stopped) leaves the parts as they are. */
#define COMPACT_PER_PART 65536u

static int name_ok(const char *k, size_t n);

static void compact(profkit_store *s)
{
    struct ch *c = ch_of(s);
    profkit_error e;
    pk_buf q = PK_BUF_INIT, names = PK_BUF_INIT;
    for (size_t h = 0; h < c->n_shards; h++) {
        pk_buf_clear(&q);
        pk_buf_printf(&q, "SELECT table FROM system.parts WHERE database = '%s' AND active GROUP BY table "
                       "HAVING count() > 1 AND sum(bytes_on_disk) <= %u * (count() - 1) FORMAT TabSeparated", c->db,
                       COMPACT_PER_PART);
        memset(&e, 0, sizeof(e));
        if (pk_buf_error(&q) || run(s, h, q.buf, &e) != 0)
            continue;
        pk_buf_clear(&names);
        pk_buf_put(&names, c->body.buf ? c->body.buf : "", c->body.len);
        pk_buf_put(&names, "", 1);
        if (pk_buf_error(&names))
            continue;
        for (char *t = names.buf, *nl; *t; t = nl + 1) {
            if (!(nl = strchr(t, '\n')))
                break;
            *nl = '\0';
            if (!name_ok(t, strlen(t)))
                continue;
            pk_buf_clear(&q);
            pk_buf_printf(&q, "OPTIMIZE TABLE %s.%s FINAL", c->db, t);
            memset(&e, 0, sizeof(e));
            if (!pk_buf_error(&q))
                (void)run(s, h, q.buf, &e);
        }
    }
    pk_buf_free(&q);
    pk_buf_free(&names);
}

static void ch_close(profkit_store *s)
{
    struct ch *c = ch_of(s);
    if (!c)
        return;
    if (c->wrote)
        compact(s);
    curl_easy_cleanup(c->curl);
    pk_buf_free(&c->body);
    for (size_t i = 0; i < N_SHARED; i++)
        pk_idmap_free(&c->sent[i]);
    pk_store_ch_drop(s); /* held rows never flushed: not added */
    free(c);
}

static const pk_store_engine clickhouse_engine = {
    ch_exec, ch_query, ch_insert, ch_begin, ch_commit, ch_rollback, ch_remove, ch_unlabel, ch_close, ch_gc,
};

/* The tables: name, columns, ORDER BY, and whether rows are shared (merged
 * by id) or a profile's own; the sharding key is the first column.
 *
 * Schema 2 (docs/store.md, "Size on ClickHouse: schema 2"): the ORDER BY of the
 * larger tables puts rows that look alike side by side, which is what
 * the parts' compression (zstd over each column's blocks) can use: the
 * content ids are random and do not compress, but the same id again does.
 * Stacks in the order of their frames (root first), so the stacks that
 * share a prefix are neighbours; frames by mapping and address; functions
 * by file and name; strings by their text; samples by stack within a
 * profile (its value types side by side, with the same stack and label
 * set). A shared table's key still ends with id, a function of the row's
 * content, so ReplacingMergeTree still merges the copies of a row. Schema
 * 1 (profkit before it) ordered the shared tables by id and `samples` by
 * (seq, vtype, stack); SCHEMA_KEY tells them apart. */
#define SCHEMA_VERSION 2
#define SCHEMA_KEY "frames, id" /* stacks' sorting key in system.tables */
static const struct {
    const char *name, *cols, *order;
    int shared;
} tables[] = {
    { "profiles", "seq Int64, id Int64, time Int64, added Int64, format String, source String", "seq", 0 },
    { "labels", "seq Int64, key String, value String", "(key, value, seq)", 0 },
    { "meta", "seq Int64, pos Int64, key String, value String", "(seq, pos)", 0 },
    { "profile_values", "seq Int64, pos Int64, vtype Int64, type String, unit String, is_default Int64", "(seq, pos)", 0 },
    { "profile_threads", "seq Int64, pos Int64, thread Int64, name String, process_name String, pid Int64, tid Int64", "(seq, pos)", 0 },
    { "strings", "id Int64, text String", "(text, id)", 1 },
    { "functions", "id Int64, name Int64, system_name Int64, file Int64, module Int64, start_line Int64", "(file, name, id)", 1 },
    { "mappings", "id Int64, memory_start Int64, memory_end Int64, file_offset Int64, path Int64, build_id Int64", "id", 1 },
    { "frames", "id Int64, address Int64, function Int64, line Int64, col Int64, mapping Int64, inline_depth Int64, key Int64", "(mapping, address, function, id)", 1 },
    { "stacks", "id Int64, frames Array(Int64)", "(frames, id)", 1 },
    { "labelsets", "id Int64, labels Array(Int64)", "id", 1 },
    { "samples", "seq Int64, stack Int64, thread Int64, vtype Int64, value Int64, labels Int64", "(seq, stack, labels, vtype)", 0 },
    { "removed", "seq Int64", "seq", 0 },
};

/* Every MergeTree table's settings. Each INSERT is a part of its own on
 * disk (a directory of 2 files a column and 4 more, 4 kB blocks each) and
 * the background merges replace parts by bigger ones; a replaced part
 * stays on disk for old_parts_lifetime (480 s by default), so while adds
 * run the directory held many times the store (4.5 GB against 75 MB after
 * 10,000 adds: docs/BENCHMARKS.md). ClickHouse keeps them in case a
 * merged part was not yet written out when the machine lost power; 60 s
 * is twice the time Linux lets a written page wait for the disk
 * (vm.dirty_expire_centisecs, 30 s). Tables made by an older profkit keep
 * the server's default (ClickHouse 18.16 cannot change a table's
 * settings): the server's <merge_tree> section can set it for every
 * table (docs/store.md). */
#define TABLE_SETTINGS "old_parts_lifetime = 60"

/* A store of schema 1 (its stacks ordered by id) is refused: its tables
 * keep the order they were made with (ClickHouse 18.16 cannot change a
 * table's ORDER BY), and profkit does not copy a store's rows into new
 * tables behind its users' backs (adds running meanwhile would be lost).
 * docs/store.md says how to move one by hand. */
static int check_schema(profkit_store *s, profkit_error *err)
{
    struct ch *c = ch_of(s);
    pk_buf q = PK_BUF_INIT;
    char key[128] = "";
    pk_buf_printf(&q, "SELECT sorting_key FROM system.tables WHERE database = '%s' AND name = '%s' "
                   "FORMAT TabSeparated", c->db, c->cluster[0] ? "stacks_local" : "stacks");
    int rc = pk_buf_error(&q) ? pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory")
                              : answer(s, 0, q.buf, key, sizeof(key), err);
    pk_buf_free(&q);
    if (rc == 0 && key[0] && strcmp(key, SCHEMA_KEY) != 0)
        rc = pk_error_set(err, PROFKIT_EUNSUPPORTED, s->name, -1,
                          "the ClickHouse database %s holds the store's schema 1 (tables ordered by id, "
                          "stacks' key '%s'); this profkit writes schema %d: add its files to a new "
                          "database (its profiles table's source column names them), or move its rows "
                          "as docs/store.md says", c->db, key, SCHEMA_VERSION);
    return rc;
}

static int create(profkit_store *s, profkit_error *err)
{
    struct ch *c = ch_of(s);
    int rc = 0;
    pk_buf q = PK_BUF_INIT;
    for (size_t h = 0; h < c->n_shards && rc == 0; h++) {
        /* the database may not be there yet: this one without database= */
        pk_buf_free(&q);
        pk_buf_printf(&q, "CREATE DATABASE IF NOT EXISTS %s", c->db);
        if (pk_buf_error(&q)) {
            rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
            break;
        }
        if ((rc = post(s, h, "", q.buf, q.len, err)) != 0)
            break;
        if (h == 0) { /* a store of the older schema is refused before any table is made */
            pk_buf_free(&q);
            pk_buf_printf(&q, "SELECT name FROM system.columns WHERE database = '%s' AND table IN ('stacks', "
                           "'stacks_local') AND name IN ('parent', 'keys')", c->db);
            rc = pk_buf_error(&q) ? pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory")
                          : pk_store_check_stacks(s, q.buf, err);
            if (rc == 0)
                rc = check_schema(s, err);
            if (rc)
                break;
        }
        for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]) && rc == 0; t++) {
            const char *key = strchr(tables[t].cols, ' ');
            int klen = (int)(key - tables[t].cols);
            pk_buf_free(&q);
            pk_buf_printf(&q, "CREATE TABLE IF NOT EXISTS %s.%s%s (%s) ENGINE = %s ORDER BY %s SETTINGS %s",
                       c->db, tables[t].name, c->cluster[0] ? "_local" : "", tables[t].cols,
                       tables[t].shared ? "ReplacingMergeTree" : "MergeTree", tables[t].order, TABLE_SETTINGS);
            if ((rc = run(s, h, q.buf, err)) != 0 || !c->cluster[0])
                continue;
            pk_buf_free(&q);
            pk_buf_printf(&q, "CREATE TABLE IF NOT EXISTS %s.%s AS %s.%s_local ENGINE = Distributed(%s, %s, %s_local, "
                           "intHash64(%.*s))", c->db, tables[t].name, c->db, tables[t].name, c->cluster, c->db,
                       tables[t].name, klen, tables[t].cols);
            rc = run(s, h, q.buf, err);
        }
        /* a store written before samples had labels gets the column (0:
         * none); asked of each table, as ClickHouse before 19.x has no
         * ADD COLUMN IF NOT EXISTS */
        for (int d = 0; d < (c->cluster[0] ? 2 : 1) && rc == 0; d++) {
            const char *suffix = c->cluster[0] && d == 0 ? "_local" : "";
            char count[32] = "";
            pk_buf_free(&q);
            pk_buf_printf(&q, "SELECT count() FROM system.columns WHERE database = '%s' AND table = "
                           "'samples%s' AND name = 'labels' FORMAT TabSeparated", c->db, suffix);
            if ((rc = answer(s, h, q.buf, count, sizeof(count), err)) != 0 || atoi(count) > 0)
                continue;
            pk_buf_free(&q);
            pk_buf_printf(&q, "ALTER TABLE %s.samples%s ADD COLUMN labels Int64", c->db, suffix);
            rc = run(s, h, q.buf, err);
        }
    }
    pk_buf_free(&q);
    return rc;
}

/* %XX escapes of a URL's user or password, decoded into out (n bytes).
 * Returns -1 when it does not fit or an escape is bad. */
static int decode(char *out, size_t n, const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++) {
        int ch = (unsigned char)s[i];
        if (ch == '%') {
            unsigned v;
            if (i + 2 >= len || sscanf(s + i + 1, "%2x", &v) != 1)
                return -1;
            ch = (int)v;
            i += 2;
        }
        if (w + 1 >= n || ch == 0)
            return -1;
        out[w++] = (char)ch;
    }
    out[w] = '\0';
    return 0;
}

static int name_ok(const char *k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') || (k[i] >= '0' && k[i] <= '9') ||
              k[i] == '_'))
            return 0;
    return n > 0;
}

/* One ?KEY=VALUE of the URL. */
static int option(struct ch *c, const char *k, size_t kl, const char *v, size_t vl)
{
    if (kl == 7 && memcmp(k, "cluster", 7) == 0) {
        if (!name_ok(v, vl) || vl >= sizeof(c->cluster))
            return -1;
        memcpy(c->cluster, v, vl);
        c->cluster[vl] = '\0';
    } else if (kl == 6 && memcmp(k, "secure", 6) == 0) {
        if ((vl == 1 && *v == '1') || (vl == 4 && memcmp(v, "true", 4) == 0))
            c->secure = 1;
        else if (!((vl == 1 && *v == '0') || (vl == 5 && memcmp(v, "false", 5) == 0)))
            return -1;
    } else if (kl == 7 && memcmp(k, "timeout", 7) == 0) {
        long t = 0;
        for (size_t i = 0; i < vl; i++) {
            if (v[i] < '0' || v[i] > '9' || t > 86400)
                return -1;
            t = t * 10 + (v[i] - '0');
        }
        if (vl == 0 || t > 86400)
            return -1;
        c->timeout_s = t;
    } else if (kl == 6 && memcmp(k, "cafile", 6) == 0) {
        if (decode(c->cafile, sizeof(c->cafile), v, vl) != 0 || !c->cafile[0])
            return -1;
    } else {
        return -1;
    }
    return 0;
}

/* clickhouse://[USER[:PASSWORD]@]HOST:PORT[,HOST:PORT...]/DATABASE[?KEY=VALUE[&...]]
 * with the keys cluster, secure, timeout, cafile. */
static int parse(struct ch *c, const char *url)
{
    const char *p = url + strlen("clickhouse://");
    const char *slash = strchr(p, '/');
    if (!slash || slash == p)
        return -1;
    const char *at = memchr(p, '@', (size_t)(slash - p));
    if (at) {
        const char *colon = memchr(p, ':', (size_t)(at - p));
        const char *ue = colon ? colon : at;
        if (ue == p || decode(c->user, sizeof(c->user), p, (size_t)(ue - p)) != 0 ||
            (colon && decode(c->password, sizeof(c->password), colon + 1, (size_t)(at - colon - 1)) != 0))
            return -1;
        p = at + 1;
    }
    const char *db = slash + 1, *q = strchr(db, '?');
    size_t dl = q ? (size_t)(q - db) : strlen(db);
    if (dl >= sizeof(c->db) || !name_ok(db, dl))
        return -1;
    memcpy(c->db, db, dl);
    for (q = q ? q + 1 : NULL; q && *q;) {
        const char *amp = strchr(q, '&'), *e = amp ? amp : q + strlen(q);
        const char *eq = memchr(q, '=', (size_t)(e - q));
        if (!eq || option(c, q, (size_t)(eq - q), eq + 1, (size_t)(e - eq - 1)) != 0)
            return -1;
        q = amp ? amp + 1 : NULL;
    }
    while (p < slash) {
        const char *comma = memchr(p, ',', (size_t)(slash - p));
        const char *e = comma ? comma : slash;
        if (e == p || c->n_shards == MAX_SHARDS || e - p > 250)
            return -1;
        snprintf(c->base[c->n_shards++], sizeof(c->base[0]), "%s://%.*s/", c->secure ? "https" : "http",
                 (int)(e - p), p);
        p = comma ? comma + 1 : slash;
    }
    return 0;
}

int pk_store_clickhouse_open(profkit_store *s, const char *url, const profkit_store_options *o,
                             profkit_error *err)
{
    struct ch *c = calloc(1, sizeof(*c));
    if (!c)
        return pk_error_set(err, PROFKIT_ENOMEM, url, -1, "out of memory opening the store");
    (void)url;
    if (parse(c, url) != 0) {
        free(c);
        return pk_error_set(err, PROFKIT_EINVAL, s->name, -1,
                            "expected clickhouse://[USER[:PASSWORD]@]HOST:PORT[,HOST:PORT...]/DATABASE"
                            "[?cluster=NAME&secure=1&timeout=SECONDS&cafile=PATH] (DATABASE and NAME of "
                            "letters, digits and '_'; USER and PASSWORD with %%XX escapes)");
    }
    /* the caller's credentials when the URL names no user (never printed) */
    if (!c->user[0] && o && o->user && o->user[0]) {
        if (strlen(o->user) >= sizeof(c->user) || (o->password && strlen(o->password) >= sizeof(c->password))) {
            free(c);
            return pk_error_set(err, PROFKIT_EINVAL, s->name, -1, "the ClickHouse user or password is too long");
        }
        snprintf(c->user, sizeof(c->user), "%s", o->user);
        snprintf(c->password, sizeof(c->password), "%s", o->password ? o->password : "");
    }
    if (!(c->curl = curl_easy_init())) {
        free(c);
        return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory opening the store");
    }
    curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, 10L);
    if (c->timeout_s)
        curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, c->timeout_s);
    if (c->user[0]) {
        curl_easy_setopt(c->curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(c->curl, CURLOPT_USERNAME, c->user);
        curl_easy_setopt(c->curl, CURLOPT_PASSWORD, c->password);
    }
    /* https: the certificate and the host name are checked (curl's
     * defaults, set here so that nothing turns them off) */
    curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
    if (c->cafile[0])
        curl_easy_setopt(c->curl, CURLOPT_CAINFO, c->cafile);
    s->impl = c;
    s->engine = &clickhouse_engine;
    s->clickhouse = 1;
    s->distributed = c->cluster[0] != 0;
    int rc = create(s, err);
    if (rc) {
        ch_close(s);
        s->impl = NULL;
    }
    return rc;
}
