/*
 * pprof_wire.h: what the pprof reader (pprof.c) and writer (pprof_write.c)
 * share: the protocol buffers wire types, the tag layout, and the writer's
 * entry point, which the format entry in pprof.c names. The message and its
 * field numbers are described at the top of pprof.c and in
 * docs/formats/pprof.md.
 */
#ifndef PROFKIT_PPROF_WIRE_H
#define PROFKIT_PPROF_WIRE_H

#include "formats/registry/format.h"

/* Wire types (the low 3 bits of a field's tag). */
enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

/* A field's tag: its number and wire type. */
static inline uint64_t pp_tag(uint32_t num, unsigned wt) { return ((uint64_t)num << 3) | wt; }

/* Writes p as a pprof profile (pprof_write.c). */
int pk_pprof_write(const profkit_profile *p, pk_sink *sink,
                        const profkit_write_options *o, profkit_error *err);

#endif
