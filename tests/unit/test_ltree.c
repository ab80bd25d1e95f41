/*
 * test_ltree.c: the call tree (model/ltree.c) and the sums over it
 * (analysis/top.c): keys by label, by line, by function and by name; the
 * merged and unmerged shapes; values per thread and value type; a base
 * mapped onto the same nodes; recursion counted once in cum and in a
 * call's weight, by the walks up and by the depth-first walk alike.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "model/ltree.h"
#include "model/model.h"

static uint32_t frame_at(profkit_profile *p, const char *name, const char *file, uint64_t addr,
                         uint32_t line)
{
    profkit_frame f;
    memset(&f, 0, sizeof(f));
    f.function = pk_function_add_named(p, name, file, "", 0);
    f.address = addr;
    f.line = line;
    f.mapping = PROFKIT_NONE;
    return pk_frame_add(p, &f);
}

static uint32_t frame_named(profkit_profile *p, const char *name, uint64_t addr)
{
    return frame_at(p, name, "f.c", addr, 0);
}

/* The stack "a;b;c" (root first), each frame named by its token. */
static uint32_t stack_of(profkit_profile *p, const char *spec)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", spec);
    uint32_t s = 0;
    for (char *tok = strtok(buf, ";"); tok; tok = strtok(NULL, ";"))
        s = pk_stack_intern(p, s, frame_named(p, tok, 0));
    return s;
}

static void add(profkit_profile *p, const char *spec, uint32_t thread, int64_t v0, int64_t v1)
{
    int64_t vals[2] = { v0, v1 };
    assert_int_equal(pk_sample_add(p, stack_of(p, spec), thread, vals), 0);
}

/* The key whose label is `label`, or PROFKIT_NONE. */
static uint32_t key_of(const pk_ltree *t, const char *label)
{
    return pk_strtab_find(&t->labels, label, strlen(label));
}

static void merges_labels(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    pk_value_type_add(p, "samples", "count");
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    /* Two frames named "x" at different addresses are one node. */
    uint32_t m = frame_named(p, "main", 0), x1 = frame_named(p, "x", 1), x2 = frame_named(p, "x", 2);
    int64_t one = 1, two = 2;
    pk_sample_add(p, pk_stack_intern(p, pk_stack_intern(p, 0, m), x1), t, &one);
    pk_sample_add(p, pk_stack_intern(p, pk_stack_intern(p, 0, m), x2), t, &two);
    pk_sample_add(p, pk_stack_intern(p, 0, frame_named(p, "a;b\nc", 0)), t, &one);
    pk_ltree tr;
    pk_ltree_options o = { .merge = 1, .children = 1, .sanitize = 1, .values = 1, .value = 0,
                           .thread = PROFKIT_NONE };
    profkit_error err;
    assert_int_equal(pk_ltree_build(&tr, p, &o, &err), 0);
    assert_int_equal(tr.n, 4); /* root, a_b_c, main, main;x */
    assert_int_equal(p->n_stacks, 5);
    assert_int_equal(tr.grand_total, 4);
    /* root's children sorted by label: "a_b_c" < "main". */
    uint32_t c0 = tr.children[tr.child_start[0]], c1 = tr.children[tr.child_start[0] + 1];
    assert_string_equal(pk_ltree_label(&tr, tr.key[c0]), "a_b_c");
    assert_string_equal(pk_ltree_label(&tr, tr.key[c1]), "main");
    assert_int_equal(tr.total[c1], 3);
    assert_int_equal(tr.child_start[c1 + 1] - tr.child_start[c1], 1);
    uint32_t x = tr.children[tr.child_start[c1]];
    assert_int_equal(tr.self[x], 3);
    assert_int_equal(tr.stack_node[pk_stack_intern(p, pk_stack_intern(p, 0, m), x2)], x);
    assert_int_equal(tr.parent[x], c1);
    pk_ltree_free(&tr);
    /* Unmerged: a node per stack, nothing per node allocated. */
    pk_ltree_options u = { .by = PROFKIT_BY_FUNCTION };
    assert_int_equal(pk_ltree_build(&tr, p, &u, &err), 0);
    assert_int_equal(tr.n, p->n_stacks);
    assert_null(tr.parent);
    assert_null(tr.key);
    assert_null(tr.stack_node);
    uint32_t s2 = pk_stack_intern(p, pk_stack_intern(p, 0, m), x2);
    assert_int_equal(pk_ltree_node(&tr, s2), s2);
    assert_int_equal(pk_ltree_key(&tr, s2), key_of(&tr, "x"));
    assert_int_equal(pk_ltree_parent(&tr, s2), pk_stack_intern(p, 0, m));
    pk_ltree_free(&tr);
    profkit_profile_free(p);
}

static void values_per_thread_and_type(void **state)
{
    (void)state;
    /* Two value types, two threads: the self values of a tree built for
     * one, asked for the other (and a thread), are those of a tree built
     * for that other; and set_values moves one tree between threads. */
    profkit_profile *p = profkit_profile_new();
    pk_value_type_add(p, "objects", "count");
    pk_value_type_add(p, "space", "bytes");
    uint32_t t0 = pk_thread_add(p, "main", "", -1, -1);
    uint32_t t1 = pk_thread_add(p, "io", "", -1, -1);
    uint32_t m = frame_named(p, "main", 0), x1 = frame_named(p, "x", 1);
    uint32_t x2 = frame_named(p, "x", 2);
    uint32_t s1 = pk_stack_intern(p, pk_stack_intern(p, 0, m), x1);
    uint32_t s2 = pk_stack_intern(p, pk_stack_intern(p, 0, m), x2);
    int64_t v[][2] = { { 1, 100 }, { 2, 0 }, { 0, 7 }, { 5, 50 } };
    pk_sample_add(p, s1, t0, v[0]);
    pk_sample_add(p, s2, t0, v[1]);
    pk_sample_add(p, pk_stack_intern(p, 0, m), t1, v[2]);
    pk_sample_add(p, s1, t1, v[3]);
    profkit_error err;
    for (uint32_t th = 0; th < 3; th++) {
        uint32_t thread = th == 2 ? PROFKIT_NONE : th;
        pk_ltree a, b;
        pk_ltree_options oa = { .merge = 1, .values = 1, .value = 0, .thread = thread };
        pk_ltree_options ob = { .merge = 1, .values = 1, .value = 1, .thread = thread };
        assert_int_equal(pk_ltree_build(&a, p, &oa, &err), 0);
        assert_int_equal(pk_ltree_build(&b, p, &ob, &err), 0);
        assert_int_equal(a.n, b.n);
        int64_t *self = pk_ltree_self(&a, 1, thread);
        assert_non_null(self);
        int64_t sum = 0;
        for (size_t i = 0; i < a.n; i++) {
            assert_int_equal(self[i], b.self[i]);
            sum += self[i];
        }
        assert_int_equal(sum, th == 0 ? 100 : th == 1 ? 57 : 157);
        assert_int_equal(b.grand_total, sum);
        /* the same tree, its values for another value type and thread */
        assert_int_equal(pk_ltree_set_values(&a, 1, thread), 0);
        for (size_t i = 0; i < a.n; i++) {
            assert_int_equal(a.self[i], b.self[i]);
            assert_int_equal(a.total[i], b.total[i]);
        }
        free(self);
        pk_ltree_free(&a);
        pk_ltree_free(&b);
    }
    profkit_profile_free(p);
}

static void labels_by_line(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    pk_value_type_add(p, "samples", "count");
    uint32_t t = pk_thread_add(p, "main", "", -1, -1);
    uint32_t m = frame_at(p, "main", "m.c", 0x10, 3);
    uint32_t f12a = frame_at(p, "f", "f.c", 0x20, 12), f12b = frame_at(p, "f", "f.c", 0x24, 12);
    uint32_t f13 = frame_at(p, "f", "f.c", 0x28, 13);
    int64_t one = 1;
    uint32_t sm = pk_stack_intern(p, 0, m);
    pk_sample_add(p, pk_stack_intern(p, sm, f12a), t, &one);
    pk_sample_add(p, pk_stack_intern(p, sm, f12b), t, &one);
    pk_sample_add(p, pk_stack_intern(p, sm, f13), t, &one);
    profkit_error err;
    pk_ltree tr;
    /* by function: one f */
    pk_ltree_options o = { .merge = 1, .values = 1, .thread = PROFKIT_NONE };
    assert_int_equal(pk_ltree_build(&tr, p, &o, &err), 0);
    assert_int_equal(tr.n, 3);
    pk_ltree_free(&tr);
    /* NAME:LINE: f:12 (two addresses, one node) and f:13 */
    o.by_line = 1;
    assert_int_equal(pk_ltree_build(&tr, p, &o, &err), 0);
    assert_int_equal(tr.n, 4);
    uint32_t k12 = key_of(&tr, "f:12"), k13 = key_of(&tr, "f:13");
    assert_int_not_equal(k12, PROFKIT_NONE);
    assert_int_not_equal(k13, PROFKIT_NONE);
    assert_int_not_equal(key_of(&tr, "main:3"), PROFKIT_NONE);
    for (uint32_t i = 1; i < tr.n; i++)
        if (tr.key[i] == k12)
            assert_int_equal(tr.self[i], 2);
    pk_ltree_free(&tr);
    /* by line: FILE:LINE keys */
    pk_ltree_options l = { .by = PROFKIT_BY_LINE, .merge = 1 };
    assert_int_equal(pk_ltree_build(&tr, p, &l, &err), 0);
    assert_int_not_equal(key_of(&tr, "f.c:12"), PROFKIT_NONE);
    assert_int_not_equal(key_of(&tr, "m.c:3"), PROFKIT_NONE);
    assert_int_equal(tr.n, 4);
    pk_ltree_free(&tr);
    profkit_profile_free(p);
}

static void functions_and_names(void **state)
{
    (void)state;
    /* The page's keys: a function per key (same name, other file: two),
     * a frame without a name a key of its own; in a diff, by name across
     * both profiles, BASE's stacks on the same nodes. */
    profkit_profile *p = profkit_profile_new(), *base = profkit_profile_new();
    pk_value_type_add(p, "samples", "count");
    pk_value_type_add(base, "samples", "count");
    uint32_t t = pk_thread_add(p, "main", "", -1, -1), bt = pk_thread_add(base, "main", "", -1, -1);
    uint32_t ga = frame_at(p, "g", "a.c", 1, 0), gb = frame_at(p, "g", "b.c", 2, 0);
    uint32_t n1 = frame_at(p, "", "", 0x30, 0), n2 = frame_at(p, "", "", 0x40, 0);
    int64_t one = 1;
    pk_sample_add(p, pk_stack_intern(p, 0, ga), t, &one);
    pk_sample_add(p, pk_stack_intern(p, 0, gb), t, &one);
    pk_sample_add(p, pk_stack_intern(p, pk_stack_intern(p, 0, n1), n2), t, &one);
    uint32_t bg = frame_at(base, "g", "c.c", 5, 0), bh = frame_at(base, "h", "c.c", 6, 0);
    uint32_t bs = pk_stack_intern(base, pk_stack_intern(base, 0, bg), bh);
    pk_sample_add(base, bs, bt, &one);
    profkit_error err;
    pk_ltree tr;
    pk_ltree_options f = { .keys = PK_LTREE_FUNCTIONS, .merge = 1 };
    assert_int_equal(pk_ltree_build(&tr, p, &f, &err), 0);
    assert_int_equal(tr.n_keys, 5); /* root's, g of a.c, g of b.c, 0x30, 0x40 */
    assert_int_equal(tr.n, 5);
    assert_int_equal(tr.key_frame[1], ga);
    assert_int_equal(tr.key_frame[4], n2);
    pk_ltree_free(&tr);
    pk_ltree_options nm = { .keys = PK_LTREE_NAMES, .merge = 1, .base = base };
    assert_int_equal(pk_ltree_build(&tr, p, &nm, &err), 0);
    assert_int_equal(tr.n_keys_p, 4); /* root's, g, 0x30, 0x40 */
    assert_int_equal(tr.n_keys, 5);   /* and h, from BASE */
    assert_string_equal(pk_ltree_label(&tr, 4), "h");
    assert_string_equal(pk_ltree_label(&tr, 2), "0x30");
    assert_int_equal(tr.key_frame[4], bh);
    /* BASE's g is NEW's g: one node; h below it */
    uint32_t g = tr.stack_node[pk_stack_intern(p, 0, ga)];
    assert_int_equal(tr.stack_node[pk_stack_intern(p, 0, gb)], g);
    assert_int_equal(tr.base_node[pk_stack_intern(base, 0, bg)], g);
    assert_int_equal(tr.parent[tr.base_node[bs]], g);
    assert_int_equal(tr.n, 5); /* root, g, 0x30, 0x30;0x40, g;h */
    pk_ltree_free(&tr);
    profkit_profile_free(p);
    profkit_profile_free(base);
}

static void refuses_parent_after_child(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    pk_value_type_add(p, "samples", "count");
    uint32_t s = stack_of(p, "a;b;c");
    p->stacks[1].parent = s; /* a's parent after it */
    profkit_error err;
    pk_ltree tr;
    pk_ltree_options o = { .merge = 1 };
    assert_int_equal(pk_ltree_build(&tr, p, &o, &err), PROFKIT_ECORRUPT);
    assert_int_equal(tr.n, 0);
    profkit_profile_free(p);
}

/* Flat, cum and calls computed the slow way: each row's whole stack. */
typedef struct naive {
    int64_t flat[64], cum[64], call[64][64], total;
} naive;

static void naive_sums(naive *n, const pk_ltree *t, uint32_t value, uint32_t thread)
{
    const profkit_profile *p = t->p;
    memset(n, 0, sizeof(*n));
    assert_true(t->n_keys <= 64);
    for (size_t r = 0; r < p->n_samples; r++) {
        if (thread != PROFKIT_NONE && p->sample_thread[r] != thread)
            continue;
        int64_t w = p->sample_values[r * p->n_value_types + value];
        uint32_t u = pk_ltree_node(t, p->sample_stack[r]);
        if (u == 0 || w == 0)
            continue;
        n->total += w;
        n->flat[pk_ltree_key(t, u)] += w;
        unsigned char seen[64] = { 0 }, seen_call[64][64];
        memset(seen_call, 0, sizeof(seen_call));
        for (; u != 0; u = pk_ltree_parent(t, u)) {
            uint32_t k = pk_ltree_key(t, u), up = pk_ltree_parent(t, u);
            if (!seen[k]) {
                seen[k] = 1;
                n->cum[k] += w;
            }
            uint32_t c = up != 0 ? pk_ltree_key(t, up) : k;
            if (c != k && !seen_call[c][k]) {
                seen_call[c][k] = 1;
                n->call[c][k] += w;
            }
        }
    }
}

/* The ways of summing: as chosen; walks up only; the walks given up after
 * a few steps; the depth-first walk at once. */
static const struct {
    uint64_t budget;
    int guess;
} ways[] = { { 0, 1 }, { UINT64_MAX, 0 }, { 7, 0 }, { 1, 1 } };

static void check_sums_way(const pk_ltree *t, uint32_t value, uint32_t thread, int way,
                           const naive *n)
{
    unsigned char all[64];
    memset(all, 1, sizeof(all));
    pk_keysums s;
    assert_int_equal(pk_keysums_compute_within(&s, t, value, thread, all, ways[way].budget,
                                               ways[way].guess),
                     0);
    assert_int_equal(s.total, n->total);
    for (size_t k = 0; k < t->n_keys; k++) {
        assert_int_equal(s.flat[k], n->flat[k]);
        assert_int_equal(s.cum[k], n->cum[k]);
    }
    size_t calls = 0;
    for (size_t e = 0; e < s.n_edges; e++) {
        const pk_key_edge *x = &s.edges[e];
        assert_int_equal(x->weight, n->call[x->from][x->to]);
        assert_int_not_equal(x->from, x->to);
        calls += x->weight != 0;
    }
    size_t want = 0;
    for (size_t a = 0; a < 64; a++)
        for (size_t b = 0; b < 64; b++)
            want += n->call[a][b] != 0;
    assert_int_equal(calls, want);
    pk_keysums_free(&s);
}

static void check_sums(const pk_ltree *t, uint32_t value, uint32_t thread)
{
    naive *n = malloc(sizeof(*n));
    assert_non_null(n);
    naive_sums(n, t, value, thread);
    for (int way = 0; way < 4; way++)
        check_sums_way(t, value, thread, way, n);
    free(n);
}

/* Recursion counts once in cum and in a call's weight, on both shapes of
 * the tree, per thread and value type. */
static void recursion_counted_once(void **state)
{
    (void)state;
    profkit_profile *p = profkit_profile_new();
    pk_value_type_add(p, "samples", "count");
    pk_value_type_add(p, "cpu", "nanoseconds");
    uint32_t t0 = pk_thread_add(p, "main", "", -1, -1), t1 = pk_thread_add(p, "io", "", -1, -1);
    add(p, "main;f;f;f", t0, 10, 1);
    add(p, "main;f;g;f", t0, 5, 2);
    add(p, "main;f;g", t1, 3, 3);
    add(p, "main", t0, 1, 4);
    add(p, "main;g;main", t1, 7, 5);
    profkit_error err;
    pk_ltree tr;
    pk_ltree_options o = { .by = PROFKIT_BY_FUNCTION };
    assert_int_equal(pk_ltree_build(&tr, p, &o, &err), 0);
    pk_keysums s;
    assert_int_equal(pk_keysums_compute(&s, &tr, 0, t0, NULL), 0);
    uint32_t f = key_of(&tr, "f"), g = key_of(&tr, "g"), m = key_of(&tr, "main");
    assert_int_equal(s.flat[f], 15);
    assert_int_equal(s.cum[f], 15); /* not 10 * 3 + 5 * 2 */
    assert_int_equal(s.cum[g], 5);
    assert_int_equal(s.cum[m], 16);
    assert_int_equal(s.total, 16);
    pk_keysums_free(&s);
    for (int merge = 0; merge < 2; merge++) {
        pk_ltree t2;
        pk_ltree_options o2 = { .by = PROFKIT_BY_FUNCTION, .merge = merge };
        assert_int_equal(pk_ltree_build(&t2, p, &o2, &err), 0);
        for (uint32_t v = 0; v < 2; v++) {
            check_sums(&t2, v, t0);
            check_sums(&t2, v, t1);
            check_sums(&t2, v, PROFKIT_NONE);
        }
        pk_ltree_free(&t2);
    }
    /* top: the same, with the empty stack in the total */
    pk_top top;
    int64_t zero[2] = { 2, 0 };
    assert_int_equal(pk_sample_add(p, 0, t0, zero), 0);
    assert_int_equal(pk_top_compute(&top, p, 0, t0, PROFKIT_BY_FUNCTION, &err), 0);
    assert_int_equal(top.total, 18);
    assert_int_equal(top.rows[pk_strtab_find(&top.keys, "f", 1)].cum, 15);
    pk_top_free(&top);
    pk_ltree_free(&tr);
    profkit_profile_free(p);
}

/*
 * A chain of n frames with a value at every level, the names cycling
 * through a few (deep recursion): short, the sums walk up from each node;
 * deep, they pass the walks' budget and take the depth-first walk; with
 * more rows than nodes (timed), from the self values per node. Each must
 * give the slow way's sums, and so must every way of summing forced.
 */
static void chain(size_t n, int timed)
{
    profkit_profile *p = profkit_profile_new();
    pk_value_type_add(p, "samples", "count");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    static const char *const names[] = { "a", "b", "c", "a", "d", "b", "e" };
    uint32_t s = 0;
    for (size_t i = 0; i < n; i++) {
        s = pk_stack_intern(p, s, frame_named(p, names[i % 7], 0));
        int64_t v = (int64_t)(i % 5) - 1; /* some zero, some negative */
        for (int r = 0; r < (timed ? 3 : 1); r++)
            assert_int_equal(timed ? pk_sample_add_timed(p, s, th, (int64_t)(i * 3 + r), &v)
                                   : pk_sample_add(p, s, th, &v),
                             0);
    }
    profkit_error err;
    for (int merge = 0; merge < 2; merge++) {
        pk_ltree t;
        pk_ltree_options o = { .by = PROFKIT_BY_FUNCTION, .merge = merge };
        assert_int_equal(pk_ltree_build(&t, p, &o, &err), 0);
        check_sums(&t, 0, PROFKIT_NONE);
        check_sums(&t, 0, th);
        pk_ltree_free(&t);
    }
    profkit_profile_free(p);
}

static void deep_chain_walk_and_dfs_agree(void **state)
{
    (void)state;
    chain(40, 0);   /* walks up */
    chain(1200, 0); /* 720,000 steps up: the depth-first walk */
    chain(40, 1);
    chain(1200, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(merges_labels),
        cmocka_unit_test(values_per_thread_and_type),
        cmocka_unit_test(labels_by_line),
        cmocka_unit_test(functions_and_names),
        cmocka_unit_test(refuses_parent_after_child),
        cmocka_unit_test(recursion_counted_once),
        cmocka_unit_test(deep_chain_walk_and_dfs_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
