#!/usr/bin/env bash
# The profiler's paused ranges in the viewer page's timeline, in Debian's
# chromium (playwright-core): a hatched band over the tracks of each
# range's process where the file's pausedRanges say (canvas pixels and
# query("paused")), on a raw Gecko profile of two processes and on it
# converted to a processed one; the hover (reason, start, duration; an
# open range to the end); a drag across a band and range=A-B zoom with the
# bands; a range of no known process is on every track; a profile without
# paused ranges draws none.
# Screenshots: $PROFKIT_BUILD/screenshots/paused-*.png.
. "$(dirname "$0")/lib.sh"
need_browser
if "$NODE" "$PROFKIT_SRC/tests/js/paused_browser.mjs"; then pass; else fail "paused ranges browser checks failed (see above)"; fi
finish
