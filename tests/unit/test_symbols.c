/* test_symbols.c: symbolization of this very test binary, through the
 * mapping /proc/self/maps gives for it (a position-independent executable on
 * Debian, so the load bias is exercised): names, DWARF files and lines,
 * return addresses, FILE+0xOFFSET for what has no file, build-id
 * mismatches, Breakpad ids, demangling. Programs built at test time are in
 * tests/cli/symbols_real.sh. */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/model.h"

__attribute__((noinline)) int pk_test_marker_function(int x);
__attribute__((noinline)) int pk_test_marker_function(int x)
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
    f.function = pk_function_add_named(p, name, "", "", 0);
    f.address = addr;
    f.mapping = mapping;
    return pk_frame_add(p, &f);
}

/* The label of the frame at depth `depth` (0 = root) of sample row r's stack. */
static void stack_label(const profkit_profile *p, size_t r, size_t depth, char *buf, size_t n)
{
    uint32_t chain[64];
    size_t k = 0;
    for (uint32_t s = p->sample_stack[r]; s != 0 && k < 64; s = p->stacks[s].parent)
        chain[k++] = p->stacks[s].frame;
    assert_true(depth < k);
    pk_frame_label(p, chain[k - 1 - depth], 0, buf, n);
}

static const profkit_frame *leaf_frame(const profkit_profile *p, size_t r)
{
    return &p->frames[p->stacks[p->sample_stack[r]].frame];
}

static profkit_symbolize_options mapped(void)
{
    profkit_symbolize_options o;
    memset(&o, 0, sizeof(o));
    o.use_mapping_paths = 1;
    return o;
}

static void names_a_function_of_this_binary(void **state)
{
    (void)state;
    uintptr_t fn = (uintptr_t)&pk_test_marker_function;
    uint64_t start, end, off;
    char path[800];
    assert_int_equal(find_mapping(fn, &start, &end, &off, path, sizeof(path)), 0);
    profkit_profile *p = profkit_profile_new();
    uint32_t m = pk_mapping_add(p, start, end, off, path, "");
    pk_value_type_add(p, "samples", "count");
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    /* A leaf inside the function, and an unrelated address (not named). */
    uint32_t leaf = addr_frame(p, fn + 2, m);
    uint32_t other = addr_frame(p, 0x10, PROFKIT_NONE);
    int64_t one = 1;
    pk_sample_add(p, pk_stack_intern(p, pk_stack_intern(p, 0, other), leaf), t, &one);
    profkit_symbolize_options o = mapped();
    profkit_error err;
    assert_int_equal(profkit_profile_symbolize(p, &o, &err), 1);
    char buf[128];
    stack_label(p, 0, 1, buf, sizeof(buf));
    assert_string_equal(buf, "pk_test_marker_function");
    stack_label(p, 0, 0, buf, sizeof(buf));
    assert_string_equal(buf, "0x10");
    /* DWARF gives the source file and a line; the address is kept. */
    const profkit_frame *fr = leaf_frame(p, 0);
    const char *file = pk_str(p, p->functions[fr->function].file);
    assert_non_null(strstr(file, "test_symbols.c"));
    assert_true(fr->line > 0);
    assert_int_equal(fr->address, fn + 2);
    assert_int_equal(fr->inline_depth, 0);
    /* The frame index still finds the new frame; info has the statistics. */
    profkit_frame copy = *fr;
    assert_int_equal(pk_frame_add(p, &copy), p->stacks[p->sample_stack[0]].frame);
    const pk_sym_summary *s = p->symbols;
    assert_non_null(s);
    assert_int_equal(s->named, 1);
    assert_int_equal(s->wanted, 2);
    assert_int_equal(s->chain_frames, 1);
    assert_int_equal(s->n_files, 1);
    assert_string_equal(s->files[0].path, path);
    assert_int_equal(s->files[0].named, 1);
    assert_int_equal(s->files[0].source, PK_SYM_SRC_DWARF);
    assert_int_equal(s->files[0].found_by, PK_SYM_FOUND_MAPPED_PATH);
    assert_int_equal(s->n_no_file, 0);
    profkit_profile_free(p);
}

static void a_return_address_is_looked_up_one_byte_back(void **state)
{
    (void)state;
    /* The first byte of the function, seen only as a caller's return
     * address, belongs to the instruction before it: not this function. */
    uintptr_t fn = (uintptr_t)&pk_test_marker_function;
    uint64_t start, end, off;
    char path[800];
    assert_int_equal(find_mapping(fn, &start, &end, &off, path, sizeof(path)), 0);
    profkit_profile *p = profkit_profile_new();
    uint32_t m = pk_mapping_add(p, start, end, off, path, "");
    pk_value_type_add(p, "samples", "count");
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    uint32_t caller = addr_frame(p, fn, m);
    uint32_t leaf = addr_frame(p, fn + 1, m);
    int64_t one = 1;
    pk_sample_add(p, pk_stack_intern(p, pk_stack_intern(p, 0, caller), leaf), t, &one);
    /* The same address as a leaf of its own is the function. */
    pk_sample_add(p, pk_stack_intern(p, 0, caller), t, &one);
    profkit_symbolize_options o = mapped();
    profkit_error err;
    assert_true(profkit_profile_symbolize(p, &o, &err) >= 1);
    char buf[128];
    size_t two = p->sample_stack[0] != 0 && p->stacks[p->sample_stack[0]].parent != 0 ? 0 : 1;
    stack_label(p, two, 0, buf, sizeof(buf));
    assert_string_not_equal(buf, "pk_test_marker_function");
    stack_label(p, two, pk_stack_depth(p, p->sample_stack[two]) - 1, buf, sizeof(buf));
    assert_string_equal(buf, "pk_test_marker_function");
    stack_label(p, 1 - two, 0, buf, sizeof(buf));
    assert_string_equal(buf, "pk_test_marker_function");
    profkit_profile_free(p);
}

/* No two stack rows are the same (parent, frame), and interning one again
 * finds it (the rows the rebuild appended are indexed on demand). */
static void assert_hash_consed(profkit_profile *p)
{
    size_t n = p->n_stacks;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            assert_false(p->stacks[i].parent == p->stacks[j].parent && p->stacks[i].frame == p->stacks[j].frame);
    for (size_t i = 1; i < n; i++)
        assert_int_equal(pk_stack_intern(p, p->stacks[i].parent, p->stacks[i].frame), i);
    assert_int_equal(p->n_stacks, n);
}

static void rebuilt_stacks_stay_hash_consed(void **state)
{
    (void)state;
    uintptr_t fn = (uintptr_t)&pk_test_marker_function;
    uint64_t start, end, off;
    char path[800];
    assert_int_equal(find_mapping(fn, &start, &end, &off, path, sizeof(path)), 0);
    int64_t one = 1;
    profkit_symbolize_options o = mapped();
    profkit_error err;
    /* One address used as a leaf and as a caller: appended, no duplicates. */
    profkit_profile *p = profkit_profile_new();
    uint32_t m = pk_mapping_add(p, start, end, off, path, "");
    pk_value_type_add(p, "samples", "count");
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    uint32_t a = addr_frame(p, fn + 2, m), b = addr_frame(p, fn + 4, m);
    uint32_t sa = pk_stack_intern(p, 0, a);
    pk_sample_add(p, sa, t, &one);
    pk_sample_add(p, pk_stack_intern(p, sa, b), t, &one);
    pk_sample_add(p, pk_stack_intern(p, pk_stack_intern(p, 0, b), a), t, &one);
    assert_true(profkit_profile_symbolize(p, &o, &err) >= 2);
    assert_hash_consed(p);
    profkit_profile_free(p);
    /* Two old frames of one address (one with its mapping, one found by
     * address) become one frame: the stacks are interned, and the two
     * samples share their stack. */
    p = profkit_profile_new();
    m = pk_mapping_add(p, start, end, off, path, "");
    pk_value_type_add(p, "samples", "count");
    t = pk_thread_add(p, "main", "", -1, -1);
    uint32_t t2 = pk_thread_add(p, "other", "", -1, -1);
    a = addr_frame(p, fn + 2, m);
    b = addr_frame(p, fn + 2, PROFKIT_NONE);
    assert_int_not_equal(a, b);
    pk_sample_add(p, pk_stack_intern(p, 0, a), t, &one);
    pk_sample_add(p, pk_stack_intern(p, 0, b), t2, &one);
    assert_true(profkit_profile_symbolize(p, &o, &err) >= 2);
    assert_hash_consed(p);
    assert_int_equal(p->sample_stack[0], p->sample_stack[1]);
    char buf[128];
    stack_label(p, 0, 0, buf, sizeof(buf));
    assert_string_equal(buf, "pk_test_marker_function");
    profkit_profile_free(p);
}

/* A profile of stacks over addresses in this binary and in libc (inlined
 * calls give chains of several frames where libc has DWARF): many stacks
 * are prefixes of others, so their frames are looked up both ways. */
static profkit_profile *mixed_stacks(uint32_t max_depth)
{
    const uintptr_t fns[] = { (uintptr_t)&pk_test_marker_function, (uintptr_t)&qsort,
                              (uintptr_t)&strtoul, (uintptr_t)&snprintf, (uintptr_t)&fopen,
                              (uintptr_t)&memchr };
    profkit_profile *p = profkit_profile_new();
    assert_int_equal(pk_profile_limit(p, max_depth, 0), 0);
    pk_value_type_add(p, "samples", "count");
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    uint32_t frames[6 * 8];
    for (size_t i = 0; i < 6; i++) {
        uint64_t start, end, off;
        char path[800];
        assert_int_equal(find_mapping(fns[i], &start, &end, &off, path, sizeof(path)), 0);
        uint32_t m = pk_mapping_add(p, start, end, off, path, "");
        for (size_t k = 0; k < 8; k++)
            frames[8 * i + k] = addr_frame(p, fns[i] + 5 * k, m);
    }
    uint64_t seed = 12345;
    int64_t one = 1;
    for (size_t n = 0; n < 400; n++) {
        uint32_t st = 0;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        size_t depth = 1 + (size_t)(seed >> 60) % 6;
        for (size_t d = 0; d < depth; d++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            st = pk_stack_intern(p, st, frames[(seed >> 33) % 48]);
            assert_int_not_equal(st, PROFKIT_NONE);
            if ((seed >> 20) % 3 == 0) /* a sample on a caller too */
                assert_int_equal(pk_sample_add(p, st, t, &one), 0);
        }
        assert_int_equal(pk_sample_add(p, st, t, &one), 0);
    }
    return p;
}

/* The rebuilt stacks written in place (no depth limit) are those the
 * general way makes (a depth limit: every node through the model's
 * append), row for row, and every sample is on the same stack. */
static void in_place_rebuild_matches_the_general_one(void **state)
{
    (void)state;
    profkit_profile *a = mixed_stacks(0), *b = mixed_stacks(1000);
    profkit_symbolize_options o = mapped();
    profkit_error err;
    assert_true(profkit_profile_symbolize(a, &o, &err) > 0);
    assert_true(profkit_profile_symbolize(b, &o, &err) > 0);
    assert_true(a->n_stacks > 400);
    assert_int_equal(a->n_stacks, b->n_stacks);
    assert_int_equal(a->n_frames, b->n_frames);
    assert_memory_equal(a->stacks, b->stacks, a->n_stacks * sizeof(profkit_stack));
    assert_int_equal(a->n_samples, b->n_samples);
    assert_memory_equal(a->sample_stack, b->sample_stack, a->n_samples * sizeof(uint32_t));
    for (size_t f = 0; f < a->n_frames; f++) {
        char x[256], y[256];
        pk_frame_label(a, (uint32_t)f, 0, x, sizeof(x));
        pk_frame_label(b, (uint32_t)f, 0, y, sizeof(y));
        assert_string_equal(x, y);
    }
    assert_hash_consed(a);
    profkit_profile_free(a);
    profkit_profile_free(b);
}

/* The leaf name profkit gives addr (a function of a mapped library). */
static void leaf_name_of(uintptr_t addr, char *buf, size_t n, const profkit_profile **keep)
{
    uint64_t start, end, off;
    char path[800];
    assert_int_equal(find_mapping(addr, &start, &end, &off, path, sizeof(path)), 0);
    profkit_profile *p = profkit_profile_new();
    uint32_t m = pk_mapping_add(p, start, end, off, path, "");
    pk_value_type_add(p, "samples", "count");
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    int64_t one = 1;
    pk_sample_add(p, pk_stack_intern(p, 0, addr_frame(p, addr, m)), t, &one);
    profkit_symbolize_options o = mapped();
    profkit_error err;
    assert_int_equal(profkit_profile_symbolize(p, &o, &err), 1);
    pk_frame_label(p, p->stacks[p->sample_stack[0]].frame, 0, buf, n);
    *keep = p;
}

static void aliases_are_named_as_the_binary_exports_them(void **state)
{
    (void)state;
    /* glibc's functions have several names at one address: its debug file
     * (libc6-dbg) names them by internal aliases (DWARF linkage name and
     * .symtab locals __GI___pthread_self, __pthread_self, __GI___fstatat64,
     * __fstatat64); libc.so.6's .dynsym exports pthread_self, and both
     * fstatat and fstatat64 (same size), of which pprof's symbolizer shows
     * the last in the table, fstatat64. */
    char buf[128];
    const profkit_profile *p;
    leaf_name_of((uintptr_t)&pthread_self + 1, buf, sizeof(buf), &p);
    assert_string_equal(buf, "pthread_self");
    profkit_profile_free((profkit_profile *)p);
    leaf_name_of((uintptr_t)&fstatat + 1, buf, sizeof(buf), &p);
    assert_string_equal(buf, "fstatat64");
    /* With DWARF from the debug file, the line is still there. */
    const profkit_frame *fr = leaf_frame(p, 0);
    const char *file = pk_str(p, p->functions[fr->function].file);
    if (access("/usr/lib/debug/.build-id", F_OK) == 0) {
        assert_non_null(strstr(file, "fstatat64.c"));
        assert_true(fr->line > 0);
    }
    profkit_profile_free((profkit_profile *)p);
}

static void missing_binaries_leave_file_and_offset(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    pk_value_type_add(p, "samples", "count");
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    uint32_t m = pk_mapping_add(p, 0x400000, 0x500000, 0x2000, "/nonexistent/libgone.so", "");
    uint32_t f = addr_frame(p, 0x401000, m);
    int64_t one = 1;
    pk_sample_add(p, pk_stack_intern(p, 0, f), t, &one);
    const char *bins[] = { "/nonexistent/other/bin" };
    profkit_symbolize_options o = mapped();
    o.binaries = bins;
    o.n_binaries = 1;
    profkit_error err;
    assert_int_equal(profkit_profile_symbolize(p, &o, &err), 0);
    char buf[128];
    stack_label(p, 0, 0, buf, sizeof(buf));
    assert_string_equal(buf, "libgone.so+0x3000");
    assert_non_null(p->symbols);
    assert_int_equal(p->symbols->named, 0);
    assert_int_equal(p->symbols->n_files, 0);
    assert_int_equal(p->symbols->n_no_file, 1);
    assert_string_equal(p->symbols->no_file[0], "/nonexistent/libgone.so");
    /* A file that is not ELF. */
    const char *notelf[] = { "/etc/hostname" };
    profkit_symbolize_options o2 = mapped();
    o2.binaries = notelf;
    o2.n_binaries = 1;
    assert_int_equal(profkit_profile_symbolize(p, &o2, &err), 0);
    profkit_profile_free(p);
}

struct warnings {
    int n;
    char last[600];
};

static void count_warning(const profkit_error *w, void *payload)
{
    struct warnings *ws = payload;
    ws->n++;
    snprintf(ws->last, sizeof(ws->last), "%s: %s", w->file, w->message);
}

static void another_build_id_is_not_used(void **state)
{
    (void)state;
    uintptr_t fn = (uintptr_t)&pk_test_marker_function;
    uint64_t start, end, off;
    char path[800];
    assert_int_equal(find_mapping(fn, &start, &end, &off, path, sizeof(path)), 0);
    profkit_profile *p = profkit_profile_new();
    uint32_t m = pk_mapping_add(p, start, end, off, path, "00112233445566778899aabbccddeeff00112233");
    pk_value_type_add(p, "samples", "count");
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    int64_t one = 1;
    pk_sample_add(p, pk_stack_intern(p, 0, addr_frame(p, fn + 2, m)), t, &one);
    pk_sample_add(p, pk_stack_intern(p, 0, addr_frame(p, fn + 3, m)), t, &one);
    struct warnings ws = { 0, "" };
    profkit_symbolize_options o = mapped();
    o.on_warning = count_warning;
    o.payload = &ws;
    profkit_error err;
    assert_int_equal(profkit_profile_symbolize(p, &o, &err), 0);
    assert_int_equal(ws.n, 1); /* once, not per address */
    assert_non_null(strstr(ws.last, "00112233445566778899aabbccddeeff00112233"));
    assert_non_null(strstr(ws.last, "build id "));
    char buf[128];
    stack_label(p, 0, 0, buf, sizeof(buf));
    assert_string_not_equal(buf, "pk_test_marker_function");
    profkit_profile_free(p);
}

int pk_sym_build_id_matches(const char *profile_id, const char *file_id);

static void build_ids_match_in_hex_and_breakpad_form(void **state)
{
    (void)state;
    const char *elf = "b1d3a4c5e6f708192a3b4c5d6e7f8091a2b3c4d5";
    assert_true(pk_sym_build_id_matches(elf, elf));
    assert_true(pk_sym_build_id_matches("B1D3A4C5E6F708192A3B4C5D6E7F8091A2B3C4D5", elf));
    /* Breakpad: the first 16 bytes as a GUID (fields byte-swapped), age 0. */
    assert_true(pk_sym_build_id_matches("C5A4D3B1F7E619082A3B4C5D6E7F80910", elf));
    assert_false(pk_sym_build_id_matches("C5A4D3B1F7E619082A3B4C5D6E7F80920", elf));
    assert_false(pk_sym_build_id_matches("b1d3", elf));
}

int pk_demangle(const char *mangled, char *buf, size_t n);
int pk_demangle_mode_into(const char *mangled, int mode, char *buf, size_t n);

static void demangles_cxx_names(void **state)
{
    (void)state;
    char buf[256] = "untouched";
    assert_int_equal(pk_demangle("_ZN3foo3barEi", buf, sizeof(buf)), 1);
    assert_string_equal(buf, "foo::bar(int)");
    assert_int_equal(pk_demangle("main", buf, sizeof(buf)), 0);
    assert_int_equal(pk_demangle("_Znot-a-name", buf, sizeof(buf)), 0);
    assert_int_equal(pk_demangle("_ZN3foo3barEi", buf, 5), 1); /* truncated */
    assert_string_equal(buf, "foo:");
    /* short: no parameters, no template arguments (pprof's default) */
    assert_int_equal(pk_demangle_mode_into("_ZNSt6vectorIiSaIiEE9push_backERKi", 0, buf, sizeof(buf)), 1);
    assert_string_equal(buf, "std::vector::push_back");
    assert_int_equal(pk_demangle_mode_into("_ZNSt6vectorIiSaIiEE9push_backERKi", 1, buf, sizeof(buf)), 1);
    assert_string_equal(buf, "std::vector<int, std::allocator<int> >::push_back(int const&)");
    assert_int_equal(pk_demangle_mode_into("_ZNSt6vectorIiSaIiEE9push_backERKi", 2, buf, sizeof(buf)), 0);
    assert_int_equal(pk_demangle_mode_into("_ZN12_GLOBAL__N_13fooEv", 0, buf, sizeof(buf)), 1);
    assert_string_equal(buf, "(anonymous namespace)::foo");
    assert_int_equal(pk_demangle_mode_into("_ZN1AclEi", 0, buf, sizeof(buf)), 1);
    assert_string_equal(buf, "A::operator()");
    assert_int_equal(pk_demangle_mode_into("_ZN1AltERKS_", 0, buf, sizeof(buf)), 1);
    assert_string_equal(buf, "A::operator<");
    assert_int_equal(pk_demangle_mode_into("_ZNK1A3getEv", 0, buf, sizeof(buf)), 1);
    assert_string_equal(buf, "A::get");
    /* short: no return type (template functions print one), operator
     * names whole and without their template arguments (as Go pprof) */
    static const char *const shorts[][2] = {
        { "_ZSt21__unguarded_partitionIN9__gnu_cxx17__normal_iteratorIPiSt6vectorIiSaIiEEEENS0_5__ops15_Iter_less_iterEET_S9_S9_S9_T0_",
          "std::__unguarded_partition" },
        { "_ZNK9__gnu_cxx5__ops15_Iter_less_iterclINS_17__normal_iteratorIPiSt6vectorIiSaIiEEEES8_EEbT_T0_",
          "__gnu_cxx::__ops::_Iter_less_iter::operator()" },
        { "_ZN9__gnu_cxxmiIPiSt6vectorIiSaIiEEEENS_17__normal_iteratorIT_T0_E15difference_typeERKS8_SB_",
          "__gnu_cxx::operator-" },
        { "_ZSt4swapIiENSt9enable_ifIXsrSt6__and_IJSt6__not_ISt15__is_tuple_likeIT_EESt21is_move_constructibleIS4_ESt18is_move_assignableIS4_EEE5valueEvE4typeERS4_SE_",
          "std::swap" },
        { "_ZN1AltIiEEbRKS_", "A::operator<" },
        { "_ZN3foonwEm", "foo::operator new" },
        { "_ZN1AcvbEv", "A::operator bool" },
    };
    for (size_t i = 0; i < sizeof(shorts) / sizeof(shorts[0]); i++) {
        assert_int_equal(pk_demangle_mode_into(shorts[i][0], 0, buf, sizeof(buf)), 1);
        assert_string_equal(buf, shorts[i][1]);
    }
    /* legacy Rust: the trailing hash goes */
    assert_int_equal(pk_demangle_mode_into("_ZN4core3ptr13drop_in_place17h0123456789abcdefE", 0, buf,
                                                sizeof(buf)), 1);
    assert_string_equal(buf, "core::ptr::drop_in_place");
}

int main(void)
{
    if (pk_test_marker_function(1) != 4)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_a_function_of_this_binary),
        cmocka_unit_test(a_return_address_is_looked_up_one_byte_back),
        cmocka_unit_test(rebuilt_stacks_stay_hash_consed),
        cmocka_unit_test(in_place_rebuild_matches_the_general_one),
        cmocka_unit_test(aliases_are_named_as_the_binary_exports_them),
        cmocka_unit_test(missing_binaries_leave_file_and_offset),
        cmocka_unit_test(another_build_id_is_not_used),
        cmocka_unit_test(build_ids_match_in_hex_and_breakpad_form),
        cmocka_unit_test(demangles_cxx_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
