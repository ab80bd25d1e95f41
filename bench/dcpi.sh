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
. bench/lib.sh
measure "dcpi top" "$bytes" "$PROFKIT" top "$IN"
measure "dcpi top --by address" "$bytes" "$PROFKIT" top --by address "$IN"
