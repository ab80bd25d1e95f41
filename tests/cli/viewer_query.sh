#!/usr/bin/env bash
# The page's window.profkit.query("top") and ("tree") equal profkit top
# --json and tree --json on every readable file of tests/data and a merge
# (tests/js/query_browser.mjs), in Debian's chromium (playwright-core).
. "$(dirname "$0")/lib.sh"
need_browser
if "$NODE" "$PROFKIT_SRC/tests/js/query_browser.mjs"; then pass; else fail "query checks failed (see above)"; fi
finish
