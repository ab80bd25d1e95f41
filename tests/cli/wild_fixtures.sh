#!/usr/bin/env bash
# Files other tools wrote (../shared/fixtures/wild/, see its README), read
# with the answers their own tools give, each computed from the files' own
# data by tests/cli/wild_fixtures.py: perf script files against
# stackcollapse-perf.pl's recorded output, folded totals, speedscope
# profiles' weights, Firefox DevTools exports' samples per thread, linux-perf
# samples and leaves, V8 .cpuprofile samples per leaf (Node 10's nested
# form too); the invalid_ files give a clear error or warning.
. "$(dirname "$0")/lib.sh"
need_shared
WILD="$FIX/wild"
[ -d "$WILD" ] || { fail "$WILD is missing"; finish; }
command -v python3 > /dev/null || { fail "python3 is needed"; finish; }
python3 "$PROFKIT_SRC/tests/cli/wild_fixtures.py" "$PROFKIT" "$WILD" "$PROFKIT_SRC" > "$TMP/out" 2>&1
st=$?
grep -v '^ok ' "$TMP/out"
n_ok=$(grep -c '^ok ' "$TMP/out")
n_fail=$(grep -c '^FAIL ' "$TMP/out")
checks=$((checks + n_ok))
failures=$((failures + n_fail))
[ "$n_ok" -ge 70 ] && pass || fail "only $n_ok checks ran (the families' files are expected)"
[ $st -eq 0 ] || [ "$n_fail" -gt 0 ] || fail "wild_fixtures.py failed without a FAIL line (exit $st)"
finish
