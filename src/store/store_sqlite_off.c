/*
 * store_sqlite_off.c: compiled instead of store_sqlite.c when the library
 * is built without the store (PROFKIT_WITH_STORE off, or no SQLite). The
 * rest of the store is built all the same (it needs no package), but no
 * store opens, so every profkit_store_* call ends here with
 * PROFKIT_EUNSUPPORTED and a message saying how to get the part.
 */
#include "store/store.h"

int pk_store_sqlite_open(profkit_store *s, const char *path, profkit_error *err)
{
    return pk_part_check(PK_PART_STORE, err);
}
