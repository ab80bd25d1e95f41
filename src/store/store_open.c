/* store_open.c: opening a store by its name: a clickhouse:// URL or a
 * SQLite file path. */
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>

/* The URL as messages show it: without the password of its user. */
static void clickhouse_name(char *out, size_t n, const char *url)
{
    const char *p = url + strlen("clickhouse://");
    const char *slash = strchr(p, '/');
    const char *at = slash ? memchr(p, '@', (size_t)(slash - p)) : NULL;
    const char *colon = at ? memchr(p, ':', (size_t)(at - p)) : NULL;
    if (colon) /* the user stays, the password does not */
        snprintf(out, n, "%.*s:***%s", (int)(colon - url), url, at);
    else
        snprintf(out, n, "%s", url);
}

int profkit_store_open_opts(profkit_store **out, const char *db, const profkit_store_options *o,
                            profkit_error *err)
{
    *out = NULL;
    int ch = strncmp(db, "clickhouse://", 13) == 0;
    char name[sizeof(((profkit_store *)0)->name)];
    if (ch)
        clickhouse_name(name, sizeof(name), db);
    else
        snprintf(name, sizeof(name), "%s", db);
    profkit_store *s = calloc(1, sizeof(*s));
    if (!s)
        return pk_error_set(err, PROFKIT_ENOMEM, name, -1, "out of memory opening the store");
    memcpy(s->name, name, sizeof(name));
    int rc = ch ? pk_store_clickhouse_open(s, db, o, err) : pk_store_sqlite_open(s, db, err);
    if (rc) {
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int profkit_store_open(profkit_store **out, const char *db, profkit_error *err)
{
    return profkit_store_open_opts(out, db, NULL, err);
}

void profkit_store_close(profkit_store *s)
{
    if (!s)
        return;
    if (s->engine)
        s->engine->close(s);
    free(s);
}
