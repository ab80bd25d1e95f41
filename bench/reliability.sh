#!/usr/bin/env bash
# reliability.sh: every hostile shape of bench/reliability_gen.py (and of
# bench/reliability_gen2.py, the families NAME_b) at a size
# N and at 8N; `profkit info` and `profkit top` timed (user + system CPU,
# median of RUNS) with their peak memory on both, and the growth ratios beside
# the input's. Fails loudly when time grows more than 2.5 times faster than
# the input (a super-linear path), or memory more than 2.5 times faster, or
# when the peak memory at 8N passes 20 times the input plus 200 MB. A family
# whose profile the model cannot hold in a bound of its input (limit_of) may
# stop with that limit's error instead; the verdict says so.
# The families `writers` and `writers_stacks` time `convert --to FORMAT`
# for every writer on a prefix chain with a sample at every level; there the
# growth allowed is that of the input or of the output, whichever is larger:
# pprof, folded, speedscope, gperftools and br (writers_stacks) list every
# sample's whole stack, so their output itself grows with the square of the
# depth. The family `sibling_loops` times `top` and `convert --to callgrind`
# (whose walk of loop-erased paths it targets); `paused_ranges_b` and
# `thread_pids_b` the Firefox writer and the page (`flame`) besides;
# `chrome_threads_b` `markers` and the page; `thread_order_b` the page.
# The page is budgeted (--max-nodes, its samples' and activity bins'
# budgets), so `flame` is allowed the input's growth only, and fails when
# the page it writes grows more than 2.5 times faster than the input.
#   PROFKIT=build/release/profkit bash bench/reliability.sh [FAMILY...]
# Environment: RUNS (default 3), SCALE (multiplies every N; default 1).
# Figures and commands: docs/BENCHMARKS.md, "Reliability".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PROFKIT=${PROFKIT:-$here/../build/release/profkit}
RUNS=${RUNS:-3}
SCALE=${SCALE:-1}
dir=${BENCH_DIR:-$here/../build/bench/reliability}
mkdir -p "$dir"

# family and its N (the small size); 8N is the large one
declare -A base=(
  [json_string]=8192 [json_escapes]=2048 [json_number]=2048 [json_threads]=10000
  [json_rows]=20000 [gecko_deep]=20000 [firefox_deep]=20000 [folded_line]=100000
  [gperf_pcs]=20000 [pprof_types]=20000 [pprof_labels]=10000 [pprof_deep]=5000
  [pprof_names]=5000 [bsprof_allocs]=20000 [bsprof_modules]=12500 [gperf_build]=4000
  [firefox_strings]=4000 [gecko_nested]=4000 [gecko_waiting]=4000 [gzip_members]=10000
  [writers]=2500 [writers_stacks]=1000 [sibling_loops]=2000
  [empty_threads]=10000 [firefox_empty_threads]=10000 [wide_row]=2000 [long_location]=1000
  [thread_strings]=400 [thread_strings_after]=400 [pprof_long_name]=1000 [firefox_old_names]=1000 [pprof_long_mapping]=1000
  [empty_threads_b]=8000 [firefox_empty_threads_b]=6000 [wide_row_b]=3000 [long_location_b]=800
  [thread_strings_b]=300 [pprof_long_name_b]=600 [pprof_long_mapping_b]=600
  [paused_ranges_b]=10000 [thread_pids_b]=4000 [chrome_threads_b]=3000 [thread_order_b]=10000
)
order=(json_string json_escapes json_number json_threads json_rows gecko_deep firefox_deep
       folded_line gperf_pcs pprof_types pprof_labels pprof_deep pprof_names bsprof_allocs
       bsprof_modules gperf_build firefox_strings gecko_nested gecko_waiting gzip_members writers
       writers_stacks sibling_loops empty_threads firefox_empty_threads wide_row long_location
       thread_strings thread_strings_after pprof_long_name firefox_old_names pprof_long_mapping
       empty_threads_b firefox_empty_threads_b wide_row_b long_location_b thread_strings_b
       pprof_long_name_b pprof_long_mapping_b paused_ranges_b thread_pids_b chrome_threads_b thread_order_b)
# (NAME_b: issue 27's shapes again from bench/reliability_gen2.py, a second
# generator written apart, other sizes and constructions)
[ $# -gt 0 ] && order=("$@")

# options a family needs (a folded line longer than detection's 64 KiB look)
declare -A extra=([folded_line]="--format folded")
# the error a family may stop with: a limit on what its input can make
declare -A limit_of=([thread_strings]="makes the shared stacks anew: more than the limit"
                     [thread_strings_after]="makes the shared stacks anew: more than the limit"
                     [thread_strings_b]="makes the shared stacks anew: more than the limit")
# the generator of a family when not its own name, and its commands
declare -A gen_of=([writers]=firefox_deep [writers_stacks]=firefox_deep)
declare -A cmds_of=([writers]="convert:firefox convert:bsprof convert:callgrind convert:dcpi"
                    [writers_stacks]="convert:pprof convert:folded convert:speedscope convert:gperftools convert:br"
                    [sibling_loops]="top convert:callgrind"
                    [paused_ranges_b]="info convert:firefox flame" [thread_pids_b]="top convert:firefox flame"
                    [chrome_threads_b]="info markers flame" [thread_order_b]="top flame")

# median of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# measure FILE CMD: prints "CPU_SECONDS PEAK_KB OUTPUT_BYTES LIMITED"
# (median of RUNS; LIMITED 1 when the run stopped with the family's limit
# error); CMD is a command or convert:FORMAT
measure() {
  local f=$1 cmd=$2 ts=() ms=() i out args limited=0
  case $cmd in
    convert:*) args=(convert --to "${cmd#convert:}" -o "$dir/out") ;;
    flame) args=(flame --to html -o "$dir/out") ;;
    *) args=("$cmd") ;;
  esac
  for ((i = 0; i < RUNS; i++)); do
    rm -f "$dir/out"
    # shellcheck disable=SC2086
    if ! /usr/bin/time -o "$dir/time.out" -f '%U %S %M' "$PROFKIT" "${args[@]}" -q ${extra[$fam]:-} "$f" > /dev/null 2> "$dir/err.out"; then
      if [ -n "${limit_of[$fam]:-}" ] && grep -qF "${limit_of[$fam]}" "$dir/err.out"; then
        limited=1
      else
        echo "FAIL: $fam: profkit $cmd failed: $(head -c 300 "$dir/err.out")" >&2
        : > "$dir/failed" # (measure runs in a subshell: the verdict reads this)
      fi
    fi
    out=$(tail -1 "$dir/time.out")
    ts+=("$(echo "$out" | awk '{printf "%.3f", $1 + $2}')")
    ms+=("$(echo "$out" | awk '{print $3}')")
  done
  echo "$(median "${ts[@]}") $(median "${ms[@]}") $(stat -c %s "$dir/out" 2> /dev/null || echo 0) $limited"
  rm -f "$dir/out"
}

fail=0
rm -f "$dir/failed"
printf '%-21s %-4s %10s %10s %6s | %8s %8s %6s | %8s %8s %6s | %s\n' \
  family cmd "in N" "in 8N" ratio "cpu N" "cpu 8N" ratio "MB N" "MB 8N" ratio verdict
for fam in "${order[@]}"; do
  n=$(( ${base[$fam]} * SCALE ))
  small=$dir/$fam.small big=$dir/$fam.big
  g=${gen_of[$fam]:-$fam}
  gen=$here/reliability_gen.py
  case $g in *_b) gen=$here/reliability_gen2.py ;; esac
  python3 "$gen" "$g" "$n" "$small" || { echo "$fam: generator failed"; fail=1; continue; }
  python3 "$gen" "$g" $((n * 8)) "$big" || { echo "$fam: generator failed"; fail=1; continue; }
  s1=$(stat -c %s "$small") s8=$(stat -c %s "$big")
  for cmd in ${cmds_of[$fam]:-info top}; do
    read -r t1 m1 o1 l1 <<< "$(measure "$small" $cmd)"
    read -r t8 m8 o8 l8 <<< "$(measure "$big" $cmd)"
    # times under 20 ms are the process's start: floor both there; a
    # conversion may grow with its output when that grows faster
    verdict=$(awk -v s1="$s1" -v s8="$s8" -v t1="$t1" -v t8="$t8" -v m1="$m1" -v m8="$m8" \
                  -v o1="$o1" -v o8="$o8" -v l1="$l1" -v l8="$l8" -v cmd="$cmd" '
      function max(a, b) { return a > b ? a : b }
      BEGIN {
        ir = s8 / s1; if (cmd != "flame" && o1 > 0 && o8 / o1 > ir) ir = o8 / o1;
        tr = max(t8, 0.02) / max(t1, 0.02); mr = m8 / m1;
        v = "ok";
        if (l1 || l8) v = "ok: the limit error at " (l1 ? "N and 8N" : "8N");
        if (tr > 2.5 * ir) v = "FAIL: time grows " sprintf("%.1f", tr / ir) "x faster than the input";
        else if (mr > 2.5 * ir) v = "FAIL: memory grows " sprintf("%.1f", mr / ir) "x faster than the input";
        else if (m8 * 1024 > 20 * s8 + 200e6) v = "FAIL: memory at 8N passes 20 x the input + 200 MB";
        else if (cmd == "flame" && o1 > 0 && o8 / o1 > 2.5 * ir) v = "FAIL: the page grows " sprintf("%.1f", (o8 / o1) / ir) "x faster than the input";
        printf "%.2f %.2f %.2f %s", ir, tr, mr, v
      }')
    read -r ir tr mr v <<< "$verdict"
    printf '%-21s %-4s %10d %10d %6s | %8s %8s %6s | %8.1f %8.1f %6s | %s\n' \
      "$fam" "$cmd" "$s1" "$s8" "$ir" "$t1" "$t8" "$tr" "$(awk -v m="$m1" 'BEGIN{print m/1024}')" \
      "$(awk -v m="$m8" 'BEGIN{print m/1024}')" "$mr" "$v"
    [ "${o1:-0}" -gt 0 ] && printf '%-21s %-4s %10d %10d (output bytes)\n' "" "" "$o1" "$o8"
    case $v in FAIL*) fail=1 ;; esac
  done
  rm -f "$small" "$big"
done
[ -e "$dir/failed" ] && fail=1
if [ $fail -ne 0 ]; then
  echo "reliability: FAILED: a path grows faster than its input (see above)" >&2
  exit 1
fi
echo "reliability: every path grows with its input"
