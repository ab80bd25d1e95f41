/*
 * gecko_common.h: the reader shared by the raw Gecko format (gecko.c) and
 * the Firefox Profiler's processed format (firefox.c). Both are one JSON
 * object with meta, libs and threads whose tables name each other by index;
 * they differ in how a table is laid out (rows under a schema, or one array
 * per column) and in where tables and strings live (per thread, or shared).
 * One streaming reader takes both; see docs/formats/gecko.md.
 */
#ifndef PROFKIT_GECKO_COMMON_H
#define PROFKIT_GECKO_COMMON_H
#include "formats/registry/format.h"

/* Which of the two formats the caller asked for (names the version key). */
typedef enum pk_gecko_flavor { PK_GECKO_RAW = 0, PK_GECKO_PROCESSED = 1 } pk_gecko_flavor;

/*
 * Streams ctx->src into p. Returns 0 or a PROFKIT_E* code with ctx->err
 * naming the line and column of the offending token (or table).
 */
int pk_gecko_read(profkit_profile *p, pk_read_ctx *ctx, pk_gecko_flavor flavor);

/*
 * A frame location string split as docs/formats/gecko.md rules. Pointers point into
 * the string passed to pk_gecko_parse_location.
 */
typedef struct pk_gecko_location {
    const char *name;
    size_t name_len;
    const char *file; /* NULL when none */
    size_t file_len;
    const char *module; /* NULL when none */
    size_t module_len;
    uint32_t line;   /* 0 = none */
    uint32_t column; /* 0 = none */
    uint64_t address;
    int is_address;
} pk_gecko_location;

/*
 * Splits `s`: "0x1f2e" is an address (name = the string); "NAME (URL:LINE)"
 * and "NAME (URL:LINE:COL)" give a name, a file and a line (a trailing
 * "[SOURCE]" index of Gecko 32+ is dropped); "NAME (in LIB)" a name and a
 * module; anything else is the name as a whole.
 */
void pk_gecko_parse_location(const char *s, size_t len, pk_gecko_location *out);

/* Sniff helper: scores a JSON head for the raw (flavor 0) or processed
 * format (PK_SNIFF_MORE: the DevTools wrapper's keys up to the head's end). */
int pk_gecko_sniff(const uint8_t *d, size_t n, pk_gecko_flavor flavor, int complete);

#endif
