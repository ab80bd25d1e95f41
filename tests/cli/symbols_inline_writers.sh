#!/usr/bin/env bash
# Inline chains through the writers, on a program built now
# (tests/oracle/inl_main.c, inl_lib.c: -g -O2, inlined calls) profiled with
# libprofiler and symbolized by default:
#   - pprof: `convert --to pprof` writes each address's chain as one
#     Location with several Lines; Go pprof -traces of that file shows the
#     same stacks of the test's functions, with the same "(inline)" frames,
#     as Go pprof -traces of the raw profile (which it symbolizes itself);
#   - reading that pprof back gives the same folded stacks and the same
#     inline depths (its Firefox output marks the same frames inlined as the
#     Firefox output of the raw profile);
#   - Firefox: frames with inline_depth > 0 carry frameTable flags bit 1,
#     and reading that output back gives the same depths (its Firefox and
#     pprof outputs mark the same frames inlined).
. "$(dirname "$0")/lib.sh"
ORACLE="$PROFKIT_SRC/tests/oracle"
PPROF="$PROFKIT_TOOLS/pprof"
[ -x "$PPROF" ] || bash "$PROFKIT_SRC/scripts/tools.sh" >/dev/null 2>&1 || true
[ -x "$PPROF" ] || { fail "Go pprof missing: run scripts/tools.sh"; finish; }
OWN="hot warm step mix lib_spin lib_inner main"

D="$TMP/src"
mkdir -p "$D"
cp "$ORACLE/inl_main.c" "$ORACLE/inl_lib.c" "$D/"
cd "$D" || exit 1
cc -g -O2 -fPIC -shared -o libinl.so inl_lib.c &&
  cc -g -O2 -fno-pie -no-pie -o prog inl_main.c -L. -linl -Wl,-rpath,"$D" -Wl,--no-as-needed -lprofiler ||
  { fail "cannot build inl_main.c against libprofiler (libgoogle-perftools-dev)"; finish; }
prof="$TMP/p.prof"
CPUPROFILE="$prof" CPUPROFILE_FREQUENCY=1000 ./prog 3000 > /dev/null 2>&1
[ -s "$prof" ] || { fail "no profile written"; finish; }

"$PROFKIT" convert "$prof" --to pprof -o "$TMP/out.pb.gz" 2> "$TMP/err" || fail "convert to pprof: $(cat "$TMP/err")"
"$PPROF" -traces "$prof" > "$TMP/go_raw.traces" 2> /dev/null
"$PPROF" -traces "$TMP/out.pb.gz" > "$TMP/go_pk.traces" 2> /dev/null
python3 "$ORACLE/inline_traces.py" "$TMP/go_raw.traces" $OWN > "$TMP/raw.st"
python3 "$ORACLE/inline_traces.py" "$TMP/go_pk.traces" $OWN > "$TMP/pk.st"
grep -q '+' "$TMP/pk.st" && pass || fail "Go pprof -traces shows no inlined frame in profkit's pprof: $(head -5 "$TMP/pk.st")"
grep -q 'hot;step+;mix+' "$TMP/pk.st" && pass || fail "no two-deep inline chain (hot;step;mix) in Go pprof -traces"
expect_files_eq "Go pprof -traces: profkit's pprof (inline Lines) against the raw profile" "$TMP/raw.st" "$TMP/pk.st"

# Read back: the same stacks, the same inline depths.
"$PROFKIT" convert "$prof" --to folded --value samples > "$TMP/a.folded"
"$PROFKIT" convert "$TMP/out.pb.gz" --to folded --value samples > "$TMP/b.folded"
expect_files_eq "folded stacks after the pprof round trip" "$TMP/a.folded" "$TMP/b.folded"
"$PROFKIT" convert "$prof" --to firefox -o "$TMP/a.json"
"$PROFKIT" convert "$TMP/out.pb.gz" --to firefox -o "$TMP/b.json"
python3 "$ORACLE/ff_inline_stacks.py" "$TMP/a.json" $OWN > "$TMP/a.st"
python3 "$ORACLE/ff_inline_stacks.py" "$TMP/b.json" $OWN > "$TMP/b.st"
grep -q 'hot;step+;mix+' "$TMP/a.st" && pass || fail "Firefox output: no inlined frames flagged: $(head -5 "$TMP/a.st")"
expect_files_eq "inlined frames after the pprof round trip (Firefox flags)" "$TMP/a.st" "$TMP/b.st"
# Read back from Firefox: the flags' inline bit gives the depths again, so
# writing it once more marks the same frames, and its pprof has the same
# inline Lines (Go pprof -traces).
"$PROFKIT" convert "$TMP/a.json" --to firefox -o "$TMP/c.json"
python3 "$ORACLE/ff_inline_stacks.py" "$TMP/c.json" $OWN > "$TMP/c.st"
expect_files_eq "inlined frames after the Firefox round trip (flags bit 1)" "$TMP/a.st" "$TMP/c.st"
"$PROFKIT" convert "$TMP/a.json" --to pprof -o "$TMP/c.pb.gz"
"$PPROF" -traces "$TMP/c.pb.gz" > "$TMP/go_ff.traces" 2> /dev/null
python3 "$ORACLE/inline_traces.py" "$TMP/go_ff.traces" $OWN | cut -d' ' -f1 | sort -u > "$TMP/ff.st"
cut -d' ' -f1 "$TMP/pk.st" | sort -u > "$TMP/pk1.st"
expect_files_eq "Go pprof -traces of the pprof written from the Firefox output: the same inline frames" "$TMP/pk1.st" "$TMP/ff.st"
# The Firefox stacks with inline marks equal Go pprof's (sample counts vs ms at 1 kHz are not compared).
expect_eq "Firefox inline stacks = Go pprof's" "$(cut -d' ' -f1 "$TMP/raw.st")" "$(cut -d' ' -f1 "$TMP/a.st")"
finish
