#!/usr/bin/env bash
# What a range of memory operations did per allocation site: `profkit
# counters --range Ams,Bms --json` gives, per bsprof thread's Memory
# counter, "sites" (per allocating call path: allocations, frees of what
# was allocated there, and what the range allocated and did not free) and
# "unmatched_frees". Checked against tests/cli/bsprof_memrange.py, which
# reads the operations from the files itself, on tests/data/bsprof, on a
# hand-made file of every case (an allocation at a live address of its own
# thread and of another thread, a free of another thread's allocation, a
# free_realloc, a free of nothing), on generated files (20 threads; a cut
# stream), and on ../shared/fixtures' bsprof files when there are any;
# past the reader's 1,000,000 kept operations (the file's first, a prefix
# of each thread's) "ops_left_out" counts the rest and "ops_kept" gives each
# thread's prefix: a range within it has its sites (as the oracle's), one
# reaching past it "sites" null.
. "$(dirname "$0")/lib.sh"
D="$PROFKIT_SRC/tests/data/bsprof"
ORACLE="$PROFKIT_SRC/tests/cli/bsprof_memrange.py"

# compare FILE: ranges of operations over the longest thread's run (the
# whole, halves, thirds, a few short ones), each thread's sites against
# the oracle's.
compare() {
  local f=$1 name
  name=$(basename "$f")
  python3 "$ORACLE" "$f" all > "$TMP/all.json" || { fail "$name: the oracle cannot read it"; return; }
  local ranges
  ranges=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
n = max([t["ops"] for t in d.values()] or [0])
r = {(0, n), (0, n // 2), (n // 3, 2 * n // 3), (n // 2, n), (2, 5), (n - 1, n), (n // 4, n // 4 + 7)}
print(" ".join("%d,%d" % x for x in sorted(r) if x[1] > x[0]))' "$TMP/all.json")
  # the oracle's figures for every range at once
  python3 "$ORACLE" "$f" "$(python3 -c 'import json, sys
r = [[int(a), int(b)] for a, b in (x.split(",") for x in sys.argv[2].split())]
print(json.dumps({t: r for t in json.load(open(sys.argv[1]))}))' "$TMP/all.json" "$ranges")" > "$TMP/want.json"
  local rs k=0
  for rs in $ranges; do
    local a=${rs%,*} b=${rs#*,}
    "$PROFKIT" counters -q --json --range "${a}ms,${b}ms" "$f" > "$TMP/c.json" || { fail "$name $rs: counters"; continue; }
    local r
    r=$(python3 - "$TMP/c.json" "$TMP/want.json" "$k" <<'PY'
import json, sys
got = {c["thread"]["name"]: c for c in json.load(open(sys.argv[1]))["counters"] if c["by_order"]}
want = json.load(open(sys.argv[2]))
k = int(sys.argv[3])
bad = []
if sorted(got) != sorted(want):
    bad.append("threads %s vs %s" % (sorted(got), sorted(want)))
keys = ["alloc_objects", "alloc_space", "free_objects", "freed_space", "inuse_objects", "inuse_space"]
for t, w in want.items():
    c = got.get(t)
    if not c:
        continue
    a, b, sites, unmatched = w["ranges"][k]
    g = {s["path"]: [s[k] for k in keys] for s in (c.get("sites") or [])}
    if c.get("sites") is None:
        bad.append("%s: no sites" % t)
    elif g != sites:
        diff = sorted(set(g) ^ set(sites)) or [p for p in g if g[p] != sites[p]]
        bad.append("%s: sites differ at %s: %s vs %s" % (t, diff[:3], [g.get(p) for p in diff[:3]], [sites.get(p) for p in diff[:3]]))
    if c.get("unmatched_frees") != unmatched:
        bad.append("%s: unmatched %s vs %s" % (t, c.get("unmatched_frees"), unmatched))
    # the graph's own figures agree: bytes in use after the range = before
    # + allocated - freed (where the series has every operation's sample:
    # up to 8,192 operations a thread)
    series = c["series"]
    every = w["ops"] <= 8192 and len(series) == min(b, w["ops"]) - a
    if c.get("sites") is not None and series and every:
        net = sum(s["alloc_space"] - s["freed_space"] for s in c["sites"])
        if series[-1][3] != c["total"]["start"] + net:
            bad.append("%s: in use after the range %d != %d + %d" % (t, series[-1][3], c["total"]["start"], net))
print("; ".join(bad))
PY
)
    [[ -z $r ]] && pass || fail "$name ops $rs: $r"
    k=$((k + 1))
  done
}

for f in "$D"/ok_*.bsprof; do compare "$f"; done

# a hand-made file of every case: A allocates 0x10 (100) and 0x20 (200);
# B frees A's 0x10; A allocates at 0x20 again (300: its own live one freed
# unseen); B allocates at 0x20 (400: A's freed unseen, an operation of A's
# too); A frees 0x30 (nothing there); A free_reallocs B's 0x20, then
# allocates 0x40 (50).
cat > "$TMP/cases.txt" <<'ASM'
header lines=0 mem=1 strings=t|||||
string 1 f.brs
string 2 mainA
string 3 allocA
string 4 mainB
string 5 allocB
string 6 A
string 7 B
module 1 6
module 2 7
pe 1 0 1 1 1 2
pe 2 1 1 1 3
pe 3 0 2 1 10 4
pe 4 3 1 11 5
alloc 2 0x10 100
alloc 2 0x20 200
free 4 0x10
alloc 2 0x20 300
alloc 4 0x20 400
free 2 0x30
realloc 2 0x20
alloc 2 0x40 50
end 1
ASM
cc -O1 -o "$TMP/gen" "$PROFKIT_SRC/bench/bsprof_gen.c" || { fail "cannot build the generator"; finish; }
"$TMP/gen" asm "$TMP/cases.txt" "$TMP/cases.bsprof" || fail "cannot assemble the cases"
compare "$TMP/cases.bsprof"
# by hand: A's operations are 0x10 +100, 0x20 +200, B's free of 0x10,
# 0x20 +300 (freeing the 200), B's 0x20 freeing the 300, the free of
# nothing, 0x40 +50; B's: 0x20 +400, its free_realloc by A. Operations
# 1..4: A allocates 200 and 300 there and frees the 100, 200 and 300; B
# frees its 400 (allocated before the range).
"$PROFKIT" counters -q --json --range 1ms,5ms "$TMP/cases.bsprof" > "$TMP/c.json"
expect_eq "cases: A's operations 1..4 by hand" \
  "A [['mainA;allocA', 2, 500, 3, 600, 0, 0]] 0
B [['mainB;allocB', 0, 0, 1, 400, 0, 0]] 0" \
  "$(python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["counters"]:
    print(c["thread"]["name"], [[s["path"], s["alloc_objects"], s["alloc_space"], s["free_objects"], s["freed_space"], s["inuse_objects"], s["inuse_space"]] for s in c["sites"]], c["unmatched_frees"])' "$TMP/c.json")"

# generated: 20 threads whose frees are often of other threads' allocations
"$TMP/gen" random "$TMP/g20.bsprof" modules=20 elements=300 cpu=2000 memops=20000 live=800 unknown=2 seed=5 2> /dev/null
compare "$TMP/g20.bsprof"
"$TMP/gen" random "$TMP/g1.bsprof" modules=1 elements=200 cpu=100 memops=20000 live=3000 lines=0 seed=9 2> /dev/null
compare "$TMP/g1.bsprof"
# a cut stream: the operations up to the cut
head -c 150000 "$TMP/g1.bsprof" > "$TMP/gcut.bsprof"
compare "$TMP/gcut.bsprof"

# ../shared/fixtures: every bsprof file there
if [[ -d "$PROFKIT_SHARED/fixtures" ]]; then
  while IFS= read -r -d '' f; do compare "$f"; done < <(find "$PROFKIT_SHARED/fixtures" -name '*.bsprof' -print0)
fi

# past the budget: the reader keeps the records of the file's first
# 1,000,000 operations (each thread's a prefix of its own) and counts the
# rest as left out (the generator's account: "memory NAME FINAL PEAK OPS"
# per module); a range within a thread's kept operations has its sites (as
# the oracle's), one reaching past them none
"$TMP/gen" random "$TMP/big.bsprof" modules=2 elements=100 cpu=10 memops=1100000 live=1000 seed=3 \
  expect="$TMP/big.expect" 2> /dev/null
"$PROFKIT" counters -q --json "$TMP/big.bsprof" > "$TMP/c.json"
"$PROFKIT" counters -q --json --range 1000ms,2000ms "$TMP/big.bsprof" > "$TMP/c2.json"
if python3 "$PROFKIT_SRC/tests/oracle/validate_json.py" "$PROFKIT_SRC/docs/report.schema.json" "$TMP/c.json" "$TMP/c2.json" > "$TMP/v.out"; then
  pass
else
  fail "past the budget: counters --json is not valid against docs/report.schema.json: $(head -c 300 "$TMP/v.out")"
fi
kept=$(python3 -c 'import json, sys
c = [c for c in json.load(open(sys.argv[1]))["counters"] if c["by_order"]]
print(" ".join("%s=%d" % (x["thread"]["name"], x["ops_kept"][1]) for x in c))' "$TMP/c.json")
expect_eq "past 1,000,000 operations: ops_left_out the operations past the first million, ops_kept each thread's prefix, a million in all" \
  "$(( $(awk '$1 == "memory" { n += $5 } END { print n }' "$TMP/big.expect") - 1000000 )) 1000000 True [None, None]" \
  "$(python3 -c 'import json, sys
c = [c for c in json.load(open(sys.argv[1]))["counters"] if c["by_order"]]
print(c[0]["ops_left_out"], sum(x["ops_kept"][1] for x in c), all(x["ops_kept"][0] == 0 and x["ops_kept"][1] > 0 for x in c), [x["sites"] for x in c])' "$TMP/c.json")"
# each thread's ranges: early, the last 50 kept (ending exactly at the
# prefix's end), and one operation further
python3 "$ORACLE" "$TMP/big.bsprof" "$(python3 -c 'import json, sys
r = {}
for kv in sys.argv[1].split():
    t, k = kv.split("=")
    r[t] = [[1000, 2000], [int(k) - 50, int(k)]]
print(json.dumps(r))' "$kept")" > "$TMP/want.json"
for kv in $kept; do
  t=${kv%=*} k=${kv#*=}
  for rs in "1000,2000,0" "$((k - 50)),$k,1" "$((k - 50)),$((k + 1)),-"; do
    IFS=, read -r a b w <<< "$rs"
    "$PROFKIT" counters -q --json --range "${a}ms,${b}ms" "$TMP/big.bsprof" > "$TMP/c.json"
    r=$(python3 - "$TMP/c.json" "$TMP/want.json" "$t" "$w" "$k" <<'PY'
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["counters"] if c["by_order"] and c["thread"]["name"] == sys.argv[3]][0]
keys = ["alloc_objects", "alloc_space", "free_objects", "freed_space", "inuse_objects", "inuse_space"]
bad = []
if c.get("ops_kept") != [0, int(sys.argv[5])]:
    bad.append("ops_kept %s" % c.get("ops_kept"))
if sys.argv[4] == "-":
    if c.get("sites") is not None:
        bad.append("sites past the kept operations: %s" % c["sites"][:2])
else:
    a, b, sites, unmatched = json.load(open(sys.argv[2]))[sys.argv[3]]["ranges"][int(sys.argv[4])]
    g = {s["path"]: [s[k] for k in keys] for s in (c.get("sites") or [])}
    if c.get("sites") is None or not g:
        bad.append("no sites")
    elif g != sites:
        diff = sorted(set(g) ^ set(sites)) or [p for p in g if g[p] != sites[p]]
        bad.append("sites differ at %s" % diff[:3])
    if c.get("unmatched_frees") != unmatched:
        bad.append("unmatched %s vs %s" % (c.get("unmatched_frees"), unmatched))
print("; ".join(bad))
PY
)
    [[ -z $r ]] && pass || fail "past the budget, $t ops $a..$b: $r"
  done
done
finish
