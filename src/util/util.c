/* util.c: growable arrays, hashing, the id set, and error construction. */
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <sys/random.h>
#endif

/* Until the constructor runs: fixed odd constants (still a good mix). */
uint64_t pk_hash_secret[2] = { 0x2d358dccaa6c78a5ULL, 0x8bb84b93962eacc9ULL };

/*
 * Draws the hash secret once, before main (and before any thread of the
 * library starts). getrandom; where it is missing or fails, the time and
 * an address (ASLR) mixed, which still differs from run to run.
 */
__attribute__((constructor)) static void hash_secret_init(void)
{
    uint64_t s[2] = { 0, 0 };
    int ok = 0;
#if defined(__linux__)
    ok = getrandom(s, sizeof s, GRND_NONBLOCK) == (ssize_t)sizeof s;
#endif
    if (!ok) {
        struct timespec ts;
        timespec_get(&ts, TIME_UTC);
        s[0] = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)&s;
        s[1] = (uint64_t)(uintptr_t)&hash_secret_init * 0x9e3779b97f4a7c15ULL ^ s[0];
    }
    const char *fixed = getenv("PROFKIT_HASH_SEED"); /* reproducing a run */
    if (fixed && *fixed) {
        s[0] = strtoull(fixed, NULL, 0);
        s[1] = s[0] * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
    }
    pk_hash_secret[0] ^= s[0];
    pk_hash_secret[1] ^= s[1];
    pk_hash_secret[1] |= 1; /* odd: the product keeps every bit of the key */
}

uint64_t pk_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

int pk_grow(void **ptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return PROFKIT_ENOMEM;
        ncap *= 2;
    }
    size_t bytes;
    if (pk_mul_size(ncap, elem, &bytes) != 0)
        return PROFKIT_ENOMEM;
    void *np = realloc(*ptr, bytes);
    if (!np)
        return PROFKIT_ENOMEM;
    *ptr = np;
    *cap = ncap;
    return 0;
}

static inline uint64_t read64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t mix(uint64_t a, uint64_t b)
{
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

uint64_t pk_hash_bytes(const void *data, size_t len, uint64_t seed)
{
    const uint8_t *p = data;
    uint64_t h = seed ^ pk_hash_secret[0] ^ (uint64_t)len;
    if (len >= 64) {
        /* Four independent lanes: the multiplies overlap instead of waiting
         * on each other (long keys: stack records, marker payloads). */
        uint64_t h1 = h ^ 0x243f6a8885a308d3ULL, h2 = h ^ 0x13198a2e03707344ULL,
                 h3 = h ^ 0xa4093822299f31d0ULL;
        while (len >= 32) {
            h = mix(h ^ read64(p), 0xa0761d6478bd642fULL);
            h1 = mix(h1 ^ read64(p + 8), 0xe7037ed1a0b428dbULL);
            h2 = mix(h2 ^ read64(p + 16), 0x8ebc6af09c88c6e3ULL);
            h3 = mix(h3 ^ read64(p + 24), 0x589965cc75374cc3ULL);
            p += 32;
            len -= 32;
        }
        h ^= mix(h1 ^ h2, 0x1d8e4e27c47d124fULL) ^ h3;
    }
    while (len >= 8) {
        h = mix(h ^ read64(p), 0xa0761d6478bd642fULL);
        p += 8;
        len -= 8;
    }
    uint64_t tail = 0;
    if (len)
        memcpy(&tail, p, len);
    h = mix(h ^ tail, 0xe7037ed1a0b428dbULL ^ pk_hash_secret[1]);
    return pk_hash_u64(h);
}

void *pk_huge_map(size_t bytes)
{
#if PK_HUGE_MAP
    /* PK_HUGE_PAGE more than asked, then the ends cut so that it starts on
     * a huge-page boundary */
    size_t len = bytes + PK_HUGE_PAGE;
    if (len < bytes)
        return NULL;
    uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    uint8_t *start = m + ((PK_HUGE_PAGE - (uintptr_t)m % PK_HUGE_PAGE) % PK_HUGE_PAGE);
    if (start > m)
        munmap(m, (size_t)(start - m));
    if (m + len > start + bytes)
        munmap(start + bytes, (size_t)(m + len - (start + bytes)));
#if defined(MADV_HUGEPAGE)
    madvise(start, bytes, MADV_HUGEPAGE); /* advice only: failure is fine */
#endif
    return start;
#else
    (void)bytes;
    return NULL;
#endif
}

void pk_huge_unmap(void *p, size_t bytes)
{
#if PK_HUGE_MAP
    if (p)
        munmap(p, bytes);
#else
    (void)p;
    (void)bytes;
#endif
}

/*
 * The slots of a set. A table of PK_HUGE_PAGE or more is mapped on huge
 * pages (pk_huge_map): its slots are read at random, and with 4 KiB pages
 * nearly every find and insert of a big set also missed the TLB, and every
 * page was faulted in on its own. Its pages cost memory only once touched,
 * as calloc's would.
 */
static int slots_mapped(size_t cap) { return PK_HUGE_MAP && cap * sizeof(uint64_t) >= PK_HUGE_PAGE; }

static uint64_t *slots_alloc(size_t cap)
{
    if (slots_mapped(cap))
        return pk_huge_map(cap * sizeof(uint64_t));
    return calloc(cap, sizeof(uint64_t));
}

static void slots_free(uint64_t *slots, size_t cap)
{
    if (slots_mapped(cap))
        pk_huge_unmap(slots, cap * sizeof(uint64_t));
    else
        free(slots);
}

void pk_idset_free(pk_idset *s)
{
    slots_free(s->slots, s->cap);
    s->slots = NULL;
    s->cap = s->count = 0;
}

uint32_t pk_idset_find_at(const pk_idset *s, uint64_t hash, pk_idset_eq_fn eq,
                          const void *ctx, const void *key, size_t *at)
{
    *at = SIZE_MAX;
    if (s->cap == 0)
        return PROFKIT_NONE;
    uint32_t h32 = (uint32_t)(hash >> 32);
    size_t mask = s->cap - 1;
    for (size_t i = (size_t)pk_hash_u64(h32) & mask;; i = (i + 1) & mask) {
        uint64_t slot = s->slots[i];
        if (slot == 0) {
            *at = i;
            return PROFKIT_NONE;
        }
        if ((uint32_t)(slot >> 32) == h32) {
            uint32_t id = (uint32_t)slot - 1;
            if (eq(ctx, id, key))
                return id;
        }
    }
}

uint32_t pk_idset_find(const pk_idset *s, uint64_t hash, pk_idset_eq_fn eq,
                       const void *ctx, const void *key)
{
    size_t at;
    return pk_idset_find_at(s, hash, eq, ctx, key, &at);
}

static void place(uint64_t *slots, size_t mask, uint64_t hash, uint64_t slot)
{
    size_t i = (size_t)hash & mask;
    while (slots[i] != 0)
        i = (i + 1) & mask;
    slots[i] = slot;
}

int pk_idset_insert(pk_idset *s, uint64_t hash, uint32_t id)
{
    /* Keep the load factor under 3/4 (under 1/2, the tables of a big read
     * outgrew the caches and were a fifth of the Gecko reader's peak memory;
     * a miss now probes a few slots more, mostly in the same line). A slot
     * keeps only the high 32 bits of the hash, so the probe position is
     * derived from those bits alone, which lets a rehash place slots
     * without asking the caller again. */
    if ((s->count + 1) * 4 > s->cap * 3) {
        size_t ncap = s->cap ? s->cap * 2 : 64;
        if (ncap < s->cap)
            return PROFKIT_ENOMEM;
        if (ncap > SIZE_MAX / sizeof(uint64_t))
            return PROFKIT_ENOMEM;
        uint64_t *ns = slots_alloc(ncap);
        if (!ns)
            return PROFKIT_ENOMEM;
        for (size_t i = 0; i < s->cap; i++) {
            uint64_t slot = s->slots[i];
            if (slot)
                place(ns, ncap - 1, pk_hash_u64(slot >> 32), slot);
        }
        slots_free(s->slots, s->cap);
        s->slots = ns;
        s->cap = ncap;
    }
    uint64_t slot = ((uint64_t)(uint32_t)(hash >> 32) << 32) | ((uint64_t)id + 1);
    place(s->slots, s->cap - 1, pk_hash_u64(hash >> 32), slot);
    s->count++;
    return 0;
}

int pk_idset_insert_at(pk_idset *s, uint64_t hash, uint32_t id, size_t at)
{
    if (at >= s->cap || s->slots[at] != 0 || (s->count + 1) * 4 > s->cap * 3)
        return pk_idset_insert(s, hash, id);
    s->slots[at] = ((uint64_t)(uint32_t)(hash >> 32) << 32) | ((uint64_t)id + 1);
    s->count++;
    return 0;
}

int pk_error_setv(profkit_error *e, int code, const char *file, int64_t offset,
                       const char *fmt, va_list ap)
{
    if (!e)
        return code;
    memset(e, 0, sizeof(*e));
    e->code = code;
    if (file)
        snprintf(e->file, sizeof(e->file), "%s", file);
    if (offset >= 0) {
        e->has_offset = 1;
        e->offset = (uint64_t)offset;
    }
    vsnprintf(e->message, sizeof(e->message), fmt, ap);
    return code;
}

int pk_error_set(profkit_error *e, int code, const char *file, int64_t offset,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pk_error_setv(e, code, file, offset, fmt, ap);
    va_end(ap);
    return code;
}

int pk_error_set_pos(profkit_error *e, int code, const char *file, uint32_t line,
                          uint32_t column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pk_error_setv(e, code, file, -1, fmt, ap);
    va_end(ap);
    if (e) {
        e->line = line;
        e->column = column;
    }
    return code;
}

const char *profkit_strerror(int code)
{
    switch (code) {
    case PROFKIT_OK: return "success";
    case PROFKIT_EFORMAT: return "unrecognized format";
    case PROFKIT_ETRUNCATED: return "truncated input";
    case PROFKIT_ECORRUPT: return "corrupt input";
    case PROFKIT_EUNSUPPORTED: return "unsupported input";
    case PROFKIT_ENOMEM: return "out of memory";
    case PROFKIT_EIO: return "I/O error";
    case PROFKIT_EINVAL: return "invalid argument";
    case PROFKIT_ENOTFOUND: return "nothing matched";
    default: return "unknown error";
    }
}

char *profkit_error_string(char *buf, size_t n, const profkit_error *e)
{
    if (n == 0)
        return buf;
    const char *file = e->file[0] ? e->file : "<input>";
    if (e->line)
        snprintf(buf, n, "%s:%u:%u: %s", file, e->line, e->column, e->message);
    else if (e->has_offset)
        snprintf(buf, n, "%s: offset %llu: %s", file, (unsigned long long)e->offset, e->message);
    else
        snprintf(buf, n, "%s: %s", file, e->message);
    return buf;
}

static void merge_pass(uint32_t *a, uint32_t *tmp, size_t n, pk_cmp_u32_fn cmp, const void *ctx)
{
    if (n < 2)
        return;
    if (n <= 16) { /* insertion sort for short runs */
        for (size_t i = 1; i < n; i++) {
            uint32_t x = a[i];
            size_t j = i;
            while (j > 0 && cmp(ctx, a[j - 1], x) > 0) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    size_t h = n / 2;
    merge_pass(a, tmp, h, cmp, ctx);
    merge_pass(a + h, tmp, n - h, cmp, ctx);
    if (cmp(ctx, a[h - 1], a[h]) <= 0)
        return;
    memcpy(tmp, a, h * sizeof(uint32_t));
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        a[k++] = cmp(ctx, a[j], tmp[i]) < 0 ? a[j++] : tmp[i++];
    while (i < h)
        a[k++] = tmp[i++];
}

int pk_sort_u32(uint32_t *ids, size_t n, pk_cmp_u32_fn cmp, const void *ctx)
{
    if (n < 2)
        return 0;
    uint32_t *tmp = malloc((n / 2 + 1) * sizeof(uint32_t));
    if (!tmp)
        return PROFKIT_ENOMEM;
    merge_pass(ids, tmp, n, cmp, ctx);
    free(tmp);
    return 0;
}

char *pk_vformat(char *small, size_t cap, size_t *len, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, cap, fmt, ap);
    *len = 0;
    if (n < 0 || (size_t)n < cap) {
        va_end(again);
        if (n >= 0)
            *len = (size_t)n;
        else if (cap)
            small[0] = '\0';
        return small;
    }
    char *big = malloc((size_t)n + 1);
    if (big) {
        vsnprintf(big, (size_t)n + 1, fmt, again);
        *len = (size_t)n;
    }
    va_end(again);
    return big;
}
