/*
 * cursor.h: a bounds-checked reader over a byte buffer. Every read checks the
 * remaining length first and fails without moving when the bytes are not
 * there, so a reader can report the exact offset of what it was decoding.
 *
 * All reads return 0 on success, PROFKIT_ETRUNCATED when the buffer ends
 * first, and (varints) PROFKIT_ECORRUPT for an over-long encoding.
 */
#ifndef PROFKIT_CURSOR_H
#define PROFKIT_CURSOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "profkit.h"

typedef struct pk_cursor {
    const uint8_t *data;
    size_t size;
    size_t pos;
} pk_cursor;

static inline void pk_cursor_init(pk_cursor *c, const void *data, size_t size)
{
    c->data = (const uint8_t *)data;
    c->size = size;
    c->pos = 0;
}
static inline size_t pk_cursor_left(const pk_cursor *c) { return c->size - c->pos; }
static inline int pk_cursor_eof(const pk_cursor *c) { return c->pos >= c->size; }

static inline int pk_cursor_skip(pk_cursor *c, size_t n)
{
    if (n > c->size - c->pos)
        return PROFKIT_ETRUNCATED;
    c->pos += n;
    return 0;
}

/* Points *out at the next n bytes (no copy) and advances. */
static inline int pk_cursor_bytes(pk_cursor *c, size_t n, const uint8_t **out)
{
    if (n > c->size - c->pos)
        return PROFKIT_ETRUNCATED;
    *out = c->data + c->pos;
    c->pos += n;
    return 0;
}

static inline int pk_cursor_u8(pk_cursor *c, uint8_t *v)
{
    if (c->pos >= c->size)
        return PROFKIT_ETRUNCATED;
    *v = c->data[c->pos++];
    return 0;
}

static inline uint16_t pk_load_be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t pk_load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint32_t pk_load_le32(const uint8_t *p)
{
    return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0];
}
static inline uint64_t pk_load_be64(const uint8_t *p)
{
    return ((uint64_t)pk_load_be32(p) << 32) | pk_load_be32(p + 4);
}
static inline uint64_t pk_load_le64(const uint8_t *p)
{
    return ((uint64_t)pk_load_le32(p + 4) << 32) | pk_load_le32(p);
}
static inline void pk_put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void pk_put_be32(uint8_t *p, uint32_t v)
{
    p[3] = (uint8_t)v; p[2] = (uint8_t)(v >> 8); p[1] = (uint8_t)(v >> 16); p[0] = (uint8_t)(v >> 24);
}
static inline void pk_put_le64(uint8_t *p, uint64_t v)
{
    pk_put_le32(p, (uint32_t)v); pk_put_le32(p + 4, (uint32_t)(v >> 32));
}
static inline void pk_put_be64(uint8_t *p, uint64_t v)
{
    pk_put_be32(p, (uint32_t)(v >> 32)); pk_put_be32(p + 4, (uint32_t)v);
}

#define PK_CURSOR_FIXED(name, type, n, load)                          \
    static inline int pk_cursor_##name(pk_cursor *c, type *v) \
    {                                                                 \
        if (n > c->size - c->pos)                                     \
            return PROFKIT_ETRUNCATED;                                \
        *v = load(c->data + c->pos);                                  \
        c->pos += n;                                                  \
        return 0;                                                     \
    }
PK_CURSOR_FIXED(be16, uint16_t, 2, pk_load_be16)
PK_CURSOR_FIXED(be32, uint32_t, 4, pk_load_be32)
PK_CURSOR_FIXED(le32, uint32_t, 4, pk_load_le32)
PK_CURSOR_FIXED(be64, uint64_t, 8, pk_load_be64)
PK_CURSOR_FIXED(le64, uint64_t, 8, pk_load_le64)
#undef PK_CURSOR_FIXED

/*
 * Decodes an unsigned LEB128 varint (protocol buffers), at most 10 bytes.
 * PROFKIT_ETRUNCATED when the buffer ends inside it, PROFKIT_ECORRUPT when
 * it is longer than 10 bytes or overflows 64 bits. The cursor does not move
 * on failure.
 */
static inline int pk_cursor_varint(pk_cursor *c, uint64_t *v)
{
    uint64_t r = 0;
    size_t p = c->pos;
    for (unsigned i = 0; i < 10; i++) {
        if (p >= c->size)
            return PROFKIT_ETRUNCATED;
        uint8_t b = c->data[p++];
        if (i == 9 && b > 1)
            return PROFKIT_ECORRUPT;
        r |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            c->pos = p;
            *v = r;
            return 0;
        }
    }
    return PROFKIT_ECORRUPT;
}

/* Encodes v as a varint into buf (>= 10 bytes); returns the length. */
static inline size_t pk_varint_encode(uint8_t *buf, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        buf[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    buf[n++] = (uint8_t)v;
    return n;
}

/* Reads a NUL-terminated string; *s points into the buffer, *len excludes
 * the NUL. PROFKIT_ETRUNCATED when no NUL is found. */
static inline int pk_cursor_cstr(pk_cursor *c, const char **s, size_t *len)
{
    if (c->pos >= c->size)
        return PROFKIT_ETRUNCATED;
    const uint8_t *start = c->data + c->pos;
    const uint8_t *nul = (const uint8_t *)memchr(start, 0, c->size - c->pos);
    if (!nul)
        return PROFKIT_ETRUNCATED;
    *s = (const char *)start;
    *len = (size_t)(nul - start);
    c->pos += *len + 1;
    return 0;
}

#endif
