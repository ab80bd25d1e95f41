/* buf.c: the growable byte buffer and the JSON and XML escapers; see buf.h. */
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>

void pk_buf_init(pk_buf *b, size_t max)
{
    memset(b, 0, sizeof(*b));
    b->max = max;
}

void pk_buf_init_drain(pk_buf *b, char *storage, size_t cap, pk_buf_drain_fn drain, void *ctx)
{
    memset(b, 0, sizeof(*b));
    b->buf = storage;
    b->cap = cap;
    b->drain = drain;
    b->ctx = ctx;
    if (cap)
        storage[0] = '\0';
}

static int drain_stream(void *ctx, const void *data, size_t n)
{
    fwrite(data, 1, n, (FILE *)ctx);
    return 0; /* the stream keeps its own error, as fprintf would */
}

void pk_buf_init_stream(pk_buf *b, char *storage, size_t cap, FILE *f)
{
    pk_buf_init_drain(b, storage, cap, drain_stream, f);
}

void pk_buf_free(pk_buf *b)
{
    size_t max = b->max;
    if (!b->drain)
        free(b->buf);
    memset(b, 0, sizeof(*b));
    b->max = max;
}

/* Records the first failure. Pinning cap to len makes the inline fast path
 * of pk_buf_put fail from now on, so every later append reaches the slow
 * path, which returns at once: the error is sticky without a test of its
 * own on the fast path. */
static void fail(pk_buf *b, int code, int over)
{
    if (b->err)
        return;
    b->err = code;
    b->over = over;
    b->cap = b->len;
}

/* Room for `extra` more bytes and the NUL in a growable buffer. */
static int reserve(pk_buf *b, size_t extra)
{
    size_t max = b->max ? b->max : PK_BUF_MAX_DEFAULT;
    if (b->len > max || extra > max - b->len) {
        fail(b, PROFKIT_ENOMEM, 1);
        return -1;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : max < 256 ? max + 1 : 256;
    while (cap < need)
        cap = cap > (max + 1) / 2 ? max + 1 : cap * 2;
    char *p = realloc(b->buf, cap);
    if (!p) {
        fail(b, PROFKIT_ENOMEM, 0);
        return -1;
    }
    b->buf = p;
    b->cap = cap;
    return 0;
}

int pk_buf_reserve(pk_buf *b, size_t extra)
{
    if (b->err)
        return b->err;
    if (b->drain) /* its storage is what it is */
        return 0;
    if (reserve(b, extra) != 0)
        return b->err;
    b->buf[b->len] = '\0';
    return 0;
}

/* Hands the held bytes of a draining buffer to its drain. */
static int drain_now(pk_buf *b)
{
    if (b->err)
        return b->err;
    if (b->len) {
        int rc = b->drain(b->ctx, b->buf, b->len);
        if (rc) {
            fail(b, rc, 0);
            return rc;
        }
        b->len = 0;
    }
    return 0;
}

int pk_buf_flush(pk_buf *b)
{
    if (b->drain)
        drain_now(b);
    return b->err;
}

void pk_buf_put_slow(pk_buf *b, const void *data, size_t n)
{
    if (b->err || n == 0)
        return;
    if (!b->drain) {
        if (reserve(b, n) != 0)
            return;
        memcpy(b->buf + b->len, data, n);
        b->len += n;
        b->buf[b->len] = '\0';
        return;
    }
    /* Fill the storage, drain it whole, go on: the drain always gets full
     * loads of cap - 1 bytes, however the writer cut its appends. */
    const char *p = data;
    while (n > 0) {
        size_t room = b->cap - 1 - b->len;
        if (room == 0) {
            if (drain_now(b) != 0)
                return;
            continue;
        }
        size_t k = n < room ? n : room;
        memcpy(b->buf + b->len, p, k);
        b->len += k;
        p += k;
        n -= k;
    }
    b->buf[b->len] = '\0';
}

int pk_buf_check(const pk_buf *b, profkit_error *err, const char *file, const char *what)
{
    if (!b->err)
        return 0;
    if (b->over)
        return pk_error_set(err, b->err, file, -1, "%s: more than %zu bytes", what,
                            b->max ? b->max : (size_t)PK_BUF_MAX_DEFAULT);
    if (b->err == PROFKIT_ENOMEM)
        return pk_error_set(err, b->err, file, -1, "out of memory %s", what);
    return b->err; /* a drain's: its owner reports it */
}

int pk_buf_take(pk_buf *b, char **out, size_t *len)
{
    *out = NULL;
    if (len)
        *len = 0;
    if (!b->err && !b->buf && reserve(b, 0) == 0)
        b->buf[0] = '\0';
    int rc = b->err;
    if (rc) {
        pk_buf_free(b);
        return rc;
    }
    *out = b->buf;
    if (len)
        *len = b->len;
    size_t max = b->max;
    memset(b, 0, sizeof(*b));
    b->max = max;
    return 0;
}

void pk_buf_vprintf(pk_buf *b, const char *fmt, va_list ap)
{
    if (b->err)
        return;
    /* Straight into the free room when the text fits (the usual case). */
    size_t room = b->cap - b->len;
    if (room > 1) {
        va_list cp;
        va_copy(cp, ap);
        int n = vsnprintf(b->buf + b->len, room, fmt, cp);
        va_end(cp);
        if (n < 0) {
            b->buf[b->len] = '\0';
            return; /* an encoding error: nothing written, as fprintf would */
        }
        if ((size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        b->buf[b->len] = '\0';
    }
    char small[512];
    size_t n;
    char *t = pk_vformat(small, sizeof(small), &n, fmt, ap);
    if (!t) {
        fail(b, PROFKIT_ENOMEM, 0);
        return;
    }
    pk_buf_put(b, t, n);
    if (t != small)
        free(t);
}

void pk_buf_printf(pk_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pk_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void pk_buf_u64(pk_buf *b, uint64_t v)
{
    char d[24], *e = d + sizeof(d), *q = e;
    do {
        *--q = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    pk_buf_put(b, q, (size_t)(e - q));
}

void pk_buf_i64(pk_buf *b, int64_t v)
{
    char d[24], *e = d + sizeof(d), *q = e;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--q = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--q = '-';
    pk_buf_put(b, q, (size_t)(e - q));
}

/* ------------------------------------------------------------ escaping */

size_t pk_utf8_len(const uint8_t *s, size_t n)
{
    uint8_t c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    /* overlong forms, surrogates and values past U+10FFFF are invalid */
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* What a byte is to the escapers: C_ESC always escaped in JSON, C_HTML the
 * page's extra escapes, C_HIGH a byte of a multi-byte sequence (checked
 * when invalid UTF-8 is replaced), C_XML escaped in XML. */
enum { C_ESC = 1, C_HTML = 2, C_HIGH = 4, C_XML = 8 };

#define X16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
static const uint8_t byte_class[256] = {
    /* 0x00-0x1f: control characters (tab, newline, return are fine in XML) */
    C_ESC | C_XML, C_ESC | C_XML, C_ESC | C_XML, C_ESC | C_XML, C_ESC | C_XML, C_ESC | C_XML,
    C_ESC | C_XML, C_ESC | C_XML, C_ESC | C_XML, C_ESC, C_ESC, C_ESC | C_XML, C_ESC | C_XML,
    C_ESC, C_ESC | C_XML, C_ESC | C_XML,
    X16(C_ESC | C_XML),
    /* 0x20-0x2f: " & ' */
    0, 0, C_ESC | C_XML, 0, 0, 0, C_HTML | C_XML, C_XML, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0x30-0x3f: < > */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, C_HTML | C_XML, 0, C_HTML | C_XML, 0,
    /* 0x40-0x5f: backslash */
    X16(0),
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, C_ESC, 0, 0, 0,
    /* 0x60-0x7f */
    X16(0), X16(0),
    /* 0x80-0xff */
    X16(C_HIGH | C_XML), X16(C_HIGH | C_XML), X16(C_HIGH | C_XML), X16(C_HIGH | C_XML),
    X16(C_HIGH | C_XML), X16(C_HIGH | C_XML), X16(C_HIGH | C_XML), X16(C_HIGH | C_XML),
};
#undef X16

static const char hex_digits[] = "0123456789abcdef";
static const char fffd[] = "\xef\xbf\xbd"; /* U+FFFD REPLACEMENT CHARACTER */

void pk_buf_json(pk_buf *b, const char *str, size_t len, unsigned flags)
{
    const uint8_t *s = (const uint8_t *)str;
    unsigned mask = C_ESC | (flags & PK_JSON_HTML ? C_HTML : 0) |
                    (flags & (PK_JSON_BAD_FFFD | PK_JSON_BAD_ESC) ? C_HIGH : 0);
    size_t i = 0, run = 0; /* s[run..i) is copied as it is */
    pk_buf_putc(b, '"');
    while (i < len) {
        uint8_t c = s[i];
        unsigned k = byte_class[c] & mask;
        if (PK_LIKELY(!k)) {
            i++;
            continue;
        }
        char esc[6];
        const char *e = esc;
        size_t elen;
        if (k == C_HIGH) {
            size_t step = pk_utf8_len(s + i, len - i);
            if (step) {
                i += step;
                continue;
            }
            if (flags & PK_JSON_BAD_FFFD) {
                e = fffd;
                elen = 3;
            } else {
                e = "\\ufffd";
                elen = 6;
            }
        } else if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            elen = 2;
        } else if ((flags & PK_JSON_SHORT) && (c == '\n' || c == '\r' || c == '\t')) {
            esc[0] = '\\';
            esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
            elen = 2;
        } else {
            memcpy(esc, "\\u00", 4);
            esc[4] = hex_digits[c >> 4];
            esc[5] = hex_digits[c & 15];
            elen = 6;
        }
        pk_buf_put(b, s + run, i - run);
        pk_buf_put(b, e, elen);
        run = ++i;
    }
    pk_buf_put(b, s + run, len - run);
    pk_buf_putc(b, '"');
}

void pk_buf_xml(pk_buf *b, const char *str, size_t len)
{
    const uint8_t *s = (const uint8_t *)str;
    size_t i = 0, run = 0;
    while (i < len) {
        uint8_t c = s[i];
        if (PK_LIKELY(!(byte_class[c] & C_XML))) {
            i++;
            continue;
        }
        const char *e;
        if (c >= 0x80) {
            size_t step = pk_utf8_len(s + i, len - i);
            if (step) {
                i += step;
                continue;
            }
            e = fffd;
        } else {
            switch (c) {
            case '&': e = "&amp;"; break;
            case '<': e = "&lt;"; break;
            case '>': e = "&gt;"; break;
            case '"': e = "&quot;"; break;
            case '\'': e = "&apos;"; break;
            default: e = fffd; break; /* not allowed in XML 1.0 at all */
            }
        }
        pk_buf_put(b, s + run, i - run);
        pk_buf_puts(b, e);
        run = ++i;
    }
    pk_buf_put(b, s + run, len - run);
}
