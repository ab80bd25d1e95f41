#!/usr/bin/env bash
# Merging profiles of different programs: each frame keeps its own
# program's mapping. Two binaries loaded at the same address (cppbench and
# gobench both at 0x400000; gobench's profile names no file for them)
# must not lend each other their names, so the merged profile's folded
# stacks are exactly the sum of each file's own.
. "$(dirname "$0")/lib.sh"
need_shared

# folded stacks summed by stack, sorted: "stack value"
summed() { awk '{ v = $NF; $NF = ""; s[$0] += v } END { for (k in s) print k s[k] }' "$@" | sort; }

check_merge() {
  local what=$1; shift
  local i=0 f
  : > "$TMP/each"
  for f in "$@"; do
    i=$((i + 1))
    if "$PROFKIT" convert -q --to folded "$f" -o "$TMP/one$i.folded" 2> "$TMP/err"; then pass; else fail "$what: convert $f: $(head -2 "$TMP/err")"; return; fi
    cat "$TMP/one$i.folded" >> "$TMP/each"
  done
  if "$PROFKIT" convert -q --to folded "$@" -o "$TMP/merged.folded" 2> "$TMP/err"; then pass; else fail "$what: convert merged: $(head -2 "$TMP/err")"; return; fi
  summed "$TMP/each" > "$TMP/each.sum"
  summed "$TMP/merged.folded" > "$TMP/merged.sum"
  expect_files_eq "$what: merged folded stacks are each file's own, summed" "$TMP/each.sum" "$TMP/merged.sum"
}

P="$FIX/pprof"
check_merge "cppbench + gobench" "$P/cppbench.cpu" "$P/gobench.cpu"
check_merge "gobench + cppbench" "$P/gobench.cpu" "$P/cppbench.cpu"
# the case that was wrong: gobench's addresses inside cppbench's mapping
if "$PROFKIT" top -q -n 400 "$P/cppbench.cpu" "$P/gobench.cpu" | grep -q 'cppbench_server_main+0x27ac9'; then
  fail "gobench's 0x427ac9 is labelled with cppbench's file"
else pass; fi
check_merge "go.crc32 + cppbench + gobench" "$P/go.crc32.cpu" "$P/cppbench.cpu" "$P/gobench.cpu"
check_merge "cppbench twice + gobench" "$P/cppbench.cpu" "$P/cppbench.cpu" "$P/gobench.cpu"
finish
