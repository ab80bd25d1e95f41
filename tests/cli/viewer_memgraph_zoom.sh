#!/usr/bin/env bash
# The memory graph's range of operations in Debian's chromium
# (playwright-core): a drag zooms it, its start, lowest, highest and last
# bytes in use equal profkit counters --range Ams,Bms --json's, the hover
# on the zoomed graph, ops=A-B in the URL restored, the breadcrumb, and
# All threads of 20 threads as a compact list. Screenshots:
# $PROFKIT_BUILD/screenshots/memzoom-*.png.
. "$(dirname "$0")/lib.sh"
need_browser
if "$NODE" "$PROFKIT_SRC/tests/js/memgraph_zoom_browser.mjs"; then pass; else fail "memory graph range browser checks failed (see above)"; fi
finish
