#!/usr/bin/env bash
# The speedscope reader (docs/formats/speedscope.md): profkit's own writer
# and reader round trip: every tests/data/*/ok_* file and the ../shared
# fixtures converted with --to speedscope read back with the same folded
# stacks and the same thread names, detected without --format. Then the
# hand-made files of tests/data/speedscope: the exact stacks and values of
# an evented profile (times between events), fractional milliseconds
# becoming whole nanoseconds, each profile a thread.
. "$(dirname "$0")/lib.sh"
files=("$PROFKIT_SRC"/tests/data/*/ok_*)
if [ -d "$FIX" ]; then
  files+=("$FIX"/folded/*.txt "$FIX"/gperftools-real/*.prof "$FIX"/pprof/cppbench.cpu "$FIX"/perf/perf-*.txt
          "$FIX"/firefox/gecko-*.json "$FIX"/firefox/samply-ls-profile-v41.json)
fi
n=0
for f in "${files[@]}"; do
  case "$f" in *.expect) continue ;; esac
  "$PROFKIT" convert "$f" --to folded 2> /dev/null | LC_ALL=C sort > "$TMP/want" || continue
  [ -s "$TMP/want" ] || continue
  b=$(basename "$f")
  "$PROFKIT" convert "$f" --to speedscope -o "$TMP/x.speedscope.json" 2> "$TMP/err" || { fail "$b: write: $(cat "$TMP/err")"; continue; }
  # Negative values (a pprof delta profile) are written as weights the
  # reader refuses by its ruling (docs/formats/speedscope.md): the reader
  # must say so; the round trip cannot hold them.
  if grep -q ' -[0-9]*$' "$TMP/want"; then
    "$PROFKIT" info "$TMP/x.speedscope.json" > /dev/null 2> "$TMP/err" && fail "$b: negative weights read back" ||
      { grep -q 'expected a number 0 or more, found a negative' "$TMP/err" && pass || fail "$b: negative weights: $(cat "$TMP/err")"; }
    continue
  fi
  # A name holding NUL bytes does not survive the speedscope reader yet
  # (a known gap, issue 27's follow-up): its round trip is not compared.
  if LC_ALL=C grep -qaP '\x00' "$TMP/want"; then
    echo "known gap: $b: a name with NUL bytes through speedscope"
    continue
  fi
  "$PROFKIT" convert "$TMP/x.speedscope.json" --to folded 2> "$TMP/err" | LC_ALL=C sort > "$TMP/got"
  expect_files_eq "$b: folded after the round trip" "$TMP/want" "$TMP/got"
  "$PROFKIT" info "$f" 2> /dev/null | awk '$1 ~ /^[0-9]+:$/ {sub(/^ *[0-9]+: /, ""); sub(/, [0-9]+ sample rows?$/, ""); sub(/ \(.*$/, ""); sub(/ (pid|tid) [0-9-]+.*$/, ""); print}' > "$TMP/tw"
  "$PROFKIT" info "$TMP/x.speedscope.json" > "$TMP/info" 2> /dev/null
  awk '$1 ~ /^[0-9]+:$/ {sub(/^ *[0-9]+: /, ""); sub(/, [0-9]+ sample rows?$/, ""); print}' "$TMP/info" > "$TMP/tg"
  expect_files_eq "$b: thread names after the round trip" "$TMP/tw" "$TMP/tg"
  grep -q '^format: *speedscope$' "$TMP/info" && pass || fail "$b: written file not detected as speedscope"
  n=$((n + 1))
done
echo "round trips: $n"
[ "$n" -ge 20 ] && pass || fail "expected at least 20 round trips, got $n"
D="$PROFKIT_SRC/tests/data/speedscope"
"$PROFKIT" convert "$D/ok_evented.speedscope.json" --to folded > "$TMP/got" 2> "$TMP/err"
printf 'main 20\nmain;io 30\nmain;work 20\nmain;work;hot 30\n' > "$TMP/want"
expect_files_eq "evented: time between events" "$TMP/want" "$TMP/got"
"$PROFKIT" info "$D/ok_sampled.speedscope.json" > "$TMP/info" 2> "$TMP/err"
grep -q '^  time *nanoseconds *total 7800000 ' "$TMP/info" && pass || fail "sampled: 7.5 ms + 300 µs in nanoseconds: $(grep time "$TMP/info")"
grep -q '^  0: MainThread' "$TMP/info" && grep -q '^  1: Worker' "$TMP/info" && pass || fail "sampled: profiles as threads"
"$PROFKIT" convert "$D/ok_sampled.speedscope.json" --to folded --thread Worker > "$TMP/got" 2> "$TMP/err"
printf 'hot 200000\nmain;io 100000\n' > "$TMP/want"
expect_files_eq "sampled: the Worker profile" "$TMP/want" "$TMP/got"
finish
