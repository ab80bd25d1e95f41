/* test_perf_script.c: the perf script reader on hostile input: every prefix
 * and seeded bit flips of a real `perf script` file (../shared) and of a
 * hand-made one with every header form, each a profile or an error with a
 * message; the tidied names and values of the hand-made one; the end of
 * input ending the last sample (a cut last line dropping it, with a
 * warning), samples without call chains, event modifiers' units and a
 * frame line without a symbol. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/model.h"
#include "hostile.h"

static const char sample[] =
    "# cmdline : /usr/bin/perf record -g\n"
    "V8 WorkerThread 24636/25607 [000] 94564.109216:     100 cycles: \n"
    "\t    7f0012 v8::Run(int)+0x12 (/usr/bin/node)\n"
    "\t         0 [unknown] (/usr/lib/libc.so.6)\n"
    "\n"
    "java 12688 6544038.708352: 7 cpu-clock: \n"
    "\t7f722d142778 Ljava/io/PrintStream;::print (/tmp/perf-19982.map)\n"
    "\t           0 [unknown] ([unknown])\n"
    "\n"
    "V8 WorkerThread 24636/25607 [000] 94564.2: cycles: \n"
    "\t    7f0012 a->b (/usr/bin/node)\n"
    "\n";

static void names_and_values(void **state)
{
    (void)state;
    profkit_read_options ro = { 0 };
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(profkit_profile_read_memory(&p, sample, sizeof(sample) - 1, "s", &ro, &err), 0);
    assert_string_equal(p->format, "perf_script");
    assert_int_equal(p->n_value_types, 3); /* cycles, samples, cpu-clock */
    assert_string_equal(pk_str(p, p->value_types[p->default_value].type), "cycles");
    assert_int_equal(p->n_threads, 2);
    assert_int_equal(p->threads[0].pid, 24636);
    assert_int_equal(p->threads[0].tid, 25607);
    assert_int_equal(p->threads[1].pid, -1);
    char buf[256];
    int seen = 0;
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t s = p->sample_stack[r];
        const int64_t *v = &p->sample_values[r * p->n_value_types];
        /* leaf label */
        pk_frame_label(p, p->stacks[s].frame, 0, buf, sizeof(buf));
        if (strcmp(buf, "v8::Run") == 0) {
            assert_int_equal(v[0], 100);
            assert_int_equal(v[1], 1);
            pk_frame_label(p, p->stacks[p->stacks[s].parent].frame, 0, buf, sizeof(buf));
            assert_string_equal(buf, "[libc.so.6]");
            seen |= 1;
        } else if (strcmp(buf, "java/io/PrintStream:::print") == 0) {
            assert_int_equal(v[2], 7);
            seen |= 2;
        } else if (strcmp(buf, "b_[i]") == 0) {
            assert_int_equal(v[0], 1); /* no period: 1 */
            pk_frame_label(p, p->stacks[p->stacks[s].parent].frame, 0, buf, sizeof(buf));
            assert_string_equal(buf, "a");
            seen |= 4;
        }
    }
    assert_int_equal(seen, 7);
    profkit_profile_free(p);
}

static void count_warning(const profkit_error *w, void *payload)
{
    (void)w;
    ++*(int *)payload;
}

/* Reads text; returns the profile and the number of warnings. */
static profkit_profile *read_text(const char *text, int *warnings)
{
    profkit_read_options ro = { 0 };
    ro.on_warning = count_warning;
    ro.payload = warnings;
    *warnings = 0;
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(profkit_profile_read_memory(&p, text, strlen(text), "t", &ro, &err), 0);
    assert_string_equal(p->format, "perf_script");
    return p;
}

static int64_t total(const profkit_profile *p, const char *type)
{
    uint32_t v = profkit_profile_find_value(p, type);
    assert_true(v != PROFKIT_NONE);
    int64_t t = 0;
    for (size_t r = 0; r < p->n_samples; r++)
        t += p->sample_values[r * p->n_value_types + v];
    return t;
}

static void end_of_input(void **state)
{
    (void)state;
    static const char *const whole[] = {
        "dd 1 1.0: 5 cpu-clock: \n\t 414b3b fsnotify (/vmlinux)\n\ndd 1 1.1: 7 cpu-clock: \n\t 3d6b4c vfs_read (/vmlinux)\n",
        "dd 1 1.0: 5 cpu-clock: \n\t 414b3b fsnotify (/vmlinux)\n\ndd 1 1.1: 7 cpu-clock: \n\t 3d6b4c vfs_read (/vmlinux)",
        "dd 1 1.0: 5 cpu-clock: \n\t 414b3b fsnotify (/vmlinux)\n\ndd 1 1.1: 7 cpu-clock: \n\t 3d6b4c vfs_read (/vmlinux)\n\n",
    };
    int w;
    for (size_t i = 0; i < 3; i++) {
        profkit_profile *p = read_text(whole[i], &w);
        assert_int_equal(w, 0);
        assert_int_equal(total(p, "samples"), 2);
        assert_int_equal(total(p, "cpu-clock"), 12);
        profkit_profile_free(p);
    }
    /* The last line cut mid-line: its sample goes, with a warning. */
    static const char *const cut[] = {
        "dd 1 1.0: 5 cpu-clock: \n\t 414b3b fsnotify (/vmlinux)\n\ndd 1 1.1: 7 cpu-clock: \n\t 3d6b4c vfs_read (/vmli",
        "dd 1 1.0: 5 cpu-clock: \n\t 414b3b fsnotify (/vmlinux)\n\ndd 1 1.1: 7 cpu-clock: \n\t 3d6b4c vfs_re",
        "dd 1 1.0: 5 cpu-clock: \n\t 414b3b fsnotify (/vmlinux)\n\ndd 1 1.1: 7 cpu-cl",
    };
    for (size_t i = 0; i < 3; i++) {
        profkit_profile *p = read_text(cut[i], &w);
        assert_int_equal(w, 1);
        assert_int_equal(total(p, "samples"), 1);
        assert_int_equal(total(p, "cpu-clock"), 5);
        profkit_profile_free(p);
    }
}

static void no_call_chains_modifiers_blank_symbol(void **state)
{
    (void)state;
    int w;
    char buf[256];
    /* One line a sample: the header, then the sampled address on it. */
    profkit_profile *p = read_text(
        "            perf 12 [003] 8201.446791:     250000 cycles:u:  ffffffff8100a1b2 native_write_msr+0x2 ([kernel.kallsyms])\n"
        "            perf 12 [003] 8201.446799:     250000 cycles:u:      7f1e2215d058 [unknown] (/lib/libc-2.31.so)\n"
        "     kworker/0:1 11 [000] 8201.447001:     100 cycles:u:  ffffffff810b4e50 process_one_work+0x10 ([kernel.kallsyms])\n",
        &w);
    assert_int_equal(w, 0);
    assert_int_equal(total(p, "samples"), 3);
    assert_int_equal(total(p, "cycles:u"), 500100);
    assert_int_equal(p->n_threads, 2);
    assert_string_equal(pk_str(p, p->threads[1].name), "kworker/0:1");
    for (size_t r = 0; r < p->n_samples; r++)
        assert_int_equal(pk_stack_depth(p, p->sample_stack[r]), 1);
    pk_frame_label(p, p->stacks[p->sample_stack[1]].frame, 0, buf, sizeof(buf));
    assert_string_equal(buf, "[libc-2.31.so]");
    assert_string_equal(pk_str(p, p->value_types[p->default_value].unit), "count");
    profkit_profile_free(p);

    /* Modifiers keep the base event's unit; a frame line whose symbol is
     * empty is a frame named " " (as stackcollapse-perf.pl and inferno
     * name it), not a skipped line. */
    p = read_text("java 1 1.0: 1000000 cpu-clock:pppH: \n"
                  "\t 7f1e2215d058  (/lib/libc-2.15.so)\n"
                  "\t 7f1e11300e8b write0 (/tmp/perf-3236.map)\n\n"
                  "java 1 1.1: 7 task-clock:uhH: \n\t 7f1e11300e8b write0 (/tmp/perf-3236.map)\n\n",
                  &w);
    assert_int_equal(w, 0);
    uint32_t cc = profkit_profile_find_value(p, "cpu-clock:pppH");
    uint32_t tc = profkit_profile_find_value(p, "task-clock:uhH");
    assert_string_equal(pk_str(p, p->value_types[cc].unit), "nanoseconds");
    assert_string_equal(pk_str(p, p->value_types[tc].unit), "nanoseconds");
    int blank = 0;
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t s = p->sample_stack[r];
        pk_frame_label(p, p->stacks[s].frame, 0, buf, sizeof(buf));
        if (strcmp(buf, " ") == 0) {
            blank++;
            assert_int_equal(pk_stack_depth(p, s), 2);
        }
    }
    assert_int_equal(blank, 1);
    profkit_profile_free(p);
}

static void hostile(void **state)
{
    (void)state;
    pk_hostile_counts c = { 0, 0, 0, 0 };
    pk_hostile_prefixes((const uint8_t *)sample, sizeof(sample) - 1, "perf_script", &c);
    pk_hostile_flips((const uint8_t *)sample, sizeof(sample) - 1, "perf_script", 400, &c);
    static const char one_line[] =
        "            perf 12 [003] 8201.446791:     250000 cycles:u:  ffffffff8100a1b2 native_write_msr+0x2 ([kernel.kallsyms])\n"
        "     kworker/0:1 11 [000] 8201.447001:     100 cycles:u:  7f1e2215d058  (/lib/libc-2.15.so)\n";
    pk_hostile_prefixes((const uint8_t *)one_line, sizeof(one_line) - 1, "perf_script", &c);
    pk_hostile_flips((const uint8_t *)one_line, sizeof(one_line) - 1, "perf_script", 400, &c);
    assert_int_equal(c.silent, 0);
    assert_true(c.read > 0 && c.failed > 0 && c.warned > 0);
    size_t n;
    uint8_t *d = pk_hostile_load("perf/perf-js-stacks-01.txt", &n);
    if (!d)
        return; /* ../shared absent: the hand-made input above still ran */
    pk_hostile_counts f = { 0, 0, 0, 0 };
    pk_hostile_prefixes(d, n, "perf_script", &f);
    pk_hostile_flips(d, n, "perf_script", 400, &f);
    free(d);
    assert_int_equal(f.silent, 0);
    assert_true(f.read > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_and_values),
        cmocka_unit_test(end_of_input),
        cmocka_unit_test(no_call_chains_modifiers_blank_symbol),
        cmocka_unit_test(hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
