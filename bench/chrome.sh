#!/usr/bin/env bash
# Chrome trace benchmark: `profkit info` and `profkit top` on a generated
# trace of about 200 MB shaped like a DevTools Performance recording
# (bench/gen_chrome.py: V8 Profile/ProfileChunk samples and as many bytes of
# trace events). No peer is timed: the Firefox Profiler's loader is the
# only other reader on this machine and reads such a file in minutes.
# Usage: PROFKIT=build/release/profkit [MB=200] bash bench/chrome.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PROFKIT=$(realpath "${PROFKIT:-build/release/profkit}")
OUT=build/bench
mkdir -p "$OUT"
IN="$OUT/chrome-${MB:-200}mb.trace.json"
python3 bench/gen_chrome.py "$IN" "${MB:-200}"
trap 'rm -f "$IN"' EXIT
bytes=$(stat -c %s "$IN")
cat "$IN" > /dev/null
. bench/lib.sh
measure "chrome info" "$bytes" "$PROFKIT" info "$IN"
measure "chrome top" "$bytes" "$PROFKIT" top "$IN"
"$PROFKIT" info "$IN" | grep -E '^(samples|stacks|threads|markers)'
