/*
 * test_buf.c: the growable buffer (util/buf.h): growth, the bound, sticky
 * errors, draining, printf and integers; and the one JSON and one XML
 * escaper, which replaced five loops that each had their own output. The
 * loops the library had before are kept here, as they were, as the
 * reference: every form must give their bytes exactly, for every byte,
 * for invalid UTF-8 of every kind, and for many random strings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "report/rjson.h"
#include "util/buf.h"

#if defined(__SANITIZE_ADDRESS__)
/* A failed allocation must be a NULL here, as it is without the sanitizer,
 * not a report that stops the test. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
#endif

/* ------------------------------------------- the escapers as they were */

typedef struct ref {
    char *p;
    size_t n, cap;
} ref;

static void ref_put(ref *r, const void *s, size_t n)
{
    if (r->n + n + 1 > r->cap) {
        r->cap = (r->n + n + 1) * 2;
        r->p = realloc(r->p, r->cap);
        assert_non_null(r->p);
    }
    memcpy(r->p + r->n, s, n);
    r->n += n;
    r->p[r->n] = 0;
}
static void ref_puts(ref *r, const char *s) { ref_put(r, s, strlen(s)); }

/* io/json_out.c pk_json_string (the format writers) */
static void old_json_out(ref *k, const char *str, size_t len)
{
    const uint8_t *s = (const uint8_t *)str;
    size_t i = 0, run = 0;
    ref_put(k, "\"", 1);
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
                esc = "\xef\xbf\xbd";
                step = 1;
            }
        }
        if (esc) {
            ref_put(k, s + i - run, run);
            run = 0;
            ref_puts(k, esc);
        } else {
            run += step;
        }
        i += step;
    }
    ref_put(k, s + len - run, run);
    ref_put(k, "\"", 1);
}

/* report/rjson.c pk_rjson_str (the JSON reports; a C string) */
static void old_rjson(ref *out, const char *s)
{
    ref_put(out, "\"", 1);
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char e[2] = { '\\', (char)c };
            ref_put(out, e, 2);
            i++;
        } else if (c < 0x20) {
            char u[8];
            snprintf(u, sizeof(u), "\\u%04x", c);
            ref_puts(out, u);
            i++;
        } else {
            size_t len = pk_utf8_len((const uint8_t *)s + i, n - i);
            if (len == 0) {
                ref_puts(out, "\\ufffd");
                i++;
            } else {
                ref_put(out, s + i, len);
                i += len;
            }
        }
    }
    ref_put(out, "\"", 1);
}

/* report/flame/flame_buf.c pk_flame_put_json_string (the page's data) */
static void old_flame_json(ref *b, const char *str, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const uint8_t *s = (const uint8_t *)str;
    size_t i = 0, run = 0;
    ref_put(b, "\"", 1);
    while (i < len) {
        uint8_t c = s[i];
        char esc[8];
        size_t elen = 0, step = 1;
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            elen = 2;
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            elen = 6;
        } else if (c >= 0x80) {
            step = pk_utf8_len(s + i, len - i);
            if (step == 0) {
                memcpy(esc, "\xef\xbf\xbd", 3);
                elen = 3;
                step = 1;
            }
        }
        if (elen) {
            ref_put(b, s + i - run, run);
            run = 0;
            ref_put(b, esc, elen);
        } else {
            run += step;
        }
        i += step;
    }
    ref_put(b, s + len - run, run);
    ref_put(b, "\"", 1);
}

/* report/flame/flame_buf.c pk_flame_put_xml (the SVG) */
static void old_flame_xml(ref *b, const char *str, size_t len)
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
            esc = "\xef\xbf\xbd";
        else if (c >= 0x80) {
            step = pk_utf8_len(s + i, len - i);
            if (step == 0) {
                esc = "\xef\xbf\xbd";
                step = 1;
            }
        }
        if (esc) {
            ref_put(b, s + i - run, run);
            run = 0;
            ref_puts(b, esc);
        } else {
            run += step;
        }
        i += step;
    }
    ref_put(b, s + len - run, run);
}

/* io/json.c pk_json_text_string (re-serialized Gecko payloads) */
static void old_json_text(ref *t, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    ref_put(t, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        ref_put(t, s + run, i - run);
        run = i + 1;
        char esc[7] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0 };
        if (c == '"' || c == '\\') {
            esc[1] = (char)c;
            ref_put(t, esc, 2);
        } else {
            ref_put(t, esc, 6);
        }
    }
    ref_put(t, s + run, len - run);
    ref_put(t, "\"", 1);
}

/* ------------------------------------------------------- comparisons */

/* The new escaper's output for s in every form, each against the old
 * loop it replaced. */
static void same_as_before(const char *s, size_t len)
{
    static const struct {
        unsigned flags;
        void (*old)(ref *, const char *, size_t);
    } forms[] = {
        { PK_JSON_STD, old_json_out },
        { PK_JSON_PAGE, old_flame_json },
        { PK_JSON_VERBATIM, old_json_text },
    };
    for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
        ref want = { 0 };
        forms[f].old(&want, s, len);
        pk_buf b = PK_BUF_INIT;
        pk_buf_json(&b, s, len, forms[f].flags);
        assert_int_equal(pk_buf_error(&b), 0);
        assert_int_equal(b.len, want.n);
        assert_memory_equal(b.buf, want.p, want.n);
        assert_int_equal(b.buf[b.len], 0);
        pk_buf_free(&b);
        free(want.p);
    }
    ref want = { 0 };
    old_flame_xml(&want, s, len);
    pk_buf b = PK_BUF_INIT;
    pk_buf_xml(&b, s, len);
    if (want.n == 0) {
        assert_int_equal(b.len, 0);
    } else {
        assert_int_equal(b.len, want.n);
        assert_memory_equal(b.buf, want.p, want.n);
    }
    pk_buf_free(&b);
    free(want.p);

    /* The reports' form works on C strings, through a FILE. */
    size_t clen = strnlen(s, len);
    char *c = malloc(clen + 1);
    assert_non_null(c);
    memcpy(c, s, clen);
    c[clen] = 0;
    ref rwant = { 0 };
    old_rjson(&rwant, c);
    pk_buf mb = PK_BUF_INIT;
    pk_rjson_str(&mb, c);
    assert_int_equal(mb.len, rwant.n);
    assert_memory_equal(mb.buf, rwant.p, rwant.n);
    pk_buf_free(&mb);
    pk_buf rb = PK_BUF_INIT;
    pk_buf_json(&rb, c, clen, PK_JSON_REPORT);
    assert_int_equal(rb.len, rwant.n);
    assert_memory_equal(rb.buf, rwant.p, rwant.n);
    pk_buf_free(&rb);
    free(rwant.p);
    free(c);
}

static void escapes_every_byte(void **state)
{
    (void)state;
    /* each byte alone, and between letters (runs on both sides) */
    for (int c = 0; c < 256; c++) {
        char one = (char)c, three[3] = { 'a', (char)c, 'b' };
        same_as_before(&one, 1);
        same_as_before(three, 3);
    }
    /* every pair of bytes: all two-byte sequences, valid and not */
    for (int c = 0; c < 256; c++)
        for (int d = 0; d < 256; d += (c < 0x80 && d < 0x80) ? 7 : 1) {
            char two[2] = { (char)c, (char)d };
            same_as_before(two, 2);
        }
}

static void escapes_control_bytes_as_documented(void **state)
{
    (void)state;
    /* Independently of the old loops: what each form does to a control byte. */
    for (int c = 0; c < 0x20; c++) {
        char in = (char)c, u[16];
        snprintf(u, sizeof(u), "\"\\u%04x\"", c);
        const char *shrt = c == '\n' ? "\"\\n\"" : c == '\r' ? "\"\\r\"" : c == '\t' ? "\"\\t\"" : u;
        unsigned forms[] = { PK_JSON_REPORT, PK_JSON_PAGE, PK_JSON_VERBATIM, PK_JSON_STD };
        for (size_t f = 0; f < 4; f++) {
            pk_buf b = PK_BUF_INIT;
            pk_buf_json(&b, &in, 1, forms[f]);
            assert_string_equal(b.buf, forms[f] == PK_JSON_STD ? shrt : u);
            pk_buf_free(&b);
        }
        pk_buf b = PK_BUF_INIT;
        pk_buf_xml(&b, &in, 1);
        if (c == '\n' || c == '\r' || c == '\t')
            assert_memory_equal(b.buf, &in, 1);
        else
            assert_string_equal(b.buf, "\xef\xbf\xbd");
        pk_buf_free(&b);
    }
    pk_buf b = PK_BUF_INIT;
    pk_buf_json(&b, "<a href=\"x\">&'</a>", 18, PK_JSON_PAGE);
    assert_string_equal(b.buf, "\"\\u003ca href=\\\"x\\\"\\u003e\\u0026'\\u003c/a\\u003e\"");
    pk_buf_clear(&b);
    pk_buf_xml(&b, "<a href=\"x\">&'</a>", 18);
    assert_string_equal(b.buf, "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
    pk_buf_free(&b);
}

static void escapes_invalid_utf8(void **state)
{
    (void)state;
    static const char *bad[] = {
        "\x80",                 /* a continuation byte alone */
        "\xc0\x80",             /* overlong NUL */
        "\xc1\xbf",             /* overlong */
        "\xe0\x80\xaf",         /* overlong '/' */
        "\xed\xa0\x80",         /* a surrogate */
        "\xf4\x90\x80\x80",     /* past U+10FFFF */
        "\xf5\x80\x80\x80",     /* no such lead byte */
        "\xe2\x82",             /* cut before its end */
        "\xf0\x9d\x84",         /* cut before its end */
        "\xff\xfe",
        "ok\xe2\x82\xac\xc3\xa9\xf0\x9d\x84\x9e-\xe2(\xa1",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        same_as_before(bad[i], strlen(bad[i]));
    /* what each form makes of one bad byte */
    pk_buf b = PK_BUF_INIT;
    pk_buf_json(&b, "a\xff" "b", 3, PK_JSON_STD);
    assert_string_equal(b.buf, "\"a\xef\xbf\xbd" "b\"");
    pk_buf_clear(&b);
    pk_buf_json(&b, "a\xff" "b", 3, PK_JSON_REPORT);
    assert_string_equal(b.buf, "\"a\\ufffdb\"");
    pk_buf_clear(&b);
    pk_buf_json(&b, "a\xff" "b", 3, PK_JSON_VERBATIM);
    assert_string_equal(b.buf, "\"a\xff" "b\"");
    pk_buf_clear(&b);
    /* valid sequences stay as they are in every form */
    pk_buf_json(&b, "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e", 9, PK_JSON_REPORT);
    assert_string_equal(b.buf, "\"\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\"");
    pk_buf_free(&b);
}

static void escapes_random_strings(void **state)
{
    (void)state;
    /* Strings drawn mostly from the bytes that matter (controls, quotes,
     * markup, lead and continuation bytes), some long. */
    static const uint8_t pick[] = { 0, 1, 9, 10, 13, 31, '"', '\\', '<', '>', '&', '\'', 'a', 'z', ' ',
                                    0x7f, 0x80, 0xbf, 0xc2, 0xc3, 0xdf, 0xe0, 0xe2, 0xed, 0xef,
                                    0xf0, 0xf4, 0xf5, 0xff, 0xa9, 0x82, 0x9d };
    uint64_t x = 0x9e3779b97f4a7c15ull;
    char s[300];
    for (int round = 0; round < 20000; round++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t n = (size_t)(x % (round % 100 == 0 ? sizeof(s) : 12));
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s[i] = (char)((x >> 40) % 4 == 0 ? (uint8_t)(x >> 8) : pick[(x >> 16) % sizeof(pick)]);
        }
        same_as_before(s, n);
    }
}

/* ------------------------------------------------------------ growth */

static void grows_and_keeps_a_c_string(void **state)
{
    (void)state;
    pk_buf b = PK_BUF_INIT;
    assert_string_equal(pk_buf_cstr(&b), "");
    ref want = { 0 };
    char piece[5000];
    for (size_t i = 0; i < sizeof(piece); i++)
        piece[i] = (char)('a' + i % 26);
    for (size_t k = 0; k < 3000; k++) {
        size_t n = (k * 7919) % sizeof(piece);
        pk_buf_put(&b, piece, n);
        ref_put(&want, piece, n);
        pk_buf_putc(&b, '|');
        ref_put(&want, "|", 1);
        assert_true(b.cap > b.len);
        assert_int_equal(b.buf[b.len], 0);
    }
    assert_int_equal(pk_buf_error(&b), 0);
    assert_int_equal(b.len, want.n);
    assert_memory_equal(b.buf, want.p, want.n);
    pk_buf_truncate(&b, 3);
    assert_int_equal(strlen(pk_buf_cstr(&b)), 3);
    assert_memory_equal(pk_buf_cstr(&b), want.p, 3);
    char *out;
    size_t len;
    assert_int_equal(pk_buf_take(&b, &out, &len), 0);
    assert_int_equal(len, 3);
    assert_int_equal(out[3], 0);
    assert_memory_equal(out, want.p, 3);
    assert_null(b.buf);
    free(out);
    /* an empty buffer hands over "" */
    assert_int_equal(pk_buf_take(&b, &out, &len), 0);
    assert_non_null(out);
    assert_int_equal(len, 0);
    assert_string_equal(out, "");
    free(out);
    free(want.p);
}

static void printf_and_integers(void **state)
{
    (void)state;
    pk_buf b = PK_BUF_INIT;
    char want[4096];
    size_t wn = 0;
    for (int i = 0; i < 100; i++) {
        pk_buf_printf(&b, "%d:%s;", i * 12345, i % 10 ? "x" : "a longer piece of text");
        wn += (size_t)snprintf(want + wn, sizeof(want) - wn, "%d:%s;", i * 12345,
                               i % 10 ? "x" : "a longer piece of text");
    }
    assert_string_equal(b.buf, want);
    /* longer than any room the buffer had */
    char big[3000];
    memset(big, 'q', sizeof(big) - 1);
    big[sizeof(big) - 1] = 0;
    pk_buf_clear(&b);
    pk_buf_printf(&b, "<%s>", big);
    assert_int_equal(b.len, sizeof(big) + 1);
    assert_int_equal(b.buf[0], '<');
    assert_int_equal(b.buf[b.len - 1], '>');
    pk_buf_clear(&b);
    int64_t vals[] = { 0, 1, -1, 9, 10, -10, INT64_MAX, INT64_MIN, 1234567890123 };
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        pk_buf_i64(&b, vals[i]);
        pk_buf_putc(&b, ' ');
        pk_buf_u64(&b, (uint64_t)vals[i]);
        pk_buf_putc(&b, ' ');
    }
    wn = 0;
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
        wn += (size_t)snprintf(want + wn, sizeof(want) - wn, "%lld %llu ", (long long)vals[i],
                               (unsigned long long)vals[i]);
    assert_string_equal(b.buf, want);
    pk_buf_free(&b);
}

/* ------------------------------------------------- the bound, errors */

static void the_bound_is_sticky_and_reported_once(void **state)
{
    (void)state;
    pk_buf b;
    pk_buf_init(&b, 100);
    pk_buf_put(&b, "0123456789", 10);
    for (int i = 0; i < 9; i++)
        pk_buf_put(&b, "0123456789", 10);
    assert_int_equal(pk_buf_error(&b), 0);
    assert_int_equal(b.len, 100); /* exactly the bound fits */
    pk_buf_putc(&b, 'x');         /* one more does not */
    assert_int_equal(pk_buf_error(&b), PROFKIT_ENOMEM);
    assert_int_equal(b.len, 100);
    /* every later call is a no-op, small ones too */
    pk_buf_putc(&b, 'y');
    pk_buf_put(&b, "", 0);
    pk_buf_printf(&b, "%d", 5);
    pk_buf_json(&b, "z", 1, PK_JSON_STD);
    pk_buf_xml(&b, "z", 1);
    pk_buf_i64(&b, 7);
    pk_buf_clear(&b);
    assert_int_equal(b.len, 100);
    assert_int_equal(pk_buf_reserve(&b, 0), PROFKIT_ENOMEM);
    assert_string_equal(pk_buf_cstr(&b), "");
    profkit_error err;
    memset(&err, 0, sizeof(err));
    assert_int_equal(pk_buf_check(&b, &err, "out.json", "writing the output"), PROFKIT_ENOMEM);
    assert_string_equal(err.message, "writing the output: more than 100 bytes");
    assert_string_equal(err.file, "out.json");
    char *out = (char *)"x";
    size_t len = 9;
    assert_int_equal(pk_buf_take(&b, &out, &len), PROFKIT_ENOMEM);
    assert_null(out);
    assert_int_equal(len, 0);
    assert_null(b.buf); /* take freed it */
    /* The bound is checked without overflow for any size asked. */
    pk_buf_init(&b, 0);
    pk_buf_putc(&b, 'a');
    pk_buf_put_slow(&b, "", SIZE_MAX);
    assert_int_equal(pk_buf_error(&b), PROFKIT_ENOMEM);
    assert_string_equal(b.buf, "a");
    pk_buf_free(&b);
    pk_buf_init(&b, 0);
    assert_int_equal(pk_buf_reserve(&b, SIZE_MAX - 1), PROFKIT_ENOMEM);
    pk_buf_free(&b);
}

static void out_of_memory_is_sticky(void **state)
{
    (void)state;
    /* Under the default bound, but more than any machine gives. */
    pk_buf b = PK_BUF_INIT;
    pk_buf_puts(&b, "kept");
    assert_int_equal(pk_buf_reserve(&b, PK_BUF_MAX_DEFAULT - 100), PROFKIT_ENOMEM);
    assert_string_equal(b.buf, "kept");
    pk_buf_puts(&b, "lost");
    pk_buf_printf(&b, "%s", "lost");
    assert_int_equal(b.len, 4);
    assert_memory_equal(b.buf, "kept", 4);
    profkit_error err;
    memset(&err, 0, sizeof(err));
    assert_int_equal(pk_buf_check(&b, &err, NULL, "rendering"), PROFKIT_ENOMEM);
    assert_string_equal(err.message, "out of memory rendering");
    pk_buf_free(&b);
    /* and a free buffer is usable again */
    pk_buf_puts(&b, "new");
    assert_int_equal(pk_buf_error(&b), 0);
    assert_string_equal(b.buf, "new");
    pk_buf_free(&b);
}

/* ------------------------------------------------------------ drains */

typedef struct drained {
    ref got;
    size_t loads, fail_at;
    size_t sizes[64];
} drained;

static int collect(void *ctx, const void *data, size_t n)
{
    drained *d = ctx;
    if (d->loads == d->fail_at)
        return PROFKIT_EIO;
    if (d->loads < 64)
        d->sizes[d->loads] = n;
    d->loads++;
    ref_put(&d->got, data, n);
    return 0;
}

static void drains_in_full_loads(void **state)
{
    (void)state;
    char store[17];
    drained d = { { 0 }, 0, SIZE_MAX, { 0 } };
    pk_buf b;
    pk_buf_init_drain(&b, store, sizeof(store), collect, &d);
    pk_buf g = PK_BUF_INIT; /* the same appends into a growable buffer */
    for (int i = 0; i < 20; i++) {
        pk_buf_printf(&b, "[%d]", i * 1001);
        pk_buf_printf(&g, "[%d]", i * 1001);
        pk_buf_json(&b, "a\"<\xff", 4, PK_JSON_PAGE);
        pk_buf_json(&g, "a\"<\xff", 4, PK_JSON_PAGE);
        pk_buf_put(&b, "0123456789012345678901234", (size_t)i);
        pk_buf_put(&g, "0123456789012345678901234", (size_t)i);
    }
    pk_buf_printf(&b, "%s", "a text longer than the storage of the buffer");
    pk_buf_printf(&g, "%s", "a text longer than the storage of the buffer");
    assert_int_equal(pk_buf_flush(&b), 0);
    assert_int_equal(d.got.n, g.len);
    assert_memory_equal(d.got.p, g.buf, g.len);
    /* every load but the last is exactly the storage less its NUL */
    assert_true(d.loads > 10);
    for (size_t i = 0; i + 1 < d.loads && i < 64; i++)
        assert_int_equal(d.sizes[i], 16);
    pk_buf_free(&g);
    free(d.got.p);

    /* a drain that fails: its code is sticky, the drain is not called again */
    drained f = { { 0 }, 0, 2, { 0 } };
    pk_buf_init_drain(&b, store, sizeof(store), collect, &f);
    for (int i = 0; i < 100; i++)
        pk_buf_puts(&b, "twelve bytes");
    assert_int_equal(pk_buf_error(&b), PROFKIT_EIO);
    assert_int_equal(f.loads, 2);
    assert_int_equal(pk_buf_flush(&b), PROFKIT_EIO);
    assert_int_equal(f.loads, 2);
    profkit_error err;
    memset(&err, 0, sizeof(err));
    /* a drain's failure is its owner's to report */
    assert_int_equal(pk_buf_check(&b, &err, NULL, "x"), PROFKIT_EIO);
    assert_string_equal(err.message, "");
    free(f.got.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(escapes_every_byte),
        cmocka_unit_test(escapes_control_bytes_as_documented),
        cmocka_unit_test(escapes_invalid_utf8),
        cmocka_unit_test(escapes_random_strings),
        cmocka_unit_test(grows_and_keeps_a_c_string),
        cmocka_unit_test(printf_and_integers),
        cmocka_unit_test(the_bound_is_sticky_and_reported_once),
        cmocka_unit_test(out_of_memory_is_sticky),
        cmocka_unit_test(drains_in_full_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
