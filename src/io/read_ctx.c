/* read_ctx.c: warnings, errors with positions and progress for readers; see
 * read_ctx.h. */
#include "io/read_ctx.h"

#include <stdarg.h>

int pk_read_warn(pk_read_ctx *ctx, int code, int64_t offset, const char *fmt, ...)
{
    profkit_error w;
    va_list ap;
    va_start(ap, fmt);
    pk_error_setv(&w, code, ctx->name, offset, fmt, ap);
    va_end(ap);
    ctx->n_warnings++;
    if (ctx->opts->strict) {
        *ctx->err = w;
        return code;
    }
    if (ctx->opts->on_warning)
        ctx->opts->on_warning(&w, ctx->opts->payload);
    return 0;
}

int pk_read_warn_pos(pk_read_ctx *ctx, int code, uint32_t line, uint32_t column,
                          const char *fmt, ...)
{
    profkit_error w;
    va_list ap;
    va_start(ap, fmt);
    pk_error_setv(&w, code, ctx->name, -1, fmt, ap);
    va_end(ap);
    w.line = line;
    w.column = column;
    ctx->n_warnings++;
    if (ctx->opts->strict) {
        *ctx->err = w;
        return code;
    }
    if (ctx->opts->on_warning)
        ctx->opts->on_warning(&w, ctx->opts->payload);
    return 0;
}

int pk_read_fail(pk_read_ctx *ctx, int code, int64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pk_error_setv(ctx->err, code, ctx->name, offset, fmt, ap);
    va_end(ap);
    return code;
}

int pk_read_fail_pos(pk_read_ctx *ctx, int code, uint32_t line, uint32_t column,
                          const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pk_error_setv(ctx->err, code, ctx->name, -1, fmt, ap);
    va_end(ap);
    ctx->err->line = line;
    ctx->err->column = column;
    return code;
}

void pk_read_progress(pk_read_ctx *ctx, uint64_t done, uint64_t total)
{
    if (ctx->opts->on_progress)
        ctx->opts->on_progress(done, total, ctx->opts->payload);
}
