#!/usr/bin/env bash
# The minimal configuration (README, "Install"): every optional part off and
# no tests, configured and built from scratch in a directory of its own (this
# test is how `make check`, and so CI, builds it; -O0 keeps it short). It
# builds without a warning; its library needs none of the parts' packages,
# exports exactly profkit.h's API and keeps the layers (the stubs included);
# its command reads, symbolizes, reports and writes as this build's does;
# and each command that needs a part exits 2 saying which and how to get it.
. "$(dirname "$0")/lib.sh"
: "${PROFKIT_BUILD:?PROFKIT_BUILD must name the build directory}"
command -v cmake > /dev/null || { fail "cmake is missing"; finish; }
B="$PROFKIT_BUILD/minimal"
rm -rf "$B"
opts=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-O0 -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DBUILD_TESTING=OFF
      -DPROFKIT_WITH_STORE=OFF -DPROFKIT_WITH_CLICKHOUSE=OFF -DPROFKIT_WITH_SERVER=OFF
      -DPROFKIT_WITH_DISASM=OFF -DPROFKIT_WITH_DEBUGINFOD=OFF)
[ -n "${PROFKIT_CC:-}" ] && opts+=("-DCMAKE_C_COMPILER=$PROFKIT_CC")
[ -n "${PROFKIT_CXX:-}" ] && opts+=("-DCMAKE_CXX_COMPILER=$PROFKIT_CXX")
if ! cmake -S "$PROFKIT_SRC" -B "$B" "${opts[@]}" > "$TMP/configure.log" 2>&1; then
  fail "configuring the minimal build failed:"; tail -20 "$TMP/configure.log"; finish
fi
expect_eq "configure names the parts left out" 1 \
  "$(grep -c 'optional parts built: none; left out: store clickhouse server disasm debuginfod$' "$TMP/configure.log")"
if grep -qi 'cmocka' "$TMP/configure.log"; then fail "a build without tests looked for cmocka"; else pass; fi
if ! cmake --build "$B" -j "$(nproc)" > "$TMP/build.log" 2>&1; then
  fail "building the minimal configuration failed:"; grep -B2 -A5 'error' "$TMP/build.log" | head -40; finish
fi
if grep -q 'warning:' "$TMP/build.log"; then
  fail "the minimal build has warnings:"; grep -A3 'warning:' "$TMP/build.log" | head -40
else
  pass
fi
M="$B/profkit"

# The library: none of the parts' packages, only the API exported, layers
# and names kept with the stubs in place of the parts.
readelf -d "$B/libprofkit.so" > "$TMP/needed"
for lib in sqlite3 curl microhttpd capstone debuginfod; do
  if grep -q "NEEDED.*lib$lib" "$TMP/needed"; then fail "the minimal libprofkit.so needs lib$lib"; else pass; fi
done
expect_eq "profkit.pc: no package of a part" "zlib libzstd libisal yajl libelf libdw" \
  "$(sed -n 's/^Requires.private: //p' "$B/profkit.pc")"
O="$B/CMakeFiles/profkit_objects.dir"
if python3 "$PROFKIT_SRC/tests/layers/check_layers.py" --shared "$B/libprofkit.so" --objects "$O" \
     "$PROFKIT_SRC/src" "$O/src" "$B/CMakeFiles/profkit_cli.dir/src/cli" "$PROFKIT_SRC/include/profkit.h" \
     > "$TMP/layers.out" 2>&1; then
  pass
else
  fail "the minimal build breaks the layers:"; cat "$TMP/layers.out"
fi
# The header test against the minimal shared library: every part says it is missing.
if ${PROFKIT_CC:-cc} -std=c99 -Wall -Wextra -pedantic -Werror -I"$PROFKIT_SRC/include" \
     -o "$TMP/header_c99" "$PROFKIT_SRC/tests/header/header_c99.c" -L"$B" -lprofkit -Wl,-rpath,"$B" \
     2> "$TMP/cc.err" && "$TMP/header_c99"; then
  pass
else
  fail "tests/header/header_c99.c against the minimal library: $(cat "$TMP/cc.err")"
fi

# The command: --version says no part is there, and it reads, symbolizes,
# reports and writes as the full build does.
"$M" --version > "$TMP/version"
expect_eq "--version: every part no" "store:no clickhouse:no server:no disasm:no debuginfod:no" \
  "$(sed -n '3,$p' "$TMP/version" | awk '{print $1 ":" $2}' | xargs)"
D="$PROFKIT_SRC/tests/data"
for f in v8_cpuprofile/ok_node.cpuprofile bsprof/ok_lines.bsprof gperftools/ok_le32.prof pprof/ok_full.pb \
         firefox/ok_flags_v75.json; do
  "$PROFKIT" top "$D/$f" > "$TMP/full.out" 2>&1
  "$M" top "$D/$f" > "$TMP/min.out" 2>&1
  expect_files_eq "top $f: the minimal build as the full one" "$TMP/full.out" "$TMP/min.out"
done
for to in pprof speedscope firefox folded callgrind; do
  "$PROFKIT" convert "$D/gperftools/ok_le32.prof" --to $to -o "$TMP/full.$to" 2>/dev/null
  "$M" convert "$D/gperftools/ok_le32.prof" --to $to -o "$TMP/min.$to" 2>/dev/null
  if [ -s "$TMP/min.$to" ] && cmp -s "$TMP/full.$to" "$TMP/min.$to"; then pass; else fail "convert --to $to differs"; fi
done
"$PROFKIT" flame -q "$D/bsprof/ok_lines.bsprof" -o "$TMP/full.html"
"$M" flame -q "$D/bsprof/ok_lines.bsprof" -o "$TMP/min.html"
if cmp -s "$TMP/full.html" "$TMP/min.html"; then pass; else fail "flame's page differs"; fi

# What needs a part: exit 2, naming the part and how to get it.
needs() { # needs WHAT MESSAGE-PART ARGS...
  local what=$1 msg=$2; shift 2
  expect_status "$what" 2 "$M" "$@"
  if grep -qF "this libprofkit was built without $msg: install" "$TMP/err"; then pass; else
    fail "$what: no message about $msg: $(cat "$TMP/err")"; fi
}
needs "store ls" "the store (SQLite)" store ls "$TMP/x.db"
needs "store add" "the store (SQLite)" store add "$TMP/x.db" "$D/bsprof/ok_lines.bsprof"
needs "store ls clickhouse://" "the store (SQLite)" store ls clickhouse://127.0.0.1:1/x
needs "top --db" "the store (SQLite)" top --db "$TMP/x.db"
needs "store serve" "the store (SQLite)" store serve "$TMP/x.db"
needs "store gc" "the store (SQLite)" store gc "$TMP/x.db"
needs "trend --db" "the store (SQLite)" trend --db "$TMP/x.db" --by version
needs "view" "the local web server (libmicrohttpd)" view --no-open "$D/bsprof/ok_lines.bsprof"
needs "list --disasm" "disassembly (Capstone)" list --disasm . "$D/bsprof/ok_lines.bsprof"
if [ -e "$TMP/x.db" ]; then fail "a store file was made"; else pass; fi
expect_status "list without --disasm" 0 "$M" list . "$D/bsprof/ok_lines.bsprof"
expect_status "--help of store" 0 "$M" store --help

# Without debuginfod, DEBUGINFOD_URLS goes unused: one warning when a
# mapping with a build id has no file here (and none from the full build).
if command -v protoc > /dev/null; then
  "$PROFKIT" convert --no-symbolize "$D/gperftools/ok_le32.prof" --to pprof -o "$TMP/raw.pb"
  python3 "$PROFKIT_SRC/tests/oracle/pprof_set_build_id.py" "$TMP/raw.pb" "$TMP/bid.pb" /app \
    0123456789abcdef0123456789abcdef01234567 || fail "pprof_set_build_id.py"
  export DEBUGINFOD_URLS=http://127.0.0.1:1 DEBUGINFOD_CACHE_PATH="$TMP/debuginfod"
  expect_status "top with DEBUGINFOD_URLS" 0 "$M" top "$TMP/bid.pb"
  expect_eq "one warning: DEBUGINFOD_URLS unused" \
    "profkit: warning: DEBUGINFOD_URLS: this libprofkit was built without debuginfod (libdebuginfod): install libdebuginfod-dev and build it again with -DPROFKIT_WITH_DEBUGINFOD=ON" \
    "$(cat "$TMP/err")"
  "$PROFKIT" top "$TMP/bid.pb" > /dev/null 2> "$TMP/err"
  expect_eq "the full build does not warn" "" "$(grep 'built without' "$TMP/err")"
  unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH
else
  fail "protoc is missing (scripts/deps.sh --test)"
fi
finish
