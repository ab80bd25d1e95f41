#!/usr/bin/env bash
# Stacks in the store as parent/frame pairs (as built) or as arrays of frame
# ids (issue 14: "choose on measurements"; docs/store.md, docs/BENCHMARKS.md).
# Fills a SQLite store and a ClickHouse one with `profkit store add` from the
# same generated profiles (tests/store/gen_folded.py), then
# bench/store_stacks.py builds the array form from the pairs and compares,
# in each engine: storage, writing every profile's rows, top's GROUP BYs
# (stack_keys and leaf_key against json_each / ARRAY JOIN) and reading the
# aggregated stacks of a tree (level by level against one query).
#
#   STORE_N=1000 PROFKIT=build/release/profkit bash bench/store_stacks.sh
#
# STORE_N profiles (1,000), STORE_STACKS stacks each (1,000); STORE_DEEP=40:
# stacks of 20 to 40 frames down one call tree, sharing long prefixes
# (gen_folded.py's DEEP; default: 2 to 16 frames, few shared); STORE_ENGINES
# "sqlite clickhouse" (SQLite always: the array form is built from it).
# ClickHouse is Debian's, started here on free 127.0.0.1 ports with a
# temporary data directory, stopped at the end.
set -euo pipefail
: "${PROFKIT:=build/release/profkit}"
N=${STORE_N:-1000}
STACKS=${STORE_STACKS:-1000}
ENGINES=${STORE_ENGINES:-sqlite clickhouse}
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mktemp -d)
chpid=
cleanup() {
  if [ -n "$chpid" ]; then kill "$chpid" 2> /dev/null || true; wait "$chpid" 2> /dev/null || true; fi
  rm -rf "$OUT"
}
trap cleanup EXIT

start_clickhouse() {
  local http tcp dir="$OUT/ch"
  http=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  tcp=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$dir/data" "$dir/tmp"
  cp /etc/clickhouse-server/users.xml "$dir/users.xml"
  cat > "$dir/config.xml" << XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$dir/server.log</log><errorlog>$dir/error.log</errorlog><console>0</console></logger>
  <http_port>$http</http_port><tcp_port>$tcp</tcp_port><listen_host>127.0.0.1</listen_host>
  <path>$dir/data/</path><tmp_path>$dir/tmp/</tmp_path><users_config>$dir/users.xml</users_config>
  <default_profile>default</default_profile><default_database>default</default_database>
  <mark_cache_size>536870912</mark_cache_size>
</yandex>
XML
  /usr/sbin/clickhouse-server --config-file="$dir/config.xml" > "$dir/stdout" 2>&1 &
  chpid=$!
  for _ in $(seq 1 150); do
    [ "$(curl -s "http://127.0.0.1:$http/?query=SELECT%201")" = 1 ] && break
    sleep 0.2
  done
  CH_HTTP=$http
}

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
