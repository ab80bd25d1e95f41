#!/usr/bin/env bash
# The store's size on disk against the compressed size of the real profiles
# it holds (issue 29: "at most 3x the compressed size of the profiles it
# holds, in both engines, measured on real agent profiles").
#
#   PROFKIT=build/release/profkit bash bench/store_sizes.sh DIR|FILE...
#   STORE_ENGINES=sqlite bash bench/store_sizes.sh DIR   # SQLite alone
#
# Without an argument (as bench/run.sh runs it): the real pprof and
# gperftools profiles of ../shared/fixtures (pprof/ and gperftools-real/).
# Every regular file of each DIR (not its subdirectories) and each FILE is
# added, one `store add` per file, into a fresh SQLite store and a fresh
# ClickHouse store (Debian's clickhouse-server, started here on free
# 127.0.0.1 ports by bench/lib.sh's start_clickhouse, as bench/store.sh
# does). A file profkit cannot read, or whose content is already in the
# store (the same profile twice: it is not added again), is named and left
# out of the inputs' figures, so the inputs are what the store holds.
#
# Printed: the inputs' bytes as they are; their contents (a gzipped file
# decompressed) gzipped one by one at level 9, the figure the ratios are
# against, and the files as they are gzipped at level 9 (an input that is
# already gzip hardly shrinks again); per engine the store on disk and its
# ratio to those, then where the bytes are, per table:
#   SQLite: the file (with -wal and -shm) and each table's and index's pages
#     (its dbstat table, when sqlite3 has it);
#   ClickHouse: the data directory, du -sb, once settled (no inactive part
#     left, as bench/store.sh waits for it); the same directory of the
#     server before the store was made (what every server has, whatever it
#     holds); how much of the growth is the new directories' own entries
#     (du -sb counts 4096 bytes for each; a part is a directory); the
#     store's own active parts (system.parts) per table.
set -euo pipefail
: "${PROFKIT:=build/release/profkit}"
ENGINES=${STORE_ENGINES:-sqlite clickhouse}
SRC=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
if [ $# -eq 0 ]; then # (bench/run.sh): the real pprof profiles of ../shared
  F=$SRC/../shared/fixtures
  set -- "$F/pprof/cppbench.cpu" "$F/pprof/cppbench.pb.gz" "$F/pprof/go.crc32.cpu" "$F/pprof/gobench.cpu" \
    "$F/gperftools-real/real1.prof" "$F/gperftools-real/real1.pprof.pb.gz" "$F/gperftools-real/gzip.prof"
  if [ ! -e "$1" ]; then
    echo "bench/store_sizes.sh: no DIR or FILE given and $F is absent: nothing measured (--help)"
    exit 0
  fi
fi
OUT=$(mktemp -d)
. "$SRC/bench/lib.sh"   # start_clickhouse, stop_clickhouse_and_clean
trap stop_clickhouse_and_clean EXIT

files=()
for a in "$@"; do
  if [ -d "$a" ]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$a" -maxdepth 1 -type f | LC_ALL=C sort)
  elif [ -f "$a" ]; then
    files+=("$a")
  else
    echo "bench/store_sizes.sh: $a: no such file or directory" >&2
    exit 2
  fi
done

# which files the store takes: each added alone to a scratch SQLite store
kept=()
for f in "${files[@]}"; do
  if "$PROFKIT" store add "$OUT/scratch.sqlite" "$f" > "$OUT/add.out" 2> "$OUT/add.err"; then
    if grep -q '^added ' "$OUT/add.out"; then
      kept+=("$f")
    else
      echo "left out (the same profile as a file before it): $f: $(head -1 "$OUT/add.err")"
    fi
  else
    echo "left out (profkit cannot read it): $f: $(head -1 "$OUT/add.err")"
  fi
done
[ ${#kept[@]} -gt 0 ] || { echo "bench/store_sizes.sh: no file the store takes" >&2; exit 1; }

bytes=0 gz=0 gzas=0
for f in "${kept[@]}"; do
  b=$(stat -c %s "$f")
  # the content: a gzipped file decompressed (pprof's usual .pb.gz)
  if [ "$(head -c 2 "$f" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
    g=$(gzip -dc "$f" | gzip -9 -c | wc -c)
  else
    g=$(gzip -9 -c "$f" | wc -c)
  fi
  a=$(gzip -9 -c "$f" | wc -c)
  bytes=$((bytes + b)) gz=$((gz + g)) gzas=$((gzas + a))
done
echo "inputs: ${#kept[@]} profiles of ${#files[@]} files, $bytes bytes as they are; gzipped one by one at level 9: contents $gz bytes, files as they are $gzas bytes"

ratio() { # LABEL BYTES
  awk -v l="$1" -v s="$2" -v g="$gz" -v b="$bytes" \
    'BEGIN { printf "%s: %.0f bytes, %.2fx the contents gzipped (level 9), %.2fx the inputs as they are\n", l, s, s / g, s / b }'
}

for engine in $ENGINES; do
  if [ "$engine" = sqlite ]; then
    DB="$OUT/sizes.sqlite"
  else
    start_clickhouse
    chq() { curl -s "http://127.0.0.1:$CH_HTTP/" --data-binary "$1"; }
    [ "$(chq 'SELECT 1')" = 1 ] || { echo "clickhouse: the server did not start: $(tail -3 "$OUT/ch/stdout" "$OUT/ch/error.log" 2> /dev/null)"; continue; }
    d=$OUT/ch/data
    base=$(du -sb "$d" | cut -f1)
    find "$d" -type d -printf '%s\n' | awk '{ n++; s += $1 } END { print n, s }' > "$OUT/dirs.before"
    DB="clickhouse://127.0.0.1:$CH_HTTP/sizes"
  fi
  echo "== $engine: $DB"
  for f in "${kept[@]}"; do
    "$PROFKIT" store add "$DB" -q "$f"
  done
  n=$("$PROFKIT" store ls "$DB" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')
  [ "$n" = "${#kept[@]}" ] || echo "$engine: the store holds $n profiles, not ${#kept[@]}"
  if [ "$engine" = sqlite ]; then
    ratio "sqlite on disk (the file)" "$(stat -c %s "$DB")"
    ratio "sqlite on disk (du -sb of the file, -wal, -shm)" "$(du -scb "$DB"* | tail -1 | cut -f1)"
    if sqlite3 "$DB" "SELECT 1 FROM dbstat LIMIT 1" > /dev/null 2>&1; then
      echo "sqlite per table and index (dbstat, bytes of pages):"
      sqlite3 -separator ' ' "$DB" "SELECT name, sum(pgsize), sum(payload) FROM dbstat GROUP BY name ORDER BY 2 DESC" |
        awk '{ printf "  %-28s %10d bytes (%d of payload)\n", $1, $2, $3 }'
    fi
  else
    t0=$(date +%s)
    for _ in $(seq 1 $(( ${STORE_SETTLE:-900} / 5 ))); do
      [ "$(chq "SELECT count() FROM system.parts WHERE database = 'sizes' AND NOT active")" = 0 ] && break
      sleep 5
    done
    echo "clickhouse: settled $(( $(date +%s) - t0 )) s after the adds (inactive parts left: $(chq "SELECT count() FROM system.parts WHERE database = 'sizes' AND NOT active"))"
    all=$(du -sb "$d" | cut -f1)
    ratio "clickhouse data directory, settled (du -sb)" "$all"
    ratio "clickhouse data directory before the store was made (du -sb)" "$base"
    ratio "clickhouse data directory, settled, less the one before (du -sb)" "$((all - base))"
    # du -sb counts each directory's own size (a part is a directory, a
    # table has its own and a detached/ one)
    read -r ndirs dbytes < <(find "$d" -type d -printf '%s\n' | awk '{ n++; s += $1 } END { print n, s }')
    read -r ndirs0 dbytes0 < "$OUT/dirs.before"
    echo "clickhouse: of the data directory's growth, $((ndirs - ndirs0)) new directories' own entries (du -sb counts each): $((dbytes - dbytes0)) bytes"
    parts=$(chq "SELECT sum(bytes_on_disk) FROM system.parts WHERE database = 'sizes' AND active")
    ratio "clickhouse the store's active parts (system.parts)" "$parts"
    echo "clickhouse per table (active parts: count, bytes on disk, rows; compressed and uncompressed bytes of the columns):"
    chq "SELECT table, count(), sum(bytes_on_disk), sum(rows), sum(data_compressed_bytes), sum(data_uncompressed_bytes) FROM system.parts WHERE database = 'sizes' AND active GROUP BY table ORDER BY sum(bytes_on_disk) DESC" |
      awk -F'\t' '{ printf "  %-18s %4d parts %10d bytes %9d rows (columns %d compressed, %d uncompressed)\n", $1, $2, $3, $4, $5, $6 }'
    stop_clickhouse
  fi
done
