/*
 * gperftools.h: the gperftools format's halves. gperftools_read.c holds
 * the reader and the format entry; the writer (gperftools_write.c) is
 * declared here for it. docs/formats/gperftools.md.
 */
#ifndef PROFKIT_GPERFTOOLS_H
#define PROFKIT_GPERFTOOLS_H

#include "formats/registry/format.h"

/* Writes p as a 64-bit little-endian gperftools CPU profile. Returns 0 or
 * a code with err filled. */
int pk_gperftools_write(const profkit_profile *p, pk_sink *sink, const profkit_write_options *o,
                        profkit_error *err);

#endif
