#!/usr/bin/env bash
# The page's label picker on numeric labels in Debian's chromium
# (playwright-core): grouping by a numeric key at the root and the leaf and
# its "(none)" equal the command line shown (which tests/cli/labels_numeric.sh
# checks against Go pprof), also a bucketed key's grouping (a frame per number).
# tests/js/numlabels_browser.mjs; screenshots $PROFKIT_BUILD/screenshots/labels-*.png.
. "$(dirname "$0")/lib.sh"
need_browser
export PROFKIT PROFKIT_SRC PROFKIT_TOOLS
if "$NODE" "$PROFKIT_SRC/tests/js/numlabels_browser.mjs"; then pass; else fail "numeric label picker browser checks failed (see above)"; fi
finish
