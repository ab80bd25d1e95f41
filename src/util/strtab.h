/*
 * strtab.h: an interned string table. Ids are dense uint32; id 0 is "".
 * Strings are stored NUL-terminated in chunks that never move, so a pointer
 * returned by pk_strtab_get stays valid until the table is freed.
 */
#ifndef PROFKIT_STRTAB_H
#define PROFKIT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

typedef struct pk_strtab {
    const char **ptr; /* ptr[id] */
    uint32_t *len;    /* len[id] */
    size_t n, cap_ptr, cap_len;
    char **chunks;    /* owned storage */
    size_t n_chunks, cap_chunks;
    char *cur;        /* chunk being filled */
    size_t chunk_used, chunk_size;
    pk_idset set;
} pk_strtab;

/* Initializes an empty table holding "" as id 0. Returns 0 or PROFKIT_ENOMEM. */
int pk_strtab_init(pk_strtab *t);
void pk_strtab_free(pk_strtab *t);
/* Interns s[0..len); returns the id or PROFKIT_NONE when out of memory. */
uint32_t pk_strtab_intern(pk_strtab *t, const char *s, size_t len);
/*
 * The same in steps, for a caller with several strings to intern: each
 * one's hash (pk_strtab_hash) and its index slot asked for early
 * (pk_strtab_prefetch), so the misses of several lookups overlap; then
 * pk_strtab_intern_hashed with that hash, in the order pk_strtab_intern
 * would have been called (the ids are the same).
 */
uint64_t pk_strtab_hash(const char *s, size_t len);
static inline void pk_strtab_prefetch(const pk_strtab *t, uint64_t hash)
{
    pk_idset_prefetch(&t->set, hash);
}
uint32_t pk_strtab_intern_hashed(pk_strtab *t, const char *s, size_t len, uint64_t hash);
/* Looks up without inserting; PROFKIT_NONE when absent. */
uint32_t pk_strtab_find(const pk_strtab *t, const char *s, size_t len);
static inline const char *pk_strtab_get(const pk_strtab *t, uint32_t id)
{
    return id < t->n ? t->ptr[id] : "";
}
static inline uint32_t pk_strtab_len(const pk_strtab *t, uint32_t id)
{
    return id < t->n ? t->len[id] : 0;
}

#endif
