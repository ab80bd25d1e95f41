/*
 * perf_burn.c: a small CPU-bound program with threads for real perf.data
 * recordings made at test time (tests/cli/perf_data.sh) and for the
 * committed ones (tests/data/perf_data/record.sh). The main thread and
 * two named workers ("burn-a", "burn-b") run call paths of different
 * depth; every function is noinline and ends with a plain return (no call
 * is the last instruction of a function), so the names perf gives return
 * addresses and the names profkit gives them (at address - 1) agree.
 * argv[1] scales the work (default 4000).
 */
#define _GNU_SOURCE
#include <pthread.h>
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
    sink += x;
    return x;
}

__attribute__((noinline)) static uint64_t leaf_a(uint64_t x)
{
    uint64_t r = mix(x, 2000);
    sink += r;
    return r;
}

__attribute__((noinline)) static uint64_t leaf_b(uint64_t x)
{
    uint64_t r = mix(x + 1, 3000);
    sink += r;
    return r;
}

__attribute__((noinline)) static uint64_t middle(uint64_t x, int depth)
{
    uint64_t r = depth > 0 ? middle(x * 3 + 1, depth - 1) + leaf_a(x) : leaf_b(x);
    sink += r;
    return r;
}

static long loops;

__attribute__((noinline)) static void *worker(void *arg)
{
    pthread_setname_np(pthread_self(), (const char *)arg);
    int first = ((const char *)arg)[5] == 'a';
    uint64_t acc = 0;
    for (long i = 0; i < loops; i++)
        acc += first ? leaf_a((uint64_t)i) : middle((uint64_t)i, (int)(i % 3));
    sink += acc;
    return NULL;
}

int main(int argc, char **argv)
{
    loops = argc > 1 ? atol(argv[1]) : 4000;
    static const char a[] = "burn-a", b[] = "burn-b";
    pthread_t t[2];
    if (pthread_create(&t[0], NULL, worker, (void *)a) || pthread_create(&t[1], NULL, worker, (void *)b))
        return 1;
    uint64_t acc = 0;
    for (long i = 0; i < loops; i++)
        acc += middle((uint64_t)i, (int)(i % 4));
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    sink += acc;
    return 0;
}
