/*
 * firefox.c: the Firefox Profiler's processed profile format, the JSON that
 * profiler.firefox.com saves and uploads and that samply and other tools
 * write, of every version (pre-1 to the current 70).
 *
 * Tables are struct-of-arrays (`{length, column: [...]}`). Strings are one
 * `stringArray` per thread, or from version 56 one `shared.stringArray`;
 * from 60 the stack, frame, func and resource tables live in `shared`; from
 * 66 a stack's parent is `prefixOffset` rows back instead of `prefix`;
 * samples carry `time` or `timeDeltas` (ms), and optionally `weight` with
 * `weightType` samples / tracing-ms / bytes. The rules, and the mapping
 * onto the model: docs/formats/firefox.md. The reader is
 * shared with the raw Gecko format (gecko_common.c); the writer is
 * firefox_write.c.
 */
#include "formats/gecko/firefox.h"
#include "formats/gecko/gecko_common.h"

static int firefox_sniff(const uint8_t *head, size_t n, int complete)
{
    return pk_gecko_sniff(head, n, PK_GECKO_PROCESSED, complete);
}

static int firefox_read(profkit_profile *p, pk_read_ctx *ctx)
{
    return pk_gecko_read(p, ctx, PK_GECKO_PROCESSED);
}

const pk_format pk_format_firefox = {
    { "firefox", "Firefox Profiler processed profile (profiler.firefox.com, JSON)", ".json", 1, 1 },
    firefox_sniff,
    firefox_read,
    pk_firefox_write,
};
