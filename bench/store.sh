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
# STORE_ENGINES "sqlite clickhouse"; STORE_GROUP which files one `store
# add` takes (version: every file of a version; host-version: below).
# ClickHouse is Debian's, started here on
# free 127.0.0.1 ports with a temporary data directory, stopped at the end.
# The inputs are made once by bench/store_inputs.py and kept under
# STORE_CACHE (build/bench-store, ~61 MB per 1,000 profiles), with their
# sizes gzipped at level 6 and at level 9 (every file); delete that
# directory to make them again.
#
# The store on disk: SQLite's file (and its -wal, -shm), and ClickHouse's
# whole data directory as a team sees it, `du -sb` (bytes) and `du -sB1`
# (disk blocks): its largest during the ingestion (sampled every
# STORE_DU_EVERY seconds, 5), right after it, once the server has removed
# the parts its merges replaced ("settled": no inactive part left, checked
# every 5 s for STORE_SETTLE seconds at most, 900), and after OPTIMIZE
# ... FINAL and settling again; beside it the active parts of
# system.parts (what the figures before counted).
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
echo "inputs: $N profiles of $STACKS stacks (50 hosts, 20 versions), cached under $CACHE; one store add per ${STORE_GROUP:-version}..."
t0=$(now)
dir=$(python3 "$SRC/bench/store_inputs.py" "$CACHE" "$SRC/tests/store/gen_folded.py" "$N" "$STACKS" 1)
t1=$(now)
ln -s "$dir" "$OUT/gen"
awk -F'\t' -v d="$OUT/gen/" 'BEGIN { OFS = "\t" } { $1 = d $1; print }' "$dir/labels.tsv" > "$OUT/labels.tsv"
sz() { awk -v k="$1" '$1 == k { print $2 }' "$dir/sizes.txt"; }
bytes=$(sz bytes) rows=$(sz lines) gz6=$(sz gz6) gz9=$(sz gz9) gz9_files=$(sz gz9_files)
# what the store is measured against: each file gzipped on its own, at
# level 6 (gzip's default) and at level 9, every file (store_inputs.py)
if [ "$gz9_files" != "$N" ]; then echo "bench/store.sh: $dir/sizes.txt has level 9 of $gz9_files files, not $N" >&2; exit 1; fi
gz=$gz9 gzhow="level 9"
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
  # STORE_GROUP=version (the default): one add per version, its files of
  # every host (N/20 files a call), labelled with the version only: the
  # path of a team's `store add DIR/*.pb.gz --label version=X`, where
  # ClickHouse takes the rows of many files as one INSERT per table
  # (store add --batch, 16M). STORE_GROUP=host-version: one add per
  # (host, version), labelled with both (N/1000 files a call: one at
  # 1,000 profiles), the figures before batching. Wall and the client's
  # CPU (the machine is shared: CPU is the steadier figure).
  ingest() {
    if [ "${STORE_GROUP:-version}" = version ]; then
      awk -F'\t' '{ g[$3] = g[$3] " " $1 } END { for (k in g) print "-\t" k "\t" g[k] }' "$OUT/labels.tsv"
    else
      awk -F'\t' '{ g[$2 "\t" $3] = g[$2 "\t" $3] " " $1 } END { for (k in g) print k "\t" g[k] }' "$OUT/labels.tsv"
    fi | while IFS=$'\t' read -r host version files; do
        local hl=()
        [ "$host" = - ] || hl=(--label "$host")
        # shellcheck disable=SC2086
        "$PROFKIT" store add "$DB" -q "${hl[@]}" --label "$version" $files
      done
  }
  TIMEFORMAT='%R %U %S'
  # the store's directory while it fills: its largest du -sb
  sampler=
  if [ "$engine" = clickhouse ]; then
    : > "$OUT/du.log"
    ( while :; do
        printf '%s %s %s\n' "$(date +%s)" "$(du -sb "$OUT/ch/data" 2> /dev/null | cut -f1)" \
          "$(du -sB1 "$OUT/ch/data" 2> /dev/null | cut -f1)" >> "$OUT/du.log"
        sleep "${STORE_DU_EVERY:-5}"
      done ) &
    sampler=$!
  fi
  { time ingest; } 2> "$OUT/ingest.time"
  if [ -n "$sampler" ]; then kill "$sampler"; wait "$sampler" 2> /dev/null || true; fi
  samples=$(count samples)
  read -r wall user sys < "$OUT/ingest.time"
  awk -v n="$N" -v r="$samples" -v w="$wall" -v c="$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" -v e="$engine" 'BEGIN {
    printf "%s ingestion: %d profiles, %d sample rows: %.1f s wall (%.1f profiles/s, %.0f rows/s), profkit CPU %.1f s (%.1f profiles/s, %.0f rows/s)\n",
    e, n, r, w, n / w, r / w, c, n / c, r / c }'
  echo "$engine rows: stacks $(count stacks), frames $(count frames)"
  # the store on disk against the gzipped inputs
  ratio() { # LABEL BYTES
    awk -v l="$1" -v s="$2" -v g="$gz" -v g6="$gz6" 'BEGIN { printf "%s: %.0f bytes, %.2fx the gzipped inputs (level 9), %.2fx at level 6\n", l, s, s / g, s / g6 }'
  }
  if [ "$engine" = sqlite ]; then
    size=$(stat -c %s "$DB")
    ratio "$engine on disk (the file)" "$size"
    ratio "$engine on disk (du -sb of the file, -wal, -shm)" "$(du -scb "$DB"* | tail -1 | cut -f1)"
  else
    chq() { curl -s "http://127.0.0.1:$CH_HTTP/" --data-binary "$1"; }
    # where the directory's bytes are (a part the server deletes while du
    # walks the directory is left out, without a word): parts active and not,
    # the server's own tables (system.*), the rest (metadata, tmp, ...)
    where() { # WHEN
      local d=$OUT/ch/data
      echo "$engine $1: active parts $(chq "SELECT count(), sum(bytes_on_disk) FROM system.parts WHERE database = 'bench' AND active" | tr '\t' ' ') (count, bytes), inactive $(chq "SELECT count(), sum(bytes_on_disk) FROM system.parts WHERE database = 'bench' AND NOT active" | tr '\t' ' '); part directories $(find "$d/data/bench" -mindepth 2 -maxdepth 2 -type d | wc -l)"
      echo "$engine $1: du -sb data/bench $(du -sb "$d/data/bench" 2> /dev/null | cut -f1), data/system $(du -sb "$d/data/system" | cut -f1), metadata $(du -sb "$d/metadata" | cut -f1), tmp $(du -sb "$OUT/ch/tmp" | cut -f1), logs $(du -scb "$OUT/ch"/*.log | tail -1 | cut -f1); the server's log tables: $(chq "SELECT name FROM system.tables WHERE database = 'system' AND engine NOT LIKE 'System%'" | paste -sd, -)"
      ratio "$engine directory $1 (du -sb)" "$(du -sb "$d" 2> /dev/null | cut -f1)"
      ratio "$engine directory $1 (du -sB1, disk blocks)" "$(du -sB1 "$d" 2> /dev/null | cut -f1)"
    }
    settle() { # waits until no inactive part is left; prints how long
      local t0 t waited
      t0=$(date +%s)
      for _ in $(seq 1 $(( ${STORE_SETTLE:-900} / 5 ))); do
        [ "$(chq "SELECT count() FROM system.parts WHERE database = 'bench' AND NOT active")" = 0 ] && break
        sleep 5
      done
      t=$(date +%s); waited=$(( t - t0 ))
      echo "$engine: settled $waited s after $2 (inactive parts left: $(chq "SELECT count() FROM system.parts WHERE database = 'bench' AND NOT active"); load average $(cut -d' ' -f1-3 /proc/loadavg))"
      where "$1"
    }
    # (%.0f: mawk's %d stops at 2^31 - 1)
    awk 'NR == 1 { t0 = $1 } $2 > m { m = $2; at = $1 - t0 } $3 > b { b = $3 } END {
      printf "%.0f %.0f %d %d\n", m, b, at, NR }' "$OUT/du.log" > "$OUT/du.max"
    read -r dmax bmax dat dn < "$OUT/du.max"
    ratio "$engine directory during the ingestion, largest of $dn samples ($dat s in; du -sb)" "$dmax"
    ratio "$engine directory during the ingestion, largest (du -sB1, disk blocks)" "$bmax"
    where "right after the ingestion"
    settle "settled after the ingestion" "the ingestion"
    # the figure the runs before gave: the active parts after OPTIMIZE ... FINAL
    for t in $(chq "SELECT name FROM system.tables WHERE database = 'bench'"); do
      chq "OPTIMIZE TABLE bench.$t FINAL" > /dev/null
    done
    size=$(chq "SELECT sum(bytes_on_disk) FROM system.parts WHERE database = 'bench' AND active")
    ratio "$engine on disk (active parts after OPTIMIZE ... FINAL)" "$size"
    settle "settled after OPTIMIZE FINAL" "OPTIMIZE ... FINAL"
  fi
  # top over one version: the engine's GROUP BY against merging the files
  mapfile -t files < <(awk -F'\t' '$3 == "version=1.7" { print $1 }' "$OUT/labels.tsv")
  "$PROFKIT" top --db "$DB" --where version=1.7 > "$OUT/top_db.txt"
  "$PROFKIT" top "${files[@]}" > "$OUT/top_files.txt"
  cmp -s "$OUT/top_db.txt" "$OUT/top_files.txt" && echo "same output: yes" || echo "same output: NO"
  # wall and profkit's CPU (on ClickHouse the engine's CPU is the server's:
  # its user+sys ticks in /proc, before and after the query, printed too)
  srv_ticks() { if [ "$engine" = clickhouse ]; then awk '{ print $14 + $15 }' "/proc/$chpid/stat"; else echo 0; fi; }
  for run in 1 2 3; do
    k0=$(srv_ticks)
    { time "$PROFKIT" top --db "$DB" --where version=1.7 > /dev/null; } 2> "$OUT/q1.time"
    k1=$(srv_ticks)
    [ "$engine" = clickhouse ] && awk -v k="$((k1 - k0))" -v hz="$(getconf CLK_TCK)" -v r="$run" \
      'BEGIN { printf "clickhouse run %d: top --where version=1.7: the server %.2f s CPU\n", r, k / hz }'
    { time "$PROFKIT" top "${files[@]}" > /dev/null; } 2> "$OUT/q2.time"
    read -r w1 u1 s1 < "$OUT/q1.time"
    read -r w2 u2 s2 < "$OUT/q2.time"
    awk -v w1="$w1" -v c1="$(awk -v a="$u1" -v b="$s1" 'BEGIN { print a + b }')" \
        -v w2="$w2" -v c2="$(awk -v a="$u2" -v b="$s2" 'BEGIN { print a + b }')" \
        -v n="${#files[@]}" -v e="$engine" -v r="$run" 'BEGIN {
      printf "%s run %d: top --where version=1.7 (%d profiles): store %.3f s wall / %.3f s CPU, files merged %.3f s wall / %.3f s CPU; wall ratio %.1fx\n",
      e, r, n, w1, c1, w2, c2, w2 / w1 }'
  done
  k0=$(srv_ticks)
  t0=$(now); "$PROFKIT" tree --db "$DB" --where version=1.7 > /dev/null; t1=$(now)
  k1=$(srv_ticks)
  awk -v a="$t0" -v b="$t1" -v e="$engine" 'BEGIN { printf "%s: tree --where version=1.7 (aggregated stacks) %.3f s\n", e, b - a }'
  [ "$engine" = clickhouse ] && echo "clickhouse: tree --where version=1.7: the server $(awk -v k="$((k1 - k0))" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", k / hz }') s CPU"
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
