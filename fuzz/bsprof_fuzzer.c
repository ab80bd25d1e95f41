/* bsprof_fuzzer.c: the bsprof reader on arbitrary bytes; what it accepts
 * goes through the tree and mem reports and the bsprof writer, the written
 * file must read back, and the bytes must read with the reports' options
 * (skip_inuse, skip_lines) too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "profkit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *null_out;
    static char path[64];
    if (!null_out) {
        null_out = fopen("/dev/null", "w");
        snprintf(path, sizeof(path), "/tmp/bsprof_fuzz_%ld.bsprof", (long)getpid());
    }
    profkit_read_options ro = { 0 };
    ro.format = "bsprof";
    profkit_profile *p;
    profkit_error err;
    if (profkit_profile_read_memory(&p, data, size, "fuzz", &ro, &err) != 0)
        return 0;
    profkit_report_options o = { 0 };
    o.cutoff_pct = 1;
    o.by = PROFKIT_BY_LINE;
    profkit_report_tree(null_out, p, &o, &err);
    profkit_report_mem(null_out, p, &o, &err);
    profkit_write_options wo = { 0 };
    wo.format = "bsprof";
    if (profkit_profile_write_file(p, path, &wo, &err) == 0) {
        profkit_profile *q;
        ro.format = NULL;
        if (profkit_profile_read_file(&q, path, &ro, &err) != 0)
            abort(); /* what the writer writes must read back */
        profkit_profile_free(q);
        unlink(path);
    }
    profkit_profile_free(p);
    /* As the reports read it: frees not matched (skip_inuse), lines
     * dropped (skip_lines), each alone and both. */
    for (int mode = 1; mode < 4; mode++) {
        ro.format = "bsprof";
        ro.skip_inuse = mode & 1;
        ro.skip_lines = (mode >> 1) & 1;
        if (profkit_profile_read_memory(&p, data, size, "fuzz", &ro, &err) != 0)
            abort(); /* the same bytes read without these options */
        profkit_report_mem(null_out, p, &o, &err);
        profkit_profile_free(p);
    }
    return 0;
}
