/* test_br.c: the BR record stream reader and writer (docs/formats/br.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <unistd.h>

#include "model/model.h"
#include "util/cursor.h"
#include "hostile.h"

/* ---- building streams ---- */

typedef struct buf {
    uint8_t d[1 << 16];
    size_t n;
} buf;

static void put(buf *b, const void *p, size_t n)
{
    assert_true(b->n + n <= sizeof(b->d));
    memcpy(b->d + b->n, p, n);
    b->n += n;
}
static void u8(buf *b, unsigned v) { uint8_t c = (uint8_t)v; put(b, &c, 1); }
static void be16(buf *b, unsigned v) { u8(b, v >> 8); u8(b, v & 0xff); }
static void be32(buf *b, uint32_t v) { be16(b, v >> 16); be16(b, v & 0xffff); }
static void map(buf *b, unsigned mod, const char *name)
{
    u8(b, 1);
    be16(b, mod);
    be16(b, (unsigned)strlen(name));
    put(b, name, strlen(name));
}
static void rec(buf *b, unsigned type, unsigned mod, uint32_t line, unsigned clause)
{
    u8(b, type);
    be16(b, mod);
    be32(b, line);
    u8(b, clause);
}
static void name(buf *b, const char *s)
{
    u8(b, 7);
    u8(b, (unsigned)strlen(s));
    put(b, s, strlen(s));
}
static void tm(buf *b, uint64_t ns)
{
    u8(b, 4);
    be32(b, (uint32_t)(ns >> 32));
    be32(b, (uint32_t)ns);
}

static unsigned n_warn;
static void count_warning(const profkit_error *w, void *payload)
{
    (void)w;
    (void)payload;
    n_warn++;
}

static int read_mem(profkit_profile **p, const buf *b, const char *format, int strict,
                    profkit_error *err)
{
    profkit_read_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.format = format;
    ro.strict = strict;
    ro.on_warning = count_warning;
    n_warn = 0;
    return profkit_profile_read_memory(p, b->d, b->n, "test.brprof", &ro, err);
}

/* "root;...;leaf" of a stack, labels with file:line:clause when `detail`. */
static void path_of(const profkit_profile *p, uint32_t s, int detail, char *out, size_t n)
{
    char parts[64][128];
    size_t depth = 0;
    for (; s && depth < 64; s = p->stacks[s].parent) {
        const profkit_frame *fr = &p->frames[p->stacks[s].frame];
        const profkit_function *fn = &p->functions[fr->function];
        if (detail)
            snprintf(parts[depth++], 128, "%s@%s:%u:%u", pk_str(p, fn->name),
                     pk_str(p, fn->file), fr->line, fr->column);
        else
            snprintf(parts[depth++], 128, "%s", pk_str(p, fn->name));
    }
    out[0] = 0;
    size_t used = 0;
    while (depth-- > 0)
        used += (size_t)snprintf(out + used, n - used, "%s%s", parts[depth], depth ? ";" : "");
}

static uint32_t vt(const profkit_profile *p, const char *name)
{
    uint32_t v = profkit_profile_find_value(p, name);
    assert_int_not_equal(v, PROFKIT_NONE);
    return v;
}

/* ---- tests ---- */

static void sampled_stream_labels_and_stacks(void **state)
{
    (void)state;
    buf b = { .n = 0 };
    map(&b, 1, "main.br");
    map(&b, 3, "lib/calc.br");
    rec(&b, 3, 3, 120, 2);
    name(&b, "CALC");
    rec(&b, 5, 1, 40, 0);
    u8(&b, 8);
    rec(&b, 5, 1, 10, 0);
    u8(&b, 9);
    u8(&b, 6);
    rec(&b, 3, 2, 7, 0); /* module 2 was never mapped: its number is the file */
    name(&b, "");        /* an empty name names nothing */
    u8(&b, 6);
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_mem(&p, &b, NULL, 0, &err), 0); /* detected without --format */
    assert_string_equal(profkit_profile_format(p), "br");
    assert_int_equal(p->n_samples, 2);
    char s[512];
    path_of(p, p->sample_stack[0], 1, s, sizeof(s));
    /* the gosub routine is named by its caller's line, the GOSUB statement */
    assert_string_equal(s, "(main)@main.br:10:0;(gosub from main.br:10)@main.br:40:0;CALC@lib/calc.br:120:2");
    path_of(p, p->sample_stack[1], 1, s, sizeof(s));
    assert_string_equal(s, "(unknown)@2:7:0");
    assert_int_equal(p->default_value, vt(p, "samples"));
    assert_int_equal(p->sample_values[0 * p->n_value_types + vt(p, "samples")], 1);
    assert_int_equal(p->sample_values[1 * p->n_value_types + vt(p, "time")], 0);
    assert_string_equal(pk_meta_get(p, "mode"), "sampled");
    assert_int_equal(p->n_threads, 1);
    assert_string_equal(pk_str(p, p->threads[0].name), "main");
    assert_int_equal(n_warn, 0);
    profkit_profile_free(p);
}

static void timed_stream_order_and_remap(void **state)
{
    (void)state;
    buf b = { .n = 0 };
    map(&b, 3, "old.br");
    for (int g = 0; g < 3; g++) {
        if (g == 1)
            map(&b, 3, "new.br");
        rec(&b, 3, 3, 5, 0);
        name(&b, "F");
        if (g != 2)
            tm(&b, 1000u * (g + 1));
        rec(&b, 5, 9, 1, 0);
        u8(&b, 9);
        if (g == 0)
            tm(&b, 500); /* two time records in one group add up */
        u8(&b, 6);
    }
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_mem(&p, &b, "br", 0, &err), 0);
    assert_int_equal(p->n_samples, 3);
    uint32_t t = vt(p, "time");
    assert_int_equal(p->default_value, t);
    assert_string_equal(pk_meta_get(p, "mode"), "timed");
    const int64_t want_time[3] = { 0, 1500, 3500 }, want_ns[3] = { 1500, 2000, 0 };
    for (int i = 0; i < 3; i++) {
        assert_int_equal(p->sample_time[i], want_time[i]);
        assert_int_equal(p->sample_values[i * p->n_value_types + t], want_ns[i]);
    }
    char s[512];
    path_of(p, p->sample_stack[0], 1, s, sizeof(s));
    assert_string_equal(s, "(main)@9:1:0;F@old.br:5:0");
    path_of(p, p->sample_stack[1], 1, s, sizeof(s));
    assert_string_equal(s, "(main)@9:1:0;F@new.br:5:0");
    profkit_profile_free(p);
}

/* A tiny deterministic generator of groups; returns the number written. */
static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

typedef struct expect {
    char path[512];
    int64_t ns;
} expect;

static size_t generate(buf *b, expect *e, size_t max, int timed)
{
    map(b, 1, "a.br");
    map(b, 2, "b.br");
    size_t n = 0;
    while (n < max && b->n < sizeof(b->d) - 512) {
        int depth = 1 + (int)rnd(6);
        char labels[8][40];
        unsigned mods[8], lines[8];
        int gosub[8] = { 0 };
        int64_t ns = 0;
        for (int d = 0; d < depth; d++) {
            mods[d] = 1 + rnd(3);
            lines[d] = rnd(100);
            rec(b, d ? 5 : 3, mods[d], lines[d], rnd(3));
            unsigned k = rnd(4);
            if (k == 0) {
                snprintf(labels[d], 40, "f%u", rnd(20));
                name(b, labels[d]);
            } else if (k == 1) {
                gosub[d] = 1; /* named below, by its caller */
                u8(b, 8);
            } else if (k == 2) {
                snprintf(labels[d], 40, "(main)");
                u8(b, 9);
            } else {
                snprintf(labels[d], 40, "(unknown)");
            }
            if (timed && rnd(2)) {
                uint64_t t = rnd(100000);
                ns += (int64_t)t;
                tm(b, t);
            }
        }
        u8(b, 6);
        /* a gosub routine: "(gosub from FILE:LINE)" of its caller (module 3
         * is never mapped: its number is its file) */
        static const char *const files[] = { "", "a.br", "b.br", "3" };
        for (int d = 0; d < depth; d++)
            if (gosub[d] && d + 1 < depth)
                snprintf(labels[d], 40, "(gosub from %s:%u)", files[mods[d + 1]], lines[d + 1]);
            else if (gosub[d])
                snprintf(labels[d], 40, "(gosub)");
        size_t used = 0;
        for (int d = depth - 1; d >= 0; d--)
            used += (size_t)snprintf(e[n].path + used, sizeof(e[n].path) - used, "%s%s", labels[d],
                                     d ? ";" : "");
        e[n].ns = ns;
        n++;
    }
    return n;
}

static void generated_stream_matches_generator(void **state)
{
    (void)state;
    static buf b;
    static expect e[2000];
    b.n = 0;
    size_t n = generate(&b, e, 2000, 1);
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_mem(&p, &b, "br", 0, &err), 0);
    assert_int_equal(p->n_samples, n);
    uint32_t t = vt(p, "time");
    int64_t clock = 0;
    char s[512];
    for (size_t i = 0; i < n; i++) {
        path_of(p, p->sample_stack[i], 0, s, sizeof(s));
        assert_string_equal(s, e[i].path);
        assert_int_equal(p->sample_values[i * p->n_value_types + t], e[i].ns);
        assert_int_equal(p->sample_time[i], clock);
        clock += e[i].ns;
    }
    profkit_profile_free(p);
}

/* Writing a BR profile and reading it back keeps every group, its frames and time. */
static void writer_round_trip(void **state)
{
    (void)state;
    static buf b;
    static expect e[500];
    b.n = 0;
    size_t n = generate(&b, e, 500, 1);
    profkit_profile *p, *q;
    profkit_error err;
    assert_int_equal(read_mem(&p, &b, "br", 0, &err), 0);
    char path[] = "/tmp/test_br_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    profkit_write_options wo;
    memset(&wo, 0, sizeof(wo));
    wo.format = "br";
    assert_int_equal(profkit_profile_write_file(p, path, &wo, &err), 0);
    profkit_read_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.format = "br";
    assert_int_equal(profkit_profile_read_file(&q, path, &ro, &err), 0);
    unlink(path);
    /* Groups without time still count as samples: every group comes back. */
    assert_int_equal(q->n_samples, n);
    char s1[512], s2[512];
    for (size_t i = 0; i < n; i++) {
        path_of(p, p->sample_stack[i], 1, s1, sizeof(s1));
        path_of(q, q->sample_stack[i], 1, s2, sizeof(s2));
        assert_string_equal(s1, s2);
        assert_int_equal(p->sample_time[i], q->sample_time[i]);
    }
    assert_string_equal(pk_meta_get(q, "mode"), "timed");
    profkit_profile_free(p);
    profkit_profile_free(q);
}

/* Cut anywhere: complete groups are kept; a cut group warns; nothing else. */
static void truncation_keeps_complete_groups(void **state)
{
    (void)state;
    static buf b, cut;
    static expect e[40];
    b.n = 0;
    generate(&b, e, 40, 1);
    /* Where each group ends (the offset after its 6 record). */
    size_t ends[40], n_ends = 0, pos = 0;
    pk_cursor c;
    pk_cursor_init(&c, b.d, b.n);
    while (pos < b.n) {
        uint8_t t = b.d[pos];
        size_t len = t == 1 ? 5 + pk_load_be16(b.d + pos + 3)
                   : t == 3 || t == 5 ? 8 : t == 4 ? 9 : t == 7 ? 2 + b.d[pos + 1] : 1;
        pos += len;
        if (t == 6)
            ends[n_ends++] = pos;
    }
    for (size_t k = 0; k <= b.n; k++) {
        memcpy(cut.d, b.d, k);
        cut.n = k;
        profkit_profile *p = NULL;
        profkit_error err;
        int rc = read_mem(&p, &cut, "br", 0, &err);
        size_t want = 0;
        while (want < n_ends && ends[want] <= k)
            want++;
        /* The two mappings take bytes [0, 9) and [9, 18): a cut inside one
         * is an error (no group is open), not a warning. */
        if (k < 18 && k != 0 && k != 9) {
            assert_int_equal(rc, PROFKIT_ETRUNCATED);
            /* the record's offset, or its name's when only the name is cut */
            assert_int_equal(err.offset, k < 5 ? 0 : k < 9 ? 5 : k < 14 ? 9 : 14);
            continue;
        }
        assert_int_equal(rc, 0);
        assert_int_equal(p->n_samples, want);
        int in_group = k > 18 && (want == 0 || ends[want - 1] != k);
        assert_int_equal(n_warn, in_group ? 1u : 0u);
        profkit_profile_free(p);
        if (in_group) { /* --strict: the warning is an error */
            assert_int_equal(read_mem(&p, &cut, "br", 1, &err), PROFKIT_ETRUNCATED);
            assert_null(p);
        }
    }
}

static void sniff_needs_clean_records(void **state)
{
    (void)state;
    profkit_profile *p;
    profkit_error err;
    buf b = { .n = 0 };
    rec(&b, 3, 1, 1, 0);
    u8(&b, 9);
    u8(&b, 6);
    assert_int_equal(read_mem(&p, &b, NULL, 0, &err), 0);
    assert_string_equal(profkit_profile_format(p), "br");
    profkit_profile_free(p);
    /* A group that breaks a rule is not BR, and nothing else claims it. */
    buf bad = { .n = 0 };
    rec(&bad, 3, 1, 1, 0);
    tm(&bad, 4);
    u8(&bad, 9);
    u8(&bad, 6);
    assert_int_not_equal(read_mem(&p, &bad, NULL, 0, &err), 0);
    /* --format br reads what detection refuses, and names the problem. */
    assert_int_equal(read_mem(&p, &bad, "br", 0, &err), PROFKIT_ECORRUPT);
    assert_int_equal(err.offset, 17);
    assert_non_null(strstr(err.message, "main routine (9)"));
}

/* Seeded bit flips of a generated stream (record types, lengths, module
 * numbers and names alike): an error with a message or a profile, never a
 * crash or a silent failure, under the sanitizers. */
static void bit_flips_fail_cleanly(void **state)
{
    (void)state;
    static buf b;
    static expect e[40];
    b.n = 0;
    generate(&b, e, 40, 1);
    pk_hostile_counts c = { 0, 0, 0, 0 };
    pk_hostile_flips(b.d, b.n, "br", 600, &c);
    assert_int_equal(c.silent, 0);
    assert_int_equal(c.read + c.failed, 600);
    assert_true(c.failed > 0);
    assert_true(c.read > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sampled_stream_labels_and_stacks),
        cmocka_unit_test(timed_stream_order_and_remap),
        cmocka_unit_test(generated_stream_matches_generator),
        cmocka_unit_test(writer_round_trip),
        cmocka_unit_test(truncation_keeps_complete_groups),
        cmocka_unit_test(sniff_needs_clean_records),
        cmocka_unit_test(bit_flips_fail_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
