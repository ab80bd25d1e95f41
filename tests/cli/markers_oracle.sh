#!/usr/bin/env bash
# Markers against the Firefox Profiler's own loader (docs/testing.md;
# scripts/tools.sh installs it): for every Gecko and processed profile with
# markers in ../shared/fixtures/firefox and tests/data/{gecko,firefox},
# `profkit markers --list --json` must list per thread the markers the
# loader's `thread markers --list --json` lists (name, category, start and
# duration on its zero), and `profkit convert --to firefox` must give the
# loader the same markers, threads, processes, root range and
# meta.startTime as the input (tests/cli/markers_compare.py).
. "$(dirname "$0")/lib.sh"
need_shared
need_loader "$TMP/sessions"

# The files with markers (samply-profile_without_js-v66.json's first sample
# has no stack: kept, its time is the zero, as the loader's).
mapfile -t files < <(
  for f in "$FIX"/firefox/* "$PROFKIT_SRC"/tests/data/gecko/ok_* "$PROFKIT_SRC"/tests/data/firefox/ok_*; do
    n=$("$PROFKIT" info -q --json "$f" 2> /dev/null |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["markers"])' 2> /dev/null)
    [ "${n:-0}" -gt 0 ] && echo "$f"
  done)
[ ${#files[@]} -ge 10 ] || fail "only ${#files[@]} files with markers found"
if python3 "$PROFKIT_SRC/tests/cli/markers_compare.py" "$PROFKIT" "$CLI" "$TMP" "${files[@]}" > "$TMP/cmp" 2>&1; then
  pass
else
  fail "markers differ from the Firefox Profiler's"
fi
cat "$TMP/cmp"
checks=$((checks + $(grep -c '^ok ' "$TMP/cmp")))
finish
