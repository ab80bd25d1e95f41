/* test_v8_cpuprofile.c: the V8 .cpuprofile reader: stacks from the
 * children links with the "(root)" node left out and an empty name read as
 * "(anonymous)", times from startTime and the cumulative deltas, each
 * sample's wall time the gap to the next (a negative gap 0, the last up to
 * endTime), functions by name, url and line; the old form (a nested "head"
 * tree, absolute timestamps, hitCounts when there are no samples); then
 * every prefix and seeded bit flips of both documents, each a profile or an
 * error with a message. */
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
    "{\"nodes\":["
    "{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":0,\"children\":[2,3]},"
    "{\"id\":2,\"callFrame\":{\"functionName\":\"\",\"scriptId\":\"5\",\"url\":\"file:///a.js\",\"lineNumber\":0,\"columnNumber\":0},\"hitCount\":0,\"children\":[4,5]},"
    "{\"id\":3,\"callFrame\":{\"functionName\":\"(idle)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":1},"
    "{\"id\":4,\"callFrame\":{\"functionName\":\"f\",\"scriptId\":\"5\",\"url\":\"file:///a.js\",\"lineNumber\":9,\"columnNumber\":4},\"hitCount\":2},"
    "{\"id\":5,\"callFrame\":{\"functionName\":\"f\",\"scriptId\":\"6\",\"url\":\"file:///b.js\",\"lineNumber\":9,\"columnNumber\":4},\"hitCount\":1}"
    "],\"startTime\":1000,\"endTime\":1100,"
    "\"samples\":[4,4,5,3],\"timeDeltas\":[10,20,-5,30]}";

static void stacks_times_values(void **state)
{
    (void)state;
    profkit_read_options ro = { 0 };
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(profkit_profile_read_memory(&p, doc, sizeof(doc) - 1, "d", &ro, &err), 0);
    assert_string_equal(p->format, "v8_cpuprofile");
    assert_int_equal(p->n_samples, 4);
    assert_int_equal(p->n_value_types, 2);
    assert_string_equal(pk_str(p, p->value_types[p->default_value].type), "wall");
    uint32_t vs = profkit_profile_find_value(p, "samples"), vw = profkit_profile_find_value(p, "wall");
    /* times: 1010, 1030, 1025, 1055 µs */
    static const int64_t times[] = { 1010000, 1030000, 1025000, 1055000 };
    static const int64_t wall[] = { 20, 0, 30, 45 };
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(p->sample_time[i], times[i]);
        assert_int_equal(p->sample_values[i * 2 + vw], wall[i]);
        assert_int_equal(p->sample_values[i * 2 + vs], 1);
    }
    char buf[128];
    /* sample 0: (anonymous) -> f at a.js:10:5, the (root) node left out */
    uint32_t s = p->sample_stack[0];
    assert_int_equal(pk_stack_depth(p, s), 2);
    const profkit_frame *fr = &p->frames[p->stacks[s].frame];
    assert_int_equal(fr->line, 10);
    assert_int_equal(fr->column, 5);
    assert_string_equal(pk_str(p, p->functions[fr->function].file), "file:///a.js");
    assert_int_equal(p->functions[fr->function].start_line, 10);
    pk_frame_label(p, p->stacks[p->stacks[s].parent].frame, 0, buf, sizeof buf);
    assert_string_equal(buf, "(anonymous)");
    assert_int_equal(p->sample_stack[1], s);
    /* sample 2: another f (other url): another function, a sibling stack */
    uint32_t s2 = p->sample_stack[2];
    assert_int_not_equal(s2, s);
    assert_int_equal(p->stacks[s2].parent, p->stacks[s].parent);
    assert_int_not_equal(p->frames[p->stacks[s2].frame].function, fr->function);
    /* sample 3: (idle) straight under the root */
    assert_int_equal(p->stacks[p->sample_stack[3]].parent, 0);
    pk_frame_label(p, p->stacks[p->sample_stack[3]].frame, 0, buf, sizeof buf);
    assert_string_equal(buf, "(idle)");
    profkit_profile_free(p);
}

/* Node 10's form: the root is "head", children nested; timestamps are
 * absolute microseconds, one more than the samples (it ends the last). */
static const char old_doc[] =
    "{\"head\":{\"functionName\":\"(root)\",\"url\":\"\",\"lineNumber\":-1,\"id\":1,\"hitCount\":0,\"children\":["
    "{\"functionName\":\"\",\"url\":\"file:///a.js\",\"lineNumber\":0,\"callUID\":7,\"id\":2,\"hitCount\":1,\"children\":["
    "{\"functionName\":\"f\",\"url\":\"file:///a.js\",\"lineNumber\":9,\"callUID\":8,\"id\":3,\"hitCount\":2,\"children\":[]}]},"
    "{\"functionName\":\"(idle)\",\"url\":\"\",\"lineNumber\":-1,\"id\":4,\"hitCount\":0,\"children\":[]}]},"
    "\"startTime\":1,\"endTime\":2,\"samples\":[3,2,3],\"timestamps\":[1000010,1000030,1000025,1000055]}";

static void old_form(void **state)
{
    (void)state;
    profkit_read_options ro = { 0 };
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(profkit_profile_read_memory(&p, old_doc, sizeof(old_doc) - 1, "d", &ro, &err), 0);
    assert_string_equal(p->format, "v8_cpuprofile");
    assert_int_equal(p->n_samples, 3);
    uint32_t vs = profkit_profile_find_value(p, "samples"), vw = profkit_profile_find_value(p, "wall");
    assert_int_equal(p->default_value, vw);
    static const int64_t times[] = { 1000010000, 1000030000, 1000025000 };
    static const int64_t wall[] = { 20, 0, 30 };
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(p->sample_time[i], times[i]);
        assert_int_equal(p->sample_values[i * 2 + vw], wall[i]);
        assert_int_equal(p->sample_values[i * 2 + vs], 1);
    }
    char buf[128];
    uint32_t s = p->sample_stack[0];
    assert_int_equal(pk_stack_depth(p, s), 2);
    const profkit_frame *fr = &p->frames[p->stacks[s].frame];
    assert_int_equal(fr->line, 10);
    assert_string_equal(pk_str(p, p->functions[fr->function].name), "f");
    pk_frame_label(p, p->stacks[p->stacks[s].parent].frame, 0, buf, sizeof buf);
    assert_string_equal(buf, "(anonymous)");
    assert_int_equal(p->stacks[p->sample_stack[1]].parent, 0);
    profkit_profile_free(p);

    /* Without samples, each node's hitCount counts, untimed. */
    static const char hits[] =
        "{\"head\":{\"functionName\":\"(root)\",\"id\":1,\"hitCount\":0,\"children\":["
        "{\"functionName\":\"g\",\"id\":2,\"hitCount\":5,\"callUID\":1,\"children\":["
        "{\"functionName\":\"h\",\"id\":3,\"hitCount\":2,\"children\":[]}]}]},\"startTime\":1,\"endTime\":2}";
    assert_int_equal(profkit_profile_read_memory(&p, hits, sizeof(hits) - 1, "h", &ro, &err), 0);
    assert_int_equal(p->n_value_types, 1);
    int64_t total = 0;
    for (size_t i = 0; i < p->n_samples; i++)
        total += p->sample_values[i];
    assert_int_equal(total, 7);
    profkit_profile_free(p);
}

static void hostile(void **state)
{
    (void)state;
    pk_hostile_counts c = { 0, 0, 0, 0 };
    pk_hostile_prefixes((const uint8_t *)doc, sizeof(doc) - 1, "v8_cpuprofile", &c);
    pk_hostile_flips((const uint8_t *)doc, sizeof(doc) - 1, "v8_cpuprofile", 400, &c);
    pk_hostile_prefixes((const uint8_t *)old_doc, sizeof(old_doc) - 1, "v8_cpuprofile", &c);
    pk_hostile_flips((const uint8_t *)old_doc, sizeof(old_doc) - 1, "v8_cpuprofile", 400, &c);
    assert_int_equal(c.silent, 0);
    assert_true(c.read > 0 && c.failed > 0 && c.warned > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stacks_times_values),
        cmocka_unit_test(old_form),
        cmocka_unit_test(hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
