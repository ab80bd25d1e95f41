/* elf_fuzzer.c: the symbolizer on an arbitrary file as the ELF binary of a
 * mapping (libelf, libdw, our DWARF index and symbol tables): addresses
 * spread over the file, each as a leaf and as a caller, looked up by
 * profkit_profile_symbolize, then `list --disasm` over the names. Any outcome but a crash or a sanitizer report
 * is fine: names, FILE+0xOFFSET labels, warnings. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "profkit.h"

static void ignore(const profkit_error *w, void *payload)
{
    (void)w;
    (void)payload;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/elf_fuzz_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    size_t done = 0;
    while (done < size) {
        ssize_t k = write(fd, data + done, size - done);
        if (k <= 0)
            break;
        done += (size_t)k;
    }
    close(fd);
    profkit_profile *p = profkit_profile_new();
    if (!p) {
        unlink(path);
        return 0;
    }
    /* Two mappings of the file, as a non-PIE executable (vaddr 0x400000)
     * and as a library loaded at 0x7f0000000000 with offset 0. */
    uint64_t span = (size + 0xffff) & ~(uint64_t)0xfff;
    uint32_t m1 = pk_mapping_add(p, 0x400000, 0x400000 + span, 0, path, "");
    uint32_t m2 = pk_mapping_add(p, 0x7f0000000000, 0x7f0000000000 + span, 0, path, "");
    pk_value_type_add(p, "samples", "count");
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    uint64_t stride = span / 61 + 1;
    uint32_t prev = 0;
    for (uint64_t off = 0; off < span; off += stride) {
        for (int m = 0; m < 2; m++) {
            profkit_frame f;
            memset(&f, 0, sizeof(f));
            f.address = (m ? 0x7f0000000000 : 0x400000) + off + 1;
            f.mapping = m ? m2 : m1;
            char name[32];
            snprintf(name, sizeof(name), "0x%llx", (unsigned long long)f.address);
            f.function = pk_function_add_named(p, name, "", "", 0);
            uint32_t fr = pk_frame_add(p, &f);
            if (fr == PROFKIT_NONE)
                continue;
            /* each address a leaf, and the caller of the next one */
            uint32_t s = pk_stack_intern(p, prev, fr);
            int64_t one = 1;
            if (s != PROFKIT_NONE) {
                pk_sample_add(p, s, t, &one);
                prev = pk_stack_intern(p, 0, fr);
            }
        }
    }
    const char *bins[] = { path };
    profkit_symbolize_options o;
    memset(&o, 0, sizeof(o));
    o.binaries = bins;
    o.n_binaries = 1;
    o.use_mapping_paths = 1;
    o.on_warning = ignore;
    profkit_error err;
    if (profkit_profile_symbolize(p, &o, &err) >= 0) {
        /* every frame label must be printable */
        char buf[512];
        for (size_t i = 0; i < p->n_frames; i++)
            pk_frame_label(p, (uint32_t)i, 0, buf, sizeof(buf));
        /* list --disasm reads the file's code: function ranges from its
         * DWARF and symbols, section bytes, Capstone */
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            profkit_report_options ro;
            memset(&ro, 0, sizeof(ro));
            ro.by = PROFKIT_BY_LINE;
            ro.list_regex = ".";
            ro.disasm = 1;
            ro.symbols = &o;
            profkit_report_list(null, p, &ro, &err);
            fclose(null);
        }
    }
    profkit_profile_free(p);
    unlink(path);
    return 0;
}
