/*
 * live_table.c: the live-allocation table's slow paths: growing, overflow
 * into later buckets, sizes of 2^31 and more. The common paths are inline
 * in live_table.h.
 */
#include "formats/bsprof/live_table.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h> /* madvise: the old table given back while it moves */
#endif

/*
 * The table is probed at random, so a big one costs a TLB miss per probe on
 * 4 KiB pages; on Linux it asks for transparent huge pages. A big table is
 * mapped from the system, zero pages that cost memory only once touched
 * (*mapped = its bytes); a small one is allocated and zeroed.
 */
#define MAP_MIN ((size_t)4 << 20)

static pk_live_bucket *buckets_alloc(size_t n, size_t *mapped)
{
    size_t bytes = n * sizeof(pk_live_bucket);
    void *p;
    *mapped = 0;
    if (PK_HUGE_MAP && bytes >= MAP_MIN) {
        if (!(p = pk_huge_map(bytes)))
            return NULL;
        *mapped = bytes;
        return p;
    }
    if (posix_memalign(&p, 64, bytes) != 0)
        return NULL;
    memset(p, 0, bytes); /* every slot free, every count 0 */
    return p;
}

static void buckets_free(pk_live_bucket *b, size_t mapped)
{
    if (mapped)
        pk_huge_unmap(b, mapped);
    else
        free(b);
}

static void set_size(pk_live_table *t, size_t n_buckets, unsigned log2n)
{
    t->n_buckets = n_buckets;
    t->shift = 64 - log2n;
    t->limit = n_buckets * PK_LIVE_WAYS * 3 / 8; /* at most 3/8 full */
}

int pk_live_init(pk_live_table *t)
{
    memset(t, 0, sizeof(*t));
    t->big_free = PK_LIVE_NONE;
    if (!(t->b = buckets_alloc(256, &t->mapped)))
        return PROFKIT_ENOMEM;
    set_size(t, 256, 8);
    return 0;
}

void pk_live_free(pk_live_table *t)
{
    buckets_free(t->b, t->mapped);
    free(t->big);
    memset(t, 0, sizeof(*t));
}

/* The count of entries passed on from b, spread over its rows' top nibbles. */
static unsigned passed_on(const pk_live_bucket *b)
{
    unsigned n = 0;
    for (unsigned k = 0; k < PK_LIVE_WAYS; k++)
        n |= (b->row[k] >> 28) << (4 * k);
    return n;
}

/* Adds d (1 or -1) to b's count, which sticks at its largest value. */
static void pass_on(pk_live_bucket *b, int d)
{
    unsigned n = passed_on(b);
    if (n == 0xffff)
        return;
    n = (unsigned)((int)n + d);
    for (unsigned k = 0; k < PK_LIVE_WAYS; k++)
        b->row[k] = (b->row[k] & PK_LIVE_ROWS) | (uint32_t)((n >> (4 * k)) & 0xf) << 28;
}

/* Puts an entry known to be absent: into the first bucket with room from
 * its home on, counting the full buckets passed. */
static void insert_new(pk_live_table *t, uint64_t addr, uint32_t size, uint32_t row)
{
    size_t mask = t->n_buckets - 1, i = (size_t)(pk_live_home(t, addr) - t->b);
    for (;;) {
        pk_live_bucket *b = &t->b[i];
        unsigned e = pk_live_free_slots(b);
        if (e) {
            unsigned k = pk_lowest_bit(e);
            b->addr[k] = addr;
            pk_live_set_row(b, k, row);
            b->size[k] = size;
            t->count++;
            return;
        }
        pass_on(b, 1);
        i = (i + 1) & mask;
    }
}

static int grow(pk_live_table *t)
{
    size_t n = t->n_buckets * 2;
    unsigned log2n = 64 - t->shift + 1;
    if (n < t->n_buckets || n > SIZE_MAX / sizeof(pk_live_bucket) || log2n > 63)
        return PROFKIT_ENOMEM;
    size_t mapped;
    pk_live_bucket *nb = buckets_alloc(n, &mapped);
    if (!nb)
        return PROFKIT_ENOMEM;
    pk_live_table old = *t;
    t->b = nb;
    t->mapped = mapped;
    t->count = 0;
    set_size(t, n, log2n);
    /* Bucket i's entries go home to buckets 2i and 2i + 1 (or just after):
     * the new table is written in order, and the old one's pages behind
     * are given back as the moving goes, PK_HUGE_PAGE bytes at a time. */
    size_t per = PK_HUGE_PAGE / sizeof(pk_live_bucket), done = 0;
    for (size_t i = 0; i < old.n_buckets; i++) {
        for (unsigned k = 0; k < PK_LIVE_WAYS; k++)
            if (pk_live_row(&old.b[i], k) != PK_LIVE_ROWS)
                insert_new(t, old.b[i].addr[k], old.b[i].size[k], pk_live_row(&old.b[i], k));
#if defined(__linux__) && defined(MADV_DONTNEED)
        if (old.mapped && (i + 1) % per == 0) {
            madvise(old.b + done, (i + 1 - done) * sizeof(pk_live_bucket), MADV_DONTNEED);
            done = i + 1;
        }
#endif
    }
    (void)per;
    (void)done;
    buckets_free(old.b, old.mapped);
    return 0;
}

void pk_live_release_big(pk_live_table *t, uint32_t size)
{
    uint32_t i = size & ~PK_LIVE_BIG;
    t->big[i] = t->big_free;
    t->big_free = i;
}

/* The slot's encoding of size; PK_LIVE_NONE when out of memory. */
static uint32_t encode_size(pk_live_table *t, uint64_t size)
{
    if (size < PK_LIVE_BIG)
        return (uint32_t)size;
    uint32_t i = t->big_free;
    if (i != PK_LIVE_NONE) {
        t->big_free = (uint32_t)t->big[i];
    } else {
        if (t->n_big >= PK_LIVE_BIG - 1 || PK_VEC_RESERVE(t->big, t->n_big, t->cap_big, 1) != 0)
            return PK_LIVE_NONE;
        i = (uint32_t)t->n_big++;
    }
    t->big[i] = size;
    return PK_LIVE_BIG | i;
}

/* The bucket and slot holding addr, or NULL. */
static pk_live_bucket *find(const pk_live_table *t, uint64_t addr, unsigned *slot)
{
    size_t mask = t->n_buckets - 1, i = (size_t)(pk_live_home(t, addr) - t->b);
    for (;;) {
        pk_live_bucket *b = &t->b[i];
        unsigned m = pk_live_match(b, addr);
        if (m) {
            *slot = pk_lowest_bit(m);
            return b;
        }
        if (!pk_live_passed_on(b))
            return NULL;
        i = (i + 1) & mask;
    }
}

int pk_live_put_slow(pk_live_table *t, uint64_t addr, uint64_t size, uint32_t row)
{
    uint32_t r;
    uint64_t s;
    return pk_live_put_slow_old(t, addr, size, row, &r, &s);
}

int pk_live_take_far(pk_live_table *t, uint64_t addr)
{
    uint32_t r;
    uint64_t s;
    return pk_live_take_far_old(t, addr, &r, &s);
}

int pk_live_put_slow_old(pk_live_table *t, uint64_t addr, uint64_t size, uint32_t row,
                         uint32_t *old_row, uint64_t *old_size)
{
    unsigned k;
    pk_live_bucket *b = find(t, addr, &k);
    *old_row = PK_LIVE_ROWS;
    if (b) {
        uint32_t sz = encode_size(t, size);
        if (sz == PK_LIVE_NONE)
            return PROFKIT_ENOMEM;
        *old_row = pk_live_row(b, k);
        *old_size = pk_live_size(t, b->size[k]);
        if (b->size[k] & PK_LIVE_BIG)
            pk_live_release_big(t, b->size[k]);
        pk_live_set_row(b, k, row);
        b->size[k] = sz;
        return 0;
    }
    if (t->count >= t->limit && grow(t) != 0)
        return PROFKIT_ENOMEM;
    uint32_t sz = encode_size(t, size);
    if (sz == PK_LIVE_NONE)
        return PROFKIT_ENOMEM;
    insert_new(t, addr, sz, row);
    return 0;
}

int pk_live_take_far_old(pk_live_table *t, uint64_t addr, uint32_t *old_row, uint64_t *old_size)
{
    unsigned k;
    pk_live_bucket *b = find(t, addr, &k);
    if (!b)
        return 0;
    *old_row = pk_live_row(b, k);
    *old_size = pk_live_size(t, b->size[k]);
    if (b->size[k] & PK_LIVE_BIG)
        pk_live_release_big(t, b->size[k]);
    pk_live_set_row(b, k, PK_LIVE_ROWS);
    t->count--;
    /* Every bucket from the home up to this one passed the entry on. */
    size_t mask = t->n_buckets - 1, i = (size_t)(pk_live_home(t, addr) - t->b);
    for (; &t->b[i] != b; i = (i + 1) & mask)
        pass_on(&t->b[i], -1);
    return 1;
}
