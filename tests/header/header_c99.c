/* header_c99.c: include/profkit.h compiles as strict C99 (-pedantic -Werror)
 * and its basic calls link and work. */
#include <string.h>

#include "profkit.h"

int main(void)
{
    profkit_profile *p = profkit_profile_new();
    if (!p)
        return 1;
    uint32_t id = profkit_string_intern_cstr(p, "main");
    int ok = strcmp(profkit_string(p, id), "main") == 0 && profkit_format_count() > 0 &&
             profkit_format_find("folded") != NULL;
    profkit_profile_free(p);
    return ok ? 0 : 1;
}
