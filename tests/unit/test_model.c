/* test_model.c: stack interning, samples, value types, merge, top, labels (the call tree: test_ltree.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "model/model.h"

static uint32_t frame_named(profkit_profile *p, const char *name, uint64_t addr)
{
    profkit_frame f;
    memset(&f, 0, sizeof(f));
    f.function = pk_function_add_named(p, name, "f.c", "", 0);
    f.address = addr;
    f.mapping = PROFKIT_NONE;
    return pk_frame_add(p, &f);
}

/* Adds a stack given as "a;b;c" (root first) with one value. */
static uint32_t add_stack(profkit_profile *p, const char *spec, uint32_t thread, int64_t v)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", spec);
    uint32_t s = 0;
    for (char *tok = strtok(buf, ";"); tok; tok = strtok(NULL, ";"))
        s = pk_stack_intern(p, s, frame_named(p, tok, 0));
    int64_t vals[2] = { v, 2 * v };
    assert_int_equal(pk_sample_add(p, s, thread, vals), 0);
    return s;
}

static void stacks_are_hash_consed(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    uint32_t a = frame_named(p, "a", 0), b = frame_named(p, "b", 0);
    assert_int_equal(frame_named(p, "a", 0), a);
    assert_int_not_equal(frame_named(p, "a", 0x10), a); /* other address: other frame */
    uint32_t sa = pk_stack_intern(p, 0, a);
    uint32_t sab = pk_stack_intern(p, sa, b);
    assert_int_equal(pk_stack_intern(p, 0, a), sa);
    assert_int_equal(pk_stack_intern(p, sa, b), sab);
    uint32_t fr[2] = { a, b };
    assert_int_equal(pk_stack_intern_frames(p, fr, 2), sab);
    assert_int_not_equal(pk_stack_intern(p, 0, b), sab);
    assert_int_equal(pk_stack_depth(p, sab), 2);
    assert_int_equal(pk_stack_depth(p, 0), 0);
    size_t n;
    const profkit_stack *st = profkit_profile_stacks(p, &n);
    assert_int_equal(n, 4); /* root, a, a;b, b */
    assert_int_equal(st[sab].parent, sa);
    assert_int_equal(st[0].frame, PROFKIT_NONE);
    profkit_profile_free(p);
}

/* Appended rows skip the lookup; the indexes catch up on the next lookup,
 * so interning an appended row returns it instead of a duplicate. */
static void appended_rows_are_found_later(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    uint32_t vt = pk_value_type_add(p, "samples", "count");
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    uint32_t a = frame_named(p, "a", 0), b = frame_named(p, "b", 0);
    uint32_t sa = pk_stack_append(p, 0, a);
    uint32_t sab = pk_stack_append(p, sa, b);
    assert_int_equal(sa, 1);
    assert_int_equal(sab, 2);
    int64_t one = 1, two = 2;
    assert_int_equal(pk_sample_append(p, sab, t, &one), 0);
    assert_int_equal(pk_sample_add_timed(p, sab, t, 10, &one), 0);
    /* Lookups find the appended rows. */
    assert_int_equal(pk_stack_intern(p, 0, a), sa);
    assert_int_equal(pk_stack_intern(p, sa, b), sab);
    assert_int_equal(pk_sample_add(p, sab, t, &two), 0);
    assert_int_equal(p->n_samples, 2); /* added to the appended row, not a new one */
    assert_int_equal(p->sample_values[0 * 1 + vt], 3);
    assert_int_equal(p->sample_values[1 * 1 + vt], 1); /* the timed row is never merged */
    /* Appending after lookups, then looking up again. */
    uint32_t sb = pk_stack_append(p, 0, b);
    assert_int_equal(sb, 3);
    assert_int_equal(pk_stack_intern(p, 0, b), sb);
    assert_int_equal(pk_stack_intern(p, sb, a), 4); /* a new node */
    assert_int_equal(pk_sample_append(p, sb, t, &one), 0);
    assert_int_equal(pk_sample_add(p, sb, t, &one), 0);
    assert_int_equal(p->n_samples, 3);
    assert_int_equal(p->sample_values[2], 2);
    /* An appended frame is found by the next pk_frame_add. */
    profkit_frame fr = p->frames[a];
    fr.address = 0x1234;
    uint32_t fa = pk_frame_append(p, &fr);
    assert_int_equal(fa, b + 1);
    assert_int_equal(pk_frame_add(p, &fr), fa);
    fr.address = 0x5678;
    assert_int_equal(pk_frame_append(p, &fr), fa + 1);
    assert_int_equal(pk_profile_reindex_frames(p), 0);
    assert_int_equal(pk_frame_add(p, &fr), fa + 1);
    assert_int_equal(p->n_frames, fa + 2);
    profkit_profile_free(p);
}

static void samples_aggregate_and_relayout(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    uint32_t v0 = pk_value_type_add(p, "samples", "count");
    assert_int_equal(pk_value_type_add(p, "cpu", "nanoseconds"), 1);
    assert_int_equal(pk_value_type_add(p, "samples", "count"), v0);
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    uint32_t s = add_stack(p, "main;work", t, 3);
    add_stack(p, "main;work", t, 4);
    add_stack(p, "main", t, 1);
    assert_int_equal(p->n_samples, 2);
    assert_int_equal(p->sample_values[0], 7);
    assert_int_equal(p->sample_values[1], 14);
    /* A timed row is appended, never merged. */
    int64_t vals[2] = { 1, 1 };
    assert_int_equal(pk_sample_add_timed(p, s, t, 5000, vals), 0);
    assert_int_equal(p->n_samples, 3);
    assert_true(pk_profile_is_timed(p));
    /* A new value type after samples: existing rows keep theirs, new = 0. */
    uint32_t v2 = pk_value_type_add(p, "wall", "microseconds");
    assert_int_equal(v2, 2);
    assert_int_equal(p->sample_values[0 * 3 + 0], 7);
    assert_int_equal(p->sample_values[0 * 3 + 1], 14);
    assert_int_equal(p->sample_values[0 * 3 + 2], 0);
    assert_int_equal(p->sample_values[2 * 3 + 1], 1);
    assert_int_equal(profkit_profile_find_value(p, "cpu"), 1);
    assert_int_equal(profkit_profile_find_value(p, "cpu/nanoseconds"), 1);
    assert_int_equal(profkit_profile_find_value(p, "cpu/bytes"), PROFKIT_NONE);
    profkit_error err;
    assert_int_equal(pk_select_value(p, "nope", &err), PROFKIT_NONE);
    assert_int_equal(err.code, PROFKIT_EINVAL);
    assert_non_null(strstr(err.message, "samples, cpu, wall"));
    int ok;
    assert_int_equal(pk_select_thread(p, "main", &ok, &err), 0);
    assert_true(ok);
    assert_int_equal(pk_select_thread(p, "0", &ok, &err), 0);
    assert_true(ok);
    pk_select_thread(p, "7", &ok, &err);
    assert_false(ok);
    assert_int_equal(pk_select_thread(p, NULL, &ok, &err), PROFKIT_NONE);
    assert_true(ok);
    profkit_profile_free(p);
}

static void merge_remaps_everything(void **state)
{
    (void)state;
    profkit_profile *a = profkit_profile_new(), *b = profkit_profile_new();
    pk_value_type_add(a, "samples", "count");
    pk_value_type_add(a, "cpu", "nanoseconds");
    pk_value_type_add(b, "cpu", "nanoseconds");
    pk_value_type_add(b, "samples", "count");
    uint32_t ta = pk_thread_add(a, "main", "", -1, -1);
    uint32_t tb = pk_thread_add(b, "main", "", -1, -1);
    uint32_t tb2 = pk_thread_add(b, "worker", "", -1, -1);
    add_stack(a, "main;x;y", ta, 5);      /* samples 5, cpu 10 */
    add_stack(b, "other;main;x;y", tb, 1); /* cpu 1, samples 2 */
    add_stack(b, "main;x;y", tb, 3);       /* cpu 3, samples 6: merges with a's row */
    add_stack(b, "main", tb2, 4);
    pk_meta_add(b, "k", "v");
    profkit_error err;
    assert_int_equal(profkit_profile_merge(a, b, &err), 0);
    assert_int_equal(a->n_threads, 2);
    assert_int_equal(a->n_value_types, 2);
    assert_int_equal(a->n_samples, 3);
    /* Find the main;x;y row of thread main. */
    int found = 0;
    for (size_t r = 0; r < a->n_samples; r++) {
        if (a->sample_thread[r] == 0 && pk_stack_depth(a, a->sample_stack[r]) == 3) {
            assert_int_equal(a->sample_values[r * 2 + 0], 5 + 6);  /* samples */
            assert_int_equal(a->sample_values[r * 2 + 1], 10 + 3); /* cpu */
            found = 1;
        }
    }
    assert_true(found);
    assert_string_equal(pk_meta_get(a, "k"), "v");
    /* Merging a profile with itself doubles every value. */
    profkit_profile *c = profkit_profile_new();
    assert_int_equal(profkit_profile_merge(c, a, &err), 0);
    assert_int_equal(profkit_profile_merge(c, a, &err), 0);
    assert_int_equal(c->n_samples, a->n_samples);
    for (size_t r = 0; r < c->n_samples * 2; r++)
        assert_int_equal(c->sample_values[r], 2 * a->sample_values[r]);
    profkit_profile_free(a);
    profkit_profile_free(b);
    profkit_profile_free(c);
}

static int64_t row_of(const pk_top *t, const char *key, int cum)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(pk_strtab_get(&t->keys, t->rows[i].key), key) == 0)
            return cum ? t->rows[i].cum : t->rows[i].flat;
    return -1;
}

/* Selecting the first rows gives exactly the full sort's first rows, ties
 * (broken by label) included, and keeps every row in the order array. */
static void top_sort_first_matches_full_sort(void **state)
{
    (void)state;
    enum { N = 2000 };
    pk_top t;
    memset(&t, 0, sizeof(t));
    assert_int_equal(pk_strtab_init(&t.keys), 0);
    t.rows = calloc(N, sizeof(*t.rows));
    assert_non_null(t.rows);
    t.n = 1; /* key 0 is "", as in pk_top_compute */
    uint32_t x = 7;
    for (size_t i = 0; i < N; i++) {
        char name[32];
        x = x * 1103515245u + 12345u;
        int len = snprintf(name, sizeof(name), "f%u", (x >> 8) % 100000);
        uint32_t k = pk_strtab_intern(&t.keys, name, (size_t)len);
        if (k != t.n) /* a repeated name: skip it */
            continue;
        t.rows[t.n].key = k;
        t.rows[t.n].flat = (int64_t)((x >> 20) % 7) - 1; /* many ties, some negative */
        t.rows[t.n].cum = t.rows[t.n].flat + (int64_t)((x >> 4) % 3);
        t.n++;
    }
    assert_true(t.n > 1000);
    uint32_t *full = malloc(t.n * sizeof(uint32_t)), *part = malloc(t.n * sizeof(uint32_t));
    assert_non_null(full);
    assert_non_null(part);
    size_t firsts[] = { 0, 1, 5, 37, 200, t.n };
    for (int by_cum = 0; by_cum < 2; by_cum++) {
        assert_int_equal(pk_top_sort(&t, full, by_cum), 0);
        for (size_t f = 0; f < sizeof(firsts) / sizeof(firsts[0]); f++) {
            assert_int_equal(pk_top_sort_first(&t, part, by_cum, firsts[f]), 0);
            assert_memory_equal(part, full, firsts[f] * sizeof(uint32_t));
            char *seen = calloc(t.n, 1);
            for (size_t i = 0; i < t.n; i++) {
                assert_true(part[i] < t.n);
                assert_false(seen[part[i]]);
                seen[part[i]] = 1;
            }
            free(seen);
        }
    }
    free(full);
    free(part);
    free(t.rows);
    t.rows = NULL;
    pk_strtab_free(&t.keys);
}

static void top_counts_recursion_once(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    pk_value_type_add(p, "samples", "count");
    pk_value_type_add(p, "double", "count");
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    uint32_t t2 = pk_thread_add(p, "other", "", -1, -1);
    add_stack(p, "main;f;f;f", t, 10);
    add_stack(p, "main;f;g", t, 5);
    add_stack(p, "main", t, 1);
    add_stack(p, "main;g", t2, 100);
    pk_top top;
    profkit_error err;
    assert_int_equal(pk_top_compute(&top, p, 0, t, PROFKIT_BY_FUNCTION, &err), 0);
    assert_int_equal(top.total, 16);
    assert_int_equal(row_of(&top, "f", 0), 10);
    assert_int_equal(row_of(&top, "f", 1), 15); /* not 35: recursion once */
    assert_int_equal(row_of(&top, "g", 0), 5);
    assert_int_equal(row_of(&top, "main", 1), 16);
    assert_int_equal(row_of(&top, "main", 0), 1);
    uint32_t order[16];
    assert_true(top.n <= 16);
    assert_int_equal(pk_top_sort(&top, order, 1), 0);
    assert_string_equal(pk_strtab_get(&top.keys, top.rows[order[0]].key), "main");
    pk_top_free(&top);
    /* All threads, second value type. */
    assert_int_equal(pk_top_compute(&top, p, 1, PROFKIT_NONE, PROFKIT_BY_FILE, &err), 0);
    assert_int_equal(top.total, 2 * 116);
    assert_int_equal(row_of(&top, "f.c", 1), 2 * 116);
    pk_top_free(&top);
    profkit_profile_free(p);
}

static void labels_and_units(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    profkit_frame f;
    memset(&f, 0, sizeof(f));
    f.function = pk_function_add_named(p, "", "", "", 0);
    f.address = 0x4005d0;
    f.mapping = PROFKIT_NONE;
    uint32_t a = pk_frame_add(p, &f);
    char buf[64];
    pk_frame_label(p, a, 0, buf, sizeof(buf));
    assert_string_equal(buf, "0x4005d0");
    f.function = pk_function_add_named(p, "fn", "x.brs", "", 3);
    f.line = 12;
    f.column = 2;
    uint32_t b = pk_frame_add(p, &f);
    pk_frame_label(p, b, 1, buf, sizeof(buf));
    assert_string_equal(buf, "fn:12:2");
    pk_frame_key_label(p, b, PROFKIT_BY_LINE, buf, sizeof(buf));
    assert_string_equal(buf, "x.brs:12:2");
    pk_frame_key_label(p, b, PROFKIT_BY_ADDRESS, buf, sizeof(buf));
    assert_string_equal(buf, "0x4005d0");
    /* A tiny buffer truncates safely. */
    assert_int_equal(pk_frame_label(p, b, 1, buf, 3), 2);
    assert_string_equal(buf, "fn");
    pk_format_value(buf, sizeof(buf), 7120000000LL, "nanoseconds");
    assert_string_equal(buf, "7.12s");
    pk_format_value(buf, sizeof(buf), 341000000LL, "nanoseconds");
    assert_string_equal(buf, "341ms");
    pk_format_value(buf, sizeof(buf), 1500, "microseconds");
    assert_string_equal(buf, "1.50ms");
    pk_format_value(buf, sizeof(buf), 3 * 1048576LL, "bytes");
    assert_string_equal(buf, "3MB");
    pk_format_value(buf, sizeof(buf), 42, "count");
    assert_string_equal(buf, "42");
    profkit_profile_free(p);
}

/* Frame categories: a stack's category is its frame's, else its caller's,
 * else the default (first grey) one; a merge maps them by name. */
static void categories_of_stacks_and_merge(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    uint32_t subs[2] = { profkit_string_intern_cstr(p, "Other"), profkit_string_intern_cstr(p, "GC") };
    assert_int_equal(pk_category_add(p, profkit_string_intern_cstr(p, "Idle"),
                                     profkit_string_intern_cstr(p, "transparent"), subs, 1), 0);
    assert_int_equal(pk_category_add(p, profkit_string_intern_cstr(p, "Other"),
                                     profkit_string_intern_cstr(p, "grey"), subs, 1), 1);
    assert_int_equal(pk_category_add(p, profkit_string_intern_cstr(p, "JavaScript"),
                                     profkit_string_intern_cstr(p, "yellow"), subs, 2), 2);
    assert_int_equal(pk_default_category(p), 2);
    profkit_frame f;
    memset(&f, 0, sizeof(f));
    f.mapping = PROFKIT_NONE;
    f.function = pk_function_add_named(p, "main", "", "", 0);
    uint32_t plain = pk_frame_add(p, &f);
    f.function = pk_function_add_named(p, "js", "", "", 0);
    f.category = 3;
    f.subcategory = 1;
    f.flags = PROFKIT_FRAME_JS;
    uint32_t js = pk_frame_add(p, &f);
    /* the same function in another category is another frame */
    f.category = 1;
    f.subcategory = 0;
    f.flags = 0;
    assert_int_not_equal(pk_frame_add(p, &f), js);
    uint32_t s1 = pk_stack_intern(p, 0, plain);
    uint32_t s2 = pk_stack_intern(p, s1, js);
    uint32_t s3 = pk_stack_intern(p, s2, plain);
    uint16_t cat[8];
    assert_int_equal(profkit_profile_stack_categories(p, cat), 0);
    assert_int_equal(cat[0], 2);
    assert_int_equal(cat[s1], 2);
    assert_int_equal(cat[s2], 3);
    assert_int_equal(cat[s3], 3);
    assert_int_equal(profkit_profile_category_find(p, "JavaScript"), 2);
    assert_int_equal(profkit_profile_category_find(p, "Paint"), PROFKIT_NONE);

    /* dst has "JavaScript" at another index and no "Idle" */
    profkit_profile *d = profkit_profile_new();
    assert_int_equal(pk_category_add(d, profkit_string_intern_cstr(d, "JavaScript"),
                                     profkit_string_intern_cstr(d, "yellow"), NULL, 0), 0);
    profkit_error err;
    assert_int_equal(profkit_profile_merge(d, p, &err), 0);
    size_t n = 0, ns = 0;
    const profkit_category *c = profkit_profile_categories(d, &n);
    const uint32_t *sc = profkit_profile_subcategories(d, &ns);
    assert_int_equal(n, 3);
    assert_string_equal(profkit_string(d, c[1].name), "Idle");
    assert_string_equal(profkit_string(d, c[2].name), "Other");
    assert_string_equal(profkit_string(d, c[2].color), "grey");
    assert_int_equal(c[2].n_subcategories, 1);
    assert_string_equal(profkit_string(d, sc[c[2].first_subcategory]), "Other");
    size_t nf = 0;
    const profkit_frame *fr = profkit_profile_frames(d, &nf);
    int seen_js = 0, seen_idle = 0;
    for (size_t i = 0; i < nf; i++) {
        const char *name = profkit_string(d, profkit_profile_functions(d, &n)[fr[i].function].name);
        if (strcmp(name, "js") == 0 && fr[i].category == 1) {
            seen_js = 1;
            assert_int_equal(fr[i].subcategory, 1);
            assert_int_equal(fr[i].flags, PROFKIT_FRAME_JS);
        }
        if (strcmp(name, "js") == 0 && fr[i].category == 2)
            seen_idle = 1;
    }
    assert_true(seen_js && seen_idle);
    profkit_profile_free(d);
    profkit_profile_free(p);
}

/* pk_profile_compact drops the frames and functions no stack uses and
 * renumbers the rest; its indexes are left to the next lookup, which must
 * find every kept row (not make it again) and make new ones after them. */
static void compact_then_lookups_find_kept_rows(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    uint32_t unused = frame_named(p, "unused", 0);
    uint32_t a = frame_named(p, "a", 0), b = frame_named(p, "b", 0);
    assert_int_equal(unused, 0);
    uint32_t sa = pk_stack_intern(p, 0, a), sab = pk_stack_intern(p, sa, b);
    assert_int_equal(pk_profile_compact(p), 0);
    /* no index is built until something looks a row up (a report never does) */
    assert_int_equal(p->function_set.count, 0);
    assert_int_equal(p->frame_set.count, 0);
    assert_int_equal(p->stack_set.count, 0);
    assert_int_equal(p->n_frames, 2);
    assert_int_equal(p->n_functions, 2);
    uint32_t fa = p->stacks[sa].frame, fb = p->stacks[sab].frame;
    assert_int_equal(fa, 0);
    assert_int_equal(fb, 1);
    /* equal rows are found, whichever table is asked first */
    profkit_function fn = p->functions[p->frames[fb].function];
    assert_int_equal(pk_function_add(p, &fn), p->frames[fb].function);
    assert_int_equal(pk_stack_intern(p, sa, fb), sab);
    assert_int_equal(frame_named(p, "a", 0), fa);
    assert_int_equal(pk_stack_intern(p, 0, fa), sa);
    assert_int_equal(p->n_frames, 2);
    assert_int_equal(p->n_functions, 2);
    assert_int_equal(p->n_stacks, 3);
    /* and new ones come after them, found again the next time */
    uint32_t c = frame_named(p, "unused", 0);
    assert_int_equal(c, 2);
    assert_int_equal(p->n_functions, 3);
    uint32_t sabc = pk_stack_intern(p, sab, c);
    assert_int_equal(sabc, 3);
    assert_int_equal(pk_stack_intern(p, sab, c), sabc);
    assert_int_equal(frame_named(p, "unused", 0), c);
    profkit_profile_free(p);
}

/* Many stacks (the index grows past the size mapped from the system), each
 * made once and found again, across appended rows and lookups. */
static void many_stacks_are_found_again(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    enum { N = 400000 };
    uint32_t f[4];
    for (int i = 0; i < 4; i++) {
        char name[8];
        snprintf(name, sizeof name, "f%d", i);
        f[i] = frame_named(p, name, 0);
    }
    /* a 4-ary tree numbered breadth first: node k's parent is (k - 1) / 4 */
    for (uint32_t k = 1; k <= N; k++) {
        uint32_t id = k % 3 ? pk_stack_intern(p, (k - 1) / 4, f[(k - 1) % 4])
                            : pk_stack_append(p, (k - 1) / 4, f[(k - 1) % 4]);
        assert_int_equal(id, k);
    }
    for (uint32_t k = N; k >= 1; k--)
        assert_int_equal(pk_stack_intern(p, (k - 1) / 4, f[(k - 1) % 4]), k);
    assert_int_equal(p->n_stacks, N + 1);
    assert_true(p->stack_set.cap * sizeof(uint64_t) >= ((size_t)2 << 20));
    profkit_profile_free(p);
}

/* An address frame in a mapping whose file is not there, with this name
 * ("" or its "0x..." address: both are to be named). */
static uint32_t frame_at(profkit_profile *p, const char *name, uint64_t addr, uint32_t m)
{
    profkit_frame f;
    memset(&f, 0, sizeof(f));
    f.function = pk_function_add_named(p, name, "", "", 0);
    f.address = addr;
    f.mapping = m;
    return pk_frame_add(p, &f);
}

static void frame_label_is(const profkit_profile *p, uint32_t frame, const char *want)
{
    char buf[256];
    size_t n = pk_frame_label(p, frame, 0, buf, sizeof buf);
    assert_true(n < sizeof buf);
    buf[n] = '\0';
    assert_string_equal(buf, want);
}

/* Symbolization that names nothing (the mapping's file is missing) still
 * labels each address frame FILE+0xOFFSET, drops the stacks nothing uses
 * and the frames no stack uses, and keeps the stacks' order: the stack
 * table is relabeled where it is, as the rebuild did it. */
static void symbolize_naming_nothing_relabels(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    uint32_t m = pk_mapping_add(p, 0x1000, 0x2000, 0x10, "/nonexistent/dir/libfoo.so", "");
    assert_int_not_equal(m, PROFKIT_NONE);
    uint32_t main_f = frame_named(p, "main", 0);
    uint32_t a = frame_at(p, "0x1100", 0x1100, m), b = frame_at(p, "", 0x1200, m);
    uint32_t sm = pk_stack_intern(p, 0, main_f);
    uint32_t sma = pk_stack_intern(p, sm, a);
    uint32_t smb = pk_stack_intern(p, sm, b); /* no sample, no child: dropped */
    uint32_t smab = pk_stack_intern(p, sma, b);
    assert_int_equal(smab, 4);
    (void)smb;
    int64_t v[2] = { 1, 1 };
    assert_int_equal(pk_sample_add(p, sma, 0, v), 0); /* a leaf and a caller */
    v[0] = v[1] = 3;
    assert_int_equal(pk_sample_add(p, smab, 0, v), 0);
    profkit_symbolize_options o;
    memset(&o, 0, sizeof o);
    o.use_mapping_paths = 1;
    profkit_error err;
    assert_int_equal(profkit_profile_symbolize(p, &o, &err), 0);
    /* root, main, main;libfoo.so+0x110, main;libfoo.so+0x110;libfoo.so+0x210 */
    assert_int_equal(p->n_stacks, 4);
    assert_int_equal(p->stacks[1].parent, 0);
    assert_int_equal(p->stacks[2].parent, 1);
    assert_int_equal(p->stacks[3].parent, 2);
    frame_label_is(p, p->stacks[1].frame, "main");
    frame_label_is(p, p->stacks[2].frame, "libfoo.so+0x110");
    frame_label_is(p, p->stacks[3].frame, "libfoo.so+0x210");
    assert_int_equal(p->frames[p->stacks[3].frame].address, 0x1200);
    assert_int_equal(p->n_frames, 3); /* the two unnamed frames went */
    assert_int_equal(p->n_samples, 2);
    assert_int_equal(p->sample_stack[0], 2);
    assert_int_equal(p->sample_stack[1], 3);
    /* the stacks are found again by content */
    assert_int_equal(pk_stack_intern(p, 2, p->stacks[3].frame), 3);
    assert_int_equal(pk_stack_intern(p, 0, p->stacks[1].frame), 1);
    assert_int_equal(p->n_stacks, 4);
    profkit_profile_free(p);
}

/* More address frames than symbolization makes labels for at a time (a
 * block): each still gets its own FILE+0xOFFSET frame, in stack order;
 * two mappings of one file share its name. */
static void symbolize_naming_nothing_labels_many(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    assert_non_null(p);
    uint32_t m0 = pk_mapping_add(p, 0x1000, 0x2000, 0, "/nonexistent/libbar.so", "");
    uint32_t m1 = pk_mapping_add(p, 0x8000, 0x9000, 0x4000, "/nonexistent/libbar.so", "");
    enum { N = 41 };
    uint32_t st = 0;
    for (int i = 0; i < N; i++) {
        uint64_t a = i % 2 ? 0x8000 + 0x10 * (uint64_t)i : 0x1000 + 0x10 * (uint64_t)i;
        char name[32];
        snprintf(name, sizeof name, "0x%llx", (unsigned long long)a);
        st = pk_stack_intern(p, st, frame_at(p, i % 3 ? name : "", a, i % 2 ? m1 : m0));
    }
    int64_t v[2] = { 1, 1 };
    assert_int_equal(pk_sample_add(p, st, 0, v), 0);
    profkit_symbolize_options o;
    memset(&o, 0, sizeof o);
    o.use_mapping_paths = 1;
    profkit_error err;
    assert_int_equal(profkit_profile_symbolize(p, &o, &err), 0);
    assert_int_equal(p->n_stacks, N + 1);
    assert_int_equal(p->n_frames, N);
    for (int i = 0; i < N; i++) {
        char want[64];
        unsigned long long off = i % 2 ? 0x4000 + 0x10ull * (unsigned)i : 0x10ull * (unsigned)i;
        snprintf(want, sizeof want, "libbar.so+0x%llx", off);
        assert_int_equal(p->stacks[i + 1].parent, i);
        frame_label_is(p, p->stacks[i + 1].frame, want);
        assert_int_equal(p->stacks[i + 1].frame, i); /* made in stack order */
    }
    assert_int_equal(p->sample_stack[0], N);
    profkit_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stacks_are_hash_consed),
        cmocka_unit_test(appended_rows_are_found_later),
        cmocka_unit_test(compact_then_lookups_find_kept_rows),
        cmocka_unit_test(many_stacks_are_found_again),
        cmocka_unit_test(symbolize_naming_nothing_relabels),
        cmocka_unit_test(symbolize_naming_nothing_labels_many),
        cmocka_unit_test(samples_aggregate_and_relayout),
        cmocka_unit_test(merge_remaps_everything),
        cmocka_unit_test(top_counts_recursion_once),
        cmocka_unit_test(top_sort_first_matches_full_sort),
        cmocka_unit_test(labels_and_units),
        cmocka_unit_test(categories_of_stacks_and_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
