#!/usr/bin/env bash
# DCPI benchmark: `profkit top` on a generated DCPI profile of 50 M
# instruction addresses (about 212 MB; issue 5; target: at least 300 MB/s on
# one core). DENSITY (default 1) is the percentage of those addresses with a
# non-zero count: profkit makes one frame per such address, and that, not the
# file size, is what costs (see docs/BENCHMARKS.md). No peer tool reads DCPI
# files on this machine (dcpiprof is Alpha/Tru64 only).
# Usage: PROFKIT=build/release/profkit [DENSITY=1] bash bench/dcpi.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PROFKIT=$(realpath "${PROFKIT:-build/release/profkit}")
OUT=build/bench
mkdir -p "$OUT"
cc -O2 -o "$OUT/gen_dcpi" bench/gen_dcpi.c
IN="$OUT/dcpi-50m.dcpi"
"$OUT/gen_dcpi" "$IN" 50000000 1 --density "${DENSITY:-1}"
trap 'rm -f "$IN"' EXIT
bytes=$(stat -c %s "$IN")
cat "$IN" > /dev/null
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
measure "dcpi top" "$bytes" "$PROFKIT" top "$IN"
measure "dcpi top --by address" "$bytes" "$PROFKIT" top --by address "$IN"
