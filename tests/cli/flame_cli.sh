#!/usr/bin/env bash
# `profkit flame`: the page's data (docs/viewer.md, schema 1) for a profile
# of every input format in tests/data, checked by flame_check.py against
# `profkit info`'s totals; names that try to end the <script> element;
# --min-percent and --max-nodes (bounded, totals kept); --diff; --thread;
# the SVG; atomic output; usage errors.
. "$(dirname "$0")/lib.sh"
D="$PROFKIT_SRC/tests/data"
CHECK="python3 $PROFKIT_SRC/tests/cli/flame_check.py"

# The totals `profkit info` prints, one per value type, comma-separated.
info_totals() {
  "$PROFKIT" info -q "$@" | sed -n 's/^  [^ ]\{1,\} \{1,\}[^ ]\{1,\} \{1,\}total \(-\{0,1\}[0-9]\{1,\}\) .*/\1/p' | paste -sd,
}

# expect_page WHAT PAGE CHECK-ARGS...: flame_check.py passes.
expect_page() {
  local what=$1 page=$2; shift 2
  if $CHECK "$page" "$@" > "$TMP/check" 2>&1; then pass; else fail "$what: $(head -3 "$TMP/check")"; fi
}

# Every input format: the page is written and its data is true to the profile.
for f in gperftools/ok_le32.prof gperftools/ok_be64.prof pprof/ok_full.pb pprof/ok_go_order.pb \
  folded/ok_simple.folded bsprof/ok_lines.bsprof bsprof/ok_nomem.bsprof br/ok_sampled.brprof \
  br/ok_timed.brprof dcpi/ok_canonical.dcpi gecko/ok_weights.json gecko/ok_nested_processes.json \
  firefox/ok_flags_v75.json firefox/ok_v24.json; do
  out="$TMP/$(basename "$f").html"
  expect_status "flame $f" 0 "$PROFKIT" flame -q "$D/$f" -o "$out"
  totals=$(info_totals "$D/$f")
  [ -n "$totals" ] || fail "no totals from profkit info $f"
  expect_page "flame $f" "$out" --totals "$totals"
  # each thread's tree sums to its folded stacks (the default value)
  n=$($CHECK "$out" --print 'len(d["threads"])')
  for ((t = 1; t < n; t++)); do
    name=$($CHECK "$out" --print "d['strings'][d['threads'][$t]['name']]")
    dup=$($CHECK "$out" --print "sum(d['strings'][x['name']] == '$name' for x in d['threads'][1:])")
    [ "$dup" = 1 ] || continue # thread names can repeat; --thread NAME takes the first
    got=$($CHECK "$out" --print "sum(d['threads'][$t]['tree']['self'][d['default_value']])")
    # (plus the samples without a stack, which folded leaves out and names)
    want=$("$PROFKIT" convert --to folded --thread "$name" "$D/$f" 2> "$TMP/folded.err" | awk '{ s += $NF } END { printf "%d", s }')
    left=$(sed -n 's/.*samples without a stack (a value of \([0-9]*\)) left out.*/\1/p' "$TMP/folded.err")
    [ -n "$left" ] && want=$((want + left))
    expect_eq "$f thread $name total" "$want" "$got"
  done
done
# Timed profiles carry runs of samples, untimed ones none.
expect_eq "timed BR has runs" True "$($CHECK "$TMP/ok_timed.brprof.html" --print '"samples" in d["threads"][1]')"
expect_eq "gecko has runs" True "$($CHECK "$TMP/ok_weights.json.html" --print 'all("samples" in t for t in d["threads"][1:])')"
expect_eq "gperftools has no runs" False "$($CHECK "$TMP/ok_le32.prof.html" --print 'any("samples" in t for t in d["threads"])')"
expect_eq "merged first" "True False" "$($CHECK "$TMP/ok_lines.bsprof.html" --print 'd["threads"][0]["merged"], d["threads"][1]["merged"]' | tr -d '(),')"
expect_eq "format" gperftools "$($CHECK "$TMP/ok_le32.prof.html" --print 'd["format"]')"

# Standard output when there is no -o, so it pipes.
"$PROFKIT" flame -q "$D/folded/ok_simple.folded" > "$TMP/stdout.html"
expect_page "flame to stdout" "$TMP/stdout.html" --totals 7
expect_eq "title" "$D/folded/ok_simple.folded" "$($CHECK "$TMP/stdout.html" --print 'd["title"]')"

# Names that try to end the data's <script> element or open a comment.
printf 'main;</script><script>alert(1)</script> 3\nmain;<!--<script> 4\nmain;a&b>"c" 2\n' > "$TMP/evil.folded"
expect_status "flame evil names" 0 "$PROFKIT" flame "$TMP/evil.folded" -o "$TMP/evil.html" --title '</script><b>x'
expect_page "evil names" "$TMP/evil.html" --totals 9
expect_eq "evil names read back" "True" "$($CHECK "$TMP/evil.html" --print '"</script><script>alert(1)</script>" in strings and "<!--<script>" in strings and d["title"] == "</script><b>x"')"

# --min-percent: 1000 leaves of 1 under a node of 10000: below 0.025% each,
# they become one (other) of 1000; with 0 every one stays.
python3 -c '
print("main;big 10000")
for i in range(1000): print("main;small;f%d 1" % i)' > "$TMP/wide.folded"
"$PROFKIT" flame "$TMP/wide.folded" -o "$TMP/wide.html"
expect_page "wide" "$TMP/wide.html" --totals 11000
expect_eq "one (other) of 1000" "[1000]" "$($CHECK "$TMP/wide.html" --print '[d["threads"][0]["tree"]["self"][0][i] for i, f in enumerate(d["threads"][0]["tree"]["func"]) if f == -2]')"
"$PROFKIT" flame --min-percent 0 "$TMP/wide.folded" -o "$TMP/wide0.html"
expect_eq "--min-percent 0 keeps all" "1004" "$($CHECK "$TMP/wide0.html" --print 'len(d["threads"][0]["tree"]["func"])')"
# --max-nodes: bounded over all trees, (other) included; totals kept.
for n in 2 10 57 500; do
  "$PROFKIT" flame --min-percent 0 --max-nodes $n "$TMP/wide.folded" -o "$TMP/capped.html"
  expect_page "--max-nodes $n" "$TMP/capped.html" --totals 11000 --max-nodes $((n < 4 ? 4 : n))
  expect_eq "--max-nodes $n thread total" 11000 "$($CHECK "$TMP/capped.html" --print 'sum(d["threads"][1]["tree"]["self"][0])')"
done
# The biggest node survives the cap.
expect_eq "big kept" True "$($CHECK "$TMP/capped.html" --print '"big" in [strings[d["funcs"]["name"][f]] for f in d["threads"][0]["tree"]["func"] if f >= 0]')"

# --thread: one tree, not merged.
"$PROFKIT" flame -q --thread TaskNode "$D/bsprof/ok_lines.bsprof" -o "$TMP/thread.html"
expect_page "--thread" "$TMP/thread.html" --threads 1
expect_eq "--thread tree" "False TaskNode 550" "$($CHECK "$TMP/thread.html" --print 'd["threads"][0]["merged"], strings[d["threads"][0]["name"]], sum(d["threads"][0]["tree"]["self"][0])' | tr -d "(),'")"

# --diff: one tree over both; self from NEW, base_self from BASE.
printf 'main;a 10\nmain;b 5\nmain;gone 3\n' > "$TMP/base.folded"
printf 'main;a 4\nmain;b 5\nmain;new 7\n' > "$TMP/new.folded"
expect_status "flame --diff" 0 "$PROFKIT" flame --diff "$TMP/base.folded" "$TMP/new.folded" -o "$TMP/diff.html"
expect_page "diff" "$TMP/diff.html" --totals 16 --base-totals 18 --threads 1
expect_eq "diff flags" "True $TMP/base.folded vs $TMP/new.folded" "$($CHECK "$TMP/diff.html" --print 'd["diff"], d["title"]' | tr -d "(),'")"
expect_eq "only in BASE / only in NEW" "[0, 3] [7, 0]" "$($CHECK "$TMP/diff.html" --print '" ".join(str([t["self"][0][i], t["base_self"][0][i]]) for t in [d["threads"][0]["tree"]] for n in ("gone", "new") for i, f in enumerate(t["func"]) if f >= 0 and strings[d["funcs"]["name"][f]] == n)')"
# Across formats, matched by name: a profile against itself has equal columns.
"$PROFKIT" flame -q --diff "$D/pprof/ok_full.pb" "$D/pprof/ok_full.pb" -o "$TMP/self.html"
expect_eq "diff against itself" True "$($CHECK "$TMP/self.html" --print 'd["threads"][0]["tree"]["self"] == d["threads"][0]["tree"]["base_self"]')"

# The SVG: XML, the root frame covers the whole width, titles carry values.
expect_status "flame svg" 0 "$PROFKIT" flame -q "$D/bsprof/ok_lines.bsprof" --value wall -o "$TMP/f.svg"
cat > "$TMP/svg.py" <<'PY'
import sys, xml.etree.ElementTree as E
ns = {"s": "http://www.w3.org/2000/svg"}
root = E.parse(sys.argv[1]).getroot()
gs = root.findall(".//s:g", ns)
rects = [g.find("s:rect", ns) for g in gs]
titles = [g.find("s:title", ns).text for g in gs]
width = float(root.get("width"))
r0 = rects[0]
print(len(gs), float(r0.get("x")) + float(r0.get("width")) - float(r0.get("x")) == width - 20, titles[0])
print(all(float(r.get("x")) >= 10 and float(r.get("x")) + float(r.get("width")) <= width - 10 + 0.2 for r in rects))
print(root.find(".//s:script", ns) is not None)
PY
expect_eq "svg" "7 True all (2.67ms, 100%)
True
True" "$(python3 "$TMP/svg.py" "$TMP/f.svg")"
# past the samples' budget each timed thread gets an activity histogram;
# the bins of all threads together stay within the page's budget (fewer per
# thread past 250 threads: not threads times 4,000), and each thread's bins
# hold its whole total of the shown value
python3 - "$TMP/many.json" <<'PY'
import sys
n, per, ev = 260, 4000, []
for i in range(n):
    ev.append('{"ph":"P","name":"Profile","id":"0x%x","pid":1,"tid":%d,"ts":%d,"args":{"data":{"startTime":%d}}}'
              % (i + 1, 1000 + i, 10 + i, 10 + i))
    ev.append('{"ph":"P","name":"ProfileChunk","id":"0x%x","pid":1,"tid":%d,"ts":%d,"args":{"data":{"cpuProfile":'
              '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":0,"url":"","lineNumber":-1,'
              '"columnNumber":-1}},{"id":2,"parent":1,"callFrame":{"functionName":"f%d","scriptId":1,"url":"a.js",'
              '"lineNumber":1,"columnNumber":1}}],"samples":[%s]},"timeDeltas":[%s]}}}'
              % (i + 1, 1000 + i, 11 + i, i % 7, ",".join(["2"] * per), ",".join(["1000"] * (per - 1) + [str(i + 1)])))
open(sys.argv[1], "w").write('{"traceEvents":[%s]}' % ",".join(ev))
PY
expect_status "flame of 260 threads, 1,040,000 samples" 0 "$PROFKIT" flame -q "$TMP/many.json" -o "$TMP/many.html"
expect_eq "activity: 260 threads, at most 1,000,000 bins together, each thread's total" "260 True True" \
  "$(python3 "$PROFKIT_SRC/tests/cli/flame_check.py" "$TMP/many.html" --print '" ".join(map(str, [sum(1 for t in d["threads"] if "activity" in t), sum(len(t.get("activity", [])) for t in d["threads"]) <= 1000000, all(sum(t["activity"]) == sum(t["tree"]["self"][d["default_value"]]) > 0 for t in d["threads"] if "activity" in t)]))' 2>&1)"
# colours by name are the same in every run (the tables' hash has a secret
# drawn per process; two seeds stand for two runs)
PROFKIT_HASH_SEED=1 "$PROFKIT" flame -q "$D/bsprof/ok_lines.bsprof" -o "$TMP/seed1.svg"
PROFKIT_HASH_SEED=2 "$PROFKIT" flame -q "$D/bsprof/ok_lines.bsprof" -o "$TMP/seed2.svg"
expect_eq "svg the same in two runs" "same" "$(cmp -s "$TMP/seed1.svg" "$TMP/seed2.svg" && echo same || echo differ)"
"$PROFKIT" flame "$TMP/evil.folded" -o "$TMP/evil.svg"
expect_eq "svg of evil names parses" "True" "$(python3 -c 'import sys, xml.etree.ElementTree as E; t = E.parse(sys.argv[1]); print(any((x.text or "").startswith("</script><script>") for x in t.iter("{http://www.w3.org/2000/svg}title")))' "$TMP/evil.svg")"
"$PROFKIT" flame --to svg "$TMP/wide.folded" > "$TMP/to.svg"
expect_eq "--to svg to stdout" "<?xml" "$(head -c 5 "$TMP/to.svg")"
"$PROFKIT" flame --diff --to svg "$TMP/base.folded" "$TMP/new.folded" > "$TMP/diff.svg"
expect_eq "diff svg" "True" "$(python3 -c 'import sys, xml.etree.ElementTree as E; t = E.parse(sys.argv[1]); print(any("base" in (x.text or "") for x in t.iter("{http://www.w3.org/2000/svg}title")))' "$TMP/diff.svg")"

# Atomic output: a failed write leaves no file, not even a temporary one.
mkdir -p "$TMP/atomic/dir.html"
expect_status "write onto a directory" 1 "$PROFKIT" flame -q "$D/folded/ok_simple.folded" -o "$TMP/atomic/dir.html"
expect_eq "nothing left" "dir.html" "$(ls "$TMP/atomic")"
expect_status "write into a missing directory" 1 "$PROFKIT" flame -q "$D/folded/ok_simple.folded" -o "$TMP/missing/x.html"
grep -q "missing/x.html" "$TMP/err" && pass || fail "the error names the output: $(cat "$TMP/err")"
echo "previous" > "$TMP/atomic/keep.html"
expect_status "bad input keeps the old output" 1 "$PROFKIT" flame -q --strict "$D/folded/bad_no_count.folded" -o "$TMP/atomic/keep.html"
expect_eq "old output kept" "previous" "$(cat "$TMP/atomic/keep.html")"

# Usage errors exit 2.
expect_status "no input" 2 "$PROFKIT" flame -o "$TMP/x.html"
expect_status "--diff with one file" 2 "$PROFKIT" flame --diff "$TMP/base.folded"
expect_status "--diff with three files" 2 "$PROFKIT" flame --diff "$TMP/base.folded" "$TMP/base.folded" "$TMP/base.folded"
expect_status "--to pdf" 2 "$PROFKIT" flame --to pdf "$TMP/base.folded"
expect_status "unknown extension" 2 "$PROFKIT" flame "$TMP/base.folded" -o "$TMP/x.png"
expect_status "--min-percent 200" 2 "$PROFKIT" flame --min-percent 200 "$TMP/base.folded"
expect_status "--max-nodes x" 2 "$PROFKIT" flame --max-nodes x "$TMP/base.folded"
expect_status "unknown value" 2 "$PROFKIT" flame --value nope "$TMP/base.folded"
grep -q "samples" "$TMP/err" && pass || fail "unknown value lists the values: $(cat "$TMP/err")"
expect_status "unknown thread" 2 "$PROFKIT" flame --thread nope "$TMP/base.folded"
expect_status "unknown option" 2 "$PROFKIT" flame --bogus "$TMP/base.folded"
expect_status "missing file" 1 "$PROFKIT" flame "$TMP/none.folded"
expect_status "--help" 0 "$PROFKIT" flame --help
grep -q "^Usage: profkit flame" "$TMP/out" && grep -q "Examples:" "$TMP/out" && pass || fail "flame --help"
finish
