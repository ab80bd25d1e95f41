/* inl_lib.c: a shared library of tests/cli/symbols_real.sh's own, with an
 * inlined helper, so shared-library load bias and inlines are checked. */
static inline __attribute__((always_inline)) double lib_inner(double x, int i)
{
    return x * 1.0000001 + (double)(i & 7);
}

__attribute__((noinline)) double lib_spin(long n)
{
    double x = 1;
    for (long i = 0; i < n; i++)
        x = lib_inner(x, (int)i) / 1.0000002;
    return x;
}
