#!/usr/bin/env bash
# Profiles pushed over HTTP into a store (`profkit store serve`,
# docs/store.md "Pushing profiles"): profiles per second and the latency of
# one push (p50, p99) with INGEST_CLIENTS concurrent curl clients, beside
# `profkit store add` of the same files in one process.
#
#   PROFKIT=build/release/profkit bash bench/store_ingest.sh
#   INGEST_N=500 INGEST_CLIENTS=16 PROFKIT=build/release/profkit bash bench/store_ingest.sh
#
# INGEST_N profiles (1,000) of INGEST_STACKS distinct stacks each (1,000;
# tests/store/gen_folded.py, as bench/store.sh), pushed as folded bodies
# (name=app{host=...,version=...}), one curl process a push;
# INGEST_ENGINES "sqlite clickhouse" (ClickHouse is Debian's, started here
# as bench/store.sh does).
set -euo pipefail
: "${PROFKIT:=build/release/profkit}"
N=${INGEST_N:-1000}
STACKS=${INGEST_STACKS:-1000}
CLIENTS=${INGEST_CLIENTS:-8}
ENGINES=${INGEST_ENGINES:-sqlite clickhouse}
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mktemp -d)
. "$SRC/bench/lib.sh"   # start_clickhouse, stop_clickhouse_and_clean
serve_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2> /dev/null && wait "$serve_pid" 2> /dev/null
  stop_clickhouse_and_clean
}
trap cleanup EXIT

echo "generating $N profiles of $STACKS stacks..."
python3 "$SRC/tests/store/gen_folded.py" "$OUT/gen" "$N" "$STACKS" 1
echo "$N files, $(($(du -sb "$OUT/gen" | cut -f1) / 1000000)) MB; $CLIENTS concurrent clients"

for engine in $ENGINES; do
  if [ "$engine" = sqlite ]; then
    DB="$OUT/push.sqlite"; ADDDB="$OUT/add.sqlite"
  else
    start_clickhouse
    DB="clickhouse://127.0.0.1:$CH_HTTP/push"; ADDDB="clickhouse://127.0.0.1:$CH_HTTP/add"
  fi
  echo "== $engine"
  # store add of the same files, one process
  TIMEFORMAT='%R %U %S'
  # shellcheck disable=SC2046
  { time "$PROFKIT" store add "$ADDDB" -q $(cut -f1 "$OUT/gen/labels.tsv"); } 2> "$OUT/add.time"
  read -r w u s < "$OUT/add.time"
  awk -v n="$N" -v w="$w" -v c="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" -v e="$engine" \
    'BEGIN { printf "%s store add (one process): %d profiles in %.2f s, %.1f profiles/s; profkit CPU %.2f s (%.1f profiles per CPU second)\n", e, n, w, n / w, c, n / c }'
  # store serve, pushed by CLIENTS curl processes at a time
  "$PROFKIT" store serve "$DB" --listen 127.0.0.1:0 -q > "$OUT/serve.out" 2>&1 &
  serve_pid=$!
  for _ in $(seq 1 100); do grep -q '^Serving' "$OUT/serve.out" && break; sleep 0.1; done
  url=$(sed -n 's/^ingest: //p' "$OUT/serve.out")
  token=$(sed -n 's/^token: *//p' "$OUT/serve.out")
  awk -F'\t' '{ sub(/^host=/, "", $2); sub(/^version=/, "", $3); print $1 "\t" $2 "\t" $3 }' "$OUT/gen/labels.tsv" > "$OUT/jobs"
  export url token
  t0=$(date +%s.%N)
  # one line per push: status and seconds
  tr '\t' ' ' < "$OUT/jobs" | xargs -P "$CLIENTS" -L 1 sh -c \
    'curl -s -o /dev/null -w "%{http_code} %{time_total}\n" -H "Authorization: Bearer $token" --data-binary @"$0" "$url?name=app%7Bhost%3D$1%2Cversion%3D$2%7D&format=folded"' \
    > "$OUT/latency"
  t1=$(date +%s.%N)
  # the server's CPU (user + system, all its threads), from /proc
  cpu=$(awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$serve_pid/stat")
  kill "$serve_pid"; wait "$serve_pid" 2> /dev/null || true; serve_pid=
  ok=$(awk '$1 == 200' "$OUT/latency" | wc -l)
  [ "$ok" = "$N" ] || echo "NOT ALL STORED: $ok of $N pushes answered 200"
  sort -k2 -g "$OUT/latency" | awk -v n="$N" -v a="$t0" -v b="$t1" -v c="$CLIENTS" -v e="$engine" -v cpu="$cpu" '
    { t[NR] = $2 }
    END { p50 = t[int(NR * 0.50 + 0.5)]; p99 = t[int(NR * 0.99 + 0.5)]
          printf "%s store serve: %d pushes, %d clients, %.2f s: %.1f profiles/s; latency p50 %.3f s, p99 %.3f s, max %.3f s; server CPU %.2f s (%.1f profiles per CPU second)\n",
                 e, n, c, b - a, n / (b - a), p50, p99, t[NR], cpu, n / cpu }'
  echo "load average while it ran: $(cut -d' ' -f1-3 /proc/loadavg)"
  # the pushed store answers as the added one
  "$PROFKIT" top --db "$DB" > "$OUT/top_push"
  "$PROFKIT" top --db "$ADDDB" > "$OUT/top_add"
  cmp -s "$OUT/top_push" "$OUT/top_add" && echo "same top as store add: yes" || echo "same top as store add: NO"
  if [ "$engine" = clickhouse ]; then stop_clickhouse; fi
done
