#!/usr/bin/env bash
# `convert --to callgrind` read back by Valgrind's callgrind_annotate
# (docs/formats/callgrind.md): per function and per value type, the
# exclusive total must be `profkit top`'s flat and the inclusive total its
# cum (tests/oracle/compare_callgrind.py), on test data of five formats
# (every value type), a named real profile, the unsymbolized pprof fixture,
# a profile libprofiler records now (with direct recursion), and folded
# stacks where a called function is also an outermost frame ("(root)").
# Also: name compression, and the ruling on mutual recursion.
# Needs valgrind (scripts/deps.sh --test).
. "$(dirname "$0")/lib.sh"
command -v callgrind_annotate > /dev/null || { fail "callgrind_annotate missing: scripts/deps.sh --test installs valgrind"; finish; }
CMP="$PROFKIT_SRC/tests/oracle/compare_callgrind.py"
D="$PROFKIT_SRC/tests/data"

# check FILE [PROFKIT_INPUT_OPTIONS...]: every value type of FILE.
check() {
  local f=$1 what
  shift
  what=$(basename "$f")
  "$PROFKIT" convert -q "$@" "$f" --to callgrind -o "$TMP/out.callgrind" 2> "$TMP/err" ||
    { fail "$what: convert failed: $(head -2 "$TMP/err")"; return; }
  local types
  types=$("$PROFKIT" info -q --json "$@" "$f" | python3 -c 'import json,sys; print(" ".join(t["type"] for t in json.load(sys.stdin)["value_types"]))')
  [ -n "$types" ] || { fail "$what: no value types"; return; }
  for v in $types; do
    "$PROFKIT" top -q "$@" -n 0 --json --value "$v" "$f" > "$TMP/top.json"
    callgrind_annotate --threshold=100 --show="$v" --sort="$v" --inclusive=no "$TMP/out.callgrind" > "$TMP/ex" 2>&1
    callgrind_annotate --threshold=100 --show="$v" --sort="$v" --inclusive=yes "$TMP/out.callgrind" > "$TMP/in" 2>&1
    if python3 "$CMP" "$TMP/top.json" "$TMP/ex" "$TMP/in" > "$TMP/cmp"; then pass
    else fail "$what $v: callgrind_annotate disagrees with profkit top:"; head -5 "$TMP/cmp"; fi
  done
}

for f in folded/ok_simple.folded pprof/ok_full.pb gperftools/ok_le32.prof bsprof/ok_lines.bsprof \
         dcpi/ok_canonical.dcpi br/ok_timed.brprof br/ok_sampled.brprof \
         bsprof/ok_components.bsprof; do
  check "$D/$f"
done
printf 'a;b 1\nb 2\nmain;f;f;f;g 4\nmain;g 1\n' > "$TMP/root.folded"
check "$TMP/root.folded"
grep -q '^fn=([0-9]*) (root)$' "$TMP/out.callgrind" && pass || fail "no (root) where b is outermost and called"
# A frame named "(root)" itself (Firefox profiles have one) with a self cost
# once crashed the writer.
printf '(root) 3\n(root);a 2\n' > "$TMP/named_root.folded"
"$PROFKIT" convert -q "$TMP/named_root.folded" --to callgrind -o "$TMP/named_root.callgrind" &&
  grep -qx 'summary: 5' "$TMP/named_root.callgrind" && pass || fail "a frame named (root): convert failed"
"$PROFKIT" convert "$D/folded/ok_simple.folded" --to callgrind -o "$TMP/simple.callgrind"
grep -q '(root)' "$TMP/simple.callgrind" && fail "(root) written where no outermost function is called" || pass

# Names are compressed: each function's name is written once.
n_named=$(grep -c '^c\?fn=([0-9]*) ' "$TMP/out.callgrind")
n_funcs=$(grep -o '^c\?fn=([0-9]*)' "$TMP/out.callgrind" | sed 's/^c//' | sort -u | wc -l)
expect_eq "each function named once" "$n_funcs" "$n_named"

# Mutual recursion: x;y;x;z goes x -> z (the loop through y is cut out),
# so y's inclusive is short by that stack (docs/formats/callgrind.md).
printf 'x;y;x;z 3\nx;y 2\n' > "$TMP/mutual.folded"
"$PROFKIT" convert "$TMP/mutual.folded" --to callgrind -o "$TMP/m.callgrind"
callgrind_annotate --threshold=100 --inclusive=yes "$TMP/m.callgrind" > "$TMP/m.in"
expect_eq "mutual recursion: y's inclusive" 2 "$(awk '$NF == "???:y" { print $1 }' "$TMP/m.in")"
expect_eq "mutual recursion: z's inclusive" 3 "$(awk '$NF == "???:z" { print $1 }' "$TMP/m.in")"

# Siblings looping back to the root of a long chain (bench/reliability_gen.py
# sibling_loops, at twice reliability_cli.sh's small size): every stack
# g0..g599;xI;g0 erases to g0, so the exclusive costs are top's flat, g0's
# inclusive is the total and g(k)'s is the chain's N - k samples below it.
python3 "$PROFKIT_SRC/bench/reliability_gen.py" sibling_loops 600 "$TMP/sl.json"
"$PROFKIT" convert -q "$TMP/sl.json" --to callgrind -o "$TMP/sl.callgrind" || fail "sibling loops: convert failed"
"$PROFKIT" top -q -n 0 --json "$TMP/sl.json" > "$TMP/sl.top.json"
callgrind_annotate --threshold=100 --inclusive=no "$TMP/sl.callgrind" > "$TMP/sl.ex" 2>&1
callgrind_annotate --threshold=100 --inclusive=yes "$TMP/sl.callgrind" > "$TMP/sl.in" 2>&1
python3 "$CMP" "$TMP/sl.top.json" "$TMP/sl.ex" "$TMP/sl.ex" > "$TMP/sl.cmp"
# the exclusive half must agree (the inclusive half, given the same file, cannot)
grep -q '^exclusive' "$TMP/sl.cmp" && { fail "sibling loops: exclusive disagrees with top:"; head -5 "$TMP/sl.cmp"; } || pass
inc() { awk -v f="???:$1" '$NF == f { gsub(",", "", $1); print $1 }' "$TMP/sl.in"; }
expect_eq "sibling loops: g0's inclusive" 1200 "$(inc g0)"
expect_eq "sibling loops: g1's inclusive" 599 "$(inc g1)"
expect_eq "sibling loops: g599's inclusive" 1 "$(inc g599)"
expect_eq "sibling loops: x0 has no inclusive" "" "$(inc x0)"

if [ -d "$FIX" ]; then
  check "$FIX/gperftools-real/real1.pprof.pb.gz" --no-symbolize
  check "$FIX/pprof/cppbench.pb.gz" --no-symbolize
  if cc -O1 -g -fno-omit-frame-pointer -o "$TMP/burn" "$PROFKIT_SRC/tests/oracle/burn.c" -Wl,--no-as-needed -lprofiler; then
    CPUPROFILE="$TMP/burn.prof" "$TMP/burn" 20000 2> /dev/null
    [ -s "$TMP/burn.prof" ] && check "$TMP/burn.prof" || fail "libprofiler wrote no profile"
    grep -q '^c\?fn=([0-9]*) middle$' "$TMP/out.callgrind" && pass || fail "recorded profile: no function middle"
  else fail "cannot build burn.c against libprofiler"; fi
fi
finish
