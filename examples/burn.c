/*
 * burn.c: a small CPU-bound program for profkit's demo. `make demo` builds
 * it against gperftools' libprofiler and runs it with CPUPROFILE set, so the
 * demo reads a real profile recorded on the machine it runs on.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t hash_block(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

__attribute__((noinline)) static double math_kernel(int n)
{
    double s = 0;
    for (int i = 1; i < n; i++)
        s += sin(i * 0.001) * cos(i * 0.002) / sqrt((double)i);
    return s;
}

__attribute__((noinline)) static int compare(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

__attribute__((noinline)) static void sort_numbers(uint32_t *v, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = seed;
    }
    qsort(v, n, sizeof(*v), compare);
}

__attribute__((noinline)) static void stage_parse(unsigned char *buf, size_t n, int rounds)
{
    for (int r = 0; r < rounds; r++) {
        memset(buf, r, n);
        sink += hash_block(buf, n);
    }
}

__attribute__((noinline)) static void stage_compute(int rounds)
{
    for (int r = 0; r < rounds; r++)
        sink += (uint64_t)(math_kernel(200000) * 1000);
}

__attribute__((noinline)) static void stage_sort(int rounds)
{
    size_t n = 200000;
    uint32_t *v = malloc(n * sizeof(*v));
    if (!v)
        return;
    for (int r = 0; r < rounds; r++) {
        sort_numbers(v, n, (uint32_t)r);
        sink += v[n / 2];
    }
    free(v);
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 10;
    static unsigned char buf[1 << 20];
    for (int i = 0; i < scale; i++) {
        stage_parse(buf, sizeof(buf), 6);
        stage_compute(4);
        stage_sort(2);
    }
    printf("burn: done (%llu)\n", (unsigned long long)sink);
    return 0;
}
