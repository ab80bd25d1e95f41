#!/usr/bin/env bash
# `make demo`: profile a small program with gperftools, then show what profkit
# makes of it: a summary, the top functions, and the profile converted for
# other viewers (folded stacks for flamegraph.pl, and the Firefox Profiler).
set -euo pipefail
PROFKIT=${1:-build/release/profkit}
cd "$(dirname "$0")/.."
out=build/demo
mkdir -p "$out"

# libprofiler comes from Debian's google-perftools (scripts/deps.sh --demo).
cc -O1 -g -fno-omit-frame-pointer -o "$out/burn" examples/burn.c -Wl,--no-as-needed -lprofiler -lm
echo "\$ CPUPROFILE=$out/burn.prof $out/burn"
CPUPROFILE="$out/burn.prof" CPUPROFILE_FREQUENCY=1000 "$out/burn" 25

echo
echo "\$ profkit info $out/burn.prof"
"$PROFKIT" info "$out/burn.prof"
echo
echo "\$ profkit top -n 10 --symbolize $out/burn.prof"
"$PROFKIT" top -n 10 --symbolize "$out/burn.prof"
echo
echo "\$ profkit convert --symbolize $out/burn.prof -o $out/burn.folded"
"$PROFKIT" convert --symbolize "$out/burn.prof" -o "$out/burn.folded"
head -3 "$out/burn.folded"
if "$PROFKIT" --formats | grep -q '^  firefox .w'; then
  echo
  echo "\$ profkit convert $out/burn.prof -o $out/burn.json.gz"
  "$PROFKIT" convert --symbolize "$out/burn.prof" -o "$out/burn.json.gz"
  echo "wrote $out/burn.json.gz: open it at https://profiler.firefox.com (or: profkit view $out/burn.prof)"
fi
