/*
 * test_write_memory.c: profkit_profile_write_memory gives, for every
 * writable format and every readable file of tests/data, exactly the bytes
 * profkit_profile_write_file writes to a file (or the same error), through
 * the public API only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profkit.h"
#include "test_files.h"

static char *slurp(const char *path, size_t *n)
{
    char *d = pk_test_slurp(path, n);
    assert_non_null(d);
    return d;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every tests/data/FORMAT/ok_* file, sorted. */
static size_t ok_files(char ***out)
{
    const char *src = getenv("PROFKIT_SRC");
    assert_non_null(src);
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/tests/data", src);
    DIR *top = opendir(dir);
    assert_non_null(top);
    char **files = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(top))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[4400];
        snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
        DIR *d = opendir(sub);
        if (!d)
            continue;
        struct dirent *f;
        while ((f = readdir(d))) {
            if (strncmp(f->d_name, "ok_", 3) != 0)
                continue;
            files = realloc(files, (n + 1) * sizeof(*files));
            assert_non_null(files);
            files[n] = malloc(strlen(sub) + strlen(f->d_name) + 2);
            assert_non_null(files[n]);
            sprintf(files[n], "%s/%s", sub, f->d_name);
            n++;
        }
        closedir(d);
    }
    closedir(top);
    qsort(files, n, sizeof(*files), by_name);
    *out = files;
    return n;
}

static void every_format_to_memory_as_to_a_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/profkit_wmem_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/out", dir);
    char **files;
    size_t n_files = ok_files(&files);
    assert_true(n_files >= 20);
    size_t nf = profkit_format_count();
    size_t *written = calloc(nf, sizeof(size_t));
    assert_non_null(written);
    size_t n_writable = 0;
    for (size_t f = 0; f < nf; f++)
        n_writable += profkit_format_get(f)->can_write != 0;
    for (size_t i = 0; i < n_files; i++) {
        profkit_profile *p;
        profkit_error err;
        if (profkit_profile_read_file(&p, files[i], NULL, &err) != 0)
            continue; /* a file only its own test reads (options, warnings) */
        for (size_t f = 0; f < nf; f++) {
            const profkit_format_info *fi = profkit_format_get(f);
            if (!fi->can_write)
                continue;
            /* also one with a thread and a value chosen, as view passes them */
            for (int opt = 0; opt < 2; opt++) {
                profkit_write_options o;
                memset(&o, 0, sizeof(o));
                o.format = fi->name;
                if (opt) {
                    o.thread = "0";
                    o.by_line = 1;
                }
                profkit_error ef, em;
                memset(&ef, 0, sizeof(ef));
                memset(&em, 0, sizeof(em));
                int rf = profkit_profile_write_file(p, path, &o, &ef);
                char *mem = (char *)"not set";
                size_t len = 12345;
                int rm = profkit_profile_write_memory(&mem, &len, p, &o, &em);
                if (rf != rm || (rf && strcmp(ef.message, em.message) != 0))
                    fail_msg("%s to %s: the file write gave %d (%s), the memory write %d (%s)",
                             files[i], fi->name, rf, ef.message, rm, em.message);
                if (rf) {
                    assert_null(mem);
                    assert_int_equal(len, 0);
                    continue;
                }
                size_t flen;
                char *file = slurp(path, &flen);
                if (flen != len || memcmp(file, mem, len) != 0)
                    fail_msg("%s to %s: %zu bytes in memory, %zu in the file, or other bytes", files[i],
                             fi->name, len, flen);
                assert_int_equal(mem[len], 0);
                written[f]++;
                free(file);
                free(mem);
                unlink(path);
            }
        }
        profkit_profile_free(p);
    }
    /* every writer wrote something this way */
    for (size_t f = 0; f < nf; f++) {
        const profkit_format_info *fi = profkit_format_get(f);
        if (fi->can_write && written[f] == 0)
            fail_msg("no file of tests/data could be written as %s", fi->name);
    }
    assert_true(n_writable >= 8);
    for (size_t i = 0; i < n_files; i++)
        free(files[i]);
    free(files);
    free(written);
    rmdir(dir);
}

static void memory_needs_a_format(void **state)
{
    (void)state;
    const char text[] = "main;work 3\nmain 1\n";
    profkit_profile *p;
    profkit_error err;
    assert_int_equal(profkit_profile_read_memory(&p, text, sizeof(text) - 1, "t.folded", NULL, &err), 0);
    char *out = (char *)"x";
    size_t len = 1;
    assert_int_equal(profkit_profile_write_memory(&out, &len, p, NULL, &err), PROFKIT_EINVAL);
    assert_null(out);
    assert_non_null(strstr(err.message, "writing to memory needs a format name"));
    profkit_write_options o;
    memset(&o, 0, sizeof(o));
    o.format = "gecko"; /* read only */
    assert_int_equal(profkit_profile_write_memory(&out, &len, p, &o, &err), PROFKIT_EINVAL);
    assert_non_null(strstr(err.message, "cannot write format 'gecko'"));
    o.format = "folded";
    o.value = "no such value";
    assert_int_equal(profkit_profile_write_memory(&out, NULL, p, &o, &err), PROFKIT_EINVAL);
    assert_null(out);
    o.value = NULL;
    assert_int_equal(profkit_profile_write_memory(&out, NULL, p, &o, &err), 0);
    assert_string_equal(out, "main 1\nmain;work 3\n");
    free(out);
    profkit_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_format_to_memory_as_to_a_file),
        cmocka_unit_test(memory_needs_a_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
