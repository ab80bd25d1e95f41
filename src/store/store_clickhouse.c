/* store_clickhouse.c: placeholder */
#include "store/store.h"

int pk_store_clickhouse_open(profkit_store *s, const char *url, profkit_error *err)
{
    (void)s;
    return profkit_error_set(err, PROFKIT_EUNSUPPORTED, url, -1, "ClickHouse: not built");
}
