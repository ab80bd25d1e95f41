#!/usr/bin/env bash
# profkit counters --range on counters by operation order (bsprof), the
# range the page's memory graph zooms to (ops=A-B is --range Ams,Bms): a
# time in ms is an operation's index, rounded (1001ms is operation 1,001,
# not 1,000), a percentage is of the thread's operations (not of its
# samples, fewer once the series is thinned); total.start is the bytes in
# use carried in, min/max over the range, the sample before it, the one
# before that and the first after.
. "$(dirname "$0")/lib.sh"
DATA="$PROFKIT_SRC/tests/data/bsprof"
# fields of MainScene's counter (ok_lines: 64, 128, -64, -128, 256, 32 at operations 0..5)
main() {
  "$PROFKIT" counters --json -q --range "$1" "$DATA/ok_lines.bsprof" | python3 -c '
import json, sys
c = [c for c in json.load(sys.stdin)["counters"] if c["thread"]["name"] == "MainScene"][0]
t = c["total"]
print(c["samples"], t["start"], t["min"], t["max"], [r[0] for r in c["series"]])'
}
expect_eq "ok_lines --range 2ms,5ms: operations 2..4, 192 B carried in" "3 192 0 288 [2, 3, 4]" "$(main 2ms,5ms)"
expect_eq "ok_lines --range 0.002,0.005 (seconds: 2 and 5 ms)" "3 192 0 288 [2, 3, 4]" "$(main 0.002,0.005)"
expect_eq "ok_lines --range 33%,67%: 1.98 and 4.02 of 6 operations, rounded" "2 192 0 256 [2, 3]" "$(main 33%,67%)"
expect_eq "ok_lines --range 0ms,1ms: operation 0, nothing carried in" "1 0 64 192 [0]" "$(main 0ms,1ms)"

# a generated file: one thread past 8,192 operations (thinned), the others not
cc -O1 -o "$TMP/gen" "$PROFKIT_SRC/bench/bsprof_gen.c" || { fail "cannot build bench/bsprof_gen.c"; finish; }
"$TMP/gen" random "$TMP/g.bsprof" modules=3 elements=300 cpu=2000 memops=60000 live=2000 seed=7 > /dev/null 2>&1
gen() {
  "$PROFKIT" counters --json -q --range "$1" "$TMP/g.bsprof" | python3 -c '
import json, sys
for c in json.load(sys.stdin)["counters"]:
    s = c["series"]
    print(c["thread"]["name"], c["samples"], s[0][0] if s else None, sum(r[2] for r in s))'
}
ALL=$("$PROFKIT" counters --json -q "$TMP/g.bsprof" | python3 -c '
import json, sys
for c in json.load(sys.stdin)["counters"]:
    s = c["series"]
    print(c["thread"]["name"], c["samples"], s[-1][0] + 1, sum(r[2] for r in s), s[0][0])')
# every thread: 0%..100% is every sample and every operation
expect_eq "generated --range 0%,100%: every sample" "$(echo "$ALL" | awk '{print $1, $2, $5, $4}')" "$(gen 0%,100%)"
# operations 1001..1002 of every thread that has a sample at each (the one not thinned)
OPS=$(echo "$ALL" | awk '$3 == $4 && $2 == $3 {print $1; exit}')
[ -n "$OPS" ] || fail "generated: no thread kept a sample per operation"
expect_eq "generated --range 1001ms,1003ms: operations 1,001 and 1,002 (rounded, not 1,000)" "$OPS 2 1001 2" "$(gen 1001ms,1003ms | grep "^$OPS ")"
# 50%..100% of a thinned thread: from half its operations, not half its samples
THIN=$(echo "$ALL" | awk '$2 < $3 {print $1, $3; exit}')
set -- $THIN
if [ -n "${1:-}" ]; then
  got=$(gen 50%,100% | grep "^$1 " | awk '{print $3}')
  half=$(( ($2 + 1) / 2 ))
  # the first sample at or after operation round(ops / 2), never before it
  if [ "$got" != None ] && [ "$got" -ge "$half" ] && [ "$got" -lt $((half + $2 / 100)) ]; then pass
  else fail "generated $1 --range 50%,100%: first sample at operation $got, expected at or after $half of $2 operations"; fi
else fail "generated: no thinned thread"; fi
finish
