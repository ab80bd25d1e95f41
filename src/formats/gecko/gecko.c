/*
 * gecko.c: raw Gecko profiles, the JSON that Firefox's built-in profiler
 * (and `MOZ_PROFILER_SHUTDOWN`, about:profiling "Save") writes, of every
 * version from 3 to the current 36. Read only.
 *
 * A profile is `{meta, libs, threads, processes, pausedRanges}`. Each thread
 * holds `samples`, `markers`, `stackTable` and `frameTable` as
 * `{schema: {column: position}, data: [[row]...]}` tables (a short row reads
 * its missing columns as null) and a `stringTable`; a frame is a location
 * string such as "js::RunScript (in libxul.so)" or
 * "onClick (https://example.com/app.js:12:5)". `processes` holds
 * sub-profiles of the same shape at any depth; their times are shifted by
 * sub.meta.startTime - parent.meta.startTime. The rules, and the mapping
 * onto the model: docs/formats/gecko.md. The reader itself is
 * shared with the processed format (gecko_common.c).
 */
#include "formats/gecko/gecko_common.h"

static int gecko_sniff(const uint8_t *head, size_t n, int complete)
{
    return pk_gecko_sniff(head, n, PK_GECKO_RAW, complete);
}

static int gecko_read(profkit_profile *p, pk_read_ctx *ctx)
{
    return pk_gecko_read(p, ctx, PK_GECKO_RAW);
}

const pk_format pk_format_gecko = {
    { "gecko", "raw Gecko profile (Firefox's profiler output, JSON, versions 3 to 36)", ".json", 1, 0 },
    gecko_sniff,
    gecko_read,
    NULL,
};
