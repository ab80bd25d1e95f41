/*
 * test_files.h: reading a test's input files, shared by the unit tests.
 * pk_test_slurp reads a file whole into a new NUL-terminated buffer (the
 * NUL is not counted in *n), or returns NULL when it cannot be opened or
 * read; pk_test_slurp_src does so for a path under $PROFKIT_SRC (the
 * source tree; "." when unset).
 */
#ifndef PROFKIT_TEST_FILES_H
#define PROFKIT_TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline char *pk_test_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *d = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 2) {
            size_t nc = cap ? cap * 2 : 65536;
            char *nd = realloc(d, nc);
            if (!nd) {
                free(d);
                fclose(f);
                return NULL;
            }
            d = nd, cap = nc;
        }
        size_t got = fread(d + len, 1, cap - len - 1, f);
        if (got == 0)
            break;
        len += got;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(d);
        return NULL;
    }
    d[len] = 0;
    *n = len;
    return d;
}

static inline char *pk_test_slurp_src(const char *rel, size_t *n)
{
    const char *src = getenv("PROFKIT_SRC");
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", src ? src : ".", rel);
    return pk_test_slurp(path, n);
}

#endif
