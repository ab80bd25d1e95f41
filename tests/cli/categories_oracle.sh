#!/usr/bin/env bash
# Frame categories against the Firefox Profiler's own loader (docs/testing.md;
# scripts/tools.sh installs it): for every Gecko and processed profile in
# ../shared/fixtures/firefox and tests/data/{gecko,firefox}, `profkit convert
# --to firefox` must give the loader, thread by thread, the category and
# subcategory breakdown of the samples it gives for the input, the input's
# meta.categories, and its functions' isJS and relevantForJS
# (tests/oracle/categories_compare.py).
# processed-1/2/3.json are left out: they predate categories (processed
# version < 12), and the loader makes categories up for them from an old
# bit mask, a list of function names and the frames' JIT implementation,
# which profkit does not (docs/formats/firefox.md).
. "$(dirname "$0")/lib.sh"
need_shared
need_loader

files=()
for f in "$FIX"/firefox/* "$PROFKIT_SRC"/tests/data/gecko/ok_* "$PROFKIT_SRC"/tests/data/firefox/ok_*; do
  case "$f" in */processed-[123].json) continue ;; esac
  files+=("$f")
done
[ ${#files[@]} -ge 20 ] || fail "only ${#files[@]} input files found"
if python3 "$PROFKIT_SRC/tests/oracle/categories_compare.py" "$PROFKIT" "$CLI" "$TMP" "${files[@]}" > "$TMP/cmp" 2>&1; then
  pass
else
  fail "categories differ from the Firefox Profiler's"
fi
cat "$TMP/cmp"
checks=$((checks + $(grep -c '^ok ' "$TMP/cmp")))
# Files whose categories the loader shows: there must be a few with several.
n=$(grep -c 'round trip gives the loader the same categories' "$TMP/cmp")
[ "$n" -ge 10 ] && pass || fail "only $n files compared category by category"
finish
