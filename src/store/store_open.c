/* store_open.c: opening a store by its name: a clickhouse:// URL or a
 * SQLite file path. */
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>

static int row_found(void *payload, char **cells, const size_t *lens, size_t n, profkit_error *err)
{
    (void)cells, (void)lens, (void)n, (void)err;
    *(int *)payload = 1;
    return 0;
}

int pk_store_check_stacks(profkit_store *s, const char *old_sql, profkit_error *err)
{
    int old = 0;
    int rc = s->engine->query(s, old_sql, row_found, &old, err);
    if (rc == 0 && old)
        rc = profkit_error_set(err, PROFKIT_EUNSUPPORTED, s->name, -1,
                               "the store's stacks table has no frames and keys arrays: it was written "
                               "by an older profkit (stacks as parent/frame pairs); add its files to a "
                               "new store (its profiles table's source column names them)");
    return rc;
}

int profkit_store_open(profkit_store **out, const char *db, profkit_error *err)
{
    *out = NULL;
    profkit_store *s = calloc(1, sizeof(*s));
    if (!s)
        return profkit_error_set(err, PROFKIT_ENOMEM, db, -1, "out of memory opening the store");
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
