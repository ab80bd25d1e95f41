#!/usr/bin/env bash
# `make demo`: profile a small program with gperftools, then show what profkit
# makes of it: a summary, the top functions and lines (named by default from
# the program's debug info), folded stacks for flamegraph.pl, and profkit's
# own viewer page.
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
echo "\$ profkit top -n 10 $out/burn.prof          # named from burn's DWARF, as Go pprof does"
"$PROFKIT" top -n 10 "$out/burn.prof"
echo
echo "\$ profkit top -n 5 --by line $out/burn.prof"
"$PROFKIT" top -n 5 --by line "$out/burn.prof"
echo
echo "\$ profkit convert $out/burn.prof -o $out/burn.folded"
"$PROFKIT" convert "$out/burn.prof" -o "$out/burn.folded"
head -3 "$out/burn.folded"
echo
echo "\$ profkit flame $out/burn.prof -o $out/burn.html"
"$PROFKIT" flame "$out/burn.prof" -o "$out/burn.html"
echo "wrote $out/burn.html: one self-contained page, opens offline in any browser"
echo "(or: profkit view $out/burn.prof, which serves it on 127.0.0.1 and opens it)"
