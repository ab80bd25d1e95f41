/*
 * bsprof.h: what the bsprof reader (bsprof_read.c, which holds the format
 * entry), its fast decoders (bsprof_decode.c) and the writer
 * (bsprof_write.c) share: the magic, the value types, the memory
 * operations and the header's strings, and the writer's entry point. The
 * format is described at the top of bsprof_read.c and in
 * docs/formats/bsprof.md.
 */
#ifndef PROFKIT_BSPROF_H
#define PROFKIT_BSPROF_H

#include "formats/registry/format.h"

/* The first 8 bytes of every file. */
static const uint8_t magic[8] = { 'b', 's', 'p', 'r', 'o', 'f', 0, 0 };

/* The value types every file reads as, in this order. */
enum {
    V_CPU, V_WALL, V_CALLS, V_ALLOC_OBJECTS, V_ALLOC_SPACE, V_FREE_OBJECTS,
    V_INUSE_OBJECTS, V_INUSE_SPACE, N_VALUES
};
static const char *const value_names[N_VALUES][2] = {
    { "cpu", "microseconds" },  { "wall", "microseconds" },    { "calls", "count" },
    { "alloc_objects", "count" }, { "alloc_space", "bytes" },  { "free_objects", "count" },
    { "inuse_objects", "count" }, { "inuse_space", "bytes" },
};

/* A memory operation's operation (tag bits 4..3). */
enum { OP_ALLOC = 0, OP_FREE = 1, OP_FREE_REALLOC = 2 };

/* The header's six strings, in file order (metadata keys). */
static const char *const header_strings[6] = { "target_name",    "supplemental_info",
                                                "target_version", "device_vendor",
                                                "device_model",   "device_firmware" };

/* Writes p as a bsprof file (bsprof_write.c). Returns 0 or a code with err
 * filled. */
int pk_bsprof_write(const profkit_profile *p, pk_sink *sink, const profkit_write_options *o,
                    profkit_error *err);

#endif
