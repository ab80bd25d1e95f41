#!/usr/bin/env bash
# The diff gate: `profkit diff BASE NEW --fail-on-increase PCT` exits 3 when
# the total or a function's flat or cumulative value grew by more than PCT
# percent of BASE's total, and prints the lines that failed; 0 otherwise.
# BASE is a real libprofiler profile (gperftools-real/real1.prof through Go
# pprof's -proto, as folded stacks); NEW is the same with a made-up
# regression (hash_block's samples doubled: +282 of 838, 33.65%), and a copy
# twice as long (every value doubled), which --normalize makes equal.
. "$(dirname "$0")/lib.sh"
need_shared
"$PROFKIT" convert --to folded --value samples "$FIX/gperftools-real/real1.pprof.pb.gz" > "$TMP/base.folded"
awk '/hash_block [0-9]+$/ { $NF = $NF * 2 } { print }' "$TMP/base.folded" > "$TMP/regressed.folded"
awk '{ $NF = $NF * 2; print }' "$TMP/base.folded" > "$TMP/longer.folded"
cmp -s "$TMP/base.folded" "$TMP/regressed.folded" && fail "the made-up regression changed nothing"

expect_status "same profile passes a 0% gate" 0 "$PROFKIT" diff --fail-on-increase 0 "$TMP/base.folded" "$TMP/base.folded"
grep -q "^Gate: growth above 0% of base total: passed" "$TMP/out" && pass || fail "no 'passed' gate line: $(tail -2 "$TMP/out")"

expect_status "regression fails a 5% gate" 3 "$PROFKIT" diff --fail-on-increase 5 "$TMP/base.folded" "$TMP/regressed.folded"
grep -q "^Gate: growth above 5% of base total: FAILED" "$TMP/out" && pass || fail "no FAILED line"
# hash_block and its callers grew by its 282 samples; stage_a, through which
# 262 of them pass, by 262.
expect_eq "failed lines" "FAIL cum   +262 (+31.26% of base total)  stage_a
FAIL cum   +282 (+33.65% of base total)  hash_block
FAIL cum   +282 (+33.65% of base total)  main
FAIL cum   +282 (+33.65% of base total)  run_all
FAIL flat  +282 (+33.65% of base total)  hash_block
FAIL total +282 (+33.65% of base total)  (total)" "$(grep '^FAIL' "$TMP/out" | grep -v -e __libc -e _start | LC_ALL=C sort)"

cp "$TMP/out" "$TMP/out.text"
expect_status "regression passes a 40% gate" 0 "$PROFKIT" diff --fail-on-increase 40 "$TMP/base.folded" "$TMP/regressed.folded"
expect_status "regression at exactly its growth passes (more than PCT fails)" 0 \
  "$PROFKIT" diff --fail-on-increase 33.66 "$TMP/base.folded" "$TMP/regressed.folded"
expect_status "regression just under its growth fails" 3 \
  "$PROFKIT" diff --fail-on-increase 33.6 "$TMP/base.folded" "$TMP/regressed.folded"

expect_status "a longer run fails without --normalize" 3 "$PROFKIT" diff --fail-on-increase 5 "$TMP/base.folded" "$TMP/longer.folded"
expect_status "a longer run passes with --normalize" 0 "$PROFKIT" diff --normalize --fail-on-increase 0 "$TMP/base.folded" "$TMP/longer.folded"
expect_status "regression still fails with --normalize" 3 "$PROFKIT" diff --normalize --fail-on-increase 5 "$TMP/base.folded" "$TMP/regressed.folded"

# The JSON form carries the same verdict and exit status.
expect_status "JSON gate exit" 3 "$PROFKIT" diff --json --fail-on-increase 5 "$TMP/base.folded" "$TMP/regressed.folded"
expect_eq "JSON gate" "False $(grep -c '^FAIL' "$TMP/out.text") hash_block" "$(python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["gate"]
print(g["passed"], len(g["failed"]), [f["name"] for f in g["failed"] if f["what"] == "flat"][0])' "$TMP/out" 2>&1)"

# Usage errors are 2, bad input 1: never confused with the gate's 3.
expect_status "bad percentage" 2 "$PROFKIT" diff --fail-on-increase x "$TMP/base.folded" "$TMP/base.folded"
expect_status "negative percentage" 2 "$PROFKIT" diff --fail-on-increase -1 "$TMP/base.folded" "$TMP/base.folded"
expect_status "missing file" 1 "$PROFKIT" diff --fail-on-increase 5 "$TMP/base.folded" "$TMP/none.folded"
finish
