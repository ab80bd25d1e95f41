#!/usr/bin/env bash
# bsprof -> Firefox keeps every value type (a thread per value type besides
# the default), the memory counters and the app's identity: the Firefox
# Profiler's own loader (scripts/tools.sh installs it) must show each value
# type as `profkit top --value X --json` does, each thread's memory counter
# whole, and the app's name and firmware (tests/oracle/bsprof_values_compare.py).
. "$(dirname "$0")/lib.sh"
D="$PROFKIT_SRC/tests/data/bsprof"
need_loader "$TMP/work/sessions"
cc -O1 -o "$TMP/gen" "$PROFKIT_SRC/bench/bsprof_gen.c" || { fail "cannot build the generator"; finish; }
# more operations per thread than the counter keeps one sample each for
"$TMP/gen" random "$TMP/r.bsprof" elements=60 modules=3 cpu=200 memops=30000 live=300 lines=1 seed=9 2> /dev/null
if python3 "$PROFKIT_SRC/tests/oracle/bsprof_values_compare.py" "$PROFKIT" "$CLI" "$TMP/work" \
  "$D/ok_lines.bsprof" "$D/ok_nolines.bsprof" "$D/ok_nomem.bsprof" "$D/ok_components.bsprof" "$TMP/r.bsprof" > "$TMP/out" 2>&1; then
  pass
else
  fail "the Firefox Profiler's view differs"
fi
cat "$TMP/out"
n=$(grep -c '^PASS' "$TMP/out")
expect_eq "files checked" 5 "$n"
finish
