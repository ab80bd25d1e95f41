/*
 * test_transform.c: the stack of transforms (analysis/transform.c) on small
 * hand-built profiles, each checked as the folded stacks it leaves: merge,
 * merge-node, root-at, focus-subtree, collapse-recursion and its direct
 * form, collapse-module, the filters as a step, the order of steps, the
 * errors, the whole profile's total kept for percentages, and recursion
 * 100,000 deep with a sample at every level (linear, or this never ends).
 */
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

/* A frame of function `name`, in module `mod` when the name is "mod:name". */
static uint32_t frame_of(profkit_profile *p, const char *tok)
{
    char mod[64] = "";
    const char *colon = strchr(tok, ':');
    if (colon) {
        snprintf(mod, sizeof(mod), "%.*s", (int)(colon - tok), tok);
        tok = colon + 1;
    }
    profkit_frame f;
    memset(&f, 0, sizeof(f));
    f.function = pk_function_add_named(p, tok, "f.c", mod, 0);
    f.mapping = PROFKIT_NONE;
    return pk_frame_add(p, &f);
}

static profkit_profile *new_profile(void)
{
    profkit_profile *p = profkit_profile_new();
    pk_value_type_add(p, "samples", "count");
    pk_thread_add(p, "main", "", -1, -1);
    return p;
}

/* Adds "a;b;c N" lines (root first). */
static profkit_profile *profile_of(const char *const *lines)
{
    profkit_profile *p = new_profile();
    for (size_t i = 0; lines[i]; i++) {
        char buf[512];
        snprintf(buf, sizeof(buf), "%s", lines[i]);
        char *sp = strrchr(buf, ' ');
        assert_non_null(sp);
        *sp = 0;
        int64_t v = atoll(sp + 1);
        uint32_t s = 0;
        for (char *tok = strtok(buf, ";"); tok; tok = strtok(NULL, ";"))
            s = pk_stack_intern(p, s, frame_of(p, tok));
        assert_int_equal(pk_sample_add(p, s, 0, &v), 0);
    }
    return p;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The stack of row r as "a;b;c" into buf. */
static void stack_text(const profkit_profile *p, size_t r, char *buf, size_t cap)
{
    uint32_t fr[256];
    size_t d = 0, len = 0;
    for (uint32_t c = p->sample_stack[r]; c != 0 && d < 256; c = p->stacks[c].parent)
        fr[d++] = p->stacks[c].frame;
    buf[0] = 0;
    while (d-- > 0) {
        char label[256];
        pk_frame_label(p, fr[d], 0, label, sizeof(label));
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ";" : "", label);
    }
}

/* The samples as sorted folded lines "a;b N", equal stacks summed, joined
 * by '|' (a quadratic sum: these profiles have few distinct stacks). */
static char *folded(const profkit_profile *p)
{
    size_t n = p->n_samples, nk = 0, at = 0;
    char **keys = calloc(n ? n : 1, sizeof(char *));
    int64_t *vals = calloc(n ? n : 1, sizeof(int64_t));
    for (size_t r = 0; r < n; r++) {
        char stack[4096];
        stack_text(p, r, stack, sizeof(stack));
        size_t k = 0;
        while (k < nk && strcmp(keys[k], stack) != 0)
            k++;
        if (k == nk)
            keys[nk++] = strdup(stack);
        vals[k] += p->sample_values[r * p->n_value_types];
    }
    char **lines = calloc(nk ? nk : 1, sizeof(char *));
    for (size_t k = 0; k < nk; k++) {
        lines[k] = malloc(strlen(keys[k]) + 32);
        sprintf(lines[k], "%s %lld", keys[k], (long long)vals[k]);
        free(keys[k]);
    }
    qsort(lines, nk, sizeof(char *), cmp_str);
    char *out = calloc(1, 65536);
    for (size_t k = 0; k < nk; k++) {
        at += (size_t)snprintf(out + at, 65536 - at, "%s%s", k ? "|" : "", lines[k]);
        free(lines[k]);
    }
    free(lines);
    free(keys);
    free(vals);
    return out;
}

/* Applies one step (kind, arg) to the profile of `lines` and checks the folded result. */
static void check1(const char *const *lines, profkit_transform_kind kind, const char *arg,
                   const char *want)
{
    profkit_profile *p = profile_of(lines);
    profkit_transform t = { kind, arg, NULL };
    profkit_error err;
    assert_int_equal(profkit_profile_transform(p, &t, 1, &err), 0);
    char *got = folded(p);
    assert_string_equal(got, want);
    free(got);
    profkit_profile_free(p);
}

static void merge_function(void **state)
{
    (void)state;
    const char *const in[] = { "main;a;b 1", "main;b 2", "main;a 4", "a 8", NULL };
    /* a's own time goes to its caller; a root-only a is left with no frame */
    check1(in, PROFKIT_TRANSFORM_MERGE, "^a$", " 8|main 4|main;b 3");
    /* a regular expression: every function it matches */
    check1(in, PROFKIT_TRANSFORM_MERGE, "^(a|b)$", " 8|main 7");
}

static void merge_node(void **state)
{
    (void)state;
    const char *const in[] = { "main;a;b 1", "x;a;b 2", "main;a 4", "main;a;a 16", NULL };
    /* only the node main;a: x;a stays, and main;a;a hangs from main */
    check1(in, PROFKIT_TRANSFORM_MERGE_NODE, "main;a", "main 4|main;a 16|main;b 1|x;a;b 2");
    check1(in, PROFKIT_TRANSFORM_MERGE_NODE, "nothing;here", "main;a 4|main;a;a 16|main;a;b 1|x;a;b 2");
}

static void root_at(void **state)
{
    (void)state;
    const char *const in[] = { "main;a;b;a;c 1", "x;a 2", "main;c 4", "main;y;a;b 8", NULL };
    /* re-rooted at the outermost a, call sites combined; main;c is dropped */
    check1(in, PROFKIT_TRANSFORM_ROOT_AT, "^a$", "a 2|a;b 8|a;b;a;c 1");
}

static void focus_subtree(void **state)
{
    (void)state;
    const char *const in[] = { "main;a;b 1", "main;a 2", "x;a;b 4", "main 8", "main;b;a 16", NULL };
    check1(in, PROFKIT_TRANSFORM_FOCUS_SUBTREE, "main;a", "a 2|a;b 1");
    /* a path naming one function twice */
    const char *const rep[] = { "a;a;a 1", "a;a 2", "a 4", NULL };
    check1(rep, PROFKIT_TRANSFORM_FOCUS_SUBTREE, "a;a", "a 2|a;a 1");
}

static void collapse_recursion(void **state)
{
    (void)state;
    const char *const in[] = { "main;f;g;f;h 1", "main;f;f;f 2", "main;f;g 4", "main;g;f;g;f 8", NULL };
    /* every inner f becomes the outermost f, through other frames too */
    check1(in, PROFKIT_TRANSFORM_COLLAPSE_RECURSION, "^f$", "main;f 2|main;f;g 4|main;f;h 1|main;g;f 8");
    /* two functions, each collapsed to its own outermost call */
    check1(in, PROFKIT_TRANSFORM_COLLAPSE_RECURSION, "^(f|g)$",
           "main;f 2|main;f;g 4|main;f;h 1|main;g;f 8");
    /* direct recursion only: f;g;f stays */
    check1(in, PROFKIT_TRANSFORM_COLLAPSE_DIRECT_RECURSION, "^f$",
           "main;f 2|main;f;g 4|main;f;g;f;h 1|main;g;f;g;f 8");
}

static void collapse_module(void **state)
{
    (void)state;
    const char *const in[] = { "app:main;libx.so:x1;libx.so:x2;app:cb;libx.so:x3 1", "app:main;libx.so:x2 2",
                               "app:main;liby.so:y 4", NULL };
    check1(in, PROFKIT_TRANSFORM_COLLAPSE_MODULE, "libx",
           "main;libx.so 2|main;libx.so;cb;libx.so 1|main;y 4");
    check1(in, PROFKIT_TRANSFORM_COLLAPSE_MODULE, "^lib",
           "main;libx.so 2|main;libx.so;cb;libx.so 1|main;liby.so 4");
}

/* Steps apply in order: a path names the tree the steps before left. */
static void order_and_filters(void **state)
{
    (void)state;
    const char *const in[] = { "main;a;b 1", "main;c 2", NULL };
    profkit_profile *p = profile_of(in);
    profkit_transform s1[] = { { PROFKIT_TRANSFORM_MERGE, "^a$", NULL },
                               { PROFKIT_TRANSFORM_MERGE_NODE, "main;b", NULL } };
    profkit_error err;
    assert_int_equal(profkit_profile_transform(p, s1, 2, &err), 0);
    char *got = folded(p);
    assert_string_equal(got, "main 1|main;c 2");
    free(got);
    profkit_profile_free(p);

    p = profile_of(in);
    profkit_transform s2[] = { { PROFKIT_TRANSFORM_MERGE_NODE, "main;b", NULL },
                               { PROFKIT_TRANSFORM_MERGE, "^a$", NULL } };
    assert_int_equal(profkit_profile_transform(p, s2, 2, &err), 0);
    got = folded(p);
    assert_string_equal(got, "main;b 1|main;c 2");
    free(got);
    /* the whole profile's total stays what percentages are of */
    int64_t w = 0;
    assert_int_equal(profkit_profile_whole_total(p, 0, PROFKIT_NONE, &w), 1);
    assert_int_equal(w, 3);
    profkit_profile_free(p);

    /* pprof's filters as one step: focus then a merge of what it kept */
    p = profile_of(in);
    profkit_filter_options fo;
    memset(&fo, 0, sizeof(fo));
    fo.focus = "^b$";
    profkit_transform s3[] = { { PROFKIT_TRANSFORM_FILTER, NULL, &fo },
                               { PROFKIT_TRANSFORM_MERGE, "^main$", NULL } };
    assert_int_equal(profkit_profile_transform(p, s3, 2, &err), 0);
    got = folded(p);
    assert_string_equal(got, "a;b 1");
    free(got);
    assert_int_equal(profkit_profile_whole_total(p, 0, PROFKIT_NONE, &w), 1);
    assert_int_equal(w, 3);
    assert_int_equal(profkit_profile_whole_total(p, 0, 0, &w), 1);
    assert_int_equal(w, 3);
    profkit_profile_free(p);

    /* never transformed: no whole total apart from the rows' */
    p = profile_of(in);
    assert_int_equal(profkit_profile_whole_total(p, 0, PROFKIT_NONE, &w), 0);
    profkit_profile_free(p);
}

/* Timed rows are rewritten in place: order and times kept, dropped rows gone. */
static void timed_rows(void **state)
{
    (void)state;
    profkit_profile *p = new_profile();
    const char *const specs[] = { "main;a", "main;b", "main;a;c", "main;a" };
    for (int i = 0; i < 4; i++) {
        char buf[64];
        snprintf(buf, sizeof(buf), "%s", specs[i]);
        uint32_t s = 0;
        for (char *tok = strtok(buf, ";"); tok; tok = strtok(NULL, ";"))
            s = pk_stack_intern(p, s, frame_of(p, tok));
        int64_t v = 1 << i;
        assert_int_equal(pk_sample_add_timed(p, s, 0, 100 + i, &v), 0);
    }
    profkit_transform t = { PROFKIT_TRANSFORM_ROOT_AT, "^a$", NULL };
    profkit_error err;
    assert_int_equal(profkit_profile_transform(p, &t, 1, &err), 0);
    assert_int_equal(p->n_samples, 3);
    assert_int_equal(p->sample_time[0], 100);
    assert_int_equal(p->sample_time[1], 102);
    assert_int_equal(p->sample_time[2], 103);
    assert_int_equal(p->sample_values[1], 4);
    char *got = folded(p);
    assert_string_equal(got, "a 9|a;c 4");
    free(got);
    profkit_profile_free(p);
}

static void errors(void **state)
{
    (void)state;
    const char *const in[] = { "main;a 1", NULL };
    profkit_profile *p = profile_of(in);
    profkit_error err;
    profkit_transform bad_re = { PROFKIT_TRANSFORM_MERGE, "(", NULL };
    assert_int_equal(profkit_profile_transform(p, &bad_re, 1, &err), PROFKIT_EINVAL);
    assert_non_null(strstr(err.message, "profkit_transform.merge: bad regular expression '('"));
    profkit_transform empty = { PROFKIT_TRANSFORM_MERGE_NODE, "main;;a", NULL };
    assert_int_equal(profkit_profile_transform(p, &empty, 1, &err), PROFKIT_EINVAL);
    assert_non_null(strstr(err.message, "empty function name in call path 'main;;a'"));
    profkit_transform cat = { PROFKIT_TRANSFORM_FOCUS_CATEGORY, "JavaScript", NULL };
    assert_int_equal(profkit_profile_transform(p, &cat, 1, &err), PROFKIT_EINVAL);
    assert_non_null(strstr(err.message, "no frame categories in this profile"));
    /* the profile is as it was */
    char *got = folded(p);
    assert_string_equal(got, "main;a 1");
    free(got);
    profkit_profile_free(p);
    assert_string_equal(profkit_transform_name(PROFKIT_TRANSFORM_COLLAPSE_DIRECT_RECURSION),
                        "collapse-direct-recursion");
    assert_int_equal(profkit_transform_kind_of("root-at"), PROFKIT_TRANSFORM_ROOT_AT);
    assert_int_equal(profkit_transform_kind_of("nope"), -1);
    assert_null(profkit_transform_name(PROFKIT_TRANSFORM_N));
}

/*
 * main;f;g;f;g;...;leaf, DEPTH frames of f and g alternating, with a sample
 * at every level: collapse-recursion leaves main;f;g (all but main's
 * samples), direct recursion changes nothing, and merge of both leaves
 * main. A step that walked each stack whole would take DEPTH^2 / 2 steps.
 */
#define DEPTH 100000
static void deep_recursion_linear(void **state)
{
    (void)state;
    for (int which = 0; which < 3; which++) {
        profkit_profile *p = new_profile();
        uint32_t f = frame_of(p, "f"), g = frame_of(p, "g");
        int64_t one = 1;
        uint32_t s = pk_stack_intern(p, 0, frame_of(p, "main"));
        assert_int_equal(pk_sample_add(p, s, 0, &one), 0);
        for (int i = 0; i < DEPTH; i++) {
            s = pk_stack_intern(p, s, i % 2 ? g : f);
            assert_int_equal(pk_sample_add(p, s, 0, &one), 0);
        }
        profkit_transform t[] = { { PROFKIT_TRANSFORM_COLLAPSE_RECURSION, "^(f|g)$", NULL },
                                  { PROFKIT_TRANSFORM_COLLAPSE_DIRECT_RECURSION, "^(f|g)$", NULL },
                                  { PROFKIT_TRANSFORM_MERGE, "^(f|g)$", NULL } };
        profkit_error err;
        assert_int_equal(profkit_profile_transform(p, &t[which], 1, &err), 0);
        if (which == 1) {
            assert_int_equal(p->n_samples, DEPTH + 1);
        } else {
            char *got = folded(p);
            assert_string_equal(got, which == 0 ? "main 1|main;f 50000|main;f;g 50000" : "main 100001");
            free(got);
        }
        profkit_profile_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(merge_function),
        cmocka_unit_test(merge_node),
        cmocka_unit_test(root_at),
        cmocka_unit_test(focus_subtree),
        cmocka_unit_test(collapse_recursion),
        cmocka_unit_test(collapse_module),
        cmocka_unit_test(order_and_filters),
        cmocka_unit_test(timed_rows),
        cmocka_unit_test(errors),
        cmocka_unit_test(deep_recursion_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
