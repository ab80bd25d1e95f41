#!/usr/bin/env bash
# The viewer page's timeline and stack chart coloured by the frames'
# categories, in Debian's chromium (playwright-core): each track's
# activity pixels and each stack chart box take its category's colour
# (Idle is not drawn), and the page's per-sample categories are the
# profile's. Screenshots: $PROFKIT_BUILD/screenshots/time-categories-*.png.
. "$(dirname "$0")/lib.sh"
need_browser
if "$NODE" "$PROFKIT_SRC/tests/js/time_categories.mjs"; then pass; else fail "category colour browser checks failed (see above)"; fi
finish
