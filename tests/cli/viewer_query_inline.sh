#!/usr/bin/env bash
# The page's marks and totals (tests/js/query_marks_browser.mjs) in
# Debian's chromium (playwright-core): inlined functions marked as top and
# tree mark them (query("top"), query("tree"), the tables, the hover) on
# tests/data/pprof/ok_full.pb and on a program built now with inlined calls
# (tests/oracle/inl_main.c, inl_lib.c: -g -O2) profiled with libprofiler
# and symbolized by default (its DWARF inline chains), and on
# ../shared's gperftools-real/real1.prof when it is there; for every value
# type, plain and under transforms, the diff page, the flame graph's and
# the SVG's labels; a delta profile's
# subtree of total 0 listed, with a note that the flame graph does not
# draw it; the hover's and the sandwich's percentages of the whole profile
# under a transform (and of what is left with "relative %").
# Screenshots: $PROFKIT_BUILD/screenshots/marks-*.png.
. "$(dirname "$0")/lib.sh"
need_browser
ORACLE="$PROFKIT_SRC/tests/oracle"
D="$TMP/src"
mkdir -p "$D"
cp "$ORACLE/inl_main.c" "$ORACLE/inl_lib.c" "$D/"
( cd "$D" && cc -g -O2 -fPIC -shared -o libinl.so inl_lib.c &&
  cc -g -O2 -fno-pie -no-pie -o prog inl_main.c -L. -linl -Wl,-rpath,"$D" -Wl,--no-as-needed -lprofiler ) ||
  { fail "cannot build inl_main.c against libprofiler (libgoogle-perftools-dev)"; finish; }
prof="$TMP/p.prof"
( cd "$D" && CPUPROFILE="$prof" CPUPROFILE_FREQUENCY=1000 ./prog 3000 > /dev/null 2>&1 )
[ -s "$prof" ] || { fail "no profile written"; finish; }
# a real recording with libc's inlined frames, when the shared fixtures are there
real=()
[ -f "$FIX/gperftools-real/real1.prof" ] && real=("$FIX/gperftools-real/real1.prof")
if "$NODE" "$PROFKIT_SRC/tests/js/query_marks_browser.mjs" "$prof" "${real[@]}"; then pass; else fail "mark checks failed (see above)"; fi
finish
