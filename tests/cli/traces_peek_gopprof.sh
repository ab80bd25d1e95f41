#!/usr/bin/env bash
# `profkit traces` and `profkit peek` against Go pprof's -traces and -peek
# (docs/testing.md). traces: every stack and its summed value
# (tests/oracle/traces_folded.py turns both outputs into folded stacks) on
# the pprof fixtures by address (they hold no names; Go's -addresses
# -symbolize=none), on a named real profile by function, and on a profile
# libprofiler records now, by address and, symbolized by both tools, by
# function; for gperftools files Go's signal-frame heuristic is allowed
# (tests/oracle/compare_go_folded.py). peek: each matched function's flat,
# cum and every caller and callee edge (tests/oracle/compare_peek.py).
# Also: -n, --value, text and JSON agree, usage errors.
. "$(dirname "$0")/lib.sh"
need_shared
PPROF="$PROFKIT_TOOLS/pprof"
[ -x "$PPROF" ] || { fail "Go pprof missing: run scripts/tools.sh"; finish; }
ORACLE="$PROFKIT_SRC/tests/oracle"
TF="$ORACLE/traces_folded.py"

# traces_vs_go WHAT PROFKIT_ARGS -- GO_ARGS -- GO_FOLD_ARGS -- FILE
traces_vs_go() {
  local what=$1 pk=$2 go=$3 fold=$4 f=$5
  "$PROFKIT" traces --json $pk "$f" 2> "$TMP/pk.err" | python3 "$TF" pk $fold > "$TMP/pk.folded" ||
    { fail "$what: profkit failed: $(head -2 "$TMP/pk.err")"; return; }
  "$PPROF" -traces -unit=ns $go "$f" 2> /dev/null | python3 "$TF" go $fold > "$TMP/go.folded" ||
    { fail "$what: Go pprof's output not read"; return; }
  [ -s "$TMP/go.folded" ] || { fail "$what: Go pprof printed no traces"; return; }
  if python3 "$ORACLE/compare_go_folded.py" "$TMP/pk.folded" "$TMP/go.folded" > "$TMP/cmp" 2>&1; then pass
  else fail "$what: traces differ from Go pprof: $(tail -3 "$TMP/cmp")"; fi
}

# peek_vs_go WHAT RE FILE PROFKIT_ARGS GO_ARGS [NAME...]
peek_vs_go() {
  local what=$1 re=$2 f=$3 pk=$4 go=$5
  shift 5
  "$PROFKIT" peek --json $pk "$re" "$f" > "$TMP/pk.json" 2> "$TMP/pk.err" ||
    { fail "$what: profkit failed: $(head -2 "$TMP/pk.err")"; return; }
  "$PPROF" -peek "$re" -unit=ns $go "$f" > "$TMP/go.peek" 2> /dev/null ||
    { fail "$what: Go pprof failed"; return; }
  if python3 "$ORACLE/compare_peek.py" "$TMP/pk.json" "$TMP/go.peek" "$@" > "$TMP/cmp"; then pass
  else fail "$what: peek differs from Go pprof:"; head -10 "$TMP/cmp"; fi
}

P=$FIX/pprof
traces_vs_go "cppbench.pb.gz" "--by address --no-symbolize" "-addresses -symbolize=none" "--addresses" "$P/cppbench.pb.gz"
for f in cppbench.cpu go.crc32.cpu gobench.cpu; do
  traces_vs_go "$f" "--by address --no-symbolize" "-addresses -symbolize=none" "--addresses --plus1" "$P/$f"
  traces_vs_go "$f samples" "--by address --no-symbolize --value samples" "-addresses -symbolize=none -sample_index=samples" \
    "--addresses --plus1" "$P/$f"
done
REAL="$FIX/gperftools-real/real1.pprof.pb.gz"
traces_vs_go "real1 by function" "--no-symbolize" "-symbolize=none" "" "$REAL"
peek_vs_go "real1 peek run_all|math" '^run_all$|math' "$REAL" --no-symbolize -symbolize=none
peek_vs_go "real1 peek stage" 'stage_' "$REAL" --no-symbolize -symbolize=none
peek_vs_go "real1 peek everything" '.' "$REAL" --no-symbolize -symbolize=none
peek_vs_go "real1 peek samples" 'cmp_loop|sort' "$REAL" "--no-symbolize --value samples" "-symbolize=none -sample_index=samples"

# A profile recorded now (tests/oracle/burn.c, recursion in `middle`).
if cc -O1 -g -fno-omit-frame-pointer -o "$TMP/burn" "$ORACLE/burn.c" -Wl,--no-as-needed -lprofiler; then
  CPUPROFILE="$TMP/burn.prof" "$TMP/burn" 20000 2> /dev/null
  if [ -s "$TMP/burn.prof" ]; then
    OWN=mix,leaf_a,leaf_b,middle,main
    traces_vs_go "recorded, by address" "--by address --no-symbolize" "-addresses -symbolize=none" "--addresses --plus1" "$TMP/burn.prof"
    traces_vs_go "recorded, symbolized" "" "" "--keep=$OWN" "$TMP/burn.prof"
    peek_vs_go "recorded peek" 'mix|leaf_|middle|main' "$TMP/burn.prof" "" "" mix leaf_a leaf_b middle main
  else fail "libprofiler wrote no profile"; fi
else fail "cannot build burn.c against libprofiler (libgoogle-perftools-dev)"; fi

# -n keeps the largest; text and JSON say the same.
"$PROFKIT" traces --json --no-symbolize "$REAL" > "$TMP/all.json"
"$PROFKIT" traces --json -n 2 --no-symbolize "$REAL" > "$TMP/two.json"
python3 - "$TMP/all.json" "$TMP/two.json" > "$TMP/n.out" 2>&1 <<'PY' && pass || fail "traces -n: $(cat "$TMP/n.out")"
import json, sys
a, b = (json.load(open(x)) for x in sys.argv[1:3])
assert b["traces"] == a["traces"][:2] and b["count"] == a["count"] == len(a["traces"]) > 2, (a["count"], b["count"])
vals = [t["value"] for t in a["traces"]]
assert vals == sorted(vals, reverse=True) and sum(vals) == a["total"], vals
PY
"$PROFKIT" traces --no-symbolize "$REAL" > "$TMP/all.txt"
python3 - "$TMP/all.json" "$TMP/all.txt" <<'PY' > "$TMP/t.out" 2>&1 && pass || fail "traces text vs JSON: $(cat "$TMP/t.out")"
import json, sys
a = json.load(open(sys.argv[1]))
txt = open(sys.argv[2]).read().split("-------------------+")[1:-1]
assert len(txt) == len(a["traces"]), (len(txt), len(a["traces"]))
for block, t in zip(txt, a["traces"]):
    names = [l[21:] for l in block.split("\n")[1:] if l]
    assert names == t["stack"], (names, t["stack"])
PY
expect_status "peek without a match" 2 "$PROFKIT" peek --no-symbolize 'no_such_function' "$REAL"
expect_status "peek with a bad expression" 2 "$PROFKIT" peek --no-symbolize '(' "$REAL"
expect_status "peek without a file" 2 "$PROFKIT" peek main
expect_status "traces of an unknown value" 2 "$PROFKIT" traces --value nope "$REAL"
finish
