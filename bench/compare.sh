#!/usr/bin/env bash
# compare.sh: A/B comparison of two builds of profkit on the benchmarks.
#
#   bench/compare.sh [OPTIONS] BASE [BENCH...]
#
# Builds commit BASE and the working tree (Release; through
# scripts/compare_outputs.sh --build-only, into build/compare/), generates the
# benchmark inputs once (kept in build/bench/compare/ for the next run), then
# runs each benchmark in rounds, interleaved: BASE (A), the working tree (B),
# BASE again (A'), in an order that turns each round. For each figure --
# wall time, CPU time (user+sys), peak RSS, all from /usr/bin/time -- it
# prints the median of BASE's runs (A and A') and of HEAD's (B), HEAD/BASE
# (the median over the rounds of B / mean(A, A'), so a load that comes and
# goes between rounds cancels out), its range over the rounds, the range of
# A'/A, and the noise: the largest gap between A and A', two runs of one
# build in one round, so what the machine does by itself. A figure whose
# every round is further from 1 than the noise (plus 1%) is marked beyond
# noise; one whose median only is gets a "?"; within it, it is no change. It also checks that both builds print the same
# output (the first round's stdout and written file).
#
# Options:
#   --rounds N       at most N rounds (default 5)
#   --min-rounds N   at least N rounds whatever --budget says (default 3)
#   --budget S       no new round once the rounds have taken S seconds
#                    (default 420: with the builds and inputs cached a whole
#                    run stays under ~10 minutes on this 2-core machine,
#                    unless it is heavily loaded)
#   --head REV       compare against commit REV instead of the working tree
#   --list           list the benchmarks and stop
#   --report FILE    print the table again from a runs.tsv and stop
#
# BENCH names select benchmarks (default: all of them, in the order of
# --list). Inputs are smaller than the stand-alone benchmarks' (bench/*.sh)
# so that several rounds fit in minutes: the figures are for comparing two
# builds, not for the targets of docs/BENCHMARKS.md. Everything runs under
# nice, each build the same way; the raw runs go to build/bench/compare/runs.tsv.
set -euo pipefail
{
cd "$(dirname "$0")/.."

# name|input|profkit arguments (@IN@: the input, @OUT@: a file to write)
BENCHES='gperftools|gp-tree|top @IN@
gperftools-random|gp-random|top @IN@
gperftools-real|gp-real|top @IN@
gperftools-real-nosym|gp-real|top --no-symbolize @IN@
flame-gperftools|gp-real|flame -q @IN@ -o @OUT@.html
bsprof-mem|bsprof|mem -n 5 -q @IN@
bsprof-top|bsprof|top -n 5 -q @IN@
flame-bsprof|bsprof|flame -q @IN@ -o @OUT@.html
gecko|gecko|top -n 5 -q @IN@
flame-gecko|gecko|flame -q @IN@ -o @OUT@.html
br|br|top @IN@
dcpi|dcpi|top @IN@'
# The inputs, from the generators of bench/ (deterministic, fixed seeds):
#   gp-tree, gp-random  bench/gen_gperftools.c: 196 MB, 1 M records over 200 k
#                       stacks of 5,000 PCs in one made-up mapping, both shapes
#                       of bench/gperftools.sh (no binary to symbolize from)
#   gp-real             the same size over 5,000 PCs of /usr/bin/python3 and
#                       libc.so.6 with their real mappings
#                       (bench/symbols_pcs.py), so `top` symbolizes them
#   bsprof              bench/bsprof_gen.c, 200 MB (bench/bsprof.sh: 500 MB)
#   gecko               bench/gecko_gen.c, 100 MB, 8 threads (gecko.sh: 1150 MB)
#   br                  bench/gen_br.c, 100 MB timed (br.sh: 200 MB)
#   dcpi                bench/gen_dcpi.c, 50 M addresses, 1% sampled (dcpi.sh)
# Not here: reliability.sh (growth with input size, not a figure to compare),
# store.sh and store_stacks.sh (a ClickHouse server), symbols.sh's Go pprof
# and eu-addr2line runs and viewer_page.sh (the browser).

# report RUNS: the table, from a runs.tsv. HEAD/BASE is paired by round: the
# median over the rounds of B / mean(A, A'), so a load that comes and goes
# between rounds cancels out. The noise is the largest gap between A and A'
# of one round, either way (A'/A or A/A'). A change is "beyond noise in
# every round" when every round's B / mean(A, A') is further from 1 than the
# noise plus 1%, on the same side; when only the median is, it gets a "?":
# with 3 to 5 rounds the noise is the largest of a few gaps, and one lucky
# streak can pass it (two builds of one commit did, once in 36 figures).
report() {
  awk -F'\t' '
  NR == 1 { next }
  !($1 in seen) { seen[$1] = 1; order[++nb] = $1 }
  { for (f = 4; f <= 6; f++) v[$1, f, $3, $2] = $f; if ($2 > rounds[$1]) rounds[$1] = $2
    if ($7 != 0) bad[$1] = 1 }
  function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  function ratio(x, y) { return y > 0 ? x / y : 1 }
  END {
    split("4 5 6", fs, " "); split("wall s|cpu s|RSS MB", names, "|")
    printf "%-22s %-7s %9s %9s %9s  %-13s  %-13s  %6s  %s\n", "bench", "figure", "BASE", "HEAD", "HEAD/BASE", "B/BASE range", "A'"'"'/A range", "noise", "verdict"
    for (bi = 1; bi <= nb; bi++) {
      b = order[bi]; R = rounds[b]
      for (fi = 1; fi <= 3; fi++) {
        f = fs[fi]; na = nr = 0; lo = hi = blo = bhi = ""; noise = 1
        delete av; delete bv; delete rv
        for (r = 1; r <= R; r++) {
          a1 = v[b, f, "A", r]; a2 = v[b, f, "A2", r]; bb = v[b, f, "B", r]
          av[++na] = a1; av[++na] = a2; bv[r] = bb
          q = ratio(a2, a1); if (lo == "" || q < lo) lo = q; if (hi == "" || q > hi) hi = q
          if (q > noise) noise = q; if (q > 0 && 1 / q > noise) noise = 1 / q
          q = ratio(bb, (a1 + a2) / 2); rv[++nr] = q
          if (blo == "" || q < blo) blo = q; if (bhi == "" || q > bhi) bhi = q
        }
        ma = median(av, na); mb = median(bv, R); rt = median(rv, nr)
        if (f == 6) { ma /= 1024; mb /= 1024 }
        band = noise * 1.01
        down = f == 6 ? "smaller" : "faster"; up = f == 6 ? "LARGER" : "SLOWER"
        if (bhi * band < 1) verdict = down ", beyond noise in every round"
        else if (blo > band) verdict = up ", beyond noise in every round"
        else if (rt * band < 1) verdict = down "? (the median only: more rounds)"
        else if (rt > band) verdict = up "? (the median only: more rounds)"
        else verdict = "within noise"
        fmt = f == 6 ? "%9.1f %9.1f" : "%9.3f %9.3f"
        printf "%-22s %-7s " fmt " %9.3f  %5.3f-%-7.3f  %5.3f-%-7.3f  %5.1f%%  %s%s\n", fi == 1 ? b : "", names[fi], ma, mb, rt, blo, bhi, lo, hi, (noise - 1) * 100, verdict, bad[b] ? " (a run failed)" : ""
      }
    }
  }' "$1"
}

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
  exit 2
}
rounds=5 min_rounds=3 budget=420 head="" list=""
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=${2:?}; shift 2 ;;
    --min-rounds) min_rounds=${2:?}; shift 2 ;;
    --budget) budget=${2:?}; shift 2 ;;
    --head) head=${2:?}; shift 2 ;;
    --list) list=1; shift ;;
    --report) report "${2:?}"; exit 0 ;;
    -h | --help) usage ;;
    -*) echo "compare.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
if [ -n "$list" ]; then
  echo "$BENCHES" | awk -F'|' '{ printf "%-22s profkit %s   (input %s)\n", $1, $3, $2 }'
  exit 0
fi
[ $# -ge 1 ] || usage
BASE=$1; shift
selected=()
if [ $# -eq 0 ]; then
  while IFS='|' read -r n _; do selected+=("$n"); done <<< "$BENCHES"
else
  for n in "$@"; do
    grep -q "^$n|" <<< "$BENCHES" || { echo "compare.sh: no benchmark $n (--list)" >&2; exit 2; }
    selected+=("$n")
  done
fi
[ -x /usr/bin/time ] || { echo "compare.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
[ "$min_rounds" -le "$rounds" ] || min_rounds=$rounds

# The two builds.
# shellcheck disable=SC2086 # $head: empty, or one commit
bins=$(scripts/compare_outputs.sh --build-only "$BASE" $head) || exit 2
bin_a=$(sed -n 1p <<< "$bins") bin_b=$(sed -n 2p <<< "$bins")

# The inputs, made once; a changed generator makes its input again.
OUT=build/bench/compare
mkdir -p "$OUT/gen"
gen() { # SOURCE: compiles bench/SOURCE.c into $OUT/gen/SOURCE when newer
  [ "$OUT/gen/$1" -nt "bench/$1.c" ] || cc -O2 -o "$OUT/gen/$1" "bench/$1.c"
}
input_path() { # KEY: the file of input KEY
  case $1 in
    gp-tree | gp-random | gp-real) echo "$OUT/$1.prof" ;;
    bsprof) echo "$OUT/bench-200mb.bsprof" ;;
    gecko) echo "$OUT/gecko-100mb.json" ;;
    br) echo "$OUT/br-100mb.brprof" ;;
    dcpi) echo "$OUT/dcpi-50m.dcpi" ;;
  esac
}
make_input() { # KEY
  local f src
  f=$(input_path "$1")
  case $1 in
    gp-*) src=gen_gperftools ;; bsprof) src=bsprof_gen ;; gecko) src=gecko_gen ;;
    br) src=gen_br ;; dcpi) src=gen_dcpi ;;
  esac
  gen "$src"
  [ -s "$f" ] && [ "$f" -nt "bench/$src.c" ] && return 0
  echo "compare.sh: generating $f" >&2
  rm -f "$f"
  case $1 in
    gp-tree) nice "$OUT/gen/$src" "$f.tmp" 1000000 200000 5000 tree > /dev/null ;;
    gp-random) nice "$OUT/gen/$src" "$f.tmp" 1000000 200000 5000 random > /dev/null ;;
    gp-real)
      nice python3 bench/symbols_pcs.py "$OUT/gen" 5000 > /dev/null
      nice "$OUT/gen/$src" "$f.tmp" 1000000 200000 0 tree "$OUT/gen/pcs.txt" "$OUT/gen/maps.txt" > /dev/null ;;
    bsprof) nice "$OUT/gen/$src" random "$f.tmp" modules=20 elements=50000 cpu=1000000 size_mb=200 lines=1 seed=1 > /dev/null ;;
    gecko) nice "$OUT/gen/$src" "$f.tmp" 100 8 1 > /dev/null ;;
    br) nice "$OUT/gen/$src" "$f.tmp" 100000000 1 --timed --distinct 5000 > /dev/null ;;
    dcpi) nice "$OUT/gen/$src" "$f.tmp" 50000000 1 --density 1 > /dev/null ;;
  esac 2> "$OUT/gen/$1.log"
  mv "$f.tmp" "$f"
}
declare -A args_of input_of
for n in "${selected[@]}"; do
  IFS='|' read -r _ key a <<< "$(grep "^$n|" <<< "$BENCHES")"
  make_input "$key"
  input_of[$n]=$(input_path "$key")
  args_of[$n]=$a
done

# run SIDE BENCH ROUND: one run under /usr/bin/time; appends a line to runs.tsv:
# bench round side wall_s cpu_s rss_kb status
runs=$OUT/runs.tsv
run() {
  local side=$1 n=$2 r=$3 bin t0 t1 rc=0 a
  case $side in A | A2) bin=$bin_a ;; B) bin=$bin_b ;; esac
  a=${args_of[$n]}
  a=${a//@IN@/${input_of[$n]}}
  a=${a//@OUT@/$OUT/out-$side}
  rm -f "$OUT/out-$side".*
  t0=$EPOCHREALTIME
  # shellcheck disable=SC2086 # the arguments are words without spaces
  nice /usr/bin/time -f '%U %S %M' -o "$OUT/time-$side" "$bin" $a > "$OUT/stdout-$side" 2> "$OUT/stderr-$side" || rc=$?
  t1=$EPOCHREALTIME
  read -r u s m < "$OUT/time-$side"
  awk -v n="$n" -v r="$r" -v side="$side" -v t0="$t0" -v t1="$t1" -v u="$u" -v s="$s" -v m="$m" -v rc="$rc" \
    'BEGIN { printf "%s\t%d\t%s\t%.4f\t%.2f\t%d\t%d\n", n, r, side, t1 - t0, u + s, m, rc }' >> "$runs"
  if [ "$rc" != 0 ]; then
    echo "compare.sh: $n: $side exited with status $rc: $(head -c 300 "$OUT/stderr-$side")" >&2
  fi
}

echo "compare.sh: BASE $BASE ($bin_a), HEAD ${head:-the working tree} ($bin_b)"
echo "compare.sh: ${#selected[@]} benchmarks, $min_rounds to $rounds rounds of A B A' each (budget $budget s), under nice; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'bench\tround\tside\twall_s\tcpu_s\trss_kb\tstatus\n' > "$runs"
same_out=()
start=$EPOCHREALTIME
done_rounds=0
for ((r = 1; r <= rounds; r++)); do
  rs=$EPOCHREALTIME
  for n in "${selected[@]}"; do
    cat "${input_of[$n]}" > /dev/null # into the page cache before A, as for B and A'
    # The order turns every round (A B A', B A' A, A' A B), so no build
    # always runs first, or after the other.
    case $((r % 3)) in
      1) order="A B A2" ;; 2) order="B A2 A" ;; 0) order="A2 A B" ;;
    esac
    for side in $order; do run "$side" "$n" "$r"; done
    if [ "$r" = 1 ]; then
      if cmp -s "$OUT/stdout-A" "$OUT/stdout-B" &&
         { ! ls "$OUT"/out-B.* > /dev/null 2>&1 || cmp -s "$OUT"/out-A.* "$OUT"/out-B.*; }; then
        same_out+=("$n")
      else
        echo "compare.sh: $n: BASE and HEAD print different outputs (scripts/compare_outputs.sh shows where)"
      fi
    fi
  done
  done_rounds=$r
  now=$EPOCHREALTIME
  echo "compare.sh: round $r done in $(awk -v a="$rs" -v b="$now" 'BEGIN { printf "%.0f", b - a }') s"
  if [ "$r" -ge "$min_rounds" ] &&
     awk -v s="$start" -v rs="$rs" -v now="$now" -v b="$budget" 'BEGIN { exit !(now - s + (now - rs) > b) }'; then
    [ "$r" -lt "$rounds" ] && echo "compare.sh: stopping after round $r: another would pass the budget of $budget s"
    break
  fi
done
rm -f "$OUT"/out-* "$OUT"/stdout-* "$OUT"/stderr-* "$OUT"/time-*

echo
echo "BASE = $BASE (A, A'), HEAD = ${head:-the working tree} (B); $done_rounds rounds"
report "$runs"
echo
echo "same output from BASE and HEAD (first round's stdout and written file): ${same_out[*]:-none}"
echo "raw runs: $runs; the whole run took $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s of rounds"
exit 0
}
