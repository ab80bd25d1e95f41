/*
 * text.h: byte-order marks and UTF-16 for line-oriented text readers.
 * Windows tools write text as UTF-16 with a byte-order mark, or UTF-8 with
 * one; a reader that works on UTF-8 bytes asks pk_text_bom which it
 * has and, for UTF-16, converts it once (linear, the output sized by the
 * bytes that exist).
 */
#ifndef PROFKIT_TEXT_H
#define PROFKIT_TEXT_H

#include <stddef.h>
#include <stdint.h>

enum { PROFKIT_TEXT_PLAIN, PROFKIT_TEXT_UTF8_BOM, PROFKIT_TEXT_UTF16LE, PROFKIT_TEXT_UTF16BE };

/* The encoding a byte-order mark at the start of d announces (PLAIN when
 * there is none), and in *bom_len the mark's length. */
int pk_text_bom(const uint8_t *d, size_t n, size_t *bom_len);

/*
 * Converts UTF-16 code units (after the mark) to UTF-8 in a new buffer
 * (*out, free() it; *out_n bytes, NUL-terminated). An unpaired surrogate or
 * an odd last byte becomes U+FFFD; *n_bad counts them and *first_bad is the
 * byte offset (in d) of the first. Returns 0, or -1 when out of memory.
 */
int pk_text_utf16_to_utf8(const uint8_t *d, size_t n, int big_endian, uint8_t **out,
                               size_t *out_n, size_t *n_bad, size_t *first_bad);

#endif
