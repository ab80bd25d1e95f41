#!/usr/bin/env bash
# BR benchmark: `profkit top` on a generated 200 MB timed BR stream (issue 5;
# target: at least 300 MB/s on one core). There is no peer tool that reads
# BR records on this machine, so only profkit's own figures are printed.
# Usage: PROFKIT=build/release/profkit bash bench/br.sh   (or via bench/run.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
PROFKIT=$(realpath "${PROFKIT:-build/release/profkit}")
OUT=build/bench
mkdir -p "$OUT"
cc -O2 -o "$OUT/gen_br" bench/gen_br.c
IN="$OUT/br-200m.brprof"
"$OUT/gen_br" "$IN" 200000000 1 --timed --distinct 5000
trap 'rm -f "$IN"' EXIT
bytes=$(stat -c %s "$IN")
cat "$IN" > /dev/null # page cache warm: measure parsing, not the disk
# Runs CMD three times under /usr/bin/time -v; prints the best run: wall and
# user+sys CPU time, throughput over each, peak RSS.
# measure LABEL BYTES CMD...
measure() {
  local label=$1 bytes=$2; shift 2
  local best="" t
  for _ in 1 2 3; do
    /usr/bin/time -v "$@" > /dev/null 2> "$OUT/time.txt"
    t=$(awk -F': ' '/Elapsed/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}
                    /User time/ {u = $2} /System time/ {y = $2}
                    /Maximum resident/ {print u + y, $2}' "$OUT/time.txt" | paste -sd' ')
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN {split(a, x, " "); split(b, y, " "); exit !(x[1] < y[1])}'; then
      best=$t
    fi
  done
  echo "$best" | awk -v l="$label" -v b="$bytes" '{
    printf "%s: %.1f MB in %.2f s wall (%.0f MB/s), %.2f s CPU (%.0f MB/s), peak RSS %.0f MB\n",
           l, b / 1e6, $1, b / 1e6 / $1, $2, b / 1e6 / $2, $3 / 1024 }'
}
measure "br top" "$bytes" "$PROFKIT" top "$IN"
