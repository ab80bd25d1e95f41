#!/usr/bin/env bash
# `profkit flame`: the viewer page of the ~1 GB raw Gecko profile that
# bench/gecko.sh reads (bench/gecko_gen.c: 8 threads, 400 k-node stack
# tables, ~1.1 M samples per thread, markers), against `profkit top` on the
# same file in the same run: CPU time (user+sys), wall time and peak RSS of
# each, best of ROUNDS interleaved runs on one core; the page's and the
# SVG's sizes. Targets (issue 11): flame within 10% of top, page <= 10 MB.
# Usage: PROFKIT=build/release/profkit bench/flame.sh [SIZE_MB] [ROUNDS]
#   FLAME_INPUT=FILE: measure FILE (e.g. a copy this script generated
#   before: gecko_gen OUT 1150 8 1) instead of generating one; SIZE_MB is
#   then unused and FILE is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
PROFKIT=${PROFKIT:-build/release/profkit}
SIZE_MB=${1:-1150}
ROUNDS=${2:-3}
out=build/bench
mkdir -p "$out"
gen="$out/gecko_gen"
cc -O2 -o "$gen" bench/gecko_gen.c
if [ -n "${FLAME_INPUT:-}" ]; then
  f=$FLAME_INPUT
  trap 'rm -f "$out"/flame_page.html "$out"/flame_page.svg' EXIT
else
  f="$out/flame_gecko.json"
  trap 'rm -f "$f" "$out"/flame_page.html "$out"/flame_page.svg' EXIT
  "$gen" "$f" "$SIZE_MB" 8 1
fi
bytes=$(stat -c %s "$f")
cat "$f" > /dev/null # into the page cache: measure profkit, not the disk

# one NAME CMD...: runs CMD on core 0; appends "NAME cpu wall rss_kb" to the log.
one() {
  local name=$1; shift
  /usr/bin/time -v taskset -c 0 "$@" > /dev/null 2> "$out/flame.time"
  awk -F': ' -v n="$name" '/User time|System time/ { c += $2 } /Maximum resident/ { r = $2 }
    /Elapsed/ { k = split($2, p, ":"); t = 0; for (i = 1; i <= k; i++) t = t * 60 + p[i] }
    END { print n, c, t, r }' "$out/flame.time" >> "$out/flame.log"
}
: > "$out/flame.log"
for ((i = 0; i < ROUNDS; i++)); do
  one top "$PROFKIT" top -n 5 -q "$f"
  one flame "$PROFKIT" flame -q "$f" -o "$out/flame_page.html"
done
one svg "$PROFKIT" flame -q "$f" -o "$out/flame_page.svg"
page=$(stat -c %s "$out/flame_page.html")
svg=$(stat -c %s "$out/flame_page.svg")
nodes=$(python3 -c '
import json, re, sys
d = json.loads(re.search(r"id=\"profkit-data\"[^>]*>(.*?)</script", open(sys.argv[1]).read(), re.S).group(1))
print(sum(len(t["tree"]["parent"]) for t in d["threads"]), "nodes in", len(d["threads"]), "trees,",
      sum(len(t.get("samples", {}).get("start", [])) for t in d["threads"]), "runs")' "$out/flame_page.html")
echo "input: $f, $((bytes / 1000000)) MB raw Gecko JSON; best of $ROUNDS interleaved runs, one core"
awk -v b="$bytes" '
  { if (!($1 in cpu) || $2 < cpu[$1]) cpu[$1] = $2; if (!($1 in wall) || $3 < wall[$1]) wall[$1] = $3;
    if ($4 > rss[$1]) rss[$1] = $4 }
  END {
    split("top flame svg", names, " ")
    for (i = 1; i <= 3; i++) { n = names[i]
      printf "profkit %-5s %6.2f s cpu (%5.1f MB/s), %6.2f s wall, peak RSS %6.0f MB\n", n, cpu[n], b / 1e6 / cpu[n], wall[n], rss[n] / 1024 }
    printf "flame / top: %.3f cpu, %.3f wall\n", cpu["flame"] / cpu["top"], wall["flame"] / wall["top"] }' "$out/flame.log"
echo "page: $page bytes ($nodes); svg: $svg bytes"
