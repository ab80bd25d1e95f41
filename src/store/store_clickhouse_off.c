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
