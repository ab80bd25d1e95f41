#!/usr/bin/env bash
# --range, --during-marker, --outside-marker and --thread by tid or index
# (issue 25): bad input exits 2 with the documented message; per thread and
# function, `profkit top --range R` equals the Firefox Profiler's own loader
# after `zoom push R` (and `filter push --during-marker/--outside-marker`)
# on every processed fixture the loader reads (tests/cli/range_oracle_compare.py).
. "$(dirname "$0")/lib.sh"
need_shared
F="$FIX/firefox"
D="$PROFKIT_SRC/tests/data"

# --- bad input: exit 2 and the exact message, before any file is read
expect_status "--range without a comma" 2 "$PROFKIT" top --range 2.7 /nonexistent
expect_eq "--range without a comma: message" \
  "profkit: --range: expected START,END (seconds as in 2.7,3.1, milliseconds as in 2700ms,3100ms, or percentages of the profile as in 10%,20%), got '2.7'" \
  "$(head -1 "$TMP/err")"
expect_status "--range not a time" 2 "$PROFKIT" tree --range 1,2us "$F/processed-1.json"
expect_eq "--range not a time: message" \
  "profkit: --range: '2us' is not a time: expected seconds (2.7), milliseconds (2700ms) or a percentage (10%)" \
  "$(head -1 "$TMP/err")"
expect_status "--range backwards" 2 "$PROFKIT" flame --range 20%,10% "$F/processed-1.json" -o "$TMP/x.html"
expect_eq "--range backwards: message" "profkit: --range: the end comes before the start in '20%,10%'" \
  "$(head -1 "$TMP/err")"
# an untimed file names itself
expect_status "--range on an aggregated profile" 2 "$PROFKIT" top --range 1,2 "$D/pprof/ok_delta.pb"
expect_eq "--range on an aggregated profile: message" \
  "profkit: $D/pprof/ok_delta.pb: --range: the profile has no times (its samples are aggregated per stack), so it has no time range" \
  "$(head -1 "$TMP/err")"
expect_status "--during-marker on an aggregated profile" 2 "$PROFKIT" convert --during-marker GC "$D/pprof/ok_delta.pb" --to folded
expect_status "both marker filters" 2 "$PROFKIT" top --during-marker a --outside-marker b "$F/processed-1.json"
expect_eq "both marker filters: message" \
  "profkit: --during-marker and --outside-marker: give one of them, not both" "$(head -1 "$TMP/err")"

# --- the filter narrows every reading command
total() { "$PROFKIT" top -q --no-symbolize --json "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])'; }
S="$F/samply-ls-profile-v41.json"
expect_eq "whole range keeps every sample" "$(total "$S")" "$(total --range 0%,100% "$S")"
expect_eq "25%,75% as ms and seconds" "$(total --range 25%,75% "$S")" \
  "$(total --range 818.3675915ms,2455.1027745ms "$S")"
expect_eq "seconds" "$(total --range 0.8183675915,2.4551027745 "$S")" "$(total --range 25%,75% "$S")"
half=$(total --range 25%,75% "$S")
all=$(total "$S")
[ "$half" -gt 0 ] && [ "$half" -lt "$all" ] && pass || fail "25%,75% keeps $half of $all samples"
expect_eq "a range past the end keeps nothing" 0 "$(total --range 200%,300% "$S")"
# a range chooses the profile looked at: percentages are of the range's
# samples (whole_total, what percentages are of, is the range's), also with
# a filter after it
whole() { "$PROFKIT" top -q --no-symbolize --json "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("whole_total", "none"))'; }
expect_eq "--range alone: the whole total is the range's" "$half" "$(whole --range 25%,75% "$S")"
expect_eq "--range with --ignore: the whole total is the range's" "$half" "$(whole --range 25%,75% --ignore '^zzz-no-such-function$' "$S")"
# convert keeps the range: the folded output of the range, plus the value of
# the samples without a stack that folded says it leaves out, sums to top's
# total
"$PROFKIT" convert --no-symbolize --range 25%,75% "$S" --to folded -o "$TMP/range.folded" 2> "$TMP/range.err"
got=$(awk '{s += $NF} END {print s}' "$TMP/range.folded")
left=$(sed -n 's/.*samples without a stack (a value of \([0-9]*\)).*/\1/p' "$TMP/range.err")
expect_eq "convert --range" "$half" "$((got + ${left:-0}))"
for cmd in tree traces hist "peek ." "list ."; do
  expect_status "$cmd --range" 0 "$PROFKIT" $cmd -q --no-symbolize --range 25%,75% "$S"
done
# info shows the root range the filters count from
expect_eq "info time range" "duration:     3273.47 ms (from 0 to 3273.47 ms; --range counts from its start)" \
  "$("$PROFKIT" info -q --no-symbolize "$S" | grep '^duration')"
# a range in info: the rows left
expect_eq "info --range" "samples:      0 rows (aggregated per stack and thread)" \
  "$("$PROFKIT" info -q --no-symbolize --range 200%,300% "$S" | grep '^samples')"

# --- threads: several of one name are listed, tid and index pick one;
# reports name a thread as the Firefox Profiler does (the total: its
# samples, 13069 with a stack, the loader's call tree's, and 14 without)
expect_eq "top names the thread with its process and ids" \
  "Value: samples (count), total 13083, thread GeckoMain (ls, pid 18693, tid 18693)" \
  "$("$PROFKIT" top -q --no-symbolize --thread 1 "$S" | head -1)"
expect_status "--thread matching two threads" 2 "$PROFKIT" top -q --no-symbolize --thread GeckoMain "$S"
expect_eq "--thread matching two threads: message" \
  "profkit top: thread 'GeckoMain' matches 2 threads: 0: GeckoMain (perf-exec, pid 18693, tid 18693); 1: GeckoMain (ls, pid 18693, tid 18693) (pick one by index or tid:TID)" \
  "$(head -1 "$TMP/err")"
# a Gecko thread without processName gets its processType's name, as in the Firefox Profiler
expect_status "--thread GeckoMain on gecko-11" 2 "$PROFKIT" top -q --thread GeckoMain "$F/gecko-11.json"
expect_eq "--thread GeckoMain on gecko-11: message" \
  "profkit top: thread 'GeckoMain' matches 2 threads: 0: GeckoMain (Parent Process); 2: GeckoMain (Content Process) (pick one by index or tid:TID)" \
  "$(head -1 "$TMP/err")"
expect_eq "--thread by index and by handle" "$(total --thread 1 "$S")" "$(total --thread t-1 "$S")"
expect_status "--thread by a tid two threads share" 2 "$PROFKIT" top --thread tid:18693 "$S"
expect_status "--thread by an unknown tid" 2 "$PROFKIT" top --thread tid:5 "$S"

# --- against the Firefox Profiler's loader
need_loader
# The loader reads processed profiles (it fails on raw Gecko files and on the
# small tests/data files, faults of its own). The two samply files whose
# first (or every) sample has no stack count it in their root range, as
# the loader does (docs/formats/firefox.md, "Time ranges").
for f in "$F"/processed-* "$F"/samply-ls-profile-v41.json "$F"/samply-profile_with_js-v66.json \
         "$F"/samply-flow_marker_fields-v66.json "$F"/argument-values.json "$F"/unsymbolicated-v49.json.gz \
         "$F"/samply-profile_without_js-v66.json "$F"/samply-profile_counters_with_sorted_processes-v66.json; do
  ranges="25%,75% 10%,20%"
  # seconds and milliseconds on the largest (3.27 s, two threads)
  [ "$(basename "$f")" = samply-ls-profile-v41.json ] && ranges="$ranges 0.5,2 100ms,900ms 3.2,1000"
  for r in $ranges; do
    if python3 "$PROFKIT_SRC/tests/cli/range_oracle_compare.py" "$PROFKIT" "$CLI" "$r" "$f" > "$TMP/cmp" 2>&1; then
      pass
    else
      fail "$(basename "$f") --range $r: differs from the Firefox Profiler"
    fi
    cat "$TMP/cmp"
  done
done
for spec in during:DOMEvent outside:DOMEvent during:importESModule outside:TextStack; do
  if python3 "$PROFKIT_SRC/tests/cli/range_oracle_compare.py" "$PROFKIT" "$CLI" "$spec" "$F/argument-values.json" > "$TMP/cmp" 2>&1; then
    pass
  else
    fail "argument-values.json $spec: differs from the Firefox Profiler"
  fi
  cat "$TMP/cmp"
done
finish
