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
/* A row keyed by function: `"name":` its function's label (without the
 * file a name shared by several files adds in the text), then `,"file":`
 * and `,"line":` (the definition line) where the profile has them. The
 * row's key label when frame is PROFKIT_NONE. */
void pk_rjson_function(pk_buf *out, const profkit_profile *p, uint32_t frame, const char *label,
                       size_t label_len);
/* The same for key k of a table keyed by `by` whose keys' first frames
 * are key_frame (NULL: the label alone); by_line: NAME:LINE names (tree).
 * By line: `"name":` the label (FILE:LINE), `"function":`, `"file":`,
 * `"line":` the frame's line. */
void pk_rjson_key(pk_buf *out, const profkit_profile *p, const uint32_t *key_frame, uint32_t k,
                  const char *label, size_t label_len, profkit_key by, int by_line);
/* ns as ms, exactly: up to six decimals, trailing zeros cut (markers,
 * counters). */
void pk_rjson_ms(pk_buf *out, int64_t ns);
/* Thread t as {"index","name","process","pid","tid"} (pid, tid null when
 * unknown); `null` when t is not a thread of p (markers, counters). */
void pk_rjson_thread(pk_buf *out, const profkit_profile *p, uint32_t t);
/* `"by":"function"` etc. */
void pk_rjson_by(pk_buf *out, profkit_key by);

#endif
