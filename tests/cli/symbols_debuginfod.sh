#!/usr/bin/env bash
# debuginfod against a real server: Debian's debuginfod, started here on
# 127.0.0.1 (a free port) over a directory holding a program built now with
# -g (tests/oracle/inl_main.c). The profile (libprofiler's, made a pprof
# whose mapping carries the program's build id) names a path where the
# program no longer is: with DEBUGINFOD_URLS and a private
# DEBUGINFOD_CACHE_PATH, `profkit top` gets the functions and `--by line`
# the source lines from the server; without DEBUGINFOD_URLS they stay
# FILE+0xOFFSET. The server is stopped on exit; every wait is bounded.
. "$(dirname "$0")/lib.sh"
ORACLE="$PROFKIT_SRC/tests/oracle"
command -v debuginfod > /dev/null || { fail "debuginfod missing: scripts/deps.sh --test"; finish; }
command -v protoc > /dev/null || { fail "protoc missing: scripts/deps.sh --test"; finish; }
D="$TMP/src"
mkdir -p "$D" "$TMP/served"
cp "$ORACLE/inl_main.c" "$ORACLE/inl_lib.c" "$D/"
cd "$D" || exit 1
cc -g -O2 -fPIC -shared -o libinl.so inl_lib.c &&
  cc -g -O2 -fno-pie -no-pie -Wl,--build-id -o prog inl_main.c -L. -linl -Wl,-rpath,"$D" -Wl,--no-as-needed -lprofiler ||
  { fail "cannot build inl_main.c against libprofiler (libgoogle-perftools-dev)"; finish; }
prof="$TMP/p.prof"
CPUPROFILE="$prof" CPUPROFILE_FREQUENCY=1000 ./prog 1500 > /dev/null 2>&1
[ -s "$prof" ] || { fail "no profile written"; finish; }
bid=$(readelf -n prog | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || { fail "the program has no build id"; finish; }
"$PROFKIT" convert --no-symbolize "$prof" --to pprof -o "$TMP/raw.pb"
python3 "$ORACLE/pprof_set_build_id.py" "$TMP/raw.pb" "$TMP/bid.pb" /prog "$bid" ||
  { fail "cannot set the build id"; finish; }
mv prog "$TMP/served/prog"   # gone from the path the profile names

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -F -p "$port" -d "$TMP/db.sqlite" -t 0 -g 0 "$TMP/served" > "$TMP/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2> /dev/null; wait "$server" 2> /dev/null; rm -rf "$TMP"' EXIT
url="http://127.0.0.1:$port"
ok=
for _ in $(seq 120); do   # at most ~60 s for the server to start and scan
  if curl -sf --max-time 2 -o /dev/null "$url/buildid/$bid/debuginfo"; then ok=1; break; fi
  kill -0 "$server" 2> /dev/null || break
  sleep 0.5
done
[ -n "$ok" ] || { fail "debuginfod did not serve $bid: $(tail -5 "$TMP/server.log")"; finish; }
pass

export DEBUGINFOD_TIMEOUT=20 DEBUGINFOD_CACHE_PATH="$TMP/cache"
env -u DEBUGINFOD_URLS timeout 120 "$PROFKIT" top -n 0 "$TMP/bid.pb" > "$TMP/none.top" 2> /dev/null
grep -q ' hot$' "$TMP/none.top" && fail "named without debuginfod: the binary was found elsewhere" || pass
grep -q 'prog+0x' "$TMP/none.top" && pass || fail "without debuginfod: no prog+0xOFFSET labels: $(head -5 "$TMP/none.top")"

DEBUGINFOD_URLS="$url" timeout 120 "$PROFKIT" top -n 0 "$TMP/bid.pb" > "$TMP/top" 2> "$TMP/err"
expect_eq "top exit status" 0 $?
grep -q ' hot$' "$TMP/top" && grep -Eq ' mix( \(inline\))?$' "$TMP/top" && grep -q ' main$' "$TMP/top" && pass ||
  fail "debuginfod: functions not named: $(head -8 "$TMP/top"; cat "$TMP/err")"
grep -q 'prog+0x' "$TMP/top" && fail "debuginfod: prog frames left unnamed: $(grep 'prog+0x' "$TMP/top" | head -3)" || pass
DEBUGINFOD_URLS="$url" timeout 120 "$PROFKIT" top -n 0 --by line "$TMP/bid.pb" > "$TMP/lines" 2> /dev/null
grep -qE ' \S*\/inl_main\.c:[0-9]+$' "$TMP/lines" && pass || fail "debuginfod: no source lines: $(head -8 "$TMP/lines")"
ls "$TMP/cache"/"$bid"/* > /dev/null 2>&1 && pass || fail "nothing in the private DEBUGINFOD_CACHE_PATH"
DEBUGINFOD_URLS="$url" "$PROFKIT" info "$TMP/bid.pb" > "$TMP/info" 2>&1
grep -q "debuginfod" "$TMP/info" && pass || fail "info does not say the file came from debuginfod: $(grep -A6 '^symbols' "$TMP/info")"
finish
