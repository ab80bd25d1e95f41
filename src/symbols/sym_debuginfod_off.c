/*
 * sym_debuginfod_off.c: compiled instead of sym_debuginfod.c when the
 * library is built without debuginfod (PROFKIT_WITH_DEBUGINFOD off, or no
 * libdebuginfod): no server is asked, and the symbolizer warns once that
 * DEBUGINFOD_URLS goes unused.
 */
#include "symbols/sym_debuginfod.h"

int pk_debuginfod_find(pk_debuginfod **client, const char *bid, char **path, profkit_error *err)
{
    *path = NULL;
    return pk_part_check(PK_PART_DEBUGINFOD, err);
}

void pk_debuginfod_end(pk_debuginfod *client) {}
