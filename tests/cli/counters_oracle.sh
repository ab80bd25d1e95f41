#!/usr/bin/env bash
# Counters against the Firefox Profiler's own loader (docs/testing.md;
# scripts/tools.sh installs it): for every Gecko and processed profile with
# counters in ../shared/fixtures/firefox and tests/data/{gecko,firefox},
# `profkit counters --json` must give the counters the loader's `counter
# list` / `counter info` give (name, category, description, thread, samples,
# samples in the root range, memory range), and `profkit convert --to
# firefox` must give the loader the same counters as the input
# (tests/oracle/counters_compare.py).
. "$(dirname "$0")/lib.sh"
need_shared
need_loader

# The files with counters, as profkit reads them (samply-profile_without_js-
# v66.json's first sample has no stack: kept, its root range is the loader's).
mapfile -t files < <(
  for f in "$FIX"/firefox/* "$PROFKIT_SRC"/tests/data/gecko/ok_* "$PROFKIT_SRC"/tests/data/firefox/ok_*; do
    n=$("$PROFKIT" counters -q --json "$f" 2> /dev/null |
        python3 -c 'import json, sys; print(len(json.load(sys.stdin)["counters"]))' 2> /dev/null)
    [ "${n:-0}" -gt 0 ] && echo "$f"
  done)
[ ${#files[@]} -ge 4 ] || fail "only ${#files[@]} files with counters found"
if python3 "$PROFKIT_SRC/tests/oracle/counters_compare.py" "$PROFKIT" "$CLI" "$TMP" "${files[@]}" > "$TMP/cmp" 2>&1; then
  pass
else
  fail "counters differ from the Firefox Profiler's"
fi
cat "$TMP/cmp"
checks=$((checks + $(grep -c '^ok ' "$TMP/cmp")))
n=$(grep -c '^ok ' "$TMP/cmp")
[ "$n" -ge 3 ] && pass || fail "only $n files compared counter by counter"
finish
