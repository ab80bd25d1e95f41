#!/usr/bin/env bash
# profkit diff BASE NEW: the exact table for two small folded profiles,
# usage errors, and the changes per address against Go pprof's
# -diff_base on real gperftools profiles (docs/testing.md).
. "$(dirname "$0")/lib.sh"

printf 'main;work;hot 50\nmain;work;cold 10\nmain;idle 40\n' > "$TMP/a.folded"
printf 'main;work;hot 80\nmain;work;new 5\nmain;idle 15\n' > "$TMP/b.folded"
cat > "$TMP/want" <<'OUT'
Value: samples (count), base total 100, new total 100, change 0 (0% of base)
Showing top 6 of 6 functions, sorted by flat change
  flat chg     chg%  base flat   new flat    cum chg     chg%   base cum    new cum  function
       +30      30%         50         80        +30      30%         50         80  hot
       -25     -25%         40         15        -25     -25%         40         15  idle
       -10     -10%         10          0        -10     -10%         10          0  cold
        +5       5%          0          5         +5       5%          0          5  new
         0       0%          0          0        +25      25%         60         85  work
         0       0%          0          0          0       0%        100        100  main
OUT
"$PROFKIT" diff "$TMP/a.folded" "$TMP/b.folded" > "$TMP/got"
expect_files_eq "diff of two folded profiles" "$TMP/want" "$TMP/got"
# --cum orders by the cumulative change; -n cuts.
"$PROFKIT" diff --cum -n 3 "$TMP/a.folded" "$TMP/b.folded" | awk 'NR > 3 { print $NF }' | paste -sd, > "$TMP/got"
expect_eq "diff --cum -n 3" "hot,idle,work" "$(cat "$TMP/got")"
# The same profile against itself: nothing changed.
"$PROFKIT" diff "$TMP/a.folded" "$TMP/a.folded" | awk 'NR > 3 && ($1 != "0" || $5 != "0")' > "$TMP/got"
expect_eq "diff of a profile with itself" "" "$(cat "$TMP/got")"

expect_status "one file" 2 "$PROFKIT" diff "$TMP/a.folded"
expect_eq "one file: message" "profkit diff: needs two input files, BASE and NEW" "$(head -1 "$TMP/err")"
expect_status "three files" 2 "$PROFKIT" diff "$TMP/a.folded" "$TMP/a.folded" "$TMP/b.folded"
expect_status "a value only NEW has" 2 "$PROFKIT" diff --value cpu "$TMP/a.folded" "$TMP/b.folded"
expect_status "unreadable BASE" 1 "$PROFKIT" diff "$TMP/missing" "$TMP/b.folded"
expect_status "--help" 0 "$PROFKIT" diff --help
grep -q "Usage: profkit diff" "$TMP/out" && pass || fail "--help: no usage line"

# Against Go pprof's -diff_base: two real profiles of the same program
# (tests/oracle/burn.c against libprofiler, as in gperftools_real.sh), built
# without PIE so its code has the same addresses in both runs, as an
# address-level diff needs. Shared libraries still move between runs, and
# pprof moves the base's library addresses onto the new run's mappings
# while profkit compares addresses as recorded, so only the program's own
# addresses are compared. Per address, the change of flat samples must be
# pprof's (pprof files a caller frame under PC - 1 and profkit under the PC
# as recorded, docs/formats/gperftools.md, so cumulative values of callers land on other
# addresses; flat ones, at leaf PCs, do not move), and so must the change
# of the total.
PPROF="$PROFKIT_TOOLS/pprof"
[ -x "$PPROF" ] || bash "$PROFKIT_SRC/scripts/tools.sh" >/dev/null 2>&1 || true
[ -x "$PPROF" ] || { fail "Go pprof missing: run scripts/tools.sh"; finish; }
cc -O1 -g -fno-omit-frame-pointer -no-pie -o "$TMP/burn" "$PROFKIT_SRC/tests/oracle/burn.c" -Wl,--no-as-needed -lprofiler ||
  { fail "cannot build burn.c against libprofiler (libgoogle-perftools-dev)"; finish; }
CPUPROFILE="$TMP/base.prof" "$TMP/burn" 20000 2> /dev/null
CPUPROFILE="$TMP/new.prof" "$TMP/burn" 40000 2> /dev/null
[ -s "$TMP/base.prof" ] && [ -s "$TMP/new.prof" ] || { fail "burn wrote no profile"; finish; }
"$PPROF" -top -addresses -symbolize=none -sample_index=samples -nodecount=1000000 \
  -diff_base="$TMP/base.prof" "$TMP/new.prof" 2> /dev/null > "$TMP/go.txt"
"$PROFKIT" diff -n 0 --by address --value samples "$TMP/base.prof" "$TMP/new.prof" > "$TMP/pk.txt"
python3 - "$TMP/go.txt" "$TMP/pk.txt" > "$TMP/cmp" 2>&1 <<'PY' && pass || fail "differs from pprof -diff_base: $(tail -4 "$TMP/cmp")"
import re, sys
go, pk = {}, {}
text = open(sys.argv[1]).read()
m = re.search(r'accounting for (-?\d+), \S+ of (\d+) total', text)
go_change = int(m.group(1)) if m else None
for line in text.splitlines():
    m = re.match(r'\s*(-?\d+)\s+\S+%\s+\S+%\s+(-?\d+)\s+\S+%\s+([0-9a-f]{16})\b', line)
    if m:
        go[int(m.group(3), 16)] = int(m.group(1))
lines = open(sys.argv[2]).read().splitlines()
m = re.search(r'change \+?(-?\d+) ', lines[0])
pk_change = int(m.group(1)) if m else None
for line in lines[3:]:
    f = line.split()
    pk[int(f[-1], 16)] = int(f[0])
own = lambda a: a < 0x10000000  # the non-PIE program's image (0x400000...)
bad = [a for a in set(go) | set(pk) if own(a) and go.get(a, 0) != pk.get(a, 0)]
for a in sorted(bad)[:5]:
    print(hex(a), "pprof", go.get(a), "profkit", pk.get(a))
if not any(v for a, v in go.items() if own(a)):
    bad.append("pprof listed no change")
if go_change is None or go_change != pk_change:
    print("total change: pprof", go_change, "profkit", pk_change)
    bad.append("total")
sys.exit(1 if bad else 0)
PY
finish
