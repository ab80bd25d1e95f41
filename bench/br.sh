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
. bench/lib.sh
measure "br top" "$bytes" "$PROFKIT" top "$IN"
