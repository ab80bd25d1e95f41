#!/usr/bin/env bash
# The profile store (issue 14, docs/store.md): ingestion rate into each
# engine, and `top --where version=X` from the store against `profkit top`
# merging the same files in one process.
#
#   PROFKIT=build/release/profkit bash bench/store.sh
#   STORE_N=500 PROFKIT=build/release/profkit bash bench/store.sh   # a quick run
#
# STORE_N profiles (10,000), STORE_STACKS distinct stacks each (1,000), 50
# hosts, 20 versions (tests/store/gen_folded.py: folded files drawn from
# one call tree of 400 functions, so profiles share most stacks);
# STORE_ENGINES "sqlite clickhouse". ClickHouse is Debian's, started here on
# free 127.0.0.1 ports with a temporary data directory, stopped at the end.
# The inputs are made once by bench/store_inputs.py and kept under
# STORE_CACHE (build/bench-store, ~61 MB per 1,000 profiles), with their
# sizes gzipped at level 6 and at level 9 (the first 1,000 files); delete
# that directory to make them again.
set -euo pipefail
: "${PROFKIT:=build/release/profkit}"
N=${STORE_N:-10000}
STACKS=${STORE_STACKS:-1000}
ENGINES=${STORE_ENGINES:-sqlite clickhouse}
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mktemp -d)
. "$SRC/bench/lib.sh"   # start_clickhouse, stop_clickhouse_and_clean
trap stop_clickhouse_and_clean EXIT

now() { date +%s.%N; }
# the inputs: generated once into STORE_CACHE (build/bench-store) with their
# compressed sizes (bench/store_inputs.py), reused by later runs; linked
# here as $OUT/gen so the paths the store keeps are as long as before
CACHE=${STORE_CACHE:-$SRC/build/bench-store}
echo "inputs: $N profiles of $STACKS stacks (50 hosts, 20 versions), cached under $CACHE..."
t0=$(now)
dir=$(python3 "$SRC/bench/store_inputs.py" "$CACHE" "$SRC/tests/store/gen_folded.py" "$N" "$STACKS" 1)
t1=$(now)
ln -s "$dir" "$OUT/gen"
awk -F'\t' -v d="$OUT/gen/" 'BEGIN { OFS = "\t" } { $1 = d $1; print }' "$dir/labels.tsv" > "$OUT/labels.tsv"
sz() { awk -v k="$1" '$1 == k { print $2 }' "$dir/sizes.txt"; }
bytes=$(sz bytes) rows=$(sz lines) gz6=$(sz gz6) gz9=$(sz gz9) gz9_files=$(sz gz9_files) gz6_of_gz9=$(sz gz6_of_gz9)
# what the store is measured against: each file gzipped on its own, at
# level 6 (gzip's default) for all files, at level 9 (the figures before)
# for the first 1,000: all of them up to 1,000, else scaled to all
if [ "$gz9_files" = "$N" ]; then gz=$gz9 gzhow="level 9"
else gz=$(awk -v a="$gz6" -v b="$gz9" -v c="$gz6_of_gz9" 'BEGIN { printf "%.0f", a * b / c }')
     gzhow="level 9 estimated: level 6 x $gz9/$gz6_of_gz9 (level 9 / 6 of the first $gz9_files files)"
fi
awk -v a="$t0" -v b="$t1" -v n="$N" -v by="$bytes" -v r="$rows" -v g6="$gz6" -v g="$gz" -v h="$gzhow" 'BEGIN {
  printf "%d files, %d MB, %d stack lines; gzipped one by one: level 6 %d bytes, %s %d bytes (ready in %.1f s)\n", n, by / 1e6, r, g6, h, g, b - a }'


for engine in $ENGINES; do
  if [ "$engine" = sqlite ]; then
    DB="$OUT/prof.sqlite"
    count() { sqlite3 "$DB" "SELECT count(*) FROM $1"; }
  else
    start_clickhouse
    DB="clickhouse://127.0.0.1:$CH_HTTP/bench"
    count() { curl -s "http://127.0.0.1:$CH_HTTP/?query=SELECT%20count()%20FROM%20bench.$1"; }
  fi
  echo "== $engine: $DB"
  # one add per (host, version) group: the labels differ; wall and the
  # client's CPU (the machine is shared: CPU is the steadier figure)
  ingest() {
    awk -F'\t' '{ g[$2 "\t" $3] = g[$2 "\t" $3] " " $1 } END { for (k in g) print k "\t" g[k] }' \
      "$OUT/labels.tsv" | while IFS=$'\t' read -r host version files; do
        # shellcheck disable=SC2086
        "$PROFKIT" store add "$DB" -q --label "$host" --label "$version" $files
      done
  }
  TIMEFORMAT='%R %U %S'
  { time ingest; } 2> "$OUT/ingest.time"
  samples=$(count samples)
  read -r wall user sys < "$OUT/ingest.time"
  awk -v n="$N" -v r="$samples" -v w="$wall" -v c="$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" -v e="$engine" 'BEGIN {
    printf "%s ingestion: %d profiles, %d sample rows: %.1f s wall (%.1f profiles/s, %.0f rows/s), profkit CPU %.1f s (%.1f profiles/s, %.0f rows/s)\n",
    e, n, r, w, n / w, r / w, c, n / c, r / c }'
  echo "$engine rows: stacks $(count stacks), frames $(count frames)"
  # the store on disk against the gzipped inputs (ClickHouse: its parts
  # after the merges, OPTIMIZE ... FINAL, as they settle in the background)
  if [ "$engine" = sqlite ]; then
    size=$(stat -c %s "$DB")
  else
    for t in $(curl -s "http://127.0.0.1:$CH_HTTP/?query=SELECT%20name%20FROM%20system.tables%20WHERE%20database%3D%27bench%27"); do
      curl -s "http://127.0.0.1:$CH_HTTP/" --data-binary "OPTIMIZE TABLE bench.$t FINAL" > /dev/null
    done
    size=$(curl -s "http://127.0.0.1:$CH_HTTP/" --data-binary "SELECT sum(bytes_on_disk) FROM system.parts WHERE database = 'bench' AND active")
  fi
  awk -v e="$engine" -v s="$size" -v g="$gz" -v g6="$gz6" 'BEGIN { printf "%s on disk: %d bytes, %.2fx the gzipped inputs (level 9), %.2fx at level 6\n", e, s, s / g, s / g6 }'
  # top over one version: the engine's GROUP BY against merging the files
  mapfile -t files < <(awk -F'\t' '$3 == "version=1.7" { print $1 }' "$OUT/labels.tsv")
  "$PROFKIT" top --db "$DB" --where version=1.7 > "$OUT/top_db.txt"
  "$PROFKIT" top "${files[@]}" > "$OUT/top_files.txt"
  cmp -s "$OUT/top_db.txt" "$OUT/top_files.txt" && echo "same output: yes" || echo "same output: NO"
  # wall and profkit's CPU (on ClickHouse the engine's CPU is the server's)
  for run in 1 2 3; do
    { time "$PROFKIT" top --db "$DB" --where version=1.7 > /dev/null; } 2> "$OUT/q1.time"
    { time "$PROFKIT" top "${files[@]}" > /dev/null; } 2> "$OUT/q2.time"
    read -r w1 u1 s1 < "$OUT/q1.time"
    read -r w2 u2 s2 < "$OUT/q2.time"
    awk -v w1="$w1" -v c1="$(awk -v a="$u1" -v b="$s1" 'BEGIN { print a + b }')" \
        -v w2="$w2" -v c2="$(awk -v a="$u2" -v b="$s2" 'BEGIN { print a + b }')" \
        -v n="${#files[@]}" -v e="$engine" -v r="$run" 'BEGIN {
      printf "%s run %d: top --where version=1.7 (%d profiles): store %.3f s wall / %.3f s CPU, files merged %.3f s wall / %.3f s CPU; wall ratio %.1fx\n",
      e, r, n, w1, c1, w2, c2, w2 / w1 }'
  done
  t0=$(now); "$PROFKIT" tree --db "$DB" --where version=1.7 > /dev/null; t1=$(now)
  awk -v a="$t0" -v b="$t1" -v e="$engine" 'BEGIN { printf "%s: tree --where version=1.7 (aggregated stacks) %.3f s\n", e, b - a }'
  # the other reports over a selection: diff of two versions, trend by version
  t0=$(now); "$PROFKIT" diff --db "$DB" --base-where version=1.6 --new-where version=1.7 > /dev/null; t1=$(now)
  awk -v a="$t0" -v b="$t1" -v e="$engine" 'BEGIN { printf "%s: diff --base-where version=1.6 --new-where version=1.7 %.3f s\n", e, b - a }'
  t0=$(now); "$PROFKIT" trend --db "$DB" --by version > /dev/null; t1=$(now)
  awk -v a="$t0" -v b="$t1" -v e="$engine" -v n="$N" 'BEGIN { printf "%s: trend --by version (%d profiles) %.3f s\n", e, n, b - a }'
  # rm: one profile, then every profile of one version (on ClickHouse the
  # tombstones and the mutations' start; the rows leave in the background)
  for sel in 'file~p00007\.folded$' version=1.3; do
    t0=$(now); "$PROFKIT" store rm "$DB" --where "$sel" > "$OUT/rm.out"; t1=$(now)
    awk -v a="$t0" -v b="$t1" -v e="$engine" -v w="$sel" -v r="$(cat "$OUT/rm.out")" \
      'BEGIN { printf "%s: store rm --where %s (%s) %.3f s\n", e, w, r, b - a }'
  done
  [ "$engine" = sqlite ] && echo "$engine rows after rm: stacks $(count stacks), frames $(count frames), samples $(count samples)"
  if [ "$engine" = clickhouse ]; then stop_clickhouse; fi
done
