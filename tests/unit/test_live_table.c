/*
 * test_live_table.c: the bsprof reader's table of live allocations
 * (src/formats/bsprof/live_table.h), against a plain array that does the same
 * thing slowly: random allocations, frees and replacements, addresses made
 * to share a home bucket (long overflow runs, the counts that stop a
 * lookup), sizes of 2^31 and more, growth (past the tables mapped from the
 * system, whose pages growth gives back as it goes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "formats/bsprof/live_table.h"

/* The reference: live (address, size, row) triples, unordered. */
typedef struct ref_entry {
    uint64_t addr, size;
    uint32_t row;
} ref_entry;

typedef struct ref {
    ref_entry *e;
    size_t n, cap;
} ref;

static ref_entry *ref_find(ref *r, uint64_t addr)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->e[i].addr == addr)
            return &r->e[i];
    return NULL;
}

static void ref_put(ref *r, uint64_t addr, uint64_t size, uint32_t row)
{
    ref_entry *e = ref_find(r, addr);
    if (!e) {
        if (r->n == r->cap) {
            r->cap = r->cap ? r->cap * 2 : 64;
            r->e = realloc(r->e, r->cap * sizeof(*r->e));
            assert_non_null(r->e);
        }
        e = &r->e[r->n++];
    }
    e->addr = addr;
    e->size = size;
    e->row = row;
}

static int ref_take(ref *r, uint64_t addr)
{
    ref_entry *e = ref_find(r, addr);
    if (!e)
        return 0;
    *e = r->e[--r->n];
    return 1;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The table holds exactly what the reference holds, and every bucket's
 * passed-on count is what its probe runs say it is. */
static void check_same(const pk_live_table *t, ref *r)
{
    assert_int_equal(t->count, r->n);
    size_t seen = 0;
    size_t *passed = calloc(t->n_buckets, sizeof(size_t));
    assert_non_null(passed);
    size_t mask = t->n_buckets - 1;
    for (size_t i = 0; i < t->n_buckets; i++) {
        const pk_live_bucket *b = &t->b[i];
        for (unsigned k = 0; k < PK_LIVE_WAYS; k++) {
            uint32_t row = pk_live_row(b, k);
            if (row == PK_LIVE_ROWS)
                continue;
            seen++;
            ref_entry *e = ref_find(r, b->addr[k]);
            assert_non_null(e);
            assert_int_equal(row, e->row);
            assert_int_equal(pk_live_size(t, b->size[k]), e->size);
            /* every bucket from the home to here passed it on */
            for (size_t j = (size_t)(pk_live_home(t, b->addr[k]) - t->b); j != i; j = (j + 1) & mask)
                passed[j]++;
        }
    }
    assert_int_equal(seen, r->n);
    for (size_t i = 0; i < t->n_buckets; i++) {
        unsigned n = 0;
        for (unsigned k = 0; k < PK_LIVE_WAYS; k++)
            n |= (t->b[i].row[k] >> 28) << (4 * k);
        assert_int_equal(n, passed[i]);
    }
    free(passed);
}

/* Random operations on addresses drawn from a pool of n_addr; some sizes
 * are 2^31 or more. */
static void run_random(uint64_t *addrs, size_t n_addr, size_t ops, int check_every)
{
    pk_live_table t;
    ref r = { 0 };
    assert_int_equal(pk_live_init(&t), 0);
    for (size_t i = 0; i < ops; i++) {
        uint64_t addr = addrs[rnd() % n_addr];
        if (rnd() % 100 < 55) {
            uint64_t size = rnd() % 50 == 0 ? (UINT64_C(1) << 31) + rnd() % 1000 : rnd() % 5000;
            uint32_t row = (uint32_t)(rnd() % 100000);
            assert_int_equal(pk_live_put(&t, addr, size, row), 0);
            ref_put(&r, addr, size, row);
        } else {
            assert_int_equal(pk_live_take(&t, addr), ref_take(&r, addr));
        }
        if (check_every && i % (size_t)check_every == 0)
            check_same(&t, &r);
    }
    check_same(&t, &r);
    /* Free everything: no count may be left behind. */
    while (r.n) {
        uint64_t addr = r.e[rnd() % r.n].addr;
        assert_int_equal(pk_live_take(&t, addr), 1);
        ref_take(&r, addr);
    }
    check_same(&t, &r);
    assert_int_equal(pk_live_take(&t, addrs[0]), 0);
    pk_live_free(&t);
    free(r.e);
}

static void matches_a_plain_array(void **state)
{
    (void)state;
    /* Addresses as an allocator hands them out: a few thousand, reused. */
    size_t n = 3000;
    uint64_t *addrs = malloc(n * sizeof(uint64_t));
    assert_non_null(addrs);
    for (size_t i = 0; i < n; i++)
        addrs[i] = 0x40000000 + 16 * i;
    run_random(addrs, n, 200000, 997);
    /* Any 64-bit values, zero and all ones included. */
    for (size_t i = 0; i < n; i++)
        addrs[i] = rnd();
    addrs[0] = 0;
    addrs[1] = UINT64_MAX;
    run_random(addrs, n, 100000, 4999);
    free(addrs);
}

static void shared_home_buckets(void **state)
{
    (void)state;
    /* Addresses that all have the same home bucket (the table starts with
     * 256 and does not grow for 80 entries): 40 of them fill ten buckets in
     * a row. Then those and as many of the next home, so the two runs pass
     * over each other. */
    pk_live_table t;
    assert_int_equal(pk_live_init(&t), 0);
    size_t home0 = (size_t)(pk_live_home(&t, 0x1000) - t.b);
    uint64_t addrs[80];
    size_t n = 0;
    for (uint64_t a = 0x1000; n < 40; a += 8)
        if ((size_t)(pk_live_home(&t, a) - t.b) == home0)
            addrs[n++] = a;
    for (uint64_t a = 0x1000; n < 80; a += 8)
        if ((size_t)(pk_live_home(&t, a) - t.b) == ((home0 + 1) & (t.n_buckets - 1)))
            addrs[n++] = a;
    pk_live_free(&t);
    run_random(addrs, 40, 20000, 1);
    run_random(addrs, 80, 20000, 7);
}

static void grows_and_keeps_everything(void **state)
{
    (void)state;
    pk_live_table t;
    ref r = { 0 };
    assert_int_equal(pk_live_init(&t), 0);
    size_t first = t.n_buckets;
    for (uint32_t i = 0; i < 20000; i++) {
        assert_int_equal(pk_live_put(&t, 0x7f0000000000 + 48 * (uint64_t)i, i, i % 777), 0);
        ref_put(&r, 0x7f0000000000 + 48 * (uint64_t)i, i, i % 777);
    }
    assert_true(t.n_buckets > first);
    assert_true(t.count <= t.limit);
    check_same(&t, &r);
    /* Replacing keeps the count; the size and row are the new ones. */
    assert_int_equal(pk_live_put(&t, 0x7f0000000000, (UINT64_C(1) << 40), 5), 0);
    ref_put(&r, 0x7f0000000000, (UINT64_C(1) << 40), 5);
    check_same(&t, &r);
    pk_live_free(&t);
    free(r.e);
}

/* Past the size at which the buckets are mapped from the system (4 MiB,
 * 65536 buckets, full at 98304 entries) and one growth more, so a mapped
 * table's pages are given back while its entries move: every entry is
 * still there with its row and size, and nothing else. */
static void grows_past_mapped_tables(void **state)
{
    (void)state;
    pk_live_table t;
    assert_int_equal(pk_live_init(&t), 0);
    const uint32_t n = 300000;
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(pk_live_put(&t, 0x5500000000 + 32 * (uint64_t)i, 16 + i % 5000, i % 100003), 0);
    assert_true(t.n_buckets >= 262144);
    assert_int_equal(t.count, n);
#if defined(__linux__)
    assert_true(t.mapped != 0);
#endif
    for (uint32_t i = 0; i < n; i++) {
        uint32_t row = 0;
        uint64_t size = 0;
        assert_int_equal(pk_live_take_old(&t, 0x5500000000 + 32 * (uint64_t)i, &row, &size), 1);
        assert_int_equal(row, i % 100003);
        assert_int_equal(size, 16 + i % 5000);
    }
    assert_int_equal(t.count, 0);
    assert_int_equal(pk_live_take(&t, 0x5500000000), 0);
    pk_live_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matches_a_plain_array),
        cmocka_unit_test(shared_home_buckets),
        cmocka_unit_test(grows_and_keeps_everything),
        cmocka_unit_test(grows_past_mapped_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
