#!/usr/bin/env bash
# --merge, --root-at, --focus and --ignore against the Firefox Profiler's own
# filters (`profiler-cli filter push --merge / --root-at / --includes-function
# / --excludes-function`; scripts/tools.sh installs it) on the Firefox
# fixtures of ../shared and the Gecko files of tests/data: per thread, for
# functions from the heaviest to the lightest, each filter alone must give
# every function profkit's self and total (tests/oracle/ff_transform_compare.py).
. "$(dirname "$0")/lib.sh"
need_shared
need_loader "$TMP/work/sessions"

# Every loader command is one node process: two functions a thread keeps the
# test within minutes; the fixtures' threads are small.
mapfile -t files < <(ls "$FIX"/firefox/gecko-*.json "$FIX"/firefox/processed-*.json \
  "$PROFKIT_SRC"/tests/data/gecko/ok_*.json 2> /dev/null | sort)
[ ${#files[@]} -gt 0 ] || { fail "no input files"; finish; }
if timeout 1700 python3 "$PROFKIT_SRC/tests/oracle/ff_transform_compare.py" --profkit "$PROFKIT" --cli "$CLI" \
     --work "$TMP/work" --per-thread 2 "${files[@]}" > "$TMP/report" 2>&1; then
  pass
else
  fail "the Firefox Profiler's filters disagree with profkit's transforms"
fi
grep -v '^PASS' "$TMP/report"
# Every file must have been compared.
for f in "${files[@]}"; do
  grep -q "^PASS $f" "$TMP/report" && pass || fail "$f not compared"
done
finish
