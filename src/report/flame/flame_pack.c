/*
 * flame_pack.c: the markers' packed columns (docs/viewer.md, "markers").
 *
 * A million markers' times are most of a page's bytes, and a time in ns
 * is close to random in its low bits: a varint of it in base64 takes
 * more than the number holds. The page's markers are therefore one
 * stream of bytes, gzip-compressed (deflate finds the kinds' and
 * payloads' repeats, and its Huffman codes give the times' high bytes
 * the few bits they hold), written as base85 text (5 characters per 4
 * bytes, where base64 takes 5 1/3). The page inflates it with its own
 * inflater (12_time.js), so it reads the markers in any browser and
 * answers queries synchronously.
 */
#include "report/flame/flame.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* 85 printable characters with no '"', '\\' (the text is a JSON string)
 * and no '<' (it sits in a script element): '!' to 'x' less those three. */
static const char b85_digits[] = "!#$%&'()*+,-./0123456789:;=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwx";

void pk_flame_put_base85(pk_buf *b, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i += 4) {
        uint32_t v = 0;
        for (size_t k = 0; k < 4; k++)
            v = v << 8 | (i + k < n ? p[i + k] : 0u);
        char q[5];
        for (int k = 4; k >= 0; k--) {
            q[k] = b85_digits[v % 85];
            v /= 85;
        }
        pk_buf_put(b, q, 5);
    }
}

int pk_flame_gzip(const unsigned char *in, size_t n, unsigned char **out, size_t *out_n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    *out = NULL;
    *out_n = 0;
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return PROFKIT_ENOMEM;
    size_t cap = deflateBound(&z, n > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uLong)n);
    if (n > UINT32_MAX / 2 || !(*out = malloc(cap ? cap : 1))) {
        deflateEnd(&z);
        return PROFKIT_ENOMEM;
    }
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    z.next_out = *out;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    *out_n = cap - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(*out);
        *out = NULL;
        *out_n = 0;
        return PROFKIT_ENOMEM;
    }
    return 0;
}

void pk_flame_raw_varint(pk_buf *b, uint64_t u)
{
    unsigned char c[10];
    size_t k = 0;
    while (u >= 128) {
        c[k++] = (unsigned char)((u & 127) | 128);
        u >>= 7;
    }
    c[k++] = (unsigned char)u;
    pk_buf_put(b, c, k);
}

int pk_flame_planes_for(const uint64_t *v, size_t n)
{
    size_t bits[65] = { 0 };
    for (size_t i = 0; i < n; i++) {
        int k = 0;
        for (uint64_t x = v[i]; x; x >>= 1)
            k++;
        bits[k]++;
    }
    size_t seen = 0;
    int k = 0;
    for (; k < 64; k++)
        if ((seen += bits[k]) * 2 >= n)
            break;
    int s = (k + 7) / 8;
    return s > 7 ? 7 : s;
}

int pk_flame_put_planes(pk_buf *b, const uint64_t *v, size_t n, int s)
{
    if (pk_buf_reserve(b, n * (size_t)s) != 0)
        return PROFKIT_ENOMEM;
    for (int k = 0; k < s; k++)
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)(v[i] >> (8 * k));
            pk_buf_put(b, &c, 1);
        }
    for (size_t i = 0; i < n; i++)
        pk_flame_raw_varint(b, s ? v[i] >> (8 * s) : v[i]);
    return pk_buf_error(b);
}
