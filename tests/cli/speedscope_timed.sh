#!/usr/bin/env bash
# speedscope evented profiles keep their times (issue 25,
# docs/formats/speedscope.md) when every profile is evented in a time unit:
# one timed row per interval between two events, at its start. Checked on
# tests/data/speedscope/ok_evented.speedscope.json and on a file made here
# by tests/cli/speedscope_timed.py (two profiles in milliseconds), against
# the intervals that script folds independently: `info` says timed with
# the root range startValue .. endValue, `convert --range` of a sub-range
# folds exactly the intervals starting in it, the whole folded output is
# unchanged (aggregate equal), and a file of a unit that is no time, or
# with a sampled profile, stays aggregated.
. "$(dirname "$0")/lib.sh"
D="$PROFKIT_SRC/tests/data/speedscope"
PY="$PROFKIT_SRC/tests/cli/speedscope_timed.py"
range_of() { "$PROFKIT" info --json "$1" | python3 -c 'import json,sys; r=json.load(sys.stdin)["time_range"]; print(r["start"], r["end"])'; }

f="$D/ok_evented.speedscope.json"
expect_eq "ok_evented: timed" "samples:      6 rows (timed, in time order)" "$("$PROFKIT" info "$f" | grep '^samples:')"
expect_eq "ok_evented: root range startValue..endValue (ns)" "0 0.0001" "$(range_of "$f")"
expect_eq "ok_evented: folded unchanged" "main 20|main;io 30|main;work 20|main;work;hot 30|" \
  "$("$PROFKIT" convert "$f" --to folded | sort | tr '\n' '|')"
expect_eq "ok_evented: --range keeps the intervals starting in it" "main;work 10|main;work;hot 30|" \
  "$("$PROFKIT" convert --range 0.00002ms,0.00006ms "$f" --to folded | sort | tr '\n' '|')"

python3 "$PY" "$TMP/g.json" fold 0 1000 | sort > "$TMP/all.txt"
expect_eq "made file: timed" "samples:      87 rows (timed, in time order)" "$("$PROFKIT" info "$TMP/g.json" | grep '^samples:')"
expect_eq "made file: root range" "5 50" "$(range_of "$TMP/g.json")"
"$PROFKIT" convert "$TMP/g.json" --to folded | sort > "$TMP/got.txt"
expect_files_eq "made file: folded" "$TMP/all.txt" "$TMP/got.txt"
for r in "3 12" "0 0.5" "10.125 40" "44 45"; do
  set -- $r
  python3 "$PY" "$TMP/g.json" fold "$1" "$2" | sort > "$TMP/want.txt"
  "$PROFKIT" convert --range "$1ms,$2ms" "$TMP/g.json" --to folded 2> /dev/null | sort > "$TMP/got.txt"
  expect_files_eq "made file: --range $1ms,$2ms" "$TMP/want.txt" "$TMP/got.txt"
done
[ "$(wc -l < "$TMP/all.txt")" -gt 20 ] && pass || fail "the made file has too few stacks"

# not timed: a unit that is no time, or a sampled profile beside
python3 - "$TMP/g.json" "$TMP/none.json" "$TMP/mixed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = json.loads(json.dumps(d)); n["profiles"][0]["unit"] = n["profiles"][1]["unit"] = "none"
json.dump(n, open(sys.argv[2], "w"))
d["profiles"].append({"type": "sampled", "name": "s", "unit": "milliseconds", "startValue": 0,
                      "endValue": 1, "samples": [[0]], "weights": [1]})
json.dump(d, open(sys.argv[3], "w"))
PY
for g in none mixed; do
  expect_eq "$g: aggregated" "aggregated" \
    "$("$PROFKIT" info "$TMP/$g.json" 2> /dev/null | sed -n 's/^samples: .*(\(aggregated\) per stack and thread)$/\1/p')"
done
expect_files_eq "mixed: folded of the evented profiles as before" "$TMP/all.txt" \
  <("$PROFKIT" convert --thread t0 "$TMP/mixed.json" --to folded | sort | cat - <("$PROFKIT" convert --thread t1 "$TMP/mixed.json" --to folded) | sort | awk '{s[$1] += $2} END {for (k in s) print k, s[k]}' | sort)
finish
