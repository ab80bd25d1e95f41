/* test_bsprof.c: the BrightScript profile reader and writer (docs/formats/bsprof.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <unistd.h>

#include "formats/bsprof/bsprof_reader.h"
#include "model/model.h"
#include "util/cursor.h"

/* ---- building streams ---- */

typedef struct buf {
    uint8_t d[1 << 14];
    size_t n;
} buf;

static void put(buf *b, const void *p, size_t n)
{
    assert_true(b->n + n <= sizeof(b->d));
    memcpy(b->d + b->n, p, n);
    b->n += n;
}
static void vi(buf *b, uint64_t v)
{
    uint8_t t[10];
    put(b, t, pk_varint_encode(t, v));
}
static void f32(buf *b, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    uint8_t t[4];
    pk_put_le32(t, bits);
    put(b, t, 4);
}
static void cstr(buf *b, const char *s) { put(b, s, strlen(s) + 1); }

/* A header with the given flags; pad extra bytes counted in its size. */
static void header(buf *b, int lines, int mem, size_t pad)
{
    static const char *const s[6] = { "App", "info", "9.8.7", "Roku", "3930X", "12.0" };
    size_t strings = 0;
    for (int i = 0; i < 6; i++)
        strings += strlen(s[i]) + 1;
    size_t size = 8 + 3 + 1 + 8 + 1 + 1 + 6 + strings + pad; /* start ts: 6 bytes */
    put(b, "bsprof\0\0", 8);
    vi(b, 3);
    vi(b, 1);
    vi(b, 4);
    vi(b, size);
    f32(b, 1.0f);
    f32(b, 0.25f);
    vi(b, (uint64_t)lines);
    vi(b, (uint64_t)mem);
    vi(b, 1700000000123ULL);
    for (int i = 0; i < 6; i++)
        cstr(b, s[i]);
    for (size_t i = 0; i < pad; i++)
        put(b, "\xee", 1);
    assert_int_equal(b->n, size);
}
static void str(buf *b, uint64_t id, const char *s)
{
    vi(b, id << 3);
    cstr(b, s);
}
static void module(buf *b, uint64_t id, uint64_t name)
{
    vi(b, (id << 3) | 1);
    vi(b, name);
}
static void root(buf *b, uint64_t id, uint64_t mod, uint64_t file, uint64_t line, uint64_t fn)
{
    vi(b, (id << 3) | 2);
    vi(b, 0);
    vi(b, mod);
    vi(b, file);
    vi(b, line);
    vi(b, fn);
}
/* off < 0: no line offset (the header says no line data). */
static void chained(buf *b, uint64_t id, uint64_t caller, int64_t off, uint64_t file, uint64_t line,
                    uint64_t fn)
{
    vi(b, (id << 3) | 2);
    vi(b, caller);
    if (off >= 0)
        vi(b, (uint64_t)off);
    vi(b, file);
    vi(b, line);
    vi(b, fn);
}
static void cpu(buf *b, uint64_t pe, int64_t off, uint64_t c, uint64_t w)
{
    vi(b, (pe << 3) | 4);
    if (off >= 0)
        vi(b, (uint64_t)off);
    vi(b, c);
    vi(b, w);
}
static void calls(buf *b, uint64_t pe, uint64_t n)
{
    vi(b, (pe << 3) | 5);
    vi(b, n);
}
/* op 0 alloc (with size), 1 free, 2 free_realloc. */
static void memop(buf *b, uint64_t pe, unsigned op, int64_t off, uint64_t addr, uint64_t size)
{
    vi(b, (pe << 5) | ((uint64_t)op << 3) | 3);
    if (off >= 0)
        vi(b, (uint64_t)off);
    vi(b, addr);
    if (op == 0)
        vi(b, size);
}
static void end(buf *b, uint64_t ts)
{
    vi(b, 0);
    vi(b, ts);
}

/* ---- reading ---- */

static unsigned n_warn;
static profkit_error last_warn;
static void on_warning(const profkit_error *w, void *payload)
{
    (void)payload;
    last_warn = *w;
    n_warn++;
}

/* Reads as the reports do: flags SKIP_INUSE and SKIP_LINES set the
 * profkit_read_options fields of those names. */
enum { SKIP_INUSE = 1, SKIP_LINES = 2 };
static int read_opts(profkit_profile **p, const void *d, size_t n, int strict, int skip,
                     profkit_error *err)
{
    profkit_read_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.format = "bsprof";
    ro.strict = strict;
    ro.skip_inuse = (skip & SKIP_INUSE) != 0;
    ro.skip_lines = (skip & SKIP_LINES) != 0;
    ro.on_warning = on_warning;
    n_warn = 0;
    return profkit_profile_read_memory(p, d, n, "t.bsprof", &ro, err);
}

static int read_buf(profkit_profile **p, const void *d, size_t n, int strict, profkit_error *err)
{
    return read_opts(p, d, n, strict, 0, err);
}

static profkit_profile *read_ok(const buf *b)
{
    profkit_profile *p;
    profkit_error err;
    int rc = read_buf(&p, b->d, b->n, 0, &err);
    if (rc)
        fail_msg("read failed: %s", err.message);
    return p;
}

static uint32_t vt(const profkit_profile *p, const char *name)
{
    uint32_t v = profkit_profile_find_value(p, name);
    assert_int_not_equal(v, PROFKIT_NONE);
    return v;
}

/* "root;...;leaf" of a stack with NAME:LINE labels. */
static void path_of(const profkit_profile *p, uint32_t s, char *out, size_t n)
{
    char parts[64][96];
    size_t depth = 0;
    for (; s && depth < 64; s = p->stacks[s].parent) {
        const profkit_frame *fr = &p->frames[p->stacks[s].frame];
        snprintf(parts[depth++], 96, "%s:%u", pk_str(p, p->functions[fr->function].name),
                 fr->line);
    }
    size_t used = 0;
    out[0] = 0;
    while (depth-- > 0)
        used += (size_t)snprintf(out + used, n - used, "%s%s", parts[depth], depth ? ";" : "");
}

/* The value `name` summed over rows of thread `th` (PROFKIT_NONE = all)
 * whose path is `path`. */
static int64_t value_at(const profkit_profile *p, const char *name, uint32_t th, const char *path)
{
    uint32_t v = vt(p, name);
    int64_t sum = 0;
    char buf[2048];
    for (size_t r = 0; r < p->n_samples; r++) {
        if (th != PROFKIT_NONE && p->sample_thread[r] != th)
            continue;
        path_of(p, p->sample_stack[r], buf, sizeof(buf));
        if (strcmp(buf, path) == 0)
            sum += p->sample_values[r * p->n_value_types + v];
    }
    return sum;
}

static int64_t total(const profkit_profile *p, const char *name)
{
    uint32_t v = vt(p, name);
    int64_t sum = 0;
    for (size_t r = 0; r < p->n_samples; r++)
        sum += p->sample_values[r * p->n_value_types + v];
    return sum;
}

/* Strings 1..6, modules 1 (Main) and 2 (Task), a chain main > load > parse
 * in Main and a root `load` in Task. */
static void common(buf *b, int lines)
{
    str(b, 1, "main.brs");
    str(b, 2, "main");
    str(b, 3, "load");
    str(b, 4, "parse");
    str(b, 5, "Main");
    str(b, 6, "Task");
    module(b, 1, 5);
    module(b, 2, 6);
    root(b, 1, 1, 1, 10, 2);
    chained(b, 2, 1, lines ? 4 : -1, 1, 30, 3);
    chained(b, 3, 2, lines ? 2 : -1, 1, 50, 4);
    root(b, 4, 2, 1, 30, 3);
}

/* ---- tests ---- */

static void header_fields_go_to_metadata(void **state)
{
    (void)state;
    buf b = { .n = 0 };
    header(&b, 0, 0, 3);
    end(&b, 1700000009999ULL);
    profkit_profile *p = read_ok(&b);
    assert_string_equal(p->format, "bsprof");
    assert_string_equal(pk_meta_get(p, "format_version"), "3.1.4");
    assert_string_equal(pk_meta_get(p, "requested_sample_ratio"), "1");
    assert_string_equal(pk_meta_get(p, "actual_sample_ratio"), "0.25");
    assert_string_equal(pk_meta_get(p, "line_data"), "0");
    assert_string_equal(pk_meta_get(p, "memory_data"), "0");
    assert_string_equal(pk_meta_get(p, "start_timestamp_ms"), "1700000000123");
    assert_string_equal(pk_meta_get(p, "end_timestamp_ms"), "1700000009999");
    assert_string_equal(pk_meta_get(p, "target_name"), "App");
    assert_string_equal(pk_meta_get(p, "supplemental_info"), "info");
    assert_string_equal(pk_meta_get(p, "target_version"), "9.8.7");
    assert_string_equal(pk_meta_get(p, "device_vendor"), "Roku");
    assert_string_equal(pk_meta_get(p, "device_model"), "3930X");
    assert_string_equal(pk_meta_get(p, "device_firmware"), "12.0");
    assert_int_equal(p->n_value_types, 8);
    assert_string_equal(pk_str(p, p->value_types[p->default_value].type), "cpu");
    assert_string_equal(pk_str(p, p->value_types[vt(p, "cpu")].unit), "microseconds");
    assert_string_equal(pk_str(p, p->value_types[vt(p, "inuse_space")].unit), "bytes");
    assert_int_equal(n_warn, 0);
    profkit_profile_free(p);
}

static void entries_with_line_data(void **state)
{
    (void)state;
    buf b = { .n = 0 };
    header(&b, 1, 1, 0);
    common(&b, 1);
    cpu(&b, 3, 3, 100, 150);  /* parse at 50 + 3 - 1 */
    cpu(&b, 3, 3, 20, 30);    /* increments add up */
    cpu(&b, 3, 1, 7, 8);      /* another line of the same function */
    cpu(&b, 1, 2, 5, 6);
    cpu(&b, 4, 5, 40, 41);    /* Task thread */
    calls(&b, 3, 9);
    end(&b, 0);
    profkit_profile *p = read_ok(&b);
    assert_int_equal(p->n_threads, 2);
    assert_string_equal(pk_str(p, p->threads[0].name), "Main");
    assert_string_equal(pk_str(p, p->threads[1].name), "Task");
    /* Callers' lines come from the callee's offset in its caller:
     * main 10 + 4 - 1 = 13, load 30 + 2 - 1 = 31. */
    assert_int_equal(value_at(p, "cpu", 0, "main:13;load:31;parse:52"), 120);
    assert_int_equal(value_at(p, "wall", 0, "main:13;load:31;parse:52"), 180);
    assert_int_equal(value_at(p, "cpu", 0, "main:13;load:31;parse:50"), 7);
    assert_int_equal(value_at(p, "cpu", 0, "main:11"), 5);
    assert_int_equal(value_at(p, "cpu", 1, "load:34"), 40);
    /* A call count has no offset: the function's definition line. */
    assert_int_equal(value_at(p, "calls", 0, "main:13;load:31;parse:50"), 9);
    assert_int_equal(total(p, "cpu"), 172);
    assert_int_equal(total(p, "calls"), 9);
    assert_int_equal(total(p, "alloc_objects"), 0);
    assert_int_equal(n_warn, 0);
    size_t rows_with_lines = p->n_samples;
    profkit_profile_free(p);

    /* With skip_lines (reports keyed by function or file) every frame has
     * its function's definition line: the lines of one function merge,
     * and the stream is read the same otherwise. */
    profkit_error err;
    assert_int_equal(read_opts(&p, b.d, b.n, 0, SKIP_LINES, &err), 0);
    assert_int_equal(value_at(p, "cpu", 0, "main:10;load:30;parse:50"), 127);
    assert_int_equal(value_at(p, "wall", 0, "main:10;load:30;parse:50"), 188);
    assert_int_equal(value_at(p, "calls", 0, "main:10;load:30;parse:50"), 9);
    assert_int_equal(value_at(p, "cpu", 0, "main:10"), 5);
    assert_int_equal(value_at(p, "cpu", 1, "load:30"), 40);
    assert_int_equal(total(p, "cpu"), 172);
    assert_int_equal(total(p, "calls"), 9);
    assert_true(p->n_samples < rows_with_lines);
    assert_string_equal(pk_meta_get(p, "line_data"), "1");
    profkit_profile_free(p);
}

static void entries_without_line_data(void **state)
{
    (void)state;
    buf b = { .n = 0 };
    header(&b, 0, 0, 0);
    common(&b, 0);
    cpu(&b, 3, -1, 100, 150);
    cpu(&b, 2, -1, 10, 11);
    calls(&b, 2, 3);
    end(&b, 0);
    profkit_profile *p = read_ok(&b);
    /* Without line data every frame sits at its definition line. */
    assert_int_equal(value_at(p, "cpu", 0, "main:10;load:30;parse:50"), 100);
    assert_int_equal(value_at(p, "cpu", 0, "main:10;load:30"), 10);
    assert_int_equal(value_at(p, "calls", 0, "main:10;load:30"), 3);
    assert_int_equal(value_at(p, "wall", PROFKIT_NONE, "main:10;load:30;parse:50"), 150);
    const profkit_function *fn = &p->functions[p->frames[p->stacks[p->sample_stack[0]].frame].function];
    assert_string_equal(pk_str(p, fn->file), "main.brs");
    profkit_profile_free(p);
}

static void memory_operations(void **state)
{
    (void)state;
    buf b = { .n = 0 };
    header(&b, 1, 1, 0);
    common(&b, 1);
    memop(&b, 3, 0, 1, 0x1000, 64);  /* parse:50 */
    memop(&b, 3, 0, 1, 0x2000, 100);
    memop(&b, 2, 1, 2, 0x1000, 0);   /* freed at load:31 */
    memop(&b, 3, 2, 1, 0x2000, 0);   /* free_realloc ... */
    memop(&b, 3, 0, 1, 0x3000, 300); /* ... and its new block */
    memop(&b, 2, 0, 1, 0x1000, 8);   /* address reuse: a new live block */
    memop(&b, 4, 1, 1, 0xdead, 0);   /* never allocated */
    memop(&b, 4, 1, 1, 0xbeef, 0);
    memop(&b, 4, 0, 1, 0x5000, 5);   /* Task, freed twice: once matched */
    memop(&b, 4, 1, 1, 0x5000, 0);
    memop(&b, 4, 1, 1, 0x5000, 0);
    end(&b, 0);
    profkit_profile *p = read_ok(&b);
    const char *parse = "main:13;load:31;parse:50";
    assert_int_equal(value_at(p, "alloc_objects", 0, parse), 3);
    assert_int_equal(value_at(p, "alloc_space", 0, parse), 464);
    assert_int_equal(value_at(p, "inuse_objects", 0, parse), 1);
    assert_int_equal(value_at(p, "inuse_space", 0, parse), 300);
    assert_int_equal(value_at(p, "free_objects", 0, parse), 1);
    assert_int_equal(value_at(p, "free_objects", 0, "main:13;load:31"), 1);
    assert_int_equal(value_at(p, "inuse_space", 0, "main:13;load:30"), 8);
    assert_int_equal(value_at(p, "free_objects", 1, "load:30"), 4);
    assert_int_equal(value_at(p, "inuse_objects", 1, "load:30"), 0);
    assert_int_equal(total(p, "alloc_objects"), 5);
    assert_int_equal(total(p, "inuse_objects"), 2);
    assert_int_equal(total(p, "free_objects"), 6);
    /* Three frees matched nothing: one warning, at the first of them. */
    assert_string_equal(pk_meta_get(p, "unmatched_frees"), "3");
    assert_int_equal(n_warn, 1);
    assert_int_equal(last_warn.code, PROFKIT_ECORRUPT);
    assert_non_null(strstr(last_warn.message, "3 frees matched no live allocation"));
    profkit_profile_free(p);

    /* --strict makes that warning an error. */
    profkit_error err;
    assert_int_equal(read_buf(&p, b.d, b.n, 1, &err), PROFKIT_ECORRUPT);
    assert_null(p);

    /* With skip_inuse (reports that show no inuse_* value) frees are not
     * matched: every other value is the same, inuse_* are 0, and nothing
     * is said about frees that matched nothing, even with --strict. */
    profkit_profile *full = read_ok(&b);
    assert_int_equal(read_opts(&p, b.d, b.n, 1, SKIP_INUSE, &err), 0);
    assert_int_equal(n_warn, 0);
    assert_null(pk_meta_get(p, "unmatched_frees"));
    assert_int_equal(total(p, "inuse_objects"), 0);
    assert_int_equal(total(p, "inuse_space"), 0);
    static const char *const same[] = { "cpu", "wall", "calls", "alloc_objects", "alloc_space",
                                        "free_objects" };
    for (size_t v = 0; v < sizeof(same) / sizeof(same[0]); v++) {
        assert_int_equal(total(p, same[v]), total(full, same[v]));
        assert_int_equal(value_at(p, same[v], 0, parse), value_at(full, same[v], 0, parse));
        assert_int_equal(value_at(p, same[v], 1, "load:30"), value_at(full, same[v], 1, "load:30"));
    }
    profkit_profile_free(full);
    profkit_profile_free(p);

    /* skip_lines: memory operations too land at definition lines; the
     * allocation at load:31 and the one at load:30 are one row. */
    assert_int_equal(read_opts(&p, b.d, b.n, 0, SKIP_LINES, &err), 0);
    const char *parse0 = "main:10;load:30;parse:50";
    assert_int_equal(value_at(p, "alloc_objects", 0, parse0), 3);
    assert_int_equal(value_at(p, "alloc_space", 0, parse0), 464);
    assert_int_equal(value_at(p, "inuse_space", 0, parse0), 300);
    assert_int_equal(value_at(p, "free_objects", 0, parse0), 1);
    assert_int_equal(value_at(p, "free_objects", 0, "main:10;load:30"), 1);
    assert_int_equal(value_at(p, "inuse_space", 0, "main:10;load:30"), 8);
    assert_int_equal(value_at(p, "free_objects", 1, "load:30"), 4);
    assert_string_equal(pk_meta_get(p, "unmatched_frees"), "3");
    profkit_profile_free(p);
}

/* The warning about frees that matched nothing names the first one's byte
 * offset, also when the fast decoders read it (in the middle of a long run
 * of data entries, so that the run fills several batches), with path
 * elements in order and not. */
static void first_unmatched_free_offset(void **state)
{
    (void)state;
    for (int in_order = 1; in_order >= 0; in_order--) {
        static buf b;
        b.n = 0;
        header(&b, 1, 1, 0);
        common(&b, 1);
        if (!in_order) /* id 9 after 4: no longer in order */
            chained(&b, 9, 4, 0, 1, 80, 2);
        for (uint64_t i = 0; i < 300; i++) {
            memop(&b, 3, 0, 1, 0x1000 + 16 * i, 8);
            memop(&b, 3, 1, 1, 0x1000 + 16 * i, 0);
        }
        size_t at = b.n;
        memop(&b, 3, 1, 1, 0xdead0, 0); /* never allocated */
        for (uint64_t i = 0; i < 300; i++)
            memop(&b, 3, 1, 1, 0x1000 + 16 * i, 0); /* freed already */
        end(&b, 0);
        profkit_profile *p = read_ok(&b);
        assert_string_equal(pk_meta_get(p, "unmatched_frees"), "301");
        assert_int_equal(n_warn, 1);
        assert_true(last_warn.has_offset);
        assert_int_equal(last_warn.offset, at);
        profkit_profile_free(p);
    }
}

/* Sizes of 2^31 and more live beside the live table's slots: each must come
 * back exactly, also after frees, replacement at the same address and the
 * table's growth. */
static void large_sizes_and_many_allocations(void **state)
{
    (void)state;
    static buf b;
    b.n = 0;
    header(&b, 1, 1, 0);
    common(&b, 1);
    const uint64_t huge = (uint64_t)1 << 40, two31 = (uint64_t)1 << 31;
    memop(&b, 3, 0, 1, 0x1000, huge);      /* freed: its side entry is reused */
    memop(&b, 3, 0, 1, 0x2000, two31);     /* replaced by a small one */
    memop(&b, 3, 1, 1, 0x1000, 0);
    memop(&b, 3, 0, 1, 0x2000, 7);
    memop(&b, 3, 0, 1, 0x3000, two31 - 1); /* the largest inline size */
    memop(&b, 3, 0, 1, 0x4000, huge + 3);  /* live at the end */
    memop(&b, 3, 0, 1, 0x5000, UINT64_MAX >> 1);
    memop(&b, 3, 1, 1, 0x5000, 0);
    /* Enough live allocations to grow the table several times; every other
     * one freed again. */
    for (uint64_t i = 0; i < 800; i++)
        memop(&b, 2, 0, 1, 0x100000 + 16 * i, i % 2 ? two31 + i : i);
    for (uint64_t i = 0; i < 800; i += 2)
        memop(&b, 2, 1, 1, 0x100000 + 16 * i, 0);
    end(&b, 0);
    profkit_profile *p = read_ok(&b);
    const char *parse = "main:13;load:31;parse:50";
    assert_int_equal(value_at(p, "inuse_objects", 0, parse), 3);
    assert_int_equal(value_at(p, "inuse_space", 0, parse), (int64_t)(7 + two31 - 1 + huge + 3));
    int64_t odd = 0;
    for (uint64_t i = 1; i < 800; i += 2)
        odd += (int64_t)(two31 + i);
    assert_int_equal(value_at(p, "inuse_objects", 0, "main:13;load:30"), 400);
    assert_int_equal(value_at(p, "inuse_space", 0, "main:13;load:30"), odd);
    assert_int_equal(value_at(p, "free_objects", 0, "main:13;load:30"), 400);
    assert_string_equal(pk_meta_get(p, "unmatched_frees"), "0");
    profkit_profile_free(p);
}

/* Appends b's bytes to big[*n]. */
static void append(uint8_t *big, size_t cap, size_t *n, const buf *b)
{
    assert_true(*n + b->n <= cap);
    memcpy(big + *n, b->d, b->n);
    *n += b->n;
}

/*
 * The reader counts memory operations in its row cache (16-bit counts and
 * a 32-bit byte sum per cached row) and moves them into the rows when a
 * count would overflow, a cached row is replaced or the file ends: every
 * one of those must keep the sums exact.
 */
static void memory_counts_past_the_row_cache(void **state)
{
    (void)state;
    static uint8_t big[1 << 20];
    static buf b;
    size_t n = 0;
    b.n = 0;
    header(&b, 1, 1, 0);
    common(&b, 1);
    append(big, sizeof(big), &n, &b);
    /* 70,000 frees matching nothing and 70,000 allocations replacing one
     * another (100,000 bytes each: 7e9 bytes in all), at parse line 50. */
    for (int i = 0; i < 70; i++) {
        b.n = 0;
        for (int j = 0; j < 1000; j++) {
            memop(&b, 3, 1, 1, 0x10, 0);
            memop(&b, 3, 0, 1, 0x20, 100000);
        }
        append(big, sizeof(big), &n, &b);
    }
    b.n = 0;
    /* Sizes over 32 bits, counted in the value row directly. */
    for (int j = 0; j < 3; j++)
        memop(&b, 3, 0, 1, 0x30 + 16 * (uint64_t)j, 5000000000u);
    /* Six line offsets of `load` taking turns in four cache slots: each
     * new one replaces a slot whose counts must reach their row first. */
    for (uint64_t i = 0; i < 600; i++)
        memop(&b, 2, i % 5 == 4 ? 1 : 0, (int64_t)(1 + i % 6), 0x100000 + 16 * i, i);
    end(&b, 0);
    append(big, sizeof(big), &n, &b);

    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_buf(&p, big, n, 0, &err), 0);
    const char *parse = "main:13;load:31;parse:50";
    assert_int_equal(value_at(p, "free_objects", 0, parse), 70000);
    assert_int_equal(value_at(p, "alloc_objects", 0, parse), 70003);
    assert_int_equal(value_at(p, "alloc_space", 0, parse), (int64_t)70000 * 100000 + 15000000000);
    assert_int_equal(value_at(p, "inuse_objects", 0, parse), 4);
    assert_int_equal(value_at(p, "inuse_space", 0, parse), 100000 + 15000000000);
    /* and the 120 frees below of addresses never allocated */
    assert_string_equal(pk_meta_get(p, "unmatched_frees"), "70120");
    for (int off = 1; off <= 6; off++) {
        char path[64];
        snprintf(path, sizeof(path), "main:13;load:%d", 30 + off - 1);
        int64_t allocs = 0, frees = 0, space = 0;
        for (uint64_t i = (uint64_t)off - 1; i < 600; i += 6) {
            frees += i % 5 == 4;
            allocs += i % 5 != 4;
            space += i % 5 != 4 ? (int64_t)i : 0;
        }
        assert_int_equal(value_at(p, "alloc_objects", 0, path), allocs);
        assert_int_equal(value_at(p, "free_objects", 0, path), frees);
        assert_int_equal(value_at(p, "alloc_space", 0, path), space);
    }
    profkit_profile_free(p);

    /* The same through the fast path with skip_lines: one row per path. */
    assert_int_equal(read_opts(&p, big, n, 0, SKIP_LINES, &err), 0);
    const char *parse0 = "main:10;load:30;parse:50";
    assert_int_equal(value_at(p, "free_objects", 0, parse0), 70000);
    assert_int_equal(value_at(p, "alloc_space", 0, parse0), (int64_t)70000 * 100000 + 15000000000);
    int64_t allocs = 0, space = 0;
    for (uint64_t i = 0; i < 600; i++) {
        allocs += i % 5 != 4;
        space += i % 5 != 4 ? (int64_t)i : 0;
    }
    assert_int_equal(value_at(p, "alloc_objects", 0, "main:10;load:30"), allocs);
    assert_int_equal(value_at(p, "free_objects", 0, "main:10;load:30"), 600 - allocs);
    assert_int_equal(value_at(p, "alloc_space", 0, "main:10;load:30"), space);
    profkit_profile_free(p);
}

/*
 * The reports' options change what is kept, never what is accepted: a line
 * offset over 32 bits is an error, at the same offset, whether frames keep
 * lines or not, wherever in the buffer it is (fast or checked path).
 */
static void report_options_keep_errors(void **state)
{
    (void)state;
    for (int where = 0; where < 2; where++) {
        static buf b;
        b.n = 0;
        header(&b, 1, 1, 0);
        common(&b, 1);
        for (int i = 0; i < 30; i++)
            cpu(&b, 3, 1, 1, 1);
        size_t at = b.n;
        if (where == 0) { /* with 64 bytes after it: the fast path sees it first */
            memop(&b, 3, 0, (int64_t)1 << 33, 0x1000, 8);
            for (int i = 0; i < 30; i++)
                cpu(&b, 3, 1, 1, 1);
        } else { /* the last entry: only the checked path reads it */
            cpu(&b, 3, (int64_t)1 << 33, 1, 1);
        }
        end(&b, 0);
        profkit_error e0, e1;
        profkit_profile *p = NULL;
        assert_int_equal(read_buf(&p, b.d, b.n, 0, &e0), PROFKIT_ECORRUPT);
        assert_int_equal(read_opts(&p, b.d, b.n, 0, SKIP_INUSE | SKIP_LINES, &e1),
                         PROFKIT_ECORRUPT);
        assert_null(p);
        assert_string_equal(e0.message, e1.message);
        assert_int_equal(e0.offset, e1.offset);
        assert_int_equal(e1.offset, at + 1); /* the field after the 1-byte tag */
        assert_non_null(strstr(e1.message, "line offset"));
    }
}

/* One special entry for fast_path_defers_to_checked_path. */
static void special_entry(buf *b, int kind, int lines)
{
    int64_t off = lines ? 1 : -1;
    switch (kind) {
    /* errors */
    case 0: vi(b, (3 << 5) | (3 << 3) | 3); vi(b, 1); vi(b, 0x100); break; /* operation 3 */
    case 1: cpu(b, 9, off, 1, 1); break;                                    /* undefined */
    case 2: calls(b, 1ULL << 32, 1); break;                                 /* id > 32 bits */
    case 3: memop(b, 1ULL << 32, 1, off, 0x100, 0); break;                  /* tag bit 37 */
    case 4: cpu(b, 2, lines ? (int64_t)1 << 32 : -1, 1, 1); break;          /* offset > 32 bits */
    case 5:                                                                 /* 11-byte varint */
        vi(b, (2 << 3) | 4);
        if (lines)
            vi(b, 1);
        put(b, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
        vi(b, 1);
        break;
    case 6: vi(b, 6); break; /* type 6 */
    /* valid, but not for the fast path */
    case 7: cpu(b, 2, off, UINT64_MAX >> 1, 3); break;           /* 9- and 10-byte values */
    case 8: memop(b, 3, 0, off, (uint64_t)1 << 60, 77); break;   /* 9-byte address */
    case 9: calls(b, 1000000, 5); break;                         /* sparse path element id */
    case 10: cpu(b, 2, lines ? 70000 : -1, 4, 4); break;         /* a 3-byte line offset */
    case 11: put(b, "\x94\x80\x80\x00", 4); /* CPU of element 2, tag padded to 4 bytes */
        if (lines)
            vi(b, 1);
        vi(b, 6);
        vi(b, 6);
        break;
    }
}

/* The fast decoder leaves every entry it does not take to the checked one,
 * with 64 or more bytes after it: errors must name the same offset with
 * the same message, and valid entries must count the same, as when the
 * entry is the last one in the input (where only the checked path runs). */
static void fast_path_defers_to_checked_path(void **state)
{
    (void)state;
    static buf x, y;
    for (int lines = 0; lines < 2; lines++)
        for (int kind = 0; kind < 12; kind++) {
            buf *bb[2] = { &x, &y };
            for (int v = 0; v < 2; v++) {
                buf *b = bb[v];
                b->n = 0;
                header(b, lines, 1, 0);
                common(b, lines);
                root(b, 1000000, 2, 1, 40, 4); /* a sparse id */
                for (int k = 0; k < 30; k++)
                    memop(b, 3, 0, lines ? 1 + k % 3 : -1, 0x1000 + 16 * (uint64_t)k, 10);
                if (v == 0)
                    special_entry(b, kind, lines);
                for (int k = 0; k < 30; k++)
                    cpu(b, 2, lines ? 2 : -1, 1, 2);
                if (v == 1)
                    special_entry(b, kind, lines);
                end(b, 0);
            }
            profkit_profile *p, *q;
            profkit_error ex, ey;
            int rx = read_buf(&p, x.d, x.n, 0, &ex);
            int bad = kind <= 6 && !(kind == 4 && !lines); /* no offset without line data */
            if (bad) {
                /* y has the bad entry after the CPU entries: its offset moves */
                size_t shift = 30 * (lines ? 4 : 3);
                int ry = read_buf(&q, y.d, y.n, 0, &ey);
                assert_int_equal(rx, PROFKIT_ECORRUPT);
                assert_int_equal(ry, rx);
                assert_int_equal(ex.offset + (int64_t)shift, ey.offset);
                if (strcmp(ex.message, ey.message) != 0)
                    fail_msg("lines %d kind %d: '%s' vs '%s'", lines, kind, ex.message, ey.message);
                continue;
            }
            if (rx)
                fail_msg("lines %d kind %d: %s", lines, kind, ex.message);
            q = read_ok(&y);
            static const char *const names[] = { "cpu", "wall", "calls", "alloc_objects",
                                                 "alloc_space", "free_objects", "inuse_objects",
                                                 "inuse_space" };
            for (int v = 0; v < 8; v++)
                if (total(p, names[v]) != total(q, names[v]))
                    fail_msg("lines %d kind %d: %s %lld vs %lld", lines, kind, names[v],
                             (long long)total(p, names[v]), (long long)total(q, names[v]));
            profkit_profile_free(p);
            profkit_profile_free(q);
        }
}

/* The fast path with path elements numbered in order, then after a
 * redefinition (no longer in order), then with an element defined out of
 * order: each entry counts at the element its id names at that point. */
static void fast_path_follows_redefinitions(void **state)
{
    (void)state;
    static buf b;
    b.n = 0;
    header(&b, 0, 0, 0);
    common(&b, 0);
    for (int k = 0; k < 40; k++)
        cpu(&b, 3, -1, 1, 1);
    chained(&b, 3, 1, -1, 1, 70, 4); /* element 3 again: now under main */
    for (int k = 0; k < 40; k++)
        cpu(&b, 3, -1, 2, 2);
    chained(&b, 9, 4, -1, 1, 80, 2); /* id 9 after 4: out of order */
    for (int k = 0; k < 40; k++)
        cpu(&b, 9, -1, 3, 3);
    for (int k = 0; k < 40; k++)
        cpu(&b, 2, -1, 4, 4);
    end(&b, 0);
    profkit_profile *p = read_ok(&b);
    assert_int_equal(value_at(p, "cpu", 0, "main:10;load:30;parse:50"), 40);
    assert_int_equal(value_at(p, "cpu", 0, "main:10;parse:70"), 80);
    assert_int_equal(value_at(p, "cpu", 1, "load:30;main:80"), 120);
    assert_int_equal(value_at(p, "cpu", 0, "main:10;load:30"), 160);
    profkit_profile_free(p);
}

/* An id defined while it was too large for the dense array stays defined
 * when the array later grows over it. */
static void sparse_id_covered_later(void **state)
{
    (void)state;
    static buf b;
    b.n = 0;
    header(&b, 0, 0, 0);
    str(&b, 9000, "late");
    for (uint64_t i = 1; i <= 2500; i++)
        str(&b, i, "s");
    str(&b, 8200, "grows the array over 9000");
    module(&b, 1, 1);
    root(&b, 1, 1, 1, 10, 9000);
    cpu(&b, 1, -1, 5, 5);
    end(&b, 0);
    profkit_profile *p = read_ok(&b);
    assert_int_equal(value_at(p, "cpu", 0, "late:10"), 5);
    profkit_profile_free(p);
}

static void redefinition_warns_and_later_wins(void **state)
{
    (void)state;
    buf b = { .n = 0 };
    header(&b, 0, 0, 0);
    common(&b, 0);
    cpu(&b, 3, -1, 1, 1);
    str(&b, 4, "parse2");            /* the string again */
    chained(&b, 3, 1, -1, 1, 70, 4); /* element 3 again: now under main */
    cpu(&b, 3, -1, 2, 2);
    end(&b, 0);
    profkit_profile *p = read_ok(&b);
    assert_int_equal(n_warn, 2);
    assert_int_equal(value_at(p, "cpu", 0, "main:10;load:30;parse:50"), 1);
    assert_int_equal(value_at(p, "cpu", 0, "main:10;parse2:70"), 2);
    profkit_profile_free(p);
}

/* Builds a stream and records, after each entry, the offset and the cpu sum
 * so far, so a cut can be checked against what complete entries hold. */
static void cut_everywhere(void **state)
{
    (void)state;
    for (int lines = 0; lines <= 1; lines++) {
        buf b = { .n = 0 };
        size_t bound[32], nb = 0;
        int64_t cpu_at[32];
        header(&b, lines, 1, 0);
        size_t hdr = b.n;
        common(&b, lines);
        bound[nb] = b.n;
        cpu_at[nb++] = 0;
        int64_t sum = 0;
        for (int i = 1; i <= 6; i++) {
            cpu(&b, (uint64_t)(i % 4 + 1), lines ? i : -1, (uint64_t)(i * 1000), 1);
            sum += i * 1000;
            bound[nb] = b.n;
            cpu_at[nb++] = sum;
            memop(&b, 3, 0, lines ? 1 : -1, (uint64_t)(0x100 * i), (uint64_t)i);
            bound[nb] = b.n;
            cpu_at[nb++] = sum;
        }
        end(&b, 77);
        for (size_t n = 0; n <= b.n; n++) {
            profkit_profile *p;
            profkit_error err;
            int rc = read_buf(&p, b.d, n, 0, &err);
            if (n < hdr) {
                assert_int_not_equal(rc, 0);
                assert_null(p);
                continue;
            }
            assert_int_equal(rc, 0);
            /* The cpu of every entry that ended before the cut is kept. */
            int64_t want = 0;
            for (size_t k = 0; k < nb; k++)
                if (bound[k] <= n)
                    want = cpu_at[k];
            assert_int_equal(total(p, "cpu"), want);
            if (n < b.n) {
                assert_int_equal(n_warn, 1);
                assert_int_equal(last_warn.code, PROFKIT_ETRUNCATED);
                assert_true(last_warn.has_offset);
            } else {
                assert_int_equal(n_warn, 0);
            }
            profkit_profile_free(p);
            if (n < b.n) {
                assert_int_equal(read_buf(&p, b.d, n, 1, &err), PROFKIT_ETRUNCATED);
                assert_null(p);
            }
        }
    }
}

static void errors_name_offset(void **state)
{
    (void)state;
    struct {
        int kind;
        int code;
        const char *text;
    } cases[] = {
        { 0, PROFKIT_ECORRUPT, "entry type 6 is reserved" },
        { 1, PROFKIT_ECORRUPT, "entry type 7 is reserved" },
        { 2, PROFKIT_ECORRUPT, "operation 3 is not alloc" },
        { 3, PROFKIT_ECORRUPT, "CPU entry: path element 9 is not defined" },
        { 4, PROFKIT_ECORRUPT, "call count entry: path element id 4294967296 does not fit 32 bits" },
        { 5, PROFKIT_ECORRUPT, "module entry: name string id 99 is not defined" },
        { 6, PROFKIT_ECORRUPT, "memory operation entry: path element 7 is not defined" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        buf b = { .n = 0 };
        header(&b, 0, 1, 0);
        common(&b, 0);
        size_t at = b.n;
        switch (cases[i].kind) {
        case 0: vi(&b, 6); break;
        case 1: vi(&b, 15); break;
        case 2: vi(&b, (3 << 5) | (3 << 3) | 3); vi(&b, 1); break;
        case 3: cpu(&b, 9, -1, 1, 1); break;
        case 4: calls(&b, 1ULL << 32, 1); break;
        case 5: module(&b, 3, 99); at += 1; break;
        case 6: memop(&b, 7, 1, -1, 1, 0); break;
        }
        end(&b, 0);
        profkit_profile *p;
        profkit_error err;
        assert_int_equal(read_buf(&p, b.d, b.n, 0, &err), cases[i].code);
        assert_null(p);
        assert_true(err.has_offset);
        assert_int_equal(err.offset, at);
        if (!strstr(err.message, cases[i].text))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.message, cases[i].text);
    }
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every row as "thread|path|v0,...,v7", sorted, for comparing profiles. */
static char *canonical(const profkit_profile *p)
{
    size_t cap = 1 << 16, used = 0;
    char *out = malloc(cap);
    char **lines = calloc(p->n_samples + 1, sizeof(char *));
    char path[2048];
    for (size_t r = 0; r < p->n_samples; r++) {
        path_of(p, p->sample_stack[r], path, sizeof(path));
        char line[4096];
        int n = snprintf(line, sizeof(line), "%s|%s|", pk_str(p, p->threads[p->sample_thread[r]].name),
                         path);
        static const char *const names[8] = { "cpu", "wall", "calls", "alloc_objects", "alloc_space",
                                              "free_objects", "inuse_objects", "inuse_space" };
        for (int v = 0; v < 8; v++)
            n += snprintf(line + n, sizeof(line) - (size_t)n, "%lld,",
                          (long long)p->sample_values[r * p->n_value_types + vt(p, names[v])]);
        lines[r] = strdup(line);
    }
    qsort(lines, p->n_samples, sizeof(char *), cmp_line);
    for (size_t r = 0; r < p->n_samples; r++) {
        size_t n = strlen(lines[r]);
        while (used + n + 2 > cap)
            out = realloc(out, cap *= 2);
        memcpy(out + used, lines[r], n);
        used += n;
        out[used++] = '\n';
        free(lines[r]);
    }
    out[used] = 0;
    free(lines);
    return out;
}

static profkit_profile *write_and_read(const profkit_profile *p)
{
    char path[] = "/tmp/test_bsprof_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    profkit_write_options wo;
    memset(&wo, 0, sizeof(wo));
    wo.format = "bsprof";
    profkit_error err;
    if (profkit_profile_write_file(p, path, &wo, &err) != 0)
        fail_msg("write: %s", err.message);
    profkit_profile *q;
    profkit_read_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.on_warning = on_warning;
    n_warn = 0;
    if (profkit_profile_read_file(&q, path, &ro, &err) != 0) /* detected by its magic */
        fail_msg("read back: %s", err.message);
    unlink(path);
    return q;
}

static void round_trip_bsprof(void **state)
{
    (void)state;
    for (int lines = 0; lines <= 1; lines++) {
        buf b = { .n = 0 };
        header(&b, lines, 1, 0);
        common(&b, lines);
        int64_t o = lines ? 1 : -1;
        cpu(&b, 3, lines ? 3 : -1, 100, 150);
        cpu(&b, 3, o, 7, 8);
        cpu(&b, 4, lines ? 5 : -1, 40, 41);
        calls(&b, 3, 9);
        calls(&b, 1, 1);
        memop(&b, 3, 0, o, 0x1000, 64);
        memop(&b, 3, 0, o, 0x2000, 100);
        memop(&b, 2, 1, lines ? 2 : -1, 0x1000, 0);
        memop(&b, 4, 0, o, 0x3000, 30);
        memop(&b, 4, 1, o, 0x9999, 0);
        end(&b, 1700000001000ULL);
        profkit_profile *p = read_ok(&b);
        profkit_profile *q = write_and_read(p);
        char *a = canonical(p), *c = canonical(q);
        assert_string_equal(a, c);
        assert_string_equal(pk_meta_get(q, "line_data"), lines ? "1" : "0");
        assert_string_equal(pk_meta_get(q, "memory_data"), "1");
        assert_string_equal(pk_meta_get(q, "format_version"), "3.1.4");
        assert_string_equal(pk_meta_get(q, "target_name"), "App");
        assert_string_equal(pk_meta_get(q, "end_timestamp_ms"), "1700000001000");
        assert_string_equal(pk_meta_get(q, "unmatched_frees"), "1");
        free(a);
        free(c);
        profkit_profile_free(p);
        profkit_profile_free(q);
    }
}

/* A profile from elsewhere: nanoseconds become microseconds, frame lines
 * survive through line data, a thread-less row gets the module "main". */
static void write_foreign_profile(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    uint32_t cpu_ns = pk_value_type_add(p, "cpu", "nanoseconds");
    uint32_t t = pk_thread_add(p, "worker", "", 1, 2);
    uint32_t f1 = pk_function_add_named(p, "outer", "a.c", "", 5);
    uint32_t f2 = pk_function_add_named(p, "inner", "a.c", "", 20);
    profkit_frame fr = { 0, f1, 7, 0, PROFKIT_NONE };
    uint32_t fa = pk_frame_add(p, &fr);
    fr.function = f2;
    fr.line = 25;
    uint32_t fb = pk_frame_add(p, &fr);
    uint32_t frames[2] = { fa, fb };
    uint32_t s = pk_stack_intern_frames(p, frames, 2);
    int64_t v = 3500000; /* 3.5 ms */
    assert_int_equal(pk_sample_add(p, s, t, &v), 0);
    (void)cpu_ns;
    profkit_profile *q = write_and_read(p);
    assert_string_equal(pk_meta_get(q, "line_data"), "1");
    assert_string_equal(pk_meta_get(q, "memory_data"), "0");
    assert_int_equal(value_at(q, "cpu", 0, "outer:7;inner:25"), 3500);
    assert_string_equal(pk_str(q, q->threads[0].name), "worker");
    profkit_profile_free(p);
    profkit_profile_free(q);
}

static void sniffed_by_magic_only(void **state)
{
    (void)state;
    buf b = { .n = 0 };
    header(&b, 0, 0, 0);
    end(&b, 0);
    profkit_profile *p;
    profkit_error err;
    profkit_read_options ro;
    memset(&ro, 0, sizeof(ro));
    assert_int_equal(profkit_profile_read_memory(&p, b.d, b.n, "x", &ro, &err), 0);
    assert_string_equal(p->format, "bsprof");
    profkit_profile_free(p);
    b.d[7] = 1; /* magic broken */
    ro.format = "bsprof";
    assert_int_equal(profkit_profile_read_memory(&p, b.d, b.n, "x", &ro, &err), PROFKIT_EFORMAT);
    assert_int_equal(err.offset, 0);
}

/* With --generic every test runs the generic decoder (unit/test_bsprof_generic),
 * which the reader then picks whatever the CPU. */
static void decoder_as_asked(void **state)
{
    (void)state;
    decode_fast_fn d = pk_bsprof_decode_pick();
    if (pk_bsprof_decoder == PK_BSPROF_DECODE_GENERIC)
        assert_true(d == pk_bsprof_decode_generic);
    else
        assert_non_null(d);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--generic") == 0)
        pk_bsprof_decoder = PK_BSPROF_DECODE_GENERIC;
    if (argc > 1 && strcmp(argv[1], "--bmi2") == 0)
        pk_bsprof_decoder = PK_BSPROF_DECODE_BMI2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_fields_go_to_metadata),
        cmocka_unit_test(entries_with_line_data),
        cmocka_unit_test(entries_without_line_data),
        cmocka_unit_test(memory_operations),
        cmocka_unit_test(redefinition_warns_and_later_wins),
        cmocka_unit_test(cut_everywhere),
        cmocka_unit_test(errors_name_offset),
        cmocka_unit_test(large_sizes_and_many_allocations),
        cmocka_unit_test(memory_counts_past_the_row_cache),
        cmocka_unit_test(report_options_keep_errors),
        cmocka_unit_test(fast_path_defers_to_checked_path),
        cmocka_unit_test(sparse_id_covered_later),
        cmocka_unit_test(first_unmatched_free_offset),
        cmocka_unit_test(fast_path_follows_redefinitions),
        cmocka_unit_test(round_trip_bsprof),
        cmocka_unit_test(write_foreign_profile),
        cmocka_unit_test(sniffed_by_magic_only),
        cmocka_unit_test(decoder_as_asked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
