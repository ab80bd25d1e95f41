/* br_fuzzer.c: the br reader on arbitrary bytes, then the reports and
 * analyses that walk what it built. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "profkit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    profkit_read_options ro = { 0 };
    ro.format = "br";
    profkit_profile *p;
    profkit_error err;
    if (profkit_profile_read_memory(&p, data, size, "fuzz", &ro, &err) == 0) {
        static FILE *null;
        if (!null)
            null = fopen("/dev/null", "w");
        if (null) {
            profkit_report_info(null, p, &err);
            profkit_report_options o = { 0 };
            o.by = PROFKIT_BY_LINE;
            profkit_report_top(null, p, &o, &err);
        }
        profkit_profile_free(p);
    }
    return 0;
}
