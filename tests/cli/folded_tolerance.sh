#!/usr/bin/env bash
# The folded reader's tolerance (docs/formats/folded.md): comment lines,
# malformed lines and empty frames are skipped with one warning per kind
# (first line:column and how many), --strict makes the first kind an error,
# -q silences them; UTF-8 with a BOM and UTF-16 LE/BE with a BOM read as the
# same stacks; such files are detected without --format.
. "$(dirname "$0")/lib.sh"
printf '# title\n// note\nmain;a;b 3\nmain;write0_[j];  3\nnot a stack line\nmain;;x 2\n;; 4\nmain;c 1' > "$TMP/mixed.txt"
"$PROFKIT" convert "$TMP/mixed.txt" --to folded > "$TMP/out" 2> "$TMP/err"
expect_eq "exit status" 0 $?
expect_eq "stacks kept" "$(printf 'main;a;b 3\nmain;c 1\nmain;write0_[j] 3\nmain;x 2')" "$(cat "$TMP/out")"
expect_eq "one warning per kind" "$(printf '%s\n' \
  "profkit: warning: $TMP/mixed.txt:1:1: comment line skipped (2 in all)" \
  "profkit: warning: $TMP/mixed.txt:5:17: expected a stack followed by a space and a sample count; line skipped (1 in all)" \
  "profkit: warning: $TMP/mixed.txt:7:1: expected at least one frame name before the count; line skipped (1 in all)" \
  "profkit: warning: $TMP/mixed.txt:4:17: empty frame name in stack; dropped from its stack (2 in all)")" "$(cat "$TMP/err")"
"$PROFKIT" info "$TMP/mixed.txt" > "$TMP/info" 2> /dev/null
grep -q '^format: *folded' "$TMP/info" && pass || fail "mixed file not detected as folded"
expect_status "--strict refuses" 1 "$PROFKIT" info --strict "$TMP/mixed.txt"
expect_eq "--strict message" "profkit: error: $TMP/mixed.txt:1:1: comment line skipped (2 in all)" "$(cat "$TMP/err")"
expect_status "-q reads" 0 "$PROFKIT" info -q "$TMP/mixed.txt"
expect_eq "-q is quiet" "" "$(cat "$TMP/err")"

# Encodings: the same stacks in UTF-8, UTF-8 with a BOM, UTF-16 LE and BE
# with a BOM (CRLF in one), all detected.
printf 'main;caf\xc3\xa9;b 3\nmain;\xf0\x9f\x98\x80 2\n' > "$TMP/plain.txt"
"$PROFKIT" convert "$TMP/plain.txt" --to folded > "$TMP/want"
printf '\xef\xbb\xbf' | cat - "$TMP/plain.txt" > "$TMP/bom8.txt"
printf '\xff\xfe' > "$TMP/le.txt"; sed "s/$/\r/" "$TMP/plain.txt" | iconv -f UTF-8 -t UTF-16LE >> "$TMP/le.txt"
printf '\xfe\xff' > "$TMP/be.txt"; iconv -f UTF-8 -t UTF-16BE "$TMP/plain.txt" >> "$TMP/be.txt"
for f in bom8 le be; do
  "$PROFKIT" convert "$TMP/$f.txt" --to folded > "$TMP/got" 2> "$TMP/err"
  expect_files_eq "$f: same stacks as UTF-8" "$TMP/want" "$TMP/got"
  expect_eq "$f: no warning" "" "$(cat "$TMP/err")"
done
# The FlameGraph example of ../shared with comments and a bad line added is
# still detected and gives the same stacks.
if [ -d "$FIX" ]; then
  f="$FIX/folded/perf-flamegraph.txt"
  { echo "# collapsed by stackcollapse-perf.pl"; head -5 "$f"; echo "garbage"; tail -n +6 "$f"; } > "$TMP/fg.txt"
  "$PROFKIT" convert "$TMP/fg.txt" --to folded 2> /dev/null > "$TMP/got"
  "$PROFKIT" convert "$f" --to folded > "$TMP/want"
  expect_files_eq "FlameGraph file with comment and bad line" "$TMP/want" "$TMP/got"
fi
finish
