/*
 * json.h: a small streaming JSON layer over yajl.
 *
 * The parser turns JSON text into a flat stream of events (scalars, keys,
 * container starts and ends) handed to one callback; it never builds a tree,
 * so a reader decides per event what to keep and memory stays bounded by what
 * the reader keeps. Input comes from a pk_source in 256 KiB chunks
 * (gzip/zstd decoded on the way) or from memory.
 *
 * Positions: yajl reports byte offsets inside the chunk it is working on;
 * this layer keeps the line and column of every chunk start so that a syntax
 * error, or a wrong shape the callback finds, is reported as LINE:COLUMN
 * (1-based, columns in bytes) of the token being handled.
 */
#ifndef PROFKIT_JSON_H
#define PROFKIT_JSON_H
#include <stddef.h>
#include <stdint.h>

#include "io/read_ctx.h"
#include "util/buf.h"

typedef enum pk_json_type {
    PK_JSON_NULL,
    PK_JSON_BOOL,
    PK_JSON_NUMBER,
    PK_JSON_STRING,
    PK_JSON_KEY,
    PK_JSON_MAP_START,
    PK_JSON_MAP_END,
    PK_JSON_ARRAY_START,
    PK_JSON_ARRAY_END
} pk_json_type;

/* One event. `str`/`len` hold the text of STRING and KEY (unescaped, not
 * NUL-terminated) and the literal text of NUMBER; valid during the callback.
 * A NUMBER's value is converted only when asked for (pk_json_num): most
 * numbers of a large profile belong to columns nobody reads. */
typedef struct pk_json_event {
    pk_json_type type;
    const char *str;
    size_t len;
    int boolean; /* BOOL */
} pk_json_event;

typedef struct pk_json pk_json;

/*
 * The callback: returns 0 to go on, or a negative PROFKIT_E* code after
 * filling the error (normally through pk_json_fail) to stop the parse.
 */
typedef int (*pk_json_fn)(pk_json *j, void *payload, const pk_json_event *ev);

/*
 * Streams ctx->src through fn. Returns 0, the callback's code, or
 * PROFKIT_ECORRUPT (syntax error) / PROFKIT_ETRUNCATED (input ends inside
 * the document) with ctx->err naming the line and column.
 */
int pk_json_parse_source(pk_read_ctx *ctx, pk_json_fn fn, void *payload);

/*
 * Parses a document held in memory (a JSON text embedded in a JSON string,
 * as old Gecko profiles store `libs`). With `outer` set, positions in
 * messages are those of the outer parser's current token.
 */
int pk_json_parse_memory(pk_read_ctx *ctx, const char *data, size_t n, pk_json *outer,
                         pk_json_fn fn, void *payload);

/* Line and column (1-based) where the token being handled starts. */
void pk_json_where(const pk_json *j, uint32_t *line, uint32_t *column);

/* Fills ctx->err at the current token's position and returns code. */
int pk_json_fail(pk_json *j, int code, const char *fmt, ...) PK_PRINTF(3, 4);

/* Reports a warning at the current token (0 to go on, or code under --strict). */
int pk_json_warn(pk_json *j, int code, const char *fmt, ...) PK_PRINTF(3, 4);

/* Bytes of (decoded) input consumed so far, for progress and messages. */
uint64_t pk_json_offset(const pk_json *j);

/*
 * Parses JSON number text into a double: exact for the common cases (up to
 * 19 significant digits with a small exponent), strtod otherwise.
 */
double pk_json_number(const char *s, size_t len);
/*
 * Called by the callback while it handles a MAP_START or ARRAY_START: the
 * events inside that value, and its end, are not delivered (yajl still
 * checks their syntax). Skipping in the parser, not in the callback, saves
 * a call per event of a large unwanted value; for its scalars yajl calls
 * nothing at all (their callbacks are unset until the value ends).
 */
void pk_json_skip_value(pk_json *j);

/*
 * Rows handed whole. A scalar of a row: type NUMBER (`str`: its text),
 * NULL or BOOL (`boolean`); `str` points at the token's first byte.
 */
typedef struct pk_json_scalar {
    const char *str;
    uint32_t len;
    uint8_t type;    /* pk_json_type */
    uint8_t boolean;
    uint8_t has_num; /* NUMBER: num is its value (pk_json_number's) */
    double num;
} pk_json_scalar;
/*
 * A row handler: gets an element of the array that is an array of n
 * scalars (0 or more) in place of its events (its start, the scalars, its
 * end; positions are those of its end). Returns 0 when it took the row, 1
 * when it did not (the events are delivered instead, as if no handler
 * were set), or a negative PROFKIT_E* code after filling the error.
 */
typedef int (*pk_json_row_fn)(pk_json *j, void *payload, const pk_json_scalar *cells, size_t n);
/*
 * Called by the callback while it handles an ARRAY_START: the elements of
 * that array that are arrays of scalars may be handed to fn instead of as
 * events, until the array ends. Only some are (those the parser's fast path
 * reads); every other element comes as events, so fn must do exactly what
 * the events of a row would do.
 */
void pk_json_take_rows(pk_json *j, pk_json_row_fn fn, void *payload);

/* The value of a NUMBER event (inf when out of double range). */
static inline double pk_json_num(const pk_json_event *ev) { return pk_json_number(ev->str, ev->len); }

/* ---- writing JSON text back (for keeping sub-trees, e.g. marker payloads) ---- */

/* Appends the event to t as JSON text, adding the commas and colons it
 * needs; strings are escaped as PK_JSON_VERBATIM (util/buf.h) writes them. */
void pk_json_text_event(pk_buf *t, const pk_json_event *ev);

/* Helpers for readers of JSON events. */

/* What a value of type t is called in messages ("a string", "an object",
 * ..., "the end of a container"). */
const char *pk_json_type_name(pk_json_type t);
/* An integer number (no fraction or exponent) of at most 18 digits, so it
 * cannot overflow: stores it in *out and returns 1, else returns 0. */
int pk_json_as_int(const pk_json_event *ev, int64_t *out);
/* Whether the key (or string) ev is exactly k. */
int pk_json_key_is(const pk_json_event *ev, const char *k);

#endif
