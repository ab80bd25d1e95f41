/* inl_main.c: a program for tests/cli/symbols_real.sh, built with -g -O2:
 * mix() is inlined into step(), step() into hot(), so one address stands
 * for three calls; lib_spin() is in a shared library (inl_lib.c). */
#include <stdio.h>
#include <stdlib.h>

double lib_spin(long n);

static inline __attribute__((always_inline)) double mix(double x, long i)
{
    return x * 0.999999 + (double)(i % 13);
}

static inline __attribute__((always_inline)) double step(double x, long i)
{
    return mix(x, i) + mix(x, i + 1) * 1e-9;
}

__attribute__((noinline)) double hot(long n)
{
    double x = 0;
    for (long i = 0; i < n; i++)
        x = step(x, i);
    return x;
}

__attribute__((noinline)) double warm(long n)
{
    double x = 0;
    for (long i = 0; i < n; i++)
        x += (double)(i ^ (i >> 3)) * 1e-9;
    return x;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100;
    double s = 0;
    for (int r = 0; r < 20; r++) {
        s += hot(n * 3000 + r); /* + r: not hoisted out of the loop */
        s += warm(n * 2000 + r);
        s += lib_spin(n * 700);
    }
    printf("%g\n", s);
    return 0;
}
