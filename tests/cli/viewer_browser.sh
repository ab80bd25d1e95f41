#!/usr/bin/env bash
# The viewer page in Debian's chromium (playwright-core): every input
# format loads with no error and no request, and zoom, hover, search (against
# profkit top), threads and values, the call tree's keys, the sandwich
# (against profkit tree), diff colours, the stack chart and the URL
# round trip work as a person uses them. Screenshots: $PROFKIT_BUILD/screenshots/.
. "$(dirname "$0")/lib.sh"
need_shared
need_browser
if "$NODE" "$PROFKIT_SRC/tests/js/browser.mjs"; then pass; else fail "browser checks failed (see above)"; fi
finish
