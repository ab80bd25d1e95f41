/*
 * json.c: the streaming JSON layer (see json.h) over yajl's callback parser.
 */
#include "io/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#define PK_JSON_CHUNK (256u * 1024u)

struct pk_json {
    yajl_handle h;
    yajl_callbacks cbs;     /* this parser's own: skipping unsets the scalar ones */
    profkit_read_ctx *ctx;
    pk_json_fn fn;
    void *payload;
    pk_json *outer;
    int rc;                 /* the callback's code when it stopped the parse */
    pk_json_type last;      /* type of the token being handled */
    size_t skip;            /* > 0: inside a skipped value, this deep */
    const uint8_t *chunk;   /* the chunk yajl is working on */
    size_t chunk_len;
    uint64_t chunk_base;    /* offset of chunk[0] in the whole input */
    uint32_t line0, col0;   /* position of chunk[0] */
};

/* ---------------------------------------------------------- positions */

static int is_scalar_char(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '.' || c == '+' || c == '-';
}

/* Line/column of chunk[pos], counting newlines from the chunk start. */
static void pos_in_chunk(const pk_json *j, size_t pos, uint32_t *line, uint32_t *column)
{
    uint32_t l = j->line0;
    size_t last_nl = SIZE_MAX;
    for (size_t i = 0; i < pos && i < j->chunk_len; i++) {
        if (j->chunk[i] == '\n') {
            l++;
            last_nl = i;
        }
    }
    *line = l;
    *column = last_nl == SIZE_MAX ? j->col0 + (uint32_t)pos : (uint32_t)(pos - last_nl);
}

/* Where the current token starts: yajl's offset is just past it. */
static size_t token_start(const pk_json *j)
{
    size_t off = yajl_get_bytes_consumed(j->h);
    if (off > j->chunk_len)
        off = j->chunk_len;
    if (off == 0)
        return 0;
    const uint8_t *c = j->chunk;
    size_t i = off - 1;
    switch (j->last) {
    case PK_JSON_STRING:
    case PK_JSON_KEY:
        /* back over the string to its opening, unescaped quote */
        while (i > 0) {
            i--;
            if (c[i] == '"') {
                size_t k = i, bs = 0;
                while (k > 0 && c[k - 1] == '\\') {
                    k--;
                    bs++;
                }
                if (bs % 2 == 0)
                    return i;
            }
        }
        return 0;
    case PK_JSON_NUMBER:
    case PK_JSON_NULL:
    case PK_JSON_BOOL:
        while (i > 0 && is_scalar_char(c[i - 1]))
            i--;
        return i;
    default:
        return i;
    }
}

void pk_json_where(const pk_json *j, uint32_t *line, uint32_t *column)
{
    if (j->outer) {
        pk_json_where(j->outer, line, column);
        return;
    }
    pos_in_chunk(j, token_start(j), line, column);
}

uint64_t pk_json_offset(const pk_json *j)
{
    return j->chunk_base + yajl_get_bytes_consumed(j->h);
}

int pk_json_fail(pk_json *j, int code, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    uint32_t line, col;
    pk_json_where(j, &line, &col);
    return profkit_read_fail_pos(j->ctx, code, line, col, "%s", msg);
}

int pk_json_warn(pk_json *j, int code, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    uint32_t line, col;
    pk_json_where(j, &line, &col);
    return profkit_read_warn_pos(j->ctx, code, line, col, "%s", msg);
}

/* ---------------------------------------------------------- numbers */

static const double pow10_exact[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

static double slow_number(const char *s, size_t len)
{
    char small[128];
    char *b = len < sizeof small ? small : malloc(len + 1);
    if (!b)
        return NAN;
    memcpy(b, s, len);
    b[len] = 0;
    double v = strtod(b, NULL);
    if (b != small)
        free(b);
    return v;
}

double pk_json_number(const char *s, size_t len)
{
    if (len - 1 < 15) { /* 1 to 15 characters of digits, maybe with a '.': exact */
        uint64_t v = 0;
        size_t k = 0, dot = len;
        for (; k < len; k++) {
            unsigned d = (unsigned)(s[k] - '0');
            if (d <= 9)
                v = v * 10 + d;
            else if (s[k] == '.' && dot == len && k > 0 && k + 1 < len)
                dot = k;
            else
                break;
        }
        /* at most 15 digits: below 2^53, so v and v / 10^f are exact or
         * correctly rounded, as the general path computes them */
        if (k == len)
            return dot == len ? (double)v : (double)v / pow10_exact[len - 1 - dot];
    }
    size_t i = 0;
    int neg = 0;
    if (i < len && s[i] == '-') {
        neg = 1;
        i++;
    }
    uint64_t m = 0;
    int digits = 0, exp10 = 0, inexact = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        if (digits < 19) {
            m = m * 10 + (uint64_t)(s[i] - '0');
            if (m)
                digits++;
        } else {
            exp10++;
            inexact |= s[i] != '0';
        }
    }
    if (i < len && s[i] == '.') {
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            if (digits < 19) {
                m = m * 10 + (uint64_t)(s[i] - '0');
                if (m)
                    digits++;
                exp10--;
            } else {
                inexact |= s[i] != '0';
            }
        }
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0, e = 0;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        exp10 += eneg ? -e : e;
    }
    if (inexact || i != len || m > (1ull << 53) || exp10 < -22 || exp10 > 22)
        return slow_number(s, len);
    double v = (double)m;
    v = exp10 < 0 ? v / pow10_exact[-exp10] : v * pow10_exact[exp10];
    return neg ? -v : v;
}

/* ---------------------------------------------------------- callbacks */

static int emit(pk_json *j, pk_json_event *ev)
{
    j->last = ev->type;
    int rc = j->fn(j, j->payload, ev);
    if (rc) {
        j->rc = rc;
        return 0;
    }
    return 1;
}

/* Inside a skipped value events are only counted (yajl still checks the
 * syntax, and `last` stays right for error positions). */
#define SKIPPED(c, type, delta)                  \
    do {                                         \
        pk_json *j_ = (c);                       \
        if (j_->skip) {                          \
            j_->last = (type);                   \
            j_->skip += (size_t)(delta);         \
            return 1;                            \
        }                                        \
    } while (0)

/* The end of a container inside a skipped value; the skipped value's own
 * end ends the skip. */
#define SKIPPED_END(c, type)                     \
    do {                                         \
        pk_json *j_ = (c);                       \
        if (j_->skip) {                          \
            j_->last = (type);                   \
            if (--j_->skip == 0)                 \
                skip_done(j_);                   \
            return 1;                            \
        }                                        \
    } while (0)

static int cb_null(void *c)
{
    SKIPPED(c, PK_JSON_NULL, 0);
    pk_json_event ev = { PK_JSON_NULL, NULL, 0, 0 };
    return emit(c, &ev);
}
static int cb_bool(void *c, int b)
{
    SKIPPED(c, PK_JSON_BOOL, 0);
    pk_json_event ev = { PK_JSON_BOOL, NULL, 0, b };
    return emit(c, &ev);
}
static int cb_number(void *c, const char *s, size_t len)
{
    SKIPPED(c, PK_JSON_NUMBER, 0);
    pk_json_event ev = { PK_JSON_NUMBER, s, len, 0 };
    return emit(c, &ev);
}
static int cb_string(void *c, const unsigned char *s, size_t len)
{
    SKIPPED(c, PK_JSON_STRING, 0);
    pk_json_event ev = { PK_JSON_STRING, (const char *)s, len, 0 };
    return emit(c, &ev);
}
static int cb_key(void *c, const unsigned char *s, size_t len)
{
    SKIPPED(c, PK_JSON_KEY, 0);
    pk_json_event ev = { PK_JSON_KEY, (const char *)s, len, 0 };
    return emit(c, &ev);
}
static int cb_map_start(void *c)
{
    SKIPPED(c, PK_JSON_MAP_START, 1);
    pk_json_event ev = { PK_JSON_MAP_START, NULL, 0, 0 };
    return emit(c, &ev);
}
static void skip_done(pk_json *j);
static int cb_map_end(void *c)
{
    SKIPPED_END(c, PK_JSON_MAP_END);
    pk_json_event ev = { PK_JSON_MAP_END, NULL, 0, 0 };
    return emit(c, &ev);
}
static int cb_array_start(void *c)
{
    SKIPPED(c, PK_JSON_ARRAY_START, 1);
    pk_json_event ev = { PK_JSON_ARRAY_START, NULL, 0, 0 };
    return emit(c, &ev);
}
static int cb_array_end(void *c)
{
    SKIPPED_END(c, PK_JSON_ARRAY_END);
    pk_json_event ev = { PK_JSON_ARRAY_END, NULL, 0, 0 };
    return emit(c, &ev);
}

static const yajl_callbacks callbacks = {
    cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
    cb_map_start, cb_key, cb_map_end, cb_array_start, cb_array_end,
};

/*
 * Inside a skipped value only the containers' starts and ends matter (they
 * count the depth), so the scalar callbacks are unset: yajl checks every
 * token all the same, but calls nothing for a scalar (and does not unescape
 * a string) when its callback is NULL. yajl reads the callbacks through the
 * pointer given to yajl_alloc, at each token; were it to copy them instead,
 * the scalar callbacks would still be called and skip them as before.
 */
void pk_json_skip_value(pk_json *j)
{
    j->skip = 1;
    j->cbs.yajl_null = NULL;
    j->cbs.yajl_boolean = NULL;
    j->cbs.yajl_number = NULL;
    j->cbs.yajl_string = NULL;
    j->cbs.yajl_map_key = NULL;
}

static void skip_done(pk_json *j) { j->cbs = callbacks; }

/* Advances the position of the next chunk past this one. */
static void advance(pk_json *j)
{
    const uint8_t *p = j->chunk, *end = j->chunk + j->chunk_len, *nl;
    const uint8_t *last = NULL;
    while (p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        j->line0++;
        last = nl;
        p = nl + 1;
    }
    if (last)
        j->col0 = (uint32_t)(end - last);
    else
        j->col0 += (uint32_t)j->chunk_len;
    j->chunk_base += j->chunk_len;
}

/* Turns a yajl failure into an error at the position yajl stopped. */
static int syntax_error(pk_json *j, int at_end)
{
    if (j->rc)
        return j->rc;
    unsigned char *e = yajl_get_error(j->h, 0, NULL, 0);
    char msg[200];
    snprintf(msg, sizeof msg, "%s", e ? (const char *)e : "syntax error");
    if (e)
        yajl_free_error(j->h, e);
    /* yajl's messages end in ".\n" or a newline; keep one line */
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '.' || msg[n - 1] == ' '))
        msg[--n] = 0;
    uint32_t line, col;
    if (j->outer) {
        /* JSON text inside a JSON string: the outer document is fine */
        pk_json_where(j->outer, &line, &col);
        if (at_end)
            return profkit_read_fail_pos(j->ctx, PROFKIT_ECORRUPT, line, col,
                                         "the JSON text inside this string is incomplete");
        return profkit_read_fail_pos(j->ctx, PROFKIT_ECORRUPT, line, col,
                                     "JSON text inside this string: %s", msg);
    } else {
        size_t off = at_end ? j->chunk_len : yajl_get_bytes_consumed(j->h);
        pos_in_chunk(j, off, &line, &col);
    }
    if (at_end && j->chunk_base == 0)
        return profkit_read_fail_pos(j->ctx, PROFKIT_ETRUNCATED, line, col,
                                     "empty input: expected a JSON document");
    if (at_end) /* yajl says only "premature EOF" */
        return profkit_read_fail_pos(j->ctx, PROFKIT_ETRUNCATED, line, col,
                                     "JSON: the input ends inside the document (truncated file?)");
    return profkit_read_fail_pos(j->ctx, PROFKIT_ECORRUPT, line, col, "JSON: %s", msg);
}

static int open_parser(pk_json *j, profkit_read_ctx *ctx, pk_json_fn fn, void *payload)
{
    memset(j, 0, sizeof *j);
    j->ctx = ctx;
    j->fn = fn;
    j->payload = payload;
    j->line0 = 1;
    j->col0 = 1;
    j->cbs = callbacks;
    j->h = yajl_alloc(&j->cbs, NULL, j);
    if (!j->h)
        return profkit_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    /* Strings are kept as bytes; UTF-8 validity is not ours to enforce. */
    yajl_config(j->h, yajl_dont_validate_strings, 1);
    return 0;
}

static int feed(pk_json *j, const uint8_t *data, size_t n)
{
    j->chunk = data;
    j->chunk_len = n;
    yajl_status st = yajl_parse(j->h, data, n);
    if (st != yajl_status_ok)
        return syntax_error(j, 0);
    advance(j);
    return 0;
}

static int finish(pk_json *j)
{
    j->chunk_len = 0;
    yajl_status st = yajl_complete_parse(j->h);
    if (st != yajl_status_ok)
        return syntax_error(j, 1);
    return 0;
}

int pk_json_parse_source(profkit_read_ctx *ctx, pk_json_fn fn, void *payload)
{
    pk_json j;
    int rc = open_parser(&j, ctx, fn, payload);
    if (rc)
        return rc;
    uint8_t *buf = malloc(PK_JSON_CHUNK);
    if (!buf) {
        yajl_free(j.h);
        return profkit_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    }
    for (;;) {
        size_t got = 0;
        rc = profkit_source_read(ctx->src, buf, PK_JSON_CHUNK, &got, ctx->err);
        if (rc)
            break;
        if (got == 0) {
            rc = finish(&j);
            break;
        }
        if ((rc = feed(&j, buf, got)) != 0)
            break;
    }
    free(buf);
    yajl_free(j.h);
    return rc;
}

int pk_json_parse_memory(profkit_read_ctx *ctx, const char *data, size_t n, pk_json *outer,
                         pk_json_fn fn, void *payload)
{
    pk_json j;
    int rc = open_parser(&j, ctx, fn, payload);
    if (rc)
        return rc;
    j.outer = outer;
    rc = feed(&j, (const uint8_t *)data, n);
    if (!rc)
        rc = finish(&j);
    yajl_free(j.h);
    return rc;
}

/* ---------------------------------------------------------- text */

static void text_put(pk_json_text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 64;
        while (cap < t->len + n + 1) {
            if (cap > SIZE_MAX / 2) {
                t->failed = 1;
                return;
            }
            cap *= 2;
        }
        char *b = realloc(t->buf, cap);
        if (!b) {
            t->failed = 1;
            return;
        }
        t->buf = b;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = 0;
}

void pk_json_text_string(pk_json_text *t, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    text_put(t, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        text_put(t, s + run, i - run);
        run = i + 1;
        char esc[7] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0 };
        if (c == '"' || c == '\\') {
            esc[1] = (char)c;
            text_put(t, esc, 2);
        } else {
            text_put(t, esc, 6);
        }
    }
    text_put(t, s + run, len - run);
    text_put(t, "\"", 1);
}

void pk_json_text_event(pk_json_text *t, const pk_json_event *ev)
{
    if (ev->type != PK_JSON_MAP_END && ev->type != PK_JSON_ARRAY_END && t->len > 0) {
        char last = t->buf[t->len - 1];
        if (last != '[' && last != '{' && last != ':')
            text_put(t, ",", 1);
    }
    switch (ev->type) {
    case PK_JSON_NULL: text_put(t, "null", 4); break;
    case PK_JSON_BOOL: ev->boolean ? text_put(t, "true", 4) : text_put(t, "false", 5); break;
    case PK_JSON_NUMBER: text_put(t, ev->str, ev->len); break;
    case PK_JSON_STRING: pk_json_text_string(t, ev->str, ev->len); break;
    case PK_JSON_KEY:
        pk_json_text_string(t, ev->str, ev->len);
        text_put(t, ":", 1);
        break;
    case PK_JSON_MAP_START: text_put(t, "{", 1); break;
    case PK_JSON_MAP_END: text_put(t, "}", 1); break;
    case PK_JSON_ARRAY_START: text_put(t, "[", 1); break;
    case PK_JSON_ARRAY_END: text_put(t, "]", 1); break;
    }
}

void pk_json_text_free(pk_json_text *t)
{
    free(t->buf);
    memset(t, 0, sizeof *t);
}
