#!/usr/bin/env bash
# The viewer page's counter tracks in Debian's chromium (playwright-core):
# a track per counter, each one's highest running sum equal to profkit
# counters --json's total.max at the whole range and in a range; the hover.
# Screenshots: $PROFKIT_BUILD/screenshots/counters-*.png.
. "$(dirname "$0")/lib.sh"
need_browser
if "$NODE" "$PROFKIT_SRC/tests/js/counters_browser.mjs"; then pass; else fail "counter track browser checks failed (see above)"; fi
finish
