/*
 * hostile.h: the hostile-input check the format unit tests share: read every
 * prefix of a real file and seeded bit-flipped copies of it, and require an
 * error (with a message) or a profile, never a crash, leak or overread.
 *
 * Each prefix is read from a heap copy of exactly its length, so ASan sees
 * any read past the cut; a profile that reads is also reported (top) so the
 * analysis code runs over whatever the reader accepted.
 */
#ifndef PROFKIT_TEST_HOSTILE_H
#define PROFKIT_TEST_HOSTILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "profkit.h"

typedef struct pk_hostile_counts {
    size_t read;   /* inputs that gave a profile */
    size_t warned; /* ... of them with at least one warning */
    size_t failed; /* inputs that gave an error, each with a message */
    size_t silent; /* errors without a message: must stay 0 */
} pk_hostile_counts;

/*
 * Loads ../shared/fixtures/REL (gzip and zstd decoded) into a new buffer.
 * Returns NULL when the file is absent (callers skip).
 */
static inline uint8_t *pk_hostile_load(const char *rel, size_t *n)
{
    const char *shared = getenv("PROFKIT_SHARED");
    char path[1024];
    snprintf(path, sizeof(path), "%s/fixtures/%s", shared ? shared : "../shared", rel);
    pk_source *s;
    profkit_error err;
    const uint8_t *d;
    uint8_t *out = NULL;
    if (pk_source_open_file(&s, path, &err) != 0)
        return NULL;
    if (pk_source_all(s, &d, n, &err) == 0 && (out = malloc(*n ? *n : 1)) != NULL)
        memcpy(out, d, *n);
    pk_source_close(s);
    return out;
}

static void pk_hostile_count_warning(const profkit_error *w, void *payload)
{
    (void)w;
    ++*(size_t *)payload;
}

/* Reads one input as `format` and tallies the outcome. */
static inline void pk_hostile_read(const uint8_t *d, size_t n, const char *format,
                                   pk_hostile_counts *c)
{
    size_t warnings = 0;
    profkit_read_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.format = format;
    ro.on_warning = pk_hostile_count_warning;
    ro.payload = &warnings;
    profkit_profile *p;
    profkit_error err;
    if (profkit_profile_read_memory(&p, d, n, "hostile", &ro, &err) == 0) {
        c->read++;
        c->warned += warnings > 0;
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            profkit_report_options o;
            memset(&o, 0, sizeof(o));
            profkit_report_top(null, p, &o, &err);
            fclose(null);
        }
        profkit_profile_free(p);
    } else if (err.message[0]) {
        c->failed++;
    } else {
        c->silent++;
    }
}

/* Every prefix d[0..k) for k < n, each from an exact-size copy. */
static inline void pk_hostile_prefixes(const uint8_t *d, size_t n, const char *format,
                                       pk_hostile_counts *c)
{
    for (size_t k = 0; k < n; k++) {
        uint8_t *copy = malloc(k ? k : 1);
        if (!copy)
            return;
        memcpy(copy, d, k);
        pk_hostile_read(copy, k, format, c);
        free(copy);
    }
}

/* `rounds` copies of d with 1 to 4 seeded (xorshift) bit flips each. */
static inline void pk_hostile_flips(const uint8_t *d, size_t n, const char *format, int rounds,
                                    pk_hostile_counts *c)
{
    uint8_t *m = malloc(n ? n : 1);
    if (!m || n == 0) {
        free(m);
        return;
    }
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < rounds; i++) {
        memcpy(m, d, n);
        for (int j = 0; j < 1 + i % 4; j++) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            m[seed % n] ^= (uint8_t)(1u << ((seed >> 32) % 8));
        }
        pk_hostile_read(m, n, format, c);
    }
    free(m);
}

#endif
