/*
 * test_gperftools.c: the gperftools CPU profile reader and writer
 * (src/formats/gperftools/, docs/formats/gperftools.md): word size and byte order,
 * the Java variant, period 0, records and the trailer, build= and $build,
 * maps lines, the writer and its synthetic addresses, and hostile input:
 * every prefix and a few hundred seeded bit flips of a real profile.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "hostile.h"

#include "model/model.h"
#include "util/cursor.h"

/* ---- building profiles in memory ---- */

typedef struct gbuf {
    uint8_t data[4096];
    size_t n;
    unsigned ws;
    int be;
} gbuf;

static void put(gbuf *b, uint64_t v)
{
    for (unsigned i = 0; i < b->ws; i++) {
        unsigned shift = b->be ? 8 * (b->ws - 1 - i) : 8 * i;
        b->data[b->n++] = (uint8_t)(v >> shift);
    }
}

static void header(gbuf *b, unsigned ws, int be, uint64_t java, uint64_t period)
{
    b->n = 0;
    b->ws = ws;
    b->be = be;
    put(b, 0);
    put(b, 3);
    put(b, java);
    put(b, period);
    put(b, 0);
}

/* A record: count, then depth PCs leaf first, terminated by the list end. */
static void record(gbuf *b, uint64_t count, size_t depth, const uint64_t *pcs)
{
    put(b, count);
    put(b, depth);
    for (size_t i = 0; i < depth; i++)
        put(b, pcs[i]);
}

static void trailer(gbuf *b)
{
    put(b, 0);
    put(b, 1);
    put(b, 0);
}

static void text(gbuf *b, const char *s)
{
    memcpy(b->data + b->n, s, strlen(s));
    b->n += strlen(s);
}

static unsigned n_warnings;
static char last_warning[600];
static void on_warning(const profkit_error *w, void *payload)
{
    (void)payload;
    n_warnings++;
    profkit_error_string(last_warning, sizeof(last_warning), w);
}

static int read_buf(profkit_profile **p, const void *d, size_t n, profkit_error *err, int strict)
{
    profkit_read_options ro = { 0 };
    ro.format = "gperftools";
    ro.strict = strict;
    ro.on_warning = on_warning;
    n_warnings = 0;
    last_warning[0] = '\0';
    return profkit_profile_read_memory(p, d, n, "t.prof", &ro, err);
}

/* The folded text of the samples value (root;...;leaf COUNT), via a temp file. */
static char *folded_of(const profkit_profile *p, const char *value)
{
    char path[] = "/tmp/pk_gperf_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    profkit_write_options wo = { 0 };
    wo.format = "folded";
    wo.value = value;
    profkit_error err;
    assert_int_equal(profkit_profile_write_file(p, path, &wo, &err), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = calloc(1, 1 << 20);
    size_t got = fread(buf, 1, (1 << 20) - 1, f);
    buf[got] = '\0';
    fclose(f);
    unlink(path);
    return buf;
}

/* Writes p as gperftools and returns the bytes (*n). */
static uint8_t *gperftools_of(const profkit_profile *p, size_t *n, const char *value)
{
    char path[] = "/tmp/pk_gperf_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    profkit_write_options wo = { 0 };
    wo.format = "gperftools";
    wo.value = value;
    profkit_error err;
    assert_int_equal(profkit_profile_write_file(p, path, &wo, &err), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t *buf = malloc(1 << 22);
    *n = fread(buf, 1, 1 << 22, f);
    fclose(f);
    unlink(path);
    return buf;
}

static int64_t total(const profkit_profile *p, const char *value)
{
    uint32_t v = profkit_profile_find_value(p, value);
    assert_int_not_equal(v, PROFKIT_NONE);
    int64_t t = 0;
    for (size_t r = 0; r < p->n_samples; r++)
        t += p->sample_values[r * p->n_value_types + v];
    return t;
}

static const uint64_t pcs_a[3] = { 0x401000, 0x402005, 0x403005 };
static const uint64_t pcs_b[2] = { 0x480000, 0x490001 };

/* The same two records in every layout read to the same stacks. */
static void every_layout_reads_the_same(void **state)
{
    (void)state;
    static const struct { unsigned ws; int be; const char *bits, *order; } ls[] = {
        { 4, 0, "32", "little-endian" }, { 4, 1, "32", "big-endian" },
        { 8, 0, "64", "little-endian" }, { 8, 1, "64", "big-endian" },
    };
    for (size_t i = 0; i < 4; i++) {
        gbuf b;
        header(&b, ls[i].ws, ls[i].be, 0, 10000);
        record(&b, 2, 3, pcs_a);
        record(&b, 1, 2, pcs_b);
        trailer(&b);
        text(&b, "00400000-00500000 r-xp 00000000 00:00 1 /bin/fake\n");
        profkit_profile *p;
        profkit_error err;
        assert_int_equal(read_buf(&p, b.data, b.n, &err, 0), 0);
        assert_int_equal(n_warnings, 0);
        char *f = folded_of(p, "samples");
        assert_string_equal(f, "0x403005;0x402005;0x401000 2\n0x490001;0x480000 1\n");
        free(f);
        assert_int_equal(total(p, "cpu"), 3 * 10000 * 1000LL);
        assert_string_equal(pk_meta_get(p, "word_size"), ls[i].bits);
        assert_string_equal(pk_meta_get(p, "byte_order"), ls[i].order);
        assert_string_equal(pk_meta_get(p, "period_us"), "10000");
        assert_string_equal(pk_meta_get(p, "records"), "2");
        assert_string_equal(pk_str(p, p->value_types[p->default_value].type), "cpu");
        assert_int_equal(p->n_threads, 1);
        assert_string_equal(pk_str(p, p->threads[0].name), "main");
        /* Frames: address = PC, name 0x..., mapping when covered. */
        assert_int_equal(p->n_mappings, 1);
        for (size_t fr = 0; fr < p->n_frames; fr++) {
            char name[32];
            snprintf(name, sizeof(name), "0x%llx", (unsigned long long)p->frames[fr].address);
            assert_string_equal(pk_str(p, p->functions[p->frames[fr].function].name), name);
            assert_int_equal(p->frames[fr].mapping, 0);
        }
        profkit_profile_free(p);
    }
}

static void java_variant_is_refused(void **state)
{
    (void)state;
    gbuf b;
    header(&b, 4, 0, 1, 100);
    record(&b, 1, 2, pcs_b);
    trailer(&b);
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_buf(&p, b.data, b.n, &err, 0), PROFKIT_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "not supported"));
    /* Detection still picks gperftools, so the refusal names the variant. */
    profkit_read_options ro = { 0 };
    assert_int_equal(profkit_profile_read_memory(&p, b.data, b.n, "j", &ro, &err),
                     PROFKIT_EUNSUPPORTED);
}

static void period_zero_is_not_this_format(void **state)
{
    (void)state;
    gbuf b;
    header(&b, 8, 0, 0, 0);
    record(&b, 1, 2, pcs_b);
    trailer(&b);
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_buf(&p, b.data, b.n, &err, 0), PROFKIT_EFORMAT);
    assert_non_null(strstr(err.message, "period is 0"));
    assert_int_equal(err.offset, 24);
    profkit_read_options ro = { 0 };
    assert_int_equal(profkit_profile_read_memory(&p, b.data, b.n, "z", &ro, &err), PROFKIT_EFORMAT);
    assert_non_null(strstr(err.message, "unrecognized"));
}

static void structural_errors_have_offsets(void **state)
{
    (void)state;
    profkit_profile *p;
    profkit_error err;
    gbuf b;
    /* depth 0: error at the depth word */
    header(&b, 8, 0, 0, 10000);
    record(&b, 1, 2, pcs_b);
    record(&b, 3, 0, NULL);
    trailer(&b);
    assert_int_equal(read_buf(&p, b.data, b.n, &err, 0), PROFKIT_ECORRUPT);
    assert_int_equal(err.offset, 40 + 32 + 8);
    assert_non_null(strstr(err.message, "depth"));
    /* a record cut off by the end: error at the record, no frames invented */
    header(&b, 8, 0, 0, 10000);
    record(&b, 1, 2, pcs_b);
    record(&b, 1, 3, pcs_a);
    b.n -= 8;
    assert_int_equal(read_buf(&p, b.data, b.n, &err, 0), PROFKIT_ETRUNCATED);
    assert_int_equal(err.offset, 72);
    assert_non_null(strstr(err.message, "depth 3"));
    /* cut inside the count/depth words */
    header(&b, 4, 1, 0, 10000);
    record(&b, 1, 2, pcs_b);
    b.n += 2; /* two stray bytes */
    assert_int_equal(read_buf(&p, b.data, b.n, &err, 0), PROFKIT_ETRUNCATED);
    assert_int_equal(err.offset, 20 + 16);
    /* truncated header */
    header(&b, 8, 0, 0, 10000);
    assert_int_equal(read_buf(&p, b.data, 30, &err, 0), PROFKIT_ETRUNCATED);
    assert_int_equal(err.offset, 30);
    assert_int_equal(read_buf(&p, b.data, 0, &err, 0), PROFKIT_ETRUNCATED);
    /* not a header at all */
    assert_int_equal(read_buf(&p, "hello world, this is text.....", 30, &err, 0), PROFKIT_EFORMAT);
}

/* Large inputs go through the reader's two threads in many batches (16384
 * records each, four in flight): an error found by the table side early on
 * (a sum past 63 bits) stops the producer and is the one reported; an error
 * the producer finds late (a cut record) comes after every record before it;
 * without a trailer, every record is kept. */
static void many_batches_keep_error_order(void **state)
{
    (void)state;
    enum { N = 80000 };
    size_t cap = (5 + 6 + 3 * (size_t)N + 3) * 8, n = 0;
    uint8_t *d = malloc(cap);
    assert_non_null(d);
#define W(v) (pk_put_le64(d + n, (uint64_t)(v)), n += 8)
    W(0); W(3); W(0); W(10000); W(0);
    W(900000000000ULL); W(1); W(0x1000); /* twice: the sum passes 63-bit ns */
    W(900000000000ULL); W(1); W(0x1000);
    for (size_t i = 0; i < N; i++) {
        W(1); W(1); W(0x2000 + 8 * (i % 5000));
    }
    size_t end = n;
    W(0); W(1); W(0);
#undef W
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_buf(&p, d, n, &err, 0), PROFKIT_ECORRUPT);
    assert_int_equal(err.offset, 64);
    assert_non_null(strstr(err.message, "sum past"));
    /* Without the overflow (the second record's count 1): reads; then cut
     * the last record short: an error at that record, after all the others. */
    pk_put_le64(d + 64, 1);
    assert_int_equal(read_buf(&p, d, n, &err, 0), 0);
    assert_int_equal(total(p, "samples"), 900000000001LL + N);
    profkit_profile_free(p);
    assert_int_equal(read_buf(&p, d, end - 4, &err, 0), PROFKIT_ETRUNCATED);
    assert_int_equal(err.offset, end - 24);
    /* No trailer: every record kept, with a warning. */
    assert_int_equal(read_buf(&p, d, end, &err, 0), 0);
    assert_string_equal(pk_meta_get(p, "records"), "80002");
    assert_int_equal(total(p, "samples"), 900000000001LL + N);
    profkit_profile_free(p);
    free(d);
}

/*
 * The table of distinct records keeps PC indexes 16-bit while there are at
 * most 2^16 PCs and makes them 32-bit when a record may bring more: records
 * read before, across and after that point are still told apart and
 * summed.
 */
/* Whether the folded text f has the whole line `line` (with its newline). */
static int has_line(const char *f, const char *line)
{
    size_t n = strlen(line);
    for (const char *at = f; (at = strstr(at, line)) != NULL; at++)
        if (at == f || at[-1] == '\n')
            return n > 0;
    return 0;
}

static void records_across_the_16_bit_pcs(void **state)
{
    (void)state;
    enum { N = 70000 };
    size_t cap = (5 + 3 * (5 + 3 * (size_t)N) + 16 + 3) * 8, n = 0;
    uint8_t *d = malloc(cap);
    assert_non_null(d);
#define W(v) (pk_put_le64(d + n, (uint64_t)(v)), n += 8)
    W(0); W(3); W(0); W(10000); W(0);
    W(1); W(3); W(0x401000); W(0x402005); W(0x403005); /* before */
    for (size_t i = 0; i < N; i++) {                  /* one new PC each */
        W(1); W(1); W(0x100000 + i);
    }
    W(2); W(3); W(0x401000); W(0x402005); W(0x403005); /* after: summed */
    W(4); W(2); W(0x100000 + N - 1); W(0x402005);      /* both sides */
    W(8); W(2); W(0x100000); W(0x402005);
    W(16); W(1); W(0x100000 + N - 1);
    W(0); W(1); W(0);
#undef W
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_buf(&p, d, n, &err, 0), 0);
    assert_int_equal(p->n_samples, 1 + N + 2);
    assert_int_equal(total(p, "samples"), 1 + N + 2 + 4 + 8 + 16);
    char *f = folded_of(p, "samples");
    char line[64];
    assert_true(has_line(f, "0x403005;0x402005;0x401000 3\n"));
    assert_true(has_line(f, "0x402005;0x100000 8\n"));
    assert_true(has_line(f, "0x100000 1\n"));
    snprintf(line, sizeof(line), "0x402005;0x%x 4\n", 0x100000 + N - 1);
    assert_true(has_line(f, line));
    snprintf(line, sizeof(line), "0x%x 17\n", 0x100000 + N - 1);
    assert_true(has_line(f, line));
    snprintf(line, sizeof(line), "0x%x 1\n", 0x100000 + 65535);
    assert_true(has_line(f, line));
    free(f);
    profkit_profile_free(p);
    /* One record deeper than 2^16 PCs first. */
    n = 0;
#define W(v) (pk_put_le64(d + n, (uint64_t)(v)), n += 8)
    W(0); W(3); W(0); W(10000); W(0);
    W(1); W(N);
    for (size_t i = 0; i < N; i++)
        W(0x10000000 + 16 * i);
    W(5); W(N);
    for (size_t i = 0; i < N; i++)
        W(0x10000000 + 16 * i);
    W(0); W(1); W(0);
#undef W
    assert_int_equal(read_buf(&p, d, n, &err, 0), 0);
    assert_int_equal(p->n_samples, 1);
    assert_int_equal(total(p, "samples"), 6);
    profkit_profile_free(p);
    free(d);
}

/*
 * Records seen again in every layout: each layout compares a record with
 * the distinct ones its own way (64-bit little-endian without the layout's
 * tests). Identical records sum; records that differ in one PC (the leaf,
 * the root, a byte of a word's high half), or that are a prefix of
 * another, stay apart.
 */
static void records_seen_again_in_every_layout(void **state)
{
    (void)state;
    static const struct { unsigned ws; int be; } ls[] = { { 4, 0 }, { 4, 1 }, { 8, 0 }, { 8, 1 } };
    for (size_t i = 0; i < 4; i++) {
        /* 64-bit: PCs past 2^32, the last two differing only in the top byte */
        uint64_t hi = ls[i].ws == 8 ? 0x7f0000000000ull : 0x40000000ull;
        uint64_t top = ls[i].ws == 8 ? 0x0100000000000000ull : 0x01000000ull;
        const uint64_t a[3] = { hi + 0x1000, hi + 0x2005, hi + 0x3005 };
        const uint64_t leaf[3] = { hi + 0x1001, hi + 0x2005, hi + 0x3005 };
        const uint64_t root[3] = { hi + 0x1000, hi + 0x2005, hi + 0x3006 };
        const uint64_t high[3] = { hi + 0x1000, hi + 0x2005, top + hi + 0x3005 };
        /* deeper than 4 PCs: compared 4 at a time, then one by one */
        const uint64_t six[6] = { hi + 0x1000, hi + 0x2005, hi + 0x3005, hi + 0x4005, hi + 0x5005, hi + 0x6005 };
        const uint64_t six2[6] = { hi + 0x1000, hi + 0x2006, hi + 0x3005, hi + 0x4005, hi + 0x5005, hi + 0x6005 };
        gbuf b;
        header(&b, ls[i].ws, ls[i].be, 0, 10000);
        record(&b, 1, 3, a);
        record(&b, 2, 3, leaf);
        record(&b, 4, 3, root);
        record(&b, 8, 3, high);
        record(&b, 16, 2, a + 1); /* a's callers: a prefix root first */
        record(&b, 32, 3, a);
        record(&b, 64, 3, high);
        record(&b, 128, 2, a + 1);
        record(&b, 256, 3, leaf);
        record(&b, 512, 6, six);
        record(&b, 1024, 6, six2);
        record(&b, 2048, 6, six);
        trailer(&b);
        profkit_profile *p;
        profkit_error err;
        assert_int_equal(read_buf(&p, b.data, b.n, &err, 0), 0);
        assert_int_equal(p->n_samples, 7);
        assert_int_equal(total(p, "samples"), 4095);
        /* each prefix-tree node once: the root, 3 + 3 + 4 nodes under the
         * three root PCs (a's callers are a's own nodes), 6 + 2 for the
         * deep ones (six2 shares six's 4 root-most) */
        assert_int_equal(p->n_stacks, 19);
        char *f = folded_of(p, "samples"), line[128];
        const struct { const uint64_t *pcs; size_t depth; int n; } want[] = {
            { a, 3, 33 }, { leaf, 3, 258 }, { root, 3, 4 }, { high, 3, 72 }, { a + 1, 2, 144 },
            { six, 6, 2560 }, { six2, 6, 1024 },
        };
        for (size_t w = 0; w < 7; w++) {
            size_t at = 0;
            for (size_t k = want[w].depth; k-- > 0;)
                at += (size_t)snprintf(line + at, sizeof(line) - at, "0x%llx%s",
                                       (unsigned long long)want[w].pcs[k], k ? ";" : "");
            snprintf(line + at, sizeof(line) - at, " %d\n", want[w].n);
            assert_true(has_line(f, line));
        }
        free(f);
        profkit_profile_free(p);
    }
}

/* A depth limit the deepest record reaches: the stacks are the same as
 * without one; one below it: refused at that record. */
static void depth_limit_at_the_deepest_record(void **state)
{
    (void)state;
    gbuf b;
    header(&b, 8, 0, 0, 10000);
    record(&b, 2, 3, pcs_a);
    record(&b, 1, 2, pcs_b);
    record(&b, 4, 2, pcs_a + 1);
    trailer(&b);
    profkit_read_options ro = { 0 };
    ro.format = "gperftools";
    ro.max_depth = 3;
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(profkit_profile_read_memory(&p, b.data, b.n, "t.prof", &ro, &err), 0);
    char *f = folded_of(p, "samples");
    assert_string_equal(f, "0x403005;0x402005 4\n0x403005;0x402005;0x401000 2\n0x490001;0x480000 1\n");
    free(f);
    assert_int_equal(p->n_stacks, 6); /* the root, 0x403005 shared */
    profkit_profile_free(p);
    ro.max_depth = 2;
    assert_int_equal(profkit_profile_read_memory(&p, b.data, b.n, "t.prof", &ro, &err), PROFKIT_EUNSUPPORTED);
    assert_int_equal(err.offset, 40);
}

static void trailer_rules(void **state)
{
    (void)state;
    profkit_profile *p;
    profkit_error err;
    gbuf b;
    /* no trailer: warning, data kept, no mappings */
    header(&b, 8, 0, 0, 10000);
    record(&b, 2, 3, pcs_a);
    assert_int_equal(read_buf(&p, b.data, b.n, &err, 0), 0);
    assert_int_equal(n_warnings, 1);
    assert_non_null(strstr(last_warning, "no trailer"));
    assert_int_equal(total(p, "samples"), 2);
    assert_int_equal(p->n_mappings, 0);
    profkit_profile_free(p);
    /* ... and an error under --strict */
    assert_int_equal(read_buf(&p, b.data, b.n, &err, 1), PROFKIT_ETRUNCATED);
    /* count > 0 with depth 1 and PC 0 is a record, not the trailer;
     * identical stacks are summed; count 0 records add nothing */
    header(&b, 8, 0, 0, 10000);
    uint64_t zero = 0;
    record(&b, 5, 1, &zero);
    record(&b, 1, 2, pcs_b);
    record(&b, 0, 3, pcs_a);
    record(&b, 4, 2, pcs_b);
    trailer(&b);
    text(&b, "00400000-00500000 r-xp 00000000 00:00 1 /bin/fake\n");
    assert_int_equal(read_buf(&p, b.data, b.n, &err, 0), 0);
    char *f = folded_of(p, "samples");
    assert_string_equal(f, "0x0 5\n0x490001;0x480000 5\n");
    free(f);
    assert_string_equal(pk_meta_get(p, "records"), "4");
    profkit_profile_free(p);
}

static const char *mapping_path(const profkit_profile *p, size_t i)
{
    return pk_str(p, p->mappings[i].path);
}

static void text_after_trailer(void **state)
{
    (void)state;
    profkit_profile *p;
    profkit_error err;
    gbuf b;
    header(&b, 8, 0, 0, 10000);
    record(&b, 1, 2, pcs_b);
    trailer(&b);
    text(&b,
         "\x01\x02garbage\n"
         "foo=/opt/x\n"
         "00100000-00200000 r-xp 00000000 00:00 1 $foo/bin\n" /* only build= substitutes */
         "00200000-00300000 r-xp 00000000 00:00 1 $build/early\n" /* no build= yet */
         "  build=/first\n"
         "build=/second \n"
         "00400000-00500000 r-xp 00001000 08:01 1234 $build/lib.so $builder $build\n"
         "00500000-00600000 rw-p 00000000 00:00 0 /data\n" /* not code */
         "  00480000-00481000: /bin/fake (@1000)\n"        /* not maps form */
         "0x700000 0x780000 r-xp other\n"
         "I0101 00:00:00.000 1 x.cc:1] 00800000-00880000 r-xp 00000000 00:00 1 /log\n"
         "00900000-00980000 r-xp 00000000 00:00 1\r\n" /* no path */
         "00a00000-00a80000 r-xp 00000000 00:00 1 /last");
    assert_int_equal(read_buf(&p, b.data, b.n, &err, 0), 0);
    assert_int_equal(p->n_mappings, 5);
    assert_string_equal(mapping_path(p, 0), "$foo/bin");
    assert_string_equal(mapping_path(p, 1), "$build/early");
    assert_string_equal(mapping_path(p, 2), "/second/lib.so $builder /second");
    assert_int_equal(p->mappings[2].start, 0x400000);
    assert_int_equal(p->mappings[2].end, 0x500000);
    assert_int_equal(p->mappings[2].offset, 0x1000);
    assert_string_equal(mapping_path(p, 3), "");
    assert_string_equal(mapping_path(p, 4), "/last");
    assert_string_equal(pk_meta_get(p, "build"), "/second");
    /* 0x480000 falls in the /second/lib.so mapping; 0x490001 too. */
    for (size_t fr = 0; fr < p->n_frames; fr++)
        assert_int_equal(p->frames[fr].mapping, 2);
    profkit_profile_free(p);
}

/* Many $build in a line times a long build path: the line is ignored,
 * not blown up into gigabytes; one $build of a path as long as a real one
 * (4000 bytes) is kept, and the same line with a path past 8 KiB is
 * ignored (each line's work is bounded, whatever the build path). */
static void build_substitution_is_bounded(void **state)
{
    (void)state;
    gbuf b;
    header(&b, 8, 0, 0, 10000);
    record(&b, 1, 2, pcs_b);
    trailer(&b);
    size_t n_build = 4000, n_vars = 100000;
    const char *maps = "00400000-00500000 r-xp 00000000 00:00 1 ";
    size_t cap = b.n + 7 + n_build + 1 + strlen(maps) + 7 * n_vars + 200;
    uint8_t *d = malloc(cap);
    memcpy(d, b.data, b.n);
    size_t n = b.n;
    memcpy(d + n, "build=/", 7);
    n += 7;
    memset(d + n, 'x', n_build);
    n += n_build;
    d[n++] = '\n';
    memcpy(d + n, maps, strlen(maps));
    n += strlen(maps);
    for (size_t i = 0; i < n_vars; i++, n += 7)
        memcpy(d + n, "$build ", 7);
    d[n++] = '\n';
    n += (size_t)sprintf((char *)d + n, "%s$build/ok\n", maps);
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_buf(&p, d, n, &err, 0), 0);
    assert_int_equal(p->n_mappings, 1);
    assert_int_equal(strlen(mapping_path(p, 0)), 1 + n_build + 3);
    profkit_profile_free(p);
    free(d);

    /* a build path of 200 KB: its $build line is ignored */
    size_t n_long = 200000;
    d = malloc(b.n + 7 + n_long + 1 + strlen(maps) + 20);
    memcpy(d, b.data, b.n);
    n = b.n;
    memcpy(d + n, "build=/", 7);
    n += 7;
    memset(d + n, 'x', n_long);
    n += n_long;
    d[n++] = '\n';
    n += (size_t)sprintf((char *)d + n, "%s$build/ok\n", maps);
    assert_int_equal(read_buf(&p, d, n, &err, 0), 0);
    assert_int_equal(p->n_mappings, 0);
    profkit_profile_free(p);
    free(d);
}

/* gperftools -> gperftools: same folded, same bytes the second time. */
static void writer_round_trip(void **state)
{
    (void)state;
    profkit_profile *p, *q, *r;
    profkit_error err;
    gbuf b;
    header(&b, 4, 1, 0, 2500);
    uint64_t zero = 0;
    record(&b, 2, 3, pcs_a);
    record(&b, 7, 1, &zero);
    record(&b, 1, 2, pcs_b);
    trailer(&b);
    text(&b, "build=/b\n00400000-00500000 r-xp 00000000 00:00 1 $build/x\n");
    assert_int_equal(read_buf(&p, b.data, b.n, &err, 0), 0);
    size_t n1, n2;
    uint8_t *w1 = gperftools_of(p, &n1, NULL);
    assert_int_equal(read_buf(&q, w1, n1, &err, 0), 0);
    assert_int_equal(n_warnings, 0);
    uint8_t *w2 = gperftools_of(q, &n2, NULL);
    assert_int_equal(n1, n2);
    assert_memory_equal(w1, w2, n1);
    char *f1 = folded_of(p, NULL), *f2 = folded_of(q, NULL);
    assert_string_equal(f1, f2);
    assert_string_equal(pk_meta_get(q, "period_us"), "2500");
    assert_string_equal(pk_meta_get(q, "word_size"), "64");
    assert_int_equal(q->n_mappings, 1);
    assert_string_equal(mapping_path(q, 0), "/b/x");
    assert_string_equal(pk_meta_get(q, "build"), "/b");
    assert_int_equal(read_buf(&r, w2, n2, &err, 0), 0);
    free(f1);
    free(f2);
    free(w1);
    free(w2);
    profkit_profile_free(p);
    profkit_profile_free(q);
    profkit_profile_free(r);
}

/* Frames without addresses (folded input) get distinct synthetic ones. */
static void writer_synthesizes_addresses(void **state)
{
    (void)state;
    const char *in = "main;work;leaf 3\nmain;work 2\nmain;other;leaf 1\nmain;0x1234 4\n";
    profkit_read_options ro = { 0 };
    ro.format = "folded";
    profkit_profile *p, *q;
    profkit_error err;
    assert_int_equal(profkit_profile_read_memory(&p, in, strlen(in), "f", &ro, &err), 0);
    size_t n;
    uint8_t *w = gperftools_of(p, &n, NULL);
    assert_int_equal(read_buf(&q, w, n, &err, 0), 0);
    assert_int_equal(total(q, "samples"), 10);
    assert_string_equal(pk_meta_get(q, "period_us"), "10000");
    char *f = folded_of(q, "samples");
    /* main, work, leaf, other get 0x100000 + 16 k in frame order; the
     * 0x1234 label keeps its address. */
    assert_string_equal(f, "0x100000;0x100010 2\n"
                           "0x100000;0x100010;0x100020 3\n"
                           "0x100000;0x100030;0x100020 1\n"
                           "0x100000;0x1234 4\n");
    free(f);
    free(w);
    profkit_profile_free(q);
    profkit_profile_free(p);
}

/* Counts from a nanosecond value when there is no samples type. */
static void writer_counts_from_time(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new(), *q;
    profkit_error err;
    uint32_t v = pk_value_type_add(p, "cpu", "nanoseconds");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    assert_int_equal(v, 0);
    uint32_t fa = pk_frame_add(p, &(profkit_frame){ 0x1000, pk_function_add_named(p, "a", "", "", 0), 0, 0, PROFKIT_NONE });
    uint32_t fb = pk_frame_add(p, &(profkit_frame){ 0x2000, pk_function_add_named(p, "b", "", "", 0), 0, 0, PROFKIT_NONE });
    uint32_t sa = pk_stack_intern(p, 0, fa), sb = pk_stack_intern(p, sa, fb);
    int64_t x = 25000000; /* 2.5 periods of 10 ms: rounds to 3 */
    assert_int_equal(pk_sample_add(p, sa, th, &x), 0);
    x = 1000; /* a sliver: still one sample */
    assert_int_equal(pk_sample_add(p, sb, th, &x), 0);
    size_t n;
    uint8_t *w = gperftools_of(p, &n, NULL);
    assert_int_equal(read_buf(&q, w, n, &err, 0), 0);
    char *f = folded_of(q, "samples");
    assert_string_equal(f, "0x1000 3\n0x1000;0x2000 1\n");
    free(f);
    free(w);
    profkit_profile_free(q);
    profkit_profile_free(p);
}

/* ---- hostile input: a real profile cut and flipped ---- */

static void every_prefix_and_bit_flips(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = pk_hostile_load("gperftools-real/real1.prof", &n);
    assert_non_null(d); /* presence checked in main */
    pk_hostile_counts cut = { 0 }, flipped = { 0 };
    pk_hostile_prefixes(d, n, "gperftools", &cut);
    assert_int_equal(cut.silent, 0);
    assert_int_equal(cut.read + cut.failed, n);
    /* A prefix that reads has either lost its trailer (warning) or cut the
     * maps text only (it reads silently, with fewer mappings). */
    assert_true(cut.warned > 0);
    assert_true(cut.read >= cut.warned);
    pk_hostile_flips(d, n, "gperftools", 400, &flipped);
    assert_int_equal(flipped.silent, 0);
    assert_int_equal(flipped.read + flipped.failed, 400);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_layout_reads_the_same),
        cmocka_unit_test(java_variant_is_refused),
        cmocka_unit_test(period_zero_is_not_this_format),
        cmocka_unit_test(structural_errors_have_offsets),
        cmocka_unit_test(many_batches_keep_error_order),
        cmocka_unit_test(records_across_the_16_bit_pcs),
        cmocka_unit_test(records_seen_again_in_every_layout),
        cmocka_unit_test(depth_limit_at_the_deepest_record),
        cmocka_unit_test(trailer_rules),
        cmocka_unit_test(text_after_trailer),
        cmocka_unit_test(build_substitution_is_bounded),
        cmocka_unit_test(writer_round_trip),
        cmocka_unit_test(writer_synthesizes_addresses),
        cmocka_unit_test(writer_counts_from_time),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    size_t n;
    uint8_t *d = pk_hostile_load("gperftools-real/real1.prof", &n);
    if (!d) {
        printf("SKIP: hostile-input tests need ../shared/fixtures (absent here)\n");
        return rc;
    }
    free(d);
    const struct CMUnitTest shared_tests[] = {
        cmocka_unit_test(every_prefix_and_bit_flips),
    };
    return rc | cmocka_run_group_tests(shared_tests, NULL, NULL);
}
