/* flame_buf.c: the growable buffer the page and the SVG are rendered into,
 * with the escapes they need; see flame.h. */
#include "report/flame/flame.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/io.h"
#include "io/json_out.h"

void pk_flame_put(flame_buf *b, const void *s, size_t n)
{
    if (b->oom || n == 0)
        return;
    if (b->cap - b->n <= n) {
        if (pk_grow((void **)&b->p, &b->cap, b->n + n + 1, 1) != 0) {
            b->oom = 1;
            return;
        }
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

void pk_flame_printf(flame_buf *b, const char *fmt, ...)
{
    char small[256];
    size_t n;
    va_list ap;
    va_start(ap, fmt);
    char *t = pk_vformat(small, sizeof(small), &n, fmt, ap);
    va_end(ap);
    if (!t) {
        b->oom = 1;
        return;
    }
    pk_flame_put(b, t, n);
    if (t != small)
        free(t);
}

void pk_flame_put_i64(flame_buf *b, int64_t v)
{
    char buf[24], *e = buf + sizeof(buf), *q = e;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--q = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--q = '-';
    pk_flame_put(b, q, (size_t)(e - q));
}

void pk_flame_put_json_string(flame_buf *b, const char *str, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const uint8_t *s = (const uint8_t *)str;
    size_t i = 0, run = 0;
    pk_flame_put(b, "\"", 1);
    while (i < len) {
        uint8_t c = s[i];
        char esc[8];
        size_t elen = 0, step = 1;
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            elen = 2;
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            /* '<' never appears in the page's data: nothing can close the
             * <script> element or open a comment; > and & for good measure */
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            elen = 6;
        } else if (c >= 0x80) {
            step = pk_utf8_len(s + i, len - i);
            if (step == 0) {
                memcpy(esc, "\xef\xbf\xbd", 3); /* U+FFFD */
                elen = 3;
                step = 1;
            }
        }
        if (elen) {
            pk_flame_put(b, s + i - run, run);
            run = 0;
            pk_flame_put(b, esc, elen);
        } else {
            run += step;
        }
        i += step;
    }
    pk_flame_put(b, s + len - run, run);
    pk_flame_put(b, "\"", 1);
}

void pk_flame_put_xml(flame_buf *b, const char *str, size_t len)
{
    const uint8_t *s = (const uint8_t *)str;
    size_t i = 0, run = 0;
    while (i < len) {
        uint8_t c = s[i];
        const char *esc = NULL;
        size_t step = 1;
        if (c == '&')
            esc = "&amp;";
        else if (c == '<')
            esc = "&lt;";
        else if (c == '>')
            esc = "&gt;";
        else if (c == '"')
            esc = "&quot;";
        else if (c == '\'')
            esc = "&apos;";
        else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            esc = "\xef\xbf\xbd"; /* not allowed in XML 1.0 at all */
        else if (c >= 0x80) {
            step = pk_utf8_len(s + i, len - i);
            if (step == 0) {
                esc = "\xef\xbf\xbd";
                step = 1;
            }
        }
        if (esc) {
            pk_flame_put(b, s + i - run, run);
            run = 0;
            flame_puts(b, esc);
        } else {
            run += step;
        }
        i += step;
    }
    pk_flame_put(b, s + len - run, run);
}

int pk_flame_buf_finish(flame_buf *b, char **out, size_t *len, profkit_error *err)
{
    pk_flame_put(b, "", 0);
    if (!b->oom && pk_grow((void **)&b->p, &b->cap, b->n + 1, 1) != 0)
        b->oom = 1;
    if (b->oom) {
        free(b->p);
        memset(b, 0, sizeof(*b));
        *out = NULL;
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory rendering the flame graph");
    }
    b->p[b->n] = '\0';
    *out = b->p;
    if (len)
        *len = b->n;
    memset(b, 0, sizeof(*b));
    return 0;
}

int pk_flame_buf_write(flame_buf *b, const char *path, profkit_error *err)
{
    char *data;
    size_t len = 0;
    int rc = pk_flame_buf_finish(b, &data, &len, err);
    if (rc)
        return rc;
    pk_sink *k;
    if ((rc = pk_sink_open(&k, path, 0, err)) == 0) {
        pk_sink_write(k, data, len);
        rc = pk_sink_close(k, 1, err);
    }
    free(data);
    return rc;
}

int pk_flame_buf_deliver(flame_buf *b, int rc, const char *path, char **out, size_t *len,
                      profkit_error *err)
{
    if (out)
        *out = NULL;
    if (rc) {
        free(b->p);
        memset(b, 0, sizeof(*b));
        return rc;
    }
    return out ? pk_flame_buf_finish(b, out, len, err) : pk_flame_buf_write(b, path, err);
}
