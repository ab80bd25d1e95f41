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
    /* The shared tables: a row's id is a small number of this store (its
     * rowid, in the order rows were added); every column that names
     * another row holds that row's small id. A row's content id (the hash
     * store_ids.c computes, the same in every store), which add looks rows
     * up by, is not kept: add computes it from the row's content
     * (load_ids; docs/store.md, "Size"). idents have no other content:
     * their h is the thread's or value type's content id. */
    "CREATE TABLE IF NOT EXISTS strings (id INTEGER PRIMARY KEY, text TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS functions (id INTEGER PRIMARY KEY, name INTEGER NOT NULL,"
    " system_name INTEGER NOT NULL, file INTEGER NOT NULL, module INTEGER NOT NULL,"
    " start_line INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS mappings (id INTEGER PRIMARY KEY, memory_start INTEGER NOT NULL,"
    " memory_end INTEGER NOT NULL, file_offset INTEGER NOT NULL, path INTEGER NOT NULL,"
    " build_id INTEGER NOT NULL);"
    /* key: 0 (it was the string id of the frame's label, what top grouped by) */
    "CREATE TABLE IF NOT EXISTS frames (id INTEGER PRIMARY KEY, address INTEGER NOT NULL,"
    " function INTEGER NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL,"
    " mapping INTEGER NOT NULL, inline_depth INTEGER NOT NULL, key INTEGER NOT NULL);"
    /* frames: the frames' ids, root first, as a blob of varints (7 bits a
     * byte, low first), which pk_ids() shows as the JSON text [1,2,3] */
    "CREATE TABLE IF NOT EXISTS stacks (id INTEGER PRIMARY KEY, frames BLOB NOT NULL);"
    /* a sample's labels: (key, kind, value, unit) words, a blob as stacks' */
    "CREATE TABLE IF NOT EXISTS labelsets (id INTEGER PRIMARY KEY, labels BLOB NOT NULL);"
    /* the threads' and value types' ids (profile_threads.thread,
     * profile_values.vtype, samples.thread and .vtype name these) */
    "CREATE TABLE IF NOT EXISTS idents (id INTEGER PRIMARY KEY, h INTEGER NOT NULL);"
    /* keyed as the queries select them (a profile's rows of a value type),
     * without a rowid or a second index: a row per (stack, thread, label
     * set) and value type of a profile, so the key is unique */
    /* (the key's columns first, in its order: SQLite 3.40's integrity_check
     * misreads a WITHOUT ROWID table's other columns otherwise; add names
     * the columns it inserts) */
    "CREATE TABLE IF NOT EXISTS samples (seq INTEGER NOT NULL, vtype INTEGER NOT NULL,"
    " stack INTEGER NOT NULL, thread INTEGER NOT NULL, labels INTEGER NOT NULL DEFAULT 0,"
    " value INTEGER NOT NULL, PRIMARY KEY (seq, vtype, stack, thread, labels)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS removed (seq INTEGER PRIMARY KEY);";

/* The shared tables, in the order add writes them (a row names only rows
 * of the tables before its own). */
enum { SH_STRINGS, SH_FUNCTIONS, SH_MAPPINGS, SH_FRAMES, SH_STACKS, SH_LABELSETS, SH_IDENTS, N_SHARED };
static const char *const shared_name[N_SHARED] = { "strings", "functions", "mappings", "frames",
                                                   "stacks",  "labelsets", "idents" };
/* The columns add's cells fill, after the content id (not kept) */
static const char *const shared_cols[N_SHARED] = {
    "text", "name, system_name, file, module, start_line",
    "memory_start, memory_end, file_offset, path, build_id",
    "address, function, line, col, mapping, inline_depth, key", "frames", "labels", "",
};

typedef struct sq_store {
    sqlite3 *db;
    /* ids: the small id (less one) of each content id met (strings and
     * idents: of every row); rows: of each row's key (row_key, every row),
     * which a row add sends is looked up by, its cells translated to small
     * ids. No content id is kept in the file (docs/store.md, "Size"). */
    pk_idmap ids[N_SHARED], rows[N_SHARED];
    /* floor: the table's first small id after the rows there when the
     * maps began (loaded); the rows from floor on were added by this
     * connection, and are in `rows` as they are made. A row naming one of
     * them is new unless this connection made it, so its table's rows need
     * not be read (have) to look it up: adding a small profile to a large
     * store reads only the tables its rows may already be in. */
    int64_t floor[N_SHARED];
    unsigned char have[N_SHARED];
    int names_new; /* a row being bound names a row from its table's floor on */
    /* A table's first lookup on this connection does not read its rows
     * into `rows`: the keys of the rows add looks up (want) are found in
     * one pass inside SQLite (pk_rowfind), which keeps only those. The
     * second lookup of the table reads it whole (load_table), so adding
     * many files in one command reads each table once more at most. */
    unsigned char scanned[N_SHARED];
    const pk_idmap *want; /* the keys pk_rowfind keeps, of table want_t */
    /* a bit per value of one cell of the wanted rows (want_cell): a row
     * without its bit set is not wanted, and is not hashed */
    uint64_t maybe[1024];
    int want_t, want_rc;
    int64_t want_bad; /* the row id out of range pk_rowfind met */
    int loaded;
    int64_t data_version;
} sq_store;

static sqlite3 *db_of(profkit_store *s) { return ((sq_store *)s->impl)->db; }

static void forget_ids(profkit_store *s)
{
    sq_store *q = s->impl;
    for (int t = 0; t < N_SHARED; t++) {
        pk_idmap_free(&q->ids[t]);
        memset(&q->ids[t], 0, sizeof(q->ids[t]));
        pk_idmap_free(&q->rows[t]);
        memset(&q->rows[t], 0, sizeof(q->rows[t]));
        q->have[t] = 0;
        q->floor[t] = 0;
        q->scanned[t] = 0;
    }
    q->loaded = 0;
}

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

/* Appends v to out as a varint: 7 bits a byte, low bits first, the high
 * bit set on every byte but the last (at most 10 bytes). */
static void put_varint(pk_buf *out, uint64_t v)
{
    unsigned char b[10];
    size_t n = 0;
    do {
        b[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v)
            b[n] |= 0x80;
        n++;
    } while (v);
    pk_buf_put(out, b, n);
}

/* The next varint of b[*at..n) into *v; -1 when it is cut or too long. */
static int get_varint(const unsigned char *b, size_t n, size_t *at, uint64_t *v)
{
    uint64_t r = 0;
    for (unsigned shift = 0; *at < n && shift < 70; shift += 7) {
        unsigned char c = b[(*at)++];
        if (shift == 63 && (c & 0x7e))
            return -1; /* more than 64 bits */
        r |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *v = r;
            return 0;
        }
    }
    return -1;
}

/* A row's key in `rows` (sq_store): a hash of the row as the table keeps
 * it (its small ids, its text or blob), tagged by its table. Two rows of
 * one table have one key when they hold the same cells, which is when
 * they have the same content, as their content ids do (strings: the key
 * is the content id). */
static uint64_t row_key(int t, const int64_t *v, size_t n, const void *bytes, size_t len)
{
    if (t == SH_STRINGS || t == SH_STACKS || t == SH_LABELSETS)
        return pk_store_hash(bytes ? bytes : "", len, (uint64_t)PK_ID_STRING + (uint64_t)t);
    return pk_store_hash_words((const uint64_t *)(const void *)v, n, (uint64_t)PK_ID_STRING + (uint64_t)t);
}

/* The cell of a row of shared table t that find_rows tests first (the
 * bytes of a text or blob; for the others, a column after the content
 * id: a function's name, a mapping's start, a frame's function), and its
 * bit in maybe. */
static const int want_cell[N_SHARED] = { 0, 0, 0, 1, 0, 0, 0 };
static unsigned maybe_bit(uint64_t v) { return (unsigned)((v * 0x9E3779B97F4A7C15ull) >> 48); }
static int maybe_has(const sq_store *q, uint64_t v)
{
    unsigned b = maybe_bit(v);
    return (int)((q->maybe[b >> 6] >> (b & 63)) & 1);
}

/* row_key of a row of shared table t from its cells as SQLite gives
 * them (n of them). */
static uint64_t cells_key(int t, int n, sqlite3_value **argv)
{
    int64_t v[16];
    if (n > 16)
        n = 16;
    if (t < 0 || t >= N_SHARED || n < 1)
        return 0;
    if (t == SH_STRINGS || t == SH_STACKS || t == SH_LABELSETS) {
        const void *b = t == SH_STRINGS ? (const void *)sqlite3_value_text(argv[0]) : sqlite3_value_blob(argv[0]);
        return row_key(t, NULL, 0, b, (size_t)sqlite3_value_bytes(argv[0]));
    }
    for (int c = 0; c < n; c++)
        v[c] = sqlite3_value_int64(argv[c]);
    return row_key(t, v, (size_t)n, NULL, 0);
}

/* pk_rowkey(T, CELL...): row_key of a row of shared table T from its
 * cells (load_table reads the keys so: one value a row out of SQLite). */
static void sql_rowkey(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    sqlite3_result_int64(ctx, (int64_t)cells_key(sqlite3_value_int(argv[0]), argc - 1, argv + 1));
}

static pk_idmap *key_map(sq_store *q, int t);

/* pk_rowmaybe(CELL): whether a row whose want_cell is CELL may be wanted
 * (find_rows tests it before pk_rowfind reads the row's other cells). */
static void sql_rowmaybe(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    sq_store *q = sqlite3_user_data(ctx);
    sqlite3_result_int(ctx, q->want && maybe_has(q, (uint64_t)sqlite3_value_int64(argv[0])));
}

/* pk_rowfind(T, ID, CELL...): while find_rows looks rows of table T up,
 * keeps ID (the row's small id) in the table's key map when the row's
 * key is one of those wanted; 0 always (nothing leaves SQLite). Outside
 * find_rows it does nothing. */
static void sql_rowfind(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    sq_store *q = sqlite3_user_data(ctx);
    int t = sqlite3_value_int(argv[0]);
    sqlite3_result_int(ctx, 0);
    if (!q->want || t != q->want_t || argc < 3 || q->want_rc)
        return;
    if ((t == SH_STRINGS || t == SH_STACKS || t == SH_LABELSETS) &&
        !maybe_has(q, (uint64_t)sqlite3_value_bytes(argv[2])))
        return;
    uint64_t key = cells_key(t, argc - 2, argv + 2);
    if (pk_idmap_get(q->want, key) == PROFKIT_NONE)
        return;
    int64_t id = sqlite3_value_int64(argv[1]);
    if (id < 1 || id > (int64_t)UINT32_MAX - 1) {
        q->want_rc = PROFKIT_EIO;
        q->want_bad = id;
    }
    else if (pk_idmap_put(key_map(q, t), key, (uint32_t)(id - 1)) < 0)
        q->want_rc = PROFKIT_ENOMEM;
}

/* The map of table t's rows by key: strings' and idents' keys are their
 * content ids, so their rows are in `ids`, once. */
static pk_idmap *key_map(sq_store *q, int t)
{
    return t == SH_STRINGS || t == SH_IDENTS ? &q->ids[t] : &q->rows[t];
}

/* The key of every row of shared table t, read once (have) and kept while
 * no other connection writes (data_version), inside the add's transaction
 * (the write lock is held: nothing changes them but this connection, which
 * keeps them up to date). Strings' keys are their content ids, and idents
 * keep theirs: both go to `ids` as well. */
static int load_table(profkit_store *s, int t, profkit_error *err)
{
    sq_store *q = s->impl;
    if (q->have[t])
        return 0;
    int rc = 0;
    char sql[200];
    if (t == SH_IDENTS)
        snprintf(sql, sizeof(sql), "SELECT id, h FROM idents");
    else
        snprintf(sql, sizeof(sql), "SELECT id, pk_rowkey(%d, %s) FROM %s", t, shared_cols[t], shared_name[t]);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
        return sqlite_error(s, shared_name[t], err);
    int step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        uint64_t key = (uint64_t)sqlite3_column_int64(st, 1);
        if (id < 1 || id > (int64_t)UINT32_MAX - 1)
            rc = pk_error_set(err, PROFKIT_EIO, s->name, -1,
                              "SQLite: %s: row id %lld out of range (a damaged store?)", shared_name[t],
                              (long long)id);
        else if (pk_idmap_put(key_map(q, t), key, (uint32_t)(id - 1)) != 0)
            rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = sqlite_error(s, shared_name[t], err);
    sqlite3_finalize(st);
    if (rc)
        forget_ids(s);
    else
        q->have[t] = 1;
    return rc;
}

/* The maps begin: each shared table's floor (its largest small id, plus
 * one); the tables' rows are read when a row is looked up (load_table). */
static int load_ids(profkit_store *s, profkit_error *err)
{
    sq_store *q = s->impl;
    if (q->loaded)
        return 0;
    forget_ids(s);
    for (int t = 0; t < N_SHARED; t++) {
        char sql[64];
        snprintf(sql, sizeof(sql), "SELECT max(id) FROM %s", shared_name[t]);
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
            return sqlite_error(s, shared_name[t], err);
        int step = sqlite3_step(st);
        q->floor[t] = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) + 1 : 0;
        sqlite3_finalize(st);
        /* an empty table: every row it will hold is this connection's, in
         * the maps as it is made */
        if (step == SQLITE_ROW && q->floor[t] == 1)
            q->have[t] = 1;
        if (step != SQLITE_ROW) {
            forget_ids(s);
            return sqlite_error(s, shared_name[t], err);
        }
    }
    q->loaded = 1;
    return 0;
}

/* The small id of content id h in shared table t (*found 0: none). */
static int small_id(profkit_store *s, int t, uint64_t h, int64_t *id, int *found)
{
    sq_store *q = s->impl;
    uint32_t v = pk_idmap_get(&q->ids[t], h);
    *found = v != PROFKIT_NONE;
    *id = *found ? (int64_t)v + 1 : 0;
    return 0;
}

/* The small id a column naming a row of shared table t holds for content
 * id h (0: names no row). The row was sent before (add writes what a row
 * names first) or is in the store. */
static int ref_id(profkit_store *s, int t, uint64_t h, int64_t *id,
                  profkit_error *err)
{
    int found;
    *id = 0;
    if (h == 0)
        return 0;
    int rc = t == SH_IDENTS ? load_table(s, t, err) : 0;
    if (rc == 0)
        rc = small_id(s, t, h, id, &found);
    if (rc == 0 && found && *id >= ((sq_store *)s->impl)->floor[t])
        ((sq_store *)s->impl)->names_new = 1;
    if (rc == 0 && !found && t == SH_IDENTS) {
        /* a thread or value type met first: its row is made here */
        sq_store *q = s->impl;
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(q->db, "INSERT INTO idents (h) VALUES (?)", -1, &st, NULL) != SQLITE_OK)
            return sqlite_error(s, "idents", err);
        sqlite3_bind_int64(st, 1, (int64_t)h);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = sqlite_error(s, "idents", err);
        sqlite3_finalize(st);
        *id = sqlite3_last_insert_rowid(q->db);
        if (rc == 0 && (*id < 1 || *id > (int64_t)UINT32_MAX - 1))
            rc = pk_error_set(err, PROFKIT_EIO, s->name, -1,
                              "SQLite: %s: row id %lld out of range (a damaged store?)", "idents",
                              (long long)*id);
        if (rc == 0 && pk_idmap_put(&q->ids[t], h, (uint32_t)(*id - 1)) != 0)
            rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
        return rc;
    }
    if (rc == 0 && !found)
        rc = pk_error_set(err, PROFKIT_EIO, s->name, -1,
                          "SQLite: a row names %s row %lld, which is not in the store", shared_name[t],
                          (long long)h);
    return rc;
}

/* The words of an array cell "[1,2,3]" as the varint blob the table
 * keeps, each translated to its small id: stacks' words are frames;
 * labelsets' are (key, kind, value, unit): the key a string, the value a
 * string (kind 0) or a number, the unit a string (kind 1) or 0. */
static int array_blob(profkit_store *s, int t, const char *text, size_t len, pk_buf *out,
                      profkit_error *err)
{
    pk_buf_clear(out);
    const char *e = text + len;
    uint64_t kind = 0;
    size_t i = 0;
    while (text < e) {
        if (*text == '[' || *text == ',' || *text == ']') {
            text++;
            continue;
        }
        /* a decimal integer, as add writes it (strtoll's cost, on every
         * frame of every stack, was a tenth of an add of a large profile) */
        const char *d = text + (*text == '-');
        uint64_t v = 0;
        while (d < e && *d >= '0' && *d <= '9' && v <= UINT64_MAX / 10)
            v = v * 10 + (uint64_t)(*d++ - '0');
        if (d == text + (*text == '-'))
            break;
        if (*text == '-')
            v = 0 - v;
        text = d;
        int64_t id = (int64_t)v;
        int rc = 0;
        if (t == SH_STACKS)
            rc = ref_id(s, SH_FRAMES, v, &id, err);
        else if (i % 4 == 0 || (i % 4 == 2 && kind == 0) || (i % 4 == 3 && kind == 1))
            rc = ref_id(s, SH_STRINGS, v, &id, err);
        else if (i % 4 == 1)
            kind = v;
        if (rc)
            return rc;
        put_varint(out, (uint64_t)id);
        i++;
    }
    return pk_buf_error(out) ? pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory") : 0;
}

static int shared_index(const char *table)
{
    for (int t = 0; t < N_SHARED; t++)
        if (strcmp(table, shared_name[t]) == 0)
            return t;
    return -1;
}

/* Binds the cells of one row; the columns that name shared rows get their
 * small ids (refs[c]: the table column c names, or -1). */
static int bind_row(profkit_store *s, sqlite3_stmt *st, int first, const pk_cell *x, size_t n_cols,
                    const int *refs, int t, pk_buf *blob, int64_t *v, profkit_error *err)
{
    for (size_t c = 0; c < n_cols; c++) {
        int at = first + (int)c, rc = 0;
        if (v) /* the integers as bound (row_key) */
            v[c] = x[c].i;
        if (x[c].kind == PK_CELL_ARRAY) {
            if ((rc = array_blob(s, t, x[c].s ? x[c].s : "", x[c].len, blob, err)) != 0)
                return rc;
            sqlite3_bind_blob(st, at, blob->len ? blob->buf : "", (int)blob->len, SQLITE_TRANSIENT);
        } else if (x[c].kind != PK_CELL_INT) {
            sqlite3_bind_text(st, at, x[c].s ? x[c].s : "", (int)x[c].len, SQLITE_STATIC);
        } else if (refs && refs[c] >= 0) {
            int64_t id;
            if ((rc = ref_id(s, refs[c], (uint64_t)x[c].i, &id, err)) != 0)
                return rc;
            sqlite3_bind_int64(st, at, id);
            if (v)
                v[c] = id;
        } else
            sqlite3_bind_int64(st, at, x[c].i);
    }
    return 0;
}

/* The shared table each column of add's rows names (-1: none), for the
 * columns after the content id of a shared table's rows, and samples'
 * (seq, stack, thread, vtype, value, labels). */
static const int refs_functions[] = { SH_STRINGS, SH_STRINGS, SH_STRINGS, SH_STRINGS, -1 };
static const int refs_mappings[] = { -1, -1, -1, SH_STRINGS, SH_STRINGS };
static const int refs_frames[] = { -1, SH_FUNCTIONS, -1, -1, SH_MAPPINGS, -1, SH_STRINGS };
static const int refs_samples[] = { -1, SH_STACKS, SH_IDENTS, SH_IDENTS, -1, SH_LABELSETS };
static const int refs_values[] = { -1, -1, SH_IDENTS, -1, -1, -1 };
static const int refs_threads[] = { -1, -1, SH_IDENTS, -1, -1, -1, -1 };

/* Finds the rows of shared table t whose keys are in want (rows not
 * found are not in the table): the first time on this connection in one
 * pass of pk_rowfind over the table, which keeps only those; after that
 * by reading the whole table into its map (load_table). */
static int find_rows(profkit_store *s, int t, const pk_idmap *want, profkit_error *err)
{
    sq_store *q = s->impl;
    if (q->have[t])
        return 0;
    if (q->scanned[t])
        return load_table(s, t, err);
    char sql[200];
    /* texts and blobs: their length is tested in pk_rowfind; the others'
     * want_cell before their other cells are read */
    static const char *const first[N_SHARED] = { "", "pk_rowmaybe(name) AND ", "pk_rowmaybe(memory_start) AND ",
                                                 "pk_rowmaybe(function) AND ", "", "", "" };
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s WHERE %spk_rowfind(%d, id, %s)", shared_name[t],
             first[t], t, shared_cols[t]);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
        return sqlite_error(s, shared_name[t], err);
    q->want = want;
    q->want_t = t;
    q->want_rc = 0;
    int step = sqlite3_step(st), rc = 0;
    q->want = NULL;
    if (q->want_rc == PROFKIT_ENOMEM)
        rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    else if (q->want_rc)
        rc = pk_error_set(err, PROFKIT_EIO, s->name, -1,
                          "SQLite: %s: row id %lld out of range (a damaged store?)", shared_name[t],
                          (long long)q->want_bad);
    else if (step != SQLITE_ROW)
        rc = sqlite_error(s, shared_name[t], err);
    sqlite3_finalize(st);
    if (rc)
        forget_ids(s);
    else
        q->scanned[t] = 1;
    return rc;
}

/* One row x of shared table t (its content id, then its cells), bound to
 * st: nothing when its content id or its key (its cells as the table
 * keeps them) is known to this connection, else written, unless it may be
 * in the table unread (it names none of the rows this connection added,
 * and the table was not read whole): then, with want, its key goes to
 * want and 1 is returned (find_rows, then this again without want). */
static int shared_row(profkit_store *s, sqlite3_stmt *st, int t, const pk_cell *x, size_t n_cols,
                      const int *refs, pk_buf *blob, pk_idmap *want, profkit_error *err)
{
    sq_store *sq = s->impl;
    int64_t id, v[16]; /* add's widest shared row has 7 columns after its id */
    int found, rc;
    uint64_t h = (uint64_t)x[0].i;
    if ((rc = small_id(s, t, h, &id, &found)) != 0 || found)
        return rc;
    int wide = n_cols - 1 > 16;
    sq->names_new = 0;
    if ((rc = bind_row(s, st, 1, x + 1, n_cols - 1, refs, t, blob, wide ? NULL : v, err)) != 0)
        return rc;
    uint64_t key = t == SH_STRINGS || wide ? h
                   : row_key(t, v, n_cols - 1, t == SH_STACKS || t == SH_LABELSETS ? blob->buf : NULL,
                             blob->len);
    uint32_t old = pk_idmap_get(key_map(sq, t), key);
    if (old != PROFKIT_NONE) {
        sqlite3_reset(st);
        return pk_idmap_put(&sq->ids[t], h, old) != 0
                   ? pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory")
                   : 0;
    }
    /* the row as the table would keep it may be there already under
     * another content id's name (a row met first in an earlier add, whose
     * content id this connection has not seen), unless it names a row
     * this connection has just added */
    if (want && !sq->names_new && !sq->have[t]) {
        sqlite3_reset(st);
        unsigned bit = maybe_bit(t == SH_STRINGS ? x[1].len
                                 : t == SH_STACKS || t == SH_LABELSETS ? blob->len
                                 : (uint64_t)v[want_cell[t]]);
        sq->maybe[bit >> 6] |= 1ull << (bit & 63);
        return pk_idmap_put(want, key, 0) != 0 ? pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory")
                                               : 1;
    }
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = sqlite_error(s, shared_name[t], err);
    sqlite3_reset(st);
    id = sqlite3_last_insert_rowid(sq->db);
    if (rc == 0 && (id < 1 || id > (int64_t)UINT32_MAX - 1))
        rc = pk_error_set(err, PROFKIT_EIO, s->name, -1,
                          "SQLite: %s: row id %lld out of range (a damaged store?)", shared_name[t],
                          (long long)id);
    if (rc == 0 && (pk_idmap_put(key_map(sq, t), key, (uint32_t)(id - 1)) != 0 ||
                    pk_idmap_put(&sq->ids[t], h, (uint32_t)(id - 1)) != 0))
        rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    return rc;
}

static int sq_insert(profkit_store *s, const char *table, size_t n_cols, const pk_cell *cells,
                     size_t n_rows, profkit_error *err)
{
    if (n_rows == 0)
        return 0;
    sq_store *sq = s->impl;
    int t = shared_index(table), rc = 0;
    const int *refs = NULL;
    if (t == SH_FUNCTIONS)
        refs = refs_functions;
    else if (t == SH_MAPPINGS)
        refs = refs_mappings;
    else if (t == SH_FRAMES)
        refs = refs_frames;
    else if (strcmp(table, "samples") == 0)
        refs = refs_samples;
    else if (strcmp(table, "profile_values") == 0)
        refs = refs_values;
    else if (strcmp(table, "profile_threads") == 0)
        refs = refs_threads;
    sqlite3_stmt *st = NULL;
    pk_buf q = PK_BUF_INIT;
    if (refs || t >= 0)
        rc = load_ids(s, err);
    if (t >= 0) {
        /* the content id (the first cell) is not kept: a row is looked up by
         * its cells (row_key) */
        pk_buf_printf(&q, "INSERT INTO %s (%s) VALUES (?", table, shared_cols[t]);
        for (size_t c = 2; c < n_cols; c++)
            pk_buf_printf(&q, ",?");
    } else {
        /* samples' columns are in another order on SQLite (the schema above) */
        pk_buf_printf(&q, "INSERT OR IGNORE INTO %s%s VALUES (", table,
                      strcmp(table, "samples") == 0 ? " (seq, stack, thread, vtype, value, labels)" : "");
        for (size_t c = 0; c < n_cols; c++)
            pk_buf_printf(&q, c ? ",?" : "?");
    }
    pk_buf_printf(&q, ")");
    if (rc == 0 && pk_buf_error(&q))
        rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    if (rc == 0 && sqlite3_prepare_v2(sq->db, q.buf, -1, &st, NULL) != SQLITE_OK)
        rc = sqlite_error(s, table, err);
    pk_buf_free(&q);
    pk_buf blob = PK_BUF_INIT;
    pk_idmap want = { 0 };
    size_t *later = NULL, n_later = 0, cap_later = 0;
    memset(sq->maybe, 0, sizeof(sq->maybe));
    for (size_t r = 0; r < n_rows && rc == 0; r++) {
        const pk_cell *x = &cells[r * n_cols];
        if (t >= 0) {
            /* a shared row: written once, its small id kept for the rows
             * that name it; one that may be in the table waits (want) */
            rc = shared_row(s, st, t, x, n_cols, refs, &blob, &want, err);
            if (rc == 1) {
                rc = 0;
                if (PK_VEC_RESERVE(later, n_later, cap_later, 1) != 0)
                    rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
                else
                    later[n_later++] = r;
            }
            continue;
        }
        rc = bind_row(s, st, 1, x, n_cols, refs, -1, &blob, NULL, err);
        if (rc == 0 && sqlite3_step(st) != SQLITE_DONE)
            rc = sqlite_error(s, table, err);
        sqlite3_reset(st);
    }
    /* the rows that may be in the table: looked up together, then each
     * one not found is written */
    if (rc == 0 && n_later)
        rc = find_rows(s, t, &want, err);
    for (size_t i = 0; i < n_later && rc == 0; i++)
        rc = shared_row(s, st, t, &cells[later[i] * n_cols], n_cols, refs, &blob, NULL, err);
    free(later);
    pk_idmap_free(&want);
    pk_buf_free(&blob);
    sqlite3_finalize(st);
    return rc;
}

static int sq_begin(profkit_store *s, profkit_error *err)
{
    int rc = sq_exec(s, "BEGIN IMMEDIATE", err);
    if (rc)
        return rc;
    /* another connection's commit since the ids were read: read them again */
    sq_store *q = s->impl;
    sqlite3_stmt *st;
    int64_t v = -1;
    if (sqlite3_prepare_v2(q->db, "PRAGMA data_version", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    if (v < 0 || v != q->data_version)
        forget_ids(s);
    q->data_version = v;
    return 0;
}
static int sq_commit(profkit_store *s, profkit_error *err) { return sq_exec(s, "COMMIT", err); }
static void sq_rollback(profkit_store *s)
{
    forget_ids(s); /* the rows they name are gone */
    sqlite3_exec(db_of(s), "ROLLBACK", NULL, NULL, NULL);
}
static void sq_close(profkit_store *s)
{
    forget_ids(s);
    sqlite3_close(db_of(s));
    free(s->impl);
    s->impl = NULL;
}

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
    "INSERT OR IGNORE INTO gc_strings SELECT j.value FROM labelsets AS x, json_each(pk_ids(x.labels, 1)) AS j"
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
    " UNION ALL SELECT j.value FROM labelsets AS x, json_each(pk_ids(x.labels, 1)) AS j);"
    "DELETE FROM strings WHERE id IN (SELECT id FROM gc_strings);"
    /* the threads and value types no remaining profile has */
    "DELETE FROM idents WHERE id NOT IN (SELECT vtype FROM profile_values UNION ALL SELECT thread FROM profile_threads);"
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
    forget_ids(s); /* shared rows go */
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

/* pk_ids(BLOB): an array blob (varints) as the JSON text "[1,2,3]" that
 * json_each and the loader read; pk_ids(BLOB, 1): a label set's blob as
 * the ids of the strings among its words (keys, string values, units:
 * what the rows name, without the numbers). Anything else (text, a blob
 * cut inside a varint: a damaged store) comes back as text the loader
 * refuses, naming the row. */
static void sql_ids(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    const unsigned char *b = sqlite3_value_blob(argv[0]);
    int n = sqlite3_value_bytes(argv[0]);
    int strings = argc > 1 && sqlite3_value_int(argv[1]) == 1;
    if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) {
        sqlite3_result_value(ctx, argv[0]);
        return;
    }
    pk_buf t = PK_BUF_INIT;
    pk_buf_printf(&t, "[");
    size_t at = 0, i = 0, put = 0;
    uint64_t v, kind = 0;
    while (at < (size_t)n) {
        if (get_varint(b, (size_t)n, &at, &v) != 0) {
            pk_buf_free(&t);
            char msg[64];
            snprintf(msg, sizeof(msg), "(a blob of %d bytes)", n);
            sqlite3_result_text(ctx, msg, -1, SQLITE_TRANSIENT);
            return;
        }
        if (i % 4 == 1)
            kind = v;
        if (!strings || (v != 0 && (i % 4 == 0 || (i % 4 == 2 && kind == 0) || (i % 4 == 3 && kind == 1)))) {
            if (put++)
                pk_buf_putc(&t, ',');
            pk_buf_i64(&t, (int64_t)v);
        }
        i++;
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
    "DELETE FROM idents WHERE id NOT IN (SELECT vtype FROM profile_values UNION ALL SELECT thread FROM profile_threads);"
    "DELETE FROM frames WHERE id NOT IN (SELECT j.value FROM stacks AS x, json_each(pk_ids(x.frames)) AS j);"
    "DELETE FROM functions WHERE id NOT IN (SELECT function FROM frames);"
    "DELETE FROM mappings WHERE id NOT IN (SELECT mapping FROM frames);"
    "DELETE FROM strings WHERE id NOT IN (SELECT name FROM functions UNION ALL SELECT system_name FROM functions"
    " UNION ALL SELECT file FROM functions UNION ALL SELECT module FROM functions"
    " UNION ALL SELECT path FROM mappings UNION ALL SELECT build_id FROM mappings"
    " UNION ALL SELECT key FROM frames"
    " UNION ALL SELECT j.value FROM labelsets AS x, json_each(pk_ids(x.labels, 1)) AS j);";

static int sq_gc(profkit_store *s, size_t *n, profkit_error *err)
{
    int rc = sq_begin(s, err);
    if (rc)
        return rc;
    forget_ids(s); /* shared rows go */
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
    sq_store *sq = calloc(1, sizeof(*sq));
    if (!sq) {
        sqlite3_close(db);
        return pk_error_set(err, PROFKIT_ENOMEM, path, -1, "out of memory");
    }
    sq->db = db;
    s->impl = sq;
    s->engine = &sqlite_engine;
    sqlite3_busy_timeout(db, 10000);
    sqlite3_create_function(db, "regexp", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_regexp,
                            NULL, NULL);
    sqlite3_create_function(db, "pk_ids", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_ids, NULL, NULL);
    sqlite3_create_function(db, "pk_ids", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_ids, NULL, NULL);
    sqlite3_create_function(db, "pk_rowkey", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_rowkey, NULL, NULL);
    /* with side effects on this connection's maps: not for views or triggers */
    sqlite3_create_function(db, "pk_rowfind", -1, SQLITE_UTF8 | SQLITE_DIRECTONLY, sq, sql_rowfind, NULL, NULL);
    sqlite3_create_function(db, "pk_rowmaybe", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, sq, sql_rowmaybe, NULL, NULL);
    /* stacks as pairs, arrays with keys, or rows with their content ids */
    int rc = pk_store_check_stacks(
        s, "SELECT name FROM pragma_table_info('stacks') WHERE name IN ('parent', 'keys', 'h')", err);
    if (rc == 0) /* no small ids of threads and value types: shared rows named by content ids */
        rc = pk_store_check_small_ids(s, "SELECT 1 FROM sqlite_master WHERE name = 'stacks' AND type = 'table'"
                                         " AND NOT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'idents')",
                                      err);
    if (rc == 0)
        rc = sq_exec(s, schema, err);
    if (rc) {
        sqlite3_close(db);
        free(sq);
        s->impl = NULL;
        return rc;
    }
    return 0;
}
