#!/usr/bin/env bash
# reliability_cli.sh: every hostile shape of bench/reliability_gen.py at a
# small size and at twice it still reads (`info` and `top` succeed and show
# what the file holds), and the limits on absurd sizes give their errors,
# naming the limit and the flag that raises it. No timing: that is
# bench/reliability.sh's (docs/BENCHMARKS.md, "Reliability").
set -euo pipefail
: "${PROFKIT:?}" "${PROFKIT_SRC:?}"
gen="python3 $PROFKIT_SRC/bench/reliability_gen.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

declare -A small=(
  [json_string]=600 [json_escapes]=600 [json_number]=600 [json_threads]=300
  [json_rows]=500 [gecko_deep]=3000 [firefox_deep]=3000 [folded_line]=3000
  [gperf_pcs]=500 [pprof_types]=500 [pprof_labels]=500 [pprof_deep]=500
  [pprof_names]=500 [bsprof_allocs]=500 [bsprof_modules]=500 [gperf_build]=500
  [firefox_strings]=400 [gecko_nested]=320 [gecko_waiting]=300 [gzip_members]=300
  [sibling_loops]=300 [empty_threads]=1000 [firefox_empty_threads]=1000 [wide_row]=500
  [long_location]=300 [thread_strings]=60 [thread_strings_after]=60 [pprof_long_name]=300
  [firefox_old_names]=300
)
# what info must show for N (the check that the file was read, not skipped)
expect_info() {
  case $1 in
    json_threads) echo "threads:      $2" ;;
    pprof_types) echo "value types:  $2" ;;
    pprof_labels) echo "threads:      $2" ;;
    gecko_deep|firefox_deep|pprof_names) echo "stacks:       $2 distinct" ;;
    sibling_loops) echo "stacks:       $(($2 * 3)) distinct" ;;
    bsprof_allocs) echo "alloc_objects  count         total $2 " ;;
    bsprof_modules|gecko_waiting|empty_threads|firefox_empty_threads) echo "threads:      $2" ;;
    wide_row|pprof_long_name) echo "stacks:       $2 distinct" ;;
    long_location) echo "stacks:       $2 distinct ($2 frames, 1 functions)" ;;
    firefox_old_names) echo "stacks:       $2 distinct ($2 frames, $2 functions)" ;;
    thread_strings|thread_strings_after) echo "stacks:       $(($2 * $2)) distinct" ;;
    gperf_build) echo "mappings:     $2" ;;
    firefox_strings) echo "threads:      $(($2 / 8))" ;;
    gecko_nested) echo "threads:      $(($2 / 16 * 16 + 1))" ;;
    gzip_members) echo "total $(($2 * ($2 + 1) / 2)) " ;;
    *) echo "format:" ;;
  esac
}
for fam in "${!small[@]}"; do
  for mult in 1 2; do
    n=$(( ${small[$fam]} * mult ))
    f=$tmp/$fam.$n
    $gen "$fam" "$n" "$f"
    out=$("$PROFKIT" info -q "$f" 2>&1) || { bad "$fam N=$n: info failed: $out"; continue; }
    want=$(expect_info "$fam" "$n")
    grep -qF "$want" <<< "$out" || bad "$fam N=$n: info does not show '$want'"
    out=$("$PROFKIT" top -q "$f" 2>&1) || bad "$fam N=$n: top failed: $out"
    case $fam in
      gecko_deep|firefox_deep)
        # a value at every level of one chain: the root function's cumulative is the total
        grep -Eq "^ +[0-9]+ +[0-9.]+% +[0-9.]+% +$n +100% +f0$" <<< "$out" ||
          bad "$fam N=$n: top does not give f0 the whole $n cumulative"$'\n'"$out" ;;
      long_location|pprof_long_name|firefox_old_names)
        # one function has every sample; its long name is cut to the label's 4095 bytes
        row=$(grep -E "^ +$n +100% +100% +$n +100% +(run|y)" <<< "$out") ||
          bad "$fam N=$n: top does not give the one function all $n samples"$'\n'"$out"
        label=${row##* }
        [ "${#label}" -eq 4095 ] || [ "${#label}" -eq $((20 * n)) ] ||
          bad "$fam N=$n: the function's label is ${#label} bytes (expected its name, cut to 4095)" ;;
      thread_strings|thread_strings_after)
        # every thread names the shared functions with its own strings
        # (after: each thread is built and freed before the next one comes,
        # and one made at the address of the last once got the last one's
        # names)
        for t in 0 5 $((n - 1)); do
          o=$("$PROFKIT" top -q --thread "T$t" "$f" 2>&1)
          grep -Eq "^ +1 +100% +100% +1 +100% +[ab]$t$" <<< "$o" && ! grep -Eq " [ab][0-9]+$" <<< "$(grep -v " [ab]$t$" <<< "$o")" ||
            bad "$fam N=$n: thread T$t is not named by its own strings"$'\n'"$o"
        done ;;
    esac
  done
done

# Memory that follows what the file holds (no timing: peak RSS of the
# process, when /usr/bin/time can tell it): 16,000 empty threads, and a
# stack table of 16,000 rows with a row 8,000 cells wide before its schema,
# took 8 KB a thread and 8 bytes per row and cell of the widest row; each
# now adds less than 64 MB over the same file at an eighth of the size.
if /usr/bin/time -f %M true > /dev/null 2>&1; then
  for fam in empty_threads firefox_empty_threads wide_row; do
    for n in 2000 16000; do
      $gen "$fam" "$n" "$tmp/m.$n"
      /usr/bin/time -o "$tmp/m.time" -f %M "$PROFKIT" info -q "$tmp/m.$n" > /dev/null 2> "$tmp/m.err" ||
        bad "$fam N=$n: info failed: $(head -c 300 "$tmp/m.err")"
      kb[$n]=$(tail -1 "$tmp/m.time")
    done
    [ $((kb[16000] - kb[2000])) -lt 65536 ] ||
      bad "$fam: peak memory grows from ${kb[2000]} KB at 2,000 to ${kb[16000]} KB at 16,000"
  done
else
  echo "note: no /usr/bin/time; the memory checks are skipped"
fi

# Threads with strings of their own over shared tables make the shared
# stacks anew; past the limit (a bound of the file's size) the read stops
# with its error, naming the thread and the row.
for fam in thread_strings thread_strings_after; do
  $gen $fam 800 "$tmp/ts.json"
  err=$("$PROFKIT" info "$tmp/ts.json" 2>&1) && bad "$fam N=800: no limit error"
  grep -Eq "ts\.json:1:[0-9]+: thread [0-9]+ \(T[0-9]+\): stackTable row [0-9]+: the thread's own string table makes the shared stacks anew: more than the limit of [0-9]+ stacks so made" <<< "$err" ||
    bad "$fam N=800: wrong error: $err"
done

# the limits, each with its error
$gen json_string 64 "$tmp/s.json"
err=$("$PROFKIT" info --max-string-size 1000 "$tmp/s.json" 2>&1) && bad "--max-string-size: no error"
grep -qF "s.json:1:" <<< "$err" && grep -qF "longer than the limit of 1000 bytes (--max-string-size raises it)" <<< "$err" ||
  bad "--max-string-size: wrong error: $err"
"$PROFKIT" info --max-string-size 100000 "$tmp/s.json" > /dev/null || bad "--max-string-size 100000 refused a 64 KiB string"

$gen gecko_deep 300 "$tmp/d.json"
err=$("$PROFKIT" top --max-depth 100 "$tmp/d.json" 2>&1) && bad "--max-depth: no error"
grep -qF "a stack deeper than the limit of 100 frames (--max-depth raises it)" <<< "$err" || bad "--max-depth: wrong error: $err"
"$PROFKIT" top --max-depth 300 "$tmp/d.json" > /dev/null || bad "--max-depth 300 refused a stack 300 deep"

$gen json_threads 50 "$tmp/t.json"
err=$("$PROFKIT" info --max-threads 10 "$tmp/t.json" 2>&1) && bad "--max-threads: no error"
grep -qF "more than the limit of 10 threads (--max-threads raises it)" <<< "$err" || bad "--max-threads: wrong error: $err"
"$PROFKIT" info --max-threads 50 "$tmp/t.json" > /dev/null || bad "--max-threads 50 refused 50 threads"

# The limits stop the read where they are passed, not after it: the error's
# position is the 11th thread's (or the 101st level's), well before the end.
size=$(stat -c %s "$tmp/t.json")
col=$(sed -n 's/.*t\.json:1:\([0-9]*\): more than the limit.*/\1/p' <<< "$err")
[ -n "$col" ] && [ "$col" -lt $((size / 2)) ] || bad "--max-threads: not at the 11th thread (column '$col' of $size): $err"
$gen firefox_deep 300 "$tmp/fd.json"
err=$("$PROFKIT" top --max-depth 100 "$tmp/fd.json" 2>&1) && bad "--max-depth (firefox): no error"
grep -Eq "fd\.json:1:[0-9]+: a stack deeper than the limit of 100 frames \(--max-depth raises it\)" <<< "$err" ||
  bad "--max-depth (firefox): no position or wrong error: $err"
$gen folded_line 300 "$tmp/f.txt"
err=$("$PROFKIT" top --max-depth 100 "$tmp/f.txt" 2>&1) && bad "--max-depth (folded): no error"
grep -qF "f.txt:1:" <<< "$err" && grep -qF "a stack deeper than the limit of 100 frames" <<< "$err" ||
  bad "--max-depth (folded): no position or wrong error: $err"
# gperftools makes its stacks after the last record; the limit is checked
# as each record is read, so the error names the record too deep: here the
# third (offset 1288), after one of depth 150 without samples (no stack).
python3 - "$tmp/g.prof" <<'PY'
import struct, sys
w = lambda v: struct.pack("<Q", v)
b = w(0) + w(3) + w(0) + w(10000) + w(0)                 # header, 40 bytes
b += w(1) + w(2) + w(0x400100) + w(0x400200)             # offset 40
b += w(0) + w(150) + w(0x400300) * 150                   # offset 72: count 0
b += w(1) + w(101) + w(0x400400) * 101                   # offset 1288
b += w(0) + w(1) + w(0)
open(sys.argv[1], "wb").write(b)
PY
err=$("$PROFKIT" info --max-depth 100 "$tmp/g.prof" 2>&1) && bad "--max-depth (gperftools): no error"
[ "$err" = "profkit: error: $tmp/g.prof: offset 1288: a stack deeper than the limit of 100 frames (--max-depth raises it)" ] ||
  bad "--max-depth (gperftools): not at the record's offset 1288, or wrong error: $err"
"$PROFKIT" info --max-depth 101 "$tmp/g.prof" > /dev/null || bad "--max-depth 101 refused a gperftools record 101 deep"
$gen pprof_labels 50 "$tmp/l.pb.gz"
err=$("$PROFKIT" info --max-threads 10 "$tmp/l.pb.gz" 2>&1) && bad "--max-threads (pprof): no error"
grep -Eq "l\.pb\.gz: offset [0-9]+: more than the limit of 10 threads" <<< "$err" ||
  bad "--max-threads (pprof): no offset or wrong error: $err"
$gen bsprof_modules 50 "$tmp/m.bsprof"
err=$("$PROFKIT" info --max-threads 10 "$tmp/m.bsprof" 2>&1) && bad "--max-threads (bsprof): no error"
grep -Eq "m\.bsprof: offset [0-9]+: more than the limit of 10 threads" <<< "$err" ||
  bad "--max-threads (bsprof): no offset or wrong error: $err"
"$PROFKIT" info --max-threads 50 "$tmp/m.bsprof" > /dev/null || bad "--max-threads 50 refused 50 bsprof modules"

# The writers on a prefix chain with a sample at every level, at N and 2N:
# every format writes it, and what can be read back has the whole total.
for n in 400 800; do
  $gen firefox_deep $n "$tmp/c.json"
  for to in pprof firefox speedscope folded callgrind gperftools bsprof br dcpi; do
    out=$tmp/c.$to
    "$PROFKIT" convert -q --to $to "$tmp/c.json" -o "$out" 2> "$tmp/c.err" ||
      { bad "convert --to $to N=$n failed: $(head -c 300 "$tmp/c.err")"; continue; }
    case $to in
      callgrind)
        grep -qx "summary: $n" "$out" || bad "convert --to callgrind N=$n: summary is not $n" ;;
      firefox|pprof|speedscope|folded|bsprof)
        top=$("$PROFKIT" top -q "$out" 2>&1) || { bad "convert --to $to N=$n: top on it failed: $top"; continue; }
        grep -Eq "^ +[0-9]+[a-z]* +[0-9.]+% +[0-9.]+% +${n}[a-z]* +100%( +[^ ]+)* +f0$" <<< "$top" ||
          bad "convert --to $to N=$n: top does not give f0 the whole $n cumulative"$'\n'"$top" ;;
    esac
  done
done

# Siblings that each loop back to the root of a long chain, at N and 2N
# (the callgrind writer's walk was quadratic there): the callgrind file holds
# exactly the self costs and call edges of the loop-erased paths. Each
# sibling's stack g0..g(N-1);xI;g0 erases to g0, so the calls are the
# chain's alone: g(k) calls g(k+1) with the N-k-1 samples below it, and g0's
# self is its own sample and the N siblings'.
for n in 300 600; do
  $gen sibling_loops $n "$tmp/sl.json"
  "$PROFKIT" convert -q --to callgrind "$tmp/sl.json" -o "$tmp/sl.callgrind" 2> "$tmp/sl.err" ||
    { bad "sibling_loops N=$n: convert --to callgrind failed: $(head -c 300 "$tmp/sl.err")"; continue; }
  python3 - "$tmp/sl.callgrind" "$n" > "$tmp/sl.check" 2>&1 <<'PY' || bad "sibling_loops N=$n: callgrind output: $(head -5 "$tmp/sl.check")"
import re, sys
path, n = sys.argv[1], int(sys.argv[2])
names, self_cost, edges = {}, {}, {}
fn = cfn = calls = summary = None
def name(v):  # "(id) name" the first time, "(id)" after
    m = re.match(r"\((\d+)\)(?: (.*))?$", v)
    if m.group(2) is not None:
        names[m.group(1)] = m.group(2)
    return names[m.group(1)]
for line in open(path):
    line = line.rstrip("\n")
    if line.startswith("summary: "):
        summary = int(line.split()[1])
    elif line.startswith("fn="):
        fn = name(line[3:])
    elif line.startswith("cfn="):
        cfn = name(line[4:])
    elif line.startswith("calls="):
        calls = int(line[6:].split()[0])
    elif re.match(r"^\d+ -?\d+$", line):
        cost = int(line.split()[1])
        if cfn is None:
            self_cost[fn] = self_cost.get(fn, 0) + cost
        else:
            key = (fn, cfn)
            c0, v0 = edges.get(key, (0, 0))
            edges[key] = (c0 + calls, v0 + cost)
            cfn = None
want_self = {"g%d" % k: 1 for k in range(n)}
want_self["g0"] = n + 1
want_edges = {("g%d" % k, "g%d" % (k + 1)): (n - k - 1, n - k - 1) for k in range(n - 1)}
bad = 0
if summary != 2 * n:
    print("summary %s, expected %d" % (summary, 2 * n)); bad = 1
if self_cost != want_self:
    print("self costs differ: %s" % sorted(set(self_cost.items()) ^ set(want_self.items()))[:5]); bad = 1
if edges != want_edges:
    print("call edges differ: %s" % sorted(set(edges.items()) ^ set(want_edges.items()))[:5]); bad = 1
sys.exit(bad)
PY
done

set +e
"$PROFKIT" info --max-depth 0 "$tmp/t.json" > /dev/null 2>&1
[ $? -eq 2 ] || bad "--max-depth 0: not a usage error"
"$PROFKIT" top --max-inflate x "$tmp/t.json" > /dev/null 2>&1
[ $? -eq 2 ] || bad "--max-inflate x: not a usage error"
set -e
[ $fail -eq 0 ] && echo "reliability: all shapes read at N and 2N, every writer writes the deep chain, callgrind the sibling loops; limits give their errors"
exit $fail
