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
)
# what info must show for N (the check that the file was read, not skipped)
expect_info() {
  case $1 in
    json_threads) echo "threads:      $2" ;;
    pprof_types) echo "value types:  $2" ;;
    pprof_labels) echo "threads:      $2" ;;
    gecko_deep|firefox_deep) echo "stacks:       $2 distinct" ;;
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
    esac
  done
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
grep -qF "50 threads: more than the limit of 10 (--max-threads raises it)" <<< "$err" || bad "--max-threads: wrong error: $err"
"$PROFKIT" info --max-threads 50 "$tmp/t.json" > /dev/null || bad "--max-threads 50 refused 50 threads"

set +e
"$PROFKIT" info --max-depth 0 "$tmp/t.json" > /dev/null 2>&1
[ $? -eq 2 ] || bad "--max-depth 0: not a usage error"
"$PROFKIT" top --max-inflate x "$tmp/t.json" > /dev/null 2>&1
[ $? -eq 2 ] || bad "--max-inflate x: not a usage error"
set -e
[ $fail -eq 0 ] && echo "reliability: all shapes read at N and 2N; limits give their errors"
exit $fail
