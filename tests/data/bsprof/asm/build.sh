#!/usr/bin/env bash
# Assembles every NAME.txt here into ../NAME.bsprof with bench/bsprof_gen.c.
# Usage: build.sh [OUTDIR]  (default: the data directory itself)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/..}
gen=$(mktemp -d)
trap 'rm -rf "$gen"' EXIT
cc -O1 -o "$gen/bsprof_gen" "$here/../../../../bench/bsprof_gen.c"
for t in "$here"/*.txt; do
  "$gen/bsprof_gen" asm "$t" "$out/$(basename "$t" .txt).bsprof"
done
