/* map64.c: the u64 -> u32 map (map64.h). */
#include "util/map64.h"

#include <stdlib.h>

void pk_map64_free(pk_map64 *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}

/* Doubles the table (256 slots at first) and moves every entry over. */
static int grow(pk_map64 *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 256;
    uint64_t *nk = ncap > m->cap ? malloc(ncap * sizeof(uint64_t)) : NULL;
    uint32_t *nv = ncap > m->cap ? malloc(ncap * sizeof(uint32_t)) : NULL;
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return PROFKIT_ENOMEM;
    }
    memset(nv, 0xff, ncap * sizeof(uint32_t));
    for (size_t j = 0; j < m->cap; j++) {
        if (m->vals[j] == PK_MAP64_EMPTY)
            continue;
        size_t i = (size_t)pk_hash_u64(m->keys[j]) & (ncap - 1);
        while (nv[i] != PK_MAP64_EMPTY)
            i = (i + 1) & (ncap - 1);
        nk[i] = m->keys[j];
        nv[i] = m->vals[j];
    }
    free(m->keys);
    free(m->vals);
    m->keys = nk;
    m->vals = nv;
    m->cap = ncap;
    return 0;
}

int pk_map64_put(pk_map64 *m, uint64_t key, uint32_t val)
{
    if ((m->count + 1) * 2 > m->cap && grow(m) != 0)
        return PROFKIT_ENOMEM;
    size_t mask = m->cap - 1;
    size_t i = (size_t)pk_hash_u64(key) & mask;
    for (; m->vals[i] != PK_MAP64_EMPTY; i = (i + 1) & mask)
        if (m->keys[i] == key) {
            m->vals[i] = val;
            return 1;
        }
    m->keys[i] = key;
    m->vals[i] = val;
    m->count++;
    return 0;
}
