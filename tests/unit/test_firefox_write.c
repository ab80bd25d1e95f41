/* test_firefox_write.c: the processed Firefox Profiler writer (firefox_write.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <unistd.h>

#include "formats/gecko/firefox.h"

/* Writes p with the Firefox writer; returns the text (caller frees) or NULL with *rc set. */
static char *write_ff(const profkit_profile *p, const char *value, const char *thread, int *rc)
{
    char path[] = "/tmp/test_firefox_write_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    profkit_error err;
    pk_sink *k;
    assert_int_equal(pk_sink_open(&k, path, 0, &err), 0);
    profkit_write_options o;
    memset(&o, 0, sizeof(o));
    o.value = value;
    o.thread = thread;
    *rc = pk_firefox_write(p, k, &o, &err);
    assert_int_equal(pk_sink_close(k, *rc == 0, &err), 0);
    char *text = NULL;
    if (*rc == 0) {
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        text = malloc((size_t)n + 1);
        assert_non_null(text);
        assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
        text[n] = 0;
        fclose(f);
    }
    unlink(path);
    return text;
}

static char *write_ok(const profkit_profile *p, const char *value)
{
    int rc;
    char *t = write_ff(p, value, NULL, &rc);
    assert_int_equal(rc, 0);
    return t;
}

#define assert_has(text, needle)                                                              \
    do {                                                                                      \
        if (!strstr((text), (needle)))                                                       \
            fail_msg("missing %s in output:\n%.3000s", (needle), (text));                    \
    } while (0)
#define assert_lacks(text, needle)                                                            \
    do {                                                                                      \
        if (strstr((text), (needle)))                                                        \
            fail_msg("unexpected %s in output:\n%.3000s", (needle), (text));                 \
    } while (0)

/* A frame of a named function (address 0 unless given). */
static uint32_t frame(profkit_profile *p, const char *name, uint64_t addr)
{
    profkit_frame fr;
    memset(&fr, 0, sizeof(fr));
    fr.function = pk_function_add_named(p, name, NULL, NULL, 0);
    fr.address = addr;
    fr.mapping = PROFKIT_NONE;
    return pk_frame_add(p, &fr);
}

static void untimed_rows_become_weighted_samples(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    uint32_t v = pk_value_type_add(p, "samples", "count");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    p->default_value = v;
    uint32_t a = frame(p, "a", 0), b = frame(p, "b", 0), c = frame(p, "c", 0);
    uint32_t sa = pk_stack_intern(p, 0, a);
    uint32_t sab = pk_stack_intern(p, sa, b);
    uint32_t sac = pk_stack_intern(p, sa, c);
    int64_t five = 5, zero = 0, three = 3;
    pk_sample_add(p, sab, th, &five);
    pk_sample_add(p, sac, th, &zero); /* says nothing: left out */
    pk_sample_add(p, sa, th, &three);
    char *t = write_ok(p, NULL);
    assert_has(t, "\"preprocessedProfileVersion\":75");
    assert_has(t, "\"weightType\":\"samples\",\"weight\":[5,3],\"stack\":[1,0],\"time\":[0,1],\"length\":2}");
    /* stack 0 = a (root), 1 = a;b (prefix 1 back), 2 = a;c */
    assert_has(t, "\"stackTable\":{\"length\":3,\"frame\":[0,1,2],\"prefixOffset\":[0,1,2]}");
    assert_has(t, "{\"name\":\"Other\",\"color\":\"grey\"");
    assert_has(t, "\"stringArray\":[\"\",\"a\",\"b\",\"c\"]");
    free(t);
    profkit_profile_free(p);
}

static void all_ones_weight_is_left_out(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    uint32_t v = pk_value_type_add(p, "samples", "count");
    uint32_t th = pk_thread_add(p, "T", "proc", 7, 9);
    p->default_value = v;
    uint32_t s = pk_stack_intern(p, 0, frame(p, "f", 0));
    int64_t one = 1;
    pk_sample_add_timed(p, s, th, 3000000, &one);
    pk_sample_add_timed(p, s, th, 4000000, &one);
    char *t = write_ok(p, NULL);
    assert_has(t, "\"weight\":null,\"stack\":[0,0],\"time\":[0,1],\"length\":2");
    assert_has(t, "\"interval\":1,");
    assert_has(t, "\"startTime\":3,");
    assert_has(t, "\"name\":\"T\",\"isMainThread\":true,\"processName\":\"proc\",\"pid\":\"7\",\"tid\":9");
    free(t);
    profkit_profile_free(p);
}

static void timed_rows_sorted_in_exact_ms(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    uint32_t cpu = pk_value_type_add(p, "cpu", "nanoseconds");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    p->default_value = cpu;
    uint32_t s = pk_stack_intern(p, 0, frame(p, "f", 0));
    int64_t v1 = 1500000, v2 = 250;
    pk_sample_add_timed(p, s, th, 2500000123LL, &v1);
    pk_sample_add_timed(p, s, th, 1000000999LL, &v2);
    char *t = write_ok(p, NULL);
    /* origin: the earliest time rounded down to a millisecond; interval: the median gap */
    assert_has(t, "\"interval\":1499.999124,\"startTime\":1000,");
    assert_has(t, "\"weightType\":\"tracing-ms\",\"weight\":[0.00025,1.5],\"stack\":[0,0],"
                  "\"time\":[0.000999,1500.000123]");
    free(t);
    profkit_profile_free(p);
}

static void negative_times_and_seconds(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    uint32_t sec = pk_value_type_add(p, "wall", "seconds");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    p->default_value = sec;
    uint32_t s = pk_stack_intern(p, 0, frame(p, "f", 0));
    int64_t v = 2;
    pk_sample_add_timed(p, s, th, -1500000, &v);
    char *t = write_ok(p, NULL);
    assert_has(t, "\"startTime\":-2,");
    assert_has(t, "\"weight\":[2000],\"stack\":[0],\"time\":[0.5]");
    free(t);
    profkit_profile_free(p);
}

static void bytes_and_value_selection(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    uint32_t n = pk_value_type_add(p, "alloc_objects", "count");
    pk_value_type_add(p, "alloc_space", "bytes");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    p->default_value = n;
    uint32_t s = pk_stack_intern(p, 0, frame(p, "f", 0));
    int64_t vals[2] = { 2, 4096 };
    pk_sample_add(p, s, th, vals);
    char *t = write_ok(p, "alloc_space");
    assert_has(t, "\"weightType\":\"bytes\",\"weight\":[4096]");
    free(t);
    t = write_ok(p, NULL);
    assert_has(t, "\"weightType\":\"samples\",\"weight\":[2]");
    free(t);
    int rc;
    assert_null(write_ff(p, "nosuch", NULL, &rc));
    assert_int_equal(rc, PROFKIT_EINVAL);
    assert_null(write_ff(p, NULL, "nosuch", &rc));
    assert_int_equal(rc, PROFKIT_EINVAL);
    profkit_profile_free(p);
}

static void nameless_functions_split_by_address(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    uint32_t v = pk_value_type_add(p, "samples", "count");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    p->default_value = v;
    uint32_t m = pk_mapping_add(p, 0x400000, 0x500000, 0x1000, "/usr/bin/app", "abc123");
    profkit_function fn;
    memset(&fn, 0, sizeof(fn));
    uint32_t f = pk_function_add(p, &fn);
    profkit_frame fr;
    memset(&fr, 0, sizeof(fr));
    fr.function = f;
    fr.mapping = m;
    fr.address = 0x400010;
    uint32_t f1 = pk_frame_add(p, &fr);
    fr.address = 0x400020;
    fr.line = 12;
    uint32_t f2 = pk_frame_add(p, &fr);
    int64_t one = 1;
    pk_sample_add(p, pk_stack_intern(p, 0, f1), th, &one);
    pk_sample_add(p, pk_stack_intern(p, 0, f2), th, &one);
    char *t = write_ok(p, NULL);
    /* two functions, named by their labels (FILE+0xOFFSET), in the app's resource */
    assert_has(t, "\"funcTable\":{\"length\":2,\"name\":[1,3],\"flags\":[4,4],\"resource\":[0,0]");
    assert_has(t, "\"stringArray\":[\"\",\"app+0x1010\",\"app\",\"app+0x1020\"]");
    /* lib-relative addresses (address - start + offset), line flag on the second */
    assert_has(t, "\"frameTable\":{\"length\":2,\"flags\":[2,18],\"address\":[4112,4128],\"lib\":[0,0],\"func\":[0,1],"
                  "\"line\":[0,12]");
    assert_has(t, "\"libs\":[{\"arch\":\"\",\"name\":\"app\",\"path\":\"/usr/bin/app\",\"debugName\":\"app\","
                  "\"debugPath\":\"/usr/bin/app\",\"breakpadId\":\"abc123\",\"codeId\":null}]");
    free(t);
    profkit_profile_free(p);
}

static void files_become_sources(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    uint32_t v = pk_value_type_add(p, "samples", "count");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    p->default_value = v;
    profkit_frame fr;
    memset(&fr, 0, sizeof(fr));
    fr.mapping = PROFKIT_NONE;
    fr.function = pk_function_add_named(p, "main", "src/main.c", "libx.so", 40);
    int64_t one = 1;
    pk_sample_add(p, pk_stack_intern(p, 0, pk_frame_add(p, &fr)), th, &one);
    char *t = write_ok(p, NULL);
    assert_has(t, "\"funcTable\":{\"length\":1,\"name\":[1],\"flags\":[28],\"resource\":[0],\"source\":[0],\"lineNumber\":[40]");
    assert_has(t, "\"resourceTable\":{\"length\":1,\"name\":[2],\"host\":[null],\"type\":[1]}");
    assert_has(t, "\"sources\":{\"length\":1,\"filename\":[3]");
    assert_has(t, "\"stringArray\":[\"\",\"main\",\"libx.so\",\"src/main.c\"]");
    free(t);
    profkit_profile_free(p);
}

static void add_marker(profkit_profile *p, const char *name, const char *cat, int64_t start, int64_t end,
                       const char *payload)
{
    profkit_marker m;
    memset(&m, 0, sizeof(m));
    m.thread = 0;
    m.name = profkit_string_intern_cstr(p, name);
    m.category = profkit_string_intern_cstr(p, cat);
    m.start = start;
    m.end = end;
    m.phase = start == end ? PROFKIT_MARKER_INSTANT : PROFKIT_MARKER_INTERVAL;
    m.payload = payload ? profkit_string_intern_cstr(p, payload) : 0;
    assert_int_equal(pk_marker_add(p, &m), 0);
}

static void markers_payloads_and_phases(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    pk_thread_add(p, "main", "", -1, -1);
    add_marker(p, "ok", "GC", 2000000, 5000000, "{\"type\":\"GCMajor\",\"n\":[1,2.5e3,{\"x\":null}]}");
    add_marker(p, "net", "Network", 3000000, 3000000, " { \"type\" : \"Network\", \"id\": 1 } ");
    add_marker(p, "inst", "", 4000000, 4000000, NULL);
    add_marker(p, "bad1", "GC", 4000000, 4000000, "{\"a\":}");
    add_marker(p, "bad2", "GC", 4000000, 4000000, "[1]");
    add_marker(p, "bad3", "GC", 4000000, 4000000, "{\"a\":\"\xff\"}");
    add_marker(p, "bad4", "GC", 4000000, 4000000, "{\"a\":1} x");
    add_marker(p, "bad5", "GC", 4000000, 4000000, "{\"a\":\"\x01\"}");
    char *t = write_ok(p, NULL);
    assert_has(t, "\"markers\":{\"data\":[{\"type\":\"GCMajor\",\"n\":[1,2.5e3,{\"x\":null}]},"
                  " { \"type\" : \"Network\", \"id\": 1 } ,null,null,null,null,null,null]");
    assert_has(t, "\"startTime\":[0,1,2,2,2,2,2,2],\"endTime\":[3,1,null,null,null,null,null,null],"
                  "\"phase\":[1,1,0,0,0,0,0,0],\"category\":[1,2,0,1,1,1,1,1],\"length\":8}");
    assert_has(t, "\"startTime\":2,");
    assert_has(t, "{\"name\":\"GC\",\"color\":\"blue\",\"subcategories\":[\"Other\"]},{\"name\":\"Network\"");
    /* a thread without samples still has a samples table */
    assert_has(t, "\"samples\":{\"weightType\":\"samples\",\"weight\":null,\"stack\":[],\"time\":[],\"length\":0}");
    free(t);
    profkit_profile_free(p);
}

static void ipc_payloads_get_times(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    pk_thread_add(p, "main", "", -1, -1);
    add_marker(p, "IPCOut", "IPC", 2000000, 3500000, "{ \"type\":\"IPC\",\"otherPid\":\"7\"}");
    add_marker(p, "IPCIn", "IPC", 4000000, 4000000, "{\"type\":\"IPC\",\"startTime\":9}");
    add_marker(p, "Other", "IPC", 4000000, 4000000, "{\"x\":{\"type\":\"IPC\"}}");
    char *t = write_ok(p, NULL);
    assert_has(t, "\"data\":[{\"startTime\":0,\"endTime\":1.5, \"type\":\"IPC\",\"otherPid\":\"7\"},"
                  "{\"type\":\"IPC\",\"startTime\":9},{\"x\":{\"type\":\"IPC\"}}]");
    free(t);
    profkit_profile_free(p);
}

static void payload_nesting_is_bounded(void **state)
{
    (void)state;
    char ok[512], deep[600];
    size_t n = 0;
    for (int i = 0; i < 64; i++)
        ok[n++] = '{', ok[n++] = '"', ok[n++] = 'a', ok[n++] = '"', ok[n++] = ':';
    n -= 5; /* 63 keys: 64 levels of objects */
    ok[n++] = '{';
    for (int i = 0; i < 64; i++)
        ok[n++] = '}';
    ok[n] = 0;
    assert_true(n < sizeof(ok));
    snprintf(deep, sizeof(deep), "{\"b\":%s}", ok); /* 65 levels */
    profkit_profile *p = profkit_profile_new();
    pk_thread_add(p, "main", "", -1, -1);
    add_marker(p, "m", "", 0, 0, ok);
    add_marker(p, "m", "", 0, 0, deep);
    char *t = write_ok(p, NULL);
    char want[700];
    snprintf(want, sizeof(want), "\"data\":[%s,null]", ok);
    assert_has(t, want);
    free(t);
    profkit_profile_free(p);
}

static void stacks_out_of_order_are_reordered(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    uint32_t v = pk_value_type_add(p, "samples", "count");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    p->default_value = v;
    uint32_t a = frame(p, "a", 0), b = frame(p, "b", 0);
    uint32_t sa = pk_stack_intern(p, 0, a);
    uint32_t sab = pk_stack_intern(p, sa, b);
    int64_t two = 2;
    pk_sample_add(p, sab, th, &two);
    /* Swap the two stacks so that a child comes before its parent. */
    assert_int_equal(sa, 1);
    assert_int_equal(sab, 2);
    p->stacks[1].parent = 2;
    p->stacks[1].frame = b;
    p->stacks[2].parent = 0;
    p->stacks[2].frame = a;
    p->sample_stack[0] = 1;
    char *t = write_ok(p, NULL);
    assert_has(t, "\"stackTable\":{\"length\":2,\"frame\":[0,1],\"prefixOffset\":[0,1]}");
    assert_has(t, "\"weight\":[2],\"stack\":[1]");
    free(t);
    /* A cycle is refused, not followed forever. */
    p->stacks[2].parent = 1;
    int rc;
    assert_null(write_ff(p, NULL, NULL, &rc));
    assert_int_equal(rc, PROFKIT_EINVAL);
    profkit_profile_free(p);
}

static void thread_selection_and_no_threads(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    char *t = write_ok(p, NULL);
    assert_has(t, "\"threads\":[{\"processType\":\"default\"");
    assert_has(t, "\"name\":\"main\",\"isMainThread\":true");
    free(t);
    uint32_t v = pk_value_type_add(p, "samples", "count");
    p->default_value = v;
    pk_thread_add(p, "one", "", 5, 1);
    uint32_t t2 = pk_thread_add(p, "two", "", 5, 2);
    int64_t one = 1;
    pk_sample_add(p, pk_stack_intern(p, 0, frame(p, "f", 0)), t2, &one);
    t = write_ok(p, NULL);
    assert_has(t, "\"name\":\"one\",\"isMainThread\":true");
    assert_has(t, "\"name\":\"two\",\"isMainThread\":false");
    free(t);
    int rc;
    t = write_ff(p, NULL, "two", &rc);
    assert_int_equal(rc, 0);
    assert_lacks(t, "\"name\":\"one\"");
    assert_has(t, "\"name\":\"two\",\"isMainThread\":true");
    free(t);
    profkit_profile_free(p);
}

/* Frame categories go out as they came (colours, subcategories), with
 * "Other" (grey) after them when none is grey; a frame without one has no
 * flag 4; JS flags become the function's flags 1 and 2. */
static void frame_categories(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    pk_value_type_add(p, "samples", "count");
    uint32_t subs[2] = { profkit_string_intern_cstr(p, "Other"), profkit_string_intern_cstr(p, "Baseline") };
    pk_category_add(p, profkit_string_intern_cstr(p, "Idle"), profkit_string_intern_cstr(p, "transparent"), subs, 1);
    pk_category_add(p, profkit_string_intern_cstr(p, "JavaScript"), profkit_string_intern_cstr(p, "yellow"), subs, 2);
    profkit_frame f;
    memset(&f, 0, sizeof(f));
    f.mapping = PROFKIT_NONE;
    f.function = pk_function_add_named(p, "main", NULL, NULL, 0);
    uint32_t a = pk_frame_add(p, &f);
    f.function = pk_function_add_named(p, "run", NULL, NULL, 0);
    f.category = 2;
    f.subcategory = 1;
    f.flags = PROFKIT_FRAME_JS | PROFKIT_FRAME_RELEVANT_FOR_JS;
    uint32_t b = pk_frame_add(p, &f);
    uint32_t s = pk_stack_intern(p, pk_stack_intern(p, 0, a), b);
    int64_t v = 1;
    assert_int_equal(pk_sample_add(p, s, t, &v), 0);
    char *out = write_ok(p, NULL);
    assert_has(out, "\"categories\":[{\"name\":\"Idle\",\"color\":\"transparent\",\"subcategories\":[\"Other\"]},"
                    "{\"name\":\"JavaScript\",\"color\":\"yellow\",\"subcategories\":[\"Other\",\"Baseline\"]},"
                    "{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]}]");
    assert_has(out, "\"category\":[0,1],\"subcategory\":[0,1]");
    assert_has(out, "\"frameTable\":{\"length\":2,\"flags\":[0,4]");
    assert_has(out, "\"funcTable\":{\"length\":2,\"name\":[");
    assert_has(out, "\"flags\":[0,3]");
    free(out);
    profkit_profile_free(p);
}

/* A marker's cause: its payload's cause (or raw stack object) is written as
 * {time, stack} with the written stack; its other fields as they came. */
static void marker_cause(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    pk_thread_add(p, "main", "", -1, -1);
    pk_value_type_add(p, "samples", "count");
    profkit_frame f;
    memset(&f, 0, sizeof(f));
    f.mapping = PROFKIT_NONE;
    f.function = pk_function_add_named(p, "main", NULL, NULL, 0);
    uint32_t s = pk_stack_intern(p, 0, pk_frame_add(p, &f));
    int64_t v = 1;
    assert_int_equal(pk_sample_add_timed(p, s, 0, 1000000, &v), 0);
    add_marker(p, "a", "Other", 2000000, 2000000,
               "{\"type\":\"Text\",\"stack\":{\"samples\":{\"schema\":{\"stack\":0},\"data\":[[9]]}},\"name\":\"x\"}");
    add_marker(p, "b", "Other", 3000000, 3000000, "{\"cause\":{\"tid\":5,\"time\":1,\"stack\":9}}");
    p->markers[0].cause = pk_marker_cause_add(p, 1500000, s);
    p->markers[1].cause = pk_marker_cause_add(p, PROFKIT_NO_TIME, s);
    char *t = write_ok(p, NULL);
    assert_has(t, "{\"type\":\"Text\",\"name\":\"x\",\"cause\":{\"time\":0.5,\"stack\":0}}");
    assert_has(t, "{\"cause\":{\"tid\":5,\"stack\":0}}");
    free(t);
    profkit_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(untimed_rows_become_weighted_samples),
        cmocka_unit_test(all_ones_weight_is_left_out),
        cmocka_unit_test(timed_rows_sorted_in_exact_ms),
        cmocka_unit_test(negative_times_and_seconds),
        cmocka_unit_test(bytes_and_value_selection),
        cmocka_unit_test(nameless_functions_split_by_address),
        cmocka_unit_test(files_become_sources),
        cmocka_unit_test(markers_payloads_and_phases),
        cmocka_unit_test(frame_categories),
        cmocka_unit_test(marker_cause),
        cmocka_unit_test(ipc_payloads_get_times),
        cmocka_unit_test(payload_nesting_is_bounded),
        cmocka_unit_test(stacks_out_of_order_are_reordered),
        cmocka_unit_test(thread_selection_and_no_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
