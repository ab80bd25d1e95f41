/* pprof_fuzzer.c: the pprof reader on arbitrary bytes, and the writer on
 * whatever it accepts (the written message must read back). */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "profkit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    profkit_read_options ro = { 0 };
    ro.format = "pprof";
    profkit_profile *p;
    profkit_error err;
    if (profkit_profile_read_memory(&p, data, size, "fuzz", &ro, &err) != 0)
        return 0;
    char path[] = "/tmp/pprof_fuzz_XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) {
        close(fd);
        profkit_write_options wo = { 0 };
        wo.format = "pprof";
        if (profkit_profile_write_file(p, path, &wo, &err) == 0) {
            profkit_profile *q;
            if (profkit_profile_read_file(&q, path, &ro, &err) != 0)
                abort(); /* the writer produced something its reader refuses */
            profkit_profile_free(q);
        }
        unlink(path);
    }
    profkit_profile_free(p);
    return 0;
}
