#!/usr/bin/env bash
# The page's transforms in Debian's chromium (playwright-core): each one
# from a frame's context menu or its key, the page's query("top") against
# `profkit top --json` run with the command line the page shows, the
# breadcrumb popped, the stack restored from the URL, flame given transform
# flags opening with them (tests/js/transforms_browser.mjs). Profiles: the
# demo's program (examples/burn.c under libprofiler, built and run here)
# and ../shared's samply recording of ls. Screenshots:
# $PROFKIT_BUILD/screenshots/xf-*.png.
. "$(dirname "$0")/lib.sh"
need_shared
need_browser
D="$TMP/demo"
mkdir -p "$D"
"${PROFKIT_CC:-cc}" -O1 -g -fno-omit-frame-pointer -o "$D/burn" "$PROFKIT_SRC/examples/burn.c" \
  -Wl,--no-as-needed -lprofiler -lm ||
  { fail "cannot build examples/burn.c against libprofiler (libgoogle-perftools-dev)"; finish; }
CPUPROFILE="$D/burn.prof" CPUPROFILE_FREQUENCY=1000 "$D/burn" 25 > /dev/null 2>&1
[ -s "$D/burn.prof" ] || { fail "no profile written"; finish; }
# The page's steps are checked as a report checks them: bad arguments are
# usage errors naming the flag, before any page is written.
expect_status "flame: bad --merge" 2 "$PROFKIT" flame -q --merge '(' "$D/burn.prof" -o "$TMP/x.html"
grep -q -- "--merge: bad regular expression '('" "$TMP/err" && pass || fail "flame's bad --merge message: $(cat "$TMP/err")"
expect_status "flame: --focus-category without categories" 2 "$PROFKIT" flame -q --focus-category JavaScript "$D/burn.prof" -o "$TMP/x.html"
grep -q -- "--focus-category: no frame categories in this profile" "$TMP/err" && pass || fail "flame's --focus-category message: $(cat "$TMP/err")"
expect_status "flame: bad --ignore" 2 "$PROFKIT" flame -q --merge '^a$' --ignore '(' "$D/burn.prof" -o "$TMP/x.html"
grep -q -- "--ignore: bad regular expression '('" "$TMP/err" && pass || fail "flame's bad --ignore message: $(cat "$TMP/err")"
[ ! -e "$TMP/x.html" ] && pass || fail "flame wrote a page despite a bad transform"
export PROFKIT PROFKIT_SRC PROFKIT_SHARED PROFKIT_TOOLS PROFKIT_XF_DEMO="$D/burn.prof"
if "$NODE" "$PROFKIT_SRC/tests/js/transforms_browser.mjs"; then pass; else fail "transform browser checks failed (see above)"; fi
finish
