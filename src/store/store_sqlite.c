/* store_sqlite.c: the embedded engine, a SQLite file (docs/store.md). One
 * transaction per added profile; rows already there are skipped by their
 * primary keys. */
#include "store/store.h"

#include <regex.h>
#include <sqlite3.h>
#include <stdlib.h>

static const char schema[] =
    "PRAGMA journal_mode = WAL;"
    "PRAGMA synchronous = NORMAL;"
    "CREATE TABLE IF NOT EXISTS profiles (seq INTEGER PRIMARY KEY, id INTEGER NOT NULL,"
    " time INTEGER NOT NULL, added INTEGER NOT NULL, format TEXT NOT NULL, source TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS profiles_id ON profiles (id);"
    "CREATE TABLE IF NOT EXISTS labels (seq INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
    " PRIMARY KEY (seq, key, value)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS labels_kv ON labels (key, value);"
    "CREATE TABLE IF NOT EXISTS meta (seq INTEGER NOT NULL, pos INTEGER NOT NULL, key TEXT NOT NULL,"
    " value TEXT NOT NULL, PRIMARY KEY (seq, pos)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS profile_values (seq INTEGER NOT NULL, pos INTEGER NOT NULL,"
    " vtype INTEGER NOT NULL, type TEXT NOT NULL, unit TEXT NOT NULL, is_default INTEGER NOT NULL,"
    " PRIMARY KEY (seq, pos)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS profile_threads (seq INTEGER NOT NULL, pos INTEGER NOT NULL,"
    " thread INTEGER NOT NULL, name TEXT NOT NULL, process_name TEXT NOT NULL, pid INTEGER NOT NULL,"
    " tid INTEGER NOT NULL, PRIMARY KEY (seq, pos)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS strings (id INTEGER PRIMARY KEY, text TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS functions (id INTEGER PRIMARY KEY, name INTEGER NOT NULL,"
    " system_name INTEGER NOT NULL, file INTEGER NOT NULL, module INTEGER NOT NULL,"
    " start_line INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS mappings (id INTEGER PRIMARY KEY, memory_start INTEGER NOT NULL,"
    " memory_end INTEGER NOT NULL, file_offset INTEGER NOT NULL, path INTEGER NOT NULL,"
    " build_id INTEGER NOT NULL);"
    /* key: the string id of the frame's label, what top groups by */
    "CREATE TABLE IF NOT EXISTS frames (id INTEGER PRIMARY KEY, address INTEGER NOT NULL,"
    " function INTEGER NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL,"
    " mapping INTEGER NOT NULL, inline_depth INTEGER NOT NULL, key INTEGER NOT NULL);"
    /* frames: the frame ids, root first, as a blob of 8-byte little-endian
     * words, which pk_ids() shows as the JSON text [1,2,3] (docs/store.md) */
    "CREATE TABLE IF NOT EXISTS stacks (id INTEGER PRIMARY KEY, frames BLOB NOT NULL);"
    /* keyed as the queries select them (a profile's rows of a value type),
     * without a rowid or a second index: a row per (stack, thread, label
     * set) and value type of a profile, so the key is unique */
    /* (the key's columns first, in its order: SQLite 3.40's integrity_check
     * misreads a WITHOUT ROWID table's other columns otherwise; add names
     * the columns it inserts) */
    "CREATE TABLE IF NOT EXISTS samples (seq INTEGER NOT NULL, vtype INTEGER NOT NULL,"
    " stack INTEGER NOT NULL, thread INTEGER NOT NULL, labels INTEGER NOT NULL DEFAULT 0,"
    " value INTEGER NOT NULL, PRIMARY KEY (seq, vtype, stack, thread, labels)) WITHOUT ROWID;"
    /* a sample's labels: (key, kind, value, unit) words, a blob as stacks' */
    "CREATE TABLE IF NOT EXISTS labelsets (id INTEGER PRIMARY KEY, labels BLOB NOT NULL);"
    "CREATE TABLE IF NOT EXISTS removed (seq INTEGER PRIMARY KEY);";

static sqlite3 *db_of(profkit_store *s) { return s->impl; }

/* An engine error: the DB's file, what was being done, SQLite's message. */
static int sqlite_error(profkit_store *s, const char *what, profkit_error *err)
{
    return pk_error_set(err, PROFKIT_EIO, s->name, -1, "SQLite: %s: %s", what,
                             sqlite3_errmsg(db_of(s)));
}

static int sq_exec(profkit_store *s, const char *sql, profkit_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db_of(s), sql, NULL, NULL, &msg) != SQLITE_OK) {
        pk_error_set(err, PROFKIT_EIO, s->name, -1, "SQLite: %s", msg ? msg : "failed");
        sqlite3_free(msg);
        return PROFKIT_EIO;
    }
    return 0;
}

static int sq_query(profkit_store *s, const char *sql, pk_store_row_fn fn, void *payload,
                    profkit_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db_of(s), sql, -1, &st, NULL) != SQLITE_OK)
        return sqlite_error(s, "preparing a query", err);
    int n = sqlite3_column_count(st), rc = 0, step;
    char *cells[16];
    size_t lens[16];
    if (n > 16)
        n = 16;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < n; i++) {
            cells[i] = (char *)sqlite3_column_text(st, i);
            lens[i] = (size_t)sqlite3_column_bytes(st, i);
        }
        if ((rc = fn(payload, cells, lens, (size_t)n, err)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = sqlite_error(s, "running a query", err);
    sqlite3_finalize(st);
    return rc;
}

/* The text "[1,2,3]" of an array cell as 8-byte little-endian words in
 * out (cleared first); -1 when out of memory. */
static int array_blob(pk_buf *out, const char *t, size_t len)
{
    pk_buf_clear(out);
    const char *e = t + len;
    while (t < e) {
        if (*t == '[' || *t == ',' || *t == ']') {
            t++;
            continue;
        }
        char *end;
        uint64_t v = (uint64_t)strtoll(t, &end, 10);
        if (end == t || end > e)
            break;
        t = end;
        unsigned char w[8];
        for (int i = 0; i < 8; i++)
            w[i] = (unsigned char)(v >> (8 * i));
        pk_buf_put(out, w, 8);
    }
    return pk_buf_error(out) ? -1 : 0;
}

static int sq_insert(profkit_store *s, const char *table, size_t n_cols, const pk_cell *cells,
                     size_t n_rows, profkit_error *err)
{
    if (n_rows == 0)
        return 0;
    pk_buf q = PK_BUF_INIT;
    /* samples' columns are in another order on SQLite (the schema above) */
    pk_buf_printf(&q, "INSERT OR IGNORE INTO %s%s VALUES (", table,
                  strcmp(table, "samples") == 0 ? " (seq, stack, thread, vtype, value, labels)" : "");
    for (size_t c = 0; c < n_cols; c++)
        pk_buf_printf(&q, c ? ",?" : "?");
    pk_buf_printf(&q, ")");
    if (pk_buf_error(&q)) {
        pk_buf_free(&q);
        return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    }
    sqlite3_stmt *st;
    int ok = sqlite3_prepare_v2(db_of(s), q.buf, -1, &st, NULL) == SQLITE_OK;
    pk_buf_free(&q);
    if (!ok)
        return sqlite_error(s, table, err);
    int rc = 0;
    pk_buf blob = PK_BUF_INIT;
    for (size_t r = 0; r < n_rows && rc == 0; r++) {
        for (size_t c = 0; c < n_cols && rc == 0; c++) {
            const pk_cell *x = &cells[r * n_cols + c];
            if (x->kind == PK_CELL_ARRAY) {
                if (array_blob(&blob, x->s ? x->s : "", x->len) != 0)
                    rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
                else
                    sqlite3_bind_blob(st, (int)c + 1, blob.len ? blob.buf : "", (int)blob.len,
                                      SQLITE_TRANSIENT);
            } else if (x->kind != PK_CELL_INT)
                sqlite3_bind_text(st, (int)c + 1, x->s ? x->s : "", (int)x->len, SQLITE_STATIC);
            else
                sqlite3_bind_int64(st, (int)c + 1, x->i);
        }
        if (rc == 0 && sqlite3_step(st) != SQLITE_DONE)
            rc = sqlite_error(s, table, err);
        sqlite3_reset(st);
    }
    pk_buf_free(&blob);
    sqlite3_finalize(st);
    return rc;
}

static int sq_begin(profkit_store *s, profkit_error *err)
{
    return sq_exec(s, "BEGIN IMMEDIATE", err);
}
static int sq_commit(profkit_store *s, profkit_error *err) { return sq_exec(s, "COMMIT", err); }
static void sq_rollback(profkit_store *s) { sqlite3_exec(db_of(s), "ROLLBACK", NULL, NULL, NULL); }
static void sq_close(profkit_store *s) { sqlite3_close(db_of(s)); }

/* Removing profiles (their seqs, "1,2,3"), in one transaction: their own
 * rows, then every shared row no remaining profile uses, so the store is
 * as if they had never been added (docs/store.md). Set-based: the
 * candidates are the removed samples' stacks; one of them stays if a
 * remaining sample names it (add writes no other stack). Then the frames
 * and labels only dead stacks listed, the functions and mappings only dead
 * frames named, and the strings only dead rows named, each checked
 * against what remains. */
static const char gc_begin[] =
    "DROP TABLE IF EXISTS temp.gc_stacks; DROP TABLE IF EXISTS temp.gc_frames;"
    "DROP TABLE IF EXISTS temp.gc_functions; DROP TABLE IF EXISTS temp.gc_mappings;"
    "DROP TABLE IF EXISTS temp.gc_strings; DROP TABLE IF EXISTS temp.gc_labelsets;"
    "CREATE TEMP TABLE gc_labelsets (id INTEGER PRIMARY KEY);"
    "CREATE TEMP TABLE gc_stacks (id INTEGER PRIMARY KEY);"
    "CREATE TEMP TABLE gc_frames (id INTEGER PRIMARY KEY);"
    "CREATE TEMP TABLE gc_functions (id INTEGER PRIMARY KEY);"
    "CREATE TEMP TABLE gc_mappings (id INTEGER PRIMARY KEY);"
    "CREATE TEMP TABLE gc_strings (id INTEGER PRIMARY KEY);";

static const char gc_shared[] =
    /* candidates a remaining sample names stay: one pass over samples (an
     * index on samples(stack) would make that a lookup, and every add's
     * inserts several times slower: docs/store.md) */
    "DELETE FROM gc_stacks WHERE id IN (SELECT stack FROM samples WHERE stack IN (SELECT id FROM gc_stacks));"
    /* label sets the same way: the dead ones, then their words as strings
     * (a number among them is no string any row keeps, or one still kept) */
    "DELETE FROM gc_labelsets WHERE id IN (SELECT labels FROM samples WHERE labels IN (SELECT id FROM gc_labelsets));"
    "INSERT OR IGNORE INTO gc_strings SELECT j.value FROM labelsets AS x, json_each(pk_ids(x.labels)) AS j"
    " WHERE x.id IN (SELECT id FROM gc_labelsets);"
    "DELETE FROM labelsets WHERE id IN (SELECT id FROM gc_labelsets);"
    /* the dead stacks, then what only they listed */
    "INSERT OR IGNORE INTO gc_frames SELECT j.value FROM stacks AS x, json_each(pk_ids(x.frames)) AS j"
    " WHERE x.id IN (SELECT id FROM gc_stacks);"
    "DELETE FROM stacks WHERE id IN (SELECT id FROM gc_stacks);"
    "DELETE FROM gc_frames WHERE id IN (SELECT j.value FROM stacks AS x, json_each(pk_ids(x.frames)) AS j);"
    "INSERT OR IGNORE INTO gc_strings SELECT key FROM frames WHERE id IN (SELECT id FROM gc_frames);"
    "INSERT OR IGNORE INTO gc_functions SELECT function FROM frames WHERE id IN (SELECT id FROM gc_frames);"
    "INSERT OR IGNORE INTO gc_mappings SELECT mapping FROM frames WHERE id IN (SELECT id FROM gc_frames);"
    "DELETE FROM frames WHERE id IN (SELECT id FROM gc_frames);"
    "DELETE FROM gc_functions WHERE id IN (SELECT function FROM frames);"
    "DELETE FROM gc_mappings WHERE id IN (SELECT mapping FROM frames);"
    "INSERT OR IGNORE INTO gc_strings SELECT name FROM functions WHERE id IN (SELECT id FROM gc_functions)"
    " UNION ALL SELECT system_name FROM functions WHERE id IN (SELECT id FROM gc_functions)"
    " UNION ALL SELECT file FROM functions WHERE id IN (SELECT id FROM gc_functions)"
    " UNION ALL SELECT module FROM functions WHERE id IN (SELECT id FROM gc_functions)"
    " UNION ALL SELECT path FROM mappings WHERE id IN (SELECT id FROM gc_mappings)"
    " UNION ALL SELECT build_id FROM mappings WHERE id IN (SELECT id FROM gc_mappings);"
    "DELETE FROM functions WHERE id IN (SELECT id FROM gc_functions);"
    "DELETE FROM mappings WHERE id IN (SELECT id FROM gc_mappings);"
    "DELETE FROM gc_strings WHERE id IN (SELECT name FROM functions UNION ALL SELECT system_name FROM functions"
    " UNION ALL SELECT file FROM functions UNION ALL SELECT module FROM functions"
    " UNION ALL SELECT path FROM mappings UNION ALL SELECT build_id FROM mappings"
    " UNION ALL SELECT key FROM frames"
    " UNION ALL SELECT j.value FROM labelsets AS x, json_each(pk_ids(x.labels)) AS j);"
    "DELETE FROM strings WHERE id IN (SELECT id FROM gc_strings);"
    "DROP TABLE temp.gc_stacks; DROP TABLE temp.gc_frames; DROP TABLE temp.gc_functions;"
    "DROP TABLE temp.gc_mappings; DROP TABLE temp.gc_strings; DROP TABLE temp.gc_labelsets;";

static int sq_remove_rows(profkit_store *s, const char *seqs, profkit_error *err)
{
    pk_buf q = PK_BUF_INIT;
    pk_buf_printf(&q, "%s INSERT OR IGNORE INTO gc_stacks SELECT stack FROM samples WHERE seq IN (%s) AND stack != 0;"
               "INSERT OR IGNORE INTO gc_labelsets SELECT labels FROM samples WHERE seq IN (%s) AND labels != 0;",
               gc_begin, seqs, seqs);
    for (size_t t = 0; t < PK_STORE_N_OWN; t++)
        pk_buf_printf(&q, "DELETE FROM %s WHERE seq IN (%s);", pk_store_own_tables[t], seqs);
    pk_buf_printf(&q, "%s", gc_shared);
    int rc = pk_sql_exec(s, &q, err);
    pk_buf_free(&q);
    return rc;
}

static int sq_remove(profkit_store *s, const char *seqs, profkit_error *err)
{
    int rc = sq_begin(s, err);
    if (rc)
        return rc;
    if ((rc = sq_remove_rows(s, seqs, err)) == 0 && (rc = sq_commit(s, err)) == 0)
        return 0;
    sq_rollback(s);
    return rc;
}

static void free_regex(void *p)
{
    regfree(p);
    free(p);
}

/* regexp(PATTERN, VALUE): POSIX extended, as --where KEY~REGEX takes it
 * (checked before the query is built). */
static void sql_regexp(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    regex_t *re = sqlite3_get_auxdata(ctx, 0);
    if (!re) {
        const char *pat = (const char *)sqlite3_value_text(argv[0]);
        re = malloc(sizeof(*re));
        if (!re || !pat || regcomp(re, pat, REG_EXTENDED | REG_NOSUB) != 0) {
            free(re);
            sqlite3_result_error(ctx, "bad regular expression", -1);
            return;
        }
        sqlite3_set_auxdata(ctx, 0, re, free_regex);
        re = sqlite3_get_auxdata(ctx, 0);
        if (!re) {
            sqlite3_result_error_nomem(ctx);
            return;
        }
    }
    const char *v = (const char *)sqlite3_value_text(argv[1]);
    sqlite3_result_int(ctx, v && regexec(re, v, 0, NULL, 0) == 0);
}

/* pk_ids(BLOB): an array blob (8-byte little-endian words) as the JSON
 * text "[1,2,3]" that json_each and the loader read. Anything else (text,
 * a blob of a length no multiple of 8: a damaged store) comes back as
 * text the loader refuses, naming the row. */
static void sql_ids(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const unsigned char *b = sqlite3_value_blob(argv[0]);
    int n = sqlite3_value_bytes(argv[0]);
    if (sqlite3_value_type(argv[0]) != SQLITE_BLOB || n % 8 != 0) {
        if (sqlite3_value_type(argv[0]) == SQLITE_BLOB) {
            char msg[64];
            snprintf(msg, sizeof(msg), "(a blob of %d bytes)", n);
            sqlite3_result_text(ctx, msg, -1, SQLITE_TRANSIENT);
        } else
            sqlite3_result_value(ctx, argv[0]);
        return;
    }
    pk_buf t = PK_BUF_INIT;
    pk_buf_printf(&t, "[");
    for (int i = 0; i < n; i += 8) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--)
            v = (v << 8) | b[i + k];
        if (i)
            pk_buf_putc(&t, ',');
        pk_buf_i64(&t, (int64_t)v);
    }
    pk_buf_printf(&t, "]");
    if (pk_buf_error(&t))
        sqlite3_result_error_nomem(ctx);
    else
        sqlite3_result_text(ctx, t.buf, (int)t.len, SQLITE_TRANSIENT);
    pk_buf_free(&t);
}

static int sq_unlabel(profkit_store *s, const char *seqs, const char *keys, profkit_error *err)
{
    pk_buf q = PK_BUF_INIT;
    pk_buf_printf(&q, "DELETE FROM labels WHERE seq IN (%s) AND key IN (%s)", seqs, keys);
    int rc = pk_sql_exec(s, &q, err);
    pk_buf_free(&q);
    return rc;
}

/* gc: every shared row no remaining row names, in one transaction, each
 * table checked against what remains of the one above it. rm already
 * leaves none behind (above); this sweeps a store written otherwise. */
static const char gc_all[] =
    "DELETE FROM stacks WHERE id NOT IN (SELECT stack FROM samples);"
    "DELETE FROM frames WHERE id NOT IN (SELECT j.value FROM stacks AS x, json_each(pk_ids(x.frames)) AS j);"
    "DELETE FROM functions WHERE id NOT IN (SELECT function FROM frames);"
    "DELETE FROM mappings WHERE id NOT IN (SELECT mapping FROM frames);"
    "DELETE FROM strings WHERE id NOT IN (SELECT name FROM functions UNION ALL SELECT system_name FROM functions"
    " UNION ALL SELECT file FROM functions UNION ALL SELECT module FROM functions"
    " UNION ALL SELECT path FROM mappings UNION ALL SELECT build_id FROM mappings"
    " UNION ALL SELECT key FROM frames"
    " UNION ALL SELECT j.value FROM labelsets AS x, json_each(pk_ids(x.labels)) AS j);";

static int sq_gc(profkit_store *s, size_t *n, profkit_error *err)
{
    int rc = sq_begin(s, err);
    if (rc)
        return rc;
    sqlite3_int64 before = sqlite3_total_changes64(db_of(s));
    if ((rc = sq_exec(s, gc_all, err)) == 0 && (rc = sq_commit(s, err)) == 0) {
        *n = (size_t)(sqlite3_total_changes64(db_of(s)) - before);
        return 0;
    }
    sq_rollback(s);
    return rc;
}

static const pk_store_engine sqlite_engine = {
    sq_exec, sq_query, sq_insert, sq_begin, sq_commit, sq_rollback, sq_remove, sq_unlabel, sq_close, sq_gc,
};

int pk_store_sqlite_open(profkit_store *s, const char *path, profkit_error *err)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        pk_error_set(err, PROFKIT_EIO, path, -1, "cannot open the store (SQLite): %s",
                          db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return PROFKIT_EIO;
    }
    s->impl = db;
    s->engine = &sqlite_engine;
    sqlite3_busy_timeout(db, 10000);
    sqlite3_create_function(db, "regexp", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_regexp,
                            NULL, NULL);
    sqlite3_create_function(db, "pk_ids", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_ids, NULL, NULL);
    int rc = pk_store_check_stacks(s, "SELECT name FROM pragma_table_info('stacks') WHERE name IN ('parent', 'keys')",
                                   err);
    if (rc == 0) /* (a store older than this schema has a stacks.keys column: refused above) */
        rc = sq_exec(s, schema, err);
    if (rc) {
        sqlite3_close(db);
        s->impl = NULL;
        return rc;
    }
    return 0;
}
