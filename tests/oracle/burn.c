/*
 * burn.c: a small CPU-bound program for real gperftools profiles made at
 * test time (tests/cli/gperftools_real.sh). Built with -lprofiler and run
 * with CPUPROFILE=FILE; three call paths of different depth so the profile
 * has distinct stacks, and a volatile sink so nothing is optimised away.
 */
#include <stdint.h>
#include <stdlib.h>

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t mix(uint64_t x, int rounds)
{
    for (int i = 0; i < rounds; i++) {
        x ^= x >> 31;
        x *= 0x9e3779b97f4a7c15ULL;
        x ^= x >> 29;
    }
    return x;
}

__attribute__((noinline)) static uint64_t leaf_a(uint64_t x) { return mix(x, 2000); }
__attribute__((noinline)) static uint64_t leaf_b(uint64_t x) { return mix(x + 1, 3000); }

__attribute__((noinline)) static uint64_t middle(uint64_t x, int depth)
{
    if (depth > 0)
        return middle(x * 3 + 1, depth - 1) + leaf_a(x);
    return leaf_b(x);
}

int main(int argc, char **argv)
{
    /* Default about 0.4 s of CPU; argv[1] scales it. */
    long loops = argc > 1 ? atol(argv[1]) : 30000;
    uint64_t acc = 0;
    for (long i = 0; i < loops; i++) {
        acc += leaf_a((uint64_t)i);
        acc += middle((uint64_t)i, (int)(i % 4));
        acc += mix(acc, 500);
    }
    sink = acc;
    return 0;
}
