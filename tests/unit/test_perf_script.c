/* test_perf_script.c: the perf script reader on hostile input: every prefix
 * and seeded bit flips of a real `perf script` file (../shared) and of a
 * hand-made one with every header form, each a profile or an error with a
 * message; the tidied names and values of the hand-made one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

static void hostile(void **state)
{
    (void)state;
    pk_hostile_counts c = { 0, 0, 0, 0 };
    pk_hostile_prefixes((const uint8_t *)sample, sizeof(sample) - 1, "perf_script", &c);
    pk_hostile_flips((const uint8_t *)sample, sizeof(sample) - 1, "perf_script", 400, &c);
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
        cmocka_unit_test(hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
