/*
 * util.h: small internal helpers shared by every module: growable arrays
 * with overflow-checked sizes, hashing, and error construction.
 */
#ifndef PROFKIT_UTIL_H
#define PROFKIT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "profkit.h"

#if defined(__GNUC__)
/* On a declaration of internal data: the library is built position-
 * independent, and only a declaration marked hidden lets the compiler read
 * the data directly instead of through the GOT (one load more per use). */
#define PK_HIDDEN __attribute__((visibility("hidden")))
#define PK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define PK_LIKELY(x) __builtin_expect(!!(x), 1)
#define PK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define PK_HIDDEN
#define PK_PRINTF(a, b)
#define PK_LIKELY(x) (x)
#define PK_UNLIKELY(x) (x)
#endif

/* The index of m's lowest set bit (m != 0). */
static inline unsigned pk_lowest_bit(uint64_t m)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(m);
#else
    unsigned i = 0;
    while (!((m >> i) & 1))
        i++;
    return i;
#endif
}

/* a * b into *out; returns 0, or -1 on overflow. */
static inline int pk_mul_size(size_t a, size_t b, size_t *out)
{
    if (b != 0 && a > SIZE_MAX / b)
        return -1;
    *out = a * b;
    return 0;
}

/*
 * Makes room for `need` elements of `elem` bytes in *ptr (capacity *cap,
 * in elements), growing geometrically. Returns 0 or PROFKIT_ENOMEM.
 */
int pk_grow(void **ptr, size_t *cap, size_t need, size_t elem);

/*
 * printf into small (cap bytes) when the text fits, else into a new
 * allocation the caller frees (the result != small). *len is the length
 * (0 after an encoding error). NULL only when out of memory.
 */
char *pk_vformat(char *small, size_t cap, size_t *len, const char *fmt, va_list ap);

/* Makes room in a vector (ptr, n, cap) for extra more elements: 0, or
 * PROFKIT_ENOMEM with the vector as it was. The check that there is room
 * already is inline (most calls); only growing calls pk_grow. The
 * arguments are evaluated more than once: no side effects in them. */
#define PK_VEC_RESERVE(ptr, n, cap, extra)                                    \
    (PK_LIKELY((n) + (extra) <= (cap)) ? 0                                     \
                                      : pk_grow((void **)&(ptr), &(cap), (n) + (extra), sizeof(*(ptr))))

/* a + b, saturating at the int64 limits instead of overflowing. Sums of
 * values from hostile inputs use it so no total wraps around. */
static inline int64_t pk_sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}
static inline void pk_sat_addto(int64_t *a, int64_t b) { *a = pk_sat_add(*a, b); }

/*
 * Hashing of input-keyed tables (strings, addresses, stacks). Both hashes
 * mix in a secret drawn at random once per process (pk_hash_secret,
 * set before main by util.c), so no file can choose keys that collide: the
 * tables stay O(1) per operation on any input. Nothing may depend on a
 * hash's value or a table's slot order across runs.
 */
extern PK_HIDDEN uint64_t pk_hash_secret[2];

/* 64-bit hash of bytes (wyhash-style mixing with the secret; not cryptographic). */
uint64_t pk_hash_bytes(const void *data, size_t len, uint64_t seed);
/* FNV-1a of n bytes from h (start: PK_FNV_START): the same in every run
 * and on every machine, with no secret. For what a file holds or output
 * shows (a checksum, a colour by name), never for a table keyed by input. */
#define PK_FNV_START 0xcbf29ce484222325ull
uint64_t pk_fnv1a(uint64_t h, const void *data, size_t n);
/* 64-bit hash of a 64-bit key: the 128-bit product with the secret, folded. */
static inline uint64_t pk_hash_u64(uint64_t x)
{
    __uint128_t r = (__uint128_t)(x ^ pk_hash_secret[0]) * pk_hash_secret[1];
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/*
 * Fills *e and returns `code`. offset < 0 means "no offset". `file` may be
 * NULL. e may be NULL (then only the code is returned).
 */
int pk_error_set(profkit_error *e, int code, const char *file, int64_t offset,
                      const char *fmt, ...) PK_PRINTF(5, 6);
int pk_error_setv(profkit_error *e, int code, const char *file, int64_t offset,
                       const char *fmt, va_list ap);
/* Same for text inputs: line and column (1-based). */
int pk_error_set_pos(profkit_error *e, int code, const char *file, uint32_t line,
                          uint32_t column, const char *fmt, ...) PK_PRINTF(6, 7);

/* The optional parts (profkit_part_get), in their table's order. */
enum { PK_PART_STORE, PK_PART_CLICKHOUSE, PK_PART_SERVER, PK_PART_DISASM, PK_PART_DEBUGINFOD };
/* 0 when this build has part `id` (PK_PART_*); else PROFKIT_EUNSUPPORTED,
 * with err naming the part and how to get it (err may be NULL). */
int pk_part_check(int id, profkit_error *err);

/*
 * An open-addressing set of ids keyed by a caller-computed hash; equality is
 * decided by a callback against the caller's own table. Used to hash-cons
 * strings, functions, frames, stacks and sample rows.
 */
typedef int (*pk_idset_eq_fn)(const void *ctx, uint32_t id, const void *key);
typedef struct pk_idset {
    uint64_t *slots; /* (hash32 << 32) | (id + 1); 0 = empty */
    size_t cap;      /* power of two or 0 */
    size_t count;
} pk_idset;

void pk_idset_free(pk_idset *s);
/* Looks up key; returns its id or PROFKIT_NONE. */
uint32_t pk_idset_find(const pk_idset *s, uint64_t hash, pk_idset_eq_fn eq,
                            const void *ctx, const void *key);
/* Inserts id (not present yet) under hash. Returns 0 or PROFKIT_ENOMEM. */
int pk_idset_insert(pk_idset *s, uint64_t hash, uint32_t id);
/* pk_idset_find that also gives, when key is absent, the free slot its probe
 * ended on (*at; SIZE_MAX for an empty set), and pk_idset_insert into that
 * slot when the set is unchanged since and needs no growth (else the slot is
 * found again): a find then an insert of the same key probe once. */
uint32_t pk_idset_find_at(const pk_idset *s, uint64_t hash, pk_idset_eq_fn eq,
                          const void *ctx, const void *key, size_t *at);
int pk_idset_insert_at(pk_idset *s, uint64_t hash, uint32_t id, size_t at);
/* Zeroed memory of `bytes` mapped from the system on a huge-page boundary
 * with the advice to back it by huge pages (for big tables read at
 * random); its pages cost memory once touched. NULL when it cannot be
 * mapped, always where PK_HUGE_MAP is 0. pk_huge_unmap gives it back. */
#if defined(__linux__)
#define PK_HUGE_MAP 1
#else
#define PK_HUGE_MAP 0
#endif
#define PK_HUGE_PAGE ((size_t)2 << 20)
void *pk_huge_map(size_t bytes);
void pk_huge_unmap(void *p, size_t bytes);
/* Asks the cache for the first slot a find or insert of hash reads (no
 * effect on the set): called some keys ahead, the misses overlap. */
static inline void pk_idset_prefetch(const pk_idset *s, uint64_t hash)
{
    if (s->cap)
        __builtin_prefetch(&s->slots[(size_t)pk_hash_u64(hash >> 32) & (s->cap - 1)]);
}

/*
 * Stable sort of ids with a comparator that gets a context (qsort has none,
 * and qsort_r is not portable). Returns 0 or PROFKIT_ENOMEM.
 */
typedef int (*pk_cmp_u32_fn)(const void *ctx, uint32_t a, uint32_t b);
int pk_sort_u32(uint32_t *ids, size_t n, pk_cmp_u32_fn cmp, const void *ctx);

#endif
