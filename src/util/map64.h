/*
 * map64.h: a map from 64-bit keys (any value, 0 included) to 32-bit values
 * below UINT32_MAX: open addressing with linear probing, at most half
 * full. Keys are hashed with the process's secret (pk_hash_u64), so no
 * input can choose keys that collide. The bsprof reader's id tables and
 * rows, its writer's memo, and the store's id maps use it.
 *
 * A slot whose value is PK_MAP64_EMPTY is free; a caller may walk
 * keys[0..cap) and vals[0..cap) (in no particular order) to visit every
 * entry.
 */
#ifndef PROFKIT_MAP64_H
#define PROFKIT_MAP64_H

#include "util/util.h"

#define PK_MAP64_EMPTY UINT32_MAX

typedef struct pk_map64 {
    uint64_t *keys;
    uint32_t *vals; /* PK_MAP64_EMPTY = a free slot */
    size_t cap, count; /* cap: a power of two, or 0 */
} pk_map64;

void pk_map64_free(pk_map64 *m);

/* The value of key, or PK_MAP64_EMPTY. */
static inline uint32_t pk_map64_get(const pk_map64 *m, uint64_t key)
{
    if (!m->cap)
        return PK_MAP64_EMPTY;
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)pk_hash_u64(key) & mask;; i = (i + 1) & mask) {
        if (m->vals[i] == PK_MAP64_EMPTY)
            return PK_MAP64_EMPTY;
        if (m->keys[i] == key)
            return m->vals[i];
    }
}

/* Sets key to val (val < PK_MAP64_EMPTY), replacing its value. Returns 1
 * when the key was there, 0 when it is new, or PROFKIT_ENOMEM. */
int pk_map64_put(pk_map64 *m, uint64_t key, uint32_t val);

#endif
