/* text.c: byte-order marks and UTF-16 to UTF-8; see text.h. */
#include "io/text.h"

#include <stdlib.h>

int pk_text_bom(const uint8_t *d, size_t n, size_t *bom_len)
{
    *bom_len = 0;
    if (n >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf) {
        *bom_len = 3;
        return PROFKIT_TEXT_UTF8_BOM;
    }
    if (n >= 2 && d[0] == 0xff && d[1] == 0xfe) {
        *bom_len = 2;
        return PROFKIT_TEXT_UTF16LE;
    }
    if (n >= 2 && d[0] == 0xfe && d[1] == 0xff) {
        *bom_len = 2;
        return PROFKIT_TEXT_UTF16BE;
    }
    return PROFKIT_TEXT_PLAIN;
}

static size_t put_utf8(uint8_t *o, uint32_t c)
{
    if (c < 0x80) {
        o[0] = (uint8_t)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (uint8_t)(0xc0 | c >> 6);
        o[1] = (uint8_t)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = (uint8_t)(0xe0 | c >> 12);
        o[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
        o[2] = (uint8_t)(0x80 | (c & 0x3f));
        return 3;
    }
    o[0] = (uint8_t)(0xf0 | c >> 18);
    o[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3f));
    o[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
    o[3] = (uint8_t)(0x80 | (c & 0x3f));
    return 4;
}

int pk_text_utf16_to_utf8(const uint8_t *d, size_t n, int big_endian, uint8_t **out,
                               size_t *out_n, size_t *n_bad, size_t *first_bad)
{
    /* Each 2-byte unit gives at most 3 bytes (a 4-byte pair gives 4), and
     * an odd byte gives 3: n/2*3 + 3 + 1 bounds the output. */
    size_t cap = n / 2 * 3 + 4;
    uint8_t *o = malloc(cap);
    if (!o)
        return -1;
    size_t w = 0, i = 0;
    *n_bad = 0;
    *first_bad = 0;
#define UNIT(k) (big_endian ? (uint32_t)d[k] << 8 | d[(k) + 1] : (uint32_t)d[(k) + 1] << 8 | d[k])
    while (i < n) {
        uint32_t c;
        size_t at = i;
        int bad = 0;
        if (i + 1 >= n) {
            c = 0xfffd;
            bad = 1;
            i = n;
        } else {
            c = UNIT(i);
            i += 2;
            if (c >= 0xd800 && c < 0xdc00 && i + 1 < n && UNIT(i) >= 0xdc00 && UNIT(i) < 0xe000) {
                c = 0x10000 + ((c - 0xd800) << 10) + (UNIT(i) - 0xdc00);
                i += 2;
            } else if (c >= 0xd800 && c < 0xe000) {
                c = 0xfffd;
                bad = 1;
            }
        }
        if (bad && (*n_bad)++ == 0)
            *first_bad = at;
        w += put_utf8(o + w, c);
    }
#undef UNIT
    o[w] = 0;
    *out = o;
    *out_n = w;
    return 0;
}
