/*
 * buf.h: the one growable byte buffer of the library, and the one place
 * text is escaped for JSON and XML.
 *
 * A pk_buf is either
 *   - growable (zero-initialized, or pk_buf_init with a bound): it owns
 *     its bytes, grows geometrically up to `max` bytes (sizes
 *     overflow-checked) and keeps them NUL-terminated, so b->buf is a C
 *     string whenever it is not NULL; or
 *   - draining (pk_buf_init_drain): it writes into caller-owned storage of
 *     fixed size and hands each full load to a drain function, never
 *     allocating. A sink (io/io.h) is such a buffer in front of a file.
 *
 * Errors are sticky: after the first failed append (allocation failed, the
 * bound reached, a drain failed) every later call is a no-op, the bytes
 * already held stay as they were, and pk_buf_check reports the failure
 * once, at the end. Writers therefore append without checking each call.
 *
 * Appends are inline while the bytes fit (a compare and a memcpy); only
 * growing or draining leaves the fast path.
 */
#ifndef PROFKIT_BUF_H
#define PROFKIT_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "util/util.h"

/* Takes n bytes of a full draining buffer; returns 0 or a PROFKIT_E* code
 * (which becomes the buffer's sticky error). */
typedef int (*pk_buf_drain_fn)(void *ctx, const void *data, size_t n);

typedef struct pk_buf {
    char *buf;   /* the bytes; NULL until the first growth (growable) */
    size_t len;  /* bytes held */
    size_t cap;  /* bytes of storage; a growable buffer keeps cap > len for the NUL */
    size_t max;  /* growable: the most bytes it may hold (0: PK_BUF_MAX_DEFAULT) */
    int err;     /* 0, or the code of the first failure (sticky) */
    int over;    /* the failure was the bound `max` */
    pk_buf_drain_fn drain; /* draining buffers only */
    void *ctx;
} pk_buf;

/* The bound of a buffer whose max is 0: no allocation can be this large,
 * and doubling below it cannot overflow. */
#define PK_BUF_MAX_DEFAULT (SIZE_MAX / 4)

/* An empty growable buffer with the default bound; `pk_buf b = {0}` is the same. */
#define PK_BUF_INIT { NULL, 0, 0, 0, 0, 0, NULL, NULL }

/* An empty growable buffer that fails (sticky, PROFKIT_ENOMEM) rather than
 * hold more than max bytes (0: PK_BUF_MAX_DEFAULT). */
void pk_buf_init(pk_buf *b, size_t max);
/* A draining buffer over storage[0..cap) (cap >= 2): full loads of cap - 1
 * bytes go to drain(ctx, ...), the rest on pk_buf_flush. */
void pk_buf_init_drain(pk_buf *b, char *storage, size_t cap, pk_buf_drain_fn drain, void *ctx);
/* A draining buffer over storage[0..cap) whose loads go to the caller's
 * stream f (fwrite: the stream keeps its own error, as with fprintf). The
 * reports write through one, flushed before they return. */
void pk_buf_init_stream(pk_buf *b, char *storage, size_t cap, FILE *f);
/* What a report's draining buffer holds on the stack before it drains. */
#define PK_BUF_STREAM_STORAGE 8192
/* Frees a growable buffer's bytes and empties it (the bound stays). */
void pk_buf_free(pk_buf *b);
/* Drops the bytes held, keeping the storage (not the error). */
static inline void pk_buf_clear(pk_buf *b)
{
    if (!b->err) {
        b->len = 0;
        if (b->buf && !b->drain)
            b->buf[0] = '\0';
    }
}
/* Keeps only the first n bytes (n <= len), e.g. after editing them in place. */
static inline void pk_buf_truncate(pk_buf *b, size_t n)
{
    if (!b->err && n < b->len) {
        b->len = n;
        b->buf[n] = '\0';
    }
}
/* A growable buffer: room for `extra` more bytes (and the NUL) without a
 * further allocation, so b->buf is not NULL. Returns 0 or the sticky error. */
int pk_buf_reserve(pk_buf *b, size_t extra);
/* A draining buffer: drains what it holds. Returns b->err. */
int pk_buf_flush(pk_buf *b);

/* 0 while every append succeeded, else the code of the first failure. */
static inline int pk_buf_error(const pk_buf *b) { return b->err; }
/*
 * 0, or the first failure reported into err (once, whatever number of
 * appends failed after it): "out of memory WHAT" (allocation failed) or
 * "WHAT: more than N bytes" (the bound). A drain's own code is returned
 * as it is, err untouched: the drain's owner (a sink) reports it.
 */
int pk_buf_check(const pk_buf *b, profkit_error *err, const char *file, const char *what);

/* The bytes as a C string ("" when empty or after a failure). */
static inline const char *pk_buf_cstr(const pk_buf *b)
{
    return b->buf && !b->err && !b->drain ? b->buf : "";
}
/*
 * Hands a growable buffer's bytes to the caller (NUL-terminated, to free()
 * with free; never NULL on success) and empties b. Returns 0, or the sticky
 * failure (then b is freed and *out is NULL).
 */
int pk_buf_take(pk_buf *b, char **out, size_t *len);

/* ---- appending ---- */

void pk_buf_put_slow(pk_buf *b, const void *data, size_t n);

static inline void pk_buf_put(pk_buf *b, const void *data, size_t n)
{
    if (PK_LIKELY(n < b->cap - b->len)) {
        if (n) {
            memcpy(b->buf + b->len, data, n);
            b->len += n;
            b->buf[b->len] = '\0';
        }
    } else {
        pk_buf_put_slow(b, data, n);
    }
}
static inline void pk_buf_putc(pk_buf *b, char c) { pk_buf_put(b, &c, 1); }
static inline void pk_buf_puts(pk_buf *b, const char *s) { pk_buf_put(b, s, strlen(s)); }
void pk_buf_printf(pk_buf *b, const char *fmt, ...) PK_PRINTF(2, 3);
void pk_buf_vprintf(pk_buf *b, const char *fmt, va_list ap);
/* Decimal integers. */
void pk_buf_u64(pk_buf *b, uint64_t v);
void pk_buf_i64(pk_buf *b, int64_t v);

/* ---- escaping ---- */

/* Length of the valid UTF-8 sequence at s (n > 0 bytes left), or 0 when
 * the bytes there are not valid UTF-8 (overlong, surrogate, past U+10FFFF). */
size_t pk_utf8_len(const uint8_t *s, size_t n);

/*
 * How pk_buf_json writes a string. Always: quotes around it, `"` and `\`
 * as \" and \\, and control characters (below 0x20) as \u00xx. Then:
 */
enum {
    PK_JSON_SHORT = 1,    /* \n \r \t as those two-character escapes */
    PK_JSON_HTML = 2,     /* < > & as \u003c \u003e \u0026: safe inside an HTML <script> */
    PK_JSON_BAD_FFFD = 4, /* invalid UTF-8: each bad byte becomes U+FFFD (its three bytes) */
    PK_JSON_BAD_ESC = 8,  /* invalid UTF-8: each bad byte becomes the escape \ufffd */
    /* neither BAD flag: bytes from 0x80 are copied unchecked */

    /* The forms in use: */
    PK_JSON_STD = PK_JSON_SHORT | PK_JSON_BAD_FFFD,  /* format writers (Firefox, speedscope) */
    PK_JSON_REPORT = PK_JSON_BAD_ESC,                /* the JSON reports (docs/json.md) */
    PK_JSON_PAGE = PK_JSON_HTML | PK_JSON_BAD_FFFD,  /* the viewer page's data */
    PK_JSON_VERBATIM = 0                             /* re-serialized input (Gecko payloads) */
};
/* s[0..len) as a JSON string literal, quotes included, as flags say. */
void pk_buf_json(pk_buf *b, const char *s, size_t len, unsigned flags);
/*
 * s[0..len) as XML 1.0 character data or attribute text: & < > " ' as
 * entities; control characters XML does not allow (all below 0x20 but tab,
 * newline and carriage return) and invalid UTF-8 bytes become U+FFFD.
 */
void pk_buf_xml(pk_buf *b, const char *s, size_t len);

#endif
