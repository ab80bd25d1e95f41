/*
 * json_out.h: JSON text to a sink: strings escaped per RFC 8259 (the
 * format writers' form, PK_JSON_STD of util/buf.h: control characters as
 * \uXXXX or \n \r \t, invalid UTF-8 replaced by U+FFFD so the output is
 * always valid JSON), integers, and numbers.
 */
#ifndef PROFKIT_JSON_OUT_H
#define PROFKIT_JSON_OUT_H

#include "io/io.h"

/* Writes s[0..len) as a JSON string literal, quotes included. */
static inline void pk_json_string(pk_sink *k, const char *s, size_t len)
{
    pk_buf_json(pk_sink_buf(k), s, len, PK_JSON_STD);
}
static inline void pk_json_cstr(pk_sink *k, const char *s)
{
    pk_json_string(k, s, strlen(s));
}
static inline void pk_json_int(pk_sink *k, int64_t v) { pk_buf_i64(pk_sink_buf(k), v); }
/* A finite double in the shortest form that reads back the same; non-finite → null. */
void pk_json_double(pk_sink *k, double v);
/* The text pk_json_double writes for a finite v, into out (NUL-ended). */
#define PK_JSON_DOUBLE_MAX 40
void pk_json_double_text(char out[PK_JSON_DOUBLE_MAX], double v);

#endif
