/* test_gecko.c: the raw Gecko and processed Firefox readers (docs/formats/gecko.md)
 * and the streaming JSON layer under them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>
#include <zlib.h>

#include "formats/gecko/gecko_common.h"
#include "formats/gecko/gecko_reader.h"
#include "io/json.h"
#include "model/model.h"
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
    profkit_error_string(last_warn, sizeof last_warn, w);
}

static int read_mem(profkit_profile **p, const void *d, size_t n, const char *format,
                    profkit_error *err)
{
    profkit_read_options o = { 0 };
    o.format = format;
    o.on_warning = on_warning;
    n_warn = 0;
    return profkit_profile_read_memory(p, d, n, "test.json", &o, err);
}

static profkit_profile *read_data(const char *rel, const char *format)
{
    size_t n;
    char *d = slurp(rel, &n);
    profkit_profile *p = NULL;
    profkit_error err;
    int rc = read_mem(&p, d, n, format, &err);
    if (rc)
        fail_msg("%s: %s", rel, err.message);
    free(d);
    return p;
}

/* Label path of a stack, root first, joined by ';'. */
static void stack_path(const profkit_profile *p, uint32_t s, char *buf, size_t n)
{
    uint32_t ids[64];
    size_t k = 0;
    while (s != 0 && k < 64) {
        ids[k++] = s;
        s = p->stacks[s].parent;
    }
    buf[0] = 0;
    for (size_t i = k; i-- > 0;) {
        char lab[256];
        pk_frame_label(p, p->stacks[ids[i]].frame, 0, lab, sizeof lab);
        strncat(buf, lab, n - strlen(buf) - 1);
        if (i)
            strncat(buf, ";", n - strlen(buf) - 1);
    }
}

static const profkit_function *leaf_function(const profkit_profile *p, uint32_t stack)
{
    return &p->functions[p->frames[p->stacks[stack].frame].function];
}

/* ---------------------------------------------------------------- locations */

static void check_loc(const char *s, const char *name, const char *file, const char *module,
                      uint32_t line, uint32_t col, int is_addr)
{
    pk_gecko_location l;
    pk_gecko_parse_location(s, strlen(s), &l);
    assert_int_equal(l.name_len, strlen(name));
    assert_memory_equal(l.name, name, l.name_len);
    if (file) {
        assert_non_null(l.file);
        assert_int_equal(l.file_len, strlen(file));
        assert_memory_equal(l.file, file, l.file_len);
    } else {
        assert_null(l.file);
    }
    if (module) {
        assert_non_null(l.module);
        assert_int_equal(l.module_len, strlen(module));
        assert_memory_equal(l.module, module, l.module_len);
    } else {
        assert_null(l.module);
    }
    assert_int_equal(l.line, line);
    assert_int_equal(l.column, col);
    assert_int_equal(l.is_address, is_addr);
}

static void test_locations(void **state)
{
    (void)state;
    check_loc("0x7f00abc", "0x7f00abc", NULL, NULL, 0, 0, 1);
    check_loc("js::RunScript (in libxul.so)", "js::RunScript", NULL, "libxul.so", 0, 0, 0);
    check_loc("onClick (https://example.com/app.js:12:5)", "onClick", "https://example.com/app.js", NULL, 12, 5, 0);
    check_loc("init (resource://gre/x.sys.mjs:7)", "init", "resource://gre/x.sys.mjs", NULL, 7, 0, 0);
    check_loc("handler (https://a.example/b.js:3:4)[17]", "handler", "https://a.example/b.js", NULL, 3, 4, 0);
    check_loc("f (g) (https://x.example/y.js:40:2)", "f (g)", "https://x.example/y.js", NULL, 40, 2, 0);
    check_loc("Startup::XRE_Main", "Startup::XRE_Main", NULL, NULL, 0, 0, 0);
    check_loc("weird (not a location)", "weird (not a location)", NULL, NULL, 0, 0, 0);
    check_loc("x (url:)", "x (url:)", NULL, NULL, 0, 0, 0);
    check_loc("(root)", "(root)", NULL, NULL, 0, 0, 0);
    check_loc("0xZZ", "0xZZ", NULL, NULL, 0, 0, 0);
    check_loc("", "", NULL, NULL, 0, 0, 0);
    check_loc(" (in )", " (in )", NULL, NULL, 0, 0, 0);
}

static void test_location_frames(void **state)
{
    (void)state;
    profkit_profile *p = read_data("tests/data/gecko/ok_locations.json", "gecko");
    /* sample i has stack i, a child of the root "(root)" */
    struct {
        const char *label, *file, *module;
        uint32_t fline, line, col;
        uint64_t addr;
    } want[] = {
        { "0x7f00abc", "", "", 0, 0, 0, 0x7f00abc },
        { "js::RunScript", "", "libxul.so", 0, 0, 0, 0 },
        { "onClick", "https://example.com/app.js", "", 12, 14, 9, 0 }, /* line/column columns win */
        { "init", "resource://gre/modules/x.sys.mjs", "", 7, 7, 0, 0 },
        { "handler", "https://a.example/b.js", "", 3, 3, 4, 0 },
        { "Startup::XRE_Main", "", "", 0, 0, 0, 0 },
        { "weird (not a location)", "", "", 0, 0, 0, 0 },
        { "f (g)", "https://x.example/y.js", "", 40, 40, 2, 0 },
    };
    assert_int_equal(p->n_samples, 8);
    for (size_t i = 0; i < 8; i++) {
        uint32_t s = p->sample_stack[i];
        const profkit_frame *fr = &p->frames[p->stacks[s].frame];
        const profkit_function *f = &p->functions[fr->function];
        char lab[256];
        pk_frame_label(p, p->stacks[s].frame, 0, lab, sizeof lab);
        assert_string_equal(lab, want[i].label);
        assert_string_equal(pk_str(p, f->file), want[i].file);
        assert_string_equal(pk_str(p, f->module), want[i].module);
        assert_int_equal(f->start_line, want[i].fline);
        assert_int_equal(fr->line, want[i].line);
        assert_int_equal(fr->column, want[i].col);
        assert_int_equal(fr->address, want[i].addr);
        assert_int_equal(p->sample_time[i], (int64_t)(i + 1) * 1000000);
    }
    profkit_profile_free(p);
}

/* ---------------------------------------------------------------- raw rules */

static void test_nested_processes(void **state)
{
    (void)state;
    profkit_profile *p = read_data("tests/data/gecko/ok_nested_processes.json", "gecko");
    assert_int_equal(p->n_threads, 3);
    assert_string_equal(pk_str(p, p->threads[0].name), "Root");
    assert_string_equal(pk_str(p, p->threads[2].name), "Grandchild");
    assert_int_equal(p->threads[0].pid, 4242);
    assert_int_equal(p->threads[0].tid, 7);
    /* times: ms since the process start, shifted by each level's
     * startTime - its parent's (1500 - 1000, then 1750.5 - 1500) */
    int64_t want[][2] = { { 0, 10000000 }, { 0, 11000000 }, { 1, 520000000 },
                          { 2, 780500000 }, { 2, 781500000 }, { 2, 782500000 } };
    assert_int_equal(p->n_samples, 6);
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(p->sample_thread[i], want[i][0]);
        assert_int_equal(p->sample_time[i], want[i][1]);
    }
    /* libs -> mappings */
    assert_int_equal(p->n_mappings, 1);
    assert_int_equal(p->mappings[0].start, 4096);
    assert_int_equal(p->mappings[0].end, 8192);
    assert_string_equal(pk_str(p, p->mappings[0].path), "/usr/lib/libxul.so");
    assert_string_equal(pk_str(p, p->mappings[0].build_id), "ABCDEF0123456789");
    assert_string_equal(pk_meta_get(p, "format_version"), "36");
    profkit_profile_free(p);
}

/* The Firefox Profiler's loader numbers a profile's own threads first, then
 * each sub-process's, wherever `processes` is in the file; a process inside
 * a sub-process (the loader does not read it) comes last. Samples, markers
 * and counters follow their threads. order_processes_first_nested.json is
 * ok_processes_first.json with such a process and without markers and
 * counters. */
static void check_processes_first(const char *file, int nested)
{
    profkit_profile *p = read_data(file, "gecko");
    static const struct {
        int64_t tid;
        const char *name, *process, *leaf, *marker;
        size_t samples;
    } want[] = {
        { 100, "GeckoMain", "Parent Process", "parent_work", "ParentMarker", 7 },
        { 101, "DOM Worker", "Parent Process", "parent_worker_work", "ParentWorkerMarker", 8 },
        { 200, "GeckoMain", "Content Process", "tab_work", "TabMarker", 4 },
        { 201, "DOM Worker", "Content Process", "tab_worker_work", "TabWorkerMarker", 3 },
        { 400, "GeckoMain", "GPU Process", "gpu_work", "GpuMarker", 5 },
        { 401, "Renderer", "GPU Process", "render_work", NULL, 6 },
        { 300, "GeckoMain", "Remote Data Decoder", "grandchild_work", NULL, 2 },
    };
    size_t nt = sizeof want / sizeof want[0] - !nested;
    assert_int_equal(p->n_threads, nt);
    size_t rows[8] = { 0 };
    for (size_t t = 0; t < nt; t++) {
        assert_int_equal(p->threads[t].tid, want[t].tid);
        assert_int_equal(p->threads[t].pid, want[t].tid / 100 * 100);
        assert_string_equal(pk_str(p, p->threads[t].name), want[t].name);
        assert_string_equal(pk_str(p, p->threads[t].process_name), want[t].process);
    }
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t t = p->sample_thread[r];
        assert_true(t < nt);
        rows[t]++;
        assert_string_equal(pk_str(p, leaf_function(p, p->sample_stack[r])->name), want[t].leaf);
    }
    for (size_t t = 0; t < nt; t++)
        assert_int_equal(rows[t], want[t].samples);
    size_t seen = 0;
    for (size_t i = 0; i < p->n_markers; i++) {
        const char *name = pk_str(p, p->markers[i].name);
        uint32_t t = p->markers[i].thread;
        assert_true(t < nt);
        if (strcmp(name, "ParentInstant") == 0) {
            assert_int_equal(t, 0);
            continue;
        }
        assert_non_null(want[t].marker);
        assert_string_equal(name, want[t].marker);
        seen++;
    }
    assert_int_equal(seen, nested ? 0 : 5);
    /* each counter on its process's GeckoMain, the root's first */
    assert_int_equal(p->n_counters, nested ? 0 : 2);
    if (!nested)
        assert_string_equal(pk_str(p, p->counters[0].name), "malloc");
    for (size_t c = 0; c < p->n_counters; c++) {
        const char *name = pk_str(p, p->counters[c].name);
        uint32_t t = p->counters[c].thread;
        assert_true(t < nt);
        assert_int_equal(p->threads[t].tid, strcmp(name, "malloc") == 0 ? 100 : 200);
    }
    /* threads are found by their identity after the renumbering */
    assert_int_equal(pk_thread_get(p, "DOM Worker", "Content Process", 200, 201), 3);
    assert_int_equal(pk_thread_get(p, "GeckoMain", "Parent Process", 100, 100), 0);
    assert_int_equal(p->n_threads, nt);
    profkit_profile_free(p);
}

static void test_processes_first(void **state)
{
    (void)state;
    check_processes_first("tests/data/gecko/ok_processes_first.json", 0);
    check_processes_first("tests/data/gecko/order_processes_first_nested.json", 1);
    /* cut inside the root's second thread (after a streamed row of it): the
     * complete threads are kept in the same order, without it */
    size_t n;
    char *d = slurp("tests/data/gecko/ok_processes_first.json", &n);
    const char *w = strstr(d, "\"tid\": 101");
    assert_non_null(w);
    const char *cut = strstr(w, "\"data\": [");
    assert_non_null(cut);
    cut = strstr(cut, "0\n");
    assert_non_null(cut);
    profkit_profile *p = NULL;
    profkit_error err;
    assert_int_equal(read_mem(&p, d, (size_t)(cut - d), "gecko", &err), 0);
    assert_int_equal(n_warn, 1);
    static const int64_t tids[] = { 100, 200, 201, 400, 401 };
    assert_int_equal(p->n_threads, 5);
    for (size_t t = 0; t < 5; t++)
        assert_int_equal(p->threads[t].tid, tids[t]);
    for (size_t r = 0; r < p->n_samples; r++)
        assert_true(p->sample_thread[r] < 5 && p->threads[p->sample_thread[r]].tid != 101);
    profkit_profile_free(p);
    free(d);
}

/* pk_profile_renumber_threads (the model's side of the order above): rows,
 * markers, counters and the whole totals follow their threads, and the
 * indexes by (stack, thread) and by thread identity are built again. */
static void test_renumber_threads(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    assert_int_not_equal(pk_value_type_add(p, "samples", "count"), PROFKIT_NONE);
    uint32_t a = pk_thread_add(p, "A", "P", 1, 10), b = pk_thread_add(p, "B", "P", 1, 11),
             c = pk_thread_add(p, "C", "Q", 2, 20);
    uint32_t f = pk_frame_add(p, &(profkit_frame){ .function = pk_function_add_named(p, "f", "", "", 0),
                                                  .mapping = PROFKIT_NONE });
    uint32_t s = pk_stack_intern(p, 0, f);
    int64_t one = 1, two = 2, five = 5;
    assert_int_equal(pk_sample_add(p, s, a, &one), 0);
    assert_int_equal(pk_sample_add(p, s, b, &two), 0);
    assert_int_equal(pk_sample_add(p, s, c, &five), 0);
    profkit_marker m = { 0 };
    m.name = profkit_string_intern_cstr(p, "mark");
    m.thread = c;
    assert_int_equal(pk_marker_add(p, &m), 0);
    profkit_counter pc = { 0 };
    pc.thread = b;
    pc.pid = 1;
    assert_int_not_equal(profkit_counter_add(p, &pc), PROFKIT_NONE);
    assert_int_equal(pk_note_whole_totals(p), 0);
    /* C first, then A, then B */
    const uint32_t to[] = { 1, 2, 0 };
    assert_int_equal(pk_profile_renumber_threads(p, to), 0);
    assert_string_equal(pk_str(p, p->threads[0].name), "C");
    assert_string_equal(pk_str(p, p->threads[1].name), "A");
    assert_string_equal(pk_str(p, p->threads[2].name), "B");
    for (size_t r = 0; r < p->n_samples; r++)
        assert_int_equal(p->sample_values[r], p->sample_thread[r] == 0 ? 5 : p->sample_thread[r] == 1 ? 1 : 2);
    assert_int_equal(p->markers[0].thread, 0);
    assert_int_equal(p->counters[0].thread, 2);
    assert_int_equal(pk_percent_total(p, 0, 0, -1), 5);
    assert_int_equal(pk_percent_total(p, 0, 2, -1), 2);
    assert_int_equal(pk_percent_total(p, 0, PROFKIT_NONE, -1), 8);
    /* an untimed row of (s, A) is found again at A's new number */
    assert_int_equal(pk_sample_add(p, s, 1, &one), 0);
    assert_int_equal(p->n_samples, 3);
    for (size_t r = 0; r < p->n_samples; r++)
        if (p->sample_thread[r] == 1)
            assert_int_equal(p->sample_values[r], 2);
    assert_int_equal(pk_thread_get(p, "B", "P", 1, 11), 2);
    assert_int_equal(pk_thread_get(p, "C", "Q", 2, 20), 0);
    assert_int_equal(p->n_threads, 3);
    profkit_profile_free(p);
}

static void test_short_rows(void **state)
{
    (void)state;
    profkit_profile *p = read_data("tests/data/gecko/ok_short_rows.json", "gecko");
    assert_int_equal(p->n_samples, 3);
    /* [2] has no time (reads 0), [1, 5.0], [2, 6.0, ...] */
    assert_int_equal(p->sample_time[0], 0);
    assert_int_equal(p->sample_time[1], 5000000);
    assert_int_equal(p->sample_time[2], 6000000);
    char path[512];
    stack_path(p, p->sample_stack[0], path, sizeof path);
    assert_string_equal(path, "(root);main;work");
    /* frame 1's row reaches the line column; frame 2's does not */
    const profkit_frame *main_frame = &p->frames[p->stacks[p->stacks[p->sample_stack[0]].parent].frame];
    assert_int_equal(main_frame->line, 12);
    assert_int_equal(p->frames[p->stacks[p->sample_stack[0]].frame].line, 0);
    /* the marker row [0] has no startTime: none is invented */
    assert_int_equal(p->n_markers, 1);
    assert_true(p->markers[0].start == PROFKIT_NO_TIME);
    assert_int_equal(p->markers[0].phase, PROFKIT_MARKER_INSTANT);
    profkit_profile_free(p);
}

static void test_weights(void **state)
{
    (void)state;
    profkit_profile *p = read_data("tests/data/gecko/ok_weights.json", "gecko");
    uint32_t vs = profkit_profile_find_value(p, "samples");
    uint32_t vw = profkit_profile_find_value(p, "wall");
    uint32_t vb = profkit_profile_find_value(p, "bytes");
    assert_int_not_equal(vs, PROFKIT_NONE);
    assert_int_not_equal(vw, PROFKIT_NONE);
    assert_int_not_equal(vb, PROFKIT_NONE);
    assert_int_equal(p->default_value, vs);
    assert_string_equal(pk_str(p, p->value_types[vw].unit), "milliseconds");
    int64_t tot[3][3] = { { 0 } };
    size_t nv = p->n_value_types;
    for (size_t i = 0; i < p->n_samples; i++) {
        uint32_t t = p->sample_thread[i];
        tot[t][0] += p->sample_values[i * nv + vs];
        tot[t][1] += p->sample_values[i * nv + vw];
        tot[t][2] += p->sample_values[i * nv + vb];
    }
    assert_int_equal(tot[0][0], 5); /* weights 3 + 2 */
    assert_int_equal(tot[0][1] + tot[0][2], 0);
    assert_int_equal(tot[1][1], 9); /* 7.4 -> 7, 1.6 -> 2 */
    assert_int_equal(tot[1][0], 0);
    assert_int_equal(tot[2][2], 4096 + 1024 + 1); /* a null weight counts 1 */
    profkit_profile_free(p);
}

static void test_markers(void **state)
{
    (void)state;
    profkit_profile *p = read_data("tests/data/gecko/ok_markers.json", "gecko");
    assert_int_equal(p->n_markers, 3);
    const profkit_marker *m = p->markers;
    assert_string_equal(pk_str(p, m[0].name), "DOMEvent");
    assert_int_equal(m[0].start, 1500000);
    assert_true(m[0].end == PROFKIT_NO_TIME); /* an instant has no end */
    assert_int_equal(m[0].phase, PROFKIT_MARKER_INSTANT);
    assert_string_equal(pk_str(p, m[0].category), "JavaScript");
    assert_string_equal(pk_str(p, m[0].payload), "{\"type\":\"Text\",\"name\":\"hello \\\"world\\\"\"}");
    assert_string_equal(pk_str(p, m[1].name), "Paint");
    assert_int_equal(m[1].start, 2000000);
    assert_int_equal(m[1].end, 4250000);
    assert_int_equal(m[1].phase, PROFKIT_MARKER_INTERVAL);
    assert_string_equal(pk_str(p, m[1].category), "Idle");
    assert_int_equal(m[1].payload, 0);
    /* an interval end has no start time of its own */
    assert_true(m[2].start == PROFKIT_NO_TIME);
    assert_int_equal(m[2].end, 9000000);
    assert_int_equal(m[2].phase, PROFKIT_MARKER_END);
    assert_string_equal(pk_meta_get(p, "pausedRange"),
                        "{\"startTime\":5.0,\"endTime\":6.0,\"reason\":\"profiler-paused\"}");
    profkit_profile_free(p);
}

/* A marker's stack (raw: data.stack, a sample table of one row; processed:
 * data.cause) becomes a marker cause: a model stack and a time. */
static void test_marker_causes(void **state)
{
    (void)state;
    static const char raw[] =
        "{\"meta\":{\"version\":20,\"startTime\":0,\"interval\":1},\"threads\":[{\"name\":\"T\","
        "\"stringTable\":[\"main\",\"run\",\"M\"],"
        "\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[[null,0],[0,1]]},"
        "\"frameTable\":{\"schema\":{\"location\":0},\"data\":[[0],[1]]},"
        "\"samples\":{\"schema\":{\"stack\":0,\"time\":1},\"data\":[[1,1.0]]},"
        "\"markers\":{\"schema\":{\"name\":0,\"startTime\":1,\"endTime\":2,\"phase\":3,\"data\":4},"
        "\"data\":[[2,2.0,null,0,{\"type\":\"Text\",\"name\":\"x\",\"stack\":{\"name\":\"SyncProfile\","
        "\"samples\":{\"schema\":{\"time\":1,\"stack\":0},\"data\":[[1,1.5]]}}}],"
        "[2,3.0,null,0,{\"type\":\"Text\",\"stack\":{\"samples\":{\"schema\":{\"stack\":0},\"data\":[[7]]}}}],"
        "[2,4.0,null,0,{\"type\":\"Text\",\"cause\":{\"time\":3.5,\"stack\":0,\"tid\":5}}]]}}]}";
    profkit_profile *p = NULL;
    profkit_error err;
    assert_int_equal(read_mem(&p, raw, sizeof raw - 1, "gecko", &err), 0);
    assert_int_equal(p->n_markers, 3);
    assert_int_equal(p->n_marker_causes, 2);
    const profkit_marker_cause *c = &p->marker_causes[p->markers[0].cause - 1];
    char path[512];
    stack_path(p, c->stack, path, sizeof path);
    assert_string_equal(path, "main;run");
    assert_int_equal(c->time, 1500000);
    assert_int_equal(p->markers[1].cause, 0); /* stack 7 is past the table */
    c = &p->marker_causes[p->markers[2].cause - 1];
    stack_path(p, c->stack, path, sizeof path);
    assert_string_equal(path, "main");
    assert_int_equal(c->time, 3500000);
    profkit_profile_free(p);
}

/* Frame rows that differ only in a category past meta.categories (none)
 * are one model frame, with no category; a known category stays apart. */
static void test_unknown_category_one_frame(void **state)
{
    (void)state;
    static const char raw[] =
        "{\"meta\":{\"version\":20,\"startTime\":0,\"interval\":1,\"categories\":["
        "{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]},"
        "{\"name\":\"JavaScript\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]}]},"
        "\"threads\":[{\"name\":\"T\",\"stringTable\":[\"main\"],"
        "\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[[null,0],[null,1],[null,2],[null,3]]},"
        "\"frameTable\":{\"schema\":{\"location\":0,\"category\":1},\"data\":[[0,5],[0,7],[0,null],[0,1]]},"
        "\"samples\":{\"schema\":{\"stack\":0,\"time\":1},\"data\":[[0,1.0],[1,2.0],[2,3.0],[3,4.0]]},"
        "\"markers\":{\"schema\":{\"name\":0,\"time\":1,\"data\":2},\"data\":[]}}]}";
    profkit_profile *p = NULL;
    profkit_error err;
    assert_int_equal(read_mem(&p, raw, sizeof raw - 1, "gecko", &err), 0);
    assert_int_equal(p->n_samples, 4);
    uint32_t f0 = p->stacks[p->sample_stack[0]].frame;
    assert_int_equal(p->stacks[p->sample_stack[1]].frame, f0);
    assert_int_equal(p->stacks[p->sample_stack[2]].frame, f0);
    assert_int_equal(p->frames[f0].category, 0);
    uint32_t f3 = p->stacks[p->sample_stack[3]].frame;
    assert_true(f3 != f0);
    assert_int_equal(p->frames[f3].category, 2);
    profkit_profile_free(p);
}

/* An old processed profile's cause times as the loader's upgrade leaves
 * them: a `stack` (before version 21) becomes a cause moved by a
 * non-default process's processStartupTime; before version 34 a cause of
 * a payload other than tracing/Styles is moved by it as well; from 21 on
 * a `stack` is no cause. */
static void test_old_processed_causes(void **state)
{
    (void)state;
    static const char fmt[] =
        "{\"meta\":{\"version\":4,\"preprocessedProfileVersion\":%d,\"startTime\":0,\"interval\":1},"
        "\"threads\":[{\"name\":\"GeckoMain\",\"processType\":\"%s\",\"processStartupTime\":1000,"
        "\"stringArray\":[\"main\",\"M\"],"
        "\"frameTable\":{\"length\":1,\"func\":[0],\"line\":[null],\"category\":[null],\"implementation\":[null],"
        "\"address\":[-1]},"
        "\"funcTable\":{\"length\":1,\"name\":[0],\"resource\":[-1],\"address\":[-1],\"isJS\":[false],"
        "\"fileName\":[null],\"lineNumber\":[null]},"
        "\"resourceTable\":{\"length\":0,\"type\":[],\"name\":[],\"lib\":[],\"icon\":[],\"addonId\":[],\"host\":[]},"
        "\"stackTable\":{\"length\":1,\"prefix\":[null],\"frame\":[0]},"
        "\"samples\":{\"length\":1,\"stack\":[0],\"time\":[1000]},"
        "\"markers\":{\"length\":3,\"name\":[1,1,1],\"time\":[1002,1014,1015],\"data\":["
        "{\"type\":\"tracing\",\"category\":\"Paint\",\"interval\":\"start\",\"stack\":{\"name\":\"SyncProfile\","
        "\"samples\":{\"schema\":{\"stack\":0,\"time\":1},\"data\":[[0,1]]}}},"
        "{\"type\":\"DiskIO\",\"startTime\":13.5,\"endTime\":14,\"cause\":{\"time\":13.5,\"stack\":0}},"
        "{\"type\":\"Styles\",\"startTime\":14,\"endTime\":15,\"cause\":{\"time\":14.5,\"stack\":0}}]}}]}";
    static const struct {
        int version;
        const char *type;
        int64_t t0, t1, t2; /* -1: no cause */
    } cases[] = {
        { 7, "tab", 1001000000, 1013500000, 14500000 },
        { 7, "default", 1000000, 1013500000, 14500000 },
        { 21, "tab", -1, 1013500000, 14500000 },
        { 34, "tab", -1, 13500000, 14500000 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char buf[2048];
        int len = snprintf(buf, sizeof buf, fmt, cases[k].version, cases[k].type);
        assert_true(len > 0 && (size_t)len < sizeof buf);
        profkit_profile *p = NULL;
        profkit_error err;
        assert_int_equal(read_mem(&p, buf, (size_t)len, "firefox", &err), 0);
        assert_int_equal(p->n_markers, 3);
        const int64_t want[3] = { cases[k].t0, cases[k].t1, cases[k].t2 };
        for (size_t i = 0; i < 3; i++) {
            if (want[i] < 0) {
                assert_int_equal(p->markers[i].cause, 0);
                continue;
            }
            assert_true(p->markers[i].cause != 0);
            assert_int_equal(p->marker_causes[p->markers[i].cause - 1].time, want[i]);
        }
        profkit_profile_free(p);
    }
}

/* skip_markers: the markers are parsed but not kept or checked (the reports
 * never show them); everything else reads the same, and a markers value
 * that is not a table is still an error. */
static void test_skip_markers(void **state)
{
    (void)state;
    size_t n;
    char *d = slurp("tests/data/gecko/ok_markers.json", &n);
    profkit_read_options o = { 0 };
    o.format = "gecko";
    o.skip_markers = 1;
    profkit_profile *all = read_data("tests/data/gecko/ok_markers.json", "gecko"), *p = NULL;
    profkit_error err;
    assert_int_equal(profkit_profile_read_memory(&p, d, n, "test.json", &o, &err), 0);
    assert_int_equal(p->n_markers, 0);
    assert_int_equal(all->n_markers, 3);
    assert_int_equal(p->n_samples, all->n_samples);
    for (size_t i = 0; i < p->n_samples; i++) {
        char a[512], b[512];
        stack_path(p, p->sample_stack[i], a, sizeof a);
        stack_path(all, all->sample_stack[i], b, sizeof b);
        assert_string_equal(a, b);
        assert_int_equal(p->sample_time[i], all->sample_time[i]);
    }
    assert_string_equal(pk_meta_get(p, "pausedRange"), pk_meta_get(all, "pausedRange"));
    profkit_profile_free(p);
    profkit_profile_free(all);
    /* A syntax error inside the markers: the same error at the same place
     * whether they are read or skipped (the parser checks what it skips). */
    {
        char *comma = strstr(d, "\"type\": \"Text\",");
        assert_non_null(comma);
        size_t at = (size_t)(comma - d) + strlen("\"type\": \"Text\"");
        char saved = d[at + 1];
        d[at + 1] = ',';
        profkit_error e1, e2;
        assert_int_equal(read_mem(&p, d, n, "gecko", &e1), PROFKIT_ECORRUPT);
        assert_int_equal(profkit_profile_read_memory(&p, d, n, "test.json", &o, &e2), PROFKIT_ECORRUPT);
        assert_string_equal(e1.message, e2.message);
        assert_int_equal(e1.line, e2.line);
        assert_int_equal(e1.column, e2.column);
        assert_true(e1.line > 0);
        d[at + 1] = saved;
    }
    /* A marker row with a string for its time: an error when markers are
     * read, nothing when they are skipped. */
    char *bad = strstr(d, "2.0,");
    assert_non_null(bad);
    memcpy(bad, "\"x\"", 3);
    assert_int_equal(read_mem(&p, d, n, "gecko", &err), PROFKIT_ECORRUPT);
    assert_non_null(strstr(err.message, "markers"));
    p = NULL;
    assert_int_equal(profkit_profile_read_memory(&p, d, n, "test.json", &o, &err), 0);
    assert_int_equal(p->n_markers, 0);
    profkit_profile_free(p);
    /* Markers that are not a table: an error either way. */
    char *m = strstr(d, "\"markers\": {");
    assert_non_null(m);
    m[strlen("\"markers\": ")] = '7';
    char *close = strstr(m, "\"stackTable\"");
    assert_non_null(close);
    /* blank the rest of the markers object up to its closing brace and comma */
    for (char *c = m + strlen("\"markers\": 7"); c < close; c++)
        *c = ' ';
    close[-1] = ' ';
    char *comma = close - 1;
    while (comma > m && *comma != '7')
        comma--;
    comma[1] = ',';
    int rc = profkit_profile_read_memory(&p, d, n, "test.json", &o, &err);
    assert_int_equal(rc, PROFKIT_ECORRUPT);
    assert_non_null(strstr(err.message, "markers: expected"));
    free(d);
}

static void test_embedded_v3(void **state)
{
    (void)state;
    profkit_profile *p = read_data("tests/data/gecko/ok_v3_embedded.json", "gecko");
    assert_int_equal(p->n_threads, 2);
    /* the Gecko 3 sub-process came as JSON text; its "Content" thread is
     * the content process's main thread, shifted by 10 ms */
    assert_string_equal(pk_str(p, p->threads[1].name), "GeckoMain");
    assert_int_equal(p->n_samples, 2);
    assert_int_equal(p->sample_time[1], 11000000);
    assert_int_equal(p->n_mappings, 1);
    assert_string_equal(pk_str(p, p->mappings[0].path), "/usr/lib/firefox");
    profkit_profile_free(p);
    /* the same with the sub-process's text before the thread: the Firefox
     * Profiler's upgrader makes the text a `processes` entry, whose threads
     * come after the profile's own */
    p = read_data("tests/data/gecko/ok_v3_embedded_first.json", "gecko");
    assert_int_equal(p->n_threads, 2);
    assert_int_equal(p->threads[0].tid, 7);
    assert_int_equal(p->threads[1].tid, -1);
    assert_int_equal(p->n_samples, 2);
    for (size_t r = 0; r < 2; r++)
        assert_int_equal(p->sample_thread[r], p->sample_time[r] == 11000000 ? 1 : 0);
    profkit_profile_free(p);
}

/* ---------------------------------------------------------------- processed */

static void test_processed_shared(void **state)
{
    (void)state;
    const char *files[] = { "tests/data/firefox/ok_shared_v70.json",
                            "tests/data/firefox/ok_shared_after_threads.json" };
    for (size_t k = 0; k < 2; k++) {
        profkit_profile *p = read_data(files[k], "firefox");
        assert_int_equal(p->n_threads, 3);
        assert_string_equal(pk_str(p, p->threads[0].process_name), "app");
        assert_int_equal(p->threads[0].pid, 321);
        assert_int_equal(p->threads[2].tid, 13);
        /* Main: stacks 0,1,2,3,3 and a null stack (kept: the empty stack,
         * at 6 ms); timeDeltas 1 each */
        size_t i0 = 0;
        char path[512];
        /* frame 2 is func 3 (an address name), frame 3 func 2 */
        const char *want[] = { "main", "main;onClick", "main;onClick;0x7f001234", "main;onClick;work",
                               "main;onClick;work" };
        for (size_t i = 0; i < 5; i++) {
            assert_int_equal(p->sample_thread[i0 + i], 0);
            assert_int_equal(p->sample_time[i0 + i], (int64_t)(i + 1) * 1000000);
            stack_path(p, p->sample_stack[i0 + i], path, sizeof path);
            assert_string_equal(path, want[i]);
        }
        const profkit_function *on = leaf_function(p, p->sample_stack[1]);
        assert_string_equal(pk_str(p, on->file), "https://example.com/app.js");
        assert_int_equal(on->start_line, 12);
        assert_string_equal(pk_str(p, leaf_function(p, p->sample_stack[0])->module), "libxul.so");
        const profkit_frame *fr = &p->frames[p->stacks[p->sample_stack[2]].frame];
        assert_int_equal(fr->address, 4660);
        assert_int_equal(p->sample_thread[5], 0);
        assert_int_equal(p->sample_stack[5], 0);
        assert_int_equal(p->sample_time[5], 6000000);
        /* Tracer: tracing-ms weights; times 5 and 10 ms */
        uint32_t vw = profkit_profile_find_value(p, "wall");
        assert_int_not_equal(vw, PROFKIT_NONE);
        assert_int_equal(p->sample_time[6], 5000000);
        assert_int_equal(p->sample_time[7], 10000000);
        assert_int_equal(p->sample_values[6 * p->n_value_types + vw], 3);
        assert_string_equal(pk_meta_get(p, "format_version"), "70");
        assert_int_equal(p->n_markers, 6);
        const profkit_marker *m = p->markers;
        assert_string_equal(pk_str(p, m[0].name), "main");
        assert_int_equal(m[0].start, 1000000);
        assert_true(m[0].end == PROFKIT_NO_TIME); /* endTime null: an instant */
        /* category names come from a meta that precedes the markers; without
         * one, the Firefox Profiler's default for the marker (Other) */
        assert_string_equal(pk_str(p, m[0].category), k == 0 ? "JavaScript" : "Other");
        assert_string_equal(pk_str(p, m[0].payload), "{\"type\":\"Text\",\"name\":\"x\"}");
        assert_string_equal(pk_str(p, m[1].name), "work");
        assert_int_equal(m[1].start, 2000000);
        assert_int_equal(m[1].end, 3500000);
        assert_string_equal(pk_str(p, m[1].category), "Other");
        assert_int_equal(m[1].payload, 0);
        assert_int_equal(m[5].thread, 2);
        profkit_profile_free(p);
    }
}

static void test_processed_v24(void **state)
{
    (void)state;
    profkit_profile *p = read_data("tests/data/firefox/ok_v24.json", "firefox");
    assert_int_equal(p->n_samples, 4);
    const profkit_function *f = leaf_function(p, p->sample_stack[2]);
    assert_string_equal(pk_str(p, f->name), "frobnicate");
    assert_string_equal(pk_str(p, f->file), "chrome://blargh");
    assert_int_equal(f->start_line, 30);
    assert_string_equal(pk_str(p, leaf_function(p, p->sample_stack[1])->module), "firefox");
    assert_int_equal(p->frames[p->stacks[p->sample_stack[2]].frame].line, 34);
    assert_int_equal(p->n_markers, 1);
    assert_int_equal(p->markers[0].start, 1500000);
    profkit_profile_free(p);
}

static void test_flags_v75(void **state)
{
    (void)state;
    profkit_profile *p = read_data("tests/data/firefox/ok_flags_v75.json", "firefox");
    char path[512];
    stack_path(p, p->sample_stack[3], path, sizeof path);
    assert_string_equal(path, "main;onClick;work");
    /* frame 2 has its address flag; frame 3's address 0 is unflagged */
    assert_int_equal(p->frames[p->stacks[p->sample_stack[2]].frame].address, 4660);
    assert_int_equal(p->frames[p->stacks[p->sample_stack[3]].frame].address, 0);
    /* func 3's resource 0 is unflagged: no module; onClick's source is flagged */
    assert_string_equal(pk_str(p, leaf_function(p, p->sample_stack[2])->module), "");
    assert_string_equal(pk_str(p, leaf_function(p, p->sample_stack[0])->module), "libxul.so");
    assert_string_equal(pk_str(p, leaf_function(p, p->sample_stack[1])->file), "https://example.com/app.js");
    assert_int_equal(p->frames[p->stacks[p->sample_stack[1]].frame].line, 14);
    /* categories: meta.categories in order; frame flags bit 4 guards the
     * category; funcTable flags bit 1 is isJS */
    assert_int_equal(p->n_categories, 2);
    assert_string_equal(pk_str(p, p->categories[1].name), "JavaScript");
    assert_string_equal(pk_str(p, p->categories[1].color), "yellow");
    assert_int_equal(p->categories[1].n_subcategories, 1);
    const profkit_frame *js = &p->frames[p->stacks[p->sample_stack[1]].frame];
    assert_int_equal(js->category, 2);
    assert_int_equal(js->flags, PROFKIT_FRAME_JS);
    const profkit_frame *native = &p->frames[p->stacks[p->sample_stack[0]].frame];
    assert_int_equal(native->category, 1);
    assert_int_equal(native->flags, 0);
    assert_string_equal(pk_meta_get(p, "format_version"), "75");
    profkit_profile_free(p);
}

/* Rows after their schema stream into the model; rows before it are held.
 * Both must give the same profile. */
static void test_stream_equivalence(void **state)
{
    (void)state;
    const char *head = "{\"meta\":{\"version\":36,\"categories\":[{\"name\":\"A\"}]},\"processes\":[{\"meta\":{\"startTime\":5},"
                       "\"threads\":[{\"name\":\"T\",";
    const char *schema_first =
        "\"samples\":{\"schema\":{\"stack\":0,\"time\":1,\"weight\":2},\"data\":[[1,1.5],[null,2],[0,null,4],[1,3.25,2]],\"weightType\":\"bytes\"},"
        "\"markers\":{\"schema\":{\"name\":0,\"startTime\":1,\"endTime\":2,\"category\":3,\"data\":4},\"data\":[[1,1,2,0,{\"k\":[1]}],[0,3]]},";
    const char *data_first =
        "\"samples\":{\"data\":[[1,1.5],[null,2],[0,null,4],[1,3.25,2]],\"weightType\":\"bytes\",\"schema\":{\"stack\":0,\"time\":1,\"weight\":2}},"
        "\"markers\":{\"data\":[[1,1,2,0,{\"k\":[1]}],[0,3]],\"schema\":{\"name\":0,\"startTime\":1,\"endTime\":2,\"category\":3,\"data\":4}},";
    const char *tail = "\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[[null,0],[0,1]]},"
                       "\"frameTable\":{\"schema\":{\"location\":0},\"data\":[[0],[1]]},"
                       "\"stringTable\":[\"a (in m)\",\"b (u:3)\"]}]}],\"meta\":{\"startTime\":2}}";
    profkit_profile *pp[2];
    for (int k = 0; k < 2; k++) {
        char doc[2048];
        snprintf(doc, sizeof doc, "%s%s%s", head, k ? data_first : schema_first, tail);
        profkit_error err;
        if (read_mem(&pp[k], doc, strlen(doc), "gecko", &err))
            fail_msg("%s", err.message);
    }
    for (int k = 0; k < 2; k++) {
        profkit_profile *p = pp[k];
        uint32_t vb = profkit_profile_find_value(p, "bytes");
        assert_int_not_equal(vb, PROFKIT_NONE);
        assert_int_equal(p->n_samples, 4); /* a null stack is a sample (the empty stack) */
        assert_int_equal(p->n_threads, 1);
        assert_string_equal(pk_str(p, p->threads[0].name), "T");
        /* shift 5 - 0 (the root's meta came first without a start: 0) */
        assert_int_equal(p->sample_time[0], 1500000 + (int64_t)(k ? 0 : 0));
        assert_int_equal(p->sample_values[0 * p->n_value_types + vb], 1);
        assert_int_equal(p->sample_stack[1], 0);
        assert_int_equal(p->sample_values[1 * p->n_value_types + vb], 1);
        assert_int_equal(p->sample_time[1], p->sample_time[0] + 500000);
        assert_int_equal(p->sample_values[2 * p->n_value_types + vb], 4);
        assert_int_equal(p->sample_time[2], p->sample_time[0] + 500000); /* null time: the previous one (2) */
        char a[256], b[256];
        for (size_t i = 0; i < 4; i++) {
            stack_path(pp[0], pp[0]->sample_stack[i], a, sizeof a);
            stack_path(pp[1], pp[1]->sample_stack[i], b, sizeof b);
            assert_string_equal(a, b);
            assert_int_equal(pp[0]->sample_time[i], pp[1]->sample_time[i]);
        }
        assert_int_equal(p->n_markers, 2);
        assert_string_equal(pk_str(p, p->markers[0].name), "b (u:3)");
        assert_string_equal(pk_str(p, p->markers[0].payload), "{\"k\":[1]}");
        assert_string_equal(pk_str(p, p->markers[0].category), "A");
        assert_true(p->markers[1].end == PROFKIT_NO_TIME); /* no phase, no payload: an instant */
        assert_int_equal(p->markers[1].phase, PROFKIT_MARKER_INSTANT);
    }
    profkit_profile_free(pp[0]);
    profkit_profile_free(pp[1]);
}

/* Rows before their schema, one of them far wider than the others (its
 * extra cells, text among them, are dropped) and one shorter: the same
 * profile as with the schema first. */
static void test_rows_before_schema(void **state)
{
    (void)state;
    char wide[4096] = "";
    for (int i = 0; i < 300; i++)
        strcat(wide, i % 3 ? ",7" : ",\"x\"");
    const char *fmt =
        "{\"meta\":{\"version\":36},\"threads\":[{\"name\":\"T\","
        "\"samples\":{%s},"
        "\"stackTable\":{%s},"
        "\"frameTable\":{\"schema\":{\"location\":0,\"line\":1},\"data\":[[0],[1,9],[2]]},"
        "\"stringTable\":[\"a (in m)\",\"b (u:3)\",\"c\"]}]}";
    char s_first[512], s_data[8192], t_first[512], t_data[8192];
    snprintf(s_first, sizeof s_first, "\"schema\":{\"stack\":0,\"time\":1},\"data\":[[2,1],[1,2],[0,3]]");
    snprintf(s_data, sizeof s_data, "\"data\":[[2,1%s],[1,2],[0,3]],\"schema\":{\"stack\":0,\"time\":1}", wide);
    snprintf(t_first, sizeof t_first, "\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[[null,0],[0,1],[1,2]]");
    snprintf(t_data, sizeof t_data, "\"data\":[[null,0],[0,1%s],[1,2,null]],\"schema\":{\"frame\":1,\"prefix\":0}", wide);
    profkit_profile *pp[2];
    for (int k = 0; k < 2; k++) {
        char doc[20000];
        snprintf(doc, sizeof doc, fmt, k ? s_data : s_first, k ? t_data : t_first);
        profkit_error err;
        if (read_mem(&pp[k], doc, strlen(doc), "gecko", &err))
            fail_msg("%s", err.message);
    }
    const char *want[] = { "a;b;c", "a;b", "a" };
    for (int k = 0; k < 2; k++) {
        assert_int_equal(pp[k]->n_samples, 3);
        for (size_t i = 0; i < 3; i++) {
            char path[256];
            stack_path(pp[k], pp[k]->sample_stack[i], path, sizeof path);
            assert_string_equal(path, want[i]);
            assert_int_equal(pp[k]->sample_time[i], (int64_t)(i + 1) * 1000000);
        }
        /* frame 1's row reached the line column before its wide tail */
        assert_int_equal(pp[k]->frames[pp[k]->stacks[pp[k]->sample_stack[1]].frame].line, 9);
    }
    profkit_profile_free(pp[0]);
    profkit_profile_free(pp[1]);
}

/* Every column a table kind wants has a slot of its own (GK_SLOTS is the
 * most any kind wants; the slot past them stays empty for the others). */
static void test_table_slots(void **state)
{
    (void)state;
    for (int k = 0; k < T_COUNT; k++)
        assert_true(__builtin_popcount(table_wants[k]) <= GK_SLOTS);
}

/* Threads naming the shared tables' functions with string tables of their
 * own, each built as it closes (and freed): each gets its own names, and
 * threads whose strings agree share the stacks. */
static void test_thread_strings(void **state)
{
    (void)state;
    char doc[4096];
    int w = snprintf(doc, sizeof doc,
                     "{\"meta\":{\"version\":31,\"preprocessedProfileVersion\":70},\"shared\":{"
                     "\"stackTable\":{\"length\":3,\"frame\":[0,1,2],\"prefix\":[null,0,1]},"
                     "\"frameTable\":{\"length\":3,\"func\":[0,1,2],\"address\":[-1,-1,-1]},"
                     "\"funcTable\":{\"length\":3,\"name\":[0,1,2],\"resource\":[-1,-1,-1]},"
                     "\"resourceTable\":{\"length\":0}},\"threads\":[");
    const char *strings[] = { "\"a0\",\"b0\",\"c0\"", "\"a1\",\"b1\",\"c1\"", "\"a0\",\"b0\",\"c0\"",
                              "\"a0\",\"b0\",\"c0\",\"d\"", "\"a2\",\"b2\",\"c2\"" };
    for (int t = 0; t < 5; t++)
        w += snprintf(doc + w, sizeof doc - (size_t)w,
                      "%s{\"name\":\"T%d\",\"stringArray\":[%s],\"samples\":{\"length\":2,\"stack\":[2,1],"
                      "\"timeDeltas\":[1,1]}}",
                      t ? "," : "", t, strings[t]);
    snprintf(doc + w, sizeof doc - (size_t)w, "]}");
    profkit_profile *p = NULL;
    profkit_error err;
    if (read_mem(&p, doc, strlen(doc), "firefox", &err))
        fail_msg("%s", err.message);
    assert_int_equal(p->n_threads, 5);
    assert_int_equal(p->n_samples, 10);
    const char *want[] = { "a0;b0;c0", "a1;b1;c1", "a0;b0;c0", "a0;b0;c0", "a2;b2;c2" };
    for (size_t i = 0; i < 5; i++) {
        char path[256];
        assert_int_equal(p->sample_thread[2 * i], i);
        stack_path(p, p->sample_stack[2 * i], path, sizeof path);
        assert_string_equal(path, want[i]);
    }
    /* the threads with a0 b0 c0 (and more) made no stacks of their own */
    assert_int_equal(p->sample_stack[4], p->sample_stack[0]);
    assert_int_equal(p->sample_stack[6], p->sample_stack[0]);
    assert_int_equal(p->n_stacks, 1 + 3 * 3);
    profkit_profile_free(p);
}

static void test_fixtures_detected(void **state)
{
    (void)state;
    const char *shared = getenv("PROFKIT_SHARED");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/fixtures/firefox", shared ? shared : "");
    if (!shared || access(dir, R_OK) != 0)
        skip(); /* only outside the workspace */
    const char *files[][2] = { { "gecko-1.json", "gecko" }, { "gecko-2.json", "gecko" },
                               { "processed-3.json", "firefox" }, { "argument-values.json", "firefox" },
                               { "samply-profile_with_js-v66.json", "firefox" },
                               { "unsymbolicated-v49.json.gz", "firefox" } };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/fixtures/firefox/%s", shared, files[i][0]);
        profkit_profile *p = NULL;
        profkit_error err;
        int rc = profkit_profile_read_file(&p, path, NULL, &err);
        if (rc)
            fail_msg("%s: %s", path, err.message);
        assert_string_equal(profkit_profile_format(p), files[i][1]);
        assert_true(p->n_threads > 0);
        profkit_profile_free(p);
    }
}

/* ---------------------------------------------------------------- errors */

static void test_error_positions(void **state)
{
    (void)state;
    profkit_profile *p = NULL;
    profkit_error err;
    const char *bad = "{\"meta\": {\"version\": 36},\n \"threads\": [\n  {\"name\": x}]}";
    assert_int_equal(read_mem(&p, bad, strlen(bad), "gecko", &err), PROFKIT_ECORRUPT);
    assert_null(p);
    assert_int_equal(err.line, 3);
    assert_true(err.column >= 12 && err.column <= 13);
    const char *shape = "{\"meta\": {\"version\": 36},\n \"threads\": [{\"stackTable\": [1]}]}";
    assert_int_equal(read_mem(&p, shape, strlen(shape), "gecko", &err), PROFKIT_ECORRUPT);
    assert_int_equal(err.line, 2);
    assert_int_equal(err.column, 29);
    assert_non_null(strstr(err.message, "stackTable: expected an object, found an array"));
}

/* A gzip stream of `n` bytes of d. */
static unsigned char *gzip_bytes(const char *d, size_t n, size_t *out_n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, n) + 64;
    unsigned char *o = malloc(cap);
    z.next_in = (unsigned char *)d;
    z.avail_in = (uInt)n;
    z.next_out = o;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    *out_n = z.total_out;
    deflateEnd(&z);
    return o;
}

static void test_gzip_truncated(void **state)
{
    (void)state;
    size_t n;
    char *d = slurp("tests/data/gecko/ok_weights.json", &n);
    size_t gn;
    unsigned char *gz = gzip_bytes(d, n, &gn);
    profkit_profile *p = NULL;
    profkit_error err;
    assert_int_equal(read_mem(&p, gz, gn, "gecko", &err), 0);
    assert_int_equal(p->n_threads, 3);
    profkit_profile_free(p);
    /* cut the decompressed text inside the third thread: two are kept */
    const char *third = strstr(d, "\"Allocated\"");
    assert_non_null(third);
    unsigned char *gz2 = gzip_bytes(d, (size_t)(third - d) + 20, &gn);
    assert_int_equal(read_mem(&p, gz2, gn, "gecko", &err), 0);
    assert_int_equal(n_warn, 1);
    assert_non_null(strstr(last_warn, "kept the 2 complete threads"));
    assert_int_equal(p->n_threads, 2);
    profkit_profile_free(p);
    /* under --strict the cut is an error */
    profkit_read_options o = { 0 };
    o.format = "gecko";
    o.strict = 1;
    assert_int_equal(profkit_profile_read_memory(&p, gz2, gn, "t", &o, &err), PROFKIT_ETRUNCATED);
    free(gz);
    free(gz2);
    free(d);
}

/* Every prefix and many byte flips of the data files: no crash, no leak. */
static void test_mutations(void **state)
{
    (void)state;
    const char *files[] = { "tests/data/gecko/ok_nested_processes.json", "tests/data/firefox/ok_shared_v70.json" };
    unsigned seed = 12345;
    for (size_t k = 0; k < 2; k++) {
        size_t n;
        char *d = slurp(files[k], &n);
        for (size_t cut = 0; cut < n; cut += 7) {
            profkit_profile *p = NULL;
            profkit_error err;
            if (read_mem(&p, d, cut, k ? "firefox" : "gecko", &err) == 0)
                profkit_profile_free(p);
        }
        char *m = malloc(n);
        for (int round = 0; round < 400; round++) {
            memcpy(m, d, n);
            for (int f = 0; f < 3; f++) {
                seed = seed * 1103515245u + 12345u;
                static const char repl[] = "0123456789[]{}\",:-.enull";
                m[(seed >> 8) % n] = repl[(seed >> 20) % (sizeof repl - 1)];
            }
            profkit_profile *p = NULL;
            profkit_error err;
            if (read_mem(&p, m, n, k ? "firefox" : "gecko", &err) == 0)
                profkit_profile_free(p);
        }
        free(m);
        free(d);
    }
}

/* ---------------------------------------------------------------- json layer */

/* ---------------------------------------------------------------- large files */

/* A raw Gecko thread named `name` of `rows` stackTable rows (a binary
 * tree: row i's prefix is (i - 1) / 2), `frames` frames (location strings
 * "f<k> (in lib<k % 3>.so)", a frameTable with a line column, its last row
 * short of it) and 64 samples, appended to *b. */
static void gen_thread(pk_buf *b, const char *name, size_t rows, size_t frames, int first)
{
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s{\"name\":\"%s\",\"pid\":1,\"tid\":%zu,", first ? "" : ",", name, rows);
    pk_buf_puts(b, tmp);
    pk_buf_puts(b, "\"samples\":{\"schema\":{\"stack\":0,\"time\":1},\"data\":[");
    for (size_t k = 0; k < 64; k++) {
        snprintf(tmp, sizeof tmp, "%s[%zu,%zu.25]", k ? "," : "", (k * 7919) % rows, k + 1);
        pk_buf_puts(b, tmp);
    }
    pk_buf_puts(b, "]},\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[");
    for (size_t i = 0; i < rows; i++) {
        if (i == 0)
            snprintf(tmp, sizeof tmp, "[null,%zu]", i % frames);
        else
            snprintf(tmp, sizeof tmp, ",[%zu,%zu]", (i - 1) / 2, (i * 31) % frames);
        pk_buf_puts(b, tmp);
    }
    pk_buf_puts(b, "]},\"frameTable\":{\"schema\":{\"location\":0,\"line\":1},\"data\":[");
    for (size_t f = 0; f < frames; f++) {
        if (f + 1 < frames)
            snprintf(tmp, sizeof tmp, "%s[%zu,%zu]", f ? "," : "", f, f + 1);
        else
            snprintf(tmp, sizeof tmp, "%s[%zu]", f ? "," : "", f);
        pk_buf_puts(b, tmp);
    }
    pk_buf_puts(b, "]},\"stringTable\":[");
    for (size_t f = 0; f < frames; f++) {
        snprintf(tmp, sizeof tmp, "%s\"%s_f%zu (in lib%zu.so)\"", f ? "," : "", name, f, f % 3);
        pk_buf_puts(b, tmp);
    }
    pk_buf_puts(b, "]}");
}

/* The stack paths and times of thread t's samples, one line each. */
static void thread_samples(const profkit_profile *p, uint32_t t, pk_buf *out)
{
    for (size_t i = 0; i < p->n_samples; i++) {
        if (p->sample_thread[i] != t)
            continue;
        char path[4096], tmp[64];
        stack_path(p, p->sample_stack[i], path, sizeof path);
        pk_buf_puts(out, path);
        snprintf(tmp, sizeof tmp, " @%lld\n", (long long)p->sample_time[i]);
        pk_buf_puts(out, tmp);
    }
}

static char *write_temp(const char *d, size_t n)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/test_gecko_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, d, n), (ssize_t)n);
    close(fd);
    return path;
}

/*
 * A file of several read windows (a plain file is parsed in place, mapped;
 * a gzip one through the read buffer): the same profile both ways, and a
 * thread after a larger and before a still larger one (whose tables take
 * the earlier threads' column buffers) is the same as read alone.
 */
static void test_large_file(void **state)
{
    (void)state;
    static const struct { const char *name; size_t rows, frames; } th[] = {
        { "big", 60000, 9000 }, { "small", 7, 5 }, { "bigger", 100000, 12000 }
    };
    pk_buf doc = { 0 };
    pk_buf_puts(&doc, "{\"meta\":{\"version\":36,\"startTime\":0},\"threads\":[");
    for (size_t t = 0; t < 3; t++)
        gen_thread(&doc, th[t].name, th[t].rows, th[t].frames, t == 0);
    pk_buf_puts(&doc, "]}");
    assert_true(doc.len > 3 * 256 * 1024); /* several windows */
    char *path = write_temp(doc.buf, doc.len);
    profkit_read_options o = { 0 };
    o.format = "gecko";
    profkit_error err;
    profkit_profile *pf = NULL, *pz = NULL;
    if (profkit_profile_read_file(&pf, path, &o, &err))
        fail_msg("%s", err.message);
    size_t gn;
    unsigned char *gz = gzip_bytes(doc.buf, doc.len, &gn);
    if (read_mem(&pz, gz, gn, "gecko", &err))
        fail_msg("%s", err.message);
    assert_int_equal(pf->n_threads, 3);
    assert_int_equal(pf->n_samples, 3 * 64);
    for (uint32_t t = 0; t < 3; t++) {
        pk_buf a = { 0 }, z = { 0 }, alone = { 0 };
        thread_samples(pf, t, &a);
        thread_samples(pz, t, &z);
        assert_true(a.len > 0);
        assert_int_equal(a.len, z.len);
        assert_memory_equal(a.buf, z.buf, a.len);
        /* the thread read alone */
        pk_buf one = { 0 };
        pk_buf_puts(&one, "{\"meta\":{\"version\":36,\"startTime\":0},\"threads\":[");
        gen_thread(&one, th[t].name, th[t].rows, th[t].frames, 1);
        pk_buf_puts(&one, "]}");
        profkit_profile *p1 = NULL;
        if (read_mem(&p1, one.buf, one.len, "gecko", &err))
            fail_msg("%s", err.message);
        thread_samples(p1, 0, &alone);
        assert_int_equal(a.len, alone.len);
        assert_memory_equal(a.buf, alone.buf, a.len);
        profkit_profile_free(p1);
        pk_buf_free(&one);
        pk_buf_free(&a);
        pk_buf_free(&z);
        pk_buf_free(&alone);
    }
    profkit_profile_free(pf);
    profkit_profile_free(pz);
    free(gz);
    /* a syntax error past the first windows: the same message and position */
    char *cut = strstr(doc.buf, "\"bigger\"");
    assert_non_null(cut);
    cut += 200000;
    *cut = '}';
    unlink(path);
    path = write_temp(doc.buf, doc.len);
    profkit_error ef, ez;
    assert_true(profkit_profile_read_file(&pf, path, &o, &ef) != 0);
    gz = gzip_bytes(doc.buf, doc.len, &gn);
    assert_true(read_mem(&pz, gz, gn, "gecko", &ez) != 0);
    assert_string_equal(ef.message, ez.message);
    assert_int_equal(ef.code, ez.code);
    assert_int_equal(ef.line, 1);
    assert_int_equal(ef.line, ez.line);
    size_t at = (size_t)(cut - doc.buf);
    assert_true(ef.column > at - 64 && ef.column <= at + 64); /* near the cut */
    assert_int_equal(ef.column, ez.column);
    assert_int_equal(ef.has_offset, ez.has_offset);
    assert_true(ef.offset == ez.offset);
    free(gz);
    unlink(path);
    pk_buf_free(&doc);
}

static void test_numbers(void **state)
{
    (void)state;
    const char *nums[] = { "0", "-0", "1", "12345", "58734.891727", "0.000123", "1e10", "1.5E-7",
                           "123456789012345678901234", "9007199254740993", "3.14159265358979323846",
                           "-2.5e+3", "1e400", "1e-400", "0.1", "1324.5671", "17000000000000.125" };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        double want = strtod(nums[i], NULL);
        double got = pk_json_number(nums[i], strlen(nums[i]));
        assert_memory_equal(&want, &got, sizeof want);
    }
}

static void test_text(void **state)
{
    (void)state;
    pk_buf t = PK_BUF_INIT;
    pk_json_event evs[] = {
        { PK_JSON_MAP_START, NULL, 0, 0 }, { PK_JSON_KEY, "a\"b", 3, 0 },
        { PK_JSON_ARRAY_START, NULL, 0, 0 }, { PK_JSON_NUMBER, "1.50", 4, 0 },
        { PK_JSON_NULL, NULL, 0, 0 }, { PK_JSON_BOOL, NULL, 0, 1 },
        { PK_JSON_STRING, "x\n\x01", 3, 0 }, { PK_JSON_ARRAY_END, NULL, 0, 0 },
        { PK_JSON_KEY, "c", 1, 0 }, { PK_JSON_MAP_START, NULL, 0, 0 },
        { PK_JSON_MAP_END, NULL, 0, 0 }, { PK_JSON_MAP_END, NULL, 0, 0 },
    };
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        pk_json_text_event(&t, &evs[i]);
    assert_string_equal(t.buf, "{\"a\\\"b\":[1.50,null,true,\"x\\u000a\\u0001\"],\"c\":{}}");
    pk_buf_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_locations),        cmocka_unit_test(test_location_frames),
        cmocka_unit_test(test_nested_processes), cmocka_unit_test(test_short_rows),
        cmocka_unit_test(test_processes_first), cmocka_unit_test(test_renumber_threads),
        cmocka_unit_test(test_weights),          cmocka_unit_test(test_markers),
        cmocka_unit_test(test_embedded_v3),      cmocka_unit_test(test_processed_shared),
        cmocka_unit_test(test_processed_v24),    cmocka_unit_test(test_flags_v75), cmocka_unit_test(test_marker_causes),
        cmocka_unit_test(test_old_processed_causes),
        cmocka_unit_test(test_unknown_category_one_frame),
        cmocka_unit_test(test_stream_equivalence), cmocka_unit_test(test_skip_markers), cmocka_unit_test(test_fixtures_detected),
        cmocka_unit_test(test_error_positions),  cmocka_unit_test(test_gzip_truncated),
        cmocka_unit_test(test_mutations),        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_large_file),
        cmocka_unit_test(test_text),             cmocka_unit_test(test_rows_before_schema),
        cmocka_unit_test(test_thread_strings),   cmocka_unit_test(test_table_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
