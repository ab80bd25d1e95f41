/* test_speedscope.c: the speedscope reader: frames (name, file, line,
 * column), sampled and evented profiles as threads, units (fractional
 * milliseconds to whole nanoseconds, mixed time units to nanoseconds);
 * then every prefix and seeded bit flips of the same document, each a
 * profile or an error with a message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "model/model.h"
#include "hostile.h"

static const char doc[] =
    "{\"profiles\":["
    "{\"type\":\"sampled\",\"name\":\"A\",\"unit\":\"milliseconds\",\"startValue\":0,\"endValue\":2,"
    "\"samples\":[[0,1],[0]],\"weights\":[1.5,0.25]},"
    "{\"type\":\"evented\",\"name\":\"B\",\"unit\":\"microseconds\",\"startValue\":0,\"endValue\":9,"
    "\"events\":[{\"type\":\"O\",\"frame\":0,\"at\":1},{\"type\":\"O\",\"frame\":1,\"at\":2},"
    "{\"type\":\"C\",\"frame\":1,\"at\":5},{\"type\":\"C\",\"frame\":0,\"at\":6}]}],"
    "\"shared\":{\"frames\":[{\"name\":\"main\",\"file\":\"m.js\",\"line\":3,\"col\":4},{\"name\":\"f\"}]},"
    "\"exporter\":\"t\",\"activeProfileIndex\":1}";

static void frames_profiles_units(void **state)
{
    (void)state;
    profkit_read_options ro = { 0 };
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(profkit_profile_read_memory(&p, doc, sizeof(doc) - 1, "d", &ro, &err), 0);
    assert_string_equal(p->format, "speedscope");
    assert_int_equal(p->n_threads, 2);
    assert_string_equal(pk_str(p, p->threads[1].name), "B");
    uint32_t t = profkit_profile_find_value(p, "time");
    assert_int_not_equal(t, PROFKIT_NONE);
    assert_string_equal(pk_str(p, p->value_types[t].unit), "nanoseconds");
    int64_t a_leaf = 0, a_root = 0, b_leaf = 0, b_root = 0;
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t s = p->sample_stack[r];
        int64_t v = p->sample_values[r * p->n_value_types + t];
        int leaf = pk_stack_depth(p, s) == 2;
        if (p->sample_thread[r] == 0)
            *(leaf ? &a_leaf : &a_root) += v;
        else
            *(leaf ? &b_leaf : &b_root) += v;
        if (!leaf) {
            const profkit_frame *f = &p->frames[p->stacks[s].frame];
            assert_int_equal(f->line, 3);
            assert_int_equal(f->column, 4);
            assert_string_equal(pk_str(p, p->functions[f->function].file), "m.js");
        }
    }
    assert_int_equal(a_leaf, 1500000);
    assert_int_equal(a_root, 250000);
    assert_int_equal(b_leaf, 3000);
    assert_int_equal(b_root, 2000);
    profkit_profile_free(p);
}

static void hostile(void **state)
{
    (void)state;
    pk_hostile_counts c = { 0, 0, 0, 0 };
    pk_hostile_prefixes((const uint8_t *)doc, sizeof(doc) - 1, "speedscope", &c);
    pk_hostile_flips((const uint8_t *)doc, sizeof(doc) - 1, "speedscope", 400, &c);
    assert_int_equal(c.silent, 0);
    assert_true(c.read > 0 && c.failed > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frames_profiles_units),
        cmocka_unit_test(hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
