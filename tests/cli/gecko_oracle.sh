#!/usr/bin/env bash
# Processed-profile fixtures against the Firefox Profiler's own loader
# (docs/testing.md: @firefox-devtools/profiler-cli on Node 24, installed under
# build/tools by scripts/tools.sh): per thread, every function's self and
# total sample counts must equal `profkit top --thread I --value samples`.
# (The loader fails on raw Gecko files, a fault of its own: those are
# checked by gecko_fixtures.sh against the reference reader instead.)
. "$(dirname "$0")/lib.sh"
need_shared
need_loader
for f in "$FIX"/firefox/processed-* "$FIX"/firefox/samply-* "$FIX"/firefox/argument-values.json \
         "$FIX"/firefox/unsymbolicated-v49.json.gz; do
  if python3 "$PROFKIT_SRC/tests/cli/gecko_oracle_compare.py" "$PROFKIT" "$CLI" "$f" > "$TMP/cmp" 2>&1; then
    pass
  else
    fail "$(basename "$f"): differs from the Firefox Profiler"
  fi
  cat "$TMP/cmp"
done
finish
