/*
 * store_clickhouse_off.c: compiled instead of store_clickhouse.c when the
 * library is built without the store's ClickHouse engine
 * (PROFKIT_WITH_CLICKHOUSE off, or no libcurl): a clickhouse:// store does
 * not open, with PROFKIT_EUNSUPPORTED and a message saying how to get it.
 */
#include "store/store.h"

int pk_store_clickhouse_open(profkit_store *s, const char *url, const profkit_store_options *o,
                             profkit_error *err)
{
    return pk_part_check(PK_PART_CLICKHOUSE, err);
}

/* Batched adds: no ClickHouse store opens, so none is ever held. */
int pk_store_ch_hold(profkit_store *s, const char *table, size_t n_cols, const pk_cell *cells,
                     size_t n_rows, profkit_error *err)
{
    (void)s, (void)table, (void)n_cols, (void)cells, (void)n_rows;
    return pk_part_check(PK_PART_CLICKHOUSE, err);
}

int pk_store_ch_hold_profile(profkit_store *s, uint64_t content, int64_t seq, profkit_error *err)
{
    (void)s, (void)content, (void)seq;
    return pk_part_check(PK_PART_CLICKHOUSE, err);
}

int pk_store_ch_held(profkit_store *s, uint64_t content, int64_t *last_seq, size_t *bytes, size_t *rows)
{
    (void)s, (void)content;
    if (last_seq)
        *last_seq = 0;
    if (bytes)
        *bytes = 0;
    if (rows)
        *rows = 0;
    return 0;
}

int pk_store_ch_flush(profkit_store *s, profkit_error *err)
{
    (void)s, (void)err;
    return 0;
}

void pk_store_ch_drop(profkit_store *s) { (void)s; }
