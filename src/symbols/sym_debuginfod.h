/*
 * sym_debuginfod.h: the last place sym_find.c looks for a mapping's file:
 * the debuginfod servers DEBUGINFOD_URLS names, asked for the executable
 * with the mapping's build id (libdebuginfod). sym_debuginfod_off.c stands
 * in when the library is built without it.
 */
#ifndef PROFKIT_SYM_DEBUGINFOD_H
#define PROFKIT_SYM_DEBUGINFOD_H

#include "util/util.h"

typedef struct pk_debuginfod pk_debuginfod;

/*
 * The executable whose build id is `bid` (hex), fetched into debuginfod's
 * cache: *path is a new string the caller frees, or NULL when no server
 * has it. *client is made on the first call and kept for the next ones
 * (pk_debuginfod_end frees it). Returns 0, or PROFKIT_EUNSUPPORTED (err
 * says why) when this library was built without debuginfod.
 */
int pk_debuginfod_find(pk_debuginfod **client, const char *bid, char **path, profkit_error *err);
void pk_debuginfod_end(pk_debuginfod *client);

#endif
