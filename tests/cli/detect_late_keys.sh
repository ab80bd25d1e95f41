#!/usr/bin/env bash
# Detection by content anywhere in a JSON profile's top object, not by the
# keys' positions (issue 27's real files, made here in other shapes):
#   - a Node 10 .cpuprofile (the nested "head" tree) whose "samples" and
#     "timestamps" (megabytes) come before "head";
#   - a Firefox DevTools export whose panel keys ("markers", "frames",
#     "ticks": megabytes) come before "profile", "fileType" last;
#   - a Chrome .cpuprofile whose "nodes" come last;
#   - a raw Gecko profile written with sorted keys ("libs", 250 KB, first)
#     and a processed one whose "shared" tables (megabytes) come first;
#   - text formats whose first sample is past the first 64 KiB: `perf
#     script --header` output with a long header, a folded file after
#     many comment lines, a folded file whose first stack is 300 KB.
# Each is detected without --format and reads every sample.
. "$(dirname "$0")/lib.sh"
python3 - "$TMP" << 'PY'
import json, sys
d = sys.argv[1]
leaf = {"functionName": "work", "url": "file:///a.js", "lineNumber": 9, "callUID": 3,
        "bailoutReason": "", "id": 3, "scriptId": 5, "hitCount": 5, "children": []}
head = {"functionName": "(root)", "url": "", "lineNumber": 0, "callUID": 1, "bailoutReason": "",
        "id": 1, "scriptId": 0, "hitCount": 0, "children": [
            {"functionName": "main", "url": "file:///a.js", "lineNumber": 3, "callUID": 2,
             "bailoutReason": "", "id": 2, "scriptId": 5, "hitCount": 2, "children": [leaf]}]}
n = 300000
node = {"startTime": 1000.0, "endTime": 1000.0 + n / 1e6, "samples": [2, 3] * (n // 2),
        "timestamps": [1000000000 + i for i in range(n)], "head": head}
open(d + "/node10.cpuprofile", "w").write(json.dumps(node))
raw = {"meta": {"version": 3, "interval": 1, "stackwalk": 1, "startTime": 0, "processType": 0},
       "libs": [], "processes": [], "threads": [{"name": "GeckoMain", "processType": "default", "tid": 1, "pid": 1,
       "samples": {"schema": {"stack": 0, "time": 1}, "data": [[1, float(i)] for i in range(7)]},
       "markers": {"schema": {"name": 0, "time": 1, "data": 2}, "data": []},
       "stackTable": {"schema": {"prefix": 0, "frame": 1}, "data": [[None, 0], [0, 1]]},
       "frameTable": {"schema": {"location": 0, "implementation": 1, "optimizations": 2, "line": 3, "category": 4},
                      "data": [[0, None, None, None, None], [1, None, None, None, None]]},
       "stringTable": ["main (a.js:1)", "work (a.js:5)"]}]}
panel = {"label": "", "duration": 7.0,
         "markers": [{"name": "Reflow", "start": i, "end": i + 1, "stack": None} for i in range(40000)],
         "frames": [{"location": "f%d" % i, "line": i} for i in range(20000)],
         "memory": [], "ticks": list(range(100000)), "allocations": {"sites": [], "timestamps": []},
         "profile": raw, "configuration": {}, "systemHost": {}, "systemClient": {},
         "fileType": "Recorded Performance Data", "version": 2}
open(d + "/devtools.json", "w").write(json.dumps(panel))
nodes = [{"id": 1, "callFrame": {"functionName": "(root)", "scriptId": "0", "url": "", "lineNumber": -1, "columnNumber": -1}, "children": [2]},
         {"id": 2, "callFrame": {"functionName": "work", "scriptId": "1", "url": "a.js", "lineNumber": 1, "columnNumber": 1}}]
chrome = {"startTime": 0, "endTime": n, "samples": [2] * n, "timeDeltas": [1] * n, "nodes": nodes}
open(d + "/chrome.cpuprofile", "w").write(json.dumps(chrome))
d = sys.argv[1]
with open(d + "/header.perf", "w") as f:
    f.write("".join("# cmdline : perf record -g -- a long command line, header line %d\n" % i for i in range(3000)))
    f.write("prog 123 [000] 100.000001:     250000 cpu-clock:pppH: \n\t400a1b leaf+0x1 (/bin/prog)\n\t400b2c main+0x2 (/bin/prog)\n\n")
    f.write("prog 123 [000] 100.000251:     250000 cpu-clock:pppH: \n\t400a1b leaf+0x1 (/bin/prog)\n\t400b2c main+0x2 (/bin/prog)\n")
with open(d + "/comments.folded", "w") as f:
    f.write("".join("# a comment line of a folded file, number %d\n" % i for i in range(3000)))
    f.write("main;work 3\nmain 4\n")
raw["libs"] = [{"name": "lib%d.so" % i, "path": "/usr/lib/lib%d.so" % i, "debugName": "lib%d.so" % i,
                "debugPath": "/usr/lib/debug/lib%d.so" % i, "breakpadId": "0123456789ABCDEF0123456789ABCDEF0",
                "arch": "x86_64", "start": 4096 * i, "end": 4096 * i + 4096, "offset": 0} for i in range(1000)]
open(d + "/sorted_raw.json", "w").write(json.dumps(raw, sort_keys=True))
m = 20000
shared = {"stackTable": {"length": m, "prefix": [None] + list(range(m - 1)), "frame": [i % 2 for i in range(m)]},
          "frameTable": {"length": 2, "address": [-1, -1], "func": [0, 1], "line": [None, None], "column": [None, None],
                         "category": [0, 0], "subcategory": [0, 0], "inlineDepth": [0, 0], "nativeSymbol": [None, None],
                         "innerWindowID": [0, 0]},
          "funcTable": {"length": 2, "name": [0, 1], "isJS": [False, False], "relevantForJS": [False, False],
                        "resource": [-1, -1], "source": [None, None], "lineNumber": [None, None], "columnNumber": [None, None]},
          "resourceTable": {"length": 0, "name": [], "host": [], "type": []},
          "stringArray": ["main", "work"] + ["pad%d" % i for i in range(20000)]}
th = {"name": "T", "processType": "default", "pid": "1", "tid": 1,
      "samples": {"length": 5, "stack": [m - 1] * 5, "time": list(range(5))},
      "markers": {"length": 0, "name": [], "startTime": [], "endTime": [], "phase": [], "category": [], "data": []}}
meta = {"version": 30, "preprocessedProfileVersion": 50, "interval": 1, "startTime": 0,
        "categories": [{"name": "Other", "color": "grey", "subcategories": ["Other"]}]}
open(d + "/shared_first.json", "w").write(json.dumps({"shared": shared, "meta": meta, "threads": [th]}))
with open(d + "/tall.folded", "w") as f:
    f.write(";".join("frame%d" % i for i in range(30000)) + " 5\nmain 1\n")
PY
check() { # FILE FORMAT SAMPLES
  "$PROFKIT" info "$TMP/$1" > "$TMP/info" 2> "$TMP/err" || { fail "$1: $(cat "$TMP/err")"; return; }
  expect_eq "$1: detected" "$2" "$(awk '$1 == "format:" {print $2}' "$TMP/info")"
  expect_eq "$1: samples" "$3" "$(awk '$1 == "samples:" {print $2}' "$TMP/info")"
  [ "$(stat -c %s "$TMP/$1")" -gt 131072 ] && pass || fail "$1: what comes before the telling part is not past the first head"
}
check node10.cpuprofile v8_cpuprofile 300000
check devtools.json gecko 7
check chrome.cpuprofile v8_cpuprofile 300000
check sorted_raw.json gecko 7
check shared_first.json firefox 5
# (the text files: folded rows are distinct stacks, perf script rows its timed
# samples; the samples value counts)
check header.perf perf_script 2
expect_eq "header.perf: samples value" 2 "$("$PROFKIT" info "$TMP/header.perf" | awk '$1 == "samples" && $2 == "count" {print $4}')"
check comments.folded folded 2
check tall.folded folded 2
finish
