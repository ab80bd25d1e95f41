/* test_symbols.c: ELF symbolization of this very test binary, through the
 * mapping /proc/self/maps gives for it (a position-independent executable on
 * Debian, so the vaddr translation is exercised). */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "model/model.h"

__attribute__((noinline)) int profkit_test_marker_function(int x);
__attribute__((noinline)) int profkit_test_marker_function(int x)
{
    return x * 3 + 1;
}

static int find_mapping(uintptr_t addr, uint64_t *start, uint64_t *end, uint64_t *off, char *path,
                        size_t n)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    char line[1024];
    int rc = -1;
    while (fgets(line, sizeof(line), f)) {
        unsigned long long s, e, o;
        char perms[8], p[800] = "";
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %799s", &s, &e, perms, &o, p) >= 4 &&
            addr >= s && addr < e) {
            *start = s;
            *end = e;
            *off = o;
            snprintf(path, n, "%s", p);
            rc = 0;
            break;
        }
    }
    fclose(f);
    return rc;
}

static uint32_t addr_frame(profkit_profile *p, uint64_t addr, uint32_t mapping)
{
    char name[32];
    snprintf(name, sizeof(name), "0x%" PRIx64, addr);
    profkit_frame f;
    memset(&f, 0, sizeof(f));
    f.function = profkit_function_add_named(p, name, "", "", 0);
    f.address = addr;
    f.mapping = mapping;
    return profkit_frame_add(p, &f);
}

static void names_a_function_of_this_binary(void **state)
{
    (void)state;
    uintptr_t fn = (uintptr_t)&profkit_test_marker_function;
    uint64_t start, end, off;
    char path[800];
    assert_int_equal(find_mapping(fn, &start, &end, &off, path, sizeof(path)), 0);
    profkit_profile *p = profkit_profile_new();
    uint32_t m = profkit_mapping_add(p, start, end, off, path, "");
    profkit_value_type_add(p, "samples", "count");
    uint32_t t = profkit_thread_add(p, "main", "", -1, -1);
    /* A leaf inside the function, and an unrelated address (not named). */
    uint32_t leaf = addr_frame(p, fn + 2, m);
    uint32_t other = addr_frame(p, 0x10, PROFKIT_NONE);
    int64_t one = 1;
    profkit_sample_add(p, profkit_stack_intern(p, profkit_stack_intern(p, 0, other), leaf), t, &one);
    profkit_symbolize_options o = { NULL, 0, 1 };
    profkit_error err;
    assert_int_equal(profkit_profile_symbolize(p, &o, &err), 1);
    char buf[128];
    profkit_frame_label(p, leaf, 0, buf, sizeof(buf));
    assert_string_equal(buf, "profkit_test_marker_function");
    profkit_frame_label(p, other, 0, buf, sizeof(buf));
    assert_string_equal(buf, "0x10");
    /* The frame index still finds the renamed frame. */
    profkit_frame copy = p->frames[leaf];
    assert_int_equal(profkit_frame_add(p, &copy), leaf);
    profkit_profile_free(p);
}

static void a_return_address_is_looked_up_one_byte_back(void **state)
{
    (void)state;
    /* The first byte of the function, seen only as a caller's return
     * address, belongs to the instruction before it: not this function. */
    uintptr_t fn = (uintptr_t)&profkit_test_marker_function;
    uint64_t start, end, off;
    char path[800];
    assert_int_equal(find_mapping(fn, &start, &end, &off, path, sizeof(path)), 0);
    profkit_profile *p = profkit_profile_new();
    uint32_t m = profkit_mapping_add(p, start, end, off, path, "");
    profkit_value_type_add(p, "samples", "count");
    uint32_t t = profkit_thread_add(p, "main", "", -1, -1);
    uint32_t caller = addr_frame(p, fn, m);
    uint32_t leaf = addr_frame(p, fn + 1, m);
    int64_t one = 1;
    profkit_sample_add(p, profkit_stack_intern(p, profkit_stack_intern(p, 0, caller), leaf), t, &one);
    profkit_symbolize_options o = { NULL, 0, 1 };
    profkit_error err;
    assert_true(profkit_profile_symbolize(p, &o, &err) >= 1);
    char buf[128];
    profkit_frame_label(p, caller, 0, buf, sizeof(buf));
    assert_string_not_equal(buf, "profkit_test_marker_function");
    profkit_frame_label(p, leaf, 0, buf, sizeof(buf));
    assert_string_equal(buf, "profkit_test_marker_function");
    profkit_profile_free(p);
}

static void missing_binaries_are_skipped(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    uint32_t m = profkit_mapping_add(p, 0x400000, 0x500000, 0, "/nonexistent/bin", "");
    addr_frame(p, 0x401000, m);
    const char *bins[] = { "/nonexistent/other/bin" };
    profkit_symbolize_options o = { bins, 1, 1 };
    profkit_error err;
    assert_int_equal(profkit_profile_symbolize(p, &o, &err), 0);
    /* A file that is not ELF. */
    const char *notelf[] = { "/etc/hostname" };
    profkit_symbolize_options o2 = { notelf, 1, 0 };
    assert_int_equal(profkit_profile_symbolize(p, &o2, &err), 0);
    profkit_profile_free(p);
}

int profkit_demangle(const char *mangled, char *buf, size_t n);

static void demangles_cxx_names(void **state)
{
    (void)state;
    char buf[256] = "untouched";
    assert_int_equal(profkit_demangle("_ZN3foo3barEi", buf, sizeof(buf)), 1);
    assert_string_equal(buf, "foo::bar(int)");
    assert_int_equal(profkit_demangle("main", buf, sizeof(buf)), 0);
    assert_int_equal(profkit_demangle("_Znot-a-name", buf, sizeof(buf)), 0);
    assert_int_equal(profkit_demangle("_ZN3foo3barEi", buf, 5), 1); /* truncated */
    assert_string_equal(buf, "foo:");
}

int main(void)
{
    if (profkit_test_marker_function(1) != 4)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_a_function_of_this_binary),
        cmocka_unit_test(a_return_address_is_looked_up_one_byte_back),
        cmocka_unit_test(missing_binaries_are_skipped),
        cmocka_unit_test(demangles_cxx_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
