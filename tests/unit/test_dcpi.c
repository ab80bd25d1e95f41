/* test_dcpi.c: the DCPI profile reader and writer (docs/formats/dcpi.md). */
#define _GNU_SOURCE /* memmem */
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
static void le32(buf *b, uint32_t v)
{
    uint8_t w[4];
    pk_put_le32(w, v);
    put(b, w, 4);
}

/* Header lines, then `samples` padded to a multiple of 4 (as profkit
 * writes it), then the chunks, then the footer computed from them. */
typedef struct chunk {
    uint32_t off, n;
    uint32_t c[8];
} chunk;

static void make(buf *b, const char *header, const chunk *ch, size_t n_ch, int bad_total)
{
    b->n = 0;
    put(b, header, strlen(header));
    put(b, "samples", 7);
    while ((b->n + 1) % 4)
        put(b, " ", 1);
    put(b, "\n", 1);
    uint32_t nz = 0, total = 0;
    for (size_t i = 0; i < n_ch; i++) {
        le32(b, ch[i].off);
        le32(b, ch[i].n);
        for (uint32_t k = 0; k < ch[i].n; k++) {
            le32(b, ch[i].c[k]);
            nz += ch[i].c[k] != 0;
            total += ch[i].c[k];
        }
    }
    le32(b, nz);
    le32(b, total + (bad_total ? 1 : 0));
}

static int read_mem(profkit_profile **p, const buf *b, const char *format, profkit_error *err)
{
    profkit_read_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.format = format;
    return profkit_profile_read_memory(p, b->d, b->n, "test.dcpi", &ro, err);
}

/* Value of `v` at address `a` in thread `th`, summed over rows. */
static int64_t at(const profkit_profile *p, uint32_t v, uint32_t th, uint64_t a)
{
    int64_t s = 0;
    for (size_t i = 0; i < p->n_samples; i++) {
        uint32_t st = p->sample_stack[i];
        if (st && p->sample_thread[i] == th && p->frames[p->stacks[st].frame].address == a)
            s += p->sample_values[i * p->n_value_types + v];
    }
    return s;
}

#define HEAD(event, extra)                                                                    \
    "version 0.07\nimage 0123abcd\nepoch 9805191724\nplatform walnut\nevent " event "\n"      \
    "period 63488\ntsize 4096\ncpuspeed 500\n" extra

static const chunk CH[] = { { 0, 3, { 5, 1, 7 } }, { 40, 1, { 2 } }, { 100, 2, { 9, 3 } } };

static void reads_addresses_and_header(void **state)
{
    (void)state;
    static buf b;
    make(&b, HEAD("cycles 63488 x", "tstart 0x120000000\nlabel a b  c\npath /bin/walnut\n"), CH,
         3, 0);
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(read_mem(&p, &b, NULL, &err), 0); /* detected */
    assert_string_equal(profkit_profile_format(p), "dcpi");
    assert_int_equal(p->n_value_types, 1);
    assert_string_equal(pk_str(p, p->value_types[0].type), "cycles");
    assert_string_equal(pk_str(p, p->value_types[0].unit), "count");
    assert_int_equal(profkit_profile_find_value(p, "samples"), 0); /* the alias */
    assert_int_equal(p->n_threads, 1);
    assert_string_equal(pk_str(p, p->threads[0].name), "/bin/walnut");
    const uint64_t t0 = 0x120000000ull;
    assert_int_equal(at(p, 0, 0, t0), 5);
    assert_int_equal(at(p, 0, 0, t0 + 4), 1);
    assert_int_equal(at(p, 0, 0, t0 + 8), 7);
    assert_int_equal(at(p, 0, 0, t0 + 40), 2);
    assert_int_equal(at(p, 0, 0, t0 + 104), 3);
    assert_int_equal(p->n_samples, 6);
    assert_string_equal(pk_meta_get(p, "event"), "cycles 63488 x");
    assert_string_equal(pk_meta_get(p, "format_version"), "0.07");
    /* The image's mapping: its first byte at tstart, tsize bytes, the path
     * line; unnamed frames are labelled by it (IMAGE+0xOFFSET). */
    assert_int_equal(p->n_mappings, 1);
    assert_int_equal(p->mappings[0].start, t0);
    assert_int_equal(p->mappings[0].end, t0 + 4096);
    assert_int_equal(p->mappings[0].offset, 0);
    assert_string_equal(pk_str(p, p->mappings[0].path), "/bin/walnut");
    for (size_t i = 0; i < p->n_frames; i++)
        assert_int_equal(p->frames[i].mapping, 0);
    char label[64];
    pk_frame_label(p, p->stacks[p->sample_stack[0]].frame, 0, label, sizeof(label));
    assert_string_equal(label, "walnut+0x0");
    profkit_profile_free(p);

    /* Without tstart the offsets are the addresses; without path the thread
     * is "image <id>". */
    make(&b, HEAD("imiss", ""), CH, 3, 0);
    assert_int_equal(read_mem(&p, &b, "dcpi", &err), 0);
    assert_string_equal(pk_str(p, p->threads[0].name), "image 0123abcd");
    assert_int_equal(at(p, 0, 0, 104), 3);
    profkit_profile_free(p);
}

static int write_tmp(const profkit_profile *p, const char *value, const char *thread, buf *out)
{
    char path[] = "/tmp/test_dcpi_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    profkit_write_options wo;
    memset(&wo, 0, sizeof(wo));
    wo.format = "dcpi";
    wo.value = value;
    wo.thread = thread;
    profkit_error err;
    int rc = profkit_profile_write_file(p, path, &wo, &err);
    if (rc == 0) {
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        out->n = fread(out->d, 1, sizeof(out->d), f);
        fclose(f);
    }
    unlink(path);
    return rc;
}

static void canonical_round_trip_is_byte_exact(void **state)
{
    (void)state;
    static buf b, w;
    /* Headers of every length mod 4, so every padding is exercised. */
    const char *extra[] = { "", "x 1\n", "x 12\n", "x 123\n", "tstart 10\nodd\n\n" };
    for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
        char head[512];
        snprintf(head, sizeof(head), HEAD("cycles", "%s"), extra[i]);
        make(&b, head, CH, 3, 0);
        profkit_profile *p;
        profkit_error err;
        assert_int_equal(read_mem(&p, &b, "dcpi", &err), 0);
        assert_int_equal(write_tmp(p, NULL, NULL, &w), 0);
        assert_int_equal(w.n, b.n);
        assert_memory_equal(w.d, b.d, b.n);
        profkit_profile_free(p);
    }
}

/* Zero counts inside chunks and a tab in the `samples` line are valid but not
 * what profkit writes: the rewrite keeps every count and is itself canonical. */
static void non_canonical_becomes_canonical(void **state)
{
    (void)state;
    static buf b, w1, w2;
    const chunk ch[] = { { 8, 4, { 0, 4, 0, 6 } }, { 24, 1, { 1 } } };
    make(&b, HEAD("cycles", ""), ch, 2, 0);
    /* replace the padding of `samples` by a tab */
    uint8_t *s = memmem(b.d, b.n, "samples", 7);
    assert_non_null(s);
    s[7] = '\t';
    profkit_profile *p, *q;
    profkit_error err;
    assert_int_equal(read_mem(&p, &b, "dcpi", &err), 0);
    assert_int_equal(write_tmp(p, NULL, NULL, &w1), 0);
    assert_int_equal(read_mem(&q, &w1, "dcpi", &err), 0);
    assert_int_equal(write_tmp(q, NULL, NULL, &w2), 0);
    assert_int_equal(w1.n, w2.n);
    assert_memory_equal(w1.d, w2.d, w1.n);
    for (uint64_t a = 0; a < 40; a += 4)
        assert_int_equal(at(p, 0, 0, a), at(q, 0, 0, a));
    assert_int_equal(at(q, 0, 0, 20), 6);
    assert_int_equal(at(q, 0, 0, 24), 1);
    /* binary part aligned: the byte after "samples...\n" is at a multiple of 4 */
    uint8_t *nl = memchr(memmem(w1.d, w1.n, "samples", 7), '\n', 12);
    assert_int_equal((size_t)(nl + 1 - w1.d) % 4, 0);
    profkit_profile_free(p);
    profkit_profile_free(q);
}

static void merge_events_and_images(void **state)
{
    (void)state;
    static buf a, b, c, w;
    make(&a, HEAD("cycles", "tstart 1000\n"), CH, 3, 0);
    const chunk ch2[] = { { 4, 2, { 11, 12 } } };
    make(&b, HEAD("imiss", "tstart 1000\n"), ch2, 1, 0);
    make(&c, "image 99\nepoch 9805191724\nplatform p\nevent cycles\nperiod 1\ntsize 8\n"
             "cpuspeed 1\n", ch2, 1, 0);
    profkit_profile *pa, *pb, *pc;
    profkit_error err;
    assert_int_equal(read_mem(&pa, &a, "dcpi", &err), 0);
    assert_int_equal(read_mem(&pb, &b, "dcpi", &err), 0);
    assert_int_equal(read_mem(&pc, &c, "dcpi", &err), 0);
    assert_int_equal(profkit_profile_merge(pa, pb, &err), 0);
    /* same image, two events: one thread, one value type per event */
    assert_int_equal(pa->n_threads, 1);
    assert_int_equal(pa->n_value_types, 2);
    uint32_t cy = profkit_profile_find_value(pa, "cycles"), im = profkit_profile_find_value(pa, "imiss");
    assert_int_equal(at(pa, cy, 0, 0x1004), 1);
    assert_int_equal(at(pa, im, 0, 0x1004), 11);
    assert_int_equal(at(pa, im, 0, 0x1008), 12);
    assert_int_equal(profkit_profile_find_value(pa, "samples"), cy); /* first file's event */
    /* each event writes back as the file it came from */
    assert_int_equal(write_tmp(pa, "cycles", NULL, &w), 0);
    assert_int_equal(w.n, a.n);
    assert_memory_equal(w.d, a.d, a.n);
    assert_int_equal(write_tmp(pa, "imiss", NULL, &w), 0);
    assert_int_equal(w.n, b.n);
    assert_memory_equal(w.d, b.d, b.n);
    /* another image: another thread; the writer then needs --thread */
    assert_int_equal(profkit_profile_merge(pa, pc, &err), 0);
    assert_int_equal(pa->n_threads, 2);
    assert_int_equal(pa->n_value_types, 2);
    assert_int_equal(write_tmp(pa, "cycles", NULL, &w), PROFKIT_EINVAL);
    assert_int_equal(write_tmp(pa, "cycles", "image 99", &w), 0);
    assert_int_equal(w.n, c.n);
    assert_memory_equal(w.d, c.d, c.n);
    profkit_profile_free(pa);
    profkit_profile_free(pb);
    profkit_profile_free(pc);
}

static void errors_name_offsets(void **state)
{
    (void)state;
    static buf b;
    profkit_profile *p;
    profkit_error err;
    const chunk order[] = { { 100, 1, { 1 } }, { 96, 1, { 1 } } };
    make(&b, HEAD("cycles", ""), order, 2, 0);
    size_t body = (size_t)((uint8_t *)memchr(memmem(b.d, b.n, "samples", 7), '\n', 12) - b.d) + 1;
    assert_int_equal(read_mem(&p, &b, "dcpi", &err), PROFKIT_ECORRUPT);
    assert_int_equal(err.offset, body + 12);
    assert_null(p);
    /* touching chunks are fine, one byte of overlap is not */
    const chunk touch[] = { { 0, 2, { 1, 1 } }, { 8, 1, { 1 } } };
    make(&b, HEAD("cycles", ""), touch, 2, 0);
    assert_int_equal(read_mem(&p, &b, "dcpi", &err), 0);
    profkit_profile_free(p);
    const chunk over[] = { { 0, 2, { 1, 1 } }, { 7, 1, { 1 } } };
    make(&b, HEAD("cycles", ""), over, 2, 0);
    assert_int_equal(read_mem(&p, &b, "dcpi", &err), PROFKIT_ECORRUPT);
    assert_non_null(strstr(err.message, "overlaps"));
    make(&b, HEAD("cycles", ""), CH, 3, 1);
    assert_int_equal(read_mem(&p, &b, "dcpi", &err), PROFKIT_ECORRUPT);
    assert_int_equal(err.offset, b.n - 4);
    make(&b, "version 1.01\n" HEAD("cycles", ""), CH, 3, 0);
    assert_int_equal(read_mem(&p, &b, "dcpi", &err), PROFKIT_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "unsupported DCPI binary version"));
    assert_int_equal(err.offset, 8);
    /* 10, 12 and 14 digit epochs; 13 is refused */
    const char *epochs[] = { "9805191724", "199805191724", "19980519172400", "1998051917240" };
    for (int i = 0; i < 4; i++) {
        char head[256];
        snprintf(head, sizeof(head),
                 "image 1\nepoch %s\nplatform p\nevent e\nperiod 1\ntsize 1\ncpuspeed 1\n",
                 epochs[i]);
        make(&b, head, CH, 3, 0);
        int rc = read_mem(&p, &b, "dcpi", &err);
        assert_int_equal(rc, i < 3 ? 0 : PROFKIT_ECORRUPT);
        if (rc == 0)
            profkit_profile_free(p);
        else
            assert_int_equal(err.offset, 14);
    }
}

static void count_warning(const profkit_error *w, void *payload)
{
    assert_true(w->message[0] != 0);
    ++*(int *)payload;
}

/* Cut at every byte: never a crash; an error at an offset inside the cut
 * (in the header), or, once the header is whole, the complete chunks
 * before the cut with a "truncated" warning, never more samples. */
static void every_truncation_fails_cleanly(void **state)
{
    (void)state;
    static buf b, cut;
    make(&b, HEAD("cycles", "tstart 0x10\n"), CH, 3, 0);
    int kept = 0;
    for (size_t k = 0; k < b.n; k++) {
        memcpy(cut.d, b.d, k);
        cut.n = k;
        profkit_profile *p;
        profkit_error err;
        profkit_read_options ro;
        memset(&ro, 0, sizeof(ro));
        ro.format = "dcpi";
        int warnings = 0;
        ro.on_warning = count_warning;
        ro.payload = &warnings;
        int rc = profkit_profile_read_memory(&p, cut.d, cut.n, "test.dcpi", &ro, &err);
        if (rc != 0) {
            assert_null(p);
            assert_true(err.has_offset);
            assert_true(err.offset <= k);
            continue;
        }
        assert_int_equal(warnings, 1);
        int64_t total = 0;
        for (size_t i = 0; i < p->n_samples; i++)
            total += p->sample_values[i];
        assert_true(total < 5 + 1 + 7 + 2 + 9 + 3);
        kept += total > 0;
        profkit_profile_free(p);
    }
    assert_true(kept > 0);
}

/* Seeded bit flips of a larger file (many chunks, so the flips hit offsets,
 * counts and the footer alike): an error with a message or a profile, never
 * a crash or a silent failure, under the sanitizers. */
static void bit_flips_fail_cleanly(void **state)
{
    (void)state;
    static buf b;
    static chunk many[64];
    for (uint32_t i = 0; i < 64; i++) {
        for (uint32_t j = 0; j < 8; j++)
            many[i].c[j] = (i * 7 + j * 3) % 5;
        many[i].off = i * 64;
        many[i].n = 8;
    }
    make(&b, HEAD("cycles", "tstart 0x10\n"), many, 64, 0);
    pk_hostile_counts c = { 0, 0, 0, 0 };
    pk_hostile_flips(b.d, b.n, "dcpi", 600, &c);
    assert_int_equal(c.silent, 0);
    assert_int_equal(c.read + c.failed, 600);
    assert_true(c.failed > 0);
    assert_true(c.read > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_addresses_and_header),
        cmocka_unit_test(canonical_round_trip_is_byte_exact),
        cmocka_unit_test(non_canonical_becomes_canonical),
        cmocka_unit_test(merge_events_and_images),
        cmocka_unit_test(errors_name_offsets),
        cmocka_unit_test(every_truncation_fails_cleanly),
        cmocka_unit_test(bit_flips_fail_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
