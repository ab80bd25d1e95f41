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

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define PK_JSON_CHUNK (256u * 1024u)
/* Default limit on one string or number: 256 MiB. */
#define PK_JSON_MAX_TOKEN (256ull << 20)

/*
 * A token cut by a chunk's end: yajl keeps its start in a buffer of its own
 * and lexes the buffer again from the token's first byte with every chunk
 * that follows, so a string or number spanning k chunks costs k times its
 * length (quadratic: a 128 MB string took minutes). This layer therefore
 * never hands yajl a chunk that ends inside a token: it follows strings
 * (quotes and backslashes) and scalars (numbers, true/false/null) across
 * the chunks it reads, gives yajl each chunk up to the start of a token left
 * open at its end, and keeps that token's bytes (growing by doubling) until
 * it ends. yajl then sees each long token whole, once.
 */
typedef struct pk_json_scan {
    uint8_t in_str;    /* inside a string */
    uint8_t esc;       /* the byte before was an escaping backslash */
    uint8_t in_scalar; /* inside a number or literal (outside strings) */
} pk_json_scan;

struct pk_json {
    yajl_handle h;
    yajl_callbacks cbs;     /* this parser's own: skipping unsets the scalar ones */
    pk_read_ctx *ctx;
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
    pk_json_scan scan;      /* token state at the end of the bytes read */
    uint8_t *pend;          /* the open token's bytes not given to yajl yet */
    size_t pend_len, pend_cap;
    uint64_t max_token;     /* limit on one token's length (0: none) */
    /* the last position asked for (pos_in_chunk) */
    const uint8_t *where_chunk;
    uint64_t where_base;
    size_t where_pos, where_nl;
    uint32_t where_line;
};

/* ---------------------------------------------------------- positions */

static int is_scalar_char(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '.' || c == '+' || c == '-';
}

/*
 * Line/column of chunk[pos]. Counting newlines from the chunk's start at
 * every call cost a chunk (256 KiB) per call: readers that note where each
 * thread or table starts made that quadratic (10,000 empty threads took 9
 * s). The last answer is kept, and a later position in the same chunk
 * counts on from it: each byte is counted once per chunk.
 */
static void pos_in_chunk(const pk_json *jc, size_t pos, uint32_t *line, uint32_t *column)
{
    pk_json *j = (pk_json *)jc; /* the cache is not part of the parser's state */
    if (pos > j->chunk_len)
        pos = j->chunk_len;
    if (j->where_chunk != j->chunk || j->where_base != j->chunk_base || pos < j->where_pos) {
        j->where_chunk = j->chunk;
        j->where_base = j->chunk_base;
        j->where_pos = 0;
        j->where_line = j->line0;
        j->where_nl = SIZE_MAX;
    }
    const uint8_t *c = j->chunk, *nl;
    size_t i = j->where_pos;
    while (i < pos && (nl = memchr(c + i, '\n', pos - i)) != NULL) {
        j->where_line++;
        j->where_nl = (size_t)(nl - c);
        i = j->where_nl + 1;
    }
    j->where_pos = pos;
    *line = j->where_line;
    *column = j->where_nl == SIZE_MAX ? j->col0 + (uint32_t)pos : (uint32_t)(pos - j->where_nl);
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
    return pk_read_fail_pos(j->ctx, code, line, col, "%s", msg);
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
    return pk_read_warn_pos(j->ctx, code, line, col, "%s", msg);
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

/* One token past the limit, at (line, col): its start. */
static int token_too_long(pk_json *j, uint32_t line, uint32_t col)
{
    return pk_read_fail_pos(j->ctx, PROFKIT_EUNSUPPORTED, line, col,
                            "JSON: a string or number longer than the limit of %llu bytes "
                            "(profkit_read_options.max_string_size raises it)",
                            (unsigned long long)j->max_token);
}

/* A token yajl gives whole: the limit holds wherever the chunks fall
 * (pend_add holds it for a token cut by a chunk). 1: past it, j->rc set. */
static int long_token(pk_json *j, size_t len)
{
    if (!j->max_token || len <= j->max_token)
        return 0;
    uint32_t line, col;
    pk_json_where(j, &line, &col);
    j->rc = token_too_long(j, line, col);
    return 1;
}

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
    if (long_token(c, len))
        return 0;
    SKIPPED(c, PK_JSON_NUMBER, 0);
    pk_json_event ev = { PK_JSON_NUMBER, s, len, 0 };
    return emit(c, &ev);
}
static int cb_string(void *c, const unsigned char *s, size_t len)
{
    if (long_token(c, len))
        return 0;
    SKIPPED(c, PK_JSON_STRING, 0);
    pk_json_event ev = { PK_JSON_STRING, (const char *)s, len, 0 };
    return emit(c, &ev);
}
static int cb_key(void *c, const unsigned char *s, size_t len)
{
    if (long_token(c, len))
        return 0;
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
            return pk_read_fail_pos(j->ctx, PROFKIT_ECORRUPT, line, col,
                                         "the JSON text inside this string is incomplete");
        return pk_read_fail_pos(j->ctx, PROFKIT_ECORRUPT, line, col,
                                     "JSON text inside this string: %s", msg);
    } else {
        size_t off = at_end ? j->chunk_len : yajl_get_bytes_consumed(j->h);
        pos_in_chunk(j, off, &line, &col);
    }
    if (at_end && j->chunk_base == 0)
        return pk_read_fail_pos(j->ctx, PROFKIT_ETRUNCATED, line, col,
                                     "empty input: expected a JSON document");
    if (at_end) /* yajl says only "premature EOF" */
        return pk_read_fail_pos(j->ctx, PROFKIT_ETRUNCATED, line, col,
                                     "JSON: the input ends inside the document (truncated file?)");
    return pk_read_fail_pos(j->ctx, PROFKIT_ECORRUPT, line, col, "JSON: %s", msg);
}

static int open_parser(pk_json *j, pk_read_ctx *ctx, pk_json_fn fn, void *payload)
{
    memset(j, 0, sizeof *j);
    j->ctx = ctx;
    j->fn = fn;
    j->payload = payload;
    j->line0 = 1;
    j->col0 = 1;
    j->where_pos = SIZE_MAX; /* no position asked for yet */
    j->cbs = callbacks;
    j->max_token = ctx->opts->max_string_size ? ctx->opts->max_string_size : PK_JSON_MAX_TOKEN;
    j->h = yajl_alloc(&j->cbs, NULL, j);
    if (!j->h)
        return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
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

static int is_scalar_byte(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '.' || c == '+' || c == '-';
}

/*
 * Follows the token state over data[0..n). Returns the offset where the
 * token still open at the end starts, n when none is open, or SIZE_MAX when
 * the open token started before data (it continues through all of data).
 * Each byte is looked at once: outside strings only quotes matter (memchr;
 * a number or literal left open is found from the end), inside them quotes
 * and backslashes, 16 bytes at a time where SSE2 is there.
 */
static size_t scan_chunk(pk_json_scan *st, const uint8_t *d, size_t n)
{
    int was_scalar = st->in_scalar;
    size_t open = n, str_end = 0, i = 0;
    if (st->in_str)
        open = SIZE_MAX;
    while (i < n) {
        if (!st->in_str) {
            const uint8_t *q = memchr(d + i, '"', n - i);
            if (!q)
                break;
            i = (size_t)(q - d);
            st->in_str = 1;
            open = i++;
            continue;
        }
        if (st->esc) {
            st->esc = 0;
            i++;
            continue;
        }
#if defined(__SSE2__)
        const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\');
        while (i + 16 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i *)(d + i));
            int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, vq), _mm_cmpeq_epi8(v, vb)));
            if (m) {
                i += (size_t)__builtin_ctz((unsigned)m);
                break;
            }
            i += 16;
        }
#endif
        for (; i < n; i++) {
            if (d[i] == '"') {
                st->in_str = 0;
                open = n;
                str_end = ++i;
                break;
            }
            if (d[i] == '\\') {
                st->esc = 1;
                i++;
                break;
            }
        }
    }
    if (st->in_str)
        return open;
    size_t r = n;
    while (r > str_end && is_scalar_byte(d[r - 1]))
        r--;
    st->in_scalar = r < n;
    if (r == n)
        return n;
    return r == 0 && str_end == 0 && was_scalar ? SIZE_MAX : r;
}

static int pend_add(pk_json *j, const uint8_t *d, size_t n)
{
    if (n == 0)
        return 0;
    if (j->max_token && j->pend_len + n > j->max_token) {
        /* the token starts at the chunk base: the bytes given to yajl so far */
        j->chunk = NULL;
        j->chunk_len = 0;
        return token_too_long(j, j->line0, j->col0);
    }
    if (pk_grow((void **)&j->pend, &j->pend_cap, j->pend_len + n, 1) != 0)
        return pk_read_fail(j->ctx, PROFKIT_ENOMEM, -1,
                                 "out of memory holding a JSON token of %zu bytes", j->pend_len + n);
    memcpy(j->pend + j->pend_len, d, n);
    j->pend_len += n;
    return 0;
}

/* Gives yajl the held token, if any (it is complete, or the input ended). */
static int feed_pend(pk_json *j)
{
    if (j->pend_len == 0)
        return 0;
    size_t n = j->pend_len;
    j->pend_len = 0;
    return feed(j, j->pend, n);
}

/* Feeds one chunk read from the source, never ending inside a token. */
static int feed_stream(pk_json *j, const uint8_t *data, size_t n)
{
    size_t open = scan_chunk(&j->scan, data, n);
    if (open == SIZE_MAX) /* the held token goes on through this chunk */
        return pend_add(j, data, n);
    int rc = feed_pend(j);
    if (rc)
        return rc;
    if (open > 0 && (rc = feed(j, data, open)) != 0)
        return rc;
    return pend_add(j, data + open, n - open);
}

static int finish(pk_json *j)
{
    int rc = feed_pend(j);
    if (rc)
        return rc;
    j->chunk_len = 0;
    yajl_status st = yajl_complete_parse(j->h);
    if (st != yajl_status_ok)
        return syntax_error(j, 1);
    return 0;
}

int pk_json_parse_source(pk_read_ctx *ctx, pk_json_fn fn, void *payload)
{
    pk_json j;
    int rc = open_parser(&j, ctx, fn, payload);
    if (rc)
        return rc;
    uint8_t *buf = malloc(PK_JSON_CHUNK);
    if (!buf) {
        yajl_free(j.h);
        return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    }
    for (;;) {
        size_t got = 0;
        rc = pk_source_read(ctx->src, buf, PK_JSON_CHUNK, &got, ctx->err);
        if (rc)
            break;
        if (got == 0) {
            rc = finish(&j);
            break;
        }
        if ((rc = feed_stream(&j, buf, got)) != 0)
            break;
    }
    free(buf);
    free(j.pend);
    yajl_free(j.h);
    return rc;
}

int pk_json_parse_memory(pk_read_ctx *ctx, const char *data, size_t n, pk_json *outer,
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

void pk_json_text_event(pk_buf *t, const pk_json_event *ev)
{
    if (ev->type != PK_JSON_MAP_END && ev->type != PK_JSON_ARRAY_END && t->len > 0) {
        char last = t->buf[t->len - 1];
        if (last != '[' && last != '{' && last != ':')
            pk_buf_putc(t, ',');
    }
    switch (ev->type) {
    case PK_JSON_NULL: pk_buf_put(t, "null", 4); break;
    case PK_JSON_BOOL: ev->boolean ? pk_buf_put(t, "true", 4) : pk_buf_put(t, "false", 5); break;
    case PK_JSON_NUMBER: pk_buf_put(t, ev->str, ev->len); break;
    case PK_JSON_STRING: pk_buf_json(t, ev->str, ev->len, PK_JSON_VERBATIM); break;
    case PK_JSON_KEY:
        pk_buf_json(t, ev->str, ev->len, PK_JSON_VERBATIM);
        pk_buf_putc(t, ':');
        break;
    case PK_JSON_MAP_START: pk_buf_putc(t, '{'); break;
    case PK_JSON_MAP_END: pk_buf_putc(t, '}'); break;
    case PK_JSON_ARRAY_START: pk_buf_putc(t, '['); break;
    case PK_JSON_ARRAY_END: pk_buf_putc(t, ']'); break;
    }
}

const char *pk_json_type_name(pk_json_type t)
{
    switch (t) {
    case PK_JSON_NULL: return "null";
    case PK_JSON_BOOL: return "a boolean";
    case PK_JSON_NUMBER: return "a number";
    case PK_JSON_STRING: return "a string";
    case PK_JSON_MAP_START: return "an object";
    case PK_JSON_ARRAY_START: return "an array";
    default: return "the end of a container";
    }
}

int pk_json_as_int(const pk_json_event *ev, int64_t *out)
{
    if (ev->type != PK_JSON_NUMBER || ev->len == 0)
        return 0;
    size_t i = ev->str[0] == '-';
    if (i == ev->len || ev->len - i > 18) /* 18 digits: no overflow */
        return 0;
    int64_t v = 0;
    for (; i < ev->len; i++) {
        if (ev->str[i] < '0' || ev->str[i] > '9')
            return 0;
        v = v * 10 + (ev->str[i] - '0');
    }
    *out = ev->str[0] == '-' ? -v : v;
    return 1;
}

int pk_json_key_is(const pk_json_event *ev, const char *k)
{
    return ev->len == strlen(k) && memcmp(ev->str, k, ev->len) == 0;
}
