/* test_chrome.c: Chrome traces. The reader on a DevTools-shaped recording
 * (tests/data/chrome/ok_devtools.trace.json): a Profile and its
 * ProfileChunks (nodes spread over chunks, "(root)" as the root stack, an
 * empty name as "(anonymous)", times from startTime and the deltas, a
 * negative delta, the wall time of each sample up to the next and the last
 * to endTime), threads named by M events, X / B / E / R / I events as
 * markers with their category and args, counters passed over. The writer:
 * a read trace written and read back gives the same samples and markers,
 * node ids unique across threads, an aggregated profile written one sample
 * per count with one warning. Then every prefix and seeded bit flips of
 * the traces, each a profile or an error with a message. */
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
#include "test_files.h"

static char *slurp(const char *rel, size_t *n)
{
    char *d = pk_test_slurp_src(rel, n);
    assert_non_null(d);
    return d;
}

static unsigned n_warn;
static char last_warn[600];
static void on_warning(const profkit_error *w, void *payload)
{
    (void)payload;
    n_warn++;
    snprintf(last_warn, sizeof last_warn, "%s", w->message);
}

static profkit_profile *read_doc(const char *d, size_t n)
{
    profkit_read_options ro = { 0 };
    ro.on_warning = on_warning;
    profkit_profile *p;
    profkit_error err;
    int rc = profkit_profile_read_memory(&p, d, n, "t", &ro, &err);
    if (rc)
        fail_msg("read: %s", err.message);
    return p;
}

/* The labels of stack s, root first, joined by ';'. */
static void stack_text(const profkit_profile *p, uint32_t s, char *out, size_t cap)
{
    char parts[16][128];
    size_t n = 0;
    for (; s != 0 && n < 16; s = p->stacks[s].parent)
        pk_frame_label(p, p->stacks[s].frame, 0, parts[n++], sizeof parts[0]);
    out[0] = 0;
    while (n > 0) {
        strncat(out, parts[--n], cap - strlen(out) - 1);
        if (n)
            strncat(out, ";", cap - strlen(out) - 1);
    }
}

static void devtools_recording(void **state)
{
    (void)state;
    size_t n;
    char *d = slurp("tests/data/chrome/ok_devtools.trace.json", &n);
    n_warn = 0;
    profkit_profile *p = read_doc(d, n);
    assert_int_equal(n_warn, 0);
    assert_string_equal(p->format, "chrome");
    /* threads in the order they first appear, named by the M events */
    assert_int_equal(p->n_threads, 2);
    assert_string_equal(pk_str(p, p->threads[0].name), "CrBrowserMain");
    assert_string_equal(pk_str(p, p->threads[0].process_name), "Browser");
    assert_string_equal(pk_str(p, p->threads[1].name), "CrRendererMain");
    assert_string_equal(pk_str(p, p->threads[1].process_name), "Renderer");
    assert_int_equal(p->threads[1].pid, 200);
    assert_int_equal(p->threads[1].tid, 201);
    /* samples: startTime 1000100 + the deltas; the last runs to endTime */
    static const int64_t times[] = { 1001000, 1002000, 1003000, 1004000, 1005000, 1006000, 1005800, 1007200 };
    static const int64_t wall[] = { 1000, 1000, 1000, 1000, 1000, 0, 1400, 2300 };
    static const char *const stacks[] = { "(program)", "main", "main;draw", "main;draw",
                                          "main;draw;(anonymous)", "main;draw;(anonymous)",
                                          "(garbage collector)", "main" };
    assert_int_equal(p->n_samples, 8);
    uint32_t vs = profkit_profile_find_value(p, "samples"), vw = profkit_profile_find_value(p, "wall");
    assert_int_equal(p->default_value, vw);
    char buf[512];
    for (size_t i = 0; i < 8; i++) {
        assert_int_equal(p->sample_time[i], times[i] * 1000);
        assert_int_equal(p->sample_values[i * p->n_value_types + vw], wall[i]);
        assert_int_equal(p->sample_values[i * p->n_value_types + vs], 1);
        assert_int_equal(p->sample_thread[i], 1);
        stack_text(p, p->sample_stack[i], buf, sizeof buf);
        assert_string_equal(buf, stacks[i]);
    }
    /* draw: a.js line 21, column 1 (0-based in the trace) */
    const profkit_frame *fr = &p->frames[p->stacks[p->sample_stack[2]].frame];
    assert_int_equal(fr->line, 21);
    assert_int_equal(fr->column, 1);
    assert_string_equal(pk_str(p, p->functions[fr->function].file), "https://example.org/app.js");
    /* markers: X, B, E, R on the renderer; I and X on the browser; the
     * counter (C) and the metadata are none */
    assert_int_equal(p->n_markers, 7);
    int seen = 0;
    for (size_t i = 0; i < p->n_markers; i++) {
        const profkit_marker *m = &p->markers[i];
        const char *name = pk_str(p, m->name);
        if (strcmp(name, "EventDispatch") == 0) {
            assert_int_equal(m->phase, PROFKIT_MARKER_INTERVAL);
            assert_int_equal(m->start, 1001500000);
            assert_int_equal(m->end, 1003000500);
            assert_int_equal(m->thread, 1);
            assert_string_equal(pk_str(p, m->category), "devtools.timeline");
            /* args.data, args' only key, is the payload */
            assert_string_equal(pk_str(p, m->payload), "{\"frame\":\"F1\",\"type\":\"click\"}");
            seen |= 1;
        } else if (strcmp(name, "Layout") == 0 && m->phase == PROFKIT_MARKER_START) {
            assert_int_equal(m->start, 1003000000);
            assert_int_equal(m->end, PROFKIT_NO_TIME);
            assert_int_equal(m->payload, 0); /* empty args */
            seen |= 2;
        } else if (strcmp(name, "Layout") == 0) {
            assert_int_equal(m->phase, PROFKIT_MARKER_END);
            assert_int_equal(m->start, PROFKIT_NO_TIME);
            assert_int_equal(m->end, 1003250000);
            seen |= 4;
        } else if (strcmp(name, "navigationStart") == 0) {
            assert_int_equal(m->phase, PROFKIT_MARKER_INSTANT);
            assert_string_equal(pk_str(p, m->category), "blink.user_timing");
            seen |= 8;
        } else if (strcmp(name, "RunTask") == 0) {
            assert_int_equal(m->thread, 0);
            assert_int_equal(m->end - m->start, 3000000);
            seen |= 16;
        }
    }
    assert_int_equal(seen, 31);
    profkit_profile_free(p);
    free(d);
}

static char *write_chrome(const profkit_profile *p)
{
    profkit_write_options wo = { 0 };
    wo.format = "chrome";
    wo.on_warning = on_warning;
    char *out;
    size_t len;
    profkit_error err;
    if (profkit_profile_write_memory(&out, &len, p, &wo, &err))
        fail_msg("write: %s", err.message);
    return out;
}

static void round_trip(void **state)
{
    (void)state;
    size_t n;
    char *d = slurp("tests/data/chrome/ok_devtools.trace.json", &n);
    profkit_profile *p = read_doc(d, n);
    n_warn = 0;
    char *out = write_chrome(p);
    assert_int_equal(n_warn, 0);
    profkit_profile *q = read_doc(out, strlen(out));
    assert_int_equal(q->n_samples, p->n_samples);
    char a[512], b[512];
    for (size_t i = 0; i < p->n_samples; i++) {
        assert_int_equal(q->sample_time[i], p->sample_time[i]);
        stack_text(p, p->sample_stack[i], a, sizeof a);
        stack_text(q, q->sample_stack[i], b, sizeof b);
        assert_string_equal(a, b);
        assert_string_equal(pk_str(q, q->threads[q->sample_thread[i]].name),
                            pk_str(p, p->threads[p->sample_thread[i]].name));
    }
    /* the last sample's wall time comes back through endTime */
    uint32_t vw = profkit_profile_find_value(q, "wall");
    assert_int_equal(q->sample_values[7 * q->n_value_types + vw], 2300);
    assert_int_equal(q->n_markers, p->n_markers);
    for (size_t i = 0; i < p->n_markers; i++) {
        const profkit_marker *x = &p->markers[i], *y = &q->markers[i];
        assert_string_equal(pk_str(q, y->name), pk_str(p, x->name));
        assert_string_equal(pk_str(q, y->category), pk_str(p, x->category));
        assert_string_equal(pk_str(q, y->payload), pk_str(p, x->payload));
        assert_int_equal(y->phase, x->phase);
        assert_int_equal(y->start, x->start);
        assert_int_equal(y->end, x->end);
        assert_string_equal(pk_str(q, q->threads[y->thread].name), pk_str(p, p->threads[x->thread].name));
    }
    profkit_profile_free(q);
    free(out);
    profkit_profile_free(p);
    free(d);
}

/* Two threads sampling the same stacks: every node id of the trace is
 * written once (the Firefox Profiler numbers frames by node id). */
static void node_ids_unique(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    uint32_t vs = pk_value_type_add(p, "samples", "count");
    uint32_t t0 = pk_thread_add(p, "a", "", 1, 1), t1 = pk_thread_add(p, "b", "", 1, 2);
    uint32_t f = pk_function_add_named(p, "f", "f.js", NULL, 3);
    uint32_t g = pk_function_add_named(p, "g", "f.js", NULL, 9);
    profkit_frame ff = { 0, f, 3, 0, PROFKIT_NONE, 0, 0 }, fg = { 0, g, 9, 0, PROFKIT_NONE, 0, 0 };
    uint32_t s1 = pk_stack_intern(p, 0, pk_frame_add(p, &ff));
    uint32_t s2 = pk_stack_intern(p, s1, pk_frame_add(p, &fg));
    int64_t one[1] = { 1 };
    (void)vs;
    for (int i = 0; i < 1200; i++) { /* more than one chunk each */
        assert_int_equal(pk_sample_add_timed(p, i % 3 ? s2 : s1, t0, (int64_t)i * 1000000, one), 0);
        assert_int_equal(pk_sample_add_timed(p, s2, t1, (int64_t)i * 1000000 + 500, one), 0);
    }
    n_warn = 0;
    char *out = write_chrome(p);
    assert_int_equal(n_warn, 0);
    /* node ids: every "{"id":N," is a node (the Profile ids are strings) */
    size_t ids = 0;
    unsigned seen[64] = { 0 };
    for (const char *c = out; (c = strstr(c, "{\"id\":")) != NULL; c++) {
        unsigned id = (unsigned)strtoul(c + 6, NULL, 10);
        assert_true(id > 0 && id < 64);
        assert_int_equal(seen[id], 0);
        seen[id] = 1;
        ids++;
    }
    assert_int_equal(ids, 6); /* (root), f, g per thread */
    profkit_profile *q = read_doc(out, strlen(out));
    assert_int_equal(q->n_samples, 2400);
    assert_int_equal(q->n_threads, 2);
    /* thread b's samples follow a's; times in whole microseconds, 0.5 µs
     * rounding away from zero */
    assert_string_equal(pk_str(q, q->threads[q->sample_thread[1200]].name), "b");
    assert_int_equal(q->sample_time[1200], 1000);
    assert_int_equal(q->sample_time[1201], 1001000);
    profkit_profile_free(q);
    free(out);
    profkit_profile_free(p);
}

/* An aggregated profile: one sample per count, 1 ms apart, said once. */
static void aggregated(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    uint32_t vs = pk_value_type_add(p, "samples", "count");
    uint32_t vb = pk_value_type_add(p, "alloc", "bytes");
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    uint32_t f = pk_function_add_named(p, "f", "", NULL, 0);
    profkit_frame ff = { 0, f, 0, 0, PROFKIT_NONE, 0, 0 };
    uint32_t s = pk_stack_intern(p, 0, pk_frame_add(p, &ff));
    int64_t v[2];
    v[vs] = 3;
    v[vb] = 100;
    assert_int_equal(pk_sample_add(p, s, t, v), 0);
    p->default_value = vs;
    n_warn = 0;
    char *out = write_chrome(p);
    assert_int_equal(n_warn, 1);
    assert_non_null(strstr(last_warn, "written as 3 samples"));
    assert_non_null(strstr(last_warn, "alloc (bytes)"));
    profkit_profile *q = read_doc(out, strlen(out));
    assert_int_equal(q->n_samples, 3);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(q->sample_time[i], (int64_t)(i + 1) * 1000000);
    profkit_profile_free(q);
    free(out);
    profkit_profile_free(p);
}

static void hostile(void **state)
{
    (void)state;
    static const char *const files[] = { "tests/data/chrome/ok_devtools.trace.json",
                                         "tests/data/chrome/ok_cpuprofile_event.json",
                                         "tests/data/chrome/ok_bare_array.json" };
    pk_hostile_counts c = { 0, 0, 0, 0 };
    for (size_t i = 0; i < 3; i++) {
        size_t n;
        char *d = slurp(files[i], &n);
        pk_hostile_prefixes((const uint8_t *)d, n, "chrome", &c);
        pk_hostile_flips((const uint8_t *)d, n, "chrome", 300, &c);
        free(d);
    }
    assert_int_equal(c.silent, 0);
    assert_true(c.read > 0 && c.failed > 0 && c.warned > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(devtools_recording),
        cmocka_unit_test(round_trip),
        cmocka_unit_test(node_ids_unique),
        cmocka_unit_test(aggregated),
        cmocka_unit_test(hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
