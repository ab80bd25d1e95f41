/*
 * io.h: sources (where a reader's bytes come from) and sinks (where a
 * writer's bytes go).
 *
 * A source is a file, standard input or a memory buffer. gzip and zstd are
 * detected from the first bytes and decompressed transparently (gzip with
 * ISA-L's inflate, libisal: about 4x zlib's speed, which a 1 GB .json.gz
 * needs; sinks still compress with zlib). A reader
 * either takes the whole decoded input at once (profkit_source_all: a plain
 * file is mmapped, nothing is copied) or streams it in chunks
 * (profkit_source_read), which keeps memory bounded for huge JSON inputs.
 * The first bytes can always be peeked for format detection.
 *
 * A sink writes to standard output or to a temporary file that is renamed
 * over the target only when the writer succeeded.
 */
#ifndef PROFKIT_IO_H
#define PROFKIT_IO_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit.h"
#include "util/util.h"

typedef struct profkit_source profkit_source;

typedef enum profkit_compression {
    PROFKIT_COMP_NONE = 0,
    PROFKIT_COMP_GZIP = 1,
    PROFKIT_COMP_ZSTD = 2
} profkit_compression;

/* Opens path ("-" = standard input). Returns 0, or PROFKIT_EIO with err set. */
int profkit_source_open_file(profkit_source **out, const char *path, profkit_error *err);
/* Wraps memory (not copied; must outlive the source). */
int profkit_source_open_memory(profkit_source **out, const void *data, size_t size,
                               const char *name, profkit_error *err);
void profkit_source_close(profkit_source *s);

/* The name used in messages. */
const char *profkit_source_name(const profkit_source *s);
profkit_compression profkit_source_compression(const profkit_source *s);
/* Decompressed bytes allowed per compressed byte once past 1 GiB of output
 * (0: PROFKIT_SOURCE_MAX_RATIO); more fails with PROFKIT_EUNSUPPORTED. */
#define PROFKIT_SOURCE_MAX_RATIO 1000u
void profkit_source_set_max_ratio(profkit_source *s, uint64_t ratio);
/* Reports raw-byte progress of streaming reads through this callback. */
void profkit_source_set_progress(profkit_source *s, profkit_progress_fn fn, void *payload);
/*
 * A gzip or zstd input cut before its end marker ends where the cut is:
 * every byte decoded before it is delivered, then the end of input, so the
 * reader sees a cut file and keeps what is complete. on_cut is called once,
 * when the cut is met, with the compressed size and the bytes decoded; a
 * nonzero return (e.g. --strict) fails the read with that code. Without a
 * callback the cut is an error (PROFKIT_ETRUNCATED).
 */
typedef int (*profkit_cut_fn)(void *payload, const char *comp, uint64_t raw, uint64_t decoded);
void profkit_source_set_on_cut(profkit_source *s, profkit_cut_fn fn, void *payload);

/*
 * Points *data at up to the first 64 KiB of decoded input (*n bytes; fewer
 * only when the input is shorter). Does not consume anything.
 */
int profkit_source_peek(profkit_source *s, const uint8_t **data, size_t *n, profkit_error *err);
/*
 * Points *data at the whole decoded input (*n bytes), owned by the source.
 * Must not be mixed with profkit_source_read.
 */
int profkit_source_all(profkit_source *s, const uint8_t **data, size_t *n, profkit_error *err);
/* Reads up to cap decoded bytes; *got == 0 means end of input. */
int profkit_source_read(profkit_source *s, uint8_t *buf, size_t cap, size_t *got,
                        profkit_error *err);

typedef struct profkit_sink profkit_sink;

enum { PROFKIT_SINK_PLAIN, PROFKIT_SINK_GZIP, PROFKIT_SINK_ZSTD };
/* The compression a file name asks for: ".gz" gzip, ".zst" zstd, else none. */
int profkit_sink_compression(const char *path);
/*
 * Opens a sink for path (NULL or "-" = standard output), compressing as
 * compress says (PROFKIT_SINK_*). A file is written to "PATH.tmp.XXXXXX"
 * first.
 */
int profkit_sink_open(profkit_sink **out, const char *path, int compress, profkit_error *err);
/* Buffered writes. Errors are sticky and reported by profkit_sink_close. */
void profkit_sink_write(profkit_sink *s, const void *data, size_t n);
void profkit_sink_puts(profkit_sink *s, const char *str);
void profkit_sink_printf(profkit_sink *s, const char *fmt, ...) PK_PRINTF(2, 3);
/* True when a write has failed (the writer may stop early). */
int profkit_sink_failed(const profkit_sink *s);
/*
 * Finishes: with commit set, flushes and renames the temporary file onto the
 * target; otherwise (or on any error) removes it. Frees the sink.
 * Returns 0 or PROFKIT_EIO with err set.
 */
int profkit_sink_close(profkit_sink *s, int commit, profkit_error *err);

#endif
