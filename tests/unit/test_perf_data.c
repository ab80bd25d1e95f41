/* test_perf_data.c: the perf.data reader (docs/formats/perf_data.md).
 *   - the hand-made ok_synthetic files (tests/data/perf_data/make_files.py)
 *     read to exactly the samples, threads, times, values, frames,
 *     mappings, build ids and metadata they hold, the same in all five
 *     forms (file and pipe mode, either byte order, zstd-compressed);
 *   - the real recordings (record.sh) agree, sample by sample, with the
 *     `perf script` output recorded beside them: thread, pid/tid, time,
 *     period, and each frame's DSO and address in it;
 *   - every prefix and seeded bit flips of them read to a profile or an
 *     error with a message. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/perf/perf_kallsyms.h"
#include "model/model.h"
#include "hostile.h"
#include "test_files.h"

static uint8_t *load(const char *name, size_t *n)
{
    char rel[512];
    snprintf(rel, sizeof(rel), "tests/data/perf_data/%s", name);
    return (uint8_t *)pk_test_slurp_src(rel, n);
}

static profkit_profile *read_file(const char *name)
{
    size_t n;
    uint8_t *d = load(name, &n);
    assert_non_null(d);
    profkit_read_options ro = { 0 };
    profkit_profile *p = NULL;
    profkit_error err;
    int rc = profkit_profile_read_memory(&p, d, n, name, &ro, &err);
    if (rc)
        fail_msg("%s: %s", name, err.message);
    free(d);
    return p;
}

/* A frame as DSO+0xOFFSET (the offset in the file, as perf script prints
 * its address) or 0xADDRESS without a mapping. */
static int frame_text(const profkit_profile *p, uint32_t f, char *buf, size_t n)
{
    const profkit_frame *fr = &p->frames[f];
    if (fr->mapping == PROFKIT_NONE)
        return snprintf(buf, n, "0x%" PRIx64, fr->address);
    const profkit_mapping *m = &p->mappings[fr->mapping];
    const char *path = pk_str(p, m->path);
    const char *base = strrchr(path, '/');
    return snprintf(buf, n, "%s+0x%" PRIx64, base ? base + 1 : path,
                    fr->address - m->start + m->offset);
}

/* Row r as "THREAD pid/tid TIME VALUES: root;...;leaf". */
static void row_text(const profkit_profile *p, size_t r, char *buf, size_t n)
{
    const profkit_thread *t = &p->threads[p->sample_thread[r]];
    size_t w = (size_t)snprintf(buf, n, "%s %" PRId64 "/%" PRId64 " %" PRId64, pk_str(p, t->name),
                                t->pid, t->tid, p->sample_time[r]);
    for (size_t v = 0; v < p->n_value_types; v++)
        w += (size_t)snprintf(buf + w, n - w, " %" PRId64, p->sample_values[r * p->n_value_types + v]);
    w += (size_t)snprintf(buf + w, n - w, ":");
    uint32_t frames[64];
    size_t k = 0;
    for (uint32_t s = p->sample_stack[r]; s && k < 64; s = p->stacks[s].parent)
        frames[k++] = p->stacks[s].frame;
    while (k-- > 0) {
        w += (size_t)snprintf(buf + w, n - w, " ");
        w += (size_t)frame_text(p, frames[k], buf + w, n - w);
    }
}

static const char *const synthetic_rows[] = {
    "prog 100/100 1000000100 250000 1 0: libx.so+0x6000 prog+0x220 prog+0x150",
    "prog 100/101 1000000300 250000 1 0: libx.so+0x7000 prog+0x300",
    "worker 100/101 1000000500 500000 1 0: libx.so+0x7000 prog+0x300 "
    "[kernel.kallsyms]+0xffffffff81001000 [kernel.kallsyms]+0xffffffff81000042",
    "prog 100/100 1000000600 0 1 1: libx.so+0x6000 prog+0x220 0x1234",
    "prog 200/200 1000000900 250000 1 0: libx.so+0x6000 prog+0x150 other+0x10",
};

static void check_synthetic(const char *name)
{
    profkit_profile *p = read_file(name);
    assert_string_equal(p->format, "perf_data");
    assert_int_equal(p->n_value_types, 3);
    assert_string_equal(pk_str(p, p->value_types[0].type), "cpu-clock");
    assert_string_equal(pk_str(p, p->value_types[0].unit), "nanoseconds");
    assert_string_equal(pk_str(p, p->value_types[1].type), "samples");
    assert_string_equal(pk_str(p, p->value_types[2].type), "page-faults");
    assert_string_equal(pk_str(p, p->value_types[2].unit), "count");
    assert_int_equal(p->default_value, 0);
    assert_int_equal(p->n_samples, 5);
    char buf[1024];
    for (size_t r = 0; r < p->n_samples; r++) {
        row_text(p, r, buf, sizeof(buf));
        assert_string_equal(buf, synthetic_rows[r]);
    }
    /* Mappings: kernel, prog, libx.so, other (the FORK's copy shares
     * them); build ids from the feature (or records, in a pipe). */
    assert_int_equal(p->n_mappings, 4);
    int seen = 0;
    for (size_t m = 0; m < p->n_mappings; m++) {
        const char *path = pk_str(p, p->mappings[m].path);
        const char *bid = pk_str(p, p->mappings[m].build_id);
        if (strcmp(path, "[kernel.kallsyms]") == 0) {
            assert_string_equal(bid, "0102030405060708090a0b0c0d0e0f1011121314");
            assert_int_equal(p->mappings[m].start, 0xffffffff81000000u);
            seen |= 1;
        } else if (strcmp(path, "/nonexistent/prog") == 0) {
            assert_string_equal(bid, "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3");
            seen |= 2;
        } else if (strcmp(path, "/nonexistent/libx.so") == 0) {
            assert_string_equal(bid, "");
            assert_int_equal(p->mappings[m].offset, 0x1000);
            seen |= 4;
        }
    }
    assert_int_equal(seen, 7);
    assert_true(p->mappings_settled);
    assert_string_equal(pk_meta_get(p, "hostname"), "synth");
    assert_string_equal(pk_meta_get(p, "os_release"), "6.1.0-test");
    assert_string_equal(pk_meta_get(p, "perf_version"), "6.1.99");
    assert_string_equal(pk_meta_get(p, "arch"), "x86_64");
    assert_string_equal(pk_meta_get(p, "cmdline"), "perf record ./prog");
    assert_string_equal(pk_meta_get(p, "event"), "page-faults");
    int be = strstr(name, "_be") != NULL, pipe = strstr(name, "pipe") != NULL;
    assert_string_equal(pk_meta_get(p, "byte_order"), be ? "big-endian" : "little-endian");
    assert_string_equal(pk_meta_get(p, "mode"), pipe ? "pipe" : "file");
    profkit_profile_free(p);
}

static void synthetic(void **state)
{
    (void)state;
    check_synthetic("ok_synthetic.data");
    check_synthetic("ok_synthetic_be.data");
    check_synthetic("ok_synthetic_pipe.data");
    check_synthetic("ok_synthetic_pipe_be.data");
    check_synthetic("ok_synthetic_zstd.data");
}

/* The real recordings against their perf script output (record.sh). */
static void check_record(const char *data, const char *script)
{
    profkit_profile *p = read_file(data);
    size_t n;
    char *text = (char *)load(script, &n);
    assert_non_null(text);
    text = realloc(text, n + 1);
    text[n] = 0;
    size_t row = 0, frames = 0;
    uint32_t stack = 0;
    char want[512], got[512];
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] != '\t' && line[0] != ' ') {
            /* COMM PID/TID SEC.USEC: PERIOD EVENT: */
            if (row > 0)
                assert_int_equal(stack, 0); /* the last sample had all its frames */
            assert_true(row < p->n_samples);
            char *colon = strstr(line, ": ");
            assert_non_null(colon);
            char *time = colon;
            while (time > line && time[-1] != ' ')
                time--;
            char *ids = time - 1;
            while (ids > line && ids[-1] == ' ')
                ids--;
            char *idstart = ids;
            while (idstart > line && idstart[-1] != ' ')
                idstart--;
            char *comm_end = idstart;
            while (comm_end > line && comm_end[-1] == ' ')
                comm_end--;
            long pid, tid, sec, usec;
            long long period;
            assert_int_equal(sscanf(idstart, "%ld/%ld", &pid, &tid), 2);
            assert_int_equal(sscanf(time, "%ld.%ld: %lld", &sec, &usec, &period), 3);
            const profkit_thread *t = &p->threads[p->sample_thread[row]];
            snprintf(want, sizeof(want), "%.*s %ld/%ld %ld %lld", (int)(comm_end - line), line,
                     pid, tid, sec * 1000000 + usec, period);
            snprintf(got, sizeof(got), "%s %" PRId64 "/%" PRId64 " %" PRId64 " %" PRId64,
                     pk_str(p, t->name), t->pid, t->tid, p->sample_time[row] / 1000,
                     p->sample_values[row * p->n_value_types + p->default_value]);
            assert_string_equal(got, want);
            stack = p->sample_stack[row];
            row++;
            frames = 0;
            continue;
        }
        /* \tADDRESS SYMBOL (DSO), leaf first */
        unsigned long long ip;
        assert_int_equal(sscanf(line, " %llx", &ip), 1);
        char *open = strrchr(line, '(');
        assert_non_null(open);
        char *close = strrchr(open, ')');
        assert_non_null(close);
        assert_true(stack != 0);
        const profkit_frame *fr = &p->frames[p->stacks[stack].frame];
        if (fr->mapping == PROFKIT_NONE) {
            snprintf(want, sizeof(want), "[unknown] %llx", ip);
            snprintf(got, sizeof(got), "[unknown] %" PRIx64, fr->address);
        } else {
            const profkit_mapping *m = &p->mappings[fr->mapping];
            snprintf(want, sizeof(want), "%.*s %llx", (int)(close - open - 1), open + 1, ip);
            snprintf(got, sizeof(got), "%s %" PRIx64, pk_str(p, m->path),
                     fr->address - m->start + m->offset);
        }
        assert_string_equal(got, want);
        stack = p->stacks[stack].parent;
        frames++;
    }
    assert_int_equal(stack, 0);
    assert_int_equal(row, p->n_samples);
    assert_true(row > 50);
    free(text);
    profkit_profile_free(p);
}

static void recorded(void **state)
{
    (void)state;
    check_record("ok_record.data", "record.script");
    check_record("ok_record_pipe.data", "record_pipe.script");
    /* The file records build ids; the kernel's mapping is named as perf
     * names its DSO. */
    profkit_profile *p = read_file("ok_record.data");
    int kernel = 0;
    for (size_t m = 0; m < p->n_mappings; m++)
        if (strcmp(pk_str(p, p->mappings[m].path), "[kernel.kallsyms]") == 0)
            kernel = strlen(pk_str(p, p->mappings[m].build_id)) == 40;
    assert_true(kernel);
    assert_non_null(pk_meta_get(p, "hostname"));
    assert_string_equal(pk_meta_get(p, "event"), "cpu-clock");
    profkit_profile_free(p);
}

/* Cut copies keep every sample whose record ends before the cut, with a
 * warning; records of the wrong size are errors. */
static void cut(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = load("ok_record_pipe.data", &n);
    assert_non_null(d);
    profkit_profile *whole = read_file("ok_record_pipe.data");
    size_t prev = 0;
    for (size_t k = n / 4; k < n; k += n / 7) {
        uint8_t *copy = malloc(k);
        memcpy(copy, d, k);
        size_t warnings = 0;
        profkit_read_options ro = { 0 };
        ro.on_warning = pk_hostile_count_warning;
        ro.payload = &warnings;
        profkit_profile *p;
        profkit_error err;
        assert_int_equal(profkit_profile_read_memory(&p, copy, k, "cut", &ro, &err), 0);
        assert_int_equal(warnings, 1);
        assert_true(p->n_samples >= prev && p->n_samples < whole->n_samples);
        prev = p->n_samples;
        /* the samples kept are among the whole file's (both in time order) */
        size_t j = 0;
        for (size_t r = 0; r < p->n_samples; r++) {
            while (j < whole->n_samples && whole->sample_time[j] < p->sample_time[r])
                j++;
            assert_true(j < whole->n_samples && whole->sample_time[j] == p->sample_time[r]);
            j++;
        }
        profkit_profile_free(p);
        ro.strict = 1;
        assert_int_equal(profkit_profile_read_memory(&p, copy, k, "cut", &ro, &err),
                         PROFKIT_ETRUNCATED);
        free(copy);
    }
    assert_true(prev > 0);
    profkit_profile_free(whole);
    free(d);
}

static void hostile(void **state)
{
    (void)state;
    const char *const files[] = { "ok_synthetic.data", "ok_synthetic_pipe_be.data",
                                  "ok_synthetic_zstd.data", "ok_record.data" };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        size_t n;
        uint8_t *d = load(files[i], &n);
        assert_non_null(d);
        pk_hostile_counts c = { 0, 0, 0, 0 };
        if (n < 4096)
            pk_hostile_prefixes(d, n, "perf_data", &c);
        pk_hostile_flips(d, n, "perf_data", 600, &c);
        assert_int_equal(c.silent, 0);
        assert_true(c.read > 0 && c.failed > 0);
        if (n < 4096)
            assert_true(c.warned > 0);
        free(d);
    }
}

/* Kernel symbols as perf takes them from kallsyms: text, weak, data and
 * bss symbols; of several at one address the last listed; each ends where
 * the next starts, the kernel's last and a module's last at the page after
 * it; all-zero addresses (kptr_restrict) are hidden, not symbols. */
static void kallsyms(void **state)
{
    (void)state;
    static const char text[] =
        "ffffffff81000000 T _stext\n"
        "ffffffff81000000 T _text\n"
        "ffffffff81000100 t helper\n"
        "ffffffff81000180 r some_rodata\n"
        "ffffffff81000200 W weak_one\n"
        "ffffffff81000300 A absolute\n"
        "ffffffff81001000 T last_kernel\n"
        "ffffffffc0000000 t mod_fn\t[kvm]\n"
        "ffffffffc0000040 T mod_last\t[kvm]\n"
        "not a line\n";
    pk_kallsyms k;
    char *buf = strdup(text);
    assert_non_null(buf);
    assert_int_equal(pk_kallsyms_parse(&k, buf, strlen(buf)), 0);
    assert_false(k.hidden);
    struct { uint64_t addr; const char *name; } want[] = {
        {0xffffffff81000000, "_text"}, {0xffffffff810000ff, "_text"},
        {0xffffffff81000100, "helper"}, {0xffffffff810001ff, "helper"},
        {0xffffffff81000300, "weak_one"}, {0xffffffff81001abc, "last_kernel"},
        {0xffffffff81001fff, "last_kernel"}, {0xffffffffc0000010, "mod_fn"},
        {0xffffffffc0001fff, "mod_last"},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const pk_ksym *s = pk_kallsyms_find(&k, want[i].addr);
        assert_non_null(s);
        char name[64];
        snprintf(name, sizeof(name), "%.*s", (int)s->len, k.buf + s->name);
        assert_string_equal(name, want[i].name);
    }
    assert_null(pk_kallsyms_find(&k, 0xffffffff80ffffff));
    assert_null(pk_kallsyms_find(&k, 0xffffffff81002000));
    assert_null(pk_kallsyms_find(&k, 0xffffffffc0002000));
    pk_kallsyms_free(&k);

    static const char hidden[] = "0000000000000000 T _text\n0000000000000000 t helper\n";
    assert_non_null(buf = strdup(hidden));
    assert_int_equal(pk_kallsyms_parse(&k, buf, strlen(buf)), 0);
    assert_true(k.hidden);
    assert_int_equal(k.n, 0);
    assert_null(pk_kallsyms_find(&k, 0));
    pk_kallsyms_free(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(synthetic),
        cmocka_unit_test(recorded),
        cmocka_unit_test(cut),
        cmocka_unit_test(hostile),
        cmocka_unit_test(kallsyms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
