#!/usr/bin/env bash
# The Memory view narrowed to a range of operations in Debian's chromium
# (playwright-core): after a drag on the memory graph, the memory table
# and flame graph show what those operations did per allocation site, and
# query("mem") equals profkit counters --range Ams,Bms --json's sites, on
# ok_lines.bsprof and a generated file of 20 threads; ops=A-B from the URL;
# past the reader's 1,000,000 kept operations a range within them narrows,
# one reaching past them is not narrowed and the page says so. Screenshots: $PROFKIT_BUILD/screenshots/memrange-*.png.
. "$(dirname "$0")/lib.sh"
need_browser
if "$NODE" "$PROFKIT_SRC/tests/js/memrange_browser.mjs"; then pass; else fail "memory view range browser checks failed (see above)"; fi
finish
