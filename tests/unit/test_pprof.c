/*
 * test_pprof.c: the pprof protobuf reader and writer (src/formats/pprof/pprof.c,
 * pprof_write.c): messages built here byte by byte (inline frames, ids used
 * before they are defined, packed and unpacked fields, unknown fields of every
 * wire type, labels, the default sample type rule), wire errors with their
 * offsets, the writer read back, and, when ../shared is present, every prefix
 * and a few hundred seeded bit flips of a real profile.
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

/* ---- building messages ---- */

typedef struct pbuf {
    uint8_t d[4096];
    size_t n;
} pbuf;

static void put_varint(pbuf *b, uint64_t v)
{
    while (v >= 0x80) {
        b->d[b->n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->d[b->n++] = (uint8_t)v;
}

static void put_tag(pbuf *b, unsigned num, unsigned wt) { put_varint(b, (uint64_t)num << 3 | wt); }

static void vf(pbuf *b, unsigned num, uint64_t v)
{
    put_tag(b, num, 0);
    put_varint(b, v);
}

static void lf(pbuf *b, unsigned num, const pbuf *sub)
{
    put_tag(b, num, 2);
    put_varint(b, sub->n);
    memcpy(b->d + b->n, sub->d, sub->n);
    b->n += sub->n;
}

static void sf(pbuf *b, unsigned num, const char *s)
{
    put_tag(b, num, 2);
    put_varint(b, strlen(s));
    memcpy(b->d + b->n, s, strlen(s));
    b->n += strlen(s);
}

/* A ValueType, Line, ... with two varint fields 1 and 2 (0 = left out). */
static void pair(pbuf *b, unsigned num, uint64_t a, uint64_t c)
{
    pbuf s = { .n = 0 };
    if (a)
        vf(&s, 1, a);
    if (c)
        vf(&s, 2, c);
    lf(b, num, &s);
}

static const char *const STR[] = { "", "samples", "count", "cpu", "nanoseconds", "leaf",
                                   "inl", "outer", "thread", "t1", "t2", "x.c", "main" };
enum { S_SAMPLES = 1, S_COUNT, S_CPU, S_NS, S_LEAF, S_INL, S_OUTER, S_THREAD, S_T1, S_T2, S_XC, S_MAIN };

static void strings(pbuf *b)
{
    for (size_t i = 0; i < sizeof(STR) / sizeof(STR[0]); i++)
        sf(b, 6, STR[i]);
}

static void function(pbuf *b, uint64_t id, uint64_t name)
{
    pbuf s = { .n = 0 };
    vf(&s, 1, id);
    vf(&s, 2, name);
    vf(&s, 4, S_XC);
    lf(b, 5, &s);
}

static int read_buf(profkit_profile **p, const void *d, size_t n, profkit_error *err)
{
    profkit_read_options ro = { 0 };
    ro.format = "pprof";
    return profkit_profile_read_memory(p, d, n, "t.pb", &ro, err);
}

/* The folded text (root;...;leaf COUNT per line) of a profile, via a file. */
static char *folded_of(const profkit_profile *p, const char *value, const char *thread)
{
    char path[] = "/tmp/pk_pprof_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    profkit_write_options wo = { 0 };
    wo.format = "folded";
    wo.value = value;
    wo.thread = thread;
    profkit_error err;
    assert_int_equal(profkit_profile_write_file(p, path, &wo, &err), 0);
    FILE *f = fopen(path, "rb");
    char *buf = calloc(1, 1 << 16);
    size_t got = fread(buf, 1, (1 << 16) - 1, f);
    buf[got] = 0;
    fclose(f);
    unlink(path);
    return buf;
}

/* Samples first, then the locations and functions they name. */
static void base_profile(pbuf *b, int with_default)
{
    pbuf s = { .n = 0 }, t = { .n = 0 };
    b->n = 0;
    pair(b, 1, S_SAMPLES, S_COUNT);
    pair(b, 1, S_CPU, S_NS);
    /* sample 1: packed ids [1, 2] (leaf first), packed values */
    put_varint(&t, 1);
    put_varint(&t, 2);
    lf(&s, 1, &t);
    t.n = 0;
    put_varint(&t, 3);
    put_varint(&t, 30);
    lf(&s, 2, &t);
    lf(b, 2, &s);
    /* sample 2: unpacked, same stack: merged with sample 1 */
    s.n = 0;
    vf(&s, 1, 1);
    vf(&s, 1, 2);
    vf(&s, 2, 4);
    vf(&s, 2, 40);
    lf(b, 2, &s);
    /* location 2: inlined: Line[0] inl (innermost), Line[1] outer */
    s.n = 0;
    vf(&s, 1, 2);
    vf(&s, 3, 0x2000);
    pair(&s, 4, 2, 20);
    pair(&s, 4, 3, 30);
    lf(b, 4, &s);
    s.n = 0;
    vf(&s, 1, 1);
    vf(&s, 3, 0x1000);
    pair(&s, 4, 1, 10);
    lf(b, 4, &s);
    function(b, 3, S_OUTER);
    function(b, 1, S_LEAF);
    function(b, 2, S_INL);
    strings(b);
    if (with_default)
        vf(b, 14, S_SAMPLES);
}

static void inline_frames_and_forward_ids(void **state)
{
    (void)state;
    pbuf b;
    base_profile(&b, 0);
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_buf(&p, b.d, b.n, &err), 0);
    /* The last sample type is the default when none is named. */
    assert_int_equal(p->default_value, 1);
    char *f = folded_of(p, "cpu", NULL);
    assert_string_equal(f, "outer;inl;leaf 70\n");
    free(f);
    f = folded_of(p, "samples", NULL);
    assert_string_equal(f, "outer;inl;leaf 7\n");
    free(f);
    /* the leaf frame keeps its address, line and file */
    uint32_t leaf = p->stacks[p->sample_stack[0]].frame;
    assert_int_equal(p->frames[leaf].address, 0x1000);
    assert_int_equal(p->frames[leaf].line, 10);
    assert_string_equal(pk_str(p, p->functions[p->frames[leaf].function].file), "x.c");
    /* both inline frames carry the location's address */
    uint32_t inl = p->stacks[p->stacks[p->sample_stack[0]].parent].frame;
    assert_int_equal(p->frames[inl].address, 0x2000);
    assert_int_equal(p->frames[inl].line, 20);
    profkit_profile_free(p);
}

static void default_sample_type_rule(void **state)
{
    (void)state;
    pbuf b;
    base_profile(&b, 1);
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_buf(&p, b.d, b.n, &err), 0);
    assert_int_equal(p->default_value, 0); /* "samples", named by type */
    assert_string_equal(pk_meta_get(p, "default_sample_type"), "samples");
    profkit_profile_free(p);
    /* a default naming no sample type falls back to the last */
    base_profile(&b, 0);
    vf(&b, 14, S_LEAF);
    assert_int_equal(read_buf(&p, b.d, b.n, &err), 0);
    assert_int_equal(p->default_value, 1);
    profkit_profile_free(p);
}

static void unknown_fields_are_skipped(void **state)
{
    (void)state;
    pbuf b, s = { .n = 0 };
    base_profile(&b, 0);
    /* unknown top-level fields of wire types 0, 1, 2, 5 */
    vf(&b, 40, 12345);
    put_tag(&b, 41, 1);
    memset(b.d + b.n, 0xff, 8);
    b.n += 8;
    sf(&b, 42, "opaque");
    put_tag(&b, 43, 5);
    memset(b.d + b.n, 0xff, 4);
    b.n += 4;
    /* and inside a Sample and a Function */
    vf(&s, 1, 1);
    vf(&s, 2, 1);
    vf(&s, 2, 10);
    vf(&s, 9, 7);
    sf(&s, 10, "x");
    lf(&b, 2, &s);
    s.n = 0;
    vf(&s, 1, 4);
    vf(&s, 2, S_LEAF);
    put_tag(&s, 8, 1);
    memset(s.d + s.n, 0, 8);
    s.n += 8;
    lf(&b, 5, &s);
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_buf(&p, b.d, b.n, &err), 0);
    char *f = folded_of(p, "cpu", NULL);
    assert_string_equal(f, "leaf 10\nouter;inl;leaf 70\n");
    free(f);
    profkit_profile_free(p);
}

static void thread_labels(void **state)
{
    (void)state;
    pbuf b, s = { .n = 0 };
    base_profile(&b, 0);
    for (int i = 0; i < 4; i++) {
        s.n = 0;
        vf(&s, 1, 1);
        vf(&s, 2, 1);
        vf(&s, 2, 100);
        pair(&s, 3, S_THREAD, i == 3 ? S_MAIN : i == 2 ? S_T2 : S_T1);
        lf(&b, 2, &s);
    }
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_buf(&p, b.d, b.n, &err), 0);
    /* main (unlabelled, and labelled "main": one thread), t1, t2 */
    assert_int_equal(p->n_threads, 3);
    char *f = folded_of(p, "cpu", "t1");
    assert_string_equal(f, "leaf 200\n");
    free(f);
    f = folded_of(p, "cpu", "main");
    assert_string_equal(f, "leaf 100\nouter;inl;leaf 70\n");
    free(f);
    profkit_profile_free(p);
}

/* Ids far apart (no dense table) resolve through the sorted index. */
static void sparse_ids(void **state)
{
    (void)state;
    const uint64_t big = UINT64_MAX - 1, fid = (uint64_t)1 << 50;
    pbuf b = { .n = 0 }, s = { .n = 0 };
    pair(&b, 1, S_CPU, S_NS);
    vf(&s, 1, big);
    vf(&s, 1, 7);
    vf(&s, 2, 5);
    lf(&b, 2, &s);
    s.n = 0;
    vf(&s, 1, big);
    pair(&s, 4, fid, 1);
    lf(&b, 4, &s);
    s.n = 0;
    vf(&s, 1, 7);
    pair(&s, 4, fid, 2);
    lf(&b, 4, &s);
    function(&b, fid, S_OUTER);
    strings(&b);
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_buf(&p, b.d, b.n, &err), 0);
    char *f = folded_of(p, NULL, NULL);
    assert_string_equal(f, "outer;outer 5\n");
    free(f);
    profkit_profile_free(p);
    /* and an id that is missing between them */
    s.n = 0;
    vf(&s, 1, 8);
    vf(&s, 2, 1);
    lf(&b, 2, &s);
    assert_int_equal(read_buf(&p, b.d, b.n, &err), PROFKIT_ECORRUPT);
    assert_non_null(strstr(err.message, "no location has id 8"));
}

static void expect_error(const pbuf *b, int code, uint64_t offset, const char *text)
{
    profkit_profile *p = NULL;
    profkit_error err;
    assert_int_equal(read_buf(&p, b->d, b->n, &err), code);
    assert_null(p);
    assert_true(err.has_offset);
    assert_int_equal(err.offset, offset);
    if (!strstr(err.message, text))
        fail_msg("message [%s] lacks [%s]", err.message, text);
}

static void wire_errors(void **state)
{
    (void)state;
    pbuf b = { .n = 0 };
    pair(&b, 1, 1, 2); /* 6 bytes */
    size_t base = b.n;
    for (unsigned wt = 3; wt <= 7; wt++) {
        if (wt == 5)
            continue;
        b.n = base;
        put_tag(&b, 15, wt);
        expect_error(&b, PROFKIT_ECORRUPT, base, wt < 5 ? "group" : "invalid wire type");
    }
    b.n = base;
    b.d[b.n++] = 0x08 << 1; /* field 2 (sample), wire type 0 */
    b.d[b.n++] = 0x80;      /* varint cut short */
    expect_error(&b, PROFKIT_ETRUNCATED, base + 1, "runs past the end");
    b.n = base;
    put_tag(&b, 3, 2);
    put_varint(&b, 50);
    expect_error(&b, PROFKIT_ETRUNCATED, base, "length 50 runs past the end");
    /* eleven continuation bytes: over-long */
    b.n = base;
    put_tag(&b, 9, 0);
    memset(b.d + b.n, 0xff, 11);
    b.n += 11;
    expect_error(&b, PROFKIT_ECORRUPT, base + 1, "over-long");
    /* a varint cut by the end of its submessage, not of the input */
    b.n = base;
    b.d[b.n++] = 0x22; /* field 4 (location), wire type 2 */
    b.d[b.n++] = 2;
    b.d[b.n++] = 0x08;
    b.d[b.n++] = 0x80;
    b.d[b.n++] = 0x01; /* would end the varint, but lies outside the location */
    expect_error(&b, PROFKIT_ECORRUPT, base + 3, "value runs past the end of its message");
    /* field number 0 */
    b.n = base;
    b.d[b.n++] = 0x02;
    b.d[b.n++] = 0x00;
    expect_error(&b, PROFKIT_ECORRUPT, base, "field number 0");
}

static void reference_errors(void **state)
{
    (void)state;
    pbuf b, s = { .n = 0 };
    base_profile(&b, 0);
    size_t at = b.n;
    vf(&s, 1, 1);
    vf(&s, 1, 77);
    vf(&s, 2, 1);
    vf(&s, 2, 1);
    lf(&b, 2, &s);
    /* the offending id's offset: tag and length (2), first id (2), tag */
    expect_error(&b, PROFKIT_ECORRUPT, at + 4, "no location has id 77");
    base_profile(&b, 0);
    at = b.n;
    function(&b, 9, 500);
    expect_error(&b, PROFKIT_ECORRUPT, at + 4, "string index 500 out of range");
    base_profile(&b, 0);
    at = b.n;
    function(&b, 1, S_LEAF);
    expect_error(&b, PROFKIT_ECORRUPT, at, "id 1 is defined twice");
}

/* ---- the writer ---- */

/* Sample row r's stack, root first: "name:line@depth/0xADDR;...". */
static void stack_text(const profkit_profile *p, size_t r, char *buf, size_t n)
{
    uint32_t chain[64];
    size_t k = 0, used = 0;
    for (uint32_t s = p->sample_stack[r]; s != 0 && k < 64; s = p->stacks[s].parent)
        chain[k++] = p->stacks[s].frame;
    buf[0] = 0;
    while (k-- > 0) {
        const profkit_frame *f = &p->frames[chain[k]];
        used += (size_t)snprintf(buf + used, n - used, "%s:%u@%u/0x%llx;",
                                 pk_str(p, p->functions[f->function].name), f->line, f->inline_depth,
                                 (unsigned long long)f->address);
        assert_true(used < n);
    }
}

static void inline_chains_round_trip(void **state)
{
    (void)state;
    /* What the symbolizer makes of address 0x400100: main (the real
     * function) with mix inlined into it and hot into mix. As a leaf the
     * whole chain; as a return address (another sample) a shorter chain of
     * the same address; and a chain shared by two samples. */
    profkit_profile *p = profkit_profile_new();
    pk_value_type_add(p, "samples", "count");
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    uint32_t m = pk_mapping_add(p, 0x400000, 0x500000, 0, "/bin/app", "");
    profkit_frame fr = { 0 };
    fr.mapping = m;
    fr.address = 0x400100;
    fr.function = pk_function_add_named(p, "main", "m.c", NULL, 1);
    fr.line = 10;
    uint32_t f_main = pk_frame_add(p, &fr);
    fr.function = pk_function_add_named(p, "mix", "m.c", NULL, 20);
    fr.line = 22;
    fr.inline_depth = 1;
    uint32_t f_mix = pk_frame_add(p, &fr);
    fr.function = pk_function_add_named(p, "hot", "m.c", NULL, 30);
    fr.line = 31;
    fr.inline_depth = 2;
    uint32_t f_hot = pk_frame_add(p, &fr);
    fr.address = 0x400200;
    fr.function = pk_function_add_named(p, "callee", "m.c", NULL, 40);
    fr.line = 41;
    fr.inline_depth = 0;
    uint32_t f_callee = pk_frame_add(p, &fr);
    uint32_t s_main = pk_stack_intern(p, 0, f_main);
    uint32_t s_mix = pk_stack_intern(p, s_main, f_mix);
    uint32_t s_hot = pk_stack_intern(p, s_mix, f_hot);
    uint32_t s_callee = pk_stack_intern(p, s_mix, f_callee);
    uint32_t s_hot2 = pk_stack_intern(p, pk_stack_intern(p, s_callee, f_main), f_mix);
    int64_t one = 1, two = 2, three = 3;
    assert_int_equal(pk_sample_add(p, s_hot, t, &one), 0);
    assert_int_equal(pk_sample_add(p, s_callee, t, &two), 0);
    assert_int_equal(pk_sample_add(p, s_hot2, t, &three), 0);

    char path[] = "/tmp/pk_pprof_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    profkit_write_options wo = { 0 };
    wo.format = "pprof";
    profkit_error err;
    assert_int_equal(profkit_profile_write_file(p, path, &wo, &err), 0);
    profkit_profile *q;
    profkit_read_options ro = { 0 };
    assert_int_equal(profkit_profile_read_file(&q, path, &ro, &err), 0);
    unlink(path);
    assert_int_equal(q->n_samples, 3);
    for (size_t r = 0; r < 3; r++) {
        char a[512], b[512];
        stack_text(p, r, a, sizeof(a));
        stack_text(q, r, b, sizeof(b));
        assert_string_equal(a, b);
    }
    char b[512];
    stack_text(q, 0, b, sizeof(b));
    assert_string_equal(b, "main:10@0/0x400100;mix:22@1/0x400100;hot:31@2/0x400100;");
    profkit_profile_free(q);
    profkit_profile_free(p);
}

static void writer_round_trip(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    uint32_t vs = pk_value_type_add(p, "samples", "count");
    uint32_t vc = pk_value_type_add(p, "cpu", "nanoseconds");
    p->default_value = vs;
    uint32_t t1 = pk_thread_add(p, "alpha", "", -1, -1);
    uint32_t t2 = pk_thread_add(p, "beta", "", -1, -1);
    uint32_t m = pk_mapping_add(p, 0x400000, 0x500000, 0x1000, "/bin/app", "abc123");
    profkit_frame fr = { 0 };
    fr.function = pk_function_add_named(p, "main", "m.c", NULL, 3);
    fr.mapping = m;
    fr.address = 0x400100;
    fr.line = 5;
    uint32_t f1 = pk_frame_add(p, &fr);
    fr.function = pk_function_add_named(p, "0x400200", NULL, NULL, 0);
    fr.address = 0x400200;
    fr.line = 0;
    uint32_t f2 = pk_frame_add(p, &fr); /* unsymbolized */
    uint32_t s1 = pk_stack_intern(p, 0, f1);
    uint32_t s2 = pk_stack_intern(p, s1, f2);
    int64_t v1[2] = { 2, 20 }, v2[2] = { 5, -50 };
    (void)vc;
    assert_int_equal(pk_sample_add(p, s2, t1, v1), 0);
    assert_int_equal(pk_sample_add(p, s1, t2, v2), 0);
    assert_int_equal(pk_meta_add(p, "period_type", "cpu/nanoseconds"), 0);
    assert_int_equal(pk_meta_add(p, "period", "1000000"), 0);
    assert_int_equal(pk_meta_add(p, "comment", "hello"), 0);

    char path[] = "/tmp/pk_pprof_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    profkit_write_options wo = { 0 };
    wo.format = "pprof";
    profkit_error err;
    assert_int_equal(profkit_profile_write_file(p, path, &wo, &err), 0);
    profkit_profile *q;
    profkit_read_options ro = { 0 };
    assert_int_equal(profkit_profile_read_file(&q, path, &ro, &err), 0); /* detected */
    unlink(path);
    assert_string_equal(profkit_profile_format(q), "pprof");
    assert_int_equal(q->n_value_types, 2);
    assert_int_equal(q->default_value, 0);
    assert_int_equal(q->n_threads, 2);
    char *a = folded_of(q, "cpu", "alpha"), *b = folded_of(q, "samples", "beta");
    assert_string_equal(a, "main;0x400200 20\n");
    assert_string_equal(b, "main 5\n");
    free(a);
    free(b);
    a = folded_of(q, "cpu", "beta");
    assert_string_equal(a, "main -50\n");
    free(a);
    assert_string_equal(pk_meta_get(q, "period"), "1000000");
    assert_string_equal(pk_meta_get(q, "period_type"), "cpu/nanoseconds");
    assert_string_equal(pk_meta_get(q, "comment"), "hello");
    assert_int_equal(q->n_mappings, 1);
    assert_int_equal(q->mappings[0].start, 0x400000);
    assert_int_equal(q->mappings[0].end, 0x500000);
    assert_int_equal(q->mappings[0].offset, 0x1000);
    assert_string_equal(pk_str(q, q->mappings[0].path), "/bin/app");
    assert_string_equal(pk_str(q, q->mappings[0].build_id), "abc123");
    /* the main frame keeps file, line and start line; all frames the mapping */
    int seen = 0;
    for (size_t i = 0; i < q->n_frames; i++) {
        const profkit_function *fn = &q->functions[q->frames[i].function];
        assert_int_equal(q->frames[i].mapping, 0);
        if (strcmp(pk_str(q, fn->name), "main") == 0) {
            seen++;
            assert_int_equal(q->frames[i].line, 5);
            assert_int_equal(fn->start_line, 3);
            assert_string_equal(pk_str(q, fn->file), "m.c");
        }
    }
    assert_int_equal(seen, 1);
    profkit_profile_free(q);
    profkit_profile_free(p);
}

/* ---- hostile input: a real profile cut and flipped ---- */

static void every_prefix_and_bit_flips(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = pk_hostile_load("pprof/cppbench.pb.gz", &n);
    assert_non_null(d);
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_buf(&p, d, n, &err), 0);
    char *whole = folded_of(p, NULL, NULL);
    assert_non_null(strstr(whole, "0x42ed43 5420000000\n"));
    free(whole);
    profkit_profile_free(p);
    pk_hostile_counts cut = { 0 }, flipped = { 0 };
    pk_hostile_prefixes(d, n, "pprof", &cut);
    assert_int_equal(cut.silent, 0);
    /* Protobuf has no end marker: a cut between two top-level fields can
     * read, but the string table comes last here, so nearly all fail. */
    assert_true(cut.failed > n * 9 / 10);
    pk_hostile_flips(d, n, "pprof", 400, &flipped);
    assert_int_equal(flipped.silent, 0);
    assert_true(flipped.read > 0);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(inline_frames_and_forward_ids),
        cmocka_unit_test(default_sample_type_rule),
        cmocka_unit_test(unknown_fields_are_skipped),
        cmocka_unit_test(thread_labels),
        cmocka_unit_test(sparse_ids),
        cmocka_unit_test(wire_errors),
        cmocka_unit_test(reference_errors),
        cmocka_unit_test(writer_round_trip),
        cmocka_unit_test(inline_chains_round_trip),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    size_t n;
    uint8_t *d = pk_hostile_load("pprof/cppbench.pb.gz", &n);
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
