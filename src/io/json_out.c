/* json_out.c: JSON text output; see json_out.h. */
#include "io/json_out.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

void pk_json_string(pk_sink *k, const char *str, size_t len)
{
    const uint8_t *s = (const uint8_t *)str;
    size_t i = 0, run = 0;
    pk_sink_write(k, "\"", 1);
    while (i < len) {
        uint8_t c = s[i];
        const char *esc = NULL;
        char ubuf[8];
        size_t step = 1;
        if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c == '\n')
            esc = "\\n";
        else if (c == '\r')
            esc = "\\r";
        else if (c == '\t')
            esc = "\\t";
        else if (c < 0x20) {
            snprintf(ubuf, sizeof(ubuf), "\\u%04x", c);
            esc = ubuf;
        } else if (c >= 0x80) {
            step = pk_utf8_len(s + i, len - i);
            if (step == 0) {
                esc = "\xef\xbf\xbd"; /* U+FFFD */
                step = 1;
            }
        }
        if (esc) {
            pk_sink_write(k, s + i - run, run);
            run = 0;
            pk_sink_puts(k, esc);
        } else {
            run += step;
        }
        i += step;
    }
    pk_sink_write(k, s + len - run, run);
    pk_sink_write(k, "\"", 1);
}

void pk_json_int(pk_sink *k, int64_t v) { pk_sink_printf(k, "%" PRId64, v); }

void pk_json_double(pk_sink *k, double v)
{
    if (!isfinite(v)) {
        pk_sink_puts(k, "null");
        return;
    }
    char buf[40];
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    pk_sink_puts(k, buf);
}
