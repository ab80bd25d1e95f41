/*
 * source.c: input bytes from a file, standard input or memory, with gzip
 * (zlib) and zstd (libzstd) decoded on the fly. The compression is detected
 * from magic bytes, never from the file name.
 */
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <isa-l/igzip_lib.h>
#include <zstd.h>

#define HEAD_MAX (64 * 1024)
#define RAW_CHUNK (256 * 1024)

struct pk_source {
    char name[256];
    /* raw bytes: either all in memory (mem, mem_size) or read from fd */
    int fd;
    const uint8_t *mem;
    size_t mem_size;
    void *map; /* mmap of a plain file (pk_source_all) */
    size_t map_size;
    size_t map_released; /* map's pages before this given back (pk_source_map_done) */
    uint64_t raw_total; /* 0 = unknown */
    uint64_t raw_done;
    uint8_t *raw_buf; /* fd read buffer */
    size_t raw_len, raw_pos;
    int raw_eof;

    pk_compression comp;
    int comp_known;
    struct inflate_state *gz; /* ISA-L's inflate: gzip members */
    ZSTD_DStream *zs;
    int in_frame; /* inside a gzip member or zstd frame */
    int decode_done;

    uint8_t *head; /* peeked decoded bytes not yet consumed */
    size_t head_len, head_pos, head_cap;
    int head_eof; /* the input ended while the head was filled */
    int streaming; /* read() was used */

    uint8_t *all; /* pk_source_all result when copied */
    size_t all_len;

    profkit_progress_fn progress;
    void *progress_payload;
    uint64_t progress_last;

    pk_cut_fn on_cut;
    void *on_cut_payload;

    uint64_t decoded;   /* bytes decompressed so far */
    uint64_t max_ratio; /* decoded per compressed byte allowed past 1 GiB */
};

static int io_error(pk_source *s, profkit_error *err, const char *what)
{
    return pk_error_set(err, PROFKIT_EIO, s->name, -1, "%s: %s", what, strerror(errno));
}

static int source_new(pk_source **out, const char *name, profkit_error *err)
{
    pk_source *s = calloc(1, sizeof(*s));
    if (!s)
        return pk_error_set(err, PROFKIT_ENOMEM, name, -1, "out of memory");
    snprintf(s->name, sizeof(s->name), "%s", name ? name : "<input>");
    s->fd = -1;
    *out = s;
    return 0;
}

int pk_source_open_file(pk_source **out, const char *path, profkit_error *err)
{
    pk_source *s = NULL;
    int is_stdin = strcmp(path, "-") == 0;
    int rc = source_new(&s, is_stdin ? "<stdin>" : path, err);
    if (rc)
        return rc;
    if (is_stdin) {
        s->fd = STDIN_FILENO;
    } else {
        s->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (s->fd < 0) {
            rc = io_error(s, err, "cannot open");
            pk_source_close(s);
            return rc;
        }
        struct stat st;
        if (fstat(s->fd, &st) != 0) {
            rc = io_error(s, err, "cannot stat");
            pk_source_close(s);
            return rc;
        }
        if (S_ISDIR(st.st_mode)) {
            rc = pk_error_set(err, PROFKIT_EIO, s->name, -1, "is a directory");
            pk_source_close(s);
            return rc;
        }
        if (S_ISREG(st.st_mode))
            s->raw_total = (uint64_t)st.st_size;
    }
    *out = s;
    return 0;
}

int pk_source_open_memory(pk_source **out, const void *data, size_t size,
                               const char *name, profkit_error *err)
{
    pk_source *s = NULL;
    int rc = source_new(&s, name, err);
    if (rc)
        return rc;
    s->mem = data;
    s->mem_size = size;
    s->raw_total = size;
    *out = s;
    return 0;
}

void pk_source_close(pk_source *s)
{
    if (!s)
        return;
    if (s->fd > STDIN_FILENO)
        close(s->fd);
    if (s->map)
        munmap(s->map, s->map_size);
    free(s->gz);
    ZSTD_freeDStream(s->zs);
    free(s->raw_buf);
    free(s->head);
    free(s->all);
    free(s);
}

const char *pk_source_name(const pk_source *s) { return s->name; }
pk_compression pk_source_compression(const pk_source *s) { return s->comp; }

void pk_source_set_progress(pk_source *s, profkit_progress_fn fn, void *payload)
{
    s->progress = fn;
    s->progress_payload = payload;
}

void pk_source_set_on_cut(pk_source *s, pk_cut_fn fn, void *payload)
{
    s->on_cut = fn;
    s->on_cut_payload = payload;
}

/* ---- raw layer ---- */

/* read(2) of up to cap raw bytes into buf: *got = 0 at the end of the file. */
static int raw_read(pk_source *s, uint8_t *buf, size_t cap, size_t *got, profkit_error *err)
{
    ssize_t r;
    do
        r = read(s->fd, buf, cap);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return io_error(s, err, "read failed");
    *got = (size_t)r;
    if (r == 0)
        s->raw_eof = 1;
    s->raw_done += (uint64_t)r;
    if (s->progress && s->raw_done - s->progress_last >= (4u << 20)) {
        s->progress_last = s->raw_done;
        s->progress(s->raw_done, s->raw_total, s->progress_payload);
    }
    return 0;
}

/* Makes raw bytes available in (raw_buf|mem)[raw_pos..raw_len). */
static int raw_fill(pk_source *s, profkit_error *err)
{
    if (s->mem) {
        s->raw_eof = 1;
        return 0;
    }
    if (s->raw_pos < s->raw_len || s->raw_eof)
        return 0;
    if (!s->raw_buf && !(s->raw_buf = malloc(RAW_CHUNK)))
        return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    s->raw_pos = 0;
    return raw_read(s, s->raw_buf, RAW_CHUNK, &s->raw_len, err);
}

static const uint8_t *raw_ptr(pk_source *s) { return s->mem ? s->mem : s->raw_buf; }
static size_t raw_avail(pk_source *s)
{
    return s->mem ? s->mem_size - s->raw_pos : s->raw_len - s->raw_pos;
}

static int detect(pk_source *s, profkit_error *err)
{
    if (s->comp_known)
        return 0;
    int rc = raw_fill(s, err);
    if (rc)
        return rc;
    const uint8_t *p = raw_ptr(s) ? raw_ptr(s) + s->raw_pos : NULL;
    size_t n = raw_avail(s);
    s->comp = PROFKIT_COMP_NONE;
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
        s->comp = PROFKIT_COMP_GZIP;
        if (!(s->gz = malloc(sizeof(*s->gz))))
            return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "cannot start gzip decoder");
        isal_inflate_init(s->gz);
    } else if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd) {
        s->comp = PROFKIT_COMP_ZSTD;
        s->zs = ZSTD_createDStream();
        if (!s->zs)
            return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "cannot start zstd decoder");
    }
    s->comp_known = 1;
    return 0;
}

/* What an ISA-L inflate error means. */
static const char *gzip_error(int code)
{
    switch (code) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "back-reference before the start of the data";
    case ISAL_INVALID_WRAPPER: return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD: return "compression method is not deflate";
    case ISAL_INCORRECT_CHECKSUM: return "CRC-32 or length check failed";
    case ISAL_NEED_DICT: return "the stream needs a preset dictionary";
    default: return "inflate failed";
    }
}

void pk_source_set_max_ratio(pk_source *s, uint64_t ratio) { s->max_ratio = ratio; }

/*
 * A small file that inflates without end (a gzip or zstd bomb, or many tiny
 * members) must not cost minutes: past 1 GiB of output, more than
 * max_ratio bytes per compressed byte read is refused.
 */
static int check_ratio(pk_source *s, size_t got, profkit_error *err)
{
    s->decoded += got;
    uint64_t ratio = s->max_ratio ? s->max_ratio : PROFKIT_SOURCE_MAX_RATIO;
    uint64_t in = s->mem ? s->raw_pos : s->raw_done;
    if (s->decoded <= (1ull << 30) || in == 0 || s->decoded / in <= ratio)
        return 0;
    return pk_error_set(err, PROFKIT_EUNSUPPORTED, s->name, (int64_t)in,
                             "%s data decompresses to more than %llu times its size past 1 GiB "
                             "(%llu bytes from %llu; profkit_read_options.max_inflate raises the "
                             "limit)",
                             s->comp == PROFKIT_COMP_GZIP ? "gzip" : "zstd",
                             (unsigned long long)ratio, (unsigned long long)s->decoded,
                             (unsigned long long)in);
}

static int decode_raw(pk_source *s, uint8_t *buf, size_t cap, size_t *got, profkit_error *err);

/* Decodes up to cap bytes into buf, bypassing the head buffer. */
static int decode(pk_source *s, uint8_t *buf, size_t cap, size_t *got, profkit_error *err)
{
    int rc = decode_raw(s, buf, cap, got, err);
    if (rc == 0 && *got && s->comp != PROFKIT_COMP_NONE)
        rc = check_ratio(s, *got, err);
    return rc;
}

static int decode_raw(pk_source *s, uint8_t *buf, size_t cap, size_t *got, profkit_error *err)
{
    *got = 0;
    int rc = detect(s, err);
    if (rc)
        return rc;
    while (*got < cap && !s->decode_done) {
        if (s->comp == PROFKIT_COMP_NONE && !s->mem && s->raw_pos >= s->raw_len &&
            !s->raw_eof && cap - *got >= RAW_CHUNK) {
            /* A plain file and a large request: read straight into the
             * caller's buffer instead of copying through raw_buf. */
            size_t n;
            if ((rc = raw_read(s, buf + *got, cap - *got, &n, err)) != 0)
                return rc;
            *got += n;
            if (n == 0)
                s->decode_done = 1;
            continue;
        }
        if ((rc = raw_fill(s, err)) != 0)
            return rc;
        size_t avail = raw_avail(s);
        const uint8_t *in = avail ? raw_ptr(s) + s->raw_pos : NULL;
        if (avail == 0 && s->raw_eof) {
            if (s->in_frame) {
                const char *comp = s->comp == PROFKIT_COMP_GZIP ? "gzip" : "zstd";
                uint64_t raw = s->mem ? s->raw_pos : s->raw_done;
                if (!s->on_cut)
                    return pk_error_set(err, PROFKIT_ETRUNCATED, s->name, (int64_t)raw,
                                             "%s stream ends before its end marker (truncated file)",
                                             comp);
                s->in_frame = 0;
                s->decode_done = 1;
                if ((rc = s->on_cut(s->on_cut_payload, comp, raw, s->decoded + *got)) != 0)
                    return rc;
                break;
            }
            s->decode_done = 1;
            break;
        }
        if (s->comp == PROFKIT_COMP_NONE) {
            size_t n = avail < cap - *got ? avail : cap - *got;
            memcpy(buf + *got, in, n);
            s->raw_pos += n;
            *got += n;
        } else if (s->comp == PROFKIT_COMP_GZIP) {
            struct inflate_state *z = s->gz;
            if (!s->in_frame) { /* a member starts: header, deflate data, trailer */
                if (in[0] != 0x1f || (avail >= 2 && in[1] != 0x8b))
                    return pk_error_set(err, PROFKIT_ECORRUPT, s->name, -1,
                                             "gzip data is corrupt: the data after the last "
                                             "member is not another gzip member");
                isal_inflate_reset(z);
                z->crc_flag = ISAL_GZIP;
                s->in_frame = 1;
            }
            z->next_in = (uint8_t *)(uintptr_t)in;
            z->avail_in = (uint32_t)(avail > UINT32_MAX ? UINT32_MAX : avail);
            z->next_out = buf + *got;
            z->avail_out = (uint32_t)(cap - *got > UINT32_MAX ? UINT32_MAX : cap - *got);
            size_t before_out = z->avail_out, before_in = z->avail_in;
            int zr = isal_inflate(z);
            s->raw_pos += before_in - z->avail_in;
            *got += before_out - z->avail_out;
            if (zr < 0)
                return pk_error_set(err, PROFKIT_ECORRUPT, s->name, -1,
                                         "gzip data is corrupt: %s", gzip_error(zr));
            if (z->block_state == ISAL_BLOCK_FINISH)
                s->in_frame = 0; /* another member may follow (concatenated .gz) */
        } else {
            ZSTD_inBuffer zin = { in, avail, 0 };
            ZSTD_outBuffer zout = { buf + *got, cap - *got, 0 };
            size_t zr = ZSTD_decompressStream(s->zs, &zout, &zin);
            if (ZSTD_isError(zr))
                return pk_error_set(err, PROFKIT_ECORRUPT, s->name, -1,
                                         "zstd data is corrupt: %s", ZSTD_getErrorName(zr));
            s->raw_pos += zin.pos;
            *got += zout.pos;
            s->in_frame = zr != 0;
        }
    }
    return 0;
}

/* Decodes into the head buffer until it holds `want` bytes or the input ends. */
static int fill_head(pk_source *s, size_t want, profkit_error *err)
{
    if (s->head_cap < want) {
        uint8_t *h = realloc(s->head, want);
        if (!h)
            return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
        s->head = h;
        s->head_cap = want;
    }
    while (s->head_len < want && !s->head_eof) {
        size_t got = 0;
        int rc = decode(s, s->head + s->head_len, want - s->head_len, &got, err);
        if (rc)
            return rc;
        if (got == 0)
            s->head_eof = 1;
        s->head_len += got;
    }
    return 0;
}

int pk_source_peek(pk_source *s, const uint8_t **data, size_t *n, profkit_error *err)
{
    if (!s->head) {
        int rc = fill_head(s, HEAD_MAX, err);
        if (rc)
            return rc;
    }
    *data = s->head + s->head_pos;
    *n = s->head_len - s->head_pos;
    return 0;
}

int pk_source_peek_more(pk_source *s, size_t want, const uint8_t **data, size_t *n,
                        profkit_error *err)
{
    if (s->streaming || s->head_pos > 0)
        return pk_error_set(err, PROFKIT_EINVAL, s->name, -1,
                            "internal error: peeking further after reading began");
    if (want < HEAD_MAX)
        want = HEAD_MAX;
    int rc = fill_head(s, want, err);
    if (rc)
        return rc;
    *data = s->head;
    *n = s->head_len;
    return 0;
}

int pk_source_read(pk_source *s, uint8_t *buf, size_t cap, size_t *got,
                        profkit_error *err)
{
    s->streaming = 1;
    *got = 0;
    if (s->head && s->head_pos < s->head_len) {
        size_t n = s->head_len - s->head_pos;
        if (n > cap)
            n = cap;
        memcpy(buf, s->head + s->head_pos, n);
        s->head_pos += n;
        *got = n;
        return 0;
    }
    return decode(s, buf, cap, got, err);
}

int pk_source_map(pk_source *s, const uint8_t **data, size_t *n, profkit_error *err)
{
    int rc = detect(s, err);
    if (rc)
        return rc;
    if (s->map) {
        *data = s->map;
        *n = s->map_size;
        return 1;
    }
    if (s->streaming || s->all || s->comp != PROFKIT_COMP_NONE || s->fd <= STDIN_FILENO || s->raw_total == 0)
        return 0;
    void *m = mmap(NULL, (size_t)s->raw_total, PROT_READ, MAP_PRIVATE, s->fd, 0);
    if (m == MAP_FAILED)
        return 0;
    s->map = m;
    s->map_size = (size_t)s->raw_total;
    *data = m;
    *n = s->map_size;
    return 1;
}

void pk_source_map_done(pk_source *s, size_t upto)
{
    if (!s->map || upto > s->map_size)
        return;
    /* progress as a read reports it (raw_read) */
    s->raw_done = upto;
    if (s->progress && s->raw_done - s->progress_last >= (4u << 20)) {
        s->progress_last = s->raw_done;
        s->progress(s->raw_done, s->raw_total, s->progress_payload);
    }
#if defined(MADV_DONTNEED)
    size_t page = 4096, from = s->map_released, to = upto & ~(page - 1);
    if (to > from) {
        madvise((uint8_t *)s->map + from, to - from, MADV_DONTNEED); /* advice: failure is fine */
        s->map_released = to;
    }
#endif
}

int pk_source_all(pk_source *s, const uint8_t **data, size_t *n, profkit_error *err)
{
    int rc = detect(s, err);
    if (rc)
        return rc;
    if (s->all || s->map) {
        *data = s->all ? s->all : s->map;
        *n = s->all ? s->all_len : s->map_size;
        return 0;
    }
    if (s->comp == PROFKIT_COMP_NONE && s->mem) {
        *data = s->mem;
        *n = s->mem_size;
        return 0;
    }
    if (s->comp == PROFKIT_COMP_NONE && s->fd > STDIN_FILENO && s->raw_total > 0) {
        void *m = mmap(NULL, (size_t)s->raw_total, PROT_READ, MAP_PRIVATE, s->fd, 0);
        if (m != MAP_FAILED) {
            s->map = m;
            s->map_size = (size_t)s->raw_total;
            *data = m;
            *n = s->map_size;
            return 0;
        }
    }
    /* Decode everything into one buffer: head first, then the rest. */
    size_t cap = s->head_len > 0 ? s->head_len * 2 : RAW_CHUNK;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
    size_t len = 0;
    if (s->head_len > s->head_pos) {
        memcpy(buf, s->head + s->head_pos, s->head_len - s->head_pos);
        len = s->head_len - s->head_pos;
        s->head_pos = s->head_len;
    }
    for (;;) {
        if (cap - len < RAW_CHUNK && pk_grow((void **)&buf, &cap, len + RAW_CHUNK, 1) != 0) {
            free(buf);
            return pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
        }
        size_t got;
        rc = decode(s, buf + len, cap - len, &got, err);
        if (rc) {
            free(buf);
            return rc;
        }
        if (got == 0)
            break;
        len += got;
    }
    s->all = buf;
    s->all_len = len;
    *data = buf;
    *n = len;
    return 0;
}
