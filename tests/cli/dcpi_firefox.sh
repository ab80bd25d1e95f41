#!/usr/bin/env bash
# DCPI profiles through the Firefox writer: they convert, the per-address
# counts survive (folded of the JSON read back equals folded of the file),
# and the Firefox Profiler's own loader (docs/testing.md; installed by
# scripts/tools.sh) agrees on every address's samples.
. "$(dirname "$0")/lib.sh"
cc -O1 -o "$TMP/gen_dcpi" "$PROFKIT_SRC/bench/gen_dcpi.c" || { fail "cannot compile bench/gen_dcpi.c"; finish; }
"$TMP/gen_dcpi" "$TMP/g.dcpi" 3000 31 --density 50 2> /dev/null
for in in "$TMP/g.dcpi" "$PROFKIT_SRC"/tests/data/dcpi/ok_*.dcpi; do
  out="$TMP/$(basename "$in" .dcpi).json"
  expect_status "$(basename "$in") -> firefox" 0 "$PROFKIT" convert "$in" --to firefox -o "$out"
  expect_eq "$(basename "$in"): counts survive the Firefox writer" \
    "$("$PROFKIT" convert "$in" --to folded)" "$("$PROFKIT" convert "$out" --to folded)"
done
need_loader
for f in "$TMP/g.json" "$TMP/ok_canonical.json"; do
  if python3 "$PROFKIT_SRC/tests/cli/gecko_oracle_compare.py" "$PROFKIT" "$CLI" "$f" > "$TMP/cmp" 2>&1; then
    pass
  else
    fail "$(basename "$f"): the Firefox Profiler disagrees"
  fi
  cat "$TMP/cmp"; echo
done
finish
