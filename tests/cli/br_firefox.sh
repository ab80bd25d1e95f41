#!/usr/bin/env bash
# BR streams through the Firefox writer: sampled and timed streams convert,
# per-sample counts survive (folded of the JSON read back equals folded of
# the stream), and the Firefox Profiler's own loader (docs/testing.md; installed
# by scripts/tools.sh) loads the file and agrees on every function's self
# and total samples.
. "$(dirname "$0")/lib.sh"
cc -O1 -o "$TMP/gen_br" "$PROFKIT_SRC/bench/gen_br.c" || { fail "cannot compile bench/gen_br.c"; finish; }
"$TMP/gen_br" "$TMP/t.brprof" 30000 21 --timed 2> /dev/null
"$TMP/gen_br" "$TMP/s.brprof" 30000 22 2> /dev/null
for f in t s "$PROFKIT_SRC/tests/data/br/ok_timed" "$PROFKIT_SRC/tests/data/br/ok_sampled"; do
  case $f in /*) in=$f.brprof; out=$TMP/$(basename "$f").json ;; *) in=$TMP/$f.brprof; out=$TMP/$f.json ;; esac
  expect_status "$(basename "$in") -> firefox (default value)" 0 "$PROFKIT" convert "$in" --to firefox -o "$out.time"
  expect_status "$(basename "$in") -> firefox --value samples" 0 "$PROFKIT" convert "$in" --to firefox --value samples -o "$out"
  expect_eq "$(basename "$in"): samples survive the Firefox writer" \
    "$("$PROFKIT" convert "$in" --to folded --value samples)" "$("$PROFKIT" convert "$out" --to folded --value samples)"
done
need_loader
for f in "$TMP/t.json" "$TMP/s.json"; do
  if python3 "$PROFKIT_SRC/tests/cli/gecko_oracle_compare.py" "$PROFKIT" "$CLI" "$f" > "$TMP/cmp" 2>&1; then
    pass
  else
    fail "$(basename "$f"): the Firefox Profiler disagrees"
  fi
  cat "$TMP/cmp"; echo
done
finish
