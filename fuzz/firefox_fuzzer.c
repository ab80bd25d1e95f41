/* firefox_fuzzer.c: the firefox reader (streaming JSON, gecko_common.c and gecko_build.c) on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>

#include "profkit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    profkit_read_options ro = { 0 };
    ro.format = "firefox";
    profkit_profile *p;
    profkit_error err;
    /* As read by info/convert (markers kept) and by the reports (skipped). */
    for (int skip = 0; skip < 2; skip++) {
        ro.skip_markers = skip;
        if (profkit_profile_read_memory(&p, data, size, "fuzz", &ro, &err) == 0)
            profkit_profile_free(p);
    }
    return 0;
}
