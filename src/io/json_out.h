/*
 * json_out.h: writing JSON text to a sink: strings escaped per RFC 8259
 * (control characters as \uXXXX, invalid UTF-8 replaced by U+FFFD so the
 * output is always valid JSON), integers, and numbers.
 */
#ifndef PROFKIT_JSON_OUT_H
#define PROFKIT_JSON_OUT_H

#include "io/io.h"

/* Length of the valid UTF-8 sequence at s (n > 0 bytes left), or 0 when
 * the bytes there are not valid UTF-8 (overlong, surrogate, past U+10FFFF). */
size_t pk_utf8_len(const uint8_t *s, size_t n);

/* Writes s[0..len) as a JSON string literal, quotes included. */
void pk_json_string(pk_sink *k, const char *s, size_t len);
static inline void pk_json_cstr(pk_sink *k, const char *s)
{
    pk_json_string(k, s, strlen(s));
}
void pk_json_int(pk_sink *k, int64_t v);
/* A finite double in the shortest form that reads back the same; non-finite → null. */
void pk_json_double(pk_sink *k, double v);

#endif
