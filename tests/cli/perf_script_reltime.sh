#!/usr/bin/env bash
# perf script's --reltime and --deltatime time columns (docs/formats/perf_script.md,
# "Times"), on a recording made here with Debian's linux-perf
# (tests/oracle/perf_burn.c, three threads, `perf record -e cpu-clock -g`)
# printed by the real `perf script` with absolute times, --reltime and
# --deltatime, each in microseconds and with --ns:
#   - --reltime: timed, each sample at its absolute time less the first
#     sample's (exact with --ns, within 1 µs without);
#   - --deltatime (times that start at 0 and go back): read as deltas, each
#     sample at the running sum, with a warning at the first one that goes
#     back; with --ns the same times as --reltime, exactly; without, within
#     1 µs per sample before (perf rounds each delta down to the µs);
#   - the same folded stacks as the absolute file, and, with --ns, the same
#     `top --range 25%,75%` (the range counts from the first sample);
#   - a delta file whose deltas never go back, with two equal ones in a row,
#     is read as relative times with a warning that says it cannot tell.
# Without perf too, on hand-made texts (tests/data/perf_script): deltas
# 0, 0.25, 0.1, 0.3 ms (bad_deltatime.perf, two threads) are samples at
# 0, 0.25, 0.35 and 0.65 ms; 0, 0.25, 0.25 (bad_deltas_flat.perf) read
# as relative times. Their warnings are checked by bad_files.sh; one tie
# among 10 samples (ok_reltime_tie.perf) is no warning.
. "$(dirname "$0")/lib.sh"
D="$PROFKIT_SRC/tests/data/perf_script"
range_of() { "$PROFKIT" info --json "$1" 2> /dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin)["time_range"]; print(r["start"], round(r["end"], 6))'; }
expect_eq "bad_deltatime.perf: 0 .. the last sum (0.65 ms) + 1 ms" "0 1.65" "$(range_of "$D/bad_deltatime.perf")"
expect_eq "bad_deltatime.perf: 0.3-0.5 ms holds the third sample (at 0.35)" "main;third 1000" \
  "$("$PROFKIT" convert -q --range 0.3ms,0.5ms "$D/bad_deltatime.perf" --to folded)"
expect_eq "bad_deltatime.perf: 0.6-0.7 ms holds the fourth (at 0.65)" "main;leaf 1000" \
  "$("$PROFKIT" convert -q --range 0.6ms,0.7ms "$D/bad_deltatime.perf" --to folded)"
expect_eq "bad_deltas_flat.perf: relative times, 0 .. 0.25 + 1 ms" "0 1.25" "$(range_of "$D/bad_deltas_flat.perf")"
# two threads sampled in the same microsecond once among 10 samples (what
# --reltime prints on a busy recording): relative times, no warning
expect_eq "ok_reltime_tie.perf: relative times, 0 .. 2 + 1 ms" "0 3" "$(range_of "$D/ok_reltime_tie.perf")"
expect_eq "ok_reltime_tie.perf: no warning" "" "$("$PROFKIT" info "$D/ok_reltime_tie.perf" 2>&1 > /dev/null)"
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMP/perf_burn" "$PROFKIT_SRC/tests/oracle/perf_burn.c" ||
  { fail "cannot build perf_burn.c"; finish; }
need_perf
PERF record -q -e cpu-clock -g -o "$TMP/p.data" "$TMP/perf_burn" 2000 > /dev/null 2>&1 ||
  { fail "perf record failed"; finish; }
perf_restore
for kind in abs reltime deltatime; do
  flag=; [ $kind = abs ] || flag=--$kind
  PERF script -i "$TMP/p.data" $flag > "$TMP/$kind.txt" 2> /dev/null || fail "perf script $flag failed"
  PERF script -i "$TMP/p.data" $flag --ns > "$TMP/$kind.ns.txt" 2> /dev/null || fail "perf script $flag --ns failed"
done
# what the text looks like: the first header of each (perf prints no other
# sign of the flag), for the log
for f in abs reltime deltatime; do echo "$f: $(grep -m1 -v '^\s' "$TMP/$f.txt")"; done
for f in abs abs.ns reltime reltime.ns deltatime deltatime.ns; do
  "$PROFKIT" convert "$TMP/$f.txt" --to firefox -o "$TMP/$f.ff.json" 2> "$TMP/$f.err" ||
    { fail "$f: convert failed: $(cat "$TMP/$f.err")"; continue; }
  "$PROFKIT" convert -q "$TMP/$f.txt" --to folded | LC_ALL=C sort > "$TMP/$f.folded"
done
expect_files_eq "reltime: the stacks of the absolute file" "$TMP/abs.folded" "$TMP/reltime.folded"
expect_files_eq "deltatime: the stacks of the absolute file" "$TMP/abs.folded" "$TMP/deltatime.folded"
expect_files_eq "deltatime --ns: the stacks of the absolute file" "$TMP/abs.folded" "$TMP/deltatime.ns.folded"
expect_eq "absolute and reltime: no warning" "" "$(cat "$TMP/abs.err" "$TMP/abs.ns.err" "$TMP/reltime.err" "$TMP/reltime.ns.err")"
# the warning names the first header whose delta is below the one before
back=$(awk '/^[^ \t]/ { if (match($0, /[0-9]+\.[0-9]+:/)) { t = substr($0, RSTART, RLENGTH - 1) + 0; if (n++ && t < prev) { print NR; exit } prev = t } }' "$TMP/deltatime.txt")
expect_eq "deltatime: the warning" \
  "profkit: warning: $TMP/deltatime.txt:$back:1: the times start at 0 and go back here: read as deltas (perf script --deltatime), each sample's time the sum of the deltas up to it" \
  "$(cat "$TMP/deltatime.err")"
# every sample's time (ms since the file's first sample), per thread, in order
python3 - "$TMP" << 'PY' > "$TMP/times.cmp" 2>&1 && pass || fail "sample times: $(head -c 1500 "$TMP/times.cmp")"
import json, sys
d = sys.argv[1]
def times(name):
    p = json.load(open("%s/%s.ff.json" % (d, name)))
    out = []
    for t in p["threads"]:
        s = t["samples"]
        ts = s.get("time")
        if ts is None:
            acc, ts = 0.0, []
            for x in s["timeDeltas"]:
                acc += x
                ts.append(acc)
        out.append((t["name"], [p["meta"]["startTime"] + x for x in ts]))
    lo = min(min(ts) for _, ts in out if ts)
    return [(n, [x - lo for x in ts]) for n, ts in out]
bad = []
def same(a, b, what, tol):
    A, B = times(a), times(b)
    if [n for n, _ in A] != [n for n, _ in B] or [len(x) for _, x in A] != [len(x) for _, x in B]:
        bad.append("%s: threads %r, %r" % (what, [(n, len(x)) for n, x in A], [(n, len(x)) for n, x in B]))
        return
    order = sorted((x, k) for _, xs in B for k, x in enumerate(xs))  # a sample's index in the file's time order
    rank = {}
    for i, (x, k) in enumerate(order):
        rank.setdefault(x, i)
    worst = 0
    for (n, xs), (_, ys) in zip(A, B):
        for x, y in zip(xs, ys):
            lim = tol(rank[y])
            if abs(x - y) > lim:
                bad.append("%s: thread %s sample at %.6f ms, want %.6f" % (what, n, y, x))
                return
            worst = max(worst, abs(x - y))
    print(what, "ok, worst difference %.6f ms" % worst)
same("abs.ns", "reltime.ns", "reltime --ns", lambda i: 1e-6)
same("abs", "reltime", "reltime", lambda i: 1e-3 + 1e-6)
same("reltime.ns", "deltatime.ns", "deltatime --ns", lambda i: 1e-6)
same("reltime", "deltatime", "deltatime", lambda i: 1e-3 * (i + 1) + 1e-6)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
cat "$TMP/times.cmp"
for f in reltime.ns deltatime.ns; do
  expect_eq "$f: top --range 25%,75% as the absolute file's" \
    "$("$PROFKIT" top -q --json -n 0 --range 25%,75% "$TMP/abs.ns.txt")" \
    "$("$PROFKIT" top -q --json -n 0 --range 25%,75% "$TMP/$f.txt")"
done
# deltas that never go back, two equal in a row: cannot be told from
# relative times; read as such, with a warning at the second equal one
python3 - "$TMP/deltatime.ns.txt" "$TMP/flat.txt" << 'PY'
import re, sys
out, n = [], 0
for line in open(sys.argv[1]):
    if line[:1] not in (" ", "\t", "\n"):
        m = re.search(r"\d+\.\d+:", line)
        if n >= 4:
            break
        line = line[:m.start()] + ["0.000000000:", "0.000250000:", "0.000250000:", "0.000300000:"][n] + line[m.end():]
        n += 1
    out.append(line)
open(sys.argv[2], "w").write("".join(out))
PY
third=$(grep -n -v '^\s' "$TMP/flat.txt" | grep -v '^[0-9]*:$' | sed -n 3p | cut -d: -f1)
"$PROFKIT" info --json "$TMP/flat.txt" > "$TMP/flat.json" 2> "$TMP/flat.err"
expect_eq "equal deltas: the warning" \
  "profkit: warning: $TMP/flat.txt:$third:1: the times start at 0 and this sample's equals the one before: read as times since the first sample (perf script --reltime), though they may be deltas (--deltatime), which cannot be told apart here" \
  "$(cat "$TMP/flat.err")"
expect_eq "equal deltas: read as relative times" "0 0.3" \
  "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["time_range"]; print(r["start"], round(r["end"] - 1, 6))' "$TMP/flat.json")"
finish
