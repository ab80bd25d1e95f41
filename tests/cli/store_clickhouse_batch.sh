#!/usr/bin/env bash
# Batched adds on ClickHouse (docs/store.md, "ClickHouse's directory, not only its parts"): one
# `store add` of many files sends their rows as one INSERT per table per
# batch (--batch SIZE, 16M by default), so the server makes a part per
# table and batch, not per profile. Each profile is then what its file is;
# a file is printed "added" only once its batch is in; a duplicate within
# a batch is "already in the store"; --keep-going names the bad file; an
# add killed with SIGKILL leaves no profile but those it printed (and,
# killed while printing, the rest of the batch being printed), each whole.
# One node, started as bench/lib.sh starts it (its configuration).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store_checks.bash"
need_clickhouse
parts() { q "SELECT count() FROM system.parts WHERE database = '$1' AND table = '$2' AND active"; }

# 40 files, a copy of one of them, and a file no reader takes, in one add
# with the default batch, the server's merges stopped: every INSERT stays
# a part of its own
python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$TMP/gen" 40 200 7 > /dev/null
mapfile -t files < <(cut -f1 "$TMP/gen/labels.tsv")
cp "${files[3]}" "$TMP/copy.folded"
printf 'not a profile\0\1\2' > "$TMP/bad.folded"
"$PROFKIT" store ls "$DB" > /dev/null 2>&1
"$PROFKIT" store ls "clickhouse://127.0.0.1:$CH_HTTP/small" > /dev/null 2>&1
q "SYSTEM STOP MERGES" > /dev/null
expect_status "store add --keep-going with a bad file: exit 1" 1 \
  "$PROFKIT" store add "$DB" --keep-going "${files[@]:0:20}" "$TMP/bad.folded" "$TMP/copy.folded" "${files[@]:20}"
cp "$TMP/out" "$TMP/first.out"
cp "$TMP/err" "$TMP/first.err"
expect_eq "40 profiles in the store" 40 "$(q 'SELECT count() FROM prof.profiles')"
expect_eq "store ls lists 40" 40 "$(stored_files "$DB" | wc -l)"
grep -q "copy.folded: already in the store" "$TMP/first.err" && pass ||
  fail "the copy within the batch was not 'already in the store': $(cat "$TMP/first.err")"
grep -q "bad.folded: not added" "$TMP/first.err" && pass || fail "the bad file was not named: $(cat "$TMP/first.err")"
expect_eq "40 files printed as added" 40 "$(grep -c '^added ' "$TMP/first.out")"
awk '$1 == "added" { print $5 }' "$TMP/first.out" | sort > "$TMP/printed"
printf '%s\n' "${files[@]}" | sort > "$TMP/want"
expect_files_eq "the files printed as added are the 40" "$TMP/want" "$TMP/printed"
# one batch: a part per table
for t in samples profiles labels strings frames stacks; do
  expect_eq "$t: one part for the 40 profiles" 1 "$(parts prof "$t")"
done
# and each shared row once
for t in strings functions frames stacks; do
  read -r rows ids < <(q "SELECT count(), uniqExact(id) FROM prof.$t FORMAT TSV")
  [ "${rows:-0}" -gt 0 ] && [ "$rows" = "$ids" ] && pass ||
    fail "$t: $rows rows for $ids ids: one batch sent a shared row more than once"
done
# small batches (--batch 20k: a few files each) give the same store
"$PROFKIT" store add "clickhouse://127.0.0.1:$CH_HTTP/small" -q --batch 20k "${files[@]}" 2> "$TMP/err" ||
  fail "store add --batch 20k: $(cat "$TMP/err")"
"$PROFKIT" top -n 0 --db "clickhouse://127.0.0.1:$CH_HTTP/small" > "$TMP/small" 2> "$TMP/err"
"$PROFKIT" top -n 0 "${files[@]}" > "$TMP/all"
expect_files_eq "--batch 20k: top of the store = top of the files" "$TMP/all" "$TMP/small"
# a shared row sent in one batch is not sent again in the next
for t in strings functions frames stacks; do
  read -r rows ids < <(q "SELECT count(), uniqExact(id) FROM small.$t FORMAT TSV")
  [ "${rows:-0}" -gt 0 ] && [ "$rows" = "$ids" ] && pass ||
    fail "--batch 20k: $t: $rows rows for $ids ids: a later batch sent a shared row again"
done
n=$(parts small profiles)
[ "$n" -gt 1 ] && [ "$n" -lt 40 ] && pass || fail "--batch 20k: $n parts of profiles (expected several batches, fewer than 40)"
q "SYSTEM START MERGES" > /dev/null
# each profile is its file
for f in "${files[@]}"; do
  "$PROFKIT" top --json -n 0 --db "$DB" --where "file=$f" > "$TMP/db.json" 2> "$TMP/err" || fail "top --db $f: $(cat "$TMP/err")"
  "$PROFKIT" top --json -n 0 "$f" > "$TMP/file.json"
  cmp -s "$TMP/db.json" "$TMP/file.json" && pass || fail "$f: top --json from the store differs from the file's"
done

expect_status "--batch takes a size" 2 "$PROFKIT" store add "$DB" --batch 12X "${files[0]}"
grep -q "expected a number of bytes" "$TMP/err" && pass || fail "--batch 12X: $(cat "$TMP/err")"
expect_status "--batch is for add" 2 "$PROFKIT" store ls "$DB" --batch 1M

# without --keep-going an unreadable file stops the add: the files held
# before it go in (and are printed), those after it do not
SDB="clickhouse://127.0.0.1:$CH_HTTP/stop"
expect_status "add stops at an unreadable file: exit 1" 1 \
  "$PROFKIT" store add "$SDB" "${files[0]}" "${files[1]}" "$TMP/bad.folded" "${files[2]}"
expect_eq "the two files before the unreadable one are in" "$(printf '%s\n' "${files[0]}" "${files[1]}" | sort)" \
  "$(stored_files "$SDB" | sort)"
expect_eq "and printed as added" 2 "$(grep -c '^added ' "$TMP/out")"

# killed while adding in batches: the store lists only profiles printed
# as added, or of the batch that was being printed; each one whole
python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$TMP/kill" 150 1500 11 > /dev/null
mapfile -t all < <(cut -f1 "$TMP/kill/labels.tsv")
for delay in 1.5 3.5; do
  KDB="clickhouse://127.0.0.1:$CH_HTTP/kill${delay%.*}"
  "$PROFKIT" store add "$KDB" --batch 200k "${all[@]}" > "$TMP/kill.out" 2> /dev/null &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  awk '$1 == "added" { print $5 }' "$TMP/kill.out" | sort > "$TMP/printed"
  stored_files "$KDB" | sort > "$TMP/stored"
  echo "killed after ${delay}s: $(wc -l < "$TMP/printed") printed, $(wc -l < "$TMP/stored") in the store"
  comm -23 "$TMP/printed" "$TMP/stored" > "$TMP/missing"
  [ ! -s "$TMP/missing" ] && pass || fail "after a kill at ${delay}s: printed as added, not in the store: $(head -3 "$TMP/missing")"
  # stored, not printed: only the last batch's, all added after every printed one
  comm -13 "$TMP/printed" "$TMP/stored" > "$TMP/extra"
  if [ -s "$TMP/extra" ] && [ ! -s "$TMP/printed" ]; then
    pass # killed before it printed its first batch: what is stored is that batch
  elif [ -s "$TMP/extra" ]; then
    last_printed=$(q "SELECT max(seq) FROM kill${delay%.*}.profiles WHERE source IN ($(sed "s/.*/'&'/" "$TMP/printed" | paste -sd, -))")
    first_extra=$(q "SELECT min(seq) FROM kill${delay%.*}.profiles WHERE source IN ($(sed "s/.*/'&'/" "$TMP/extra" | paste -sd, -))")
    [ "${first_extra:-0}" -gt "${last_printed:-0}" ] && pass ||
      fail "after a kill at ${delay}s: in the store but never printed, before a printed one: $(head -3 "$TMP/extra")"
  fi
  if [ -s "$TMP/stored" ]; then
    STORE_REPORTS=("top -n 0" "traces")
    # shellcheck disable=SC2046
    compare_reports "after a kill at ${delay}s" "$KDB" "--where file~." $(cat "$TMP/stored")
  fi
done
finish
