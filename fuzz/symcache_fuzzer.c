/* symcache_fuzzer.c: an arbitrary file as a symbol cache file
 * (src/symbols/sym_cache.c) of one build id and context. Its last 8 bytes
 * are set to the checksum of the rest first, so the checks past it (counts,
 * offsets, chains, strings) are reached; then every address the input's
 * words name is looked up, lookups are added and the cache is written
 * again (merging with what was read). Any outcome but a crash or a
 * sanitizer report is fine. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/sym_cache.h"

static const char id[] = "0123456789abcdef";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[] = "/tmp/symcache_fuzz_XXXXXX";
    if (!mkdtemp(dir))
        return 0;
    char path[sizeof(dir) + sizeof(id) + 1];
    snprintf(path, sizeof(path), "%s/%s", dir, id);
    uint8_t *d = malloc(size ? size : 1);
    if (!d)
        goto out;
    memcpy(d, data, size);
    if (size >= 8) {
        uint64_t h = 0xcbf29ce484222325ull;
        for (size_t i = 0; i < size - 8; i++)
            h = (h ^ d[i]) * 0x100000001b3ull;
        for (int i = 0; i < 8; i++)
            d[size - 8 + i] = (uint8_t)(h >> (8 * i));
    }
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(d, 1, size, f);
        fclose(f);
    }
    sym_cache *c = pk_sym_cache_open(dir, id, "ctx");
    if (c) {
        sym_frame out[64];
        size_t n;
        for (size_t i = 0; i + 8 <= size; i += 8) {
            uint64_t v;
            memcpy(&v, data + i, 8);
            if (pk_sym_cache_get(c, v, out, 64, &n))
                for (size_t k = 0; k < n; k++)
                    if (out[k].name[0] == 1 || (out[k].file && out[k].file[0] == 1))
                        break; /* reads every string the cache gave */
        }
        sym_frame add[2] = { { "added", "a.c", 1, 1 }, { "added2", NULL, 0, 0 } };
        if (!pk_sym_cache_get(c, UINT64_MAX, out, 64, &n))
            pk_sym_cache_add(c, UINT64_MAX, add, 2);
        pk_sym_cache_save(c, 1, "");
        pk_sym_cache_free(c);
        /* and what was written reads back */
        pk_sym_cache_free(pk_sym_cache_open(dir, id, "ctx"));
    }
    free(d);
out:
    unlink(path);
    rmdir(dir);
    return 0;
}
