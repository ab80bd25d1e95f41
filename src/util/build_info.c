/*
 * build_info.c: what this build of the library is: its version and which
 * optional parts it has. The build defines PROFKIT_HAVE_<PART> (0 or 1) for
 * this file only (CMakeLists.txt); a part left out is replaced by its stub
 * file (*_off.c), whose functions return the error made here.
 */
#include "util/util.h"

#include <string.h>

#if !defined(PROFKIT_HAVE_STORE) || !defined(PROFKIT_HAVE_CLICKHOUSE) || \
    !defined(PROFKIT_HAVE_SERVER) || !defined(PROFKIT_HAVE_DISASM) || !defined(PROFKIT_HAVE_DEBUGINFOD)
#error "the build must define PROFKIT_HAVE_<PART> for every optional part"
#endif

const char *profkit_version(void) { return PROFKIT_VERSION_STRING; }

typedef struct part {
    profkit_part_info info;
    const char *what;    /* as the message names it */
    const char *package; /* the Debian package that brings its dependency */
    const char *option;  /* the CMake option */
} part;

/* In the order of PK_PART_*. */
static const part parts[] = {
    { { "store", "the profile store (SQLite)", PROFKIT_HAVE_STORE },
      "the store (SQLite)", "libsqlite3-dev", "PROFKIT_WITH_STORE" },
    { { "clickhouse", "the store's ClickHouse engine (libcurl)", PROFKIT_HAVE_CLICKHOUSE },
      "the store's ClickHouse engine (libcurl)", "libcurl4-openssl-dev", "PROFKIT_WITH_CLICKHOUSE" },
    { { "server", "the local web server of profkit view (libmicrohttpd)", PROFKIT_HAVE_SERVER },
      "the local web server (libmicrohttpd)", "libmicrohttpd-dev", "PROFKIT_WITH_SERVER" },
    { { "disasm", "disassembly for list --disasm (Capstone)", PROFKIT_HAVE_DISASM },
      "disassembly (Capstone)", "libcapstone-dev", "PROFKIT_WITH_DISASM" },
    { { "debuginfod", "binaries fetched from debuginfod servers (libdebuginfod)", PROFKIT_HAVE_DEBUGINFOD },
      "debuginfod (libdebuginfod)", "libdebuginfod-dev", "PROFKIT_WITH_DEBUGINFOD" },
};
#define N_PARTS (sizeof(parts) / sizeof(parts[0]))

size_t profkit_part_count(void) { return N_PARTS; }

const profkit_part_info *profkit_part_get(size_t i) { return i < N_PARTS ? &parts[i].info : NULL; }

int pk_part_check(int id, profkit_error *err)
{
    if (id < 0 || (size_t)id >= N_PARTS)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "no optional part %d", id);
    const part *pt = &parts[id];
    if (pt->info.built)
        return 0;
    /* A part's store dependency first: ClickHouse is an engine of the store. */
    if (id == PK_PART_CLICKHOUSE && !parts[PK_PART_STORE].info.built)
        pt = &parts[PK_PART_STORE];
    return pk_error_set(err, PROFKIT_EUNSUPPORTED, NULL, -1,
                        "this libprofkit was built without %s: install %s and build it again with "
                        "-D%s=ON",
                        pt->what, pt->package, pt->option);
}

int profkit_part_check(const char *name, profkit_error *err)
{
    for (size_t i = 0; name && i < N_PARTS; i++)
        if (strcmp(parts[i].info.name, name) == 0)
            return pk_part_check((int)i, err);
    return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "unknown optional part '%s' (profkit_part_get lists them)",
                        name ? name : "(null)");
}
