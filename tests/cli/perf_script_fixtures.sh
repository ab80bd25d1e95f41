#!/usr/bin/env bash
# The perf script reader (docs/formats/perf_script.md) against the real
# `perf script` files of ../shared/fixtures/perf and stackcollapse-perf.pl's
# recorded output beside them: `convert --to folded` gives exactly its
# stacks and values without options (its `--all` output less the `_[k]` and
# `_[j]` suffixes), less its root frame (the process name, which profkit
# keeps as the thread), plus the last sample of a file that ends without a
# blank line, which profkit keeps and it drops (tests/cli/perf_collapsed.py). Then one recording made here with Debian's
# linux-perf, where the machine allows it: totals equal the periods and
# sample lines of the text.
. "$(dirname "$0")/lib.sh"
need_shared
for f in "$FIX"/perf/perf-*.txt; do
  b=$(basename "$f" .txt)
  res="$FIX/perf/results/$b-collapsed-all.txt"
  "$PROFKIT" info "$f" > "$TMP/info" 2> "$TMP/err" || { fail "$b: $(cat "$TMP/err")"; continue; }
  grep -q '^format: *perf_script$' "$TMP/info" && pass || fail "$b: not detected"
  if python3 "$PROFKIT_SRC/tests/cli/perf_collapsed.py" "$PROFKIT" "$f" "$res"; then pass
  else fail "$b: stacks and values of stackcollapse-perf.pl"; fi
  # Its root frames are profkit's thread names; its --tid roots are
  # COMM-PID/TID (PID ? when the file has none) and each is a thread.
  cut -d';' -f1 "$res" | sort -u > "$TMP/roots"
  awk '$1 ~ /^[0-9]+:$/ {print $2}' "$TMP/info" | sort -u > "$TMP/threads"
  missing=$(comm -23 "$TMP/roots" "$TMP/threads")
  expect_eq "$b: every process name is a thread" "" "$missing"
  cut -d';' -f1 "$FIX/perf/results/$b-collapsed-tid.txt" | sed -E 's/.*\/([0-9]+)$/\1/' | sort -u > "$TMP/tids"
  awk '$1 ~ /^[0-9]+:$/ {for (i = 2; i < NF; i++) if ($i == "tid") print $(i + 1)}' "$TMP/info" | tr -d , | sort -u > "$TMP/ptids"
  expect_eq "$b: every thread id is a thread" "" "$(comm -23 "$TMP/tids" "$TMP/ptids")"
done
# Several events: one value type each, the first the default, and samples.
f="$FIX/perf/perf-cycles-instructions-01.txt"
"$PROFKIT" info "$f" 2> /dev/null > "$TMP/info"
expect_eq "events and samples" "instructions 333 [default]|samples 444|cycles 111" \
  "$(awk '/^  [a-z]/ && NF >= 4 && $3 == "total" {printf "%s%s %s%s", sep, $1, $4, ($NF == "[default]" ? " [default]" : ""); sep = "|"}' "$TMP/info")"

# A recording made here.
if ! command -v perf > /dev/null; then
  echo "note: perf is not installed; the live recording is not checked"
elif ! perf record -q -e cpu-clock -g -o "$TMP/rec.data" -- sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' > /dev/null 2>&1; then
  echo "note: perf record is not allowed on this machine (perf_event_paranoid, container); the live recording is not checked"
else
  for fields in default "comm,pid,tid,time,period,event,ip,sym,dso"; do
    if [ "$fields" = default ]; then perf script -i "$TMP/rec.data" > "$TMP/rec.txt" 2> /dev/null
    else perf script -F "$fields" -i "$TMP/rec.data" > "$TMP/rec.txt" 2> /dev/null; fi
    want_n=$(grep -c 'cpu-clock:' "$TMP/rec.txt")
    want_sum=$(awk '/cpu-clock:/ {for (i = 1; i < NF; i++) if ($(i + 1) ~ /^cpu-clock:/) s += $i} END {print s + 0}' "$TMP/rec.txt")
    "$PROFKIT" info "$TMP/rec.txt" > "$TMP/info" 2> "$TMP/err" || fail "recording ($fields): $(cat "$TMP/err")"
    grep -q "^  cpu-clock *nanoseconds *total $want_sum " "$TMP/info" && pass || fail "recording ($fields): cpu-clock total $want_sum: $(grep cpu-clock "$TMP/info")"
    grep -q "^  samples *count *total $want_n " "$TMP/info" && pass || fail "recording ($fields): $want_n samples: $(grep samples "$TMP/info")"
    folded_sum=$("$PROFKIT" convert "$TMP/rec.txt" --to folded 2> /dev/null | awk '{s += $NF} END {print s + 0}')
    expect_eq "recording ($fields): folded total" "$want_sum" "$folded_sum"
  done
fi
finish
