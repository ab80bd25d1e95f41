#!/usr/bin/env bash
# flame --range on a profile whose page cannot hold its samples for their
# columns' bytes (fewer than 1,000,000 samples, but over the page's byte
# budget: docs/viewer.md, "time") makes the page of the range alone, as
# past 1,000,000 samples: its samples are those top --range keeps.
# Input: a generated V8 .cpuprofile of 850,000 samples on 3,000 leaves at
# random gaps (a few bytes each in the page's columns).
. "$(dirname "$0")/lib.sh"
python3 - "$TMP/big.cpuprofile" <<'PY'
import json, random, sys
r = random.Random(7)
nodes = [{"id": 1, "callFrame": {"functionName": "(root)", "scriptId": "0", "url": "", "lineNumber": -1, "columnNumber": -1}, "children": []}]
for m in range(30):
    mid = len(nodes) + 1
    nodes.append({"id": mid, "callFrame": {"functionName": "mid%d" % m, "scriptId": "1", "url": "app.js", "lineNumber": m, "columnNumber": 0}, "children": []})
    nodes[0]["children"].append(mid)
    for k in range(100):
        lid = len(nodes) + 1
        nodes.append({"id": lid, "callFrame": {"functionName": "leaf%d_%d" % (m, k), "scriptId": "1", "url": "app.js", "lineNumber": 100 + k, "columnNumber": 0}, "children": []})
        nodes[mid - 1]["children"].append(lid)
leaves = [n["id"] for n in nodes if n["callFrame"]["functionName"].startswith("leaf")]
N = 850000
samples = [r.choice(leaves) for _ in range(N)]
deltas = [r.randint(50, 20000) for _ in range(N)]
json.dump({"nodes": nodes, "startTime": 0, "endTime": sum(deltas), "samples": samples, "timeDeltas": deltas}, open(sys.argv[1], "w"))
PY
P="$TMP/big.cpuprofile"
data() { python3 -c 'import json,re,sys; t=open(sys.argv[1]).read(); d=json.loads(re.search(r"id=\"profkit-data\">(.*?)</script>", t, re.S).group(1)); print(eval(sys.argv[2]))' "$@"; }
# the whole page: over the byte budget, no samples in it
"$PROFKIT" flame -q --no-symbolize "$P" -o "$TMP/whole.html" || fail "flame of the whole"
expect_eq "the whole page leaves its samples out for their bytes" "True" \
  "$(data "$TMP/whole.html" '"samples_left_out_bytes" in d["time"]')"
# --range: the profile filtered first, the page of the range with its samples
"$PROFKIT" flame --no-symbolize --range 25%,75% "$P" -o "$TMP/range.html" 2> "$TMP/range.err" || fail "flame --range"
grep -q "columns are over the page's budget: the page is of the range 25%,75% alone" "$TMP/range.err" && pass ||
  fail "flame --range: no note: $(cat "$TMP/range.err")"
expect_eq "the range's page holds its samples" "False" "$(data "$TMP/range.html" '"samples_left_out" in d["time"]')"
expect_eq "the range's page opens on no further range" "False" "$(data "$TMP/range.html" '"range" in d["time"]')"
want=$("$PROFKIT" top -q --no-symbolize --json --range 25%,75% "$P" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
whole=$("$PROFKIT" top -q --no-symbolize --json "$P" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
got=$(data "$TMP/range.html" 'sum(d["threads"][0]["tree"]["self"][d["default_value"]])')
expect_eq "the range's page total = top --range's" "$want" "${got%.0}"
[ "$want" -lt "$whole" ] && pass || fail "the range keeps $want of $whole"
finish
