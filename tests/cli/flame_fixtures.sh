#!/usr/bin/env bash
# `profkit flame` on the real profiles of ../shared/fixtures (Firefox and
# samply Gecko/processed profiles, pprof, gperftools): the page's data has
# schema 1's shape and its all-threads totals are `profkit info`'s; the SVG
# parses as XML.
. "$(dirname "$0")/lib.sh"
need_shared
CHECK="python3 $PROFKIT_SRC/tests/cli/flame_check.py"
info_totals() {
  "$PROFKIT" info -q "$@" | sed -n 's/^  [^ ]\{1,\} \{1,\}[^ ]\{1,\} \{1,\}total \(-\{0,1\}[0-9]\{1,\}\) .*/\1/p' | paste -sd,
}
n=0
for f in "$FIX"/firefox/*.json "$FIX"/firefox/*.json.gz "$FIX"/pprof/*.pb.gz "$FIX"/pprof/cppbench.cpu \
  "$FIX"/pprof/gobench.cpu "$FIX"/gperftools-real/*.prof "$FIX"/gperftools-real/*.collapsed; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  name=$(basename "$f")
  expect_status "flame $name" 0 "$PROFKIT" flame -q "$f" -o "$TMP/page.html"
  if $CHECK "$TMP/page.html" --totals "$(info_totals "$f")" > "$TMP/check" 2>&1; then pass; else fail "$name: $(cat "$TMP/check")"; fi
  expect_status "flame svg $name" 0 "$PROFKIT" flame -q "$f" -o "$TMP/page.svg"
  if python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$TMP/page.svg" 2> "$TMP/xml"; then pass; else fail "$name svg: $(cat "$TMP/xml")"; fi
done
[ "$n" -ge 20 ] && pass || fail "expected 20 fixtures or more, found $n"
finish
