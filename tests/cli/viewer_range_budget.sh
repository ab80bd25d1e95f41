#!/usr/bin/env bash
# The page's compact timeline columns narrow every view exactly: on a
# generated perf script text, query("top") under several ranges equals
# profkit top --range --json (tests/js/range_budget_browser.mjs), in
# Debian's chromium (playwright-core).
. "$(dirname "$0")/lib.sh"
need_browser
if "$NODE" "$PROFKIT_SRC/tests/js/range_budget_browser.mjs"; then pass; else fail "range budget browser checks failed (see above)"; fi
finish
