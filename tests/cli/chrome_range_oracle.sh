#!/usr/bin/env bash
# A Chrome trace's root range and the markers shown in it, against the
# Firefox Profiler's own loader (docs/formats/chrome.md, "Time range"):
# tests/data/chrome/ok_marker_edges.json is made by hand with what could
# make profkit and the loader list different markers: a marker ending
# before TracingStartedInBrowser, one starting after the last sample the
# loader keeps (its 0.5 ms rule leaves out the last samples) but within
# 1 ms of the last sample, an instant exactly at the range's end, an `X`
# of no and of negative duration, two `X` nested identically, an `E`
# before any `B`, a `B` twice, an `E` too many, a `B` never ended, and a
# second process with the same tid. Read by profkit and by the loader:
# the same root range, per thread and name the same markers, marker by
# marker the same start and duration (the negative X's, the unended B's),
# and per function the same samples (tests/oracle/chrome_compare.py
# --read). And every Chrome trace of tests/data has the loader's root
# range. ok_negative_dur.json has `X` events of negative duration (an end
# before the start) around the root range's start and end, which the
# loader shows only when their end is in it; ok_negative_dur_range.json
# one on a thread without samples, whose end starts the root range.
. "$(dirname "$0")/lib.sh"
F="$PROFKIT_SRC/tests/data/chrome/ok_marker_edges.json"

# the loader's rule, as numbers: from TracingStartedInBrowser (100.5 ms)
# to the last kept sample (103.55 ms) plus 0.5 ms
expect_eq "root range (ms)" "100.5 104.05" \
  "$("$PROFKIT" info -q --json "$F" | python3 -c 'import json,sys; r=json.load(sys.stdin)["time_range"]; print(r["start"], r["end"])')"
"$PROFKIT" markers -q --json "$F" > "$TMP/markers.json"
expect_eq "FunctionCall markers shown on pid 2 tid 2" "5" "$(python3 -c '
import json, sys
n = 0
for g in json.load(open(sys.argv[1]))["groups"]:
    if g["name"] == "FunctionCall" and g["thread"]["pid"] == 2:
        n += g["count"]
print(n)' "$TMP/markers.json")"
# the loader's durations (checked against it below, marker by marker): the
# X of dur -20 us lasts -0.02 ms (its start plus dur); the B never ended
# (101.6 ms) runs to the thread's last kept sample plus 0.5 ms, 104.05 ms,
# not to its last sample plus 0.5 ms (104.35)
expect_eq "negative X and unended B durations (ms)" "-0.02 2.45" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ms = [m for m in d["markers"] if m["thread"]["pid"] == 2 and m["thread"]["tid"] == 2]
neg = [m["duration"] for m in ms if m["name"] == "FunctionCall" and m["duration"] < 0]
open_b = [m["duration"] for m in ms if m["name"] == "ParseHTML" and abs(m["start"] - 1.1) < 1e-9]
print(*(neg + open_b))' <("$PROFKIT" markers -q --list --json "$F"))"
# --range percentages of that range: 50%,100% starts at 102.275 ms
expect_eq "--range 50%,100%: samples (102.275 ms on)" "5" \
  "$("$PROFKIT" top -q --value samples --range 50%,100% --json "$F" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')"

need_loader
if timeout 600 python3 "$PROFKIT_SRC/tests/oracle/chrome_compare.py" --profkit "$PROFKIT" --cli "$CLI" \
     --work "$TMP/work" --read "$F" "$PROFKIT_SRC"/tests/data/chrome/ok_negative_dur*.json > "$TMP/report" 2>&1; then
  pass
else
  fail "ok_marker_edges.json and ok_negative_dur*.json against the loader:"
fi
cat "$TMP/report"

# every Chrome trace of tests/data: profkit's root range is the loader's
if timeout 600 python3 - "$PROFKIT_SRC/tests/oracle" "$PROFKIT" "$CLI" "$TMP/work2" "$PROFKIT_SRC"/tests/data/chrome/ok_*.json > "$TMP/ranges" 2>&1 << 'PY'; then
import json, subprocess, sys, os
sys.path.insert(0, sys.argv[1])
from loader import Loader
profkit, cli, work, files = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
L = Loader(cli, work)
bad = 0
try:
    for f in files:
        mine = json.loads(subprocess.run([profkit, "info", "-q", "--json", f], capture_output=True,
                                         text=True, check=True).stdout)["time_range"]
        L.load(f)
        try:
            root = L.json("status")["rootRange"]
        finally:
            L("stop")
        same = abs(root["start"] - mine["start"]) < 1e-6 and abs(root["end"] - mine["end"]) < 1e-6
        bad += not same
        print("%s %s: root range %r in the loader, %r in profkit" % ("ok" if same else "FAIL", f, root, mine))
finally:
    L.stop_all()
sys.exit(1 if bad else 0)
PY
  pass
else
  fail "root ranges of tests/data/chrome against the loader:"
fi
cat "$TMP/ranges"
finish
