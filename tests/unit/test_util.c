/* test_util.c: the string table, the byte cursor, varints and the id set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "util/cursor.h"
#include "util/map64.h"
#include "util/strtab.h"
#include "util/util.h"

static void strtab_interns_and_keeps_pointers(void **state)
{
    (void)state;
    pk_strtab t;
    assert_int_equal(pk_strtab_init(&t), 0);
    assert_int_equal(t.n, 1);
    assert_string_equal(pk_strtab_get(&t, 0), "");
    uint32_t a = pk_strtab_intern(&t, "alpha", 5);
    uint32_t b = pk_strtab_intern(&t, "beta", 4);
    assert_int_not_equal(a, b);
    assert_int_equal(pk_strtab_intern(&t, "alpha", 5), a);
    assert_int_equal(pk_strtab_intern(&t, "alphabet", 5), a); /* length counts */
    const char *pa = pk_strtab_get(&t, a);
    /* Many more strings (several chunks, and one larger than a chunk) must
     * not move the first one. */
    char buf[32];
    for (int i = 0; i < 20000; i++) {
        int n = snprintf(buf, sizeof(buf), "s%d", i);
        assert_int_not_equal(pk_strtab_intern(&t, buf, (size_t)n), PROFKIT_NONE);
    }
    static char big[200000];
    memset(big, 'x', sizeof(big));
    uint32_t g = pk_strtab_intern(&t, big, sizeof(big));
    assert_int_equal(pk_strtab_len(&t, g), sizeof(big));
    assert_ptr_equal(pk_strtab_get(&t, a), pa);
    assert_string_equal(pa, "alpha");
    assert_int_equal(pk_strtab_find(&t, "s19999", 6), pk_strtab_intern(&t, "s19999", 6));
    assert_int_equal(pk_strtab_find(&t, "nope", 4), PROFKIT_NONE);
    /* Embedded NULs are part of the string. */
    uint32_t z = pk_strtab_intern(&t, "a\0b", 3);
    assert_int_not_equal(z, pk_strtab_intern(&t, "a", 1));
    assert_string_equal(pk_strtab_get(&t, 999999), "");
    pk_strtab_free(&t);
}

static void cursor_bounds(void **state)
{
    (void)state;
    const uint8_t d[] = { 1, 2, 3, 4, 5, 6, 7 };
    pk_cursor c;
    pk_cursor_init(&c, d, sizeof(d));
    uint32_t v32;
    uint16_t v16;
    uint8_t v8;
    assert_int_equal(pk_cursor_be16(&c, &v16), 0);
    assert_int_equal(v16, 0x0102);
    assert_int_equal(pk_cursor_le32(&c, &v32), 0);
    assert_int_equal(v32, 0x06050403);
    assert_int_equal(c.pos, 6);
    /* Not enough bytes: fails and does not move. */
    assert_int_equal(pk_cursor_be32(&c, &v32), PROFKIT_ETRUNCATED);
    assert_int_equal(c.pos, 6);
    uint64_t v64;
    assert_int_equal(pk_cursor_le64(&c, &v64), PROFKIT_ETRUNCATED);
    assert_int_equal(pk_cursor_u8(&c, &v8), 0);
    assert_int_equal(v8, 7);
    assert_true(pk_cursor_eof(&c));
    assert_int_equal(pk_cursor_u8(&c, &v8), PROFKIT_ETRUNCATED);
    assert_int_equal(pk_cursor_skip(&c, 1), PROFKIT_ETRUNCATED);
    const char *s;
    size_t len;
    assert_int_equal(pk_cursor_cstr(&c, &s, &len), PROFKIT_ETRUNCATED);

    const uint8_t str[] = { 'h', 'i', 0, 'x' };
    pk_cursor_init(&c, str, sizeof(str));
    assert_int_equal(pk_cursor_cstr(&c, &s, &len), 0);
    assert_int_equal(len, 2);
    assert_memory_equal(s, "hi", 2);
    assert_int_equal(pk_cursor_cstr(&c, &s, &len), PROFKIT_ETRUNCATED);
    assert_int_equal(c.pos, 3);

    /* An empty buffer with a NULL pointer is fine. */
    pk_cursor_init(&c, NULL, 0);
    assert_int_equal(pk_cursor_u8(&c, &v8), PROFKIT_ETRUNCATED);
    assert_int_equal(pk_cursor_cstr(&c, &s, &len), PROFKIT_ETRUNCATED);
}

static void endian_round_trip(void **state)
{
    (void)state;
    uint8_t b[8];
    pk_put_be64(b, 0x0102030405060708ULL);
    assert_int_equal(b[0], 1);
    assert_int_equal(b[7], 8);
    assert_true(pk_load_be64(b) == 0x0102030405060708ULL);
    pk_put_le64(b, 0x0102030405060708ULL);
    assert_int_equal(b[0], 8);
    assert_true(pk_load_le64(b) == 0x0102030405060708ULL);
    pk_put_be32(b, 0xdeadbeef);
    assert_int_equal(pk_load_be32(b), 0xdeadbeef);
    pk_put_le32(b, 0xdeadbeef);
    assert_int_equal(pk_load_le32(b), 0xdeadbeef);
}

static void varints(void **state)
{
    (void)state;
    const uint64_t values[] = { 0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX,
                                (uint64_t)UINT32_MAX + 1, UINT64_MAX / 3, UINT64_MAX };
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        uint8_t buf[10];
        size_t n = pk_varint_encode(buf, values[i]);
        assert_true(n >= 1 && n <= 10);
        pk_cursor c;
        pk_cursor_init(&c, buf, n);
        uint64_t v;
        assert_int_equal(pk_cursor_varint(&c, &v), 0);
        assert_true(v == values[i]);
        assert_int_equal(c.pos, n);
        /* Every proper prefix is truncated, and the cursor stays put. */
        for (size_t k = 0; k < n; k++) {
            pk_cursor_init(&c, buf, k);
            assert_int_equal(pk_cursor_varint(&c, &v), PROFKIT_ETRUNCATED);
            assert_int_equal(c.pos, 0);
        }
    }
    /* 300 is ac 02 (the protobuf documentation's example). */
    const uint8_t ex[] = { 0xac, 0x02 };
    pk_cursor c;
    uint64_t v;
    pk_cursor_init(&c, ex, 2);
    assert_int_equal(pk_cursor_varint(&c, &v), 0);
    assert_int_equal(v, 300);
    /* Eleven bytes of continuation: longer than 10 bytes. */
    uint8_t longv[11];
    memset(longv, 0x80, sizeof(longv));
    pk_cursor_init(&c, longv, sizeof(longv));
    assert_int_equal(pk_cursor_varint(&c, &v), PROFKIT_ECORRUPT);
    /* A 10th byte above 1 overflows 64 bits. */
    uint8_t over[10];
    memset(over, 0xff, 9);
    over[9] = 0x02;
    pk_cursor_init(&c, over, sizeof(over));
    assert_int_equal(pk_cursor_varint(&c, &v), PROFKIT_ECORRUPT);
    assert_int_equal(c.pos, 0);
}

static int u32_eq(const void *ctx, uint32_t id, const void *key)
{
    const uint32_t *vals = ctx;
    return vals[id] == *(const uint32_t *)key;
}

static void idset_finds_what_it_holds(void **state)
{
    (void)state;
    enum { N = 50000 };
    static uint32_t vals[N];
    pk_idset s = { 0 };
    for (uint32_t i = 0; i < N; i++) {
        vals[i] = i * 7919u + 13u;
        assert_int_equal(pk_idset_insert(&s, pk_hash_u64(vals[i]), i), 0);
    }
    for (uint32_t i = 0; i < N; i++)
        assert_int_equal(pk_idset_find(&s, pk_hash_u64(vals[i]), u32_eq, vals, &vals[i]), i);
    uint32_t absent = 5;
    assert_int_equal(pk_idset_find(&s, pk_hash_u64(absent), u32_eq, vals, &absent),
                     PROFKIT_NONE);
    pk_idset_free(&s);
}

/* A find that misses gives the free slot its probe ended on; inserting
 * there leaves the set as pk_idset_insert would have (slot for slot), also
 * past the size whose slots are mapped from the system (2 MiB). */
static void idset_insert_at_is_insert(void **state)
{
    (void)state;
    enum { N = 300000 };
    uint32_t *vals = malloc(N * sizeof *vals);
    assert_non_null(vals);
    pk_idset a = { 0 }, b = { 0 };
    size_t at = 0;
    uint32_t probe = 1;
    assert_int_equal(pk_idset_find_at(&b, pk_hash_u64(probe), u32_eq, vals, &probe, &at),
                     PROFKIT_NONE);
    assert_true(at == SIZE_MAX); /* an empty set: no slot yet */
    for (uint32_t i = 0; i < N; i++) {
        vals[i] = i * 2654435761u + 7u;
        uint64_t h = pk_hash_u64(vals[i]);
        assert_int_equal(pk_idset_insert(&a, h, i), 0);
        assert_int_equal(pk_idset_find_at(&b, h, u32_eq, vals, &vals[i], &at), PROFKIT_NONE);
        assert_int_equal(pk_idset_insert_at(&b, h, i, at), 0);
        assert_int_equal(pk_idset_find_at(&b, h, u32_eq, vals, &vals[i], &at), i);
    }
    assert_int_equal(a.cap, b.cap);
    assert_int_equal(a.count, b.count);
    assert_true(b.cap * sizeof(uint64_t) >= ((size_t)2 << 20));
    assert_memory_equal(a.slots, b.slots, a.cap * sizeof(uint64_t));
    /* a slot taken since the find is not overwritten: found again */
    uint32_t k1 = 0xdeadbeef;
    vals[0] = k1;
    pk_idset c = { 0 };
    assert_int_equal(pk_idset_insert(&c, pk_hash_u64(42), 1), 0); /* a set of 64 slots */
    assert_int_equal(pk_idset_find_at(&c, pk_hash_u64(k1), u32_eq, vals, &k1, &at), PROFKIT_NONE);
    assert_int_equal(pk_idset_insert(&c, pk_hash_u64(k1), 2), 0); /* lands on `at` */
    assert_int_equal(pk_idset_insert_at(&c, pk_hash_u64(k1), 0, at), 0);
    assert_int_equal(c.count, 3);
    assert_int_equal(pk_idset_find(&c, pk_hash_u64(k1), u32_eq, vals, &k1), 0);
    pk_idset_free(&a);
    pk_idset_free(&b);
    pk_idset_free(&c);
    free(vals);
}

static int cmp_desc(const void *ctx, uint32_t a, uint32_t b)
{
    const int *keys = ctx;
    return keys[b] - keys[a];
}

/* The u64 -> u32 map: any key (0 and the largest included), replacing,
 * growing past many entries, and a miss. */
static void map64_maps_every_key(void **state)
{
    (void)state;
    pk_map64 m = { 0 };
    assert_int_equal(pk_map64_get(&m, 0), PK_MAP64_EMPTY);
    assert_int_equal(pk_map64_put(&m, 0, 7), 0);
    assert_int_equal(pk_map64_put(&m, UINT64_MAX, 8), 0);
    assert_int_equal(pk_map64_put(&m, 0, 9), 1); /* replaced */
    assert_int_equal(pk_map64_get(&m, 0), 9);
    assert_int_equal(pk_map64_get(&m, UINT64_MAX), 8);
    for (uint64_t k = 1; k <= 100000; k++)
        assert_int_equal(pk_map64_put(&m, k << 20, (uint32_t)k), 0);
    assert_int_equal(m.count, 100002);
    assert_true(m.count * 2 <= m.cap);
    for (uint64_t k = 1; k <= 100000; k++)
        assert_int_equal(pk_map64_get(&m, k << 20), (uint32_t)k);
    assert_int_equal(pk_map64_get(&m, 3), PK_MAP64_EMPTY);
    assert_int_equal(pk_map64_get(&m, 0), 9);
    pk_map64_free(&m);
    assert_int_equal(m.cap, 0);
    assert_int_equal(pk_map64_get(&m, 0), PK_MAP64_EMPTY);
}

static void sort_is_stable(void **state)
{
    (void)state;
    int keys[100];
    uint32_t ids[100];
    for (uint32_t i = 0; i < 100; i++) {
        keys[i] = (int)(i % 7);
        ids[i] = i;
    }
    assert_int_equal(pk_sort_u32(ids, 100, cmp_desc, keys), 0);
    for (size_t i = 1; i < 100; i++) {
        assert_true(keys[ids[i - 1]] >= keys[ids[i]]);
        if (keys[ids[i - 1]] == keys[ids[i]])
            assert_true(ids[i - 1] < ids[i]);
    }
}

static void error_strings(void **state)
{
    (void)state;
    profkit_error e;
    char buf[256];
    pk_error_set(&e, PROFKIT_ECORRUPT, "x.prof", 1234, "CPU entry: varint longer than %d bytes", 10);
    assert_string_equal(profkit_error_string(buf, sizeof(buf), &e),
                        "x.prof: offset 1234: CPU entry: varint longer than 10 bytes");
    pk_error_set_pos(&e, PROFKIT_ECORRUPT, "a.json", 3, 14, "expected %s", "a table");
    assert_string_equal(profkit_error_string(buf, sizeof(buf), &e), "a.json:3:14: expected a table");
    pk_error_set(&e, PROFKIT_EIO, NULL, -1, "gone");
    assert_string_equal(profkit_error_string(buf, sizeof(buf), &e), "<input>: gone");
    assert_string_equal(profkit_strerror(PROFKIT_ETRUNCATED), "truncated input");
    assert_int_equal(pk_error_set(NULL, PROFKIT_EINVAL, NULL, -1, "x"), PROFKIT_EINVAL);
}

static char *vformat(char *small, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *t = pk_vformat(small, cap, len, fmt, ap);
    va_end(ap);
    return t;
}

/* Short text stays in the caller's buffer; long text gets its own, whole. */
static void vformat_small_and_large(void **state)
{
    (void)state;
    char small[16];
    size_t n;
    char *t = vformat(small, sizeof(small), &n, "%s-%d", "ab", 42);
    assert_ptr_equal(t, small);
    assert_int_equal(n, 5);
    assert_string_equal(t, "ab-42");
    t = vformat(small, sizeof(small), &n, "%s=%0600d", "key", 7);
    assert_non_null(t);
    assert_ptr_not_equal(t, small);
    assert_int_equal(n, 604);
    assert_int_equal(strlen(t), 604);
    assert_memory_equal(t, "key=000", 7);
    assert_int_equal(t[603], '7');
    free(t);
    t = vformat(small, sizeof(small), &n, "%s", "exactly15chars!"); /* 15 + NUL fits */
    assert_ptr_equal(t, small);
    assert_int_equal(n, 15);
    t = vformat(small, sizeof(small), &n, "%s", "sixteen chars!!!"); /* 16: does not */
    assert_ptr_not_equal(t, small);
    assert_string_equal(t, "sixteen chars!!!");
    free(t);
}

static void mul_overflow(void **state)
{
    (void)state;
    size_t out;
    assert_int_equal(pk_mul_size(SIZE_MAX / 2 + 1, 2, &out), -1);
    assert_int_equal(pk_mul_size(1000, 1000, &out), 0);
    assert_int_equal(out, 1000000);
    void *p = NULL;
    size_t cap = 0;
    assert_int_equal(pk_grow(&p, &cap, SIZE_MAX / 4, 16), PROFKIT_ENOMEM);
    assert_null(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strtab_interns_and_keeps_pointers),
        cmocka_unit_test(cursor_bounds),
        cmocka_unit_test(endian_round_trip),
        cmocka_unit_test(varints),
        cmocka_unit_test(idset_finds_what_it_holds),
        cmocka_unit_test(idset_insert_at_is_insert),
        cmocka_unit_test(map64_maps_every_key),
        cmocka_unit_test(sort_is_stable),
        cmocka_unit_test(error_strings),
        cmocka_unit_test(mul_overflow),
        cmocka_unit_test(vformat_small_and_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
