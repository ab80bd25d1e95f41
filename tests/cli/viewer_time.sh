#!/usr/bin/env bash
# The viewer page's time line in Debian's chromium (playwright-core): the
# timeline's tracks, the marker chart and table against profkit markers
# --json, a range dragged in the timeline narrowing every view to profkit
# top --range's and tree --range's JSON (window.profkit.query), the range
# in the URL restored on load, flame --range opening with it, the stack
# chart on the busiest timed thread with its runs refined when zoomed.
# Screenshots: $PROFKIT_BUILD/screenshots/time-*.png.
. "$(dirname "$0")/lib.sh"
need_browser
if "$NODE" "$PROFKIT_SRC/tests/js/time_browser.mjs"; then pass; else fail "time line browser checks failed (see above)"; fi
finish
