#!/usr/bin/env bash
# A V8 .cpuprofile's root range and --range against the Firefox Profiler's
# own loader (tests/oracle/v8_range_compare.py says what is compared): for
# every timed .cpuprofile of ../shared and tests/data, profkit's root range
# equals the loader's of the file itself (where the loader reads it: the
# current form) and of profkit's Firefox output, and `top --range` the
# loader's `zoom push` + `thread functions`. The old form (`head`,
# `timestamps`: Node 10's file) records no range: its root range is the
# samples' extent with the median gap as interval (docs/formats/v8_cpuprofile.md).
. "$(dirname "$0")/lib.sh"
need_shared
need_loader
D="$PROFKIT_SRC/tests/data/v8_cpuprofile"
files=("$FIX"/wild/v8/*.cpuprofile "$D"/ok_node.cpuprofile "$D"/ok_devtools.cpuprofile "$D"/ok_old_head.cpuprofile)
[ "${#files[@]}" -ge 6 ] && pass || fail "expected the three .cpuprofile fixtures of ../shared/fixtures/wild/v8"

# the old form's interval and range, as numbers
F="$FIX/wild/v8/node_10.11.0_example.cpuprofile"
expect_eq "node 10: root range (ms)" "163140599.286 163140645.333" \
  "$("$PROFKIT" info -q --json "$F" | python3 -c 'import json,sys; r=json.load(sys.stdin)["time_range"]; print(r["start"], r["end"])')"
"$PROFKIT" convert -q "$F" --to firefox -o "$TMP/n10.json"
expect_eq "node 10: the Firefox output's interval" "1.27" \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["meta"]["interval"])' "$TMP/n10.json")"

if timeout 900 python3 "$PROFKIT_SRC/tests/oracle/v8_range_compare.py" --profkit "$PROFKIT" --cli "$CLI" \
     --work "$TMP/work" --range 25%,75% --range 10%,20% --range 10ms,30ms "${files[@]}" > "$TMP/report" 2>&1; then
  pass
else
  fail "the .cpuprofile ranges against the loader:"
fi
cat "$TMP/report"
finish
