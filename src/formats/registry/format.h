/*
 * format.h: the interface every format implements. Readers report errors,
 * warnings and progress through the reading context (io/read_ctx.h).
 *
 * Adding a format: write src/formats/NAME.c (or a folder src/formats/NAME/
 * for a format of several files) defining
 *   const pk_format profkit_format_NAME = { {info}, sniff, read, write };
 * and add one line PROFKIT_FORMAT(NAME) to src/formats/registry/formats.def.
 * A format uses this header and the layers below (io, model, util), never
 * another format (docs/architecture.md).
 */
#ifndef PROFKIT_FORMAT_H
#define PROFKIT_FORMAT_H

#include "io/read_ctx.h"
#include "model/model.h"

typedef struct pk_format {
    profkit_format_info info;
    /*
     * How sure the format is that `head` (the first bytes of the decoded
     * input; `complete` when that is the whole input) is one of its files:
     * 0 = no, 100 = magic number matched. Must not read past head[n-1].
     * PK_SNIFF_MORE: the head is not complete and could be one of its files
     * that only more bytes tell (a JSON wrapper whose telling key comes
     * after megabytes of others); the registry then calls it again on a
     * longer head, up to PK_SNIFF_MAX bytes, past which it scores
     * PK_SNIFF_MAYBE.
     */
    int (*sniff)(const uint8_t *head, size_t n, int complete);
    /* Reads ctx->src into p (empty, fresh). Returns 0 or a PROFKIT_E* code
     * with ctx->err filled. NULL when the format cannot be read. */
    int (*read)(profkit_profile *p, pk_read_ctx *ctx);
    /* Writes p. Returns 0 or a code with err filled. NULL when write-less. */
    int (*write)(const profkit_profile *p, pk_sink *sink, const profkit_write_options *o,
                 profkit_error *err);
} pk_format;

#define PK_SNIFF_MORE (-1)
#define PK_SNIFF_MAYBE 50
#define PK_SNIFF_MAX ((size_t)64 << 20)

#define PROFKIT_FORMAT(name) extern const pk_format pk_format_##name;
#include "formats/registry/formats.def"
#undef PROFKIT_FORMAT

/* The registered format named `name`, or NULL. */
const pk_format *pk_format_lookup(const char *name);
/* The format whose sniff scores highest on the source's head (score > 0),
 * or NULL (*fmt); reads further into the head while a format asks for it. */
int pk_format_detect(pk_source *src, const pk_format **fmt, profkit_error *err);

#endif
