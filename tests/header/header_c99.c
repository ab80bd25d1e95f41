/* header_c99.c: include/profkit.h compiles as strict C99 (-pedantic -Werror)
 * and its basic calls link against the shared library and work: the
 * library's version is the header's, and every optional part either is
 * there or says it is missing. */
#include <stdio.h>
#include <string.h>

#include "profkit.h"

#if PROFKIT_VERSION_NUMBER != \
    PROFKIT_VERSION_MAJOR * 1000000 + PROFKIT_VERSION_MINOR * 1000 + PROFKIT_VERSION_PATCH
#error "PROFKIT_VERSION_NUMBER does not match the version macros"
#endif

static int parts_ok(void)
{
    profkit_error err;
    size_t n = profkit_part_count();
    if (n != 5 || profkit_part_get(n) != NULL)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const profkit_part_info *pt = profkit_part_get(i);
        if (!pt || !pt->name[0] || !pt->description[0])
            return 0;
        memset(&err, 0, sizeof err);
        int rc = profkit_part_check(pt->name, &err);
        if (pt->built ? rc != 0 : rc != PROFKIT_EUNSUPPORTED ||
                                      strstr(err.message, "this libprofkit was built without") == NULL) {
            fprintf(stderr, "part %s (built %d): check returned %d: %s\n", pt->name, pt->built, rc,
                    err.message);
            return 0;
        }
    }
    return profkit_part_check("no such part", &err) == PROFKIT_EINVAL;
}

int main(void)
{
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", PROFKIT_VERSION_MAJOR, PROFKIT_VERSION_MINOR, PROFKIT_VERSION_PATCH);
    if (strcmp(profkit_version(), PROFKIT_VERSION_STRING) != 0 || strcmp(v, PROFKIT_VERSION_STRING) != 0) {
        fprintf(stderr, "library %s, header %s (%s)\n", profkit_version(), PROFKIT_VERSION_STRING, v);
        return 1;
    }
    if (!parts_ok())
        return 1;
    profkit_profile *p = profkit_profile_new();
    if (!p)
        return 1;
    uint32_t id = profkit_string_intern_cstr(p, "main");
    int ok = strcmp(profkit_string(p, id), "main") == 0 && profkit_format_count() > 0 &&
             profkit_format_find("folded") != NULL;
    profkit_profile_free(p);
    return ok ? 0 : 1;
}
