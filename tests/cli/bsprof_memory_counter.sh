#!/usr/bin/env bash
# bsprof's memory counters: per thread, its bytes in use by operation order
# (each allocation adds its size, each free subtracts the size of what it
# frees). The exact series of a hand-made file; on random profiles the
# counter's final value is the thread's inuse_space in `profkit mem`, its
# highest total is the generator's peak and its numbers add up to the
# thread's memory operations, also where the series is thinned (more
# operations than the reader keeps one sample each for); `flame` of a file
# over 64 MB draws them (without the operations' records unless
# --markers).
. "$(dirname "$0")/lib.sh"
D="$PROFKIT_SRC/tests/data/bsprof"

# 1. ok_lines: MainScene allocates 64, 128, frees the 64, frees the 128
# (free_realloc), allocates 256 and 32; TaskNode allocates 1024 and frees
# an address never allocated (0 bytes, still an operation).
"$PROFKIT" counters -q --json "$D/ok_lines.bsprof" > "$TMP/c.json" && pass || fail "counters ok_lines"
expect_eq "ok_lines: series per thread [op, count, number, total]" \
"MainScene Memory Memory True [[0, 64, 1, 64], [1, 128, 1, 192], [2, -64, 1, 128], [3, -128, 1, 0], [4, 256, 1, 256], [5, 32, 1, 288]]
TaskNode Memory Memory True [[0, 1024, 1, 1024], [1, 0, 1, 1024]]" \
  "$(python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["counters"]:
    print(c["thread"]["name"], c["name"], c["category"], c["by_order"], c["series"])' "$TMP/c.json")"
"$PROFKIT" counters -q "$D/ok_nomem.bsprof" > "$TMP/none.txt"
expect_eq "no memory operations: no counter" "no counters" "$(cat "$TMP/none.txt")"

# 2. Random profiles against the generator's account and `profkit mem`.
cc -O1 -o "$TMP/gen" "$PROFKIT_SRC/bench/bsprof_gen.c" || { fail "cannot build the generator"; finish; }
check() { # NAME GENERATOR-ARGS...
  local g="$TMP/$1"; shift
  "$TMP/gen" random "$g.bsprof" "$@" expect="$g.expect" 2> /dev/null
  "$PROFKIT" counters -q --json "$g.bsprof" > "$g.c.json" || { fail "$g: counters"; return; }
  "$PROFKIT" mem -q --json "$g.bsprof" > "$g.mem.json" || { fail "$g: mem"; return; }
  local r
  r=$(python3 - "$g.c.json" "$g.mem.json" "$g.expect" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
mem = {t["name"]: t["inuse_space"] for t in json.load(open(sys.argv[2]))["threads"]}
want = {}
for line in open(sys.argv[3]):
    f = line.split()
    if f[0] == "memory":
        want[f[1]] = (int(f[2]), int(f[3]), int(f[4]))
errs = []
got = {}
for x in c:
    s = x["series"]
    name = x["thread"]["name"]
    ops = [p[0] for p in s]
    if ops != sorted(set(ops)):
        errs.append(name + ": operation indexes not increasing")
    if sum(p[2] for p in s) != s[-1][0] + 1:
        errs.append(name + ": numbers do not add up to the operations")
    if len(s) > 3 * 8192:
        errs.append(name + ": %d samples" % len(s))
    got[name] = (s[-1][3], max(p[3] for p in s), s[-1][0] + 1)
    if s[-1][3] != mem.get(name):
        errs.append("%s: final %d, mem inuse_space %s" % (name, s[-1][3], mem.get(name)))
if got != want:
    errs.append("got %s want %s" % (got, want))
print("; ".join(errs) or "ok")
PY
)
  expect_eq "$(basename "$g"): final = mem's inuse_space, max = peak, operations" ok "$r"
}
check small0 elements=200 modules=4 cpu=300 memops=3000 live=100 lines=0 seed=3
check small1 elements=200 modules=4 cpu=300 memops=3000 live=100 lines=1 uniform=1 seed=4
# past 8192 operations on a thread the series is thinned: still exact at
# the peak and the end
check thin elements=300 modules=3 cpu=300 memops=120000 live=2000 lines=1 seed=5
check leaky elements=100 modules=2 cpu=100 memops=40000 live=50 leak=30 unknown=5 lines=0 seed=6
# flame of a bsprof file over 64 MB draws the memory graphs (the page's
# order_counters, one per thread) but keeps no record of each operation
# (no "ops": a range does not narrow the tables), and says so; --markers
# keeps the records too
"$TMP/gen" random "$TMP/big.bsprof" modules=3 elements=2000 cpu=1000 size_mb=68 lines=0 seed=7 2> /dev/null
if [[ $(stat -c %s "$TMP/big.bsprof") -gt $((64 << 20)) ]]; then pass; else fail "the generated file is not over 64 MB"; fi
"$PROFKIT" flame "$TMP/big.bsprof" -o "$TMP/big.html" 2> "$TMP/big.err" || fail "flame of a file over 64 MB"
expect_eq "flame over 64 MB: a memory graph per thread, no operations' records" "3 0" \
  "$(grep -o '"category":"Memory","thread":' "$TMP/big.html" | wc -l) $(grep -o '"ops":{"n":' "$TMP/big.html" | wc -l)"
if grep -q "leaves their markers out, and the records by which a range of a memory graph narrows" "$TMP/big.err"; then
  pass
else
  fail "flame over 64 MB: no note of what the page leaves out: $(cat "$TMP/big.err")"
fi
# A plain file is read mapped, standard input and gzip through a buffer:
# the same answer either way, and a file's progress on a terminal says
# the share read.
"$PROFKIT" counters -q --json "$TMP/big.bsprof" > "$TMP/map.json" || fail "counters of the mapped file"
"$PROFKIT" counters -q --json - < "$TMP/big.bsprof" > "$TMP/stdin.json" || fail "counters of standard input"
gzip -1 -c "$TMP/big.bsprof" > "$TMP/big.bsprof.gz"
"$PROFKIT" counters -q --json "$TMP/big.bsprof.gz" > "$TMP/gz.json" || fail "counters of the gzip file"
cmp -s "$TMP/map.json" "$TMP/stdin.json" && pass || fail "mapped file and standard input differ"
cmp -s "$TMP/map.json" "$TMP/gz.json" && pass || fail "mapped file and gzip differ"
if command -v script > /dev/null; then
  script -qec "$PROFKIT mem -n 1 $TMP/big.bsprof" /dev/null > "$TMP/tty" 2>&1 || true
  if tr '\r' '\n' < "$TMP/tty" | grep -q "reading $TMP/big.bsprof: *[0-9]*% of 6[0-9].[0-9] MB"; then
    pass
  else
    fail "no progress with the share read: $(tr '\r' '\n' < "$TMP/tty" | head -3)"
  fi
fi
"$PROFKIT" flame -q --markers "$TMP/big.bsprof" -o "$TMP/bigm.html" || fail "flame --markers of a file over 64 MB"
expect_eq "flame --markers over 64 MB: the graphs and the records" "3 3" \
  "$(grep -o '"category":"Memory","thread":' "$TMP/bigm.html" | wc -l) $(grep -o '"ops":{"n":' "$TMP/bigm.html" | wc -l)"
finish
