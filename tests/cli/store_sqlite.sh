#!/usr/bin/env bash
# The profile store on SQLite (docs/store.md): every report from the store
# equals the same report on the files merged (tests/data of every format,
# the ../shared fixtures, generated profiles), label filters and time
# ranges select the right profiles, adds are idempotent, rm removes, and an
# add killed with SIGKILL leaves a consistent store that a re-add completes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store_checks.bash"

DB="$TMP/prof.sqlite"

# usage
expect_status "--where without --db" 2 "$PROFKIT" top --where a=b "$PROFKIT_SRC/tests/data/folded/ok_simple.folded"
expect_status "FILEs and --db" 2 "$PROFKIT" top --db "$DB" "$PROFKIT_SRC/tests/data/folded/ok_simple.folded"
expect_status "a bad --where" 2 "$PROFKIT" top --db "$DB" --where 'no operator'
expect_status "a bad regular expression" 2 "$PROFKIT" store ls "$DB" --where 'k~(a'
expect_status "a bad --since" 2 "$PROFKIT" top --db "$DB" --since 2026-13-01
expect_status "a time past 2262" 2 "$PROFKIT" top --db "$DB" --since 9999-01-01
expect_status "seconds past 2262" 2 "$PROFKIT" top --db "$DB" --until 9999999999
expect_status "a bad label" 2 "$PROFKIT" store add "$DB" --label nolabel "$PROFKIT_SRC/tests/data/folded/ok_simple.folded"
expect_status "rm without a selection" 2 "$PROFKIT" store rm "$DB"
expect_status "an unknown verb" 2 "$PROFKIT" store list "$DB"
expect_status "an empty store answers no profile" 1 "$PROFKIT" top --db "$DB"
expect_status "store --help" 0 "$PROFKIT" store --help
grep -q 'profkit store add prof.sqlite' "$TMP/out" && pass || fail "store --help has no example"
expect_status "a store that cannot be opened" 1 "$PROFKIT" store ls "$TMP/no/such/dir/x.sqlite"
grep -q "x.sqlite" "$TMP/err" && pass || fail "the error names the DB: $(cat "$TMP/err")"

store_suite "$DB"
echo "== day to day: keep-going, label, ls --json, unknown keys, older-than"
store_day_to_day "$TMP/day.sqlite"

# rm leaves the store as if the removed profiles had never been added: the
# same rows in every table as a store of only the others (the shared rows
# no remaining profile uses are gone), and every report unchanged.
RM="$TMP/rm"
mkdir -p "$RM"
python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$RM/gen" 24 150 3 > /dev/null
# shellcheck disable=SC2046
rm_files=($(readable $(ls "$PROFKIT_SRC"/tests/data/*/ok_* | grep -v '\.expect$')) $(cut -f1 "$RM/gen/labels.tsv"))
"$PROFKIT" store add "$RM/all.sqlite" -q "${rm_files[@]}" || fail "rm: store add failed"
mapfile -t kept_before < <(stored_files "$RM/all.sqlite")
"$PROFKIT" store rm "$RM/all.sqlite" --where 'format~^(pprof|perf_script|gecko)$' > /dev/null || fail "rm by format failed"
"$PROFKIT" store rm "$RM/all.sqlite" --where 'file~p000[0-9][13579]' > /dev/null || fail "rm of odd generated failed"
mapfile -t kept < <(stored_files "$RM/all.sqlite")
[ "${#kept[@]}" -gt 10 ] && [ "${#kept[@]}" -lt "${#kept_before[@]}" ] && pass ||
  fail "rm: expected some profiles removed and some kept (${#kept[@]} of ${#kept_before[@]})"
"$PROFKIT" store add "$RM/kept.sqlite" -q "${kept[@]}" || fail "rm: store add of the kept files failed"
tables() { # tables DB OUT: what store_tables.py prints; a failure of the script fails the test
  python3 "$PROFKIT_SRC/tests/store/store_tables.py" "$1" > "$2" || fail "store_tables.py $1 failed"
}
tables "$RM/all.sqlite" "$RM/all.tables"
tables "$RM/kept.sqlite" "$RM/kept.tables"
expect_files_eq "after rm, every table as in a store of only the kept profiles" "$RM/kept.tables" "$RM/all.tables"
STORE_REPORTS=("top -n 0" "top -n 0 --cum" "tree" "traces" "top -n 0 --by address")
compare_reports "after rm" "$RM/all.sqlite" "--where file~." "${kept[@]}"
# a removed file is added again as it was
removed_one=$(comm -23 <(printf '%s\n' "${kept_before[@]}" | sort) <(printf '%s\n' "${kept[@]}" | sort) | head -1)
"$PROFKIT" store add "$RM/all.sqlite" -q "$removed_one" || fail "re-add after rm failed"
"$PROFKIT" store add "$RM/kept.sqlite" -q "$removed_one"
tables "$RM/all.sqlite" "$RM/all.tables"
tables "$RM/kept.sqlite" "$RM/kept.tables"
expect_files_eq "a removed file added again: the same tables" "$RM/kept.tables" "$RM/all.tables"
compare_reports "a removed file added again" "$RM/all.sqlite" "--where file~." "${kept[@]}" "$removed_one"
# removing everything empties every table
"$PROFKIT" store rm "$RM/all.sqlite" --where 'file~.' > /dev/null || fail "rm of everything failed"
tables "$RM/all.sqlite" "$RM/all.tables"
expect_eq "rm of every profile leaves no row" "" "$(awk '$2 != 0' "$RM/all.tables")"
expect_eq "store_tables.py counted every table" 14 "$(wc -l < "$RM/all.tables")"

# A killed add: many profiles added in one command, killed at a few points.
python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$TMP/kill" 60 1500 11 > /dev/null
mapfile -t all < <(cut -f1 "$TMP/kill/labels.tsv")
KDB="$TMP/kill.sqlite"
for delay in 0.4 1.1 2.3; do
  "$PROFKIT" store add "$KDB" -q --label set=kill "${all[@]}" &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  n=$(stored_files "$KDB" --where set=kill | wc -l)
  echo "killed after ${delay}s: $n of ${#all[@]} profiles in the store"
  if [ "$n" -gt 0 ]; then
    STORE_REPORTS=("top -n 0" "traces")
    # shellcheck disable=SC2046
    compare_reports "after a kill at ${delay}s" "$KDB" "--where set=kill" $(stored_files "$KDB" --where set=kill)
  fi
  if command -v sqlite3 > /dev/null; then
    expect_eq "integrity after a kill at ${delay}s" ok "$(sqlite3 "$KDB" 'PRAGMA integrity_check')"
    expect_eq "no sample without its profile after a kill at ${delay}s" 0 \
      "$(sqlite3 "$KDB" 'SELECT count(*) FROM samples WHERE seq NOT IN (SELECT seq FROM profiles)')"
  fi
done
"$PROFKIT" store add "$KDB" -q --label set=kill "${all[@]}" || fail "re-add after the kills failed"
expect_eq "the re-add completes the store" "${#all[@]}" "$(stored_files "$KDB" --where set=kill | wc -l)"
STORE_REPORTS=("top -n 0" "tree" "traces")
compare_reports "after the kills and a re-add" "$KDB" "--where set=kill" "${all[@]}"

# A damaged store: a stack's frames that are not a list of ids, or name a
# frame that is missing, is an error that names the row, never a crash.
BAD="$TMP/bad.sqlite"
"$PROFKIT" store add "$BAD" -q "$PROFKIT_SRC/tests/data/folded/ok_simple.folded" || fail "bad: store add failed"
for frames in "'[1,'" "'[]'" "'[12,,3]'" "'[99999999999999999999]'" "'nothing'" "x'010280'" "x''"; do
  python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE stacks SET frames = " + sys.argv[2] + " WHERE rowid = (SELECT min(rowid) FROM stacks)"); db.commit()' "$BAD" "$frames"
  expect_status "stacks.frames = $frames" 1 "$PROFKIT" tree --db "$BAD"
  grep -q "bad.sqlite: stacks: row [0-9]*: expected its frames as \[ID,ID,...\]" "$TMP/err" && pass ||
    fail "stacks.frames = $frames: $(cat "$TMP/err")"
done
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE stacks SET frames = \"[12345]\" WHERE rowid = (SELECT min(rowid) FROM stacks)"); db.commit()' "$BAD"
expect_status "a stack names a missing frame" 1 "$PROFKIT" tree --db "$BAD"
grep -q "FROM frames: no row with id 12345, which a sample needs" "$TMP/err" && pass || fail "missing frame: $(cat "$TMP/err")"
# top loads the selection as tree does: the same two damages, the loader's messages
# (blobs of varints: 0x80 says a byte follows; a stack's first frame 12345
# is the difference 12345 from 0, zigzag 24690: f2 c0 01)
for damage in "x'010280'|stacks: row 0: expected its frames as [ID,ID,...], got '(a blob of 3 bytes)'" \
              "x'f2c001'|SELECT id, address, function, line, col, mapping, inline_depth FROM frames: no row with id 12345, which a sample needs"; do
  IFS='|' read -r frames want <<< "$damage"
  python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE stacks SET frames = " + sys.argv[2] + " WHERE rowid = (SELECT min(rowid) FROM stacks)"); db.commit()' "$BAD" "$frames"
  expect_status "top, stacks.frames = $frames" 1 "$PROFKIT" top --db "$BAD"
  grep -qF "bad.sqlite: $want" "$TMP/err" && pass || fail "top, stacks.frames = $frames: $(cat "$TMP/err")"
done

# A store of an older schema (stacks as parent/frame pairs; stacks with
# their frames' keys beside them) is refused on opening, and left as it was.
for old in "parent INTEGER NOT NULL, frame INTEGER NOT NULL, depth INTEGER NOT NULL, leaf_key INTEGER NOT NULL:parent:parent/frame pairs" \
           "frames TEXT NOT NULL, keys TEXT NOT NULL:keys:arrays of frames and keys" \
           "h INTEGER NOT NULL, frames BLOB NOT NULL:h:rows beside their content ids"; do
  OLD="$TMP/old.sqlite"
  rm -f "$OLD"
  IFS=: read -r cols col what <<< "$old"
  python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("CREATE TABLE stacks (id INTEGER PRIMARY KEY, " + sys.argv[2] + ")"); db.commit()' "$OLD" "$cols"
  before=$(cksum < "$OLD")
  expect_status "a store of stacks as $what" 1 "$PROFKIT" store add "$OLD" "$PROFKIT_SRC/tests/data/folded/ok_simple.folded"
  grep -q "old.sqlite: the store's stacks table has a '$col' column: it was written by an older profkit (stacks as $what)" "$TMP/err" && pass ||
    fail "old schema: $(cat "$TMP/err")"
  expect_status "top on a store of stacks as $what" 1 "$PROFKIT" top --db "$OLD"
  expect_eq "a store of stacks as $what is left as it was" "$before" "$(cksum < "$OLD")"
done
# an older layout: shared rows named by their content ids (no small ids,
# so no 'idents' table of threads and value types)
OLD="$TMP/old.sqlite"
rm -f "$OLD"
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("CREATE TABLE stacks (id INTEGER PRIMARY KEY, frames BLOB NOT NULL)"); db.commit()' "$OLD"
before=$(cksum < "$OLD")
expect_status "a store of content-id rows" 1 "$PROFKIT" store add "$OLD" "$PROFKIT_SRC/tests/data/folded/ok_simple.folded"
grep -q "old.sqlite: the store has no 'idents' table: it was written by an older profkit (rows named by their content ids); add its files to a new store" "$TMP/err" && pass ||
  fail "old layout: $(cat "$TMP/err")"
expect_status "top on a store of content-id rows" 1 "$PROFKIT" top --db "$OLD"
expect_eq "a store of content-id rows is left as it was" "$before" "$(cksum < "$OLD")"

finish
