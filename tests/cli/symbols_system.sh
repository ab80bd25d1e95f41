#!/usr/bin/env bash
# A real system program (/usr/bin/python3, as installed) profiled through
# LD_PRELOAD of libprofiler, read with no flags: of the samples whose leaf
# Go pprof names, at least 99% get the same leaf function from profkit.
# os.stat puts libc's fstatat64 in it: libc6-dbg's debug file names it
# __GI___fstatat64, the binary exports fstatat64 (what Go pprof shows).
. "$(dirname "$0")/lib.sh"
ORACLE="$PROFKIT_SRC/tests/oracle"
PPROF="$PROFKIT_TOOLS/pprof"
[ -x "$PPROF" ] || bash "$PROFKIT_SRC/scripts/tools.sh" >/dev/null 2>&1 || true
[ -x "$PPROF" ] || { fail "Go pprof missing: run scripts/tools.sh"; finish; }
LIBPROFILER=$(ls /usr/lib/*/libprofiler.so.0 2>/dev/null | head -1)
[ -n "$LIBPROFILER" ] || { fail "libprofiler missing: scripts/deps.sh --test"; finish; }
PY=$(readlink -f /usr/bin/python3)
prof="$TMP/py.prof"
env LD_PRELOAD="$LIBPROFILER" CPUPROFILE="$prof" CPUPROFILE_FREQUENCY=1000 "$PY" -c '
import json, os
s = 0
for i in range(400000):
    s += len(json.dumps({"a": i, "b": [i, i * 2, str(i)]}))
for i in range(100000):
    s += os.stat("/").st_mode
print(s)' > /dev/null 2>&1
[ -s "$prof" ] || { fail "no profile written"; finish; }
"$PROFKIT" top -n 0 --value samples "$prof" > "$TMP/pk.top" 2> "$TMP/err" || fail "top failed: $(cat "$TMP/err")"
"$PPROF" -top -nodecount=100000 -sample_index=samples "$prof" > "$TMP/go.top" 2> /dev/null
python3 "$ORACLE/leaf_agreement.py" "$TMP/pk.top" "$TMP/go.top" 0.99 > "$TMP/cmp" && pass ||
  fail "leaf functions differ from Go pprof: $(cat "$TMP/cmp")"
cat "$TMP/cmp"
"$PROFKIT" info "$prof" | grep -q "$PY: " && pass || fail "info does not name $PY"
finish
