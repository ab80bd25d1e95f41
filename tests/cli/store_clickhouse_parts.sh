#!/usr/bin/env bash
# What a ClickHouse store leaves on disk (docs/store.md, "ClickHouse's
# directory, not only its parts"): its tables keep a part their merges
# replaced 60 s (old_parts_lifetime), and one `store add` of many files
# sends each shared row (string, function, frame, stack) once, not once per
# profile (--batch 0: each profile its own INSERTs; store_clickhouse_batch.sh
# has the batches). With the server's merges stopped, every copy sent stays a row:
# a shared table then holds each id once, in fewer parts than profiles.
# One node, started as bench/lib.sh starts it (its configuration).
. "$(dirname "$0")/lib.sh"
need_clickhouse

python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$TMP/gen" 20 200 5 > /dev/null
mapfile -t files < <(cut -f1 "$TMP/gen/labels.tsv")
# the tables, then no merge: every row sent stays as it came
"$PROFKIT" store ls "$DB" > /dev/null 2>&1
q "SYSTEM STOP MERGES" > /dev/null
"$PROFKIT" store add "$DB" -q --batch 0 "${files[@]}" 2> "$TMP/err" || fail "store add: $(cat "$TMP/err")"
expect_eq "20 profiles added" 20 "$(q 'SELECT count() FROM prof.profiles')"
for t in strings functions frames stacks; do
  read -r rows ids < <(q "SELECT count(), uniqExact(id) FROM prof.$t FORMAT TSV")
  [ "${rows:-0}" -gt 0 ] && [ "$rows" = "$ids" ] && pass ||
    fail "$t: $rows rows for $ids ids: one store add sent a shared row more than once"
done
parts() { q "SELECT count() FROM system.parts WHERE database = 'prof' AND table = '$1' AND active"; }
expect_eq "samples: a part per profile" 20 "$(parts samples)"
[ "$(parts frames)" -lt 20 ] && pass || fail "frames: $(parts frames) parts for 20 profiles (a part per profile: rows sent again)"
# a second add of other files: the rows this connection did not send go
# again (each command is a connection), the store's answer is the same
python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$TMP/gen2" 5 200 6 > /dev/null
mapfile -t more < <(cut -f1 "$TMP/gen2/labels.tsv")
"$PROFKIT" store add "$DB" -q "${more[@]}" 2> "$TMP/err" || fail "store add (2): $(cat "$TMP/err")"
"$PROFKIT" top --db "$DB" -n 0 > "$TMP/db" 2> "$TMP/err" || fail "top --db: $(cat "$TMP/err")"
"$PROFKIT" top -n 0 "${files[@]}" "${more[@]}" > "$TMP/files"
expect_files_eq "top --db of the 25 profiles = top of their files" "$TMP/files" "$TMP/db"

# every table keeps replaced parts 60 s
for t in profiles labels meta profile_values profile_threads strings functions mappings frames stacks labelsets samples removed; do
  q "SHOW CREATE TABLE prof.$t" | grep -q "SETTINGS old_parts_lifetime = 60" && pass ||
    fail "$t: not made with old_parts_lifetime = 60: $(q "SHOW CREATE TABLE prof.$t")"
done
finish
