/* gperftools_fuzzer.c: the gperftools CPU profile reader on arbitrary bytes,
 * named (every input reaches the header checks) and detected (the sniffer). */
#include <stdint.h>
#include <stdlib.h>

#include "profkit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    profkit_read_options ro = { 0 };
    ro.format = "gperftools";
    profkit_profile *p;
    profkit_error err;
    if (profkit_profile_read_memory(&p, data, size, "fuzz", &ro, &err) == 0)
        profkit_profile_free(p);
    ro.format = NULL;
    ro.strict = 1;
    if (profkit_profile_read_memory(&p, data, size, "fuzz", &ro, &err) == 0)
        profkit_profile_free(p);
    return 0;
}
