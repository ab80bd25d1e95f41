#!/usr/bin/env bash
# The ClickHouse store's size (issue 29; docs/store.md, "Size on
# ClickHouse"): schema 2's tables ordered so that like rows are neighbours,
# a small table's parts merged into one after each add, the real fixtures'
# store under a bound from their contents gzipped at level 9, the same
# `top` as their files, and a database of schema 1 refused with no table
# made. One node, started as bench/lib.sh starts it (zstd parts).
. "$(dirname "$0")/lib.sh"
need_shared
need_clickhouse
# the real profiles bench/store_sizes.sh measures by default, one add each
files=("$FIX/pprof/cppbench.cpu" "$FIX/pprof/cppbench.pb.gz" "$FIX/pprof/go.crc32.cpu" "$FIX/pprof/gobench.cpu"
  "$FIX/gperftools-real/real1.prof" "$FIX/gperftools-real/real1.pprof.pb.gz" "$FIX/gperftools-real/gzip.prof")
gz=0
for f in "${files[@]}"; do
  "$PROFKIT" store add "$DB" -q "$f" 2> "$TMP/err" || fail "store add $f: $(cat "$TMP/err")"
  if [ "$(head -c 2 "$f" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
    g=$(gzip -dc "$f" | gzip -9 -c | wc -c)
  else
    g=$(gzip -9 -c "$f" | wc -c)
  fi
  gz=$((gz + g))
done
expect_eq "7 profiles added" 7 "$(q 'SELECT count() FROM prof.profiles')"

# schema 2: the sorting keys
for tk in "stacks:frames, id" "frames:mapping, address, function, id" "functions:file, name, id" \
  "strings:text, id" "samples:seq, stack, labels, vtype"; do
  expect_eq "${tk%%:*} ordered by (${tk#*:})" "${tk#*:}" \
    "$(q "SELECT sorting_key FROM system.tables WHERE database = 'prof' AND name = '${tk%%:*}'")"
done

# each add merges the parts of its small tables: one part a table (a merge
# the server runs on its own at that moment may hold OPTIMIZE off: 30 s)
for _ in $(seq 1 30); do
  many=$(q "SELECT table, count() FROM system.parts WHERE database = 'prof' AND active GROUP BY table HAVING count() > 1 FORMAT TSV")
  [ -z "$many" ] && break
  sleep 1
done
[ -z "$many" ] && pass || fail "tables left in more than one part after the adds: $(echo "$many" | paste -sd' ' -)"

# the active parts under 6.5x the contents gzipped at level 9 (schema 1
# with one part a table per add as the server merged them: 7.1x; schema 2:
# 5.8x, docs/BENCHMARKS.md); what else the directory holds is fixed
# (docs/store.md)
parts=$(q "SELECT sum(bytes_on_disk) FROM system.parts WHERE database = 'prof' AND active")
echo "active parts $parts bytes, contents gzipped (level 9) $gz bytes"
[ "${parts:-0}" -gt 0 ] && [ $((parts * 10)) -le $((gz * 65)) ] && pass ||
  fail "the active parts are $parts bytes, more than 6.5x the contents gzipped at level 9 ($gz bytes)"

# the same report as the files
"$PROFKIT" top --db "$DB" -n 0 > "$TMP/db" 2> "$TMP/err" || fail "top --db: $(cat "$TMP/err")"
"$PROFKIT" top -n 0 "${files[@]}" > "$TMP/files" 2> "$TMP/err" || fail "top of the files: $(cat "$TMP/err")"
expect_files_eq "top --db of the 7 profiles = top of their files" "$TMP/files" "$TMP/db"

# a database of schema 1 (stacks ordered by id) is refused, no table made
q "CREATE DATABASE prof_v1" > /dev/null
q "CREATE TABLE prof_v1.stacks (id Int64, frames Array(Int64)) ENGINE = ReplacingMergeTree ORDER BY id" > /dev/null
expect_status "a store of schema 1" 1 "$PROFKIT" store add "clickhouse://127.0.0.1:$CH_HTTP/prof_v1" "${files[0]}"
grep -q "the ClickHouse database prof_v1 holds the store's schema 1 (tables ordered by id, stacks' key 'id'); this profkit writes schema 2" "$TMP/err" &&
  pass || fail "schema 1: $(cat "$TMP/err")"
expect_eq "no table is made in a store of schema 1" stacks "$(q "SELECT name FROM system.tables WHERE database = 'prof_v1'")"
finish
