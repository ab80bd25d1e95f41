/*
 * json.c: the streaming JSON layer (see json.h) over yajl's callback parser,
 * with a scanner of its own for the elements of large arrays (see "fast
 * path" below).
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
    uint64_t max_token;     /* limit on one token's length (0: none) */
    /* the last position asked for (pos_in_chunk) */
    const uint8_t *where_chunk;
    uint64_t where_base;
    size_t where_pos, where_nl;
    uint32_t where_line;
    /* The fast path (see fast_elements): set while the elements of an
     * array are taken here and not by yajl, which has seen the array's
     * '[' and nothing after it; tok/tok_end: the token being handled. */
    int fast;
    const uint8_t *tok, *tok_end;
    pk_json_scalar *toks; /* an element's tokens (any type; see add_tok) */
    size_t cap_toks;
    uint64_t nev;         /* events handed on so far */
    pk_json_row_fn rows_fn; /* pk_json_take_rows: for the array whose start was event rows_ev */
    void *rows_payload;
    uint64_t rows_ev;
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
    if (j->tok)
        return (size_t)(j->tok - j->chunk);
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
    if (j->tok)
        return j->chunk_base + (uint64_t)(j->tok_end - j->chunk);
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
    j->nev++;
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
 * (pk_json_parse_source holds it for a token cut by a chunk). 1: past it, j->rc set. */
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

void pk_json_take_rows(pk_json *j, pk_json_row_fn fn, void *payload)
{
    j->rows_fn = fn;
    j->rows_payload = payload;
    j->rows_ev = j->nev;
}

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

/* ---------------------------------------------------------- fast path */

/*
 * yajl spends about 50 instructions on a byte, and the large arrays of a
 * profile (a Gecko thread's stackTable, frameTable, samples and markers
 * rows, string tables) are most of the bytes. An array that is an object's
 * value (after "key":) is therefore read here: yajl is given the text up
 * to and including its '[', and its elements are taken one at a time. An
 * element is first checked whole against the JSON grammar, strictly (no
 * escapes in a string whose event is handed on, no control bytes in
 * strings, numbers exactly as JSON writes them, only the four whitespace
 * bytes, at most FAST_DEPTH deep), then its events are handed on as yajl
 * hands them (the same text, at the same positions). An element is taken
 * only when a ',' and the start of another value follow it: yajl's state
 * stays the one after the '[' (expecting a value), which for a value that
 * follows is the state after a ','. Anything else ends the fast path for
 * the array, and yajl reads the rest from the element's first byte, with
 * the same events and errors as ever: the last element and the ']', an
 * element this grammar does not take (escapes, other whitespace, deeper
 * nesting, a syntax error), one of more than FAST_HOLD bytes cut by a
 * chunk's end. Inside a skipped value the elements are only checked (a
 * string's escapes too) and nothing is handed on, as with yajl.
 */
#define FAST_DEPTH 64
#define FAST_HOLD (64u * 1024u)
enum { FAST_OK = 1, FAST_MORE = 0, FAST_BAIL = -1 };

static inline int is_ws(uint8_t c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
static inline int is_digit(uint8_t c) { return (unsigned)(c - '0') <= 9; }
static inline int is_hex(uint8_t c)
{
    return is_digit(c) || ((unsigned)((c | 0x20) - 'a') <= 5);
}
/* After a scalar: what may follow it inside an element. */
static inline int ends_scalar(uint8_t c) { return is_ws(c) || c == ',' || c == ']' || c == '}'; }

/* The string whose opening quote is w[i]: FAST_OK and *end past its
 * closing quote, FAST_MORE when it goes past lim, FAST_BAIL. */
static int fast_string(const uint8_t *w, size_t i, size_t lim, int check_only, size_t *end)
{
    size_t k = i + 1;
    for (;;) {
#if defined(__SSE2__)
        const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\'), v1f = _mm_set1_epi8(0x1f);
        while (k + 16 <= lim) {
            __m128i v = _mm_loadu_si128((const __m128i *)(w + k));
            __m128i ctl = _mm_cmpeq_epi8(_mm_max_epu8(v, v1f), v1f); /* bytes <= 0x1f */
            int m = _mm_movemask_epi8(
                _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, vq), _mm_cmpeq_epi8(v, vb)), ctl));
            if (m) {
                k += (size_t)__builtin_ctz((unsigned)m);
                break;
            }
            k += 16;
        }
#endif
        if (k >= lim)
            return FAST_MORE;
        uint8_t c = w[k];
        if (c == '"') {
            *end = k + 1;
            return FAST_OK;
        }
        if (c < 0x20)
            return FAST_BAIL;
        if (c == '\\') {
            if (!check_only) /* yajl unescapes it */
                return FAST_BAIL;
            if (k + 1 >= lim)
                return FAST_MORE;
            uint8_t e = w[k + 1];
            if (e == 'u') {
                if (k + 6 > lim)
                    return FAST_MORE;
                for (size_t h = 2; h < 6; h++)
                    if (!is_hex(w[k + h]))
                        return FAST_BAIL;
                k += 6;
                continue;
            }
            if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
                e == 't') {
                k += 2;
                continue;
            }
            return FAST_BAIL;
        }
        k++;
    }
}

/* The number starting at w[i]; *num its value when *has_num (numbers
 * pk_json_number converts exactly on its first path: up to 15 characters
 * of digits and a '.', computed the same way). */
#if defined(__GNUC__)
#define FAST_INLINE static inline __attribute__((always_inline))
#else
#define FAST_INLINE static inline
#endif
FAST_INLINE int fast_number(const uint8_t *w, size_t i, size_t lim, size_t *end, double *num,
                            uint8_t *has_num)
{
    size_t k = i, frac = 0;
    uint64_t v = 0;
    unsigned d;
    int plain = 1;
    if (w[k] == '-') {
        plain = 0;
        if (++k >= lim)
            return FAST_MORE;
    }
    if (w[k] == '0')
        k++;
    else if (w[k] >= '1' && w[k] <= '9')
        for (; k < lim && (d = (unsigned)(w[k] - '0')) <= 9; k++)
            v = v * 10 + d;
    else
        return FAST_BAIL;
    if (k < lim && w[k] == '.') {
        if (++k >= lim)
            return FAST_MORE;
        if (!is_digit(w[k]))
            return FAST_BAIL;
        size_t f0 = k;
        for (; k < lim && (d = (unsigned)(w[k] - '0')) <= 9; k++)
            v = v * 10 + d;
        frac = k - f0;
    }
    *has_num = 0;
    if (k < lim && (w[k] | 0x20) == 'e') {
        plain = 0;
        if (++k < lim && (w[k] == '+' || w[k] == '-'))
            k++;
        if (k >= lim)
            return FAST_MORE;
        if (!is_digit(w[k]))
            return FAST_BAIL;
        for (; k < lim && is_digit(w[k]); k++) {
        }
    }
    if (k >= lim)
        return FAST_MORE;
    if (!ends_scalar(w[k]))
        return FAST_BAIL;
    if (plain && k - i <= 15) {
        *num = frac ? (double)v / pow10_exact[frac] : (double)v;
        *has_num = 1;
    }
    *end = k;
    return FAST_OK;
}

/* true, false or null at w[i] (lit: its text, n bytes). */
FAST_INLINE int fast_literal(const uint8_t *w, size_t i, size_t lim, const char *lit, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (i + k >= lim)
            return FAST_MORE;
        if (w[i + k] != (uint8_t)lit[k])
            return FAST_BAIL;
    }
    if (i + n >= lim)
        return FAST_MORE;
    return ends_scalar(w[i + n]) ? FAST_OK : FAST_BAIL;
}

/* Tokens of an element use pk_json_scalar for every type: str is the
 * token's first byte (a string's opening quote), len a string's content
 * or a number's or literal's text. */
static inline int add_tok(pk_json *j, size_t *nt, const uint8_t *s, size_t len, int type, int b)
{
    if (PK_UNLIKELY(*nt == j->cap_toks) &&
        pk_grow((void **)&j->toks, &j->cap_toks, *nt + 1, sizeof *j->toks) != 0)
        return -1;
    pk_json_scalar *t = &j->toks[(*nt)++];
    t->str = (const char *)s;
    t->len = (uint32_t)len;
    t->type = (uint8_t)type;
    t->boolean = (uint8_t)b;
    return 0;
}

#define FAST_TOK(s_, len_, type_, b_)                                                  \
    do {                                                                               \
        if (!check_only && add_tok(j, &nt, w + (s_), (len_), (type_), (b_)) != 0)      \
            return FAST_BAIL;                                                          \
    } while (0)
#define FAST_WS()                                   \
    do {                                            \
        while (i < lim && is_ws(w[i]))              \
            i++;                                    \
        if (i >= lim)                               \
            return FAST_MORE;                       \
    } while (0)

/*
 * Checks the value starting at w[i] (not whitespace) and, unless
 * check_only, lists its tokens in j->toks (*nt of them). FAST_OK with *end
 * just past it, FAST_MORE when it goes on past lim, FAST_BAIL.
 */
static int fast_element(pk_json *j, const uint8_t *w, size_t i, size_t lim, int check_only,
                        size_t *end, size_t *nt_out, int *flat)
{
    uint8_t stack[FAST_DEPTH];
    size_t depth = 0, nt = 0, e = 0;
    int rc;
    /* flat: an array of scalars only */
    *flat = w[i] == '[';
value:
    if (i >= lim)
        return FAST_MORE;
    switch (w[i]) {
    case '{':
        if (depth == FAST_DEPTH)
            return FAST_BAIL;
        *flat = 0;
        stack[depth++] = '}';
        FAST_TOK(i, 1, PK_JSON_MAP_START, 0);
        i++;
        FAST_WS();
        if (w[i] == '}') {
            FAST_TOK(i, 1, PK_JSON_MAP_END, 0);
            depth--;
            i++;
            goto after;
        }
        goto key;
    case '[':
        if (depth == FAST_DEPTH)
            return FAST_BAIL;
        if (depth)
            *flat = 0;
        stack[depth++] = ']';
        FAST_TOK(i, 1, PK_JSON_ARRAY_START, 0);
        i++;
        FAST_WS();
        if (w[i] == ']') {
            FAST_TOK(i, 1, PK_JSON_ARRAY_END, 0);
            depth--;
            i++;
            goto after;
        }
        goto value;
    case '"':
        if ((rc = fast_string(w, i, lim, check_only, &e)) != FAST_OK)
            return rc;
        *flat = 0;
        FAST_TOK(i, e - i - 2, PK_JSON_STRING, 0);
        i = e;
        goto after;
    case 't':
        if ((rc = fast_literal(w, i, lim, "true", 4)) != FAST_OK)
            return rc;
        FAST_TOK(i, 4, PK_JSON_BOOL, 1);
        i += 4;
        goto after;
    case 'f':
        if ((rc = fast_literal(w, i, lim, "false", 5)) != FAST_OK)
            return rc;
        FAST_TOK(i, 5, PK_JSON_BOOL, 0);
        i += 5;
        goto after;
    case 'n':
        if ((rc = fast_literal(w, i, lim, "null", 4)) != FAST_OK)
            return rc;
        FAST_TOK(i, 4, PK_JSON_NULL, 0);
        i += 4;
        goto after;
    default:
        if (w[i] != '-' && !is_digit(w[i]))
            return FAST_BAIL;
        double num = 0;
        uint8_t has_num = 0;
        if ((rc = fast_number(w, i, lim, &e, &num, &has_num)) != FAST_OK)
            return rc;
        FAST_TOK(i, e - i, PK_JSON_NUMBER, 0);
        if (!check_only) {
            j->toks[nt - 1].num = num;
            j->toks[nt - 1].has_num = has_num;
        }
        i = e;
        goto after;
    }
key:
    if (w[i] != '"')
        return FAST_BAIL;
    if ((rc = fast_string(w, i, lim, check_only, &e)) != FAST_OK)
        return rc;
    FAST_TOK(i, e - i - 2, PK_JSON_KEY, 0);
    i = e;
    FAST_WS();
    if (w[i] != ':')
        return FAST_BAIL;
    i++;
    FAST_WS();
    goto value;
after:
    if (depth == 0) {
        *end = i;
        *nt_out = nt;
        return FAST_OK;
    }
    FAST_WS();
    if (w[i] == ',') {
        i++;
        FAST_WS();
        if (stack[depth - 1] == '}')
            goto key;
        goto value;
    }
    if (w[i] == stack[depth - 1]) {
        FAST_TOK(i, 1, w[i] == '}' ? PK_JSON_MAP_END : PK_JSON_ARRAY_END, 0);
        depth--;
        i++;
        goto after;
    }
    return FAST_BAIL;
}

/*
 * The common element first: an array of numbers and literals (a table's
 * row), in a tight loop. As fast_element (check_only unset), and
 * FAST_NOT_FLAT when it holds a string or a container (fast_element reads
 * it then).
 */
enum { FAST_NOT_FLAT = 2 };
static int fast_flat_row(pk_json *j, const uint8_t *w, size_t i, size_t lim, size_t *end,
                         size_t *nt_out)
{
    size_t nt = 0, e = 0;
    int rc;
    if (add_tok(j, &nt, w + i, 1, PK_JSON_ARRAY_START, 0) != 0)
        return FAST_BAIL;
    i++;
    while (i < lim && is_ws(w[i]))
        i++;
    if (i >= lim)
        return FAST_MORE;
    if (w[i] != ']') {
        for (;;) {
            uint8_t c = w[i];
            if (c == '-' || is_digit(c)) {
                double num = 0;
                uint8_t has_num = 0;
                if ((rc = fast_number(w, i, lim, &e, &num, &has_num)) != FAST_OK)
                    return rc;
                if (add_tok(j, &nt, w + i, e - i, PK_JSON_NUMBER, 0) != 0)
                    return FAST_BAIL;
                j->toks[nt - 1].num = num;
                j->toks[nt - 1].has_num = has_num;
                i = e;
            } else if (c == 'n' || c == 't' || c == 'f') {
                const char *lit = c == 'n' ? "null" : c == 't' ? "true" : "false";
                size_t n = c == 'f' ? 5 : 4;
                if ((rc = fast_literal(w, i, lim, lit, n)) != FAST_OK)
                    return rc;
                if (add_tok(j, &nt, w + i, n, c == 'n' ? PK_JSON_NULL : PK_JSON_BOOL, c == 't') != 0)
                    return FAST_BAIL;
                i += n;
            } else if (c == '"' || c == '[' || c == '{') {
                return FAST_NOT_FLAT;
            } else {
                return FAST_BAIL;
            }
            while (i < lim && is_ws(w[i]))
                i++;
            if (i >= lim)
                return FAST_MORE;
            if (w[i] == ']')
                break;
            if (w[i] != ',')
                return FAST_BAIL;
            i++;
            while (i < lim && is_ws(w[i]))
                i++;
            if (i >= lim)
                return FAST_MORE;
        }
    }
    if (add_tok(j, &nt, w + i, 1, PK_JSON_ARRAY_END, 0) != 0)
        return FAST_BAIL;
    *end = i + 1;
    *nt_out = nt;
    return FAST_OK;
}

/* Hands on the tokens of one element; 0 or the callback's code. */
static int emit_toks(pk_json *j, size_t nt)
{
    for (size_t k = 0; k < nt; k++) {
        const pk_json_scalar *t = &j->toks[k];
        int ok;
        j->tok = (const uint8_t *)t->str;
        switch (t->type) {
        case PK_JSON_NULL:
            j->tok_end = (const uint8_t *)t->str + 4;
            ok = cb_null(j);
            break;
        case PK_JSON_BOOL:
            j->tok_end = (const uint8_t *)t->str + t->len;
            ok = cb_bool(j, t->boolean);
            break;
        case PK_JSON_NUMBER:
            j->tok_end = (const uint8_t *)t->str + t->len;
            ok = cb_number(j, t->str, t->len);
            break;
        case PK_JSON_STRING:
            j->tok_end = (const uint8_t *)t->str + t->len + 2;
            ok = cb_string(j, (const uint8_t *)t->str + 1, t->len);
            break;
        case PK_JSON_KEY:
            j->tok_end = (const uint8_t *)t->str + t->len + 2;
            ok = cb_key(j, (const uint8_t *)t->str + 1, t->len);
            break;
        case PK_JSON_MAP_START:
            j->tok_end = (const uint8_t *)t->str + 1;
            ok = cb_map_start(j);
            break;
        case PK_JSON_MAP_END:
            j->tok_end = (const uint8_t *)t->str + 1;
            ok = cb_map_end(j);
            break;
        case PK_JSON_ARRAY_START:
            j->tok_end = (const uint8_t *)t->str + 1;
            ok = cb_array_start(j);
            break;
        default:
            j->tok_end = (const uint8_t *)t->str + 1;
            ok = cb_array_end(j);
            break;
        }
        if (!ok)
            return j->rc ? j->rc : PROFKIT_ECORRUPT;
    }
    return 0;
}

static inline int starts_value(uint8_t c)
{
    return c == '[' || c == '{' || c == '"' || c == '-' || is_digit(c) || c == 't' || c == 'f' ||
           c == 'n';
}

/*
 * Takes the elements of the array being read fast from w[pos], as long as
 * each is whole before lim and followed by ',' and a value's start (w[lim..n)
 * is a token still open). *stop: where it stopped. j->fast is cleared when
 * yajl is to read on from there; left set when the next element needs more
 * bytes. 0 or the callback's code.
 */
static int fast_elements(pk_json *j, const uint8_t *w, size_t pos, size_t lim, size_t n,
                         size_t *stop)
{
    j->chunk = w + pos; /* positions of the tokens handed on */
    j->chunk_len = lim - pos;
    size_t i = pos;
    int rc = 0;
    for (;;) {
        size_t e = i, nt = 0, end = 0;
        while (e < lim && is_ws(w[e]))
            e++;
        if (e >= lim)
            break;
        if (w[e] == ']') { /* an empty array */
            j->fast = 0;
            break;
        }
        int check_only = j->skip != 0, flat = 1;
        int r = FAST_NOT_FLAT;
        if (!check_only && w[e] == '[')
            r = fast_flat_row(j, w, e, lim, &end, &nt);
        if (r == FAST_NOT_FLAT)
            r = fast_element(j, w, e, lim, check_only, &end, &nt, &flat);
        if (r == FAST_MORE)
            break;
        if (r == FAST_BAIL) {
            j->fast = 0;
            break;
        }
        size_t k = end;
        while (k < lim && is_ws(w[k]))
            k++;
        if (k >= lim)
            break;
        if (w[k] != ',') { /* the last element, or not JSON: yajl's */
            j->fast = 0;
            break;
        }
        for (k++; k < lim && is_ws(w[k]); k++) {
        }
        if (k >= n)
            break;
        if (!starts_value(w[k])) {
            j->fast = 0;
            break;
        }
        if (!check_only && flat && j->rows_fn) {
            /* a row to the row handler, at the position of its end */
            j->tok = (const uint8_t *)j->toks[nt - 1].str;
            j->tok_end = j->tok + 1;
            j->last = PK_JSON_ARRAY_END;
            int taken = j->rows_fn(j, j->rows_payload, j->toks + 1, nt - 2);
            if (taken < 0) {
                rc = taken;
                break;
            }
            if (taken == 0) {
                i = k;
                continue;
            }
        }
        if (!check_only && (rc = emit_toks(j, nt)) != 0)
            break;
        i = k;
    }
    j->tok = NULL;
    if (!j->fast)
        j->rows_fn = NULL;
    *stop = i;
    j->chunk_len = i - pos;
    if (!rc)
        advance(j);
    return rc;
}

/* In w[i..lim) (outside strings at i), the first array that is an
 * object's value: returns the offset just past its '[' and sets *found, or
 * returns lim. */
static size_t find_split(const uint8_t *w, size_t i, size_t lim, int *found)
{
    *found = 0;
    while (i < lim) {
#if defined(__SSE2__)
        const __m128i vq = _mm_set1_epi8('"'), vc = _mm_set1_epi8(':');
        while (i + 16 <= lim) {
            __m128i v = _mm_loadu_si128((const __m128i *)(w + i));
            int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, vq), _mm_cmpeq_epi8(v, vc)));
            if (m) {
                i += (size_t)__builtin_ctz((unsigned)m);
                break;
            }
            i += 16;
        }
#endif
        while (i < lim && w[i] != '"' && w[i] != ':')
            i++;
        if (i >= lim)
            break;
        if (w[i] == ':') {
            size_t k = i + 1;
            while (k < lim && is_ws(w[k]))
                k++;
            if (k < lim && w[k] == '[') {
                *found = 1;
                return k + 1;
            }
            i = k;
            continue;
        }
        /* a string: to its closing quote */
        for (i++; i < lim;) {
#if defined(__SSE2__)
            const __m128i vb = _mm_set1_epi8('\\');
            while (i + 16 <= lim) {
                __m128i v = _mm_loadu_si128((const __m128i *)(w + i));
                int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, vq), _mm_cmpeq_epi8(v, vb)));
                if (m) {
                    i += (size_t)__builtin_ctz((unsigned)m);
                    break;
                }
                i += 16;
            }
#endif
            if (i >= lim)
                break;
            if (w[i] == '\\') {
                i += 2;
                continue;
            }
            if (w[i] == '"') {
                i++;
                break;
            }
            i++;
        }
    }
    return lim;
}

/*
 * Hands w[0..lim) to yajl and the fast path; w[lim..n) is a token still
 * open at the end of the bytes read (eof: none are coming). *stop: where
 * the bytes not handled yet start (lim, or before it when the fast path
 * waits for an element's end). 0 or an error.
 */
static int process(pk_json *j, const uint8_t *w, size_t lim, size_t n, int eof, size_t *stop)
{
    size_t pos = 0;
    int rc;
    while (pos < lim) {
        if (j->fast) {
            if ((rc = fast_elements(j, w, pos, lim, n, &pos)) != 0)
                return rc;
            if (j->fast) { /* the next element is not whole in w */
                if (!eof && n - pos <= FAST_HOLD && (!j->max_token || n - lim <= j->max_token))
                    break;
                j->fast = 0; /* yajl reads it */
                j->rows_fn = NULL;
            }
            continue;
        }
        int found;
        size_t s = find_split(w, pos, lim, &found);
        if ((rc = feed(j, w + pos, s - pos)) != 0)
            return rc;
        pos = s;
        j->fast = found;
        /* a row handler set for an array before the last one yajl read, or
         * for one yajl reads on: not the fast path's */
        if (!found || j->rows_ev != j->nev)
            j->rows_fn = NULL;
    }
    *stop = pos;
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

/*
 * The bytes read are handled up to the start of a token still open at
 * their end (see pk_json_scan); that token's bytes, or the elements the
 * fast path waits to see whole, are moved to the buffer's start and the
 * next chunk is read after them.
 */
/*
 * A plain file mapped whole is handled in place: the same windows as the
 * reads below (each PK_JSON_CHUNK bytes more, from where the bytes not
 * handled yet start), so the parser sees what it would see, without the
 * copy into a buffer; the pages before a window leave memory as it moves
 * on (pk_source_map_done, which also reports progress).
 */
static int parse_mapped(pk_json *j, pk_read_ctx *ctx, const uint8_t *map, size_t size)
{
    size_t base = 0, have = 0, open_at = SIZE_MAX; /* as in pk_json_parse_source, from base */
    int rc;
    for (;;) {
        size_t got = size - base - have;
        if (got > PK_JSON_CHUNK)
            got = PK_JSON_CHUNK;
        size_t n = have + got, stop = 0;
        const uint8_t *buf = map + base;
        if (got == 0) {
            rc = process(j, buf, n, n, 1, &stop);
            if (!rc)
                rc = finish(j);
            break;
        }
        size_t o = scan_chunk(&j->scan, buf + have, got);
        if (o != SIZE_MAX)
            open_at = o == got ? SIZE_MAX : have + o;
        size_t lim = open_at == SIZE_MAX ? n : open_at;
        if ((rc = process(j, buf, lim, n, 0, &stop)) != 0)
            break;
        if (open_at != SIZE_MAX && j->max_token && n - open_at > j->max_token) {
            j->chunk = NULL;
            j->chunk_len = 0;
            rc = token_too_long(j, j->line0, j->col0);
            break;
        }
        if (open_at != SIZE_MAX)
            open_at -= stop;
        base += stop;
        have = n - stop;
        pk_source_map_done(ctx->src, base);
    }
    return rc;
}

int pk_json_parse_source(pk_read_ctx *ctx, pk_json_fn fn, void *payload)
{
    pk_json j;
    int rc = open_parser(&j, ctx, fn, payload);
    if (rc)
        return rc;
    const uint8_t *map;
    size_t map_size;
    if ((rc = pk_source_map(ctx->src, &map, &map_size, ctx->err)) != 0) {
        if (rc == 1)
            rc = parse_mapped(&j, ctx, map, map_size);
        free(j.toks);
        yajl_free(j.h);
        return rc;
    }
    uint8_t *buf = NULL;
    size_t cap = 0, have = 0, open_at = SIZE_MAX; /* the open token's start in buf */
    for (;;) {
        if (pk_grow((void **)&buf, &cap, have + PK_JSON_CHUNK, 1) != 0) {
            rc = have ? pk_read_fail(ctx, PROFKIT_ENOMEM, -1,
                                     "out of memory holding a JSON token of %zu bytes", have)
                      : pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            break;
        }
        size_t got = 0, stop = 0;
        rc = pk_source_read(ctx->src, buf + have, PK_JSON_CHUNK, &got, ctx->err);
        if (rc)
            break;
        size_t n = have + got;
        if (got == 0) {
            rc = process(&j, buf, n, n, 1, &stop);
            if (!rc)
                rc = finish(&j);
            break;
        }
        size_t o = scan_chunk(&j.scan, buf + have, got);
        if (o != SIZE_MAX)
            open_at = o == got ? SIZE_MAX : have + o;
        size_t lim = open_at == SIZE_MAX ? n : open_at;
        if ((rc = process(&j, buf, lim, n, 0, &stop)) != 0)
            break;
        if (open_at != SIZE_MAX && j.max_token && n - open_at > j.max_token) {
            /* the token starts where the bytes handled end */
            j.chunk = NULL;
            j.chunk_len = 0;
            rc = token_too_long(&j, j.line0, j.col0);
            break;
        }
        if (stop > 0 && stop < n)
            memmove(buf, buf + stop, n - stop);
        if (open_at != SIZE_MAX)
            open_at -= stop;
        have = n - stop;
    }
    free(buf);
    free(j.toks);
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
    size_t stop;
    rc = process(&j, (const uint8_t *)data, n, n, 1, &stop);
    if (!rc)
        rc = finish(&j);
    free(j.toks);
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
