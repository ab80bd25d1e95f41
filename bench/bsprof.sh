#!/usr/bin/env bash
# BrightScript .bsprof: reading a 500 MB memory-heavy profile with
# `profkit mem` and `profkit top`, one core, time and peak memory.
#
# The input comes from bench/bsprof_gen.c: 20 modules, 50 k path elements,
# 1 M CPU entries (each with a call count), line data on, and memory
# operations until the file is 500 MB (10 M of them make only ~120 MB, so
# there are ~45 M). Hot paths follow a power law and most frees hit young
# objects; the live set hovers around 100 k objects while 2% of the
# allocations leak. The file is deleted at the end.
# Usage: PROFKIT=build/release/profkit [CORE=0] bench/bsprof.sh [SIZE_MB]
# (CORE: the core to pin profkit to; pick one the rest of the machine is
# not busy on.)
set -euo pipefail
cd "$(dirname "$0")/.."
PROFKIT=${PROFKIT:-build/release/profkit}
SIZE_MB=${1:-500}
CORE=${CORE:-0}
out=build/bench
mkdir -p "$out"
gen="$out/bsprof_gen"
cc -O2 -o "$gen" bench/bsprof_gen.c
f="$out/bsprof_${SIZE_MB}mb.bsprof"
trap 'rm -f "$f"' EXIT
"$gen" random "$f" modules=20 elements=50000 cpu=1000000 size_mb="$SIZE_MB" lines=1 seed=1
bytes=$(stat -c %s "$f")
cat "$f" > /dev/null # into the page cache: measure profkit, not the disk

run() {
  local what=$1; shift
  # taskset: one core, whatever else the machine runs.
  /usr/bin/time -v taskset -c "$CORE" "$PROFKIT" "$@" -q "$f" > "$out/bsprof_$what.out" 2> "$out/bsprof_$what.time"
  local wall user rss
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/bsprof_$what.time")
  user=$(sed -n 's/.*User time (seconds): //p' "$out/bsprof_$what.time")
  sys=$(sed -n 's/.*System time (seconds): //p' "$out/bsprof_$what.time")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/bsprof_$what.time")
  awk -v w="$what" -v b="$bytes" -v u="$user" -v s="$sys" -v wall="$wall" -v r="$rss" 'BEGIN {
    n = split(wall, p, ":"); t = 0; for (i = 1; i <= n; i++) t = t * 60 + p[i];
    printf "profkit %-5s %7.1f MB in %5.2f s wall (%5.2f s user+sys): %6.1f MB/s wall, %6.1f MB/s cpu; peak RSS %.1f MB\n",
      w, b / 1e6, t, u + s, b / 1e6 / t, b / 1e6 / (u + s), r / 1024 }'
}
run mem mem -n 5
run top top -n 5
run info info

# What the reader has to hold: the live-allocation table (buckets of four
# 16-byte slots, at most 3/8 full, so 43..85 bytes per live allocation) and
# the model.
live=$(sed -n 's/^  inuse_objects  *count  *total \([0-9]*\).*/\1/p' "$out/bsprof_info.out")
rows=$(sed -n 's/^samples: *\([0-9]*\) rows.*/\1/p' "$out/bsprof_info.out")
stacks=$(sed -n 's/^stacks: *\([0-9]*\) distinct.*/\1/p' "$out/bsprof_info.out")
buckets=256; while [ $((buckets * 3 / 2)) -lt "$live" ]; do buckets=$((buckets * 2)); done
echo "live allocations at the end: $live -> live table $buckets buckets = $((buckets * 64 / 1048576)) MB;" \
     "model: $rows sample rows, $stacks stacks"
sed -n '1,12p' "$out/bsprof_mem.out"
