/*
 * test_flame.c: the flame graph's trees (src/report/flame/): totals kept
 * under --min-percent and --max-nodes with several threads and value types,
 * a 200000-deep stack (one pass, no recursion), runs of timed samples
 * merged into their common ancestor, diff columns, a stack table out of
 * order refused, the data's escapes, the page in memory and on disk; the
 * sums per stack of threads with stacks of their own equal to the rows'.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <unistd.h>

#include "model/model.h"
#include "report/flame/flame.h"

/* Function fi's name on the page d. */
static const char *func_name(const flame_data *d, int32_t fi)
{
    size_t len;
    return pk_flame_func_name(d, (size_t)fi, &len);
}

static uint32_t frame_named(profkit_profile *p, const char *name)
{
    profkit_frame f;
    memset(&f, 0, sizeof(f));
    f.function = pk_function_add_named(p, name, "f.c", "", 0);
    f.mapping = PROFKIT_NONE;
    return pk_frame_add(p, &f);
}

static uint32_t stack_of(profkit_profile *p, const char *spec)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", spec);
    uint32_t s = 0;
    for (char *tok = strtok(buf, ";"); tok; tok = strtok(NULL, ";"))
        s = pk_stack_intern(p, s, frame_named(p, tok));
    return s;
}

static uint64_t rng = 12345;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* Sum of self[v] over a scope's nodes. */
static int64_t scope_sum(const flame_scope *s, size_t v, int base)
{
    int64_t t = 0;
    for (size_t i = 0; i < s->n; i++)
        t += (base ? s->base_self : s->self)[v * s->n + i];
    return t;
}

/* A random profile: 3 threads, 3 value types, stacks up to 12 deep over
 * 40 functions (recursion included), 3000 rows. */
static profkit_profile *random_profile(int64_t want[4][3])
{
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    pk_value_type_add(p, "cpu", "nanoseconds");
    pk_value_type_add(p, "samples", "count");
    pk_value_type_add(p, "alloc", "bytes");
    for (int t = 0; t < 3; t++) {
        char name[16];
        snprintf(name, sizeof(name), "t%d", t);
        pk_thread_add(p, name, "", -1, t);
    }
    memset(want, 0, sizeof(int64_t) * 12);
    for (int r = 0; r < 3000; r++) {
        uint32_t s = 0, depth = 1 + rnd(12), th = rnd(3);
        for (uint32_t d = 0; d < depth; d++) {
            char name[16];
            snprintf(name, sizeof(name), "f%u", rnd(40) * rnd(2));
            s = pk_stack_intern(p, s, frame_named(p, name));
        }
        int64_t v[3] = { rnd(1000), 1, rnd(3) ? 0 : (int64_t)rnd(1 << 20) };
        assert_int_equal(pk_sample_add(p, s, th, v), 0);
        for (int k = 0; k < 3; k++) {
            want[0][k] += v[k];
            want[1 + th][k] += v[k];
        }
    }
    return p;
}

static void totals_kept_under_every_cap(void **state)
{
    (void)state;
    int64_t want[4][3];
    profkit_profile *p = random_profile(want);
    size_t caps[] = { 0, 8, 50, 300, 2000 };
    double pcts[] = { 0, 0.025, 5 };
    for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++)
        for (size_t q = 0; q < 3; q++) {
            profkit_flame_options o;
            profkit_flame_options_init(&o);
            o.max_nodes = caps[c];
            o.min_percent = pcts[q];
            flame_data d;
            profkit_error err;
            assert_int_equal(pk_flame_build(&d, p, &o, 0, &err), 0);
            assert_int_equal(d.n_scopes, 4);
            assert_true(d.scopes[0].merged);
            size_t nodes = 0;
            for (size_t s = 0; s < 4; s++) {
                const flame_scope *sc = &d.scopes[s];
                nodes += sc->n;
                for (size_t v = 0; v < 3; v++)
                    assert_int_equal(scope_sum(sc, v, 0), want[s][v]);
                for (size_t i = 1; i < sc->n; i++) {
                    assert_true(sc->parent[i] >= 0 && (size_t)sc->parent[i] < i);
                    assert_true(sc->func[i] == FLAME_OTHER ||
                                (sc->func[i] >= 0 && (size_t)sc->func[i] < d.n_funcs));
                    /* "(other)" is a leaf */
                    assert_int_not_equal(sc->func[sc->parent[i]], FLAME_OTHER);
                }
            }
            if (caps[c] && nodes > caps[c])
                fail_msg("cap %zu, min %g%%: %zu nodes", caps[c], pcts[q], nodes);
            if (caps[c] == 0 && pcts[q] == 0)
                assert_true(nodes > 2000); /* nothing merged */
            pk_flame_data_free(&d);
        }
    profkit_profile_free(p);
}

static void deep_stack_and_runs(void **state)
{
    (void)state;
    enum { DEPTH = 200000 };
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    pk_value_type_add(p, "samples", "count");
    uint32_t th = pk_thread_add(p, "main", "", 1, 1);
    uint32_t main_s = stack_of(p, "main"), g = stack_of(p, "main;g"), s = main_s;
    uint32_t f = frame_named(p, "f");
    for (int i = 0; i < DEPTH; i++)
        s = pk_stack_intern(p, s, f); /* f calls itself */
    int64_t one = 1;
    /* 1000 samples 1 ns apart, alternating between the deep leaf and g */
    for (int i = 0; i < 1000; i++)
        assert_int_equal(pk_sample_add_timed(p, i % 2 ? g : s, th, 1000 + i, &one), 0);
    profkit_flame_options o;
    profkit_flame_options_init(&o);
    o.min_percent = 0;
    o.max_nodes = 0;
    flame_data d;
    profkit_error err;
    assert_int_equal(pk_flame_build(&d, p, &o, 0, &err), 0);
    assert_int_equal(d.n_scopes, 2);
    /* root, main, g and the 200000 f */
    assert_int_equal(d.scopes[0].n, DEPTH + 3);
    const flame_scope *t = &d.scopes[1];
    assert_true(t->timed);
    assert_int_equal(t->n_runs, 1000); /* no run is narrower than a pixel */
    assert_int_equal(t->run_start[0], 0);
    assert_int_equal(t->run_end, 1000);
    pk_flame_data_free(&d);

    /* With pixels of 10% of the time, the alternation merges into main. */
    o.min_percent = 10;
    assert_int_equal(pk_flame_build(&d, p, &o, 0, &err), 0);
    t = &d.scopes[1];
    assert_int_equal(t->n_runs, 1);
    uint32_t node = t->run_node[0];
    assert_int_equal(t->func[node] >= 0, 1);
    assert_string_equal(func_name(&d, t->func[node]), "main");
    assert_int_equal(t->parent[node], 0);
    assert_int_equal(scope_sum(t, 0, 0), 1000);
    pk_flame_data_free(&d);

    /* The cap keeps the top of the chain and folds the rest. */
    o.min_percent = 0;
    o.max_nodes = 100;
    assert_int_equal(pk_flame_build(&d, p, &o, 1, &err), 0);
    assert_int_equal(d.n_scopes, 1);
    assert_true(d.scopes[0].n <= 100);
    assert_int_equal(scope_sum(&d.scopes[0], 0, 0), 1000);
    pk_flame_data_free(&d);
    profkit_profile_free(p);
}

/* Times at both ends of int64 (a hostile input's): no overflow, runs in order. */
static void extreme_times(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    pk_value_type_add(p, "samples", "count");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    int64_t one = 1;
    int64_t times[] = { INT64_MIN + 1, -5, 0, INT64_MAX - 1 };
    const char *stacks[] = { "a", "a;b", "c", "a" };
    for (int i = 0; i < 4; i++)
        assert_int_equal(pk_sample_add_timed(p, stack_of(p, stacks[i]), th, times[i], &one), 0);
    profkit_flame_options o;
    profkit_flame_options_init(&o);
    o.min_percent = 0;
    flame_data d;
    profkit_error err;
    assert_int_equal(pk_flame_build(&d, p, &o, 0, &err), 0);
    const flame_scope *t = &d.scopes[1];
    assert_true(t->timed);
    assert_true(t->n_runs >= 1);
    assert_int_equal(t->run_start[0], 0);
    for (size_t i = 1; i < t->n_runs; i++)
        assert_true(t->run_start[i] >= t->run_start[i - 1]);
    assert_true(t->run_end >= t->run_start[t->n_runs - 1]);
    pk_flame_data_free(&d);
    profkit_profile_free(p);
}

static void diff_columns(void **state)
{
    (void)state;
    profkit_profile *base = profkit_profile_new(), *p = profkit_profile_new();
    assert_true(base && p);
    pk_value_type_add(p, "cpu", "nanoseconds");
    pk_value_type_add(p, "samples", "count");
    pk_value_type_add(base, "samples", "count"); /* no cpu in BASE */
    uint32_t tb = pk_thread_add(base, "main", "", -1, -1);
    uint32_t tn = pk_thread_add(p, "main", "", -1, -1);
    int64_t b1 = 3, b2 = 5, n1[2] = { 100, 4 }, n2[2] = { 50, 2 };
    assert_int_equal(pk_sample_add(base, stack_of(base, "main;old"), tb, &b1), 0);
    assert_int_equal(pk_sample_add(base, stack_of(base, "main;both"), tb, &b2), 0);
    assert_int_equal(pk_sample_add(p, stack_of(p, "main;both"), tn, n1), 0);
    assert_int_equal(pk_sample_add(p, stack_of(p, "main;new"), tn, n2), 0);
    profkit_flame_options o;
    profkit_flame_options_init(&o);
    o.base = base;
    flame_data d;
    profkit_error err;
    assert_int_equal(pk_flame_build(&d, p, &o, 0, &err), 0);
    assert_int_equal(d.n_scopes, 1);
    const flame_scope *s = &d.scopes[0];
    assert_non_null(s->base_self);
    assert_int_equal(s->n, 5); /* root, main, old, both, new */
    assert_int_equal(scope_sum(s, 0, 0), 150);
    assert_int_equal(scope_sum(s, 0, 1), 0);
    assert_int_equal(scope_sum(s, 1, 0), 6);
    assert_int_equal(scope_sum(s, 1, 1), 8);
    for (size_t i = 1; i < s->n; i++) {
        const char *name = func_name(&d, s->func[i]);
        if (strcmp(name, "old") == 0) {
            assert_int_equal(s->self[s->n + i], 0);
            assert_int_equal(s->base_self[s->n + i], 3);
        } else if (strcmp(name, "new") == 0) {
            assert_int_equal(s->self[s->n + i], 2);
            assert_int_equal(s->base_self[s->n + i], 0);
        }
    }
    pk_flame_data_free(&d);
    /* an unknown thread in either profile is a usage error */
    o.thread = "nope";
    assert_int_equal(pk_flame_build(&d, p, &o, 0, &err), PROFKIT_EINVAL);
    pk_flame_data_free(&d);
    profkit_profile_free(base);
    profkit_profile_free(p);
}

static void stack_table_out_of_order_is_refused(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    pk_value_type_add(p, "samples", "count");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    uint32_t s = stack_of(p, "a;b;c");
    int64_t one = 1;
    assert_int_equal(pk_sample_add(p, s, th, &one), 0);
    p->stacks[1].parent = 3; /* a child's id before its parent's */
    profkit_flame_options o;
    profkit_flame_options_init(&o);
    flame_data d;
    profkit_error err;
    assert_int_equal(pk_flame_build(&d, p, &o, 0, &err), PROFKIT_ECORRUPT);
    assert_non_null(strstr(err.message, "stack 1"));
    pk_flame_data_free(&d);
    char *page;
    size_t len;
    assert_int_equal(profkit_flame_render_html(&page, &len, p, NULL, &err), PROFKIT_ECORRUPT);
    assert_null(page);
    profkit_profile_free(p);
}

static void escapes(void **state)
{
    (void)state;
    pk_buf b = PK_BUF_INIT;
    const char s[] = "a</script><!--\"\\\x01\xff\xc3\xa9&>";
    pk_buf_json(&b, s, sizeof(s) - 1, PK_JSON_PAGE);
    pk_buf_put(&b, " ", 1);
    pk_buf_xml(&b, s, sizeof(s) - 1);
    pk_buf_put(&b, " ", 1);
    pk_buf_i64(&b, INT64_MIN);
    char *out;
    size_t len;
    assert_int_equal(pk_buf_take(&b, &out, &len), 0);
    assert_string_equal(out, "\"a\\u003c/script\\u003e\\u003c!--\\\"\\\\\\u0001\xef\xbf\xbd\xc3\xa9\\u0026\\u003e\" "
                             "a&lt;/script&gt;&lt;!--&quot;\\\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9&amp;&gt; "
                             "-9223372036854775808");
    assert_int_equal(len, strlen(out));
    free(out);
}

static void page_in_memory_and_on_disk(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    pk_value_type_add(p, "samples", "count");
    uint32_t th = pk_thread_add(p, "</script>", "", -1, -1);
    int64_t one = 7;
    assert_int_equal(pk_sample_add(p, stack_of(p, "main;<!--x"), th, &one), 0);
    profkit_flame_options o;
    profkit_flame_options_init(&o);
    o.title = "t</script>";
    char *page;
    size_t len;
    profkit_error err;
    assert_int_equal(profkit_flame_render_html(&page, &len, p, &o, &err), 0);
    assert_int_equal(strlen(page), len);
    assert_memory_equal(page, pk_flame_page_head, pk_flame_page_head_len);
    assert_memory_equal(page + len - pk_flame_page_tail_len, pk_flame_page_tail,
                        pk_flame_page_tail_len);
    /* the data between them holds no '<' and is the schema's object */
    const char *data = page + pk_flame_page_head_len;
    size_t dlen = len - pk_flame_page_head_len - pk_flame_page_tail_len;
    assert_null(memchr(data, '<', dlen));
    assert_true(dlen > 2 && data[0] == '{' && data[dlen - 1] == '}');
    assert_int_equal(strncmp(data, "{\"schema\":1,", 12), 0);
    char path[] = "/tmp/test_flame_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(profkit_flame_write_html(p, path, &o, &err), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *disk = malloc(len + 1);
    assert_int_equal(fread(disk, 1, len + 1, f), len);
    fclose(f);
    assert_memory_equal(disk, page, len);
    free(disk);
    free(page);
    /* the SVG too, and an unknown value type is EINVAL with nothing written */
    assert_int_equal(profkit_flame_render_svg(&page, &len, p, &o, &err), 0);
    assert_int_equal(strncmp(page, "<?xml", 5), 0);
    assert_non_null(strstr(page, "&lt;!--x"));
    free(page);
    o.value = "cpu";
    assert_int_equal(profkit_flame_write_svg(p, path, &o, &err), PROFKIT_EINVAL);
    assert_int_equal(profkit_flame_render_html(&page, &len, p, &o, &err), PROFKIT_EINVAL);
    assert_null(page);
    unlink(path);
    profkit_profile_free(p);
}

/* Self values past int64 saturate, and every node keeps its own: a node's
 * self is not its total less its children's once a sum saturated. */
static void saturated_sums_keep_self(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    pk_value_type_add(p, "samples", "count");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    int64_t big = INT64_MAX / 2 + 7, five = 5, minus = -3;
    assert_int_equal(pk_sample_add_timed(p, stack_of(p, "main;hot"), th, 1, &big), 0);
    assert_int_equal(pk_sample_add_timed(p, stack_of(p, "main;hot"), th, 2, &big), 0);
    assert_int_equal(pk_sample_add_timed(p, stack_of(p, "main"), th, 3, &five), 0);
    assert_int_equal(pk_sample_add_timed(p, stack_of(p, "main;cold"), th, 4, &minus), 0);
    profkit_flame_options o;
    profkit_flame_options_init(&o);
    o.min_percent = 0;
    flame_data d;
    profkit_error err;
    for (int exact = 0; exact < 2; exact++) {
        assert_int_equal(pk_flame_build(&d, p, &o, 0, &err), 0);
        for (size_t sc = 0; sc < d.n_scopes; sc++) {
            const flame_scope *s = &d.scopes[sc];
            assert_int_equal(s->n, 4); /* root, main, hot, cold */
            for (size_t i = 1; i < s->n; i++) {
                const char *name = func_name(&d, s->func[i]);
                int64_t want = strcmp(name, "hot") == 0 ? (exact ? 2 * (INT64_MAX / 2 - 100) : INT64_MAX)
                             : strcmp(name, "main") == 0 ? 5
                                                           : -3;
                assert_int_equal(s->self[i], want);
            }
            assert_int_equal(s->self[0], 0);
        }
        pk_flame_data_free(&d);
        /* the same without saturating: the totals' differences */
        profkit_profile_free(p);
        p = profkit_profile_new();
        pk_value_type_add(p, "samples", "count");
        th = pk_thread_add(p, "main", "", -1, -1);
        big = INT64_MAX / 2 - 100;
        assert_int_equal(pk_sample_add_timed(p, stack_of(p, "main;hot"), th, 1, &big), 0);
        assert_int_equal(pk_sample_add_timed(p, stack_of(p, "main;hot"), th, 2, &big), 0);
        assert_int_equal(pk_sample_add_timed(p, stack_of(p, "main"), th, 3, &five), 0);
        assert_int_equal(pk_sample_add_timed(p, stack_of(p, "main;cold"), th, 4, &minus), 0);
    }
    profkit_profile_free(p);
}

/* One thread with every row and no times: its scope is a copy of the
 * merged one (not built twice), equal node for node, in arrays of its
 * own (each freed once), and still cut to its own share of --max-nodes. */
static void one_thread_copies_merged(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    pk_value_type_add(p, "samples", "count");
    pk_value_type_add(p, "cpu", "nanoseconds");
    uint32_t th = pk_thread_add(p, "main", "", 1, 1);
    for (int r = 0; r < 2000; r++) {
        uint32_t s = 0, depth = 1 + rnd(10);
        for (uint32_t d = 0; d < depth; d++) {
            char name[16];
            snprintf(name, sizeof(name), "g%u", rnd(30));
            s = pk_stack_intern(p, s, frame_named(p, name));
        }
        int64_t v[2] = { 1, rnd(5000) };
        assert_int_equal(pk_sample_add(p, s, th, v), 0);
    }
    size_t caps[] = { 0, 40 };
    for (size_t c = 0; c < 2; c++) {
        profkit_flame_options o;
        profkit_flame_options_init(&o);
        o.max_nodes = caps[c];
        o.min_percent = 0.5;
        flame_data d;
        profkit_error err;
        assert_int_equal(pk_flame_build(&d, p, &o, 0, &err), 0);
        assert_int_equal(d.n_scopes, 2);
        const flame_scope *m = &d.scopes[0], *t = &d.scopes[1];
        assert_true(m->merged);
        assert_int_equal(t->thread, th);
        assert_true(m->parent != t->parent && m->self != t->self);
        if (caps[c]) {
            assert_true(m->n + t->n <= caps[c]);
        } else {
            assert_int_equal(m->n, t->n);
            assert_true(m->n > 10);
            for (size_t i = 0; i < m->n; i++) {
                assert_int_equal(m->parent[i], t->parent[i]);
                assert_int_equal(m->func[i], t->func[i]);
                for (size_t v = 0; v < 2; v++)
                    assert_int_equal(m->self[v * m->n + i], t->self[v * t->n + i]);
            }
        }
        for (size_t v = 0; v < 2; v++)
            assert_int_equal(scope_sum(m, v, 0), scope_sum(t, v, 0));
        pk_flame_data_free(&d);
    }
    profkit_profile_free(p);
}

/* The page's timeline columns (docs/viewer.md, "timeline"): base64
 * varints with the gaps' common divisor as the unit; past the samples'
 * byte budget (5,500,000) no columns, the activity bins and the budget
 * said instead. */
static void timeline_columns_and_byte_budget(void **state)
{
    (void)state;
    for (int big = 0; big < 2; big++) {
        profkit_profile *p = profkit_profile_new();
        assert_non_null(p);
        pk_value_type_add(p, "samples", "count");
        uint32_t th = pk_thread_add(p, "main", "", -1, -1);
        uint32_t st[3] = { stack_of(p, "a;b"), stack_of(p, "a;c"), stack_of(p, "d") };
        /* small: 1,000 samples 2 or 3 µs apart, one value; big: 600,000
         * samples whose values take 9 bytes each (past the budget) */
        size_t n = big ? 600000 : 1000;
        int64_t t = 1000000;
        for (size_t i = 0; i < n; i++) {
            int64_t v = big ? (int64_t)1 << 60 | (int64_t)rnd(1000) : 1;
            t += 2000 + 1000 * (int64_t)rnd(2);
            assert_int_equal(pk_sample_add_timed(p, st[rnd(3)], th, t, &v), 0);
        }
        char *page;
        size_t len;
        profkit_error err;
        assert_int_equal(profkit_flame_render_html(&page, &len, p, NULL, &err), 0);
        /* what flame --range asks first: whether the page holds every sample */
        int exact = -1;
        assert_int_equal(profkit_flame_page_exact(p, NULL, &exact, &err), 0);
        assert_int_equal(exact, !big);
        if (big) {
            assert_non_null(strstr(page, "\"samples_left_out\":600000,\"samples_left_out_bytes\":5500000"));
            assert_null(strstr(page, "\"timeline\":{"));
            assert_non_null(strstr(page, "\"activity\":["));
            assert_true(len < 10000000);
        } else {
            assert_non_null(strstr(page, "\"timeline\":{\"n\":1000,\"unit\":1000,\"time\":\""));
            assert_null(strstr(page, "\"samples_left_out\":"));
        }
        free(page);
        profkit_profile_free(p);
    }
}

/* a += x, saturating, as the trees sum */
static void sat_add(int64_t *a, int64_t x)
{
    if (__builtin_add_overflow(*a, x, a))
        *a = x > 0 ? INT64_MAX : INT64_MIN;
}

/* Node i's path of function names, "a;b;c". */
static void node_path(const flame_data *d, const flame_scope *s, uint32_t i, char *buf, size_t size)
{
    char tmp[256];
    buf[0] = 0;
    for (int32_t u = (int32_t)i; u > 0; u = s->parent[u]) {
        snprintf(tmp, sizeof(tmp), "%s%s%s", func_name(d, s->func[u]), buf[0] ? ";" : "", buf);
        snprintf(buf, size, "%s", tmp);
    }
}

/*
 * Each thread's rows reach stacks of their own (as a Gecko profile's stack
 * table per thread), the functions shared, rows interleaved in time: the
 * page sums such rows per stack (src/report/flame/flame_tree.c, "sums per
 * stack"), only where no sum can saturate, and per row otherwise. Every
 * scope's self values must be the rows' values summed (saturating, in row
 * order) per path of functions, and every sample's node its row's path:
 * one value type or two; a thread whose sums saturate; threads exact each
 * but not together (the merged scope saturates); a row on another thread's
 * stack (the ranges overlap: every thread per row).
 */
static void per_stack_sums_are_the_rows(void **state)
{
    (void)state;
    enum { THREADS = 3, STACKS = 25, ROWS = 2400 };
    for (int variant = 0; variant < 5; variant++) {
        size_t nv = variant == 1 ? 2 : 1;
        profkit_profile *p = profkit_profile_new();
        assert_non_null(p);
        pk_value_type_add(p, "samples", "count");
        if (nv == 2)
            pk_value_type_add(p, "cpu", "nanoseconds");
        uint32_t stacks[THREADS][STACKS];
        char paths[THREADS][STACKS][64];
        for (int t = 0; t < THREADS; t++) {
            char name[16];
            snprintf(name, sizeof(name), "t%d", t);
            pk_thread_add(p, name, "", -1, t);
        }
        for (int t = 0; t < THREADS; t++) /* thread after thread: a range of stacks each */
            for (int k = 0; k < STACKS; k++) {
                uint32_t s = 0, depth = 1 + rnd(5);
                paths[t][k][0] = 0;
                for (uint32_t d = 0; d < depth; d++) {
                    char name[16];
                    snprintf(name, sizeof(name), "f%u", rnd(6));
                    profkit_frame fr;
                    memset(&fr, 0, sizeof(fr));
                    fr.function = pk_function_add_named(p, name, "f.c", "", 0);
                    fr.mapping = PROFKIT_NONE;
                    fr.address = 0x1000 * (uint64_t)(t + 1) + d; /* frames of its own */
                    s = pk_stack_intern(p, s, pk_frame_add(p, &fr));
                    size_t len = strlen(paths[t][k]);
                    snprintf(paths[t][k] + len, sizeof(paths[t][k]) - len, "%s%s", d ? ";" : "", name);
                }
                stacks[t][k] = s;
            }
        /* expected self per scope (0: merged, 1 + t) and distinct path */
        char (*keys)[64] = calloc(THREADS * STACKS, 64);
        int64_t (*want)[1 + THREADS][2] = calloc(THREADS * STACKS, sizeof(*want));
        uint32_t *row_path = calloc(ROWS, sizeof(uint32_t));
        size_t n_keys = 0;
        assert_true(keys && want && row_path);
        for (int r = 0; r < ROWS; r++) {
            uint32_t t = rnd(THREADS), k = rnd(STACKS), st = t;
            if (variant == 4 && r == ROWS / 2)
                st = (t + 1) % THREADS; /* on another thread's stack */
            int64_t v[2] = { 1 + rnd(100), rnd(1000) };
            if (variant == 2 && t == 1 && rnd(4) == 0)
                v[0] = INT64_MAX / 3; /* thread 1's sums saturate */
            if (rnd(7) == 0)
                v[0] = -v[0];
            if (variant == 3 && rnd(8) == 0)
                v[0] = INT64_MAX / 200; /* each thread's within int64, all of them not */
            uint32_t key = 0;
            while (key < n_keys && strcmp(keys[key], paths[st][k]) != 0)
                key++;
            if (key == n_keys)
                snprintf(keys[n_keys++], 64, "%s", paths[st][k]);
            row_path[r] = key;
            for (size_t x = 0; x < nv; x++) {
                sat_add(&want[key][0][x], v[x]);
                sat_add(&want[key][1 + t][x], v[x]);
            }
            assert_int_equal(pk_sample_add_timed(p, stacks[st][k], t, 1000 + r, v), 0);
        }
        profkit_flame_options o;
        profkit_flame_options_init(&o);
        o.min_percent = 0;
        o.max_nodes = 0;
        flame_data d;
        profkit_error err;
        assert_int_equal(pk_flame_build(&d, p, &o, 0, &err), 0);
        assert_int_equal(d.n_scopes, 1 + THREADS);
        for (size_t sc = 0; sc < d.n_scopes; sc++) {
            const flame_scope *s = &d.scopes[sc];
            size_t col = s->merged ? 0 : 1 + s->thread, seen = 0;
            assert_true(s->merged == (sc == 0));
            for (uint32_t i = 1; i < s->n; i++) {
                char path[256];
                node_path(&d, s, i, path, sizeof(path));
                uint32_t key = 0;
                while (key < n_keys && strcmp(keys[key], path) != 0)
                    key++;
                for (size_t x = 0; x < nv; x++)
                    assert_int_equal(s->self[x * s->n + i], key < n_keys ? want[key][col][x] : 0);
                seen += key < n_keys;
            }
            for (uint32_t key = 0; key < n_keys; key++) /* each path with a value is a node */
                seen -= want[key][col][0] != 0 || (nv == 2 && want[key][col][1] != 0);
            assert_true((ssize_t)seen >= 0);
            for (size_t i = 0; i < s->n_samp && !s->merged; i++) {
                char path[256];
                node_path(&d, s, s->samp_node[i], path, sizeof(path));
                assert_string_equal(path, keys[row_path[s->samp_row[i]]]);
            }
            if (!s->merged)
                assert_true(s->n_samp > 0);
        }
        pk_flame_data_free(&d);
        free(keys);
        free(want);
        free(row_path);
        profkit_profile_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(totals_kept_under_every_cap),
        cmocka_unit_test(deep_stack_and_runs),
        cmocka_unit_test(extreme_times),
        cmocka_unit_test(saturated_sums_keep_self),
        cmocka_unit_test(one_thread_copies_merged),
        cmocka_unit_test(diff_columns),
        cmocka_unit_test(stack_table_out_of_order_is_refused),
        cmocka_unit_test(escapes),
        cmocka_unit_test(page_in_memory_and_on_disk),
        cmocka_unit_test(timeline_columns_and_byte_budget),
        cmocka_unit_test(per_stack_sums_are_the_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
