/*
 * consumer.c: a program that uses libprofkit through its public API only,
 * as any program would (docs/api.md): it reads the profile FILE (any format
 * profkit reads, gzip or zstd too) and prints its five hottest functions by
 * flat value, the value of the samples whose leaf frame is in the function,
 * of the profile's default value type. Functions of one name are one row,
 * as `profkit top` counts them.
 *
 *   cc consumer.c $(pkg-config --cflags --libs profkit) -o consumer
 *   ./consumer cpu.prof
 *
 * tests/cli/install_consumer.sh builds it against an installed libprofkit,
 * shared and static, and checks it against `profkit top -n 5`.
 */
#include <profkit.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
    const char *name;
    int64_t flat;
    int seen; /* the function is in some sample's stack */
} row;

/* a + b; the values come from the file, so sums saturate instead of
 * overflowing. */
static int64_t add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const row *)a)->name, ((const row *)b)->name);
}

static int by_flat(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->flat != y->flat)
        return x->flat > y->flat ? -1 : 1;
    return strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: consumer FILE\n");
        return 2;
    }
    /* A program linked against the shared library may run with another
     * version of it than the header it was compiled with. */
    if (strcmp(profkit_version(), PROFKIT_VERSION_STRING) != 0)
        fprintf(stderr, "consumer: note: compiled with profkit.h %s, running libprofkit %s\n",
                PROFKIT_VERSION_STRING, profkit_version());

    profkit_profile *p;
    profkit_error err;
    char msg[1024];
    if (profkit_profile_read_file(&p, argv[1], NULL, &err) != 0) {
        fprintf(stderr, "consumer: %s\n", profkit_error_string(msg, sizeof msg, &err));
        return 1;
    }
    size_t n_fn, n_frames, n_stacks, n_types;
    const profkit_function *fn = profkit_profile_functions(p, &n_fn);
    const profkit_frame *frames = profkit_profile_frames(p, &n_frames);
    const profkit_stack *stacks = profkit_profile_stacks(p, &n_stacks);
    const profkit_value_type *types = profkit_profile_value_types(p, &n_types);
    profkit_samples s;
    profkit_profile_samples(p, &s);
    uint32_t v = profkit_profile_default_value(p);
    if (v >= n_types) {
        fprintf(stderr, "consumer: %s: the profile has no value types\n", argv[1]);
        profkit_profile_free(p);
        return 1;
    }

    row *rows = calloc(n_fn ? n_fn : 1, sizeof(row));
    if (!rows) {
        fprintf(stderr, "consumer: out of memory\n");
        profkit_profile_free(p);
        return 1;
    }
    for (size_t f = 0; f < n_fn; f++)
        rows[f].name = profkit_string(p, fn[f].name);
    /* Each sample's value goes to its leaf frame's function; every function
     * on its stack is seen (stack 0 is the empty stack, the root). */
    for (size_t i = 0; i < s.n; i++) {
        int leaf = 1;
        for (uint32_t st = s.stack[i]; st != 0 && st < n_stacks; st = stacks[st].parent, leaf = 0) {
            uint32_t fr = stacks[st].frame;
            if (fr >= n_frames || frames[fr].function >= n_fn)
                continue;
            row *r = &rows[frames[fr].function];
            r->seen = 1;
            if (leaf)
                r->flat = add(r->flat, s.values[i * s.n_values + v]);
        }
    }
    /* One row per name: sort by name and fold equal names together. */
    size_t n = 0;
    for (size_t f = 0; f < n_fn; f++)
        if (rows[f].seen)
            rows[n++] = rows[f];
    qsort(rows, n, sizeof(row), by_name);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && strcmp(rows[k - 1].name, rows[i].name) == 0)
            rows[k - 1].flat = add(rows[k - 1].flat, rows[i].flat);
        else
            rows[k++] = rows[i];
    }
    qsort(rows, k, sizeof(row), by_flat);

    printf("%s (%s): the %zu hottest functions by flat value\n", profkit_string(p, types[v].type),
           profkit_string(p, types[v].unit), k < 5 ? k : (size_t)5);
    for (size_t i = 0; i < k && i < 5; i++)
        printf("%14" PRId64 "  %s\n", rows[i].flat, rows[i].name);
    free(rows);
    profkit_profile_free(p);
    return 0;
}
