#!/usr/bin/env bash
# What matching frees with allocations costs on its own, on a bsprof file
# (default: bench/compare.sh's 200 MB benchmark): the memory operations are
# taken out of the file once (their addresses, sizes and kinds, 16 bytes
# each, in build/bench/floor/), then replayed into the reader's table of
# live allocations (src/formats/bsprof/live_table.c, compiled in) the way
# the reader applies them without memory counters (`profkit mem`): batches
# of 64, each batch's home buckets prefetched, then allocations put and
# frees taken in order. Printed, per memory operation (CPU ns, medians of
# RUNS interleaved rounds, one core):
#   read     reading the operations only (the replay's own cost)
#   table    the replay: what `mem` adds to `top` for matching
#   folded   the same with addresses folded into 4096 values, so the table
#            stays in the L2 cache: the instructions' and branches' share
#   noprefetch  the replay without the prefetching
# and the memory system on its own: one random cache line changed per
# access, prefetched 64 accesses ahead, in 4 MB and 16 MB (the benchmark's
# table is 16 MB), ns per access.
# Usage: RUNS=3 bash bench/bsprof_floor.sh [FILE.bsprof]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
IN=${1:-build/bench/compare/bench-200mb.bsprof}
OUT=build/bench/floor
mkdir -p "$OUT"
[ -s "$IN" ] || { echo "bench: $IN missing (bash bench/targets.sh makes it)" >&2; exit 1; }

cat > "$OUT/ops.c" <<'EOF'
/* The memory operations of a bsprof file: per operation its address and
 * (size << 2 | operation), two little-endian uint64. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static const uint8_t *p, *end;
static uint64_t vi(void)
{
    uint64_t v = 0;
    for (int s = 0; p < end && s < 70; s += 7) {
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80))
            return v;
    }
    fprintf(stderr, "ops: bad varint\n");
    exit(1);
}
int main(int argc, char **argv)
{
    FILE *f = fopen(argv[1], "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0)
        return 1;
    long n = ftell(f);
    uint8_t *d = malloc((size_t)n + 1);
    rewind(f);
    if (!d || fread(d, 1, (size_t)n, f) != (size_t)n || n < 16 || memcmp(d, "bsprof\0\0", 8) != 0)
        return 1;
    p = d + 8, end = d + n;
    vi(), vi(), vi();
    uint64_t hsize = vi();
    p += 8; /* the two sample ratios */
    uint64_t ld = vi();
    if (hsize > (uint64_t)n)
        return 1;
    p = d + hsize;
    FILE *o = fopen(argv[2], "wb");
    uint64_t ops = 0;
    while (p < end) {
        uint64_t tag = vi();
        unsigned t = tag & 7;
        if (tag == 0)
            break;
        if (t == 0) {
            const uint8_t *z = memchr(p, 0, (size_t)(end - p));
            if (!z)
                break;
            p = z + 1;
        } else if (t == 1) {
            vi();
        } else if (t == 2) {
            uint64_t caller = vi();
            if (caller == 0 || ld)
                vi();
            vi(), vi(), vi();
        } else if (t == 3) {
            unsigned op = (tag >> 3) & 3;
            if (ld)
                vi();
            uint64_t r[2] = { vi(), 0 };
            r[1] = (op == 0 ? vi() << 2 : 0) | op;
            fwrite(r, 8, 2, o);
            ops++;
        } else if (t == 4) {
            if (ld)
                vi();
            vi(), vi();
        } else if (t == 5) {
            vi();
        } else {
            fprintf(stderr, "ops: entry type %u\n", t);
            return 1;
        }
    }
    fclose(o);
    printf("%llu memory operations\n", (unsigned long long)ops);
    return 0;
}
EOF

cat > "$OUT/replay.c" <<'EOF'
#include "formats/bsprof/live_table.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}
int main(int argc, char **argv)
{
    int fd = open(argv[1], O_RDONLY);
    const char *mode = argv[2];
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 16)
        return 1;
    size_t n = (size_t)st.st_size / 16;
    const uint64_t *d = mmap(NULL, n * 16, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (d == MAP_FAILED)
        return 1;
    if (!strcmp(mode, "lines")) { /* argv[3]: MB; random lines changed */
        size_t bytes = (size_t)atoi(argv[3]) << 20, lines = bytes / 64, m = 20000000;
        uint8_t *a = calloc(bytes, 1);
        uint32_t *idx = malloc(m * 4);
        uint64_t x = 88172645463325252u;
        for (size_t i = 0; i < m; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            idx[i] = (uint32_t)(x % lines);
        }
        memset(a, 1, bytes);
        double t0 = now();
        for (size_t i = 0; i < m; i++) {
            if (i + 64 < m)
                __builtin_prefetch(a + (size_t)idx[i + 64] * 64, 1);
            a[(size_t)idx[i] * 64]++;
        }
        printf("%.2f\n", (now() - t0) / m);
        return a[0] == 0;
    }
    uint64_t mask = !strcmp(mode, "folded") ? 0xfff0 : ~(uint64_t)0;
    int prefetch = strcmp(mode, "noprefetch") != 0, table = strcmp(mode, "read") != 0;
    pk_live_table t;
    if (pk_live_init(&t) != 0)
        return 1;
    uint64_t unmatched = 0, sum = 0;
    double t0 = now();
    for (size_t i = 0; i < n; i += 64) {
        size_t m = n - i < 64 ? n - i : 64;
        const uint64_t *e = d + 2 * i;
        if (!table) {
            for (size_t k = 0; k < m; k++)
                sum += e[2 * k] ^ e[2 * k + 1];
            continue;
        }
        if (prefetch)
            for (size_t k = 0; k < m; k++)
                __builtin_prefetch(pk_live_home(&t, (e[2 * k] & mask) + 16), 1);
        for (size_t k = 0; k < m; k++) {
            uint64_t addr = (e[2 * k] & mask) + 16, x = e[2 * k + 1];
            if ((x & 3) == 0) {
                if (pk_live_put(&t, addr, x >> 2, (uint32_t)((i + k) & 0xffffff)) != 0)
                    return 1;
            } else {
                unmatched += !pk_live_take(&t, addr);
            }
        }
    }
    double ns = (now() - t0) / n;
    printf("%.2f %zu %zu %llu\n", ns, t.count, t.n_buckets * sizeof(pk_live_bucket) >> 20,
           (unsigned long long)(unmatched + (sum == 1)));
    pk_live_free(&t);
    return 0;
}
EOF

cc -O2 -o "$OUT/ops" "$OUT/ops.c"
cc -O2 -Isrc -Iinclude -o "$OUT/replay" "$OUT/replay.c" src/formats/bsprof/live_table.c src/util/util.c
OPS=$OUT/$(basename "$IN").ops
[ "$OPS" -nt "$IN" ] || "$OUT/ops" "$IN" "$OPS" > /dev/null
n=$(( $(stat -c %s "$OPS") / 16 ))
[ "$n" -gt 0 ] || { echo "$IN: no memory operations"; exit 0; }
echo "$IN: $n memory operations; load: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%H:%M) UTC"
declare -A res
for ((r = 0; r < RUNS; r++)); do
  for m in read table folded noprefetch; do
    out=$(taskset -c 0 "$OUT/replay" "$OPS" $m)
    res[$m]+="${out%% *} "
    [ $m = table ] && info=$out
  done
  for mb in 4 16; do
    res[lines$mb]+="$(taskset -c 0 "$OUT/replay" "$OPS" lines $mb) "
  done
done
med() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
set -- $info
echo "table at the end: $2 live allocations, $3 MB; frees matching nothing: $4"
for m in read table folded noprefetch; do
  printf '%-11s %6s ns/op   (%s)\n' $m "$(echo ${res[$m]} | med)" "${res[$m]% }"
done
for mb in 4 16; do
  printf 'lines %2s MB %6s ns/access (%s)\n' $mb "$(echo ${res[lines$mb]} | med)" "${res[lines$mb]% }"
done
