#!/usr/bin/env bash
# profkit reads the files speedscope itself exports. speedscope's own app
# (npm `speedscope`, run in Debian's chromium) imports a profile and saves
# it with its Export button; profkit must read that file to the same
# stacks and values as it reads the profile speedscope imported:
#   - speedscope's bundled example (folded) and the folded fixture;
#   - a V8 .cpuprofile recorded here by Node (`node --cpu-prof`);
#   - profkit's own speedscope output for several formats (a round trip
#     through speedscope).
# speedscope exports every profile as `evented`, so this is the evented
# path on real files. Where speedscope and profkit read the source
# differently (docs/formats/speedscope.md, "Files speedscope exports"),
# the comparison says so and allows exactly that.
. "$(dirname "$0")/lib.sh"
need_browser
SS="$PROFKIT_TOOLS/node_modules/speedscope/dist/release"
[ -e "$SS/index.html" ] || { fail "speedscope is missing at $SS (scripts/tools.sh installs it)"; finish; }
DATA="$PROFKIT_SRC/tests/data"

# folded FILE: profkit's folded stacks of FILE, sorted.
folded() { "$PROFKIT" convert -q --to folded -o - "$@" | LC_ALL=C sort; }

# The inputs, each copied under a name speedscope's importer recognises.
example=$(ls "$SS"/perf-vertx-stacks-01-collapsed-all-*.txt 2> /dev/null | head -1)
[ -n "$example" ] || fail "speedscope's bundled example is missing from $SS"
cp "$example" "$TMP/example.txt"
pairs=("$TMP/example.txt" "$TMP/example.speedscope.json")
if [ -f "$FIX/folded/perf-flamegraph.txt" ]; then
  cp "$FIX/folded/perf-flamegraph.txt" "$TMP/fixture.txt"
  pairs+=("$TMP/fixture.txt" "$TMP/fixture.speedscope.json")
else
  echo "note: $FIX is absent; the folded fixture is not compared"
fi

cat > "$TMP/work.js" << 'JS'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
let s = 0;
for (let i = 0; i < 40; i++) s += fib(24);
console.log(s);
JS
(cd "$TMP" && "$NODE" --cpu-prof --cpu-prof-dir="$TMP/cpu" work.js > /dev/null) || fail "node --cpu-prof failed"
# Cut the recording at its last sample: speedscope gives the last sample no
# time where profkit runs it to endTime (docs/formats/v8_cpuprofile.md), so
# the one sample the two weigh differently then weighs nothing in both.
python3 - "$TMP"/cpu/*.cpuprofile "$TMP/node.cpuprofile" << 'PY' || fail "node wrote no .cpuprofile"
import json, sys
d = json.load(open(sys.argv[1]))
d["endTime"] = d["startTime"] + sum(d["timeDeltas"])
json.dump(d, open(sys.argv[2], "w"))
PY
pairs+=("$TMP/node.cpuprofile" "$TMP/node.speedscope.json")

round=(gecko/ok_nested_processes.json bsprof/ok_lines.bsprof br/ok_timed.brprof pprof/ok_full.pb dcpi/ok_canonical.dcpi perf_script/ok_fields.perf)
for f in "${round[@]}"; do
  [ -f "$DATA/$f" ] || { fail "test input $DATA/$f is missing"; continue; }
  n=$(basename "$f" | tr . _)
  "$PROFKIT" convert -q --to speedscope -o "$TMP/$n.in.speedscope.json" "$DATA/$f" || fail "convert $f to speedscope"
  pairs+=("$TMP/$n.in.speedscope.json" "$TMP/$n.speedscope.json")
done

"$NODE" "$PROFKIT_SRC/tests/js/speedscope_export.mjs" "$SS/index.html" "${pairs[@]}" || fail "speedscope export (see above)"

# Each export is speedscope's own, and evented.
for ((i = 1; i < ${#pairs[@]}; i += 2)); do
  out=${pairs[i]}
  [ -s "$out" ] || continue
  if python3 - "$out" << 'PY'; then pass; else fail "$out is not an evented speedscope export"; fi
import json, sys
d = json.load(open(sys.argv[1]))
ok = d.get("exporter", "").startswith("speedscope@") and d["profiles"] and all(p["type"] == "evented" for p in d["profiles"])
sys.exit(0 if ok else 1)
PY
done

# Folded: the same stacks and values. speedscope keeps an empty frame (a
# stack ending in "; ") as a frame named " " where profkit's folded reader
# drops it (docs/formats/folded.md); drop it here too.
for n in example fixture; do
  [ -s "$TMP/$n.speedscope.json" ] || continue
  folded "$TMP/$n.txt" > "$TMP/$n.want"
  folded "$TMP/$n.speedscope.json" | python3 -c '
import sys, collections
acc = collections.OrderedDict()
for line in sys.stdin:
    stack, _, n = line.rstrip("\n").rpartition(" ")
    stack = ";".join(f for f in stack.split(";") if f.strip())
    acc[stack] = acc.get(stack, 0) + int(n)
for s in sorted(acc): print(s, acc[s])' | LC_ALL=C sort > "$TMP/$n.got"
  expect_files_eq "$n: speedscope's export reads as its source" "$TMP/$n.want" "$TMP/$n.got"
done

# V8: the same stacks and microseconds. speedscope names an anonymous
# function "(anonymous FILE:LINE)" where profkit, as DevTools, says
# "(anonymous)"; it drops (idle) samples and puts (program) and (garbage
# collector) on top of the previous sample's stack, where profkit keeps all
# three as V8 recorded them, under the root. Stacks holding any of the
# three are left out on both sides; every other must be equal.
special='(\(idle\)|\(program\)|\(garbage collector\))'
if [ -s "$TMP/node.speedscope.json" ]; then
  # (two anonymous functions of other files or lines at one place of a
  # stack are two stacks in speedscope's names and one once renamed: their
  # counts are summed, as profkit's own folded output sums them)
  sum_stacks() { awk '{ i = match($0, / -?[0-9]+$/); s[substr($0, 1, i - 1)] += substr($0, i + 1) }
                      END { for (k in s) print k, s[k] }' | LC_ALL=C sort; }
  folded "$TMP/node.cpuprofile" | grep -Ev "$special" | sum_stacks > "$TMP/node.want"
  folded "$TMP/node.speedscope.json" | sed -E 's/\(anonymous [^;)]*\)/(anonymous)/g' | grep -Ev "$special" |
    sum_stacks > "$TMP/node.got"
  expect_files_eq "node.cpuprofile: speedscope's export reads as its source" "$TMP/node.want" "$TMP/node.got"
  [ "$(grep -c . "$TMP/node.want")" -gt 3 ] && pass || fail "the recorded cpuprofile has too few stacks to compare"
fi

# Round trips: profkit -> speedscope -> profkit gives the same folded stacks,
# one thread per profile.
for f in "${round[@]}"; do
  n=$(basename "$f" | tr . _)
  [ -s "$TMP/$n.speedscope.json" ] || continue
  folded "$DATA/$f" > "$TMP/$n.want"
  folded "$TMP/$n.speedscope.json" > "$TMP/$n.got"
  expect_files_eq "$f: profkit -> speedscope -> profkit" "$TMP/$n.want" "$TMP/$n.got"
  want=$("$PROFKIT" info -q "$DATA/$f" | sed -n 's/^threads: *//p')
  got=$("$PROFKIT" info -q "$TMP/$n.speedscope.json" | sed -n 's/^threads: *//p')
  expect_eq "$f: threads after the round trip" "$want" "$got"
done
finish
