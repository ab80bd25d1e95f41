/*
 * rjson.h: what the JSON forms of the reports share (docs/json.md): string
 * escaping onto a FILE (PK_JSON_REPORT of util/buf.h) and the document's
 * opening members.
 */
#ifndef PROFKIT_RJSON_H
#define PROFKIT_RJSON_H

#include "util/buf.h"
#include "analysis/analysis.h"

/* The version of every report's JSON document ("schema"); docs/json.md. */
#define PK_RJSON_SCHEMA 1

/* s as a JSON string literal (invalid UTF-8 becomes U+FFFD). */
void pk_rjson_str(pk_buf *out, const char *s);
/* The same for s[0..n), which may hold NUL bytes (written \u0000). */
void pk_rjson_strn(pk_buf *out, const char *s, size_t n);
/* `{"schema":1,"report":NAME` and, when v != PROFKIT_NONE,
 * `,"value":{"type":..,"unit":..}`; thread (PROFKIT_NONE = all) as
 * `,"thread":NAME|null`. The caller goes on with `,` members and `}`. */
void pk_rjson_open(pk_buf *out, const char *report, const profkit_profile *p, uint32_t v,
                   uint32_t thread);
/* `"by":"function"` etc. */
void pk_rjson_by(pk_buf *out, profkit_key by);

#endif
