/*
 * live_table.h: the allocations still live, by address, for a reader that
 * matches frees with allocations (the bsprof reader).
 *
 * A bucket is one cache line (the array is 64-byte aligned) with four
 * slots: address, the allocating row, the size. An address's home bucket is
 * the top bits of the address XOR the process's secret times 2^64 over the
 * golden ratio (Fibonacci hashing: pk_live_home); a full bucket
 * passes entries on to the next one (linear probing by bucket) and counts
 * how many it passed on, as Folly's F14 tables do. So a lookup reads the
 * home bucket and stops there unless that count is non-zero, and a removal
 * only clears its slot (no tombstones, no shifting): an allocation or a
 * free costs one cache line. The table is at most 3/8 full (at most half
 * full measured slower on the bsprof benchmark: a full home bucket sends
 * the operation to a line not prefetched).
 *
 * A free slot is all zeros (a row is kept XOR PK_LIVE_ROWS), so a new
 * table is pages the system zeroes as they are first touched: growing
 * moves the entries in bucket order, which writes the new table in order,
 * and gives the old one's pages back behind it, so the two are never both
 * whole in memory.
 *
 * The count lives in the rows' top four bits (four nibbles make 16 bits;
 * it sticks at 0xffff, which only costs longer probes), so rows are below
 * PK_LIVE_ROWS. A size of 2^31 or more goes to a side array (`big`, with a
 * free list) and the slot holds its index with the top bit set, so real
 * sizes cost nothing.
 *
 * Addresses come from the input: were the hash known, a hostile file could
 * make them share a home bucket (long probes); the secret, XORed in first,
 * keeps it unknown. The multiplier is fixed: addresses a fixed step apart
 * (what allocators hand out, and the set a file gets by varying an
 * address's high bits, whatever the secret) spread evenly over the
 * buckets for the golden ratio's multiplier. A random one (pk_hash_u64's,
 * used before) gathered them into a few buckets for some secrets: one run
 * in eight of `mem` on a 20 MB generated file read 12% more instructions,
 * one in six of its page 6% (41% measured once), the same file and binary.
 */
#ifndef PROFKIT_LIVE_TABLE_H
#define PROFKIT_LIVE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define PK_LIVE_WAYS 4
#define PK_LIVE_ROWS 0x0fffffffu /* rows are below this; as a row: the slot is free */
#define PK_LIVE_BIG 0x80000000u

typedef struct pk_live_bucket {
    uint64_t addr[PK_LIVE_WAYS];
    uint32_t row[PK_LIVE_WAYS];  /* low 28 bits: the row XOR PK_LIVE_ROWS (0 = free); top 4: the count */
    uint32_t size[PK_LIVE_WAYS]; /* the size, or PK_LIVE_BIG | index into big[] */
} pk_live_bucket;

typedef struct pk_live_table {
    pk_live_bucket *b;
    size_t n_buckets, count, limit; /* limit: count at which the table grows */
    unsigned shift;                 /* 64 - log2(n_buckets) */
    uint64_t *big; /* sizes of 2^31 and more; a free entry holds the next free index */
    size_t n_big, cap_big;
    uint32_t big_free; /* first free index in big, PK_LIVE_NONE = none */
    size_t mapped; /* bytes of b when it is mapped from the system (else 0) */
} pk_live_table;

#define PK_LIVE_NONE UINT32_MAX

#if defined(__GNUC__)
#define PK_LIVE_INLINE inline __attribute__((always_inline))
#else
#define PK_LIVE_INLINE inline
#endif

/* Bit k set when slot k's address is addr, the slot in use or not: the
 * compare of the common paths below, given as an argument so that a
 * caller compiled for a wider vector unit passes its own (inlined). */
typedef unsigned (*pk_live_eq_fn)(const pk_live_bucket *b, uint64_t addr);

/* An empty table; 0 or PROFKIT_ENOMEM. */
int pk_live_init(pk_live_table *t);
void pk_live_free(pk_live_table *t);

/* The slow paths of pk_live_put() and pk_live_take(). */
int pk_live_put_slow(pk_live_table *t, uint64_t addr, uint64_t size, uint32_t row);
int pk_live_take_far(pk_live_table *t, uint64_t addr);
/* The same, giving the row and size of the allocation replaced or taken
 * (*old_row PK_LIVE_ROWS when the put replaced none). */
int pk_live_put_slow_old(pk_live_table *t, uint64_t addr, uint64_t size, uint32_t row,
                         uint32_t *old_row, uint64_t *old_size);
int pk_live_take_far_old(pk_live_table *t, uint64_t addr, uint32_t *old_row, uint64_t *old_size);
void pk_live_release_big(pk_live_table *t, uint32_t size);

static inline pk_live_bucket *pk_live_home(const pk_live_table *t, uint64_t addr)
{
    return t->b + (size_t)(((addr ^ pk_hash_secret[0]) * 0x9e3779b97f4a7c15ull) >> t->shift);
}

/* Whether entries were passed on from this bucket (its count is not 0). */
static inline int pk_live_passed_on(const pk_live_bucket *b)
{
    return ((b->row[0] | b->row[1] | b->row[2] | b->row[3]) & ~PK_LIVE_ROWS) != 0;
}

/* The row slot k holds, PK_LIVE_ROWS when it is free. */
static inline uint32_t pk_live_row(const pk_live_bucket *b, unsigned k)
{
    return (b->row[k] & PK_LIVE_ROWS) ^ PK_LIVE_ROWS;
}

/* Bit k set when slot k holds addr. */
static inline unsigned pk_live_match(const pk_live_bucket *b, uint64_t addr)
{
    unsigned m = 0;
    for (unsigned k = 0; k < PK_LIVE_WAYS; k++)
        m |= (unsigned)((b->addr[k] == addr) & (pk_live_row(b, k) != PK_LIVE_ROWS)) << k;
    return m;
}

/* Bit k set when slot k is free. */
static inline unsigned pk_live_free_slots(const pk_live_bucket *b)
{
    unsigned m = 0;
    for (unsigned k = 0; k < PK_LIVE_WAYS; k++)
        m |= (unsigned)(pk_live_row(b, k) == PK_LIVE_ROWS) << k;
    return m;
}

/* Sets slot k's row (PK_LIVE_ROWS frees it), keeping the count's nibble. */
static inline void pk_live_set_row(pk_live_bucket *b, unsigned k, uint32_t row)
{
    b->row[k] = (b->row[k] & ~PK_LIVE_ROWS) | (row ^ PK_LIVE_ROWS);
}

/* pk_live_eq_fn's compare with SSE2 (64-bit compares from 32-bit ones),
 * else scalar. */
static inline unsigned pk_live_eq(const pk_live_bucket *b, uint64_t addr)
{
#if defined(__SSE2__)
    __m128i key = _mm_set1_epi64x((long long)addr);
    __m128i e01 = _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(const void *)&b->addr[0]), key);
    __m128i e23 = _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(const void *)&b->addr[2]), key);
    /* 64 bits are equal when both their halves are */
    e01 = _mm_and_si128(e01, _mm_shuffle_epi32(e01, _MM_SHUFFLE(2, 3, 0, 1)));
    e23 = _mm_and_si128(e23, _mm_shuffle_epi32(e23, _MM_SHUFFLE(2, 3, 0, 1)));
    return (unsigned)_mm_movemask_pd(_mm_castsi128_pd(e01)) |
           (unsigned)_mm_movemask_pd(_mm_castsi128_pd(e23)) << 2;
#else
    unsigned m = 0;
    for (unsigned k = 0; k < PK_LIVE_WAYS; k++)
        m |= (unsigned)(b->addr[k] == addr) << k;
    return m;
#endif
}

/*
 * One look at a bucket: bit k of the result set when slot k holds addr,
 * of *free when slot k is free; *passed non-zero when entries were passed
 * on from the bucket. With SSE2, a few vector compares instead of twelve
 * scalar ones; eq_of compares the addresses.
 */
static PK_LIVE_INLINE unsigned pk_live_scan_with(const pk_live_bucket *b, uint64_t addr,
                                                 unsigned *free_slots, unsigned *passed,
                                                 pk_live_eq_fn eq_of)
{
#if defined(__SSE2__)
    unsigned eq = eq_of(b, addr);
    __m128i rows = _mm_load_si128((const __m128i *)(const void *)b->row);
    __m128i none = _mm_set1_epi32((int)PK_LIVE_ROWS);
    unsigned fr = (unsigned)_mm_movemask_ps(
        _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(rows, none), _mm_setzero_si128())));
    *free_slots = fr;
    *passed = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_andnot_si128(none, rows),
                                                          _mm_setzero_si128())) ^ 0xffffu;
    return eq & ~fr;
#else
    *free_slots = pk_live_free_slots(b);
    *passed = (unsigned)pk_live_passed_on(b);
    return eq_of(b, addr) & ~*free_slots;
#endif
}

static inline unsigned pk_live_scan(const pk_live_bucket *b, uint64_t addr, unsigned *free_slots,
                                    unsigned *passed)
{
    return pk_live_scan_with(b, addr, free_slots, passed, pk_live_eq);
}

/* The size a slot holds. */
static inline uint64_t pk_live_size(const pk_live_table *t, uint32_t size)
{
    return size & PK_LIVE_BIG ? t->big[size & ~PK_LIVE_BIG] : size;
}

/* Records an allocation (row < PK_LIVE_ROWS); one at the same address is
 * replaced, and its row and size go to *old_row and *old_size (*old_row
 * PK_LIVE_ROWS when there was none). 0 or PROFKIT_ENOMEM. */
static PK_LIVE_INLINE int pk_live_put_old_with(pk_live_table *t, uint64_t addr, uint64_t size,
                                               uint32_t row, uint32_t *old_row, uint64_t *old_size,
                                               pk_live_eq_fn eq_of)
{
    pk_live_bucket *b = pk_live_home(t, addr);
    unsigned e, passed, m = pk_live_scan_with(b, addr, &e, &passed, eq_of);
    /* The common case: the home bucket holds addr, or has room and passed
     * nothing on (so addr is nowhere else). */
    if (PK_UNLIKELY((m == 0 && (e == 0 || passed || t->count >= t->limit)) ||
                    size >= PK_LIVE_BIG))
        return pk_live_put_slow_old(t, addr, size, row, old_row, old_size);
    unsigned k = pk_lowest_bit(m ? m : e);
    *old_row = PK_LIVE_ROWS;
    if (PK_UNLIKELY(m != 0)) {
        *old_row = pk_live_row(b, k);
        *old_size = pk_live_size(t, b->size[k]);
        if (b->size[k] & PK_LIVE_BIG)
            pk_live_release_big(t, b->size[k]);
    }
    t->count += m == 0;
    b->addr[k] = addr;
    pk_live_set_row(b, k, row);
    b->size[k] = (uint32_t)size;
    return 0;
}

static inline int pk_live_put_old(pk_live_table *t, uint64_t addr, uint64_t size, uint32_t row,
                                  uint32_t *old_row, uint64_t *old_size)
{
    return pk_live_put_old_with(t, addr, size, row, old_row, old_size, pk_live_eq);
}

/* Records an allocation (row < PK_LIVE_ROWS); one at the same address is
 * replaced. 0 or PROFKIT_ENOMEM. */
static PK_LIVE_INLINE int pk_live_put_with(pk_live_table *t, uint64_t addr, uint64_t size,
                                           uint32_t row, pk_live_eq_fn eq_of)
{
    uint32_t r;
    uint64_t s;
    return pk_live_put_old_with(t, addr, size, row, &r, &s, eq_of);
}

static inline int pk_live_put(pk_live_table *t, uint64_t addr, uint64_t size, uint32_t row)
{
    return pk_live_put_with(t, addr, size, row, pk_live_eq);
}

/* Removes the allocation at addr; 1 when there was one (its row and size
 * in *old_row and *old_size), else 0. */
static PK_LIVE_INLINE int pk_live_take_old_with(pk_live_table *t, uint64_t addr, uint32_t *old_row,
                                                uint64_t *old_size, pk_live_eq_fn eq_of)
{
    pk_live_bucket *b = pk_live_home(t, addr);
    unsigned e, passed, m = pk_live_scan_with(b, addr, &e, &passed, eq_of);
    if (PK_UNLIKELY(m == 0))
        return passed ? pk_live_take_far_old(t, addr, old_row, old_size) : 0;
    unsigned k = pk_lowest_bit(m);
    *old_row = pk_live_row(b, k);
    *old_size = pk_live_size(t, b->size[k]);
    if (PK_UNLIKELY(b->size[k] & PK_LIVE_BIG))
        pk_live_release_big(t, b->size[k]);
    pk_live_set_row(b, k, PK_LIVE_ROWS);
    t->count--;
    return 1;
}

static inline int pk_live_take_old(pk_live_table *t, uint64_t addr, uint32_t *old_row, uint64_t *old_size)
{
    return pk_live_take_old_with(t, addr, old_row, old_size, pk_live_eq);
}

/* Removes the allocation at addr; 1 when there was one, else 0. */
static PK_LIVE_INLINE int pk_live_take_with(pk_live_table *t, uint64_t addr, pk_live_eq_fn eq_of)
{
    uint32_t r;
    uint64_t s;
    return pk_live_take_old_with(t, addr, &r, &s, eq_of);
}

static inline int pk_live_take(pk_live_table *t, uint64_t addr)
{
    return pk_live_take_with(t, addr, pk_live_eq);
}

#endif
