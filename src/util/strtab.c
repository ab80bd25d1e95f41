/* strtab.c: interned strings in stable chunks, hash-consed through an idset. */
#include "util/strtab.h"

#include <stdlib.h>

struct key {
    const char *s;
    size_t len;
};

static int str_eq(const void *ctx, uint32_t id, const void *k)
{
    const pk_strtab *t = ctx;
    const struct key *key = k;
    return t->len[id] == key->len && memcmp(t->ptr[id], key->s, key->len) == 0;
}

int pk_strtab_init(pk_strtab *t)
{
    memset(t, 0, sizeof(*t));
    t->chunk_size = 64 * 1024;
    return pk_strtab_intern(t, "", 0) == 0 ? 0 : PROFKIT_ENOMEM;
}

void pk_strtab_free(pk_strtab *t)
{
    for (size_t i = 0; i < t->n_chunks; i++)
        free(t->chunks[i]);
    free(t->chunks);
    free(t->ptr);
    free(t->len);
    pk_idset_free(&t->set);
    memset(t, 0, sizeof(*t));
}

static char *new_chunk(pk_strtab *t, size_t size)
{
    if (PK_VEC_RESERVE(t->chunks, t->n_chunks, t->cap_chunks, 1) != 0)
        return NULL;
    char *c = malloc(size);
    if (c)
        t->chunks[t->n_chunks++] = c;
    return c;
}

static char *store(pk_strtab *t, const char *s, size_t len)
{
    size_t need = len + 1;
    char *dst;
    if (need > t->chunk_size / 4) {
        /* A large string gets a chunk of its own; the current one stays. */
        dst = new_chunk(t, need);
        if (!dst)
            return NULL;
    } else {
        if (!t->cur || t->chunk_size - t->chunk_used < need) {
            t->cur = new_chunk(t, t->chunk_size);
            if (!t->cur)
                return NULL;
            t->chunk_used = 0;
        }
        dst = t->cur + t->chunk_used;
        t->chunk_used += need;
    }
    memcpy(dst, s, len);
    dst[len] = '\0';
    return dst;
}

uint32_t pk_strtab_find(const pk_strtab *t, const char *s, size_t len)
{
    struct key k = { s, len };
    return pk_idset_find(&t->set, pk_hash_bytes(s, len, 0), str_eq, t, &k);
}

uint64_t pk_strtab_hash(const char *s, size_t len) { return pk_hash_bytes(s, len, 0); }

uint32_t pk_strtab_intern(pk_strtab *t, const char *s, size_t len)
{
    return pk_strtab_intern_hashed(t, s, len, pk_hash_bytes(s, len, 0));
}

uint32_t pk_strtab_intern_hashed(pk_strtab *t, const char *s, size_t len, uint64_t h)
{
    if (len > UINT32_MAX - 1)
        return PROFKIT_NONE;
    struct key k = { s, len };
    size_t at;
    uint32_t id = pk_idset_find_at(&t->set, h, str_eq, t, &k, &at);
    if (id != PROFKIT_NONE)
        return id;
    if (t->n >= PROFKIT_NONE - 1)
        return PROFKIT_NONE;
    if (PK_VEC_RESERVE(t->ptr, t->n, t->cap_ptr, 1) != 0 ||
        PK_VEC_RESERVE(t->len, t->n, t->cap_len, 1) != 0)
        return PROFKIT_NONE;
    char *copy = store(t, s, len);
    if (!copy)
        return PROFKIT_NONE;
    id = (uint32_t)t->n;
    if (pk_idset_insert_at(&t->set, h, id, at) != 0)
        return PROFKIT_NONE;
    t->ptr[t->n] = copy;
    t->len[t->n] = (uint32_t)len;
    t->n++;
    return id;
}
