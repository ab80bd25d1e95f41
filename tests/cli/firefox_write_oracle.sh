#!/usr/bin/env bash
# The Firefox writer against the Firefox Profiler's own loader (docs/testing.md;
# scripts/tools.sh installs it). Every fixture of ../shared that profkit
# reads and every tests/data/FORMAT/ok_* file (read with --format FORMAT; it
# must read), whatever its format, is converted with `profkit convert --to
# firefox` (.json, and .json.gz for every fourth file), loaded by
# @firefox-devtools/profiler-cli, and must give thread by thread the same
# per-function self and total values as profkit's folded output of the same
# thread and value type (the default value and one other).
# tests/oracle/ff_compare.py does the comparison; this script picks the files
# and makes sure no loader daemon outlives the test.
. "$(dirname "$0")/lib.sh"
need_shared
need_loader "$TMP/work/sessions"

mapfile -t files < <(
  { find "$FIX" -type f; ls "$PROFKIT_SRC"/tests/data/*/ok_* 2> /dev/null; } |
    grep -v -e '/README' -e '/LICENSE' -e '\.expect$' | sort)
[ ${#files[@]} -gt 0 ] || { fail "no input files"; finish; }

# Markers whose payloads the viewer interprets (it refuses to derive markers
# when a Network marker has no end time, as an instant STATUS_STOP would
# have), and an IPC message between two processes, in a raw Gecko profile
# shaped like Firefox's: they must load too.
python3 - "$TMP/markers.gecko.json" << 'PY'
import json, sys
strings = ["(root)", "main (in libxul.so)", "work (in libxul.so)", "Load 1: https://example.org/",
           "IPCOut", "Text", "Paint"]
net = {"type": "Network", "id": 11, "URI": "https://example.org/", "pri": 0, "count": 0,
       "startTime": 3.0, "endTime": 3.0}
thread = {
    "name": "GeckoMain", "processType": "default", "pid": "100", "tid": 100,
    "samples": {"schema": {"stack": 0, "time": 1, "eventDelay": 2},
                "data": [[2, 1.0 + i, 0] for i in range(6)] + [[1, 7.5, 0]]},
    "stackTable": {"schema": {"prefix": 0, "frame": 1}, "data": [[None, 0], [0, 1], [1, 2]]},
    "frameTable": {"schema": {"location": 0, "relevantForJS": 1, "innerWindowID": 2, "implementation": 3,
                              "line": 4, "column": 5, "category": 6, "subcategory": 7},
                   "data": [[0], [1], [2]]},
    "markers": {"schema": {"name": 0, "startTime": 1, "endTime": 2, "phase": 3, "category": 4, "data": 5},
                "data": [
                    [3, 2.0, 2.5, 1, 0, dict(net, status="STATUS_START", startTime=2.0, endTime=2.5)],
                    [3, 3.0, 3.0, 1, 0, dict(net, status="STATUS_STOP")],
                    [3, 4.0, None, 0, 0, dict(net, id=12, status="STATUS_STOP", startTime=4.0, endTime=4.0)],
                    [4, 5.0, None, 0, 0, {"type": "IPC", "otherPid": "200", "messageType": "PContent::Msg_X",
                                          "messageSeqno": 1, "side": "parent", "direction": "sending",
                                          "phase": "endpoint", "sync": False}],
                    [5, 5.5, None, 0, 0, {"type": "Text", "name": "hello"}],
                    [6, 6.0, 6.5, 1, 0, None],
                ]},
    "stringTable": strings,
}
# The receiving side of the IPC message, in another process.
peer = json.loads(json.dumps(thread))
peer.update(name="Child", pid="200", tid=200)
peer["markers"]["data"] = [[4, 5.25, None, 0, 0, {"type": "IPC", "otherPid": "100",
                                                  "messageType": "PContent::Msg_X", "messageSeqno": 1,
                                                  "side": "child", "direction": "receiving",
                                                  "phase": "endpoint", "sync": False}]]
doc = {"meta": {"version": 36, "startTime": 1000.0, "interval": 1, "product": "Firefox",
                "categories": [{"name": "Other", "color": "grey", "subcategories": ["Other"]}]},
       "threads": [thread, peer], "processes": [], "pausedRanges": []}
json.dump(doc, open(sys.argv[1], "w"))
PY
files+=("$TMP/markers.gecko.json")

# Bounded: the helper gives every loader command a timeout.
if timeout 1700 python3 "$PROFKIT_SRC/tests/oracle/ff_compare.py" --profkit "$PROFKIT" --cli "$CLI" \
     --work "$TMP/work" --data "$PROFKIT_SRC/tests/data" --max-values 1 "${files[@]}" > "$TMP/report" 2>&1; then
  pass
else
  fail "the Firefox Profiler's loader disagrees with profkit (or a conversion failed)"
fi
grep -v '^PASS' "$TMP/report"
# Every readable format must have taken part.
for fmt in $("$PROFKIT" --formats | awk 'NR > 1 && $2 ~ /^r/ {print $1}'); do
  n=0
  for f in "${files[@]}"; do
    case $f in */"$fmt"/*) grep -q "^PASS $f" "$TMP/report" && n=$((n + 1)) ;; esac
  done
  if [ "$n" -gt 0 ]; then
    pass
  elif [ -d "$PROFKIT_SRC/tests/data/$fmt" ] || [ -d "$FIX/$fmt" ]; then
    fail "format $fmt: none of its files went through the loader"
  else
    echo "note: format $fmt has no fixture directory; not checked"
  fi
done
finish
