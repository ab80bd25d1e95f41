/*
 * sink.c: buffered output to standard output or to a file that appears only
 * when complete (temporary file + rename), optionally gzip- or
 * zstd-compressed.
 */
#include "io/io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define SINK_BUF (128 * 1024)

struct pk_sink {
    int fd;
    char *path; /* target; NULL for stdout */
    char *tmp;  /* temporary file */
    int compress; /* PROFKIT_SINK_PLAIN, _GZIP or _ZSTD */
    z_stream z;
    int z_init;
    ZSTD_CCtx *zc;
    uint8_t buf[SINK_BUF];
    size_t len;
    int err; /* errno of the first failure, or -1 for a compressor failure */
};

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

/* Pushes buffered bytes through zlib to the fd. */
static void flush_gzip(pk_sink *s, int finish)
{
    uint8_t out[SINK_BUF];
    s->z.next_in = s->buf;
    s->z.avail_in = (uInt)s->len;
    int zr;
    do {
        s->z.next_out = out;
        s->z.avail_out = sizeof(out);
        zr = deflate(&s->z, finish ? Z_FINISH : Z_NO_FLUSH);
        if (zr == Z_STREAM_ERROR) {
            s->err = -1;
            return;
        }
        write_fd(s, out, sizeof(out) - s->z.avail_out);
    } while (!s->err && (s->z.avail_in > 0 || (finish && zr != Z_STREAM_END)));
}

/* Pushes buffered bytes through zstd to the fd. */
static void flush_zstd(pk_sink *s, int finish)
{
    uint8_t out[SINK_BUF];
    ZSTD_inBuffer in = {s->buf, s->len, 0};
    size_t left;
    do {
        ZSTD_outBuffer o = {out, sizeof(out), 0};
        left = ZSTD_compressStream2(s->zc, &o, &in, finish ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(left)) {
            s->err = -1;
            return;
        }
        write_fd(s, out, o.pos);
    } while (!s->err && (in.pos < in.size || (finish && left != 0)));
}

/* Pushes buffered bytes through the compressor (if any) to the fd. */
static void flush(pk_sink *s, int finish)
{
    if (s->err)
        return;
    if (s->compress == PROFKIT_SINK_GZIP)
        flush_gzip(s, finish);
    else if (s->compress == PROFKIT_SINK_ZSTD)
        flush_zstd(s, finish);
    else
        write_fd(s, s->buf, s->len);
    s->len = 0;
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
    pk_sink *s = calloc(1, sizeof(*s));
    if (!s)
        return pk_error_set(err, PROFKIT_ENOMEM, path, -1, "out of memory");
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
    if (!path || strcmp(path, "-") == 0) {
        s->fd = STDOUT_FILENO;
        *out = s;
        return 0;
    }
    size_t n = strlen(path);
    s->path = strdup(path);
    s->tmp = malloc(n + 16);
    if (!s->path || !s->tmp) {
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

void pk_sink_write(pk_sink *s, const void *data, size_t n)
{
    const uint8_t *p = data;
    while (n > 0 && !s->err) {
        size_t room = SINK_BUF - s->len;
        size_t k = n < room ? n : room;
        memcpy(s->buf + s->len, p, k);
        s->len += k;
        p += k;
        n -= k;
        if (s->len == SINK_BUF)
            flush(s, 0);
    }
}

void pk_sink_puts(pk_sink *s, const char *str) { pk_sink_write(s, str, strlen(str)); }

void pk_sink_printf(pk_sink *s, const char *fmt, ...)
{
    char small[512];
    size_t n;
    va_list ap;
    va_start(ap, fmt);
    char *t = pk_vformat(small, sizeof(small), &n, fmt, ap);
    va_end(ap);
    if (!t) {
        s->err = ENOMEM;
        return;
    }
    pk_sink_write(s, t, n);
    if (t != small)
        free(t);
}

int pk_sink_failed(const pk_sink *s) { return s->err != 0; }

int pk_sink_close(pk_sink *s, int commit, profkit_error *err)
{
    int rc = 0;
    if (commit)
        flush(s, 1);
    if (s->z_init)
        deflateEnd(&s->z);
    ZSTD_freeCCtx(s->zc);
    if (commit && s->err) {
        rc = pk_error_set(err, PROFKIT_EIO, s->path ? s->path : "<stdout>", -1,
                               "write failed: %s",
                               s->err > 0 ? strerror(s->err) : "compression error");
        commit = 0;
    }
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
