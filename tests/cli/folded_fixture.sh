#!/usr/bin/env bash
# The folded reader and writer on a real perf recording (../shared fixture):
# totals equal the sum of the counts, and the written form is the input with
# equal stacks merged (this file has none), sorted.
. "$(dirname "$0")/lib.sh"
need_shared
f="$FIX/folded/perf-flamegraph.txt"
want_total=$(awk '{s += $NF} END {print s}' "$f")
"$PROFKIT" info "$f" > "$TMP/info" 2> "$TMP/err" || fail "info failed: $(cat "$TMP/err")"
grep -q "samples        count         total $want_total " "$TMP/info" && pass || fail "total $want_total: $(cat "$TMP/info")"
grep -q "samples:      $(wc -l < "$f") rows" "$TMP/info" && pass || fail "row count"
"$PROFKIT" convert "$f" --to folded > "$TMP/out"
expect_eq "round trip (as a set of lines)" "$(LC_ALL=C sort "$f")" "$(LC_ALL=C sort "$TMP/out")"
# The writer's order: siblings by label bytes, parents before children.
expect_eq "writer order is stable" "$(cat "$TMP/out")" "$("$PROFKIT" convert "$TMP/out" --to folded)"
# Flat values per leaf equal what awk computes from the text.
awk '{n=split($1,a,";"); s[a[n]]+=$NF} END {for (k in s) print s[k], k}' "$f" | LC_ALL=C sort > "$TMP/flat.want"
"$PROFKIT" top -n 0 "$f" | awk 'NR>3 && $1>0 {print $1, $6}' | LC_ALL=C sort > "$TMP/flat.got"
expect_files_eq "flat per function" "$TMP/flat.want" "$TMP/flat.got"
finish
