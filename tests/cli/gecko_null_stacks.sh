#!/usr/bin/env bash
# Samples without a stack (a null `stack` in Gecko and processed Firefox
# samples; docs/formats/gecko.md, "Samples"): each is kept on the model's
# empty stack with its time and CPU delta, as the Firefox Profiler keeps
# it: in its thread's root range and sample count, in no function.
# tests/data/gecko/ok_null_stacks.json: GeckoMain has samples at 1..6 ms,
# those at 1, 4 and 6 ms without a stack (main at 2, main;work at 3 and 5),
# and Idle has two at 1.5 and 2.5 ms, both without a stack (and no stack
# table at all). Checked: the counts, the root range, --range, and what
# each writer does with them (Firefox and Chrome keep them, folded says it
# cannot), read back.
. "$(dirname "$0")/lib.sh"
F="$PROFKIT_SRC/tests/data/gecko/ok_null_stacks.json"

# info_of FILE: "rows start end threads' rows" from info --json
info_of() {
  "$PROFKIT" info -q --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["sample_rows"], d["time_range"]["start"], d["time_range"]["end"],
      " ".join("%s:%d" % (t["name"], t["sample_rows"]) for t in d["threads"]))'
}
# funcs FILE [ARGS]: "name flat cum ..." and the total from top --json
funcs() {
  local f=$1; shift
  "$PROFKIT" top -q --json "$@" "$f" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("total", d["total"], " ".join("%s:%d/%d" % (r["name"] or "(none)", r["flat"], r["cum"]) for r in d["rows"]))'
}

# every sample is kept, and the root range starts at the first (stackless) one
expect_eq "info: rows, root range (ms), threads" "8 1 7 GeckoMain:6 Idle:2" "$(info_of "$F")"
# no function gets them: main and work only, the total holds them all
expect_eq "top: functions" "total 8 work:2/2 main:1/3" "$(funcs "$F")"
expect_eq "top --thread 0" "total 6 work:2/2 main:1/3" "$(funcs "$F" --thread 0)"
expect_eq "top --thread 1 (stackless only)" "total 2 " "$(funcs "$F" --thread 1)"
# the tree has no node for them either
"$PROFKIT" tree -q --thread 0 "$F" > "$TMP/tree"
expect_eq "tree: nodes" "main work" "$(awk '$1 ~ /^[0-9]+$/ { print $NF }' "$TMP/tree" | xargs)"
# --range counts from the root range's start (1 ms): 0%,50% is 1..4 ms,
# which holds the samples at 1, 1.5, 2, 2.5 and 3 ms
expect_eq "--range 0%,50%" "total 5 main:1/2 work:1/1" "$(funcs "$F" --range 0%,50%)"
expect_eq "--range 0%,20% (stackless and main)" "total 3 main:1/1" "$(funcs "$F" --range 0%,20%)"

# Firefox: written back as null stacks, with their times and CPU deltas
"$PROFKIT" convert -q "$F" --to firefox -o "$TMP/ff.json" || fail "convert --to firefox"
expect_eq "firefox: stacks, times, deltas" \
  "GeckoMain [None, 0, 1, None, 1, None] [1, 2, 3, 4, 5, 6] [None, 100, 200, 300, 400, 500]
Idle [None, None] [1.5, 2.5] [None, 7]" \
  "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for t in d["threads"]:
    s = t["samples"]
    print(t["name"], s["stack"], s["time"], s.get("threadCPUDelta"))' "$TMP/ff.json")"
expect_eq "firefox: read back" "8 1 7 GeckoMain:6 Idle:2" "$(info_of "$TMP/ff.json")"
expect_eq "firefox: read back, top" "total 8 work:2/2 main:1/3" "$(funcs "$TMP/ff.json")"

# Chrome: a stackless sample is a sample on its thread's "(root)" node (a
# trace has no null stack), which profkit reads back as the empty stack
"$PROFKIT" convert -q "$F" --to chrome -o "$TMP/t.json" || fail "convert --to chrome"
expect_eq "chrome: samples on the (root) nodes" "3 2" "$(python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
roots, n = {}, []
for e in ev:
    if e.get("name") != "ProfileChunk" or "cpuProfile" not in e["args"].get("data", {}):
        continue  # (the X event spanning the samples holds none)
    cp = e["args"]["data"]["cpuProfile"]
    for nd in cp.get("nodes", []):
        if nd["callFrame"]["functionName"] == "(root)":
            roots[e["tid"]] = nd["id"]
    n.append(sum(1 for s in cp["samples"] if s == roots[e["tid"]]))
print(*n)' "$TMP/t.json")"
# (a Chrome trace's root range ends 0.5 ms after its last sample, the
# interval the Firefox Profiler's importer gives Chrome traces)
expect_eq "chrome: read back" "8 1 6.5 GeckoMain:6 Idle:2" "$(info_of "$TMP/t.json")"
expect_eq "chrome: read back, top (samples)" "total 8 work:2/2 main:1/3" "$(funcs "$TMP/t.json" --value samples)"

# pprof and speedscope hold a sample without a location / an empty stack
"$PROFKIT" convert -q "$F" --to pprof -o "$TMP/p.pb.gz" || fail "convert --to pprof"
expect_eq "pprof: read back, top" "total 8 work:2/2 main:1/3" "$(funcs "$TMP/p.pb.gz")"
"$PROFKIT" convert -q "$F" --to speedscope -o "$TMP/s.json" || fail "convert --to speedscope"
expect_eq "speedscope: empty stacks" "3 2" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(*[sum(1 for s in p["samples"] if not s) for p in d["profiles"]])' "$TMP/s.json")"
expect_eq "speedscope: read back, top" "total 8 work:2/2 main:1/3" "$(funcs "$TMP/s.json")"

# folded cannot hold them: left out, said once
"$PROFKIT" convert "$F" --to folded -o "$TMP/f.folded" 2> "$TMP/f.err" || fail "convert --to folded"
expect_eq "folded: lines" "main 1
main;work 2" "$(cat "$TMP/f.folded")"
expect_eq "folded: one warning" \
  "profkit: warning: $TMP/f.folded: folded stacks: samples without a stack (a value of 5) left out: a line needs a frame" \
  "$(cat "$TMP/f.err")"
"$PROFKIT" convert "$PROFKIT_SRC/tests/data/gecko/ok_weights.json" --to folded -o "$TMP/w.folded" 2> "$TMP/w.err"
expect_eq "folded: no warning without them" "" "$(cat "$TMP/w.err")"

# processed profiles (column samples) from ../shared: samply's files whose
# first (or every) sample has no stack
if [ -d "$FIX/firefox" ]; then
  expect_eq "samply profile_without_js: rows, root range" "4 0 4 test:4" \
    "$(info_of "$FIX/firefox/samply-profile_without_js-v66.json")"
  expect_eq "samply profile_without_js: top" \
    "3" "$("$PROFKIT" top -q --json "$FIX/firefox/samply-profile_without_js-v66.json" |
           python3 -c 'import json, sys; print(sum(r["flat"] for r in json.load(sys.stdin)["rows"]))')"
  expect_eq "samply profile_counters_with_sorted_processes: rows, root range" "2 0 2 test 2:1 test 1:1" \
    "$(info_of "$FIX/firefox/samply-profile_counters_with_sorted_processes-v66.json")"
fi
finish
