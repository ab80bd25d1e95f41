#!/usr/bin/env bash
# One rule for every inline mark (src/analysis/inline_marks.c): a call is
# a stack of a row with a value of the value type shown, or a prefix of
# one. tests/data/pprof/inline_values.pb has helper inlined into work on
# the rows with samples and called for real on the rows with cpu: top,
# tree, peek and the SVG flame graph mark it "(inline)" for samples and
# not for cpu; the page's data carries the flags per value type.
. "$(dirname "$0")/lib.sh"
F="$PROFKIT_SRC/tests/data/pprof/inline_values.pb"

row() { grep -E "(^| )helper( |$)" | head -1 | sed -E 's/.*(helper.*)$/\1/; s/ +$//'; }
expect_eq "top, samples" "helper (inline)" "$("$PROFKIT" top -q --value samples "$F" | row)"
expect_eq "top, cpu" "helper" "$("$PROFKIT" top -q --value cpu "$F" | row)"
expect_eq "tree, samples" "helper (inline)" "$("$PROFKIT" tree -q --value samples "$F" | row)"
expect_eq "tree, cpu" "helper" "$("$PROFKIT" tree -q --value cpu "$F" | row)"
expect_eq "top --json, samples" '"inline":"all"' \
  "$("$PROFKIT" top -q --json --value samples "$F" | grep -o '"name":"helper"[^}]*' | grep -o '"inline":"[a-z]*"')"
expect_eq "tree --json, cpu" "" \
  "$("$PROFKIT" tree -q --json --value cpu "$F" | grep -o '"name":"helper"[^}]*' | grep -o '"inline":"[a-z]*"')"
expect_eq "peek, samples" "1" "$("$PROFKIT" peek -q --value samples helper "$F" | grep -c 'helper (inline)')"
expect_eq "peek, cpu" "0" "$("$PROFKIT" peek -q --value cpu helper "$F" | grep -c 'inline')"
# the SVG: the label and title of helper's frame
"$PROFKIT" flame -q --value samples "$F" -o "$TMP/s.svg" && "$PROFKIT" flame -q --value cpu "$F" -o "$TMP/c.svg" ||
  fail "flame -o x.svg"
expect_eq "svg, samples: title" "1" "$(grep -c '<title>helper (inline) (' "$TMP/s.svg")"
expect_eq "svg, samples: label" "1" "$(grep -c '>helper (inline)</text>' "$TMP/s.svg")"
expect_eq "svg, cpu: no mark" "0" "$(grep -c '(inline)\|(partial-inline)' "$TMP/c.svg")"
# the page's data: every value type's flags (helper's node: 3, both) and
# the samples' own (1, inlined)
"$PROFKIT" flame -q "$F" -o "$TMP/p.html" || fail "flame -o p.html"
expect_eq "page data: inline" "1" "$(grep -c '"inline":\[3,3\],"inline_values":{"0":\[3,1\],"1":\[\]}' "$TMP/p.html")"
finish
