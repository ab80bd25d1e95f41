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
size_t profkit_utf8_len(const uint8_t *s, size_t n);

/* Writes s[0..len) as a JSON string literal, quotes included. */
void profkit_json_string(profkit_sink *k, const char *s, size_t len);
static inline void profkit_json_cstr(profkit_sink *k, const char *s)
{
    profkit_json_string(k, s, strlen(s));
}
void profkit_json_int(profkit_sink *k, int64_t v);
/* A finite double in the shortest form that reads back the same; non-finite → null. */
void profkit_json_double(profkit_sink *k, double v);

#endif
