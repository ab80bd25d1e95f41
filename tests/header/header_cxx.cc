// header_cxx.cc: include/profkit.h compiles as C++ (-pedantic -Werror) and
// links from C++ code.
#include <cstring>

#include "profkit.h"

int main()
{
    profkit_profile *p = profkit_profile_new();
    if (!p)
        return 1;
    profkit_error err;
    std::memset(&err, 0, sizeof err);
    const char text[] = "main;work 3\n";
    profkit_profile *q = nullptr;
    profkit_read_options ro = {};
    ro.format = "folded";
    int rc = profkit_profile_read_memory(&q, text, sizeof text - 1, "mem", &ro, &err);
    int ok = rc == 0 && q != nullptr;
    profkit_profile_free(q);
    profkit_profile_free(p);
    return ok ? 0 : 1;
}
