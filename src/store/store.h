/*
 * store.h: the profile store's internals (docs/store.md): one schema, two
 * engines. An engine (store_sqlite.c, store_clickhouse.c) runs SQL text,
 * hands rows back as text cells and inserts batches of rows; everything
 * else (content ids, the SQL of adds and queries, assembling a profile)
 * is written once, here, with the few dialect differences in pk_sql_*.
 */
#ifndef PROFKIT_STORE_H
#define PROFKIT_STORE_H

#include "model/model.h"
#include "util/buf.h"
#include "util/map64.h"

/* What a cell of a row to insert holds. */
enum { PK_CELL_INT, PK_CELL_TEXT,
       /* integers as the text "[1,2,3]": SQLite keeps them as a blob of
        * 8-byte words, ClickHouse reads the text as an Array(Int64) */
       PK_CELL_ARRAY };

/* One value of a row to insert: text or an array (s, len), or an integer. */
typedef struct pk_cell {
    const char *s;
    size_t len;
    int64_t i;
    int kind; /* PK_CELL_* */
} pk_cell;

/* Called per result row: n cells of text (NULL for SQL NULL) with their
 * lengths. Returns 0 to go on, or a negative code (err filled). */
typedef int (*pk_store_row_fn)(void *payload, char **cells, const size_t *lens, size_t n,
                               profkit_error *err);

typedef struct pk_store_engine {
    int (*exec)(profkit_store *s, const char *sql, profkit_error *err);
    int (*query)(profkit_store *s, const char *sql, pk_store_row_fn fn, void *payload,
                 profkit_error *err);
    /* Inserts n_rows rows of n_cols cells (row-major). Rows whose key is
     * already there are skipped (SQLite) or merged later (ClickHouse). */
    int (*insert)(profkit_store *s, const char *table, size_t n_cols, const pk_cell *cells,
                  size_t n_rows, profkit_error *err);
    int (*begin)(profkit_store *s, profkit_error *err);
    int (*commit)(profkit_store *s, profkit_error *err);
    void (*rollback)(profkit_store *s);
    /* Removes the profiles of these seqs ("1,2,3"): their rows, and what
     * the engine can of the shared rows no other profile uses. */
    int (*remove)(profkit_store *s, const char *seqs, profkit_error *err);
    /* Deletes the labels with these keys ("'a','b'", literals) of the
     * profiles of these seqs, so that a query after it returns sees none. */
    int (*unlabel)(profkit_store *s, const char *seqs, const char *keys, profkit_error *err);
    void (*close)(profkit_store *s);
    /* Removes the shared rows no live profile uses (*n: how many). */
    int (*gc)(profkit_store *s, size_t *n, profkit_error *err);
} pk_store_engine;

/* Called per result row of query_ints: the first n cells as integers,
 * the last as bytes (blob, len). */
typedef int (*pk_store_ints_fn)(void *payload, const int64_t *v, size_t n, const unsigned char *blob,
                                size_t len, profkit_error *err);

struct profkit_store {
    const pk_store_engine *engine;
    char name[256];  /* the DB as given, for messages */
    int clickhouse;  /* the dialect: ClickHouse (else SQLite) */
    int distributed; /* ClickHouse tables are Distributed: IN becomes GLOBAL IN */
    void *impl;
    /* The strings of these ids, fn given (id, text) for each one there is
     * (SQLite keeps them in compressed blocks); NULL: the loader selects
     * them from `strings` (id, text). */
    int (*strings)(profkit_store *s, const uint64_t *ids, size_t n, pk_store_row_fn fn, void *payload,
                   profkit_error *err);
    /* Runs sql, each row's cells but the last given as integers and the
     * last as bytes, without their text (SQLite: the loader reads every
     * sample row so); NULL on ClickHouse. */
    int (*query_ints)(profkit_store *s, const char *sql, pk_store_ints_fn fn, void *payload, profkit_error *err);
};

/* The tables of a profile's own rows (keyed by seq), which rm deletes. */
enum { PK_STORE_N_OWN = 6 };
extern const char *const pk_store_own_tables[PK_STORE_N_OWN];

/* Opens an engine: fills s->engine and s->impl, creates the tables. */
int pk_store_sqlite_open(profkit_store *s, const char *path, profkit_error *err);
int pk_store_clickhouse_open(profkit_store *s, const char *url, const profkit_store_options *o,
                             profkit_error *err);

/* Batched adds on ClickHouse (store_clickhouse.c): rows held for one
 * INSERT per table over many profiles. hold appends a table's rows (the
 * shared ones this connection sent or holds are left out); hold_profile
 * notes a profile held whole (its content id, its seq); held says whether
 * a profile is held, and the largest seq, bytes and rows held; flush sends
 * them, table by table in the order first held, and drops them (also on
 * an error); drop drops them unsent. */
int pk_store_ch_hold(profkit_store *s, const char *table, size_t n_cols, const pk_cell *cells,
                     size_t n_rows, profkit_error *err);
int pk_store_ch_hold_profile(profkit_store *s, uint64_t content, int64_t seq, profkit_error *err);
int pk_store_ch_held(profkit_store *s, uint64_t content, int64_t *last_seq, size_t *bytes, size_t *rows);
int pk_store_ch_flush(profkit_store *s, profkit_error *err);
void pk_store_ch_drop(profkit_store *s);

/* ---- SQL text (store_sql.c) ---- */

/* SQL is built in a pk_buf (util/buf.h) with pk_buf_printf: out of memory
 * is sticky, and pk_sql_query / pk_sql_exec report it. */
/* A string literal in the store's dialect. */
void pk_sql_str(pk_buf *q, const profkit_store *s, const char *v, size_t len);
/* "IN" or, on Distributed tables, "GLOBAL IN" (and NOT IN). */
const char *pk_sql_in(const profkit_store *s);
const char *pk_sql_not_in(const profkit_store *s);
/* The SELECT of the seq of every profile q selects (a subquery). */
int pk_sql_select_profiles(pk_buf *out, profkit_store *s, const profkit_store_query *q,
                           profkit_error *err);
/* A label key: 1 or more letters, digits, '_', '.', '-'. */
int pk_store_key_ok(const char *k, size_t n);
/* The seqs of the profiles q selects, "1,2,3" in *list (store_list.c). */
int pk_store_selected_seqs(pk_buf *list, size_t *n, profkit_store *s, const profkit_store_query *q,
                           profkit_error *err);
/* Runs q's text (checked for out of memory). */
int pk_sql_query(profkit_store *s, pk_buf *q, pk_store_row_fn fn, void *payload,
                 profkit_error *err);
int pk_sql_exec(profkit_store *s, pk_buf *q, profkit_error *err);
/* A decimal int64 cell; 0 when empty. */
int64_t pk_cell_i64(const char *c);
/* Refuses a store of an older schema (docs/store.md): an engine runs this
 * before it creates any table, with the query, in its dialect, that
 * returns the name of an old column of `stacks` (`parent`: stacks as
 * pairs; `keys`: stacks with their frames' keys beside them). */
int pk_store_check_stacks(profkit_store *s, const char *old_sql, profkit_error *err);
/* Refuses a SQLite store whose shared rows are named by their content ids
 * (written before the small ids): old_sql returns a row for one. */
int pk_store_check_small_ids(profkit_store *s, const char *old_sql, profkit_error *err);

/* ---- content ids (store_ids.c) ---- */

/* A 63-bit id of bytes, the same on every machine and in every run; never 0. */
uint64_t pk_store_hash(const void *data, size_t len, uint64_t tag);
/* The id of n 64-bit words (little-endian bytes), tagged by kind. */
uint64_t pk_store_hash_words(const uint64_t *w, size_t n, uint64_t tag);

enum { PK_ID_STRING = 1, PK_ID_FUNCTION, PK_ID_MAPPING, PK_ID_FRAME, PK_ID_STACK, PK_ID_THREAD,
       PK_ID_VALUE, PK_ID_PROFILE, PK_ID_LABELSET };

/* The id of a value type (samples.vtype). */
uint64_t pk_store_value_id(const char *type, const char *unit);

/* Map of nonzero 64-bit ids to 32-bit indexes: util/map64.h, where id 0
 * (no id) is never stored or found. */
typedef pk_map64 pk_idmap;
void pk_idmap_free(pk_idmap *m);
/* The index of key, or PROFKIT_NONE. */
uint32_t pk_idmap_get(const pk_idmap *m, uint64_t key);
/* Sets key's index; returns 0 or PROFKIT_ENOMEM. */
int pk_idmap_put(pk_idmap *m, uint64_t key, uint32_t val);

/* ---- reading (store_load.c) ---- */

/* What the selected profiles say together, as merging them would: value
 * types and threads in order of first appearance, the first profile's
 * default value and format, metadata in order. An empty profile with those
 * tables (no stacks, no samples). seqs: the selected profiles, oldest first. */
int pk_store_header(profkit_profile **out, profkit_store *s, const char *sel, profkit_error *err);

/* ---- pushes (store_serve.c), exposed for fuzz/ingest_fuzzer.c ---- */

/* The part named `want` of a multipart/form-data body whose Content-Type
 * is ctype: 0 and *out, *out_len inside body, or -1. */
int pk_store_multipart_part(const char *ctype, const char *body, size_t len, const char *want,
                            const char **out, size_t *out_len);
/* The labels of a push's name=APP{K=V,...}: 0 and their count, or
 * PROFKIT_EINVAL with err set. */
int pk_store_name_labels(const char *name, size_t *n, profkit_error *err);

/* ---- the store browser (store_web.c) ---- */

/* Every label key of the profiles q selects, with its values and how many
 * profiles have each, as JSON (docs/json.md, "store labels") into out
 * (store_list.c). Returns 0 or a negative code. */
int pk_store_label_index(pk_buf *out, profkit_store *s, const profkit_store_query *q, profkit_error *err);
/* Splits an application/x-www-form-urlencoded body (NUL-terminated, changed
 * in place) into up to max pairs: k[i], v[i] point into text, decoded (a key
 * without '=' has the value ""). Returns 0, -1 for a bad %-escape or %00, -2
 * for more than max pairs (store_web.c; fuzz/web_form_fuzzer.c). */
int pk_store_form_parse(char *text, const char **k, const char **v, size_t max, size_t *n);

#endif
