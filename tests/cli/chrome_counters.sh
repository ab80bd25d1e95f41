#!/usr/bin/env bash
# Counters in Chrome traces (docs/formats/chrome.md): the writer gives each
# timed counter sample a `C` event whose value is the running sum, the
# reader makes counters of `C` events back (count = the value less the one
# before), so `profkit counters` on the round trip of
# tests/data/gecko/ok_counters.json equals the input's but for what a `C`
# event cannot hold (descriptions, event numbers), which the writer says;
# tests/data/chrome/ok_counters.trace.json by hand (several keys, "value",
# ids, no tid, out-of-order times); the Firefox Profiler's loader, which
# imports Chrome traces, makes no counter of `C` events and loads the
# output with its samples.
. "$(dirname "$0")/lib.sh"
F="$PROFKIT_SRC/tests/data/gecko/ok_counters.json"
"$PROFKIT" convert "$F" --to chrome -o "$TMP/c.json" 2> "$TMP/w.err" && pass || fail "convert failed: $(cat "$TMP/w.err")"
expect_eq "one C event per counter sample" 11 "$(grep -c '"ph":"C"' "$TMP/c.json")"
expect_eq "the parent's malloc at 20 ms: pid, tid, category and the running sum" \
  '{"name":"malloc","ph":"C","cat":"Memory","pid":4242,"tid":4242,"ts":20000,"args":{"malloc":68608}},' \
  "$(grep '"ph":"C"' "$TMP/c.json" | sed -n 3p)"
grep -q 'Chrome trace: the descriptions and event numbers of 3 counters left out (a `C` event holds a value)' "$TMP/w.err" &&
  pass || fail "the writer's warning: $(cat "$TMP/w.err")"
"$PROFKIT" counters --json -q "$F" > "$TMP/in.json"
"$PROFKIT" counters --json -q "$TMP/c.json" > "$TMP/rt.json"
if python3 - "$TMP/in.json" "$TMP/rt.json" > "$TMP/cmp" << 'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
bad = 0
if a["zero"] != b["zero"] or len(a["counters"]) != len(b["counters"]):
    print("zero or number of counters differ"); bad = 1
for x, y in zip(a["counters"], b["counters"]):
    for k in ("name", "category", "thread", "pid", "by_order", "samples", "count", "total"):
        if x[k] != y[k]:
            print(x["name"], k, x[k], y[k]); bad = 1
    if [s[:2] + s[3:] for s in x["series"]] != [s[:2] + s[3:] for s in y["series"]]:
        print(x["name"], "series", x["series"], y["series"]); bad = 1
sys.exit(bad)
PY
then pass; else fail "round trip: $(cat "$TMP/cmp")"; fi
expect_eq "round trip --range 12ms,25ms: the parent malloc's total" "$("$PROFKIT" counters --range 12ms,25ms -q "$F" | grep -m1 total:)" \
  "$("$PROFKIT" counters --range 12ms,25ms -q "$TMP/c.json" | grep -m1 total:)"

# by hand: JSHeap (1000 at 1 ms, 4000 at 2 ms, 1500 at 3 ms, given out of
# order); pets has two keys: two counters "pets cats" and "pets dogs", of
# no thread (no tid), the string arg passed over; queue "value" with ids
# a and b: two counters
H="$PROFKIT_SRC/tests/data/chrome/ok_counters.trace.json"
expect_eq "counters of C events: name, category, thread, pid, series" \
"JSHeap|v8|CrRendererMain|7|[[0, 1000, 0, 1000], [1, 3000, 0, 4000], [2, -2500, 0, 1500]]
pets cats||None|7|[[0, 1, 0, 1], [1.5, 2, 0, 3]]
pets dogs||None|7|[[0, 2, 0, 2], [1.5, -1, 0, 1]]
queue||CrRendererMain|7|[[0.2, 5, 0, 5], [0.8, -3, 0, 2]]
queue||CrRendererMain|7|[[0.2, 9, 0, 9]]" \
  "$("$PROFKIT" counters --json -q "$H" | python3 -c '
import json, sys
for c in json.load(sys.stdin)["counters"]:
    print("|".join(str(v) for v in (c["name"], c["category"], c["thread"] and c["thread"]["name"], c["pid"], c["series"])))')"
expect_eq "C events make no thread" 1 "$("$PROFKIT" info -q "$H" | sed -n 's/^threads: *//p')"

# The loader: no counter from C events, the samples as from the output without them
if [ -d "$PROFKIT_TOOLS/node_modules/@firefox-devtools/profiler-cli" ]; then
  need_loader "$TMP/sessions"
  if python3 - "$CLI" "$TMP" "$TMP/c.json" > "$TMP/loader" 2>&1 << 'PY'
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["PROFKIT_SRC"], "tests", "oracle"))
from loader import Loader
cli, work, path = sys.argv[1:4]
loader = Loader(cli, work)
loader.load(path)
try:
    n = len(loader.json("counter", "list")["counters"])
    print("counters", n)
    sys.exit(0 if n == 0 else 1)
finally:
    loader.stop_all()
PY
  then pass; else fail "the loader on profkit's Chrome output with counters: $(tail -3 "$TMP/loader")"; fi
else
  fail "the Firefox Profiler loader is not installed: run scripts/tools.sh"
fi
finish
