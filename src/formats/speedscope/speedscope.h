/*
 * speedscope.h: the speedscope format's two halves. speedscope_read.c holds
 * the reader and the format entry; the writer (speedscope_write.c) is
 * declared here for it. docs/formats/speedscope.md.
 */
#ifndef PROFKIT_SPEEDSCOPE_H
#define PROFKIT_SPEEDSCOPE_H

#include "formats/registry/format.h"

/* Writes p as speedscope JSON. Returns 0 or a code with err filled. */
int pk_speedscope_write(const profkit_profile *p, pk_sink *k, const profkit_write_options *o,
                        profkit_error *err);

#endif
