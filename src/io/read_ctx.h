/*
 * read_ctx.h: the reading context. A reader gets one per input and reports
 * through it: errors with the byte offset (binary input) or line and column
 * (text input), warnings (which --strict turns into errors), and progress.
 * It sits below every reader and below the JSON layer, and calls none of
 * them; the registry (src/formats/registry/registry.c) makes one per read.
 */
#ifndef PROFKIT_READ_CTX_H
#define PROFKIT_READ_CTX_H

#include "io/io.h"

typedef struct pk_read_ctx {
    const char *name;                  /* input name for messages */
    pk_source *src;
    const profkit_read_options *opts;  /* never NULL */
    profkit_error *err;                /* never NULL */
    unsigned n_warnings;
} pk_read_ctx;

/*
 * Reports a warning at offset (-1 = none). Returns 0 to go on, or, under
 * --strict, fills ctx->err with the warning as an error and returns `code`.
 */
int pk_read_warn(pk_read_ctx *ctx, int code, int64_t offset, const char *fmt, ...)
    PK_PRINTF(4, 5);
/* Same for text inputs (line/column, 1-based). */
int pk_read_warn_pos(pk_read_ctx *ctx, int code, uint32_t line, uint32_t column,
                          const char *fmt, ...) PK_PRINTF(5, 6);
/* Fills ctx->err and returns code. */
int pk_read_fail(pk_read_ctx *ctx, int code, int64_t offset, const char *fmt, ...)
    PK_PRINTF(4, 5);
int pk_read_fail_pos(pk_read_ctx *ctx, int code, uint32_t line, uint32_t column,
                          const char *fmt, ...) PK_PRINTF(5, 6);
/* Progress of a reader working on a whole buffer (cheap; call per item). */
void pk_read_progress(pk_read_ctx *ctx, uint64_t done, uint64_t total);

#endif
