/*
 * io.h: sources (where a reader's bytes come from) and sinks (where a
 * writer's bytes go).
 *
 * A source is a file, standard input or a memory buffer. gzip and zstd are
 * detected from the first bytes and decompressed transparently (gzip with
 * ISA-L's inflate, libisal: about 4x zlib's speed, which a 1 GB .json.gz
 * needs; sinks still compress with zlib). A reader
 * either takes the whole decoded input at once (pk_source_all: a plain
 * file is mmapped, nothing is copied) or streams it in chunks
 * (pk_source_read), which keeps memory bounded for huge JSON inputs; a
 * streaming reader may instead read a plain file mapped (pk_source_map),
 * giving the pages behind it back as it goes (pk_source_map_done).
 * The first bytes can always be peeked for format detection.
 *
 * A sink writes to standard output, to a temporary file that is renamed
 * over the target only when the writer succeeded, or to memory.
 */
#ifndef PROFKIT_IO_H
#define PROFKIT_IO_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit.h"
#include "util/buf.h"
#include "util/util.h"

typedef struct pk_source pk_source;

typedef enum pk_compression {
    PROFKIT_COMP_NONE = 0,
    PROFKIT_COMP_GZIP = 1,
    PROFKIT_COMP_ZSTD = 2
} pk_compression;

/* Opens path ("-" = standard input). Returns 0, or PROFKIT_EIO with err set. */
int pk_source_open_file(pk_source **out, const char *path, profkit_error *err);
/* Wraps memory (not copied; must outlive the source). */
int pk_source_open_memory(pk_source **out, const void *data, size_t size,
                               const char *name, profkit_error *err);
void pk_source_close(pk_source *s);

/* The name used in messages. */
const char *pk_source_name(const pk_source *s);
pk_compression pk_source_compression(const pk_source *s);
/* Decompressed bytes allowed per compressed byte once past 1 GiB of output
 * (0: PROFKIT_SOURCE_MAX_RATIO); more fails with PROFKIT_EUNSUPPORTED. */
#define PROFKIT_SOURCE_MAX_RATIO 1000u
void pk_source_set_max_ratio(pk_source *s, uint64_t ratio);
/* Reports raw-byte progress of streaming reads through this callback. */
void pk_source_set_progress(pk_source *s, profkit_progress_fn fn, void *payload);
/*
 * A gzip or zstd input cut before its end marker ends where the cut is:
 * every byte decoded before it is delivered, then the end of input, so the
 * reader sees a cut file and keeps what is complete. on_cut is called once,
 * when the cut is met, with the compressed size and the bytes decoded; a
 * nonzero return (e.g. --strict) fails the read with that code. Without a
 * callback the cut is an error (PROFKIT_ETRUNCATED).
 */
typedef int (*pk_cut_fn)(void *payload, const char *comp, uint64_t raw, uint64_t decoded);
void pk_source_set_on_cut(pk_source *s, pk_cut_fn fn, void *payload);

/*
 * Points *data at up to the first 64 KiB of decoded input (*n bytes; fewer
 * only when the input is shorter). Does not consume anything.
 */
int pk_source_peek(pk_source *s, const uint8_t **data, size_t *n, profkit_error *err);
/*
 * Like pk_source_peek, with up to `want` bytes (fewer only when the input
 * is shorter): for a detection that the first 64 KiB cannot settle. The
 * bytes are kept until the reader takes them, so memory grows with
 * `want`. Only before anything was read.
 */
int pk_source_peek_more(pk_source *s, size_t want, const uint8_t **data, size_t *n,
                        profkit_error *err);
/*
 * Points *data at the whole decoded input (*n bytes), owned by the source.
 * Must not be mixed with pk_source_read.
 */
int pk_source_all(pk_source *s, const uint8_t **data, size_t *n, profkit_error *err);
/* A plain file mapped whole: 1 with *data, *n, 0 when the source is no
 * such file (read it with pk_source_read), or an error code. */
int pk_source_map(pk_source *s, const uint8_t **data, size_t *n, profkit_error *err);
/* The mapping's bytes before upto will not be read again: their pages
 * leave the process's memory (the file stays in the system's cache), and
 * progress is reported as for a read up to there. */
void pk_source_map_done(pk_source *s, size_t upto);
/* Reads up to cap decoded bytes; *got == 0 means end of input. */
int pk_source_read(pk_source *s, uint8_t *buf, size_t cap, size_t *got,
                        profkit_error *err);

/*
 * A sink is where a writer's bytes go: a file (written under a temporary
 * name and renamed onto the target when complete), standard output, or
 * memory (a pk_buf). The writer sees one pk_buf (pk_sink_buf): every
 * pk_buf_* call works on it, and a file sink drains it to the file in
 * loads of 128 KiB as it fills, through gzip or zstd when asked.
 */
typedef struct pk_sink pk_sink;

enum { PROFKIT_SINK_PLAIN, PROFKIT_SINK_GZIP, PROFKIT_SINK_ZSTD };
/* The compression a file name asks for: ".gz" gzip, ".zst" zstd, else none. */
int pk_sink_compression(const char *path);
/*
 * Opens a sink for path (NULL or "-" = standard output), compressing as
 * compress says (PROFKIT_SINK_*). A file is written to "PATH.tmp.XXXXXX"
 * first.
 */
int pk_sink_open(pk_sink **out, const char *path, int compress, profkit_error *err);
/*
 * Opens a sink whose bytes (compressed as compress says) go to memory: a
 * committed close appends them to *dst, a growable pk_buf whose bound
 * (dst->max) bounds the output too. dst must outlive the sink.
 */
int pk_sink_open_memory(pk_sink **out, pk_buf *dst, int compress, profkit_error *err);

/* The buffer the writer writes into (the sink's first member). */
static inline pk_buf *pk_sink_buf(pk_sink *s) { return (pk_buf *)(void *)s; }
/* Writes. Errors are sticky and reported by pk_sink_close. */
static inline void pk_sink_write(pk_sink *s, const void *data, size_t n)
{
    pk_buf_put(pk_sink_buf(s), data, n);
}
static inline void pk_sink_puts(pk_sink *s, const char *str) { pk_buf_puts(pk_sink_buf(s), str); }
void pk_sink_printf(pk_sink *s, const char *fmt, ...) PK_PRINTF(2, 3);
/* True when a write has failed (the writer may stop early). */
int pk_sink_failed(pk_sink *s);
/*
 * Finishes: with commit set, flushes and renames the temporary file onto the
 * target (or hands the bytes to the memory sink's buffer); otherwise (or on
 * any error) removes it. Frees the sink. Returns 0, PROFKIT_EIO (err names
 * the file) or PROFKIT_ENOMEM (a memory sink out of memory or past its
 * buffer's bound).
 */
int pk_sink_close(pk_sink *s, int commit, profkit_error *err);

#endif
