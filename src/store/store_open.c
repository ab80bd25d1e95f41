/* store_open.c: opening a store by its name: a clickhouse:// URL or a
 * SQLite file path. */
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>

int profkit_store_open(profkit_store **out, const char *db, profkit_error *err)
{
    *out = NULL;
    profkit_store *s = calloc(1, sizeof(*s));
    if (!s)
        return pk_error_set(err, PROFKIT_ENOMEM, db, -1, "out of memory opening the store");
    snprintf(s->name, sizeof(s->name), "%s", db);
    int rc = strncmp(db, "clickhouse://", 13) == 0 ? pk_store_clickhouse_open(s, db, err)
                                                   : pk_store_sqlite_open(s, db, err);
    if (rc) {
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

void profkit_store_close(profkit_store *s)
{
    if (!s)
        return;
    if (s->engine)
        s->engine->close(s);
    free(s);
}
