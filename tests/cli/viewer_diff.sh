#!/usr/bin/env bash
# The viewer page's diff and tables in Debian's chromium (playwright-core):
# the diff page sizes frames by the larger of BASE and NEW and draws what
# went away hatched at its BASE size, with a legend; its top and call tree
# tables show base, new, change and change % (against profkit diff --json);
# the top table has one row per function (no "(other)", no name, file and
# line twice) as profkit top; the label picker filters and groups as
# --tagfocus and --tagroot/--tagleaf. Screenshots: $PROFKIT_BUILD/screenshots/diff-*.png.
. "$(dirname "$0")/lib.sh"
need_browser
if "$NODE" "$PROFKIT_SRC/tests/js/diff_browser.mjs"; then pass; else fail "diff page browser checks failed (see above)"; fi
finish
