/* store_ids.c: content ids (the same bytes give the same id in every
 * engine, run and machine, so a row shared by many profiles is stored
 * once), and a map from ids to the indexes of one profile. */
#include "store/store.h"

#include <stdlib.h>

static uint64_t fmix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

static uint64_t finish(uint64_t a, uint64_t b)
{
    uint64_t h = fmix(a ^ fmix(b + 0x9e3779b97f4a7c15ULL)) & 0x7fffffffffffffffULL;
    return h ? h : 1;
}

/* Two lanes of 64 bits (murmur3's finalizer per word): a collision of
 * both needs 2^63 tries by chance; docs/store.md says what that means. */
uint64_t pk_store_hash(const void *data, size_t len, uint64_t tag)
{
    const unsigned char *b = data;
    uint64_t a = fmix(tag * 0x9e3779b97f4a7c15ULL + len), c = fmix(tag + 0x632be59bd9b4e019ULL);
    while (len >= 8) {
        uint64_t w = 0;
        for (int i = 0; i < 8; i++)
            w |= (uint64_t)b[i] << (8 * i);
        a = fmix(a ^ w) + c;
        c = fmix(c + w) ^ a;
        b += 8;
        len -= 8;
    }
    uint64_t w = 0;
    for (size_t i = 0; i < len; i++)
        w |= (uint64_t)b[i] << (8 * i);
    a = fmix(a ^ w ^ ((uint64_t)len << 56)) + c;
    return finish(a, c);
}

uint64_t pk_store_hash_words(const uint64_t *w, size_t n, uint64_t tag)
{
    uint64_t a = fmix(tag * 0x9e3779b97f4a7c15ULL + n), c = fmix(tag + 0x632be59bd9b4e019ULL);
    for (size_t i = 0; i < n; i++) {
        a = fmix(a ^ w[i]) + c;
        c = fmix(c + w[i]) ^ a;
    }
    return finish(a, c);
}

uint64_t pk_store_value_id(const char *type, const char *unit)
{
    uint64_t w[6] = { pk_store_hash(type, strlen(type), PK_ID_STRING),
                      pk_store_hash(unit, strlen(unit), PK_ID_STRING), 0, 0, 0, 0 };
    return pk_store_hash_words(w, 6, PK_ID_VALUE);
}

void pk_idmap_free(pk_idmap *m) { pk_map64_free(m); }

uint32_t pk_idmap_get(const pk_idmap *m, uint64_t key)
{
    return key ? pk_map64_get(m, key) : PROFKIT_NONE;
}

int pk_idmap_put(pk_idmap *m, uint64_t key, uint32_t val)
{
    return key && pk_map64_put(m, key, val) < 0 ? PROFKIT_ENOMEM : 0;
}
