/*
 * sink.c: buffered output to standard output, to a file that appears only
 * when complete (temporary file + rename), or to memory, optionally gzip-
 * or zstd-compressed. The buffer is a draining pk_buf over the sink's
 * staging area (util/buf.h), or, for plain bytes to memory, a growable one.
 */
#include "io/io.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define SINK_BUF (128 * 1024)

struct pk_sink {
    pk_buf b;     /* first: what the writer writes into (pk_sink_buf) */
    int fd;
    char *path;   /* target; NULL for stdout and memory */
    char *tmp;    /* temporary file */
    int compress; /* PROFKIT_SINK_PLAIN, _GZIP or _ZSTD */
    z_stream z;
    int z_init;
    ZSTD_CCtx *zc;
    pk_buf *dst;  /* a memory sink's destination, which gets the bytes on commit */
    pk_buf mem;   /* a compressing memory sink's output until then */
    int err;      /* errno of the first failure, or -1 for a compressor failure */
    char stage[]; /* SINK_BUF + 1 bytes, b's storage, unless b grows (plain memory) */
};

_Static_assert(offsetof(struct pk_sink, b) == 0, "pk_sink_buf needs the buffer first");

static void write_fd(pk_sink *s, const uint8_t *p, size_t n)
{
    while (n > 0 && !s->err) {
        ssize_t w = write(s->fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            s->err = errno;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Final bytes (compressed when asked) to the file or the memory. */
static void emit(pk_sink *s, const void *p, size_t n)
{
    if (!s->dst) {
        write_fd(s, p, n);
    } else {
        pk_buf_put(&s->mem, p, n);
        if (pk_buf_error(&s->mem))
            s->err = ENOMEM;
    }
}

/* Pushes n bytes through zlib. */
static void out_gzip(pk_sink *s, const void *data, size_t n, int finish)
{
    uint8_t out[SINK_BUF];
    s->z.next_in = (Bytef *)(uintptr_t)data;
    s->z.avail_in = (uInt)n;
    int zr;
    do {
        s->z.next_out = out;
        s->z.avail_out = sizeof(out);
        zr = deflate(&s->z, finish ? Z_FINISH : Z_NO_FLUSH);
        if (zr == Z_STREAM_ERROR) {
            s->err = -1;
            return;
        }
        emit(s, out, sizeof(out) - s->z.avail_out);
    } while (!s->err && (s->z.avail_in > 0 || (finish && zr != Z_STREAM_END)));
}

/* Pushes n bytes through zstd. */
static void out_zstd(pk_sink *s, const void *data, size_t n, int finish)
{
    uint8_t out[SINK_BUF];
    ZSTD_inBuffer in = {data, n, 0};
    size_t left;
    do {
        ZSTD_outBuffer o = {out, sizeof(out), 0};
        left = ZSTD_compressStream2(s->zc, &o, &in, finish ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(left)) {
            s->err = -1;
            return;
        }
        emit(s, out, o.pos);
    } while (!s->err && (in.pos < in.size || (finish && left != 0)));
}

/* Pushes staged bytes through the compressor (if any) to their end; with
 * finish, ends the compressed stream. */
static void out(pk_sink *s, const void *data, size_t n, int finish)
{
    if (s->err)
        return;
    if (s->compress == PROFKIT_SINK_GZIP)
        out_gzip(s, data, n, finish);
    else if (s->compress == PROFKIT_SINK_ZSTD)
        out_zstd(s, data, n, finish);
    else
        emit(s, data, n);
}

/* The buffer's drain: every full load of SINK_BUF bytes. */
static int drain(void *ctx, const void *data, size_t n)
{
    pk_sink *s = ctx;
    out(s, data, n, 0);
    return s->err ? (s->dst && s->err == ENOMEM ? PROFKIT_ENOMEM : PROFKIT_EIO) : 0;
}

/* A sink with its compressor; staged through SINK_BUF bytes unless `grow`. */
static int sink_new(pk_sink **out, int compress, int grow, const char *path, profkit_error *err)
{
    pk_sink *s = calloc(1, sizeof(*s) + (grow ? 0 : SINK_BUF + 1));
    if (!s)
        return pk_error_set(err, PROFKIT_ENOMEM, path, -1, "out of memory");
    if (!grow)
        pk_buf_init_drain(&s->b, s->stage, SINK_BUF + 1, drain, s);
    s->fd = -1;
    s->compress = compress;
    if (compress == PROFKIT_SINK_ZSTD) {
        s->zc = ZSTD_createCCtx();
        if (!s->zc || ZSTD_isError(ZSTD_CCtx_setParameter(s->zc, ZSTD_c_compressionLevel, 3))) {
            ZSTD_freeCCtx(s->zc);
            free(s);
            return pk_error_set(err, PROFKIT_ENOMEM, path, -1, "cannot start zstd encoder");
        }
    }
    if (compress == PROFKIT_SINK_GZIP) {
        if (deflateInit2(&s->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            free(s);
            return pk_error_set(err, PROFKIT_ENOMEM, path, -1, "cannot start gzip encoder");
        }
        s->z_init = 1;
    }
    *out = s;
    return 0;
}

int pk_sink_compression(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    if (n > 3 && strcmp(path + n - 3, ".gz") == 0)
        return PROFKIT_SINK_GZIP;
    if (n > 4 && strcmp(path + n - 4, ".zst") == 0)
        return PROFKIT_SINK_ZSTD;
    return PROFKIT_SINK_PLAIN;
}

int pk_sink_open(pk_sink **out, const char *path, int compress, profkit_error *err)
{
    pk_sink *s = NULL;
    int rc = sink_new(&s, compress, 0, path, err);
    if (rc)
        return rc;
    if (!path || strcmp(path, "-") == 0) {
        s->fd = STDOUT_FILENO;
        *out = s;
        return 0;
    }
    size_t n = strlen(path);
    s->path = strdup(path);
    s->tmp = malloc(n + 16);
    if (!s->path || !s->tmp) {
        free(s->tmp); /* nothing is created yet: nothing to remove */
        s->tmp = NULL;
        pk_sink_close(s, 0, NULL);
        return pk_error_set(err, PROFKIT_ENOMEM, path, -1, "out of memory");
    }
    memcpy(s->tmp, path, n);
    memcpy(s->tmp + n, ".tmp.XXXXXX", 12);
    s->fd = mkstemp(s->tmp);
    if (s->fd < 0) {
        int e = errno;
        free(s->tmp);
        s->tmp = NULL;
        pk_sink_close(s, 0, NULL);
        return pk_error_set(err, PROFKIT_EIO, path, -1, "cannot create output file: %s",
                                 strerror(e));
    }
    /* mkstemp makes the file 0600; give it the mode a plain create would. */
    mode_t um = umask(0);
    umask(um);
    (void)fchmod(s->fd, 0666 & ~um);
    *out = s;
    return 0;
}

int pk_sink_open_memory(pk_sink **out, pk_buf *dst, int compress, profkit_error *err)
{
    /* Plain bytes grow in the sink's own buffer, compressed ones are staged
     * like a file's and collect in s->mem; both under dst's bound, and both
     * go to dst only on commit. */
    pk_sink *s = NULL;
    int plain = compress == PROFKIT_SINK_PLAIN;
    int rc = sink_new(&s, compress, plain, NULL, err);
    if (rc)
        return rc;
    s->dst = dst;
    pk_buf_init(&s->mem, dst->max);
    if (plain)
        pk_buf_init(&s->b, dst->max);
    *out = s;
    return 0;
}

void pk_sink_printf(pk_sink *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pk_buf_vprintf(&s->b, fmt, ap);
    va_end(ap);
}

int pk_sink_failed(pk_sink *s) { return s->err != 0 || pk_buf_error(&s->b) != 0; }

/* Moves src's bytes to the end of dst. */
static void move_to(pk_buf *dst, pk_buf *src)
{
    if (!dst->buf && !pk_buf_error(dst) && !pk_buf_error(src)) {
        dst->buf = src->buf; /* the usual case: hand the bytes over */
        dst->len = src->len;
        dst->cap = src->cap;
        src->buf = NULL;
        src->len = src->cap = 0;
    } else if (!pk_buf_error(src)) {
        pk_buf_put(dst, src->buf, src->len);
    }
}

/* Ends a memory sink: its bytes go to dst on commit. */
static int close_memory(pk_sink *s, int commit, profkit_error *err)
{
    int rc = 0;
    pk_buf *src = s->b.drain ? &s->mem : &s->b;
    if (commit && s->b.drain && !pk_buf_error(&s->b)) {
        out(s, s->b.buf, s->b.len, 1);
        if (s->err == -1)
            rc = pk_error_set(err, PROFKIT_EIO, "<memory>", -1, "write failed: %s",
                              "compression error");
    }
    if (commit && !rc) {
        rc = pk_buf_check(src, err, NULL, "writing the output");
        if (!rc) {
            move_to(s->dst, src);
            rc = pk_buf_check(s->dst, err, NULL, "writing the output");
        }
    }
    pk_buf_free(&s->mem);
    if (!s->b.drain)
        pk_buf_free(&s->b);
    return rc;
}

int pk_sink_close(pk_sink *s, int commit, profkit_error *err)
{
    int rc = 0;
    if (s->dst) {
        rc = close_memory(s, commit, err);
    } else {
        if (pk_buf_error(&s->b) && !s->err)
            s->err = ENOMEM; /* a printf that could not allocate */
        if (commit)
            out(s, s->b.buf, s->b.len, 1);
        if (commit && s->err) {
            rc = pk_error_set(err, PROFKIT_EIO, s->path ? s->path : "<stdout>", -1,
                                   "write failed: %s",
                                   s->err > 0 ? strerror(s->err) : "compression error");
            commit = 0;
        }
    }
    if (s->z_init)
        deflateEnd(&s->z);
    ZSTD_freeCCtx(s->zc);
    if (s->tmp) {
        if (close(s->fd) != 0 && commit) {
            rc = pk_error_set(err, PROFKIT_EIO, s->path, -1, "write failed: %s", strerror(errno));
            commit = 0;
        }
        if (commit && rename(s->tmp, s->path) != 0) {
            rc = pk_error_set(err, PROFKIT_EIO, s->path, -1, "cannot rename %s onto it: %s",
                                   s->tmp, strerror(errno));
            commit = 0;
        }
        if (!commit)
            unlink(s->tmp);
    }
    free(s->tmp);
    free(s->path);
    free(s);
    return rc;
}
