/* test_range.c: time ranges (profkit_range_parse, the root range, the
 * range and marker filters) and thread selection by name, index and tid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "model/model.h"

static void parses(const char *text, double start, double end, int sp, int ep)
{
    profkit_range r;
    profkit_error err;
    int rc = profkit_range_parse(&r, text, &err);
    if (rc != 0)
        fail_msg("'%s': %s", text, err.message);
    if (r.start != start || r.end != end || r.start_percent != sp || r.end_percent != ep)
        fail_msg("'%s': got %g%s,%g%s", text, r.start, r.start_percent ? "%" : "ms", r.end,
                 r.end_percent ? "%" : "ms");
}

static void refuses(const char *text, const char *message)
{
    profkit_range r;
    profkit_error err;
    assert_int_equal(profkit_range_parse(&r, text, &err), PROFKIT_EINVAL);
    assert_string_equal(err.message, message);
}

static void range_syntaxes(void **state)
{
    (void)state;
    parses("2.7,3.1", 2700, 3100, 0, 0);           /* seconds */
    parses("2.7s,3.1s", 2700, 3100, 0, 0);         /* seconds, said so */
    parses("2700ms,3100ms", 2700, 3100, 0, 0);     /* milliseconds */
    parses("10%,20%", 10, 20, 1, 1);               /* percentages of the root range */
    parses(" 25% , 75% ", 25, 75, 1, 1);           /* blanks around an end */
    parses("0,100%", 0, 100, 0, 1);                /* units may differ */
    parses("-5ms,1e3ms", -5, 1000, 0, 0);          /* before the start; exponents */
    parses("3,3", 3000, 3000, 0, 0);               /* one instant */
}

static void range_bad_input(void **state)
{
    (void)state;
    refuses("2.7", "profkit_filter_options.range: expected START,END (seconds as in 2.7,3.1, "
                   "milliseconds as in 2700ms,3100ms, or percentages of the profile as in "
                   "10%,20%), got '2.7'");
    refuses("1,2,3", "profkit_filter_options.range: expected START,END (seconds as in 2.7,3.1, "
                     "milliseconds as in 2700ms,3100ms, or percentages of the profile as in "
                     "10%,20%), got '1,2,3'");
    refuses("a,2", "profkit_filter_options.range: 'a' is not a time: expected seconds (2.7), "
                   "milliseconds (2700ms) or a percentage (10%)");
    refuses("1,", "profkit_filter_options.range: '' is not a time: expected seconds (2.7), "
                  "milliseconds (2700ms) or a percentage (10%)");
    refuses("1,2us", "profkit_filter_options.range: '2us' is not a time: expected seconds (2.7), "
                     "milliseconds (2700ms) or a percentage (10%)");
    refuses("1,inf", "profkit_filter_options.range: 'inf' is not a time: expected seconds (2.7), "
                     "milliseconds (2700ms) or a percentage (10%)");
    refuses("0x10,2", "profkit_filter_options.range: '0x10' is not a time: expected seconds (2.7), "
                      "milliseconds (2700ms) or a percentage (10%)");
    refuses("1e400,2", "profkit_filter_options.range: '1e400' is not a time: expected seconds (2.7), "
                       "milliseconds (2700ms) or a percentage (10%)");
    refuses("3.1,2.7", "profkit_filter_options.range: the end comes before the start in '3.1,2.7'");
    refuses("20%,10%", "profkit_filter_options.range: the end comes before the start in '20%,10%'");
}

/* A profile of one value type: thread 0 sampled at 10, 20, ..., 100 ms
 * (frames "a" then "b" from 60 ms), thread 1 without samples and one
 * marker 5..150 ms; meta.interval 10 ms. */
static profkit_profile *timed_profile(void)
{
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    pk_value_type_add(p, "samples", "count");
    pk_meta_add(p, "interval", "10");
    uint32_t t0 = pk_thread_add(p, "main", "proc", 1, 1);
    uint32_t t1 = pk_thread_add(p, "worker", "proc", 1, 2);
    profkit_frame f;
    memset(&f, 0, sizeof f);
    f.mapping = PROFKIT_NONE;
    f.function = pk_function_add_named(p, "a", "", "", 0);
    uint32_t sa = pk_stack_intern(p, 0, pk_frame_add(p, &f));
    f.function = pk_function_add_named(p, "b", "", "", 0);
    uint32_t sb = pk_stack_intern(p, 0, pk_frame_add(p, &f));
    int64_t one = 1;
    for (int i = 1; i <= 10; i++)
        assert_int_equal(pk_sample_add_timed(p, i <= 5 ? sa : sb, t0, i * 10000000LL, &one), 0);
    profkit_marker m = { 5000000, 150000000, t1, profkit_string_intern_cstr(p, "Load"),
                         profkit_string_intern_cstr(p, "Network"),
                         profkit_string_intern_cstr(p, "{\"type\":\"Net\",\"URI\":\"x.html\"}") };
    assert_int_equal(pk_marker_add(p, &m), 0);
    profkit_marker m2 = { 30000000, 50000000, t0, profkit_string_intern_cstr(p, "Paint"),
                          profkit_string_intern_cstr(p, "Graphics"),
                          profkit_string_intern_cstr(p, "{\"type\":\"Paint\",\"reason\":\"scroll\"}") };
    assert_int_equal(pk_marker_add(p, &m2), 0);
    return p;
}

static void root_range(void **state)
{
    (void)state;
    profkit_profile *p = timed_profile();
    int64_t s, e;
    profkit_error err;
    /* thread 0: 10 .. 100 + 10 ms; thread 1 (no samples): its marker 5 .. 150 + 10 ms */
    assert_int_equal(profkit_profile_root_range(p, &s, &e, &err), 0);
    assert_int_equal(s, 5000000);
    assert_int_equal(e, 160000000);
    /* recorded bounds win */
    pk_meta_add(p, "profilingStartTime", "0");
    pk_meta_add(p, "profilingEndTime", "200");
    assert_int_equal(profkit_profile_root_range(p, &s, &e, &err), 0);
    assert_int_equal(s, 0);
    assert_int_equal(e, 200000000);
    profkit_profile_free(p);
    /* an aggregated profile has none */
    p = profkit_profile_new();
    int64_t one = 1;
    pk_value_type_add(p, "samples", "count");
    uint32_t t = pk_thread_add(p, "x", "", -1, -1);
    assert_int_equal(pk_sample_add(p, 0, t, &one), 0);
    assert_int_equal(profkit_profile_root_range(p, &s, &e, &err), PROFKIT_EINVAL);
    assert_string_equal(err.message, "profkit_filter_options.range: the profile has no times (its "
                                     "samples are aggregated per stack), so it has no time range");
    profkit_profile_free(p);
}

static size_t count_rows(const profkit_profile *p, const char *range, const char *during,
                         const char *outside)
{
    profkit_profile *q = timed_profile();
    profkit_filter_options o;
    memset(&o, 0, sizeof o);
    o.range = range;
    o.during_marker = during;
    o.outside_marker = outside;
    profkit_error err;
    assert_int_equal(profkit_profile_filter(q, &o, &err), 0);
    size_t n = q->n_samples;
    profkit_profile_free(q);
    (void)p;
    return n;
}

static void range_filter(void **state)
{
    (void)state;
    /* root 5 .. 160 ms (155 ms long); samples at 10 .. 100 ms */
    assert_int_equal(count_rows(NULL, "0,100%", NULL, NULL), 10);
    assert_int_equal(count_rows(NULL, "15ms,35ms", NULL, NULL), 2);  /* 20, 30: [20 ms, 40 ms) */
    assert_int_equal(count_rows(NULL, "15ms,25ms", NULL, NULL), 1);  /* 20 in, 30 at the end is out */
    assert_int_equal(count_rows(NULL, "0.015,0.025", NULL, NULL), 1);
    assert_int_equal(count_rows(NULL, "50%,100%", NULL, NULL), 2);   /* from 82.5 ms: 90, 100 */
    assert_int_equal(count_rows(NULL, "200ms,300ms", NULL, NULL), 0);
    /* during Paint (30 .. 50 ms on thread 0): 30, 40; outside: the other 8 */
    assert_int_equal(count_rows(NULL, NULL, "paint", NULL), 2);
    assert_int_equal(count_rows(NULL, NULL, NULL, "PAINT"), 8);
    /* a payload's value matches, its keys do not; the Network marker is on thread 1 */
    assert_int_equal(count_rows(NULL, NULL, "x.html", NULL), 0);
    assert_int_equal(count_rows(NULL, NULL, "URI", NULL), 0);
    assert_int_equal(count_rows(NULL, NULL, "Graphics", NULL), 2);
    assert_int_equal(count_rows(NULL, NULL, "Scroll", NULL), 2);
    assert_int_equal(count_rows(NULL, NULL, "reason", NULL), 0);
    /* both: the range and the markers */
    assert_int_equal(count_rows(NULL, "30ms,100%", NULL, "Paint"), 6);

    /* markers kept by a range: those overlapping it */
    profkit_profile *q = timed_profile();
    profkit_filter_options o;
    memset(&o, 0, sizeof o);
    o.range = "50ms,60ms"; /* 55 .. 65 ms: the Network marker only */
    profkit_error err;
    assert_int_equal(profkit_profile_filter(q, &o, &err), 0);
    assert_int_equal(q->n_markers, 1);
    assert_string_equal(pk_str(q, q->markers[0].name), "Load");
    profkit_profile_free(q);
}

/* The 50% point of 5 .. 160 ms is 82.5 ms: samples 90 and 100 stay, in order. */
static void range_filter_half(void **state)
{
    (void)state;
    profkit_profile *q = timed_profile();
    profkit_filter_options o;
    memset(&o, 0, sizeof o);
    o.range = "50%,100%";
    profkit_error err;
    assert_int_equal(profkit_profile_filter(q, &o, &err), 0);
    assert_int_equal(q->n_samples, 2);
    assert_int_equal(q->sample_time[0], 90000000);
    profkit_profile_free(q);
}

static void thread_selection(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    pk_thread_add(p, "GeckoMain", "Parent Process", 10, 10);
    pk_thread_add(p, "Compositor", "Parent Process", 10, 11);
    pk_thread_add(p, "GeckoMain", "Content Process", 20, 20);
    int ok;
    profkit_error err;
    assert_int_equal(pk_select_thread(p, "Compositor", &ok, &err), 1);
    assert_int_equal(ok, 1);
    assert_int_equal(pk_select_thread(p, "2", &ok, &err), 2);
    assert_int_equal(pk_select_thread(p, "t-0", &ok, &err), 0);
    assert_int_equal(pk_select_thread(p, "tid:20", &ok, &err), 2);
    assert_int_equal(pk_select_thread(p, "11", &ok, &err), 1); /* no index 11: a tid */
    pk_select_thread(p, "GeckoMain", &ok, &err);
    assert_int_equal(ok, 0);
    assert_string_equal(err.message,
                        "thread 'GeckoMain' matches 2 threads: 0: GeckoMain (Parent Process, pid 10, "
                        "tid 10); 2: GeckoMain (Content Process, pid 20, tid 20) (pick one by index "
                        "or tid:TID)");
    pk_select_thread(p, "tid:99", &ok, &err);
    assert_int_equal(ok, 0);
    assert_string_equal(err.message, "no thread 'tid:99' (use a thread name, an index 0..2 or "
                                     "tid:TID; 'profkit info' lists them)");
    profkit_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(range_syntaxes),     cmocka_unit_test(range_bad_input),
        cmocka_unit_test(root_range),         cmocka_unit_test(range_filter),
        cmocka_unit_test(range_filter_half),  cmocka_unit_test(thread_selection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
