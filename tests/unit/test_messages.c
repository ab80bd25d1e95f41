/*
 * test_messages.c: the library's messages name the option or limit they
 * are about by its API name (a field of profkit_read_options,
 * profkit_write_options, profkit_filter_options), never a flag of the
 * command, which maps the names to its flags (src/cli/flag_names.def;
 * tests/cli/reliability_cli.sh checks what the command prints).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "profkit.h"
#include "util/cursor.h"

static int has(const profkit_error *e, const char *text)
{
    if (!strstr(e->message, text)) {
        print_error("message [%s] lacks [%s]\n", e->message, text);
        return 0;
    }
    return !strstr(e->message, "--");
}

static int read_text(const char *text, const profkit_read_options *ro, profkit_error *err)
{
    profkit_profile *p = NULL;
    int rc = profkit_profile_read_memory(&p, text, strlen(text), "t", ro, err);
    profkit_profile_free(p);
    return rc;
}

static void read_limits(void **state)
{
    (void)state;
    profkit_read_options ro;
    profkit_error err;
    memset(&ro, 0, sizeof(ro));
    ro.max_depth = 2;
    assert_int_not_equal(read_text("a;b;c 1\n", &ro, &err), 0);
    assert_true(has(&err, "limit of 2 frames (profkit_read_options.max_depth raises it)"));

    memset(&ro, 0, sizeof(ro));
    ro.max_threads = 1;
    const char *two = "{\"shared\":{\"frames\":[{\"name\":\"f\"}]},\"profiles\":["
                      "{\"type\":\"sampled\",\"name\":\"a\",\"unit\":\"none\",\"samples\":[[0]],\"weights\":[1]},"
                      "{\"type\":\"sampled\",\"name\":\"b\",\"unit\":\"none\",\"samples\":[[0]],\"weights\":[1]}]}";
    assert_int_not_equal(read_text(two, &ro, &err), 0);
    assert_true(has(&err, "limit of 1 threads (profkit_read_options.max_threads raises it)"));

    /* a name longer than the limit, over more than one chunk of the input */
    size_t n = 600000;
    char *big = malloc(n + 64);
    assert_non_null(big);
    strcpy(big, "{\"profiles\":[{\"name\":\"");
    size_t at = strlen(big);
    memset(big + at, 'x', n);
    strcpy(big + at + n, "\"}]}");
    memset(&ro, 0, sizeof(ro));
    ro.max_string_size = 1000;
    ro.format = "speedscope";
    assert_int_not_equal(read_text(big, &ro, &err), 0);
    assert_true(has(&err, "longer than the limit of 1000 bytes (profkit_read_options.max_string_size raises it)"));
    free(big);

    assert_int_not_equal(read_text("\x01\x02 not a profile\n", NULL, &err), 0);
    assert_true(has(&err, "; use profkit_read_options.format to name it"));
}

/* gperftools checks the depth of each record itself, as it reads. */
static void gperftools_depth(void **state)
{
    (void)state;
    uint8_t b[8 * 12];
    const uint64_t w[12] = { 0, 3, 0, 10000, 0, 1, 3, 0x10, 0x20, 0x30, 0, 1 };
    for (int i = 0; i < 12; i++)
        pk_put_le64(b + 8 * i, w[i]);
    profkit_read_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.max_depth = 2;
    ro.format = "gperftools";
    profkit_profile *p = NULL;
    profkit_error err;
    assert_int_not_equal(profkit_profile_read_memory(&p, b, sizeof(b), "t", &ro, &err), 0);
    assert_true(has(&err, "limit of 2 frames (profkit_read_options.max_depth raises it)"));
}

static void write_and_filter_options(void **state)
{
    (void)state;
    profkit_profile *p = NULL;
    profkit_error err;
    assert_int_equal(profkit_profile_read_memory(&p, "a;b 1\n", 6, "t", NULL, &err), 0);
    assert_int_not_equal(profkit_profile_write_file(p, "/nonexistent/out.zzz", NULL, &err), 0);
    assert_true(has(&err, "use profkit_write_options.format (one of: "));

    static const char *const names[] = { "focus", "ignore", "hide", "show", "show_from", "prune_from" };
    for (int k = 0; k < 6; k++) {
        profkit_filter_options fo;
        memset(&fo, 0, sizeof(fo));
        const char **f[] = { &fo.focus, &fo.ignore, &fo.hide, &fo.show, &fo.show_from, &fo.prune_from };
        *f[k] = "(";
        assert_int_equal(profkit_profile_filter(p, &fo, &err), PROFKIT_EINVAL);
        char want[64];
        snprintf(want, sizeof(want), "profkit_filter_options.%s: bad regular expression '('", names[k]);
        assert_true(has(&err, want));
    }
    profkit_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(read_limits),
        cmocka_unit_test(gperftools_depth),
        cmocka_unit_test(write_and_filter_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
