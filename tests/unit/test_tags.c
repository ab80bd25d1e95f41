/* test_tags.c: sample label sets in the model (rows apart by labels, merge,
 * no per-row array without labels), pprof's units and the tag ranges of
 * --tagfocus/--tagignore (analysis/tags.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/tags.h"
#include "model/model.h"

static void range_forms(void **state)
{
    (void)state;
    pk_tag_range r;
    /* equal */
    assert_int_equal(pk_tag_range_parse("64b", &r), 1);
    assert_string_equal(r.unit, "B");
    assert_true(r.has_lo && r.has_hi);
    assert_true(r.lo == 64 && r.hi == 64);
    assert_true(pk_tag_range_match(&r, 64, "bytes"));
    assert_false(pk_tag_range_match(&r, 65, "bytes"));
    /* both ends, the second in the first's unit */
    assert_int_equal(pk_tag_range_parse("1kb:1mb", &r), 1);
    assert_string_equal(r.unit, "kB");
    assert_true(r.lo == 1 && r.hi == 1024);
    assert_true(pk_tag_range_match(&r, 1024, "bytes"));
    assert_true(pk_tag_range_match(&r, 1048576, "bytes"));
    assert_false(pk_tag_range_match(&r, 1023, "bytes"));
    assert_false(pk_tag_range_match(&r, 1048577, "bytes"));
    /* open ends */
    assert_int_equal(pk_tag_range_parse("2kb:", &r), 1);
    assert_true(r.has_lo && !r.has_hi);
    assert_true(pk_tag_range_match(&r, 2048, "bytes"));
    assert_false(pk_tag_range_match(&r, 2047, "bytes"));
    assert_int_equal(pk_tag_range_parse(":2kb", &r), 1);
    assert_true(!r.has_lo && r.has_hi);
    assert_true(pk_tag_range_match(&r, 2048, "B"));
    assert_false(pk_tag_range_match(&r, 2049, "B"));
    /* a unit of another kind never matches */
    assert_int_equal(pk_tag_range_parse("10ms:", &r), 1);
    assert_string_equal(r.unit, "ms");
    assert_true(pk_tag_range_match(&r, 10000000, "nanoseconds"));
    assert_false(pk_tag_range_match(&r, 1 << 30, "bytes"));
    /* a plain number has no unit: only unit-less labels match */
    assert_int_equal(pk_tag_range_parse("64", &r), 1);
    assert_string_equal(r.unit, "");
    assert_true(pk_tag_range_match(&r, 64, "count"));
    assert_false(pk_tag_range_match(&r, 64, "bytes"));
    assert_int_equal(pk_tag_range_parse("-5:5", &r), 1);
    assert_true(pk_tag_range_match(&r, -5, "x") && pk_tag_range_match(&r, 5, "x"));
}

static void range_not_ranges(void **state)
{
    (void)state;
    pk_tag_range r;
    assert_int_equal(pk_tag_range_parse("slow", &r), 0);
    assert_int_equal(pk_tag_range_parse("", &r), 0);
    assert_int_equal(pk_tag_range_parse("v2", &r), 0);       /* text around the number */
    assert_int_equal(pk_tag_range_parse("1kb:x", &r), 0);
    assert_int_equal(pk_tag_range_parse("1kb-2kb", &r), 0);  /* "-2kb" is a second number, */
    assert_int_equal(pk_tag_range_parse("1kb:-2kb:", &r), 0); /* not "N:M" */
    assert_int_equal(pk_tag_range_parse("1kb:2ms", &r), 0);  /* units of two kinds */
    assert_int_equal(pk_tag_range_parse("1:2:3", &r), 0);
    assert_int_equal(pk_tag_range_parse("a1", &r), 0);
    assert_int_equal(pk_tag_range_parse("99999999999999999999b", &r), -1);
}

static void pprof_units(void **state)
{
    (void)state;
    char b[64];
    pk_pprof_label(b, sizeof(b), 1536, "bytes", "minimum");
    assert_string_equal(b, "1.50kB");
    pk_pprof_label(b, sizeof(b), 64, "bytes", "minimum");
    assert_string_equal(b, "64B");
    pk_pprof_label(b, sizeof(b), 0, "bytes", "minimum");
    assert_string_equal(b, "0");
    pk_pprof_label(b, sizeof(b), 1048576, "bytes", "minimum");
    assert_string_equal(b, "1MB");
    pk_pprof_label(b, sizeof(b), 42, "requests", "minimum"); /* no unit of pprof's */
    assert_string_equal(b, "42");
    pk_pprof_label(b, sizeof(b), 1500000, "nanoseconds", "minimum");
    assert_string_equal(b, "1.50ms");
    const char *u;
    assert_true(pk_pprof_scale(760000000, "nanoseconds", "minimum", &u) == 760.0);
    assert_string_equal(u, "ms");
    assert_string_equal(pk_pprof_percentage(b, sizeof(b), 1, 1), "  100%");
    assert_string_equal(pk_pprof_percentage(b, sizeof(b), 620, 760), "81.58%");
    assert_string_equal(pk_pprof_percentage(b, sizeof(b), 64, 956400), "0.0067%");
    assert_string_equal(pk_pprof_percentage(b, sizeof(b), 0, 5), "    0%");
}

static uint32_t one_frame(profkit_profile *p, const char *name)
{
    profkit_frame f;
    memset(&f, 0, sizeof(f));
    f.function = pk_function_add_named(p, name, "", "", 0);
    f.mapping = PROFKIT_NONE;
    return pk_stack_intern(p, 0, pk_frame_add(p, &f));
}

static uint32_t set_of(profkit_profile *p, const char *key, const char *value)
{
    profkit_label l;
    memset(&l, 0, sizeof(l));
    l.key = profkit_string_intern_cstr(p, key);
    l.str = profkit_string_intern_cstr(p, value);
    return pk_labelset_intern(p, &l, 1);
}

static void rows_apart_by_labels(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    pk_value_type_add(p, "cpu", "nanoseconds");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    uint32_t s = one_frame(p, "work");
    int64_t v = 10;
    /* without labels: one row, and no per-row label array */
    assert_int_equal(pk_sample_add(p, s, th, &v), 0);
    assert_int_equal(pk_sample_add(p, s, th, &v), 0);
    assert_int_equal(p->n_samples, 1);
    assert_null(p->sample_labels);
    uint32_t slow = set_of(p, "function", "slow"), fast = set_of(p, "function", "fast");
    assert_int_not_equal(slow, fast);
    assert_int_equal(set_of(p, "function", "slow"), slow); /* hash-consed */
    assert_int_equal(pk_sample_add_labeled(p, s, th, slow, &v), 0);
    assert_int_equal(pk_sample_add_labeled(p, s, th, fast, &v), 0);
    assert_int_equal(pk_sample_add_labeled(p, s, th, slow, &v), 0);
    assert_int_equal(p->n_samples, 3);
    assert_non_null(p->sample_labels);
    assert_int_equal(p->sample_labels[0], 0);
    assert_int_equal(p->sample_values[1], 20); /* slow: 10 + 10 */
    assert_int_equal(p->sample_values[2], 10);
    /* merged into an empty profile: the sets come along, rows stay apart */
    profkit_profile *q = profkit_profile_new();
    profkit_error err;
    assert_int_equal(profkit_profile_merge(q, p, &err), 0);
    assert_int_equal(q->n_samples, 3);
    size_t n = 0;
    const profkit_label *l = profkit_profile_labelset(q, q->sample_labels[1], &n);
    assert_int_equal(n, 1);
    assert_string_equal(pk_str(q, l[0].key), "function");
    assert_string_equal(pk_str(q, l[0].str), "slow");
    /* merged twice: same rows, values summed */
    assert_int_equal(profkit_profile_merge(q, p, &err), 0);
    assert_int_equal(q->n_samples, 3);
    assert_int_equal(q->sample_values[1], 40);
    profkit_profile_free(q);
    profkit_profile_free(p);
}

static void labelset_order_and_numbers(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    profkit_label a[3], b[3];
    memset(a, 0, sizeof(a));
    a[0].key = profkit_string_intern_cstr(p, "zone");
    a[0].str = profkit_string_intern_cstr(p, "eu");
    a[1].key = profkit_string_intern_cstr(p, "bytes");
    a[1].is_num = 1;
    a[1].num = 64;
    a[2].key = a[1].key;
    a[2].is_num = 1;
    a[2].num = 128;
    a[2].unit = profkit_string_intern_cstr(p, "bytes");
    memcpy(b, a, sizeof(a));
    uint32_t x = pk_labelset_intern(p, a, 3);
    /* the same labels given in another order of keys: the same set */
    profkit_label c[3] = { b[1], b[2], b[0] };
    assert_int_equal(pk_labelset_intern(p, c, 3), x);
    /* the values of one key in another order: another set */
    profkit_label d[3] = { b[2], b[1], b[0] };
    assert_int_not_equal(pk_labelset_intern(p, d, 3), x);
    /* a unit makes a number another label */
    b[1].unit = a[2].unit;
    assert_int_not_equal(pk_labelset_intern(p, b, 3), x);
    assert_int_equal(pk_labelset_intern(p, NULL, 0), 0);
    size_t n;
    assert_null(profkit_profile_labelset(p, 0, &n));
    assert_int_equal(n, 0);
    assert_int_equal(profkit_profile_n_labelsets(p), 4);
    profkit_profile_free(p);
}

/* profkit_filter_options.on_warning: each label option that matched no
 * sample, once, in pprof's order, with pprof's words; none for a match. */
struct warnings {
    int n;
    char text[8][512];
};

static void collect(const profkit_error *w, void *payload)
{
    struct warnings *ws = payload;
    if (ws->n < 8)
        snprintf(ws->text[ws->n++], sizeof(ws->text[0]), "%s", w->message);
}

static void no_match_warnings(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    pk_value_type_add(p, "cpu", "nanoseconds");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    uint32_t s = one_frame(p, "work");
    int64_t v = 10;
    assert_int_equal(pk_sample_add_labeled(p, s, th, set_of(p, "function", "slow"), &v), 0);
    assert_int_equal(pk_sample_add(p, s, th, &v), 0);
    struct warnings ws;
    memset(&ws, 0, sizeof(ws));
    profkit_filter_options o;
    memset(&o, 0, sizeof(o));
    o.on_warning = collect;
    o.payload = &ws;
    o.tagroot = "nosuch";
    o.tagleaf = "function";
    o.tagfocus = "function=slow";
    o.tagignore = "function=fast";
    o.tagshow = "zz";
    profkit_error err;
    assert_int_equal(profkit_profile_filter(p, &o, &err), 0);
    assert_int_equal(ws.n, 3);
    assert_string_equal(ws.text[0], "TagRoot expression matched no samples (profkit_filter_options.tagroot 'nosuch')");
    assert_string_equal(ws.text[1], "TagIgnore expression matched no samples (profkit_filter_options.tagignore 'function=fast')");
    assert_string_equal(ws.text[2], "TagShow expression matched no samples (profkit_filter_options.tagshow 'zz')");
    /* the slow sample stays (its labels dropped by tagshow) */
    assert_int_equal(p->n_samples, 1);
    profkit_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(range_forms),
        cmocka_unit_test(range_not_ranges),
        cmocka_unit_test(pprof_units),
        cmocka_unit_test(rows_apart_by_labels),
        cmocka_unit_test(labelset_order_and_numbers),
        cmocka_unit_test(no_match_warnings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
