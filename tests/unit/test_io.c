/* test_io.c: sources (plain, gzip, zstd, truncated, streamed) and sinks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "io/io.h"

enum { N = 300000 };
static uint8_t plain[N];

static void fill_plain(void)
{
    uint32_t x = 12345;
    for (size_t i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        plain[i] = (uint8_t)("abcdefgh;\n 0123"[(x >> 16) & 15]);
    }
}

static size_t gzip_into(uint8_t *out, size_t cap, const uint8_t *in, size_t n)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t len = cap - z.avail_out;
    deflateEnd(&z);
    return len;
}

/* Reads everything through read() in small chunks. */
static size_t stream_all(pk_source *s, uint8_t *out, size_t cap, int *rc)
{
    size_t len = 0, got;
    profkit_error err;
    do {
        *rc = pk_source_read(s, out + len, cap - len < 1000 ? cap - len : 1000, &got, &err);
        if (*rc)
            return len;
        len += got;
    } while (got > 0 && len < cap);
    return len;
}

static void plain_memory(void **state)
{
    (void)state;
    pk_source *s;
    profkit_error err;
    assert_int_equal(pk_source_open_memory(&s, plain, N, "m", &err), 0);
    const uint8_t *d;
    size_t n;
    assert_int_equal(pk_source_peek(s, &d, &n, &err), 0);
    assert_int_equal(n, 64 * 1024);
    assert_memory_equal(d, plain, n);
    assert_int_equal(pk_source_all(s, &d, &n, &err), 0);
    assert_int_equal(n, N);
    assert_memory_equal(d, plain, N);
    assert_int_equal(pk_source_compression(s), PROFKIT_COMP_NONE);
    pk_source_close(s);
}

static void gzip_and_concatenated(void **state)
{
    (void)state;
    size_t cap = N * 2 + 1024;
    uint8_t *gz = malloc(cap), *out = malloc(N * 2);
    size_t g1 = gzip_into(gz, cap, plain, N);
    size_t g2 = gzip_into(gz + g1, cap - g1, plain, 1000); /* a second member */
    pk_source *s;
    profkit_error err;
    const uint8_t *d;
    size_t n;
    assert_int_equal(pk_source_open_memory(&s, gz, g1 + g2, "m.gz", &err), 0);
    assert_int_equal(pk_source_peek(s, &d, &n, &err), 0);
    assert_int_equal(pk_source_compression(s), PROFKIT_COMP_GZIP);
    assert_memory_equal(d, plain, n);
    assert_int_equal(pk_source_all(s, &d, &n, &err), 0);
    assert_int_equal(n, N + 1000);
    assert_memory_equal(d, plain, N);
    assert_memory_equal(d + N, plain, 1000);
    pk_source_close(s);

    /* Streaming after a peek gives the same bytes. */
    assert_int_equal(pk_source_open_memory(&s, gz, g1, "m.gz", &err), 0);
    assert_int_equal(pk_source_peek(s, &d, &n, &err), 0);
    int rc;
    size_t len = stream_all(s, out, N * 2, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(len, N);
    assert_memory_equal(out, plain, N);
    pk_source_close(s);

    /* Truncated gzip: an error, never a silent short read. */
    assert_int_equal(pk_source_open_memory(&s, gz, g1 / 2, "cut.gz", &err), 0);
    assert_int_equal(pk_source_all(s, &d, &n, &err), PROFKIT_ETRUNCATED);
    assert_non_null(strstr(err.message, "truncated"));
    pk_source_close(s);

    /* A wrong CRC-32 in the trailer: the data decoded, the check failed. */
    gz[g1 - 8] ^= 0x01;
    assert_int_equal(pk_source_open_memory(&s, gz, g1, "crc.gz", &err), 0);
    assert_int_equal(pk_source_all(s, &d, &n, &err), PROFKIT_ECORRUPT);
    assert_string_equal(err.message, "gzip data is corrupt: CRC-32 or length check failed");
    pk_source_close(s);
    gz[g1 - 8] ^= 0x01;
    /* Something after a member that is not another member. */
    memcpy(gz + g1, "garbage!", 8);
    assert_int_equal(pk_source_open_memory(&s, gz, g1 + 8, "trail.gz", &err), 0);
    assert_int_equal(pk_source_all(s, &d, &n, &err), PROFKIT_ECORRUPT);
    assert_string_equal(err.message, "gzip data is corrupt: the data after the last member is not "
                                     "another gzip member");
    pk_source_close(s);

    /* Corrupt gzip. */
    gz[g1 / 2] ^= 0xff;
    gz[g1 / 2 + 1] ^= 0x5a;
    assert_int_equal(pk_source_open_memory(&s, gz, g1, "bad.gz", &err), 0);
    rc = pk_source_all(s, &d, &n, &err);
    assert_true(rc == PROFKIT_ECORRUPT || rc == PROFKIT_ETRUNCATED);
    pk_source_close(s);
    free(gz);
    free(out);
}

static void zstd_stream(void **state)
{
    (void)state;
    size_t cap = ZSTD_compressBound(N);
    uint8_t *z = malloc(cap), *out = malloc(N);
    size_t zn = ZSTD_compress(z, cap, plain, N, 3);
    assert_false(ZSTD_isError(zn));
    pk_source *s;
    profkit_error err;
    const uint8_t *d;
    size_t n;
    assert_int_equal(pk_source_open_memory(&s, z, zn, "m.zst", &err), 0);
    int rc;
    size_t len = stream_all(s, out, N, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(len, N);
    assert_memory_equal(out, plain, N);
    assert_int_equal(pk_source_compression(s), PROFKIT_COMP_ZSTD);
    pk_source_close(s);
    assert_int_equal(pk_source_open_memory(&s, z, zn - 3, "cut.zst", &err), 0);
    assert_int_equal(pk_source_all(s, &d, &n, &err), PROFKIT_ETRUNCATED);
    pk_source_close(s);
    free(z);
    free(out);
}

/* A longer peek (detection that 64 KiB cannot settle) keeps every byte for
 * the reader, plain or gzip, whole or streamed; it is refused once reading began. */
static void peek_more(void **state)
{
    (void)state;
    size_t cap = N * 2 + 1024;
    uint8_t *gz = malloc(cap), *out = malloc(N * 2);
    size_t g = gzip_into(gz, cap, plain, N);
    for (int zipped = 0; zipped < 2; zipped++) {
        for (int streamed = 0; streamed < 2; streamed++) {
            pk_source *s;
            profkit_error err;
            const uint8_t *d;
            size_t n;
            assert_int_equal(pk_source_open_memory(&s, zipped ? gz : plain, zipped ? g : N, "m", &err), 0);
            assert_int_equal(pk_source_peek(s, &d, &n, &err), 0);
            assert_int_equal(n, 64 * 1024);
            assert_int_equal(pk_source_peek_more(s, 200 * 1024, &d, &n, &err), 0);
            assert_int_equal(n, 200 * 1024);
            assert_memory_equal(d, plain, n);
            assert_int_equal(pk_source_peek_more(s, 4 * N, &d, &n, &err), 0);
            assert_int_equal(n, N); /* the whole input, no more */
            assert_memory_equal(d, plain, n);
            if (streamed) {
                int rc;
                size_t len = stream_all(s, out, N * 2, &rc);
                assert_int_equal(rc, 0);
                assert_int_equal(len, N);
                assert_memory_equal(out, plain, N);
                assert_int_equal(pk_source_peek_more(s, 4 * N, &d, &n, &err), PROFKIT_EINVAL);
            } else {
                assert_int_equal(pk_source_all(s, &d, &n, &err), 0);
                assert_int_equal(n, N);
                assert_memory_equal(d, plain, N);
            }
            pk_source_close(s);
        }
    }
    free(gz);
    free(out);
}

static void file_source_and_errors(void **state)
{
    (void)state;
    char path[] = "/tmp/profkit_test_io_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, plain, N), N);
    close(fd);
    pk_source *s;
    profkit_error err;
    const uint8_t *d;
    size_t n;
    assert_int_equal(pk_source_open_file(&s, path, &err), 0);
    assert_int_equal(pk_source_peek(s, &d, &n, &err), 0);
    assert_int_equal(pk_source_all(s, &d, &n, &err), 0);
    assert_int_equal(n, N);
    assert_memory_equal(d, plain, N);
    pk_source_close(s);
    /* Streamed after a peek, in small and large requests: large ones are
     * read straight into the caller's buffer once the buffered bytes are
     * used up; the bytes and their order must not change. */
    static uint8_t back[2 * N];
    assert_int_equal(pk_source_open_file(&s, path, &err), 0);
    assert_int_equal(pk_source_peek(s, &d, &n, &err), 0);
    size_t len = 0, got, reads = 0;
    do {
        size_t want = reads++ % 2 ? sizeof(back) - len : 1000;
        assert_int_equal(pk_source_read(s, back + len, want, &got, &err), 0);
        len += got;
    } while (got > 0 && len < sizeof(back));
    assert_int_equal(len, N);
    assert_memory_equal(back, plain, N);
    pk_source_close(s);
    unlink(path);
    assert_int_equal(pk_source_open_file(&s, "/nonexistent/x.prof", &err), PROFKIT_EIO);
    assert_string_equal(err.file, "/nonexistent/x.prof");
    assert_non_null(strstr(err.message, "cannot open"));
    assert_int_equal(pk_source_open_file(&s, "/tmp", &err), PROFKIT_EIO);
    assert_non_null(strstr(err.message, "directory"));
}

static void sink_is_atomic(void **state)
{
    (void)state;
    char dir[] = "/tmp/profkit_sink_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/out.txt", dir);
    pk_sink *k;
    profkit_error err;
    /* An aborted write leaves nothing behind. */
    assert_int_equal(pk_sink_open(&k, path, 0, &err), 0);
    pk_sink_puts(k, "half");
    assert_int_equal(pk_sink_close(k, 0, &err), 0);
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0);
    /* A committed one appears whole. */
    assert_int_equal(pk_sink_open(&k, path, 0, &err), 0);
    for (int i = 0; i < 100000; i++)
        pk_sink_printf(k, "line %d\n", i);
    assert_int_equal(pk_sink_close(k, 1, &err), 0);
    assert_int_equal(stat(path, &st), 0);
    mode_t um = umask(0);
    umask(um);
    assert_int_equal(st.st_mode & 0777, 0666 & ~um); /* as a plain create, not mkstemp's 0600 */
    FILE *f = fopen(path, "r");
    int last = -1, v;
    char word[8];
    while (fscanf(f, "%7s %d", word, &v) == 2)
        last = v;
    fclose(f);
    assert_int_equal(last, 99999);
    unlink(path);
    /* gzip sink output decodes back through a source. */
    snprintf(path, sizeof(path), "%s/out.gz", dir);
    assert_int_equal(pk_sink_open(&k, path, 1, &err), 0);
    pk_sink_write(k, plain, N);
    assert_int_equal(pk_sink_close(k, 1, &err), 0);
    pk_source *s;
    const uint8_t *d;
    size_t n;
    assert_int_equal(pk_source_open_file(&s, path, &err), 0);
    assert_int_equal(pk_source_all(s, &d, &n, &err), 0);
    assert_int_equal(n, N);
    assert_memory_equal(d, plain, N);
    pk_source_close(s);
    unlink(path);
    /* A directory that does not exist: a clear error. */
    assert_int_equal(pk_sink_open(&k, "/nonexistent/dir/out", 0, &err), PROFKIT_EIO);
    assert_non_null(strstr(err.message, "cannot create"));
    rmdir(dir);
}

/* The same writes through a file sink and a memory sink. */
static void write_some(pk_sink *k)
{
    pk_sink_puts(k, "head\n");
    for (int i = 0; i < 5000; i++) {
        pk_sink_printf(k, "%d,", i * 7);
        pk_buf_json(pk_sink_buf(k), "a\"b\xff<", 5, PK_JSON_STD);
        pk_buf_xml(pk_sink_buf(k), "<&>", 3);
    }
    pk_sink_write(k, plain, N); /* larger than the staging area */
    pk_sink_puts(k, "tail\n");
}

static void memory_sink_matches_file_sink(void **state)
{
    (void)state;
    char dir[] = "/tmp/profkit_sink_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/out", dir);
    int kinds[] = { PROFKIT_SINK_PLAIN, PROFKIT_SINK_GZIP, PROFKIT_SINK_ZSTD };
    for (size_t c = 0; c < 3; c++) {
        pk_sink *k;
        profkit_error err;
        assert_int_equal(pk_sink_open(&k, path, kinds[c], &err), 0);
        write_some(k);
        assert_int_equal(pk_sink_close(k, 1, &err), 0);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        struct stat st;
        assert_int_equal(fstat(fileno(f), &st), 0);
        uint8_t *file = malloc((size_t)st.st_size + 1);
        assert_int_equal(fread(file, 1, (size_t)st.st_size, f), (size_t)st.st_size);
        fclose(f);

        pk_buf mem = PK_BUF_INIT;
        assert_int_equal(pk_sink_open_memory(&k, &mem, kinds[c], &err), 0);
        write_some(k);
        assert_int_equal(pk_sink_close(k, 1, &err), 0);
        assert_int_equal(mem.len, (size_t)st.st_size);
        assert_memory_equal(mem.buf, file, mem.len);
        /* a second sink into the same buffer appends */
        assert_int_equal(pk_sink_open_memory(&k, &mem, kinds[c], &err), 0);
        pk_sink_puts(k, "more");
        assert_int_equal(pk_sink_close(k, 1, &err), 0);
        assert_true(mem.len > (size_t)st.st_size);
        assert_memory_equal(mem.buf, file, (size_t)st.st_size);
        pk_buf_free(&mem);
        free(file);
        unlink(path);
        /* an aborted memory sink leaves the buffer as it was */
        assert_int_equal(pk_sink_open_memory(&k, &mem, kinds[c], &err), 0);
        write_some(k);
        assert_int_equal(pk_sink_close(k, 0, &err), 0);
        assert_int_equal(mem.len, 0);
        pk_buf_free(&mem);
        /* the destination's bound bounds the output */
        pk_buf_init(&mem, 1000);
        assert_int_equal(pk_sink_open_memory(&k, &mem, kinds[c], &err), 0);
        for (int i = 0; i < 2000 && !pk_sink_failed(k); i++)
            pk_sink_write(k, plain + (size_t)i * 100, 100);
        if (kinds[c] == PROFKIT_SINK_PLAIN)
            assert_true(pk_sink_failed(k)); /* plain bytes fail as they come */
        assert_int_equal(pk_sink_close(k, 1, &err), PROFKIT_ENOMEM);
        assert_string_equal(err.message, "writing the output: more than 1000 bytes");
        assert_true(mem.len <= 1000);
        pk_buf_free(&mem);
    }
    rmdir(dir);
}

int main(void)
{
    fill_plain();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_memory),
        cmocka_unit_test(gzip_and_concatenated),
        cmocka_unit_test(peek_more),
        cmocka_unit_test(zstd_stream),
        cmocka_unit_test(file_source_and_errors),
        cmocka_unit_test(sink_is_atomic),
        cmocka_unit_test(memory_sink_matches_file_sink),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
