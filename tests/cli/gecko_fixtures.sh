#!/usr/bin/env bash
# Every Firefox fixture (raw Gecko v3-v13, processed pre-1 to v66) reads, is
# detected as the right format, and gives, thread by thread, the folded stacks
# and totals of an independent whole-document reading (gecko_reference.py,
# written from docs/formats/gecko.md with Python's json module).
. "$(dirname "$0")/lib.sh"
need_shared
REF="$PROFKIT_SRC/tests/cli/gecko_reference.py"

for f in "$FIX"/firefox/*; do
  base=$(basename "$f")
  case "$base" in
    gecko-*) want=gecko ;;
    *) want=firefox ;;
  esac
  if ! "$PROFKIT" info --no-symbolize "$f" > "$TMP/info" 2> "$TMP/err"; then
    fail "$base: profkit info failed: $(head -2 "$TMP/err")"
    continue
  fi
  pass
  expect_eq "$base: detected format" "$want" "$(awk '/^format:/ {print $2}' "$TMP/info")"
  if [ -s "$TMP/err" ]; then fail "$base: unexpected warnings: $(head -2 "$TMP/err")"; else pass; fi

  python3 "$REF" "$f" > "$TMP/ref" || { fail "$base: reference reader failed"; continue; }
  nref=$(grep -c '^# thread' "$TMP/ref")
  expect_eq "$base: thread count" "$nref" "$(awk '/^threads:/ {print $2}' "$TMP/info")"
  for ((i = 0; i < nref; i++)); do
    header=$(grep "^# thread $i " "$TMP/ref")
    name=$(sed -E 's/^# thread [0-9]+ (.*) samples=.*/\1/' <<< "$header")
    weight=$(sed -E 's/.* weight=([0-9]+)$/\1/' <<< "$header")
    awk -v h="$header" '$0 == h {on = 1; next} /^# thread/ {on = 0} on' "$TMP/ref" > "$TMP/want"
    "$PROFKIT" convert --no-symbolize -q --thread "$i" --to folded "$f" | LC_ALL=C sort > "$TMP/got"
    LC_ALL=C sort "$TMP/want" > "$TMP/want.sorted"
    expect_files_eq "$base: thread $i folded stacks" "$TMP/want.sorted" "$TMP/got"
    total=$(awk '{s += $NF} END {print s + 0}' "$TMP/got")
    expect_eq "$base: thread $i total" "$weight" "$total"
    got_name=$(sed -nE "s/^  $i: ([^(,]*[^ (,]).*/\1/p" "$TMP/info")
    expect_eq "$base: thread $i name" "$name" "$got_name"
  done
done
finish
