/* test_markers.c: markers as the Firefox Profiler shows them (analysis/markers.c):
 * the duration statistics, pairing, the zero, the filters; and the payload
 * field scanner (io/json_fields.c) on hostile text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/markers.h"
#include "io/json_fields.h"
#include "model/model.h"

#define MS 1000000LL

static void test_stats(void **state)
{
    (void)state;
    pk_duration_stats s;
    int64_t one[] = { 5 };
    pk_duration_stats_compute(one, 1, &s);
    assert_int_equal(s.min, 5);
    assert_int_equal(s.max, 5);
    assert_int_equal(s.median, 5);
    assert_int_equal(s.p95, 5);
    assert_true(s.mean == 5.0);
    /* as the Firefox Profiler: median d[n/2], p95 d[floor(n*0.95)] of the sorted */
    int64_t two[] = { 50417, 22834 };
    pk_duration_stats_compute(two, 2, &s);
    assert_int_equal(s.min, 22834);
    assert_int_equal(s.max, 50417);
    assert_int_equal(s.median, 50417);
    assert_int_equal(s.p95, 50417);
    assert_true(s.mean == (50417.0 + 22834.0) / 2);
    int64_t d[100];
    for (int i = 0; i < 100; i++)
        d[i] = 100 - i; /* 100 .. 1 */
    pk_duration_stats_compute(d, 100, &s);
    assert_int_equal(s.min, 1);
    assert_int_equal(s.max, 100);
    assert_int_equal(s.median, 51);
    assert_int_equal(s.p95, 96);
    assert_true(s.mean == 50.5);
    int64_t twenty[20];
    for (int i = 0; i < 20; i++)
        twenty[i] = i + 1;
    pk_duration_stats_compute(twenty, 20, &s);
    assert_int_equal(s.median, 11);
    assert_int_equal(s.p95, 20);
}

static void marker(profkit_profile *p, uint32_t thread, const char *name, int64_t start, int64_t end,
                   uint32_t phase, const char *payload, const char *category)
{
    profkit_marker m = { start, end, thread, profkit_string_intern_cstr(p, name),
                         category ? profkit_string_intern_cstr(p, category) : 0,
                         payload ? profkit_string_intern_cstr(p, payload) : 0, phase, 0 };
    assert_int_equal(pk_marker_add(p, &m), 0);
}

/* A thread sampled at 10..20 ms (interval 1 ms) and a thread without samples. */
static profkit_profile *sample_profile(void)
{
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    assert_int_equal(pk_meta_add(p, "interval", "1"), 0);
    uint32_t t0 = pk_thread_add(p, "GeckoMain", "", 1, 11);
    uint32_t t1 = pk_thread_add(p, "Other", "", 1, 12);
    assert_int_equal(t0, 0);
    assert_int_equal(t1, 1);
    assert_int_not_equal(pk_value_type_add(p, "samples", "count"), PROFKIT_NONE);
    int64_t v = 1;
    for (int i = 10; i <= 20; i++)
        assert_int_equal(pk_sample_add_timed(p, 0, t0, i * MS, &v), 0);
    const int64_t N = PROFKIT_NO_TIME;
    marker(p, 0, "Awake", 9 * MS, N, PROFKIT_MARKER_START, "{\"type\":\"Awake\"}", NULL);
    marker(p, 0, "Paint", 11 * MS, N, PROFKIT_MARKER_INSTANT, NULL, "Graphics");
    marker(p, 0, "Awake", N, 13 * MS, PROFKIT_MARKER_END, "{\"type\":\"Awake\",\"CPU Time\":3}", NULL);
    marker(p, 0, "Lonely end", N, 15 * MS, PROFKIT_MARKER_END, NULL, NULL);
    marker(p, 0, "Never ends", 16 * MS, N, PROFKIT_MARKER_START, NULL, NULL);
    marker(p, 0, "Load", 12 * MS, 12 * MS, PROFKIT_MARKER_INTERVAL,
           "{\"type\":\"Network\",\"id\":7,\"status\":\"STATUS_START\",\"URI\":\"https://a/\"}", "Network");
    marker(p, 0, "Load", 14 * MS, 17 * MS, PROFKIT_MARKER_INTERVAL,
           "{\"type\":\"Network\",\"id\":7,\"status\":\"STATUS_STOP\",\"URI\":\"https://a/\"}", "Network");
    marker(p, 0, "Late", 25 * MS, N, PROFKIT_MARKER_INSTANT, NULL, NULL); /* past the range: hidden */
    marker(p, 1, "DOMEvent", 5 * MS, 8 * MS, PROFKIT_MARKER_INTERVAL,
           "{\"type\":\"DOMEvent\",\"eventType\":\"mousedown\",\"target\":\"html\"}", "DOM");
    return p;
}

static const pk_shown_marker *find(const pk_shown_markers *s, const profkit_profile *p, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(pk_str(p, s->m[i].name), name) == 0)
            return &s->m[i];
    return NULL;
}

static void test_shown(void **state)
{
    (void)state;
    profkit_profile *p = sample_profile();
    pk_shown_markers s;
    assert_int_equal(pk_markers_shown(&s, p, PROFKIT_NONE, NULL, NULL, -1), 0);
    /* the zero: the earliest thread start; thread 1 has no samples: its markers span 5..8 */
    assert_int_equal(s.zero, 5 * MS);
    assert_int_equal(s.end, 21 * MS); /* the last sample + the interval */
    assert_int_equal(s.n, 6);
    const pk_shown_marker *m = find(&s, p, "Awake");
    assert_non_null(m);
    assert_int_equal(m->start, 4 * MS); /* 9 - 5 */
    assert_int_equal(m->end, 8 * MS);
    assert_string_equal(pk_str(p, m->payload), "{\"type\":\"Awake\",\"CPU Time\":3}");
    m = find(&s, p, "Paint");
    assert_int_equal(m->end, PROFKIT_NO_TIME);
    assert_string_equal(pk_str(p, m->category), "Graphics");
    m = find(&s, p, "Lonely end"); /* starts at its thread's start, 10 */
    assert_int_equal(m->start, 5 * MS);
    assert_int_equal(m->end, 10 * MS);
    m = find(&s, p, "Never ends"); /* ends at its thread's end, 21 */
    assert_int_equal(m->start, 11 * MS);
    assert_int_equal(m->end, 16 * MS);
    m = find(&s, p, "Load"); /* the request: the start's start to the stop's end */
    assert_int_equal(m->start, 7 * MS);
    assert_int_equal(m->end, 12 * MS);
    assert_null(find(&s, p, "Late"));
    /* thread order, then time order */
    assert_int_equal(s.m[0].thread, 0);
    assert_string_equal(pk_str(p, s.m[0].name), "Awake");
    assert_int_equal(s.m[s.n - 1].thread, 1);
    for (size_t i = 1; i + 1 < s.n; i++)
        assert_true(s.m[i].start >= s.m[i - 1].start);
    pk_shown_markers_free(&s);

    /* groups: per thread, most markers first */
    assert_int_equal(pk_markers_shown(&s, p, 0, NULL, NULL, -1), 0);
    assert_int_equal(s.n, 5);
    pk_marker_group *g;
    size_t ng;
    assert_int_equal(pk_marker_groups(&s, p, &g, &ng), 0);
    assert_int_equal(ng, 5);
    for (size_t i = 0; i < ng; i++) {
        assert_int_equal(g[i].thread, 0);
        assert_int_equal(g[i].count, 1);
    }
    free(g);
    pk_shown_markers_free(&s);
    profkit_profile_free(p);
}

static size_t count(const profkit_profile *p, const char *search, const char *category, int64_t min)
{
    pk_shown_markers s;
    assert_int_equal(pk_markers_shown(&s, p, PROFKIT_NONE, search, category, min), 0);
    size_t n = s.n;
    pk_shown_markers_free(&s);
    return n;
}

static void test_filters(void **state)
{
    (void)state;
    profkit_profile *p = sample_profile();
    assert_int_equal(count(p, "awake", NULL, -1), 1);       /* name, any case */
    assert_int_equal(count(p, "graph", NULL, -1), 1);       /* category */
    assert_int_equal(count(p, "Network", NULL, -1), 1);     /* payload type (and category) */
    assert_int_equal(count(p, "mousedown", NULL, -1), 1);   /* a field's value */
    assert_int_equal(count(p, "eventType:mouse", NULL, -1), 1);
    assert_int_equal(count(p, "eventType:keydown", NULL, -1), 0);
    assert_int_equal(count(p, "target:html", NULL, -1), 1);
    assert_int_equal(count(p, "awake,paint", NULL, -1), 2); /* alternatives */
    assert_int_equal(count(p, "-type:Awake", NULL, -1), 5); /* leaves out */
    assert_int_equal(count(p, "DOMEvent,-eventType:mousedown", NULL, -1), 0);
    assert_int_equal(count(p, "nosuchfield:x", NULL, -1), 0); /* matched as it is */
    assert_int_equal(count(p, NULL, "dom", -1), 1);
    assert_int_equal(count(p, NULL, "other", -1), 3); /* no category shows as Other */
    assert_int_equal(count(p, NULL, NULL, 4 * MS), 4); /* Awake 4, Lonely end, Never ends, Load 5; not DOMEvent 3 */
    assert_int_equal(count(p, NULL, NULL, 0), 5);      /* every interval, no instant */
    profkit_profile_free(p);
}

static void test_fields(void **state)
{
    (void)state;
    const char *ok = " { \"a\" : 1 , \"b\":\"x\\\"y\", \"c\":{\"d\":[1,{\"e\":\"}\"}]}, \"f\":null}";
    size_t pos = 0;
    pk_json_field f;
    const char *keys[] = { "a", "b", "c", "f" };
    for (int i = 0; i < 4; i++) {
        assert_true(pk_json_next_field(ok, strlen(ok), &pos, &f));
        assert_int_equal(f.key_len, 1);
        assert_memory_equal(f.key, keys[i], 1);
    }
    assert_false(pk_json_next_field(ok, strlen(ok), &pos, &f));
    assert_true(pk_json_find_field(ok, strlen(ok), "b", &f));
    const char *s;
    size_t n;
    assert_true(pk_json_field_string(&f, &s, &n));
    assert_int_equal(n, 4);
    assert_true(pk_json_find_field(ok, strlen(ok), "c", &f));
    assert_int_equal(f.value_len, strlen("{\"d\":[1,{\"e\":\"}\"}]}"));
    double d;
    assert_true(pk_json_find_field(ok, strlen(ok), "a", &f));
    assert_true(pk_json_field_number(&f, &d));
    assert_true(d == 1.0);
    /* hostile: cut anywhere, never past the end, never a field from garbage */
    for (size_t cut = 0; cut < strlen(ok); cut++) {
        char *c = malloc(cut ? cut : 1);
        memcpy(c, ok, cut);
        pos = 0;
        int k = 0;
        while (pk_json_next_field(c, cut, &pos, &f) && k < 10) {
            assert_true(f.value + f.value_len <= c + cut);
            k++;
        }
        free(c);
    }
    const char *bad[] = { "", "[1,2]", "{\"a\"}", "{\"a\":}", "{\"a\":\"x", "{\"a\":{\"b\":1", "{a:1}", "\"x\"" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pos = 0;
        assert_false(pk_json_next_field(bad[i], strlen(bad[i]), &pos, &f));
    }
    assert_false(pk_json_find_field(NULL, 0, "a", &f));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_shown),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
