#!/usr/bin/env bash
# What bsprof's memory graphs cost `flame` (issue 25; issue 28's target:
# flame within 1.1x top's CPU time and 1.2x its peak memory): `top`,
# `flame` and `flame --markers` (the operations' records too) of the 200 MB
# benchmark input, by one build or two (BASE beside HEAD), each run on one
# core (taskset -c 0), the commands interleaved round by round; CPU time
# (user + sys) and peak RSS from /usr/bin/time, medians, the load average
# (1 min) of each round, and the pages' sizes.
# Usage: bash bench/bsprof_memgraph.sh [ROUNDS] HEAD_PROFKIT [BASE_PROFKIT]
#   e.g. bash bench/bsprof_memgraph.sh 9 build/release/profkit /tmp/base/profkit
# Input: build/bench/compare/bench-200mb.bsprof (bench/targets.sh makes it).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
HEAD=${2:-build/release/profkit}
BASE=${3:-}
BS=build/bench/compare/bench-200mb.bsprof
OUT=build/bench/memgraph
mkdir -p "$OUT"
[ -s "$BS" ] || { echo "bench: no $BS (bench/targets.sh makes it)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time" >&2; exit 1; }
cmds=("top-head|$HEAD top -n 5 -q $BS"
      "flame-head|$HEAD flame -q $BS -o $OUT/head.html"
      "flame-markers-head|$HEAD flame --markers -q $BS -o $OUT/head-markers.html")
if [ -n "$BASE" ]; then
  cmds+=("flame-base|$BASE flame -q $BS -o $OUT/base.html"
         "flame-markers-base|$BASE flame --markers -q $BS -o $OUT/base-markers.html")
fi
log=$OUT/runs.tsv
: > "$log"
for ((r = 1; r <= ROUNDS; r++)); do
  for c in "${cmds[@]}"; do
    name=${c%%|*} cmd=${c#*|}
    load=$(cut -d' ' -f1 /proc/loadavg)
    # shellcheck disable=SC2086 # words without spaces
    /usr/bin/time -f '%U %S %M' -o "$OUT/time" taskset -c 0 $cmd > /dev/null 2> "$OUT/err" ||
      { echo "bench: $name failed: $(head -c 300 "$OUT/err")" >&2; exit 1; }
    read -r u s m < "$OUT/time"
    printf '%s\t%s\t%s\t%s\n' "$name" "$load" "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" "$m" >> "$log"
  done
done
printf '%-20s %8s %9s %8s %9s  %s\n' command "cpu s" "x top" "RSS MB" "x top" "load (1 min)"
awk -F'\t' '
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { n[$1]++; cpu[$1, n[$1]] = $3; rss[$1, n[$1]] = $4; if (!($1 in lo) || $2 < lo[$1]) lo[$1] = $2; if ($2 > hi[$1]) hi[$1] = $2
    if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
  END {
    for (i = 1; i <= k; i++) {
      c = order[i]; delete a; delete b
      for (j = 1; j <= n[c]; j++) { a[j] = cpu[c, j]; b[j] = rss[c, j] }
      mc[c] = median(a, n[c]); mr[c] = median(b, n[c]) / 1024
    }
    for (i = 1; i <= k; i++) {
      c = order[i]
      printf "%-20s %8.2f %8.2fx %8.1f %8.2fx  %s-%s\n", c, mc[c], mc[c] / mc["top-head"], mr[c], mr[c] / mr["top-head"], lo[c], hi[c]
    }
  }' "$log"
ls -l "$OUT"/*.html | awk '{ printf "page %s: %.2f MB\n", $NF, $5 / 1e6 }'
