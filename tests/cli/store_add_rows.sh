#!/usr/bin/env bash
# store add on SQLite finds the shared rows a store already has, however
# it looks them up (docs/store.md, "Size"): the first lookup of a table on
# a connection keeps only the wanted rows' keys (one pass of pk_rowfind),
# a later one reads the table whole, and a row naming a row the command
# has just added is not looked up. Stores of the same files added one
# command a file, all in one command, and half and half hold the same
# rows (store_tables.py: every shared row's content, the rows it names
# resolved, and every table's count), no shared table holds a row twice,
# and the profiles have the same ids.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store_checks.bash"

D="$TMP/rows"
mkdir -p "$D"
# profiles of one program (most stacks shared), of many formats, and
# profiles with sample labels (labelsets), the same files twice
python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$D/gen" 8 120 5 > /dev/null
# shellcheck disable=SC2046
files=($(cut -f1 "$D/gen/labels.tsv") $(readable $(ls "$PROFKIT_SRC"/tests/data/*/ok_* | grep -v '\.expect$')))
[ "${#files[@]}" -gt 20 ] && pass || fail "expected more than 20 files, found ${#files[@]}"

"$PROFKIT" store add "$D/one.sqlite" -q "${files[@]}" || fail "one command: store add failed"
for f in "${files[@]}"; do
  "$PROFKIT" store add "$D/each.sqlite" -q "$f" || fail "one command a file: store add $f failed"
done
half=$((${#files[@]} / 2))
for f in "${files[@]:0:$half}"; do
  "$PROFKIT" store add "$D/half.sqlite" -q "$f" || fail "half: store add $f failed"
done
# the rest in one command, the files already there among them
"$PROFKIT" store add "$D/half.sqlite" -q "${files[@]:$((half - 3))}" || fail "half: the rest failed"
# the same rows in the reverse order, one command a file
for ((i = ${#files[@]} - 1; i >= 0; i--)); do
  "$PROFKIT" store add "$D/back.sqlite" -q "${files[$i]}" || fail "reverse: store add ${files[$i]} failed"
done

for s in one each half back; do
  python3 "$PROFKIT_SRC/tests/store/store_tables.py" "$D/$s.sqlite" > "$D/$s.tables" || fail "store_tables.py $s failed"
  "$PROFKIT" store ls "$D/$s.sqlite" | awk 'length($1) == 16 { print $1 }' | sort > "$D/$s.ids"
  # every shared row once: as many rows as distinct contents (small ids
  # aside), in each shared table
  python3 - "$D/$s.sqlite" "$PROFKIT_SRC" > "$D/$s.dups" << 'PY' || fail "the duplicate count of $s failed"
import os, sqlite3, sys
sys.path.insert(0, os.path.join(sys.argv[2], "tests", "store"))
import store_tables
db = sqlite3.connect(sys.argv[1])
# the strings: in their blocks
texts = [t for _, t in store_tables.all_strings(db)]
print("strings", len(texts), len(set(texts)))
for t, cols in [("functions", "name, system_name, file, module, start_line"),
                ("mappings", "memory_start, memory_end, file_offset, path, build_id"),
                ("frames", "address, function, line, col, mapping, inline_depth, key"),
                ("stacks", "frames"), ("labelsets", "labels"), ("idents", "h")]:
    n = db.execute("SELECT count(*) FROM " + t).fetchone()[0]
    d = db.execute("SELECT count(*) FROM (SELECT DISTINCT %s FROM %s)" % (cols, t)).fetchone()[0]
    print(t, n, d)
PY
  expect_eq "$s: no shared row twice" "" "$(awk '$2 != $3' "$D/$s.dups")"
done
# (some files of tests/data hold the same profile as others)
[ "$(wc -l < "$D/one.ids")" -gt 20 ] && pass || fail "expected more than 20 profiles: $(wc -l < "$D/one.ids")"
grep -q '^labelsets [1-9]' "$D/one.tables" && pass || fail "no labelsets: the files have no sample labels"
for s in each half back; do
  expect_files_eq "$s: the same rows as one command" "$D/one.tables" "$D/$s.tables"
  expect_files_eq "$s: the same profile ids as one command" "$D/one.ids" "$D/$s.ids"
done

finish
