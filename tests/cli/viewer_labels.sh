#!/usr/bin/env bash
# The page's label picker in Debian's chromium (playwright-core) on the Go
# profiles recorded with pprof labels (tests/data/pprof/labels): each pick
# is on the thread shown (a one-thread profile), kept in the URL (a reload
# and a changed hash restore it), named on the command line shown (which,
# run by the shell, equals the page's query("top")), and under transforms.
# tests/js/labels_browser.mjs; screenshots $PROFKIT_BUILD/screenshots/labels-*.png.
. "$(dirname "$0")/lib.sh"
need_browser
export PROFKIT PROFKIT_SRC PROFKIT_TOOLS
if "$NODE" "$PROFKIT_SRC/tests/js/labels_browser.mjs"; then pass; else fail "label picker browser checks failed (see above)"; fi
finish
