#!/usr/bin/env bash
# `profkit markers`: the groups and the list of a Firefox profile's markers
# with the Firefox Profiler's numbers (its loader shows the same for
# argument-values.json: DOMEvent 36.772042 ms, Awake 37.472583 ms from
# -0.2795 ms, IPC Accumulator 228.861916 ms, 11 markers of 13 rows), the
# filters, usage errors, and the Firefox writer keeping what the markers
# need: phases, only the times a phase has, meta.startTime, the process
# start time, real tids; a profkit-only round trip gives the same list.
. "$(dirname "$0")/lib.sh"
need_shared
F="$FIX/firefox/argument-values.json"
D="$PROFKIT_SRC/tests/data"

expect_status "markers --help" 0 "$PROFKIT" markers --help
grep -q -- "--min-duration MS" "$TMP/out" && pass || fail "--help lacks --min-duration"

"$PROFKIT" markers -q "$F" > "$TMP/groups.txt"
expect_eq "groups header" "thread 0: GeckoMain (file:// Content, pid 39156, tid 2503164): 11 markers" \
  "$(head -1 "$TMP/groups.txt")"
expect_eq "ChromeUtils group" "2 0.023 0.050 0.037 0.050 0.050 ChromeUtils.importESModule" \
  "$(awk '/ChromeUtils/ { print $1, $2, $3, $4, $5, $6, $7 }' "$TMP/groups.txt")"

"$PROFKIT" markers -q --list --json "$F" > "$TMP/list.json"
python3 - "$TMP/list.json" > "$TMP/check" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = {x["name"]: x for x in d["markers"]}
out = [d["count"], len(d["markers"]), m["DOMEvent"]["start"], m["DOMEvent"]["duration"], m["Awake"]["start"],
       m["Awake"]["duration"], m["IPC Accumulator"]["duration"], "duration" in m["Preference Read"],
       m["DOMEvent"]["category"], m["DOMEvent"]["type"], m["DOMEvent"]["data"]["eventType"],
       m["Awake"]["thread"]["tid"], m["Awake"]["thread"]["pid"],
       all(a["start"] <= b["start"] for a, b in zip(d["markers"], d["markers"][1:]))]
print(" ".join(str(x) for x in out))
PY
expect_eq "the list" "11 11 0 36.772042 -0.2795 37.472583 228.861916 False DOM DOMEvent mousedown 2503164 39156 True" \
  "$(cat "$TMP/check")"

count() { "$PROFKIT" markers -q --json --list "$@" | python3 -c 'import json, sys; print(json.load(sys.stdin)["count"])'; }
expect_eq "--search DOMEvent" 1 "$(count --search DOMEvent "$F")"
expect_eq "--search FIELD:TEXT" 1 "$(count --search eventType:mousedown "$F")"
expect_eq "--search -FIELD:TEXT" 7 "$(count --search -type:TextStack "$F")"
expect_eq "--search a,b" 2 "$(count --search "DOMEvent,Preference" "$F")"
expect_eq "--category" 4 "$(count --category javascript "$F")"
expect_eq "--min-duration" 4 "$(count --min-duration 37 "$F")"
expect_eq "--thread" 11 "$(count --thread GeckoMain "$F")"

expect_status "unknown thread" 2 "$PROFKIT" markers -q --thread nosuch "$F"
expect_status "bad --min-duration" 2 "$PROFKIT" markers --min-duration abc "$F"
grep -q "min-duration: expected milliseconds" "$TMP/err" && pass || fail "--min-duration message: $(cat "$TMP/err")"
expect_status "--db" 2 "$PROFKIT" markers --db "$TMP/x.db"
expect_eq "no markers" "no markers" "$("$PROFKIT" markers -q "$D/folded/ok_simple.folded")"

# The Firefox writer: phases and times as they came, meta.startTime, the
# process's start, real tids; no tid invented where the input has none.
"$PROFKIT" convert -q "$F" --to firefox -o "$TMP/av.json"
python3 - "$F" "$TMP/av.json" > "$TMP/check" << 'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ta, tb = a["threads"][0], b["threads"][0]
ma, mb = ta["markers"], tb["markers"]
phases = sorted(ma["phase"][i] for i in range(ma["length"])) == sorted(mb["phase"])
# an IntervalStart has no endTime, an IntervalEnd no startTime, an instant no endTime
times = all((p in (0, 2)) == (e is None) and (p == 3) == (s is None)
            for p, s, e in zip(mb["phase"], mb["startTime"], mb["endTime"]))
print(b["meta"]["startTime"] == a["meta"]["startTime"], b["meta"]["profilingStartTime"] == a["meta"]["profilingStartTime"],
      phases, times, mb["length"], abs(tb["processStartupTime"] - ta["processStartupTime"]) < 1e-6,
      abs(tb["registerTime"] - ta["registerTime"]) < 1e-6, tb["tid"] == ta["tid"], tb["pid"] == ta["pid"])
PY
expect_eq "written" "True True True True 13 True True True True" "$(cat "$TMP/check")"
"$PROFKIT" convert -q "$FIX/firefox/gecko-11.json" --to firefox -o "$TMP/g11.json"
expect_eq "no tid invented" "[]" "$(python3 -c 'import json, sys; print([t["tid"] for t in json.load(open(sys.argv[1]))["threads"] if "tid" in t])' "$TMP/g11.json")"

# profkit's own round trip: the same markers, marker for marker.
for f in "$F" "$FIX/firefox/gecko-11.json" "$FIX/firefox/processed-2.json" "$D/gecko/ok_markers.json"; do
  "$PROFKIT" convert -q "$f" --to firefox -o "$TMP/rt.json"
  for x in "$f" "$TMP/rt.json"; do
    "$PROFKIT" markers -q --list --json "$x" | python3 -c '
import json, sys
for m in json.load(sys.stdin)["markers"]:
    print(m["thread"]["index"], m["name"], m["category"], m["start"], m.get("duration"))'
  done > "$TMP/both"
  n=$(($(wc -l < "$TMP/both") / 2))
  if [ "$n" -gt 0 ] && diff <(head -n "$n" "$TMP/both") <(tail -n "$n" "$TMP/both") > /dev/null; then pass
  else fail "$(basename "$f"): round trip changes the markers"; fi
done
# gecko-11's tracing start/end pairs stay intervals, and MinorGC keeps its duration
expect_eq "gecko-11 Reflow and MinorGC" "6 1" "$("$PROFKIT" markers -q --list --json "$TMP/g11.json" | python3 -c '
import json, sys
m = json.load(sys.stdin)["markers"]
print(next(x["duration"] for x in m if x["name"] == "Reflow"), next(x["duration"] for x in m if x["name"] == "MinorGC"))')"
finish
