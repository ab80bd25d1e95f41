#!/usr/bin/env bash
# `profkit mem`: exact output on a small bsprof whose memory operations are
# spelled out in tests/data/bsprof/asm/ok_lines.txt: five allocations
# (64+128+256+1024+32 bytes), a free, a free_realloc then an alloc, address
# reuse, a free of an unknown address; three objects (1312 bytes) leak.
. "$(dirname "$0")/lib.sh"
D="$PROFKIT_SRC/tests/data/bsprof"

expect_status "mem" 0 "$PROFKIT" mem -q "$D/ok_lines.bsprof"
cat > "$TMP/want" <<'OUT'
Allocated: 5 objects, 1.47kB
Freed:     2 objects, 192B (3 free operations)
Live:      3 objects, 1.28kB (still allocated at the end: leaks)
Frees that matched no allocation: 1

By thread:
      live   objects  allocated   objects      freed   objects     frees  thread
      288B         2       480B         4       192B         2         2  0: MainScene
       1kB         1        1kB         1          0         0         1  1: TaskNode

By allocating call path, largest leaks first (4 of 4):
      live   objects  allocated   objects      freed   objects  path
       1kB         1        1kB         1          0         0  loadData;parseJson
      256B         1       256B         1          0         0  main;init;loadData
       32B         1        32B         1          0         0  main;init
         0         0       192B         2       192B         2  main;init;loadData;parseJson
OUT
expect_files_eq "mem" "$TMP/want" "$TMP/out"
"$PROFKIT" mem "$D/ok_lines.bsprof" > /dev/null 2> "$TMP/err2"
grep -q "offset 275: 1 free matched no live allocation" "$TMP/err2" && pass || fail "warning: $(cat "$TMP/err2")"

# --json: each allocating path's free_objects are the frees made on it, as
# `traces --value free_objects` counts them; freed_* are the text's freed
# columns (allocated - live).
"$PROFKIT" mem --json -q "$D/ok_lines.bsprof" > "$TMP/mem.json"
"$PROFKIT" traces --json -q --value free_objects "$D/ok_lines.bsprof" > "$TMP/frees.json"
python3 - "$TMP/mem.json" "$TMP/frees.json" <<'PY' && pass || fail "mem --json paths' frees"
import json, sys
mem, frees = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
want = {";".join(reversed(t["stack"])): t["value"] for t in frees["traces"]}
got = {p["path"]: p["free_objects"] for p in mem["paths"]}
assert got and any(got.values()), got
for path, n in got.items():
    assert n == want.get(path, 0), (path, n, want)
for row in [mem["total"]] + mem["threads"] + mem["paths"]:
    assert row["freed_objects"] == row["alloc_objects"] - row["inuse_objects"], row
    assert row["freed_space"] == row["alloc_space"] - row["inuse_space"], row
assert mem["paths"][-1]["freed_objects"] == 2, mem["paths"]
PY

expect_status "mem --by-line --thread 1 -n 1" 0 "$PROFKIT" mem -q --by-line --thread 1 -n 1 "$D/ok_lines.bsprof"
cat > "$TMP/want" <<'OUT'
Thread 1: TaskNode
Allocated: 1 objects, 1kB
Freed:     0 objects, 0 (1 free operations)
Live:      1 objects, 1kB (still allocated at the end: leaks)
Frees that matched no allocation: 1

By thread:
      live   objects  allocated   objects      freed   objects     frees  thread
       1kB         1        1kB         1          0         0         1  1: TaskNode

By allocating call path, largest leaks first (1 of 1):
      live   objects  allocated   objects      freed   objects  path
       1kB         1        1kB         1          0         0  loadData:203;parseJson:120
OUT
expect_files_eq "mem by line, one thread" "$TMP/want" "$TMP/out"

expect_status "mem -n 2" 0 "$PROFKIT" mem -q -n 2 "$D/ok_lines.bsprof"
grep -q "largest leaks first (2 of 4)" "$TMP/out" && pass || fail "mem -n 2 header"
expect_eq "mem -n 2 rows" 2 "$(sed -n '/^By allocating/,$p' "$TMP/out" | tail -n +3 | wc -l)"

# A cut stream: what is live at the cut is not called leaks.
n=$(stat -c %s "$D/ok_lines.bsprof")
for cut in 1 $((n / 2)); do
  head -c $((n - cut)) "$D/ok_lines.bsprof" > "$TMP/cut.bsprof"
  expect_status "mem of a stream cut $cut bytes short" 0 "$PROFKIT" mem -q "$TMP/cut.bsprof"
  grep -q '^Live: .*(live when the stream ended: it was cut short, so not known to leak)$' "$TMP/out" && pass || fail "cut $cut: $(grep '^Live' "$TMP/out")"
  grep -q 'leaks' "$TMP/out" && fail "cut $cut: still says leaks: $(grep leaks "$TMP/out")" || pass
  grep -q '^By allocating call path, largest live at the cut first' "$TMP/out" && pass || fail "cut $cut: path header"
done
expect_eq "whole stream: leaks" 1 "$("$PROFKIT" mem -q "$D/ok_lines.bsprof" | grep -c '^Live: .*(still allocated at the end: leaks)$')"

# Without memory operations the values are zero, not missing.
expect_status "mem, no memory data" 0 "$PROFKIT" mem "$D/ok_nomem.bsprof"
grep -q "^Live:      0 objects, 0 " "$TMP/out" && pass || fail "mem of ok_nomem: $(head -3 "$TMP/out")"

# A profile without memory values is a usage error, not a crash.
printf 'a;b 1\n' > "$TMP/x.folded"
expect_status "mem of folded" 2 "$PROFKIT" mem "$TMP/x.folded"
grep -q "has no memory values" "$TMP/err" && pass || fail "mem of folded: $(cat "$TMP/err")"
expect_status "mem --thread nope" 2 "$PROFKIT" mem --thread nope "$D/ok_lines.bsprof"
# hist shows every value type, in-use ones too: its in-use totals are info's
# (the reader matches frees for hist), not zero.
for v in inuse_space inuse_objects; do
  want=$("$PROFKIT" info -q --json "$D/ok_lines.bsprof" | python3 -c "import json,sys; print([t['total'] for t in json.load(sys.stdin)['value_types'] if t['type']=='$v'][0])")
  got=$("$PROFKIT" hist -q --json "$D/ok_lines.bsprof" | python3 -c "import json,sys; d=json.load(sys.stdin); print([c['total'] for c in d['columns'] if c['type']=='$v'][0])")
  expect_eq "hist's $v total is info's" "$want" "$got"
done
[ "$want" -gt 0 ] && pass || fail "the test file leaks nothing: the hist check above proves nothing"
finish
