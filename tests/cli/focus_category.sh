#!/usr/bin/env bash
# --focus-category (docs/transforms.md) on the Gecko and Firefox fixtures
# with frame categories: for every thread and every category its samples
# have, `profkit convert --focus-category NAME --to folded` must equal the
# Firefox Profiler's focus-category written again in Python
# (tests/oracle/focus_category_ref.py) on profkit's Firefox output of the
# same file, whose categories the loader sees as the input's
# (categories_oracle.sh); a name no category has, or a profile without
# categories, is a usage error naming the profile's categories.
. "$(dirname "$0")/lib.sh"
need_shared
command -v python3 > /dev/null || { fail "python3 missing"; finish; }

n_cmp=0
for f in "$FIX"/firefox/argument-values.json "$FIX"/firefox/gecko-2.json "$FIX"/firefox/gecko-11.json \
  "$FIX"/firefox/samply-profile_with_js-v66.json "$FIX"/firefox/samply-ls-profile-v41.json; do
  b=$(basename "$f")
  "$PROFKIT" convert -q --no-symbolize "$f" --value samples --to firefox -o "$TMP/$b.ff.json" ||
    { fail "$b: convert"; continue; }
  nt=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["threads"]))' "$TMP/$b.ff.json")
  mapfile -t cats < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for c in dict.fromkeys(c["name"] for c in d["meta"]["categories"]): print(c)' "$TMP/$b.ff.json")
  for ((t = 0; t < nt; t++)); do
    for c in "${cats[@]}"; do
      python3 "$PROFKIT_SRC/tests/oracle/focus_category_ref.py" "$TMP/$b.ff.json" "$t" "$c" > "$TMP/want" ||
        { fail "$b: reference"; continue; }
      "$PROFKIT" convert -q --no-symbolize "$f" --value samples --thread "$t" --focus-category "$c" \
        --to folded | LC_ALL=C sort > "$TMP/got" || { fail "$b: --focus-category '$c'"; continue; }
      LC_ALL=C sort -o "$TMP/want" "$TMP/want"
      if cmp -s "$TMP/got" "$TMP/want"; then
        pass
        [ -s "$TMP/want" ] && n_cmp=$((n_cmp + 1))
      else
        fail "$b thread $t --focus-category '$c': $(diff "$TMP/want" "$TMP/got" | head -5)"
      fi
    done
  done
done
[ "$n_cmp" -ge 12 ] && pass || fail "only $n_cmp non-empty comparisons"

expect_status "unknown category" 2 "$PROFKIT" top --focus-category Paint "$FIX/firefox/gecko-11.json"
grep -q -- "--focus-category: no category named 'Paint' (the profile's: 'Idle', 'Other', 'JavaScript'" "$TMP/err" &&
  pass || fail "unknown category message: $(cat "$TMP/err")"
finish
