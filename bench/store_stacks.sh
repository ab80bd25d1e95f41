#!/usr/bin/env bash
# Stacks in the store as arrays of frame ids (as built) or as parent/frame
# pairs (the form before; issue 14: "choose on measurements"; docs/store.md,
# docs/BENCHMARKS.md). Fills a SQLite store and a ClickHouse one with
# `profkit store add` from the same generated profiles
# (tests/store/gen_folded.py), then bench/store_stacks.py builds the pair
# form from the arrays and compares,
# in each engine: storage, writing every profile's rows, top's GROUP BYs
# (stack_keys and leaf_key against json_each / ARRAY JOIN) and reading the
# aggregated stacks of a tree (level by level against one query).
#
#   STORE_N=1000 PROFKIT=build/release/profkit bash bench/store_stacks.sh
#
# STORE_N profiles (1,000), STORE_STACKS stacks each (1,000); STORE_DEEP=40:
# stacks of 20 to 40 frames down one call tree, sharing long prefixes
# (gen_folded.py's DEEP; default: 2 to 16 frames, few shared); STORE_ENGINES
# "sqlite clickhouse" (SQLite always: the pair form is built from it).
# ClickHouse is Debian's, started here on free 127.0.0.1 ports with a
# temporary data directory, stopped at the end.
set -euo pipefail
: "${PROFKIT:=build/release/profkit}"
N=${STORE_N:-1000}
STACKS=${STORE_STACKS:-1000}
ENGINES=${STORE_ENGINES:-sqlite clickhouse}
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mktemp -d)
. "$SRC/bench/lib.sh"   # start_clickhouse, stop_clickhouse_and_clean
trap stop_clickhouse_and_clean EXIT


echo "generating $N profiles of $STACKS stacks (50 hosts, 20 versions)..."
python3 "$SRC/tests/store/gen_folded.py" "$OUT/gen" "$N" "$STACKS" 1 400 "${STORE_DEEP:-0}"
# one add per (host, version) group, as bench/store.sh
ingest() {
  awk -F'\t' '{ g[$2 "\t" $3] = g[$2 "\t" $3] " " $1 } END { for (k in g) print k "\t" g[k] }' \
    "$OUT/gen/labels.tsv" | while IFS=$'\t' read -r host version files; do
      # shellcheck disable=SC2086
      "$PROFKIT" store add "$1" -q --label "$host" --label "$version" $files
    done
}
ingest "$OUT/prof.sqlite"
args=("$OUT/prof.sqlite" "$OUT")
if [[ " $ENGINES " == *" clickhouse "* ]]; then
  start_clickhouse
  ingest "clickhouse://127.0.0.1:$CH_HTTP/bench"
  args+=("http://127.0.0.1:$CH_HTTP" bench)
fi
python3 "$SRC/bench/store_stacks.py" "${args[@]}"
