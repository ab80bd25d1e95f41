/*
 * dcpi.c: DCPI (Digital Continuous Profiling Infrastructure) profile files.
 *
 * A DCPI profile holds the samples of one event for one image (program or
 * shared library). docs/formats/dcpi.md has every rule and says how
 * profkit reads and writes it.
 *
 *   ASCII header   lines "WORD<space>+VALUE\n", ended by the first line that
 *                  matches `samples[ \t]*\n`. Required exactly once: image
 *                  (hex id), epoch (10, 12 or 14 digits), platform, event,
 *                  period, tsize, cpuspeed. Optional: cpuamask, cpuimplv,
 *                  cpucount, path. `version` (0.x or pdb-0.x; any other
 *                  major is refused), `tstart` (hex, 0x optional: the
 *                  address of offset 0) and every other line are kept
 *                  verbatim, in order.
 *   binary part    little-endian u32 words: chunks `offset, number,
 *                  count[number]` (count i belongs to the instruction at
 *                  tstart + offset + 4*i), then an 8-byte footer: addresses
 *                  with a non-zero count, and the sum of all counts. Chunks
 *                  come in increasing, non-overlapping order.
 *
 * Model: one frame per address with a non-zero count (function name empty,
 * so labels print the address; module = the image), one untimed row per
 * such address (the writer rebuilds canonical chunks from them), thread
 * = the `path` line or "image <id>", one value type named after the event
 * line's first word (unit count) with the alias `samples`.
 *
 * Metadata, in order: the parsed fields (`image`, `event`, ...), then
 * `dcpi.file` = "EVENT<TAB>THREAD" and one `dcpi.header` per header line,
 * verbatim. The writer finds the block of the value and thread it writes, so
 * a merged profile of several files still writes each one back unchanged.
 */
#include "formats/registry/format.h"
#include "util/cursor.h"

#include <inttypes.h>
#include <stdlib.h>

/* ---------------------------------------------------------------- header */

static int is_space(uint8_t c) { return c == ' ' || c == '\t'; }
static int is_digit(uint8_t c) { return c >= '0' && c <= '9'; }
static int is_hex(uint8_t c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static unsigned hex_val(uint8_t c)
{
    return is_digit(c) ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

/* True when [s, s+n) is `samples[ \t]*`. */
static int is_samples_line(const uint8_t *s, size_t n)
{
    if (n < 7 || memcmp(s, "samples", 7) != 0)
        return 0;
    for (size_t i = 7; i < n; i++)
        if (!is_space(s[i]))
            return 0;
    return 1;
}

enum { K_IMAGE, K_EPOCH, K_PLATFORM, K_EVENT, K_PERIOD, K_TSIZE, K_CPUSPEED, N_REQUIRED,
       K_CPUAMASK = N_REQUIRED, K_CPUIMPLV, K_CPUCOUNT, K_PATH, K_VERSION, K_TSTART, N_KEYS };

/* How a keyword's value must look. */
enum { V_HEX, V_DIGITS, V_REST, V_EPOCH, V_VERSION, V_TSTART };

static const struct {
    const char *word;
    int syntax;
} keys[N_KEYS] = {
    { "image", V_HEX },      { "epoch", V_EPOCH },      { "platform", V_REST },
    { "event", V_REST },     { "period", V_DIGITS },    { "tsize", V_DIGITS },
    { "cpuspeed", V_DIGITS }, { "cpuamask", V_HEX },    { "cpuimplv", V_DIGITS },
    { "cpucount", V_DIGITS }, { "path", V_REST },       { "version", V_VERSION },
    { "tstart", V_TSTART },
};

static int keyword(const uint8_t *s, size_t n)
{
    for (int k = 0; k < N_KEYS; k++) {
        size_t len = strlen(keys[k].word);
        if (n == len && memcmp(s, keys[k].word, len) == 0)
            return k;
    }
    return -1;
}

typedef struct dcpi_line {
    size_t start, len; /* the line without its newline */
    int key;           /* K_*, or -1 */
    size_t value;      /* offset of the value (known keys) */
} dcpi_line;

typedef struct dcpi_header {
    dcpi_line *lines;
    size_t n_lines, cap_lines;
    size_t end;             /* offset of the binary part */
    size_t samples_line;    /* offset of the `samples` line */
    size_t seen[N_KEYS];    /* line index + 1 of each key's first line, 0 = none */
    uint64_t tstart;
} dcpi_header;

/* Checks a known line's value; returns 0 or fills the error. */
static int check_value(pk_read_ctx *ctx, const uint8_t *d, const dcpi_line *l,
                       dcpi_header *h)
{
    const char *word = keys[l->key].word;
    const uint8_t *v = d + l->value;
    size_t n = l->start + l->len - l->value, i = 0;
    int64_t at = (int64_t)l->value;
    switch (keys[l->key].syntax) {
    case V_HEX:
        while (i < n && is_hex(v[i]))
            i++;
        if (i == 0 || i != n)
            return pk_read_fail(ctx, PROFKIT_ECORRUPT, at + (int64_t)i,
                                     "%s: expected hexadecimal digits up to the end of the line",
                                     word);
        return 0;
    case V_DIGITS:
        while (i < n && is_digit(v[i]))
            i++;
        if (i == 0 || i != n)
            return pk_read_fail(ctx, PROFKIT_ECORRUPT, at + (int64_t)i,
                                     "%s: expected decimal digits up to the end of the line", word);
        return 0;
    case V_REST:
        return 0; /* the separator loop already required a non-blank first byte */
    case V_EPOCH:
        while (i < n && is_digit(v[i]))
            i++;
        if (i != n || (n != 10 && n != 12 && n != 14))
            return pk_read_fail(ctx, PROFKIT_ECORRUPT, at,
                                     "epoch: expected 10, 12 or 14 digits (YYMMDDHHMM, "
                                     "YYYYMMDDHHMM or YYYYMMDDHHMMSS)");
        return 0;
    case V_VERSION: {
        if (n >= 4 && memcmp(v, "pdb-", 4) == 0)
            i = 4;
        size_t maj = i;
        uint64_t major = 0;
        while (i < n && is_digit(v[i])) {
            major = major > 1000000 ? major : major * 10 + (uint64_t)(v[i] - '0');
            i++;
        }
        size_t dot = i;
        if (i < n && v[i] == '.')
            i++;
        size_t minor = i;
        while (i < n && is_digit(v[i]))
            i++;
        if (dot == maj || dot >= n || v[dot] != '.' || i == minor || i != n)
            return pk_read_fail(ctx, PROFKIT_ECORRUPT, at,
                                     "version: expected MAJOR.MINOR or pdb-MAJOR.MINOR");
        if (major != 0)
            return pk_read_fail(ctx, PROFKIT_EUNSUPPORTED, at,
                                     "version: unsupported DCPI binary version %.*s (only the "
                                     "0.x layout is documented)",
                                     (int)(n > 40 ? 40 : n), (const char *)v);
        return 0;
    }
    default: { /* V_TSTART */
        if (h->seen[K_TSTART])
            return pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)l->start,
                                     "tstart: given twice (first at offset %zu); the address "
                                     "base would be ambiguous",
                                     h->lines[h->seen[K_TSTART] - 1].start);
        if (n >= 2 && v[0] == '0' && (v[1] | 0x20) == 'x')
            i = 2;
        size_t first = i;
        uint64_t t = 0;
        while (i < n && is_hex(v[i])) {
            if (t >> 60)
                return pk_read_fail(ctx, PROFKIT_ECORRUPT, at,
                                         "tstart: address does not fit in 64 bits");
            t = t << 4 | hex_val(v[i]);
            i++;
        }
        if (i == first || i != n)
            return pk_read_fail(ctx, PROFKIT_ECORRUPT, at + (int64_t)i,
                                     "tstart: expected a hexadecimal address (0x optional)");
        h->tstart = t;
        return 0;
    }
    }
}

static int parse_header(pk_read_ctx *ctx, const uint8_t *d, size_t n, dcpi_header *h)
{
    size_t pos = 0;
    for (;;) {
        const uint8_t *nl = pos < n ? memchr(d + pos, '\n', n - pos) : NULL;
        if (!nl)
            return pk_read_fail(ctx, PROFKIT_ETRUNCATED, (int64_t)n,
                                     "header: the input ends before the 'samples' line that ends "
                                     "the header");
        size_t len = (size_t)(nl - (d + pos));
        if (is_samples_line(d + pos, len)) {
            h->samples_line = pos;
            h->end = pos + len + 1;
            break;
        }
        if (PK_VEC_RESERVE(h->lines, h->n_lines, h->cap_lines, 1))
            return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
        dcpi_line *l = &h->lines[h->n_lines++];
        l->start = pos;
        l->len = len;
        l->key = -1;
        size_t w = 0;
        while (w < len && !is_space(d[pos + w]))
            w++;
        int k = keyword(d + pos, w);
        if (k >= 0) {
            size_t v = w;
            while (v < len && is_space(d[pos + v]))
                v++;
            if (v == w || v == len)
                return pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)(pos + v),
                                         "%s: expected blanks and a value after the keyword",
                                         keys[k].word);
            l->key = k;
            l->value = pos + v;
            if (k < K_VERSION && h->seen[k])
                return pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)pos,
                                         "header: line '%s' given twice (first at offset %zu)",
                                         keys[k].word, h->lines[h->seen[k] - 1].start);
            int rc = check_value(ctx, d, l, h);
            if (rc)
                return rc;
            if (!h->seen[k])
                h->seen[k] = h->n_lines;
        }
        pos += len + 1;
    }
    for (int k = 0; k < N_REQUIRED; k++)
        if (!h->seen[k])
            return pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)h->samples_line,
                                     "header: required line '%s' is missing before 'samples'",
                                     keys[k].word);
    return 0;
}

/* ---------------------------------------------------------------- sniff */

/*
 * Detection follows the header's grammar, not its first line: every line up
 * to the `samples` line is printable text (the reader keeps unknown lines,
 * whatever their shape), every keyword line is the keyword, blanks and a
 * value, and all seven required keywords are there: 90. A head that stops
 * inside a long header with at least the `image` line and one more keyword
 * and nothing against it scores 40, as does a `samples` line after a header
 * that lacks required keywords (the reader then names the missing one).
 */
static int dcpi_sniff(const uint8_t *d, size_t n, int complete)
{
    size_t pos = 0, known = 0;
    unsigned required = 0;
    while (pos < n) {
        const uint8_t *nl = memchr(d + pos, '\n', n - pos);
        if (!nl)
            break;
        size_t len = (size_t)(nl - (d + pos));
        if (is_samples_line(d + pos, len)) {
            if (required == (1u << N_REQUIRED) - 1)
                return 90;
            return known >= 2 ? 40 : 0;
        }
        for (size_t i = 0; i < len; i++)
            if (d[pos + i] < 0x20 && d[pos + i] != '\t')
                return 0;
        size_t w = 0;
        while (w < len && !is_space(d[pos + w]))
            w++;
        int k = keyword(d + pos, w);
        if (k >= 0) {
            size_t v = w;
            while (v < len && is_space(d[pos + v]))
                v++;
            if (v == w || v == len)
                return 0; /* a keyword without its value */
            known++;
            if (k < N_REQUIRED)
                required |= 1u << k;
        }
        pos += len + 1;
    }
    return !complete && known >= 2 && (required & 1u << K_IMAGE) ? 40 : 0;
}

/* ---------------------------------------------------------------- reader */

static int add_meta(profkit_profile *p, const char *key, const uint8_t *v, size_t n)
{
    return pk_meta_add_len(p, key, (const char *)v, n);
}

static int oom(pk_read_ctx *ctx) { return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory"); }

/* Adds the value type, thread, function and metadata the header describes.
 * Returns 0 or an error code (ctx->err filled). */
static int setup(profkit_profile *p, pk_read_ctx *ctx, const uint8_t *d, dcpi_header *h,
                 uint32_t *vt, uint32_t *th, uint32_t *fn, uint32_t *map)
{
    const dcpi_line *ev = &h->lines[h->seen[K_EVENT] - 1];
    const dcpi_line *im = &h->lines[h->seen[K_IMAGE] - 1];
    size_t ev_end = ev->value;
    while (ev_end < ev->start + ev->len && !is_space(d[ev_end]))
        ev_end++;
    char *event = strndup((const char *)d + ev->value, ev_end - ev->value);
    char *thread = NULL, *image_path = NULL;
    if (h->seen[K_PATH]) {
        const dcpi_line *pl = &h->lines[h->seen[K_PATH] - 1];
        thread = strndup((const char *)d + pl->value, pl->start + pl->len - pl->value);
        image_path = strdup(thread ? thread : "");
    } else {
        image_path = strdup("");
        size_t il = im->start + im->len - im->value;
        if ((thread = malloc(il + 7)) != NULL) {
            memcpy(thread, "image ", 6);
            memcpy(thread + 6, d + im->value, il);
            thread[il + 6] = 0;
        }
    }
    int rc = PROFKIT_ENOMEM;
    if (!event || !thread || !image_path)
        goto done;
    /* The image's mapping: its first byte at tstart, tsize bytes (widened
     * to the last address once the chunks are read). */
    const dcpi_line *tz = &h->lines[h->seen[K_TSIZE] - 1];
    uint64_t tsize = 0;
    for (size_t i = tz->value; i < tz->start + tz->len && d[i] >= '0' && d[i] <= '9'; i++)
        tsize = tsize > (UINT64_MAX - 9) / 10 ? UINT64_MAX : tsize * 10 + (uint64_t)(d[i] - '0');
    uint64_t end = tsize > UINT64_MAX - h->tstart ? UINT64_MAX : h->tstart + tsize;
    if ((*map = pk_mapping_add(p, h->tstart, end, 0, image_path, "")) == PROFKIT_NONE)
        goto done;
    /* strndup stops at a NUL: names keep what a C string can hold. */
    if ((*vt = pk_value_type_add(p, event, "count")) == PROFKIT_NONE ||
        (*th = pk_thread_get(p, thread, "", -1, -1)) == PROFKIT_NONE ||
        (*fn = pk_function_add_named(p, "", "", thread, 0)) == PROFKIT_NONE)
        goto done;
    p->default_value = *vt;
    for (int k = 0; k < N_KEYS; k++) {
        if (!h->seen[k] || k == K_TSTART)
            continue;
        const dcpi_line *l = &h->lines[h->seen[k] - 1];
        const char *key = k == K_VERSION ? "format_version" : keys[k].word;
        if (add_meta(p, key, d + l->value, l->start + l->len - l->value))
            goto done;
    }
    char buf[40];
    snprintf(buf, sizeof(buf), "0x%" PRIx64, h->tstart);
    if (pk_meta_add(p, "tstart", buf) || pk_meta_add(p, "value_alias.samples", event))
        goto done;
    size_t el = strlen(event), tl = strlen(thread);
    char *file = malloc(el + tl + 2);
    if (!file)
        goto done;
    memcpy(file, event, el);
    file[el] = '\t';
    memcpy(file + el + 1, thread, tl + 1);
    int mrc = pk_meta_add(p, "dcpi.file", file);
    free(file);
    if (mrc)
        goto done;
    for (size_t i = 0; i < h->n_lines; i++)
        if (add_meta(p, "dcpi.header", d + h->lines[i].start, h->lines[i].len))
            goto done;
    rc = 0;
done:
    free(event);
    free(thread);
    free(image_path);
    return rc ? oom(ctx) : 0;
}

/*
 * A chunk that runs into the last 8 bytes while those bytes are no footer
 * for the chunks before it: the file was cut inside that chunk (the last 8
 * bytes are counts, not a footer). Everything before the chunk is kept.
 */
static int cut_warning(pk_read_ctx *ctx, size_t at, uint64_t nonzero, uint64_t total)
{
    return pk_read_warn(ctx, PROFKIT_ETRUNCATED, (int64_t)at,
                        "chunk: the input ends inside this chunk, and its last 8 bytes are no "
                        "footer for the chunks before it (truncated file?); the %" PRIu64
                        " samples at %" PRIu64 " addresses before it are kept",
                        total, nonzero);
}

static int parse_chunks(profkit_profile *p, pk_read_ctx *ctx, const uint8_t *d, size_t n,
                        const dcpi_header *h, uint32_t vt, uint32_t th, uint32_t fn, uint32_t map)
{
    if (n - h->end < 8)
        return pk_read_warn(ctx, PROFKIT_ETRUNCATED, (int64_t)h->end,
                            "footer: expected 8 bytes after the header, the input has %zu "
                            "(truncated file?); no samples are kept",
                            n - h->end);
    const size_t foot = n - 8;
    pk_cursor c;
    pk_cursor_init(&c, d, foot);
    c.pos = h->end;
    uint64_t next = 0, nonzero = 0, total = 0;
    uint32_t prev = 0;
    size_t shown = 0;
    int any = 0;
    int64_t *vals = calloc(p->n_value_types, sizeof(int64_t));
    if (!vals)
        return oom(ctx);
    int rc = 0;
    profkit_frame fr;
    memset(&fr, 0, sizeof(fr));
    fr.function = fn;
    fr.mapping = map;
    /* Addresses strictly increase (checked per chunk), so in a profile with
     * no frames yet each one makes a new frame, stack and sample row:
     * append them without the lookups. */
    int fresh = p->n_frames == 0 && p->n_stacks == 1 && p->n_samples == 0;
    uint32_t f_addr = pk_load_le32(d + foot), f_total = pk_load_le32(d + foot + 4);
    while (!pk_cursor_eof(&c)) {
        size_t at = c.pos;
        uint32_t off, num;
        if (pk_cursor_le32(&c, &off) || pk_cursor_le32(&c, &num)) {
            if (f_addr != nonzero || f_total != total) {
                rc = cut_warning(ctx, at, nonzero, total);
                goto done;
            }
            rc = pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)at,
                                   "chunk: expected an 8-byte offset and number, only %zu bytes "
                                   "before the footer at offset %zu",
                                   foot - at, foot);
            goto done;
        }
        if (any && (off < next || off == prev)) {
            rc = pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)at,
                                   "chunk: offset 0x%" PRIx32 " %s the previous chunk, which ends "
                                   "at 0x%" PRIx64 "; chunks must increase without overlapping",
                                   off, off <= prev ? "does not come after" : "overlaps",
                                   next);
            goto done;
        }
        if ((uint64_t)num * 4 > pk_cursor_left(&c)) {
            if (f_addr != nonzero || f_total != total) {
                rc = cut_warning(ctx, at, nonzero, total);
                goto done;
            }
            rc = pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)at + 4,
                                   "chunk: %" PRIu32 " counts run past the footer at offset %zu "
                                   "(%zu bytes left)",
                                   num, foot, pk_cursor_left(&c));
            goto done;
        }
        any = 1;
        prev = off;
        next = (uint64_t)off + (uint64_t)4 * num;
        if (h->tstart > UINT64_MAX - next) {
            rc = pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)at,
                                   "chunk: tstart 0x%" PRIx64 " + offset 0x%" PRIx32 " passes the "
                                   "end of the 64-bit address space",
                                   h->tstart, off);
            goto done;
        }
        for (uint32_t i = 0; i < num; i++) {
            uint32_t count = pk_load_le32(d + c.pos);
            c.pos += 4;
            if (count == 0)
                continue; /* no row: the writer rebuilds chunks from non-zero counts */
            fr.address = h->tstart + off + (uint64_t)4 * i;
            uint32_t f = fresh ? pk_frame_append(p, &fr) : pk_frame_add(p, &fr), s;
            if (f == PROFKIT_NONE ||
                (s = fresh ? pk_stack_append(p, 0, f) : pk_stack_intern(p, 0, f)) == PROFKIT_NONE) {
                rc = oom(ctx);
                goto done;
            }
            vals[vt] = count;
            if (fresh ? pk_sample_append(p, s, th, vals) : pk_sample_add(p, s, th, vals)) {
                rc = oom(ctx);
                goto done;
            }
            nonzero++;
            total += count;
        }
        if (c.pos - shown >= ((size_t)16 << 20)) {
            shown = c.pos;
            pk_read_progress(ctx, c.pos, n);
        }
    }
    if (f_addr != nonzero) {
        rc = pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)foot,
                               "footer: %" PRIu32 " addresses with samples, but the chunks hold "
                               "%" PRIu64,
                               f_addr, nonzero);
        goto done;
    }
    if (f_total != total) {
        rc = pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)foot + 4,
                               "footer: %" PRIu32 " samples in total, but the chunks hold %" PRIu64,
                               f_total, total);
        goto done;
    }
done:
    free(vals);
    return rc;
}

static int dcpi_read(profkit_profile *p, pk_read_ctx *ctx)
{
    const uint8_t *d;
    size_t n;
    int rc = pk_source_all(ctx->src, &d, &n, ctx->err);
    if (rc)
        return rc;
    dcpi_header h;
    memset(&h, 0, sizeof(h));
    uint32_t vt = 0, th = 0, fn = 0;
    uint32_t map = PROFKIT_NONE;
    if ((rc = parse_header(ctx, d, n, &h)) == 0 &&
        (rc = setup(p, ctx, d, &h, &vt, &th, &fn, &map)) == 0)
        rc = parse_chunks(p, ctx, d, n, &h, vt, th, fn, map);
    free(h.lines);
    return rc;
}

/* ---------------------------------------------------------------- writer */

typedef struct addr_count {
    uint64_t address;
    int64_t count;
} addr_count;

static int cmp_addr(const void *a, const void *b)
{
    const addr_count *x = a, *y = b;
    return x->address < y->address ? -1 : x->address > y->address;
}

/* Index of the first `dcpi.header` line of the block for (event, thread), or n. */
static size_t find_block(const profkit_profile *p, const char *event, const char *thread)
{
    size_t el = strlen(event);
    for (size_t i = 0; i < p->n_metadata; i++) {
        if (strcmp(pk_str(p, p->metadata[i].key), "dcpi.file") != 0)
            continue;
        const char *v = pk_str(p, p->metadata[i].value);
        if (strncmp(v, event, el) == 0 && v[el] == '\t' && strcmp(v + el + 1, thread) == 0)
            return i + 1;
    }
    return p->n_metadata;
}

static int is_key(const profkit_profile *p, size_t i, const char *key)
{
    return i < p->n_metadata && strcmp(pk_str(p, p->metadata[i].key), key) == 0;
}

/* A DCPI file holds one event: without --value the default is written and
 * the others are named once, so none goes missing unsaid. */
static int dropped_events(const profkit_profile *p, uint32_t v, const profkit_write_options *o)
{
    pk_buf names = PK_BUF_INIT;
    int first = 1;
    for (size_t i = 0; i < p->n_value_types; i++) {
        if (i == v)
            continue;
        pk_buf_printf(&names, "%s%s", first ? "" : ", ", pk_str(p, p->value_types[i].type));
        first = 0;
    }
    if (pk_buf_error(&names)) {
        pk_buf_free(&names);
        return -1;
    }
    const char *list = pk_buf_cstr(&names);
    profkit_error w;
    pk_error_set(&w, PROFKIT_EUNSUPPORTED, NULL, -1,
                 "a DCPI file holds one event: wrote %s, left out %s (--value EVENT writes "
                 "another, one file each)",
                 pk_str(p, p->value_types[v].type), list);
    o->on_warning(&w, o->payload);
    pk_buf_free(&names);
    return 0;
}

static int dcpi_write(const profkit_profile *p, pk_sink *sink, const profkit_write_options *o,
                      profkit_error *err)
{
    uint32_t v, th;
    int rc0;
    if (pk_select(p, o->value, o->thread, &v, &th, err) != 0)
        return PROFKIT_EINVAL;
    if (th == PROFKIT_NONE) {
        if (p->n_threads > 1)
            return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                     "dcpi: a DCPI file holds one image; choose one of the %zu "
                                     "threads with profkit_write_options.thread",
                                     p->n_threads);
        th = 0;
    }
    const char *event = pk_str(p, p->value_types[v].type);
    const char *thread = th < p->n_threads ? pk_str(p, p->threads[th].name) : "";
    if (!o->value && p->n_value_types > 1 && o->on_warning && (rc0 = dropped_events(p, v, o)) != 0)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    size_t block = find_block(p, event, thread);
    uint64_t tstart = 0;
    for (size_t i = block; is_key(p, i, "dcpi.header"); i++) {
        const char *l = pk_str(p, p->metadata[i].value);
        if (strncmp(l, "tstart", 6) == 0 && (l[6] == ' ' || l[6] == '\t'))
            tstart = strtoull(l + 7, NULL, 16); /* checked when it was read */
    }

    /* Every frame with an address and a row: sum per address (a merge may
     * have given one address several rows). */
    addr_count *ac = NULL;
    size_t n = 0, cap = 0;
    const size_t nv = p->n_value_types;
    for (size_t i = 0; i < p->n_samples; i++) {
        if (th < p->n_threads && p->sample_thread[i] != th)
            continue;
        uint32_t s = p->sample_stack[i];
        if (s == 0)
            continue;
        const profkit_frame *fr = &p->frames[p->stacks[s].frame];
        int64_t val = p->sample_values[i * nv + v];
        /* Address 0 means "unknown" in the model, except for a frame with no
         * name: that is a DCPI count at offset 0 from tstart 0. */
        if ((!fr->address && p->functions[fr->function].name != 0) || val <= 0)
            continue;
        if (PK_VEC_RESERVE(ac, n, cap, 1)) {
            free(ac);
            return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        }
        ac[n].address = fr->address;
        ac[n].count = val;
        n++;
    }
    if (n)
        qsort(ac, n, sizeof(*ac), cmp_addr);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && ac[m - 1].address == ac[i].address)
            ac[m - 1].count += ac[i].count;
        else
            ac[m++] = ac[i];
    }
    n = m;
    int rc = 0;
    if (block == p->n_metadata && n)
        tstart = ac[0].address;
    for (size_t i = 0; i < n && !rc; i++) {
        if (ac[i].address < tstart || ac[i].address - tstart > UINT32_MAX)
            rc = pk_error_set(err, PROFKIT_EUNSUPPORTED, NULL, -1,
                                   "dcpi: address 0x%" PRIx64 " is not within 4 GiB above "
                                   "tstart 0x%" PRIx64,
                                   ac[i].address, tstart);
        else if (ac[i].count > UINT32_MAX)
            rc = pk_error_set(err, PROFKIT_EUNSUPPORTED, NULL, -1,
                                   "dcpi: count %" PRId64 " at 0x%" PRIx64 " does not fit 32 bits",
                                   ac[i].count, ac[i].address);
    }
    if (rc) {
        free(ac);
        return rc;
    }

    uint64_t header_len = 0;
    if (block < p->n_metadata && is_key(p, block, "dcpi.header")) {
        for (size_t i = block; is_key(p, i, "dcpi.header"); i++) {
            uint32_t id = p->metadata[i].value;
            pk_sink_write(sink, pk_str(p, id), pk_strtab_len(&p->strings, id));
            pk_sink_write(sink, "\n", 1);
            header_len += pk_strtab_len(&p->strings, id) + 1;
        }
    } else {
        /* Synthesized from what the profile knows; see docs/formats/dcpi.md. */
        int path = strncmp(thread, "image ", 6) != 0 && *thread && !strchr(thread, '\n');
        size_t need = strlen(event) + strlen(thread) + 256;
        char *hb = malloc(need);
        if (!hb) {
            free(ac);
            return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        }
        uint64_t span = n ? ac[n - 1].address - tstart + 4 : 0;
        int len = snprintf(hb, need,
                           "version 0.07\nimage 0\nepoch 0000000000\nplatform unknown\n"
                           "event %s\nperiod 0\ntsize %" PRIu64 "\ncpuspeed 0\ntstart 0x%" PRIx64
                           "\n%s%s%s",
                           *event ? event : "samples", span, tstart, path ? "path " : "",
                           path ? thread : "", path ? "\n" : "");
        header_len = len > 0 ? (uint64_t)len : 0;
        pk_sink_write(sink, hb, (size_t)header_len);
        free(hb);
    }
    /* "samples" + pad + "\n" ends at a multiple of 4. */
    size_t pad = (size_t)((4 - (header_len + 8) % 4) % 4);
    pk_sink_write(sink, "samples", 7);
    pk_sink_write(sink, "   ", pad);
    pk_sink_write(sink, "\n", 1);

    uint64_t nonzero = 0, total = 0;
    uint8_t w[8];
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && ac[j].address == ac[j - 1].address + 4 && j - i < UINT32_MAX)
            j++;
        pk_put_le32(w, (uint32_t)(ac[i].address - tstart));
        pk_put_le32(w + 4, (uint32_t)(j - i));
        pk_sink_write(sink, w, 8);
        for (size_t k = i; k < j; k++) {
            pk_put_le32(w, (uint32_t)ac[k].count);
            pk_sink_write(sink, w, 4);
            nonzero++;
            total += (uint64_t)ac[k].count;
        }
        i = j;
    }
    free(ac);
    if (total > UINT32_MAX)
        return pk_error_set(err, PROFKIT_EUNSUPPORTED, NULL, -1,
                                 "dcpi: %" PRIu64 " samples in total do not fit the 32-bit footer",
                                 total);
    pk_put_le32(w, (uint32_t)nonzero);
    pk_put_le32(w + 4, (uint32_t)total);
    pk_sink_write(sink, w, 8);
    return 0;
}

const pk_format pk_format_dcpi = {
    { "dcpi", "DCPI profile: ASCII header, per-address sample counts of one event", ".dcpi", 1, 1 },
    dcpi_sniff,
    dcpi_read,
    dcpi_write,
};
