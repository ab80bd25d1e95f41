#!/usr/bin/env bash
# Real gperftools CPU profiles made now: tests/oracle/burn.c is compiled
# against Debian's libprofiler and run with CPUPROFILE; profkit's totals
# must equal Go pprof's and google-pprof's on the same file, and its stacks
# Go pprof's -raw (up to the signal-frame heuristic, docs/formats/gperftools.md).
# Needs libgoogle-perftools-dev and google-perftools (scripts/deps.sh --test).
. "$(dirname "$0")/lib.sh"
ORACLE="$PROFKIT_SRC/tests/oracle"
PPROF="$PROFKIT_TOOLS/pprof"
[ -x "$PPROF" ] || bash "$PROFKIT_SRC/scripts/tools.sh" >/dev/null 2>&1 || true
[ -x "$PPROF" ] || { fail "Go pprof missing: run scripts/tools.sh"; finish; }
command -v google-pprof >/dev/null || { fail "google-pprof missing: scripts/deps.sh --test"; finish; }

cc -O1 -g -fno-omit-frame-pointer -o "$TMP/burn" "$ORACLE/burn.c" -Wl,--no-as-needed -lprofiler ||
  { fail "cannot build burn.c against libprofiler (libgoogle-perftools-dev)"; finish; }

for run in 1 2; do
  prof="$TMP/burn$run.prof"
  # Two runs: the default rate, and CPUPROFILE_FREQUENCY=1000 (capped by
  # the kernel tick, docs/testing.md).
  if [ $run = 1 ]; then
    CPUPROFILE="$prof" "$TMP/burn" 20000 2> /dev/null
  else
    CPUPROFILE="$prof" CPUPROFILE_FREQUENCY=1000 "$TMP/burn" 40000 2> /dev/null
  fi
  [ -s "$prof" ] || { fail "run $run: no profile written"; continue; }
  pk_samples=$("$PROFKIT" info --no-symbolize "$prof" | awk '$1 == "samples" && $2 == "count" { print $4 }')
  pk_ns=$("$PROFKIT" info --no-symbolize "$prof" | awk '$1 == "cpu" { print $4 }')
  [ "${pk_samples:-0}" -gt 0 ] && pass || fail "run $run: no samples ($pk_samples)"
  gp_samples=$(google-pprof --text "$TMP/burn" "$prof" 2> /dev/null | sed -n 's/^Total: \([0-9]*\) samples/\1/p')
  expect_eq "run $run: samples vs google-pprof" "$gp_samples" "$pk_samples"
  go_ms=$("$PPROF" -top -symbolize=none -unit=ms "$prof" 2>/dev/null | sed -n 's/.* of \([0-9.]*\)ms total.*/\1/p')
  expect_eq "run $run: cpu vs Go pprof -top" "$go_ms" "$(awk -v n="$pk_ns" 'BEGIN { printf "%g", n / 1e6 }')"
  "$PPROF" -raw -symbolize=none "$prof" 2> /dev/null | python3 "$ORACLE/pprof_raw_folded.py" > "$TMP/go.folded"
  "$PROFKIT" convert --no-symbolize "$prof" --to folded --value samples > "$TMP/pk.folded"
  python3 "$ORACLE/compare_go_folded.py" "$TMP/pk.folded" "$TMP/go.folded" > "$TMP/cmp" 2>&1 && pass ||
    fail "run $run: stacks differ from Go pprof: $(tail -3 "$TMP/cmp")"
  # The profile maps the burn binary as code, and frames resolve into it.
  "$PROFKIT" convert --no-symbolize "$prof" --to gperftools -o "$TMP/rt.prof"
  LC_ALL=C grep -a -q "r-xp .*/burn\$" "$TMP/rt.prof" && pass || fail "run $run: no mapping of burn"
  "$PROFKIT" convert --no-symbolize "$TMP/rt.prof" --to folded > "$TMP/b.folded"
  "$PROFKIT" convert --no-symbolize "$prof" --to folded > "$TMP/a.folded"
  expect_files_eq "run $run: round trip" "$TMP/a.folded" "$TMP/b.folded"
done
finish
