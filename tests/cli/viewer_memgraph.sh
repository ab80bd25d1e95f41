#!/usr/bin/env bash
# The Memory view's memory graphs in Debian's chromium (playwright-core):
# for bsprof files (tests/data/bsprof and a generated one, thinned past
# 8,192 operations per thread) a graph per thread of its bytes in use by
# operation order, each one's highest and last value equal to profkit
# counters --json's (and the generator's peak and final value); the hover.
# Screenshots: $PROFKIT_BUILD/screenshots/memgraph-*.png.
. "$(dirname "$0")/lib.sh"
need_browser
if "$NODE" "$PROFKIT_SRC/tests/js/memgraph_browser.mjs"; then pass; else fail "memory graph browser checks failed (see above)"; fi
finish
