#!/usr/bin/env bash
# The page's label picker per thread, on numeric labels (bucketed when
# many), and in the command line's order among the transforms, in Debian's
# chromium (playwright-core): tests/js/labels_threads_browser.mjs. Each pick's
# numbers equal the command line the page shows, run by the shell.
. "$(dirname "$0")/lib.sh"
need_browser
if "$NODE" "$PROFKIT_SRC/tests/js/labels_threads_browser.mjs"; then pass; else fail "label picker (threads, numbers, order) browser checks failed (see above)"; fi
finish
