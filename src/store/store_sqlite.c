/* store_sqlite.c: the embedded engine, a SQLite file (docs/store.md). One
 * transaction per added profile; rows already there are skipped by their
 * primary keys. */
#include "store/store.h"

#include <regex.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <zlib.h>

/* The layout of the tables below, kept in the file's user_version (set
 * before any table is made: another process that finds a table finds the
 * version too). A store of another layout is refused (check_layout). 2:
 * samples with every value type's value in one row, stacks' frames as
 * differences, strings in compressed blocks; 0 (none set): the layout
 * before, a row per value type, plain strings. */
enum { SQ_LAYOUT = 2 };

static const char schema[] =
    /* 1 KiB pages (SQLite's default is 4): each table and index takes
     * one page at least, and its last page is partly empty; with 4 KiB
     * an empty store took 68 kB, a store of a few profiles several times
     * their gzipped size (docs/store.md, "Size"). A store made before
     * keeps its page size. */
    "PRAGMA page_size = 1024;"
    "PRAGMA user_version = 2;"
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
    /* strings: a string's id is a small number as the others', kept in
     * blocks of STR_BLOCK ids (block b: ids b * STR_BLOCK + 1 to (b + 1)
     * * STR_BLOCK), each compressed (zlib) as one blob: texts (strblock_put);
     * last: the block's largest id. Names and paths share most of their
     * bytes with their neighbours: the plain texts took about four times
     * the room (docs/store.md, "Size") */
    "CREATE TABLE IF NOT EXISTS strings (block INTEGER PRIMARY KEY, last INTEGER NOT NULL, texts BLOB NOT NULL);"
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
     * byte, low first) of each id less the one before it (zigzag: the
     * frames of a stack were mostly added together, so the differences
     * are small), which pk_ids(frames, 2) shows as the JSON text [1,2,3] */
    "CREATE TABLE IF NOT EXISTS stacks (id INTEGER PRIMARY KEY, frames BLOB NOT NULL);"
    /* a sample's labels: (key, kind, value, unit) words, a blob as stacks' */
    "CREATE TABLE IF NOT EXISTS labelsets (id INTEGER PRIMARY KEY, labels BLOB NOT NULL);"
    /* the threads' and value types' ids (profile_threads.thread,
     * profile_values.vtype, samples.thread and .vtype name these) */
    "CREATE TABLE IF NOT EXISTS idents (id INTEGER PRIMARY KEY, h INTEGER NOT NULL);"
    /* a row per (stack, thread, label set) of a profile, keyed as the
     * queries select them, without a rowid or a second index; vals: the
     * values of every value type of the profile together, a blob of
     * varints (zigzag: 0 1, -1 1, 1 2...) in the order of its
     * profile_values' pos, trailing zeros left out (pk_val() reads one);
     * a row of zeros (a stack kept with no value) is pos + 1 zeros, pos
     * that of the value type its zero belongs to (the default's) */
    /* (the key's columns first, in its order: SQLite 3.40's integrity_check
     * misreads a WITHOUT ROWID table's other columns otherwise) */
    "CREATE TABLE IF NOT EXISTS samples (seq INTEGER NOT NULL, stack INTEGER NOT NULL,"
    " thread INTEGER NOT NULL, labels INTEGER NOT NULL, vals BLOB NOT NULL,"
    " PRIMARY KEY (seq, stack, thread, labels)) WITHOUT ROWID;"
    /* ClickHouse's tombstones: none on SQLite (rm deletes), so no table
     * and no page, a view the shared queries read as empty */
    "CREATE VIEW IF NOT EXISTS removed AS SELECT 0 AS seq WHERE 0;";

/* The shared tables, in the order add writes them (a row names only rows
 * of the tables before its own). */
enum { SH_STRINGS, SH_FUNCTIONS, SH_MAPPINGS, SH_FRAMES, SH_STACKS, SH_LABELSETS, SH_IDENTS, N_SHARED };
static const char *const shared_name[N_SHARED] = { "strings", "functions", "mappings", "frames",
                                                   "stacks",  "labelsets", "idents" };
/* The columns add's cells fill, after the content id (not kept) */
static const char *const shared_cols[N_SHARED] = {
    "", "name, system_name, file, module, start_line",
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
    /* the value types of the profile being added (its profile_values
     * rows, inserted before its samples): content id -> pos */
    pk_idmap vt_pos;
    int64_t vt_seq;
    size_t vt_n;
    int64_t str_next; /* the id the next new string gets */
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

/* query_ints (store.h): integers and a last cell of bytes, as SQLite
 * keeps them (no text made of them). */
static int sq_query_ints(profkit_store *s, const char *sql, pk_store_ints_fn fn, void *payload,
                         profkit_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db_of(s), sql, -1, &st, NULL) != SQLITE_OK)
        return sqlite_error(s, "preparing a query", err);
    int n = sqlite3_column_count(st), rc = 0, step;
    int64_t v[16];
    if (n > 17)
        n = 17;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i + 1 < n; i++)
            v[i] = sqlite3_column_int64(st, i);
        const unsigned char *b = n ? sqlite3_column_blob(st, n - 1) : NULL;
        size_t len = n ? (size_t)sqlite3_column_bytes(st, n - 1) : 0;
        if ((rc = fn(payload, v, n ? (size_t)n - 1 : 0, b, len, err)) != 0)
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

/* Signed integers as varints: 0 0, -1 1, 1 2, -2 3... (small either way). */
static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static int64_t unzigzag(uint64_t u) { return (int64_t)(u >> 1) ^ -(int64_t)(u & 1); }

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
static int load_strings(profkit_store *s, profkit_error *err);

static int load_table(profkit_store *s, int t, profkit_error *err)
{
    sq_store *q = s->impl;
    if (q->have[t])
        return 0;
    if (t == SH_STRINGS) /* in blocks: read whole */
        return load_strings(s, err);
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
        snprintf(sql, sizeof(sql), "SELECT max(%s) FROM %s", t == SH_STRINGS ? "last" : "id", shared_name[t]);
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
    q->str_next = q->floor[SH_STRINGS];
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
    int64_t prev = 0;
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
        if (t == SH_STACKS) { /* each frame as its difference to the one before */
            put_varint(out, zigzag(id - prev));
            prev = id;
        } else
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
 * columns after the content id of a shared table's rows (samples':
 * insert_samples). */
static const int refs_functions[] = { SH_STRINGS, SH_STRINGS, SH_STRINGS, SH_STRINGS, -1 };
static const int refs_mappings[] = { -1, -1, -1, SH_STRINGS, SH_STRINGS };
static const int refs_frames[] = { -1, SH_FUNCTIONS, -1, -1, SH_MAPPINGS, -1, SH_STRINGS };
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

/* ---- strings in compressed blocks ---- */

/* A block's blob: the varint length of its text, then that text
 * compressed (zlib, level 9). The text: the varint number of strings,
 * then each one's place in the block less the place after the one before
 * (0 for the next place) and its length (varints), then the strings'
 * bytes one after the other. */
enum { STR_BLOCK = 256 };
/* a block's text at most (zlib inflates 1,032 times at most) */
#define STR_RAW_MAX ((size_t)1 << 30)

typedef struct strblock {
    unsigned char *raw; /* the text, owned */
    size_t n;
    int64_t id[STR_BLOCK];
    const char *text[STR_BLOCK];
    size_t len[STR_BLOCK];
} strblock;

/* Reads block `block`'s blob b[0..n) into x (raw freed by the caller,
 * also on an error); -1 when it is not such a blob. */
static int strblock_get(const unsigned char *b, size_t n, int64_t block, strblock *x)
{
    size_t at = 0;
    uint64_t raw_len, count;
    x->raw = NULL;
    x->n = 0;
    if (!b || get_varint(b, n, &at, &raw_len) != 0 || raw_len > STR_RAW_MAX || raw_len > (n - at) * 1032 + 64)
        return -1;
    if (!(x->raw = malloc(raw_len + 1)))
        return -1;
    uLongf got = (uLongf)raw_len;
    if (uncompress(x->raw, &got, b + at, (uLong)(n - at)) != Z_OK || got != raw_len)
        return -1;
    size_t r = 0, text = 0;
    if (get_varint(x->raw, raw_len, &r, &count) != 0 || count > STR_BLOCK)
        return -1;
    int64_t place = -1;
    for (size_t i = 0; i < count; i++) {
        uint64_t gap, len;
        if (get_varint(x->raw, raw_len, &r, &gap) != 0 || get_varint(x->raw, raw_len, &r, &len) != 0 ||
            gap >= STR_BLOCK || (place += (int64_t)gap + 1) >= STR_BLOCK || len > raw_len)
            return -1;
        x->id[i] = block * STR_BLOCK + place + 1;
        x->len[i] = (size_t)len;
        text += (size_t)len;
        if (text > raw_len)
            return -1;
    }
    if (r + text != raw_len)
        return -1;
    for (size_t i = 0; i < count; i++) {
        x->text[i] = (const char *)x->raw + r;
        r += x->len[i];
    }
    x->n = (size_t)count;
    return 0;
}

/* The blob of block `block` of n strings (ids ascending, in the block). */
static int strblock_put(pk_buf *out, int64_t block, size_t n, const int64_t *id, const char *const *text,
                        const size_t *len)
{
    pk_buf raw = PK_BUF_INIT;
    put_varint(&raw, n);
    int64_t place = -1;
    for (size_t i = 0; i < n; i++) {
        int64_t p = id[i] - block * STR_BLOCK - 1;
        put_varint(&raw, (uint64_t)(p - place - 1));
        put_varint(&raw, len[i]);
        place = p;
    }
    for (size_t i = 0; i < n; i++)
        pk_buf_put(&raw, text[i], len[i]);
    pk_buf_clear(out);
    put_varint(out, raw.len);
    uLongf room = compressBound((uLong)raw.len);
    int rc = pk_buf_error(&raw) || pk_buf_error(out) || pk_buf_reserve(out, out->len + room) != 0 ? -1 : 0;
    if (rc == 0 && compress2((Bytef *)out->buf + out->len, &room, (const Bytef *)raw.buf, (uLong)raw.len, 9) != Z_OK)
        rc = -1;
    if (rc == 0)
        out->len += room;
    pk_buf_free(&raw);
    return rc;
}

static int strblock_bad(profkit_store *s, int64_t block, profkit_error *err)
{
    return pk_error_set(err, PROFKIT_ECORRUPT, s->name, -1,
                        "SQLite: strings: block %lld is not a block of strings (a damaged store?)", (long long)block);
}

/* Reads block `block` into x; *found 0 when there is none. */
static int strblock_read(profkit_store *s, int64_t block, strblock *x, int *found, profkit_error *err)
{
    sqlite3_stmt *st;
    x->raw = NULL;
    x->n = 0;
    *found = 0;
    if (sqlite3_prepare_v2(db_of(s), "SELECT texts FROM strings WHERE block = ?", -1, &st, NULL) != SQLITE_OK)
        return sqlite_error(s, "strings", err);
    sqlite3_bind_int64(st, 1, block);
    int step = sqlite3_step(st), rc = 0;
    if (step == SQLITE_ROW) {
        *found = 1;
        if (strblock_get(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), block, x) != 0)
            rc = strblock_bad(s, block, err);
    } else if (step != SQLITE_DONE)
        rc = sqlite_error(s, "strings", err);
    sqlite3_finalize(st);
    return rc;
}

/* Writes block `block` of these strings (none: deletes it). */
static int strblock_write(profkit_store *s, int64_t block, size_t n, const int64_t *id, const char *const *text,
                          const size_t *len, profkit_error *err)
{
    sqlite3_stmt *st;
    pk_buf blob = PK_BUF_INIT;
    if (n && strblock_put(&blob, block, n, id, text, len) != 0) {
        pk_buf_free(&blob);
        return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    }
    const char *sql = n ? "INSERT OR REPLACE INTO strings (block, last, texts) VALUES (?, ?, ?)"
                        : "DELETE FROM strings WHERE block = ?";
    int rc = 0;
    if (sqlite3_prepare_v2(db_of(s), sql, -1, &st, NULL) != SQLITE_OK)
        rc = sqlite_error(s, "strings", err);
    else {
        sqlite3_bind_int64(st, 1, block);
        if (n) {
            sqlite3_bind_int64(st, 2, id[n - 1]);
            sqlite3_bind_blob(st, 3, blob.buf, (int)blob.len, SQLITE_STATIC);
        }
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = sqlite_error(s, "strings", err);
        sqlite3_finalize(st);
    }
    pk_buf_free(&blob);
    return rc;
}

/* Every string of the store into the map of content ids (strings are
 * looked up by content: their blocks are read whole, once a connection). */
static int load_strings(profkit_store *s, profkit_error *err)
{
    sq_store *q = s->impl;
    sqlite3_stmt *st;
    if (q->have[SH_STRINGS])
        return 0;
    if (sqlite3_prepare_v2(q->db, "SELECT block, texts FROM strings", -1, &st, NULL) != SQLITE_OK)
        return sqlite_error(s, "strings", err);
    int rc = 0, step;
    strblock *x = malloc(sizeof(*x));
    if (!x)
        rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t block = sqlite3_column_int64(st, 0);
        if (block < 0 || block >= (int64_t)(UINT32_MAX / STR_BLOCK) ||
            strblock_get(sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1), block, x) != 0)
            rc = strblock_bad(s, block, err);
        for (size_t i = 0; rc == 0 && i < x->n; i++)
            if (pk_idmap_put(&q->ids[SH_STRINGS], pk_store_hash(x->text[i], x->len[i], PK_ID_STRING),
                             (uint32_t)(x->id[i] - 1)) != 0)
                rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
        free(x->raw);
        x->raw = NULL;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = sqlite_error(s, "strings", err);
    sqlite3_finalize(st);
    free(x);
    if (rc)
        forget_ids(s);
    else
        q->have[SH_STRINGS] = 1;
    return rc;
}

/* add's strings (content id, text): each one not in the store gets the
 * next id, and goes to its block (the last block, while it has room, is
 * read and written again with them). */
static int insert_strings(profkit_store *s, const pk_cell *cells, size_t n_rows, profkit_error *err)
{
    sq_store *q = s->impl;
    int rc = load_strings(s, err);
    if (rc)
        return rc;
    int64_t *id = malloc((n_rows + STR_BLOCK) * sizeof(*id));
    const char **text = malloc((n_rows + STR_BLOCK) * sizeof(*text));
    size_t *len = malloc((n_rows + STR_BLOCK) * sizeof(*len)), n = 0;
    strblock *x = malloc(sizeof(*x));
    if (!id || !text || !len || !x)
        rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    /* the new strings after STR_BLOCK places: room for a block's old ones */
    for (size_t r = 0; r < n_rows && rc == 0; r++) {
        const pk_cell *c = &cells[r * 2];
        uint64_t h = (uint64_t)c[0].i;
        if (pk_idmap_get(&q->ids[SH_STRINGS], h) != PROFKIT_NONE)
            continue;
        if (q->str_next < 1 || q->str_next > (int64_t)UINT32_MAX - 1)
            rc = pk_error_set(err, PROFKIT_EIO, s->name, -1,
                              "SQLite: %s: row id %lld out of range (a damaged store?)", "strings",
                              (long long)q->str_next);
        else if (pk_idmap_put(&q->ids[SH_STRINGS], h, (uint32_t)(q->str_next - 1)) != 0)
            rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
        else {
            id[STR_BLOCK + n] = q->str_next++;
            text[STR_BLOCK + n] = c[1].s ? c[1].s : "";
            len[STR_BLOCK + n] = c[1].len;
            n++;
        }
    }
    /* block by block: the block's strings in the store, then the new ones */
    for (size_t i = 0; i < n && rc == 0;) {
        int64_t block = (id[STR_BLOCK + i] - 1) / STR_BLOCK;
        size_t j = i, old = 0;
        int found;
        while (j < n && (id[STR_BLOCK + j] - 1) / STR_BLOCK == block)
            j++;
        if ((rc = strblock_read(s, block, x, &found, err)) == 0) {
            for (size_t k = 0; k < x->n && x->id[k] < id[STR_BLOCK + i]; k++, old++) {
                id[STR_BLOCK + i - x->n + k] = x->id[k];
                text[STR_BLOCK + i - x->n + k] = x->text[k];
                len[STR_BLOCK + i - x->n + k] = x->len[k];
            }
            if (old != x->n) /* a string at or after a new one's place */
                rc = strblock_bad(s, block, err);
        }
        if (rc == 0)
            rc = strblock_write(s, block, old + j - i, id + STR_BLOCK + i - old, text + STR_BLOCK + i - old,
                                len + STR_BLOCK + i - old, err);
        free(x->raw);
        x->raw = NULL;
        i = j;
    }
    free(id);
    free(text);
    free(len);
    free(x);
    return rc;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The strings of these ids (the loader's, engine->strings): fn gets (id,
 * text) for each one there is, a block read once for all its ids. */
static int sq_strings(profkit_store *s, const uint64_t *want, size_t n, pk_store_row_fn fn, void *payload,
                      profkit_error *err)
{
    int64_t *ids = malloc((n ? n : 1) * sizeof(*ids));
    strblock *x = malloc(sizeof(*x));
    int rc = 0;
    if (!ids || !x)
        rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++)
        ids[i] = (int64_t)want[i];
    if (rc == 0)
        qsort(ids, n, sizeof(*ids), cmp_i64);
    for (size_t i = 0; rc == 0 && i < n;) {
        int64_t block = ids[i] > 0 ? (ids[i] - 1) / STR_BLOCK : -1;
        size_t j = i;
        while (j < n && ids[j] > 0 && (ids[j] - 1) / STR_BLOCK == block)
            j++;
        if (block < 0) { /* no such string: the loader says which */
            i++;
            continue;
        }
        int found;
        if ((rc = strblock_read(s, block, x, &found, err)) == 0)
            for (size_t k = 0, w = i; rc == 0 && k < x->n && w < j;) {
                if (x->id[k] < ids[w])
                    k++;
                else if (x->id[k] > ids[w])
                    w++;
                else {
                    char num[24];
                    char *cells[2] = { num, (char *)x->text[k] };
                    size_t lens[2];
                    lens[0] = (size_t)snprintf(num, sizeof(num), "%lld", (long long)x->id[k]);
                    lens[1] = x->len[k];
                    /* (a copy of its text: the cell is NUL-terminated) */
                    char *t = malloc(x->len[k] + 1);
                    if (!t) {
                        rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
                        break;
                    }
                    memcpy(t, x->text[k], x->len[k]);
                    t[x->len[k]] = '\0';
                    cells[1] = t;
                    rc = fn(payload, cells, lens, 2, err);
                    free(t);
                    while (w < j && ids[w] == x->id[k])
                        w++;
                    k++;
                }
            }
        free(x->raw);
        x->raw = NULL;
        i = j;
    }
    free(ids);
    free(x);
    return rc;
}

/* Deletes the strings whose ids temp.gc_strings holds from their blocks
 * (a block left empty goes); *n: how many there were. */
static int strings_drop(profkit_store *s, size_t *dropped, profkit_error *err)
{
    sqlite3_stmt *st;
    int64_t *ids = NULL;
    size_t n = 0, cap = 0;
    int rc = 0, step;
    *dropped = 0;
    if (sqlite3_prepare_v2(db_of(s), "SELECT id FROM temp.gc_strings ORDER BY id", -1, &st, NULL) != SQLITE_OK)
        return sqlite_error(s, "strings", err);
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (PK_VEC_RESERVE(ids, n, cap, 1) != 0)
            rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
        else
            ids[n++] = sqlite3_column_int64(st, 0);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = sqlite_error(s, "strings", err);
    sqlite3_finalize(st);
    strblock *x = malloc(sizeof(*x));
    int64_t *kid = malloc(STR_BLOCK * sizeof(*kid));
    const char **kt = malloc(STR_BLOCK * sizeof(*kt));
    size_t *kl = malloc(STR_BLOCK * sizeof(*kl));
    if (rc == 0 && (!x || !kid || !kt || !kl))
        rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    for (size_t i = 0; rc == 0 && i < n;) {
        int64_t block = ids[i] > 0 ? (ids[i] - 1) / STR_BLOCK : -1;
        size_t j = i, kept = 0;
        while (j < n && ids[j] > 0 && (ids[j] - 1) / STR_BLOCK == block)
            j++;
        if (block < 0) {
            i++;
            continue;
        }
        int found;
        if ((rc = strblock_read(s, block, x, &found, err)) == 0 && found) {
            for (size_t k = 0, w = i; k < x->n; k++) {
                while (w < j && ids[w] < x->id[k])
                    w++;
                if (w < j && ids[w] == x->id[k]) {
                    (*dropped)++;
                    continue;
                }
                kid[kept] = x->id[k];
                kt[kept] = x->text[k];
                kl[kept++] = x->len[k];
            }
            if (kept != x->n)
                rc = strblock_write(s, block, kept, kid, kt, kl, err);
        }
        free(x ? x->raw : NULL);
        if (x)
            x->raw = NULL;
        i = j;
    }
    free(ids);
    free(x);
    free(kid);
    free(kt);
    free(kl);
    return rc;
}

/* pk_strids(TEXTS, BLOCK): the ids of the strings of a block, as the JSON
 * text "[1,2,3]" (gc: json_each over every block). */
static void sql_strids(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    strblock *x = malloc(sizeof(*x));
    if (!x) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    int64_t block = sqlite3_value_int64(argv[1]);
    if (block < 0 || block >= (int64_t)(UINT32_MAX / STR_BLOCK) ||
        strblock_get(sqlite3_value_blob(argv[0]), (size_t)sqlite3_value_bytes(argv[0]), block, x) != 0) {
        sqlite3_result_error(ctx, "strings: not a block of strings (a damaged store?)", -1);
    } else {
        pk_buf t = PK_BUF_INIT;
        pk_buf_putc(&t, '[');
        for (size_t i = 0; i < x->n; i++) {
            if (i)
                pk_buf_putc(&t, ',');
            pk_buf_i64(&t, x->id[i]);
        }
        pk_buf_putc(&t, ']');
        if (pk_buf_error(&t))
            sqlite3_result_error_nomem(ctx);
        else
            sqlite3_result_text(ctx, t.buf, (int)t.len, SQLITE_TRANSIENT);
        pk_buf_free(&t);
    }
    free(x->raw);
    free(x);
}

/* Notes the value types of the profile being added: its profile_values
 * rows (seq, pos, vtype, ...), which add inserts before its samples. */
static int note_values(profkit_store *s, size_t n_cols, const pk_cell *cells, size_t n_rows,
                       profkit_error *err)
{
    sq_store *sq = s->impl;
    pk_idmap_free(&sq->vt_pos);
    memset(&sq->vt_pos, 0, sizeof(sq->vt_pos));
    sq->vt_n = 0;
    sq->vt_seq = n_rows ? cells[0].i : 0;
    for (size_t r = 0; r < n_rows; r++) {
        const pk_cell *x = &cells[r * n_cols];
        if (x[1].i < 0 || (uint64_t)x[1].i >= n_rows || x[0].i != sq->vt_seq)
            return pk_error_set(err, PROFKIT_EINVAL, s->name, -1, "SQLite: %s: rows out of order (an internal error)",
                                "profile_values");
        if (pk_idmap_get(&sq->vt_pos, (uint64_t)x[2].i) == PROFKIT_NONE &&
            pk_idmap_put(&sq->vt_pos, (uint64_t)x[2].i, (uint32_t)x[1].i) != 0)
            return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    }
    sq->vt_n = n_rows;
    return 0;
}

/* A profile's samples: add's rows (seq, stack, thread, vtype, value,
 * labels), one per value type with a value (or the one of a row of
 * zeros), each (stack, thread, labels)'s rows one after the other, become
 * one row each with every value together (vals, the schema above). */
static int insert_samples(profkit_store *s, const pk_cell *cells, size_t n_rows, profkit_error *err)
{
    sq_store *sq = s->impl;
    sqlite3_stmt *st = NULL;
    int rc = 0;
    int64_t *vals = calloc(sq->vt_n + 1, sizeof(int64_t));
    pk_buf blob = PK_BUF_INIT;
    if (!vals)
        return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    if (sqlite3_prepare_v2(sq->db, "INSERT OR IGNORE INTO samples (seq, stack, thread, labels, vals)"
                                   " VALUES (?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
        rc = sqlite_error(s, "samples", err);
    for (size_t r = 0; r < n_rows && rc == 0;) {
        const pk_cell *x = &cells[r * 6];
        size_t end = r, count = 0;
        for (; end < n_rows; end++) {
            const pk_cell *y = &cells[end * 6];
            if (y[0].i != x[0].i || y[1].i != x[1].i || y[2].i != x[2].i || y[5].i != x[5].i)
                break;
            uint32_t pos = x[0].i == sq->vt_seq ? pk_idmap_get(&sq->vt_pos, (uint64_t)y[3].i) : PROFKIT_NONE;
            if (pos == PROFKIT_NONE || pos >= sq->vt_n) {
                rc = pk_error_set(err, PROFKIT_EINVAL, s->name, -1, "SQLite: %s: rows out of order (an internal error)",
                                  "samples");
                break;
            }
            vals[pos] = y[4].i;
            if (pos + 1 > count)
                count = pos + 1;
        }
        if (rc)
            break;
        /* a row of zeros: count zeros, the last its value type's */
        pk_buf_clear(&blob);
        for (size_t k = 0; k < count; k++) {
            put_varint(&blob, zigzag(vals[k]));
            vals[k] = 0;
        }
        int64_t id;
        sqlite3_bind_int64(st, 1, x[0].i);
        if ((rc = ref_id(s, SH_STACKS, (uint64_t)x[1].i, &id, err)) != 0)
            break;
        sqlite3_bind_int64(st, 2, id);
        if ((rc = ref_id(s, SH_IDENTS, (uint64_t)x[2].i, &id, err)) != 0)
            break;
        sqlite3_bind_int64(st, 3, id);
        if ((rc = ref_id(s, SH_LABELSETS, (uint64_t)x[5].i, &id, err)) != 0)
            break;
        sqlite3_bind_int64(st, 4, id);
        if (pk_buf_error(&blob)) {
            rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
            break;
        }
        sqlite3_bind_blob(st, 5, blob.len ? blob.buf : "", (int)blob.len, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = sqlite_error(s, "samples", err);
        sqlite3_reset(st);
        r = end;
    }
    sqlite3_finalize(st);
    pk_buf_free(&blob);
    free(vals);
    return rc;
}

static int sq_insert(profkit_store *s, const char *table, size_t n_cols, const pk_cell *cells,
                     size_t n_rows, profkit_error *err)
{
    sq_store *sq = s->impl;
    if (strcmp(table, "profile_values") == 0) {
        int rc = note_values(s, n_cols, cells, n_rows, err);
        if (rc)
            return rc;
    }
    if (n_rows == 0)
        return 0;
    if (strcmp(table, "strings") == 0) {
        int rc = n_cols == 2 ? load_ids(s, err)
                             : pk_error_set(err, PROFKIT_EINVAL, s->name, -1,
                                            "SQLite: %s: rows out of order (an internal error)", "strings");
        return rc ? rc : insert_strings(s, cells, n_rows, err);
    }
    if (strcmp(table, "samples") == 0) {
        int rc = n_cols == 6 ? load_ids(s, err)
                             : pk_error_set(err, PROFKIT_EINVAL, s->name, -1,
                                            "SQLite: %s: rows out of order (an internal error)", "samples");
        return rc ? rc : insert_samples(s, cells, n_rows, err);
    }
    int t = shared_index(table), rc = 0;
    const int *refs = NULL;
    if (t == SH_FUNCTIONS)
        refs = refs_functions;
    else if (t == SH_MAPPINGS)
        refs = refs_mappings;
    else if (t == SH_FRAMES)
        refs = refs_frames;
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
        pk_buf_printf(&q, "INSERT OR IGNORE INTO %s VALUES (", table);
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
    pk_idmap_free(&((sq_store *)s->impl)->vt_pos);
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
    "INSERT OR IGNORE INTO gc_frames SELECT j.value FROM stacks AS x, json_each(pk_ids(x.frames, 2)) AS j"
    " WHERE x.id IN (SELECT id FROM gc_stacks);"
    "DELETE FROM stacks WHERE id IN (SELECT id FROM gc_stacks);"
    "DELETE FROM gc_frames WHERE id IN (SELECT j.value FROM stacks AS x, json_each(pk_ids(x.frames, 2)) AS j);"
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
    /* (the strings of gc_strings leave their blocks: strings_drop) */
    /* the threads and value types no remaining profile has */
    "DELETE FROM idents WHERE id NOT IN (SELECT vtype FROM profile_values UNION ALL SELECT thread FROM profile_threads);";
static const char gc_end[] =
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
    size_t n;
    if (rc == 0)
        rc = strings_drop(s, &n, err);
    if (rc == 0)
        rc = sq_exec(s, gc_end, err);
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
 * what the rows name, without the numbers); pk_ids(BLOB, 2): a stack's
 * frames, kept as differences (each id less the one before, zigzag). Anything else (text, a blob
 * cut inside a varint: a damaged store) comes back as text the loader
 * refuses, naming the row. */
static void sql_ids(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    const unsigned char *b = sqlite3_value_blob(argv[0]);
    int n = sqlite3_value_bytes(argv[0]);
    int mode = argc > 1 ? sqlite3_value_int(argv[1]) : 0;
    int strings = mode == 1, deltas = mode == 2;
    int64_t prev = 0;
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
        if (deltas) { /* a stack's frames: differences, zigzag */
            prev = (int64_t)((uint64_t)prev + (uint64_t)unzigzag(v));
            v = (uint64_t)prev;
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

/* pk_val(VALS, POS): the value of samples row's value type POS (its
 * profile_values' pos) as a row of its own would hold it: the value, or
 * NULL where that row would not be (a value of 0), but 0 for the zero of
 * a row of zeros (every value 0: the last one's value type has the row). */
static void sql_val(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const unsigned char *b = sqlite3_value_blob(argv[0]);
    size_t n = (size_t)sqlite3_value_bytes(argv[0]), at = 0, k = 0;
    int64_t pos = sqlite3_value_int64(argv[1]), v = 0;
    int zeros = 1;
    uint64_t u;
    if (sqlite3_value_type(argv[0]) != SQLITE_BLOB && n) {
        sqlite3_result_error(ctx, "samples: vals is not a blob (a damaged store?)", -1);
        return;
    }
    for (; at < n; k++) {
        if (get_varint(b, n, &at, &u) != 0) {
            sqlite3_result_error(ctx, "samples: vals cut inside a varint (a damaged store?)", -1);
            return;
        }
        if ((int64_t)k == pos)
            v = unzigzag(u);
        else if (u)
            zeros = 0;
        if ((int64_t)k >= pos && (v || !zeros))
            break;
    }
    if (v)
        sqlite3_result_int64(ctx, v);
    else if (zeros && at == n && k > 0 && (int64_t)k == pos + 1)
        sqlite3_result_int(ctx, 0);
    else
        sqlite3_result_null(ctx);
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
    "DELETE FROM frames WHERE id NOT IN (SELECT j.value FROM stacks AS x, json_each(pk_ids(x.frames, 2)) AS j);"
    "DELETE FROM functions WHERE id NOT IN (SELECT function FROM frames);"
    "DELETE FROM mappings WHERE id NOT IN (SELECT mapping FROM frames);"
    ;
/* the strings no row names (then strings_drop) */
static const char gc_all_strings[] =
    "DROP TABLE IF EXISTS temp.gc_strings; CREATE TEMP TABLE gc_strings (id INTEGER PRIMARY KEY);"
    "INSERT OR IGNORE INTO gc_strings SELECT j.value FROM strings AS b, json_each(pk_strids(b.texts, b.block)) AS j"
    " WHERE j.value NOT IN (SELECT name FROM functions UNION ALL SELECT system_name FROM functions"
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
    size_t n_strings = 0;
    if ((rc = sq_exec(s, gc_all, err)) == 0) {
        *n = (size_t)(sqlite3_total_changes64(db_of(s)) - before);
        if ((rc = sq_exec(s, gc_all_strings, err)) == 0 && (rc = strings_drop(s, &n_strings, err)) == 0)
            rc = sq_exec(s, "DROP TABLE temp.gc_strings", err);
    }
    if (rc == 0 && (rc = sq_commit(s, err)) == 0) {
        *n += n_strings;
        return 0;
    }
    sq_rollback(s);
    return rc;
}

static const pk_store_engine sqlite_engine = {
    sq_exec, sq_query, sq_insert, sq_begin, sq_commit, sq_rollback, sq_remove, sq_unlabel, sq_close, sq_gc,
};

/* One integer a query answers (-1: none). */
static int64_t sq_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    return v;
}

/* Refuses a store of another layout (SQ_LAYOUT) before any table is made:
 * one that has its tables (profiles) and another user_version. */
static int check_layout(profkit_store *s, profkit_error *err)
{
    sqlite3 *db = db_of(s);
    int64_t has = sq_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'profiles'");
    int64_t v = sq_int(db, "PRAGMA user_version");
    if (has < 0 || v < 0)
        return sqlite_error(s, "reading the layout", err);
    if (has == 0 || v == SQ_LAYOUT)
        return 0;
    return pk_error_set(err, PROFKIT_EUNSUPPORTED, s->name, -1,
                        "the store is of SQLite layout %lld and this profkit reads layout %d: it was written by "
                        "%s; add its files to a new store (its profiles table's source column names them)",
                        (long long)v, (int)SQ_LAYOUT,
                        v < SQ_LAYOUT ? "an older profkit (a sample row per value type, strings as plain text)"
                                      : "a newer profkit");
}

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
    s->strings = sq_strings;
    s->query_ints = sq_query_ints;
    sqlite3_busy_timeout(db, 10000);
    sqlite3_create_function(db, "regexp", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_regexp,
                            NULL, NULL);
    sqlite3_create_function(db, "pk_ids", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_ids, NULL, NULL);
    sqlite3_create_function(db, "pk_ids", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_ids, NULL, NULL);
    sqlite3_create_function(db, "pk_strids", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_strids, NULL, NULL);
    sqlite3_create_function(db, "pk_val", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_val, NULL, NULL);
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
        rc = check_layout(s, err);
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
