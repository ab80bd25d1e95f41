#!/usr/bin/env bash
# Names and tables (docs/json.md): a function is its name and its file, so
# two Roku components' init() stay two rows in every report, the text adds
# the file where a name is shared, JSON rows carry file and line; Go pprof's
# -top -filefunctions (which keys functions by name and file, as profkit
# does) gives the same rows on the same profile written as pprof.
. "$(dirname "$0")/lib.sh"
D="$PROFKIT_SRC/tests/data/bsprof"
F="$D/ok_components.bsprof"

# 1. top: two init rows, each its own file's values.
"$PROFKIT" top "$F" > "$TMP/top" || fail "top"
expect_eq "init rows" 2 "$(grep -c '  init ' "$TMP/top")"
expect_eq "HomeScreen init" "860us 1.36ms 1" \
  "$(awk '$NF == "pkg:/components/HomeScreen.brs" && $(NF-1) == "init" {print $1, $4, $6}' "$TMP/top")"
expect_eq "MainScene init" "700us 1ms 1" \
  "$(awk '$NF == "pkg:/components/MainScene.brs" && $(NF-1) == "init" {print $1, $4, $6}' "$TMP/top")"
# a name no other file has keeps its plain label
grep -q '  main$' "$TMP/top" && pass || fail "main lost its plain label"

# 2. JSON rows: name, file, line.
"$PROFKIT" top --json "$F" > "$TMP/top.json" || fail "top --json"
expect_eq "top --json rows" \
  "init|pkg:/components/HomeScreen.brs|1|860 init|pkg:/components/MainScene.brs|1|700 main|pkg:/source/main.brs|10|100" \
  "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s|%s|%s|%s" % (r["name"], r["file"], r["line"], r["flat"]) for r in d["rows"] if r["name"] in ("init", "main")))' "$TMP/top.json")"

# 3. Every other report keeps them apart too.
"$PROFKIT" tree "$F" > "$TMP/tree"
expect_eq "tree: init of each thread" 2 "$(grep -c 'init pkg:/components/' "$TMP/tree")"
"$PROFKIT" tree --json "$F" | grep -c '"name":"init","file":"pkg:/components/' > "$TMP/n"
expect_eq "tree --json: init nodes with their file" 2 "$(cat "$TMP/n")"
"$PROFKIT" traces "$F" > "$TMP/traces"
grep -q 'render pkg:/components/MainScene.brs' "$TMP/traces" && pass || fail "traces: render of MainScene"
"$PROFKIT" peek '^init' "$F" > "$TMP/peek"
expect_eq "peek: two init" 2 "$(grep -c '| init pkg:/components/' "$TMP/peek")"
"$PROFKIT" hist --values cpu "$F" > "$TMP/hist" 2>/dev/null || "$PROFKIT" hist "$F" > "$TMP/hist"
expect_eq "hist: two init" 2 "$(grep -c 'init pkg:/components/' "$TMP/hist")"
# diff: a function is matched by name and file; NEW's second init is new
"$PROFKIT" diff "$D/ok_lines.bsprof" "$F" > "$TMP/diff"
expect_eq "diff: main matched" "0 100us 100us" \
  "$(awk '$NF == "main" {print $1, $3, $4}' "$TMP/diff")"
expect_eq "diff: BASE's init (another file) went away" "-200us 200us 0" \
  "$(awk '$NF == "init" {print $1, $3, $4}' "$TMP/diff")"
expect_eq "diff: NEW's inits" 2 "$(grep -c 'init pkg:/components/' "$TMP/diff")"
"$PROFKIT" diff "$F" "$F" > "$TMP/diff0"
expect_eq "diff of a profile with itself: no change" "" \
  "$(awk 'NR > 3 && $1 != "0" {print}' "$TMP/diff0")"

# 4. Go pprof's -top -filefunctions on the same profile written as pprof.
PPROF="$PROFKIT_TOOLS/pprof"
if [ -x "$PPROF" ]; then
  "$PROFKIT" convert -q "$F" -o "$TMP/c.pb.gz" || fail "convert to pprof"
  "$PPROF" -top -filefunctions -nodefraction=0 -unit=us "$TMP/c.pb.gz" 2> /dev/null |
    awk 'f {sub(/us$/, "", $1); sub(/us$/, "", $4); print $6 " " $7, $1, $4} /flat%/ {f=1}' | sort > "$TMP/want"
  "$PROFKIT" top -n 0 --json "$TMP/c.pb.gz" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["rows"]:
    print(r["name"] + " " + r.get("file", ""), r["flat"], r["cum"])' | sort > "$TMP/got"
  [ -s "$TMP/want" ] || fail "pprof printed no rows"
  expect_files_eq "top (name and file) = pprof -top -filefunctions" "$TMP/want" "$TMP/got"
  # pprof's default -top merges by name alone: one init row of both files
  expect_eq "pprof -top merges init" "1560us" \
    "$("$PPROF" -top -nodefraction=0 -unit=us "$TMP/c.pb.gz" 2> /dev/null | awk '$NF == "init" {print $1}')"
else
  fail "Go pprof missing: run scripts/tools.sh"
fi
# 5. --values: one column pair each, equal to top/tree of each value alone.
"$PROFKIT" top -n 0 --values cpu,wall,calls --json "$F" > "$TMP/tv.json" || fail "top --values"
for i in 0 1 2; do
  v=$(echo cpu wall calls | cut -d' ' -f$((i + 1)))
  "$PROFKIT" top -n 0 --value "$v" --json "$F" > "$TMP/t1.json"
  expect_eq "top --values column $v = top --value $v" "" "$(python3 -c '
import json, sys
i = int(sys.argv[3])
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
want = {(r["name"], r.get("file")): (r["flat"], r["cum"]) for r in b["rows"]}
got = {(r["name"], r.get("file")): (r["values"][i]["flat"], r["values"][i]["cum"]) for r in a["rows"]}
got = {k: v for k, v in got.items() if v != (0, 0)}
print("" if got == want and a["columns"][i]["type"] == b["value"]["type"] else "%s != %s" % (got, want))' "$TMP/tv.json" "$TMP/t1.json" $i)"
done
"$PROFKIT" top --values cpu,wall,calls "$F" > "$TMP/tv.txt"
expect_eq "top --values header" "cpu flat flat% cpu cum cum% wall flat wall cum calls flat calls cum function" \
  "$(sed -n 3p "$TMP/tv.txt" | tr -s ' ' | sed 's/^ //')"
expect_eq "top --values row" "860us 34.13% 1.36ms 53.97% 1.20ms 1.90ms 1 3 init pkg:/components/HomeScreen.brs" \
  "$(sed -n 4p "$TMP/tv.txt" | tr -s ' ' | sed 's/^ //')"
"$PROFKIT" tree --values cpu,calls "$F" > "$TMP/tree.txt"
expect_eq "tree --values: init of HomeScreen" "1.36ms 98.55% 860us 500us 3 1 init pkg:/components/HomeScreen.brs" \
  "$(grep 'init pkg:/components/HomeScreen' "$TMP/tree.txt" | tr -s ' ' | sed 's/^ //')"
"$PROFKIT" tree --values cpu,wall --json "$F" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [c["type"] for c in d["columns"]] == ["cpu", "wall"], d["columns"]
for t in d["trees"]:
    for n in t["nodes"]:
        assert n["values"][0] == {"total": n["total"], "self": n["self"]}, n
print("ok")' > "$TMP/ok" 2>&1
expect_eq "tree --values --json" ok "$(cat "$TMP/ok")"
expect_status "--values with a value the profile lacks" 2 "$PROFKIT" top --values cpu,nope "$F"
grep -q "no value type 'nope'" "$TMP/err" && pass || fail "--values nope: $(cat "$TMP/err")"

# 6. --by line names the function; bsprof's calls are the function's.
"$PROFKIT" top --by line "$F" > "$TMP/line.txt"
expect_eq "top --by line row" "260us 10.32% 93.65% 760us 30.16% 1 760us init pkg:/components/HomeScreen.brs:2" \
  "$(grep 'HomeScreen.brs:2$' "$TMP/line.txt" | tr -s ' ' | sed 's/^ //')"
"$PROFKIT" top --by line --json "$F" | grep -c '"function":"init","file":"pkg:/components/HomeScreen.brs","line":2,' > "$TMP/n"
expect_eq "top --by line --json: function and line" 1 "$(cat "$TMP/n")"

# 7. hist on bsprof fits 100 columns, headers whole; the columns it leaves
# out are named; --values picks them.
"$PROFKIT" hist -q "$D/ok_lines.bsprof" > "$TMP/hist"
expect_eq "hist lines within 100 columns" "" "$(awk 'length($0) > 100' "$TMP/hist")"
expect_eq "hist header" "cpu % cum% wall % cum% calls % cum% function" "$(sed -n 4p "$TMP/hist" | tr -s ' ' | sed 's/^ //')"
grep -q '^Not shown (see --values): alloc_objects, alloc_space, free_objects, inuse_objects, inuse_space$' "$TMP/hist" &&
  pass || fail "hist: the columns left out: $(sed -n 3p "$TMP/hist")"
"$PROFKIT" hist -q --values alloc_space,cpu "$D/ok_lines.bsprof" > "$TMP/hist2"
expect_eq "hist --values" "alloc_space % cum% cpu % cum% function" "$(sed -n 3p "$TMP/hist2" | tr -s ' ' | sed 's/^ //')"
# 8. list --diff-base: every line's flat and cum are NEW's minus BASE's, the
# functions that changed, as Go pprof's -list -diff_base on the same two
# profiles written as pprof (the sources made here: pprof needs them).
B="$D/ok_components_base.bsprof"
mkdir -p "$TMP/src/pkg:/components" "$TMP/src/pkg:/source"
for f in pkg:/components/MainScene.brs pkg:/components/HomeScreen.brs pkg:/source/main.brs; do
  for i in $(seq 1 32); do echo "' $(basename "$f") line $i"; done > "$TMP/src/$f"
done
"$PROFKIT" list --source-dir "$TMP/src" --diff-base "$B" 'init|render|onKey' "$F" > "$TMP/ld" || fail "list --diff-base"
grep -q '^Value: cpu (microseconds), base total 2.96ms, new total 2.52ms, change -440us' "$TMP/ld" && pass ||
  fail "list --diff-base header: $(head -1 "$TMP/ld")"
if [ -x "$PPROF" ]; then
  "$PROFKIT" convert -q "$B" -o "$TMP/b.pb.gz" || fail "convert BASE to pprof"
  "$PPROF" -list 'init|render|onKey' -source_path="$TMP/src" -diff_base "$TMP/b.pb.gz" "$TMP/c.pb.gz" \
    2> /dev/null > "$TMP/pl"
  # the routines and every line with a change, spacing aside
  norm() { grep -E '^ROUTINE|of Total|^ *[-0-9.]+[a-z]* +[-0-9.]+[a-z]* +[0-9]+:' "$1" | grep -vE '^ +\. +\. ' | tr -s ' ' | sed 's/^ //'; }
  # routines in one order (pprof's ties are in no order of ours)
  blocks() { norm "$1" | awk '/^ROUTINE/ {n++} {print n "\t" $0}' | sort -t"$(printf '\t')" -k1,1n -s |
    python3 -c '
import sys
b = {}
for l in sys.stdin:
    k, t = l.rstrip("\n").split("\t", 1)
    b.setdefault(k, []).append(t)
for v in sorted(b.values()):
    print("\n".join(v))'; }
  blocks "$TMP/pl" > "$TMP/pl.n"
  blocks "$TMP/ld" > "$TMP/ld.n"
  [ "$(grep -c ROUTINE "$TMP/pl.n")" -ge 3 ] && pass || fail "pprof listed fewer than 3 routines: $(cat "$TMP/pl")"
  expect_files_eq "list --diff-base = pprof -list -diff_base" "$TMP/pl.n" "$TMP/ld.n"
fi
# BASE against itself: nothing changed, no routine
"$PROFKIT" list --diff-base "$F" 'init' "$F" > "$TMP/l0"
grep -q "^no function matches 'init'" "$TMP/l0" && pass || fail "list --diff-base of itself: $(cat "$TMP/l0")"

# 9. Under a filter, list's and diff's percentages are of the whole
# profile's total (as top's); --relative: of what the filter left.
"$PROFKIT" list --focus HomeScreen 'init' "$F" > "$TMP/lf"
grep -q '(flat, cum) 53.97% of Total' "$TMP/lf" && pass || fail "list --focus: $(grep 'of Total' "$TMP/lf")"
grep -q '^Value: cpu (microseconds), total 2.52ms; 1.38ms (54.76%) after the filters' "$TMP/lf" && pass ||
  fail "list --focus header: $(head -1 "$TMP/lf")"
"$PROFKIT" list --relative --focus HomeScreen 'init' "$F" > "$TMP/lr"
grep -q '(flat, cum) 98.55% of Total' "$TMP/lr" && pass || fail "list --relative: $(grep 'of Total' "$TMP/lr")"
# main's cum grows 920us -> 1.10ms: +180us, 6.08% of BASE's whole 2.96ms
# (19.57% of the 920us --focus main leaves of BASE, with --relative)
"$PROFKIT" diff --focus main "$B" "$F" > "$TMP/df"
expect_eq "diff --focus: main's change, of BASE's whole total" "+180us 6.08%" \
  "$(awk '$NF == "main" {print $5, $6}' "$TMP/df")"
"$PROFKIT" diff --relative --focus main "$B" "$F" > "$TMP/df"
expect_eq "diff --relative --focus: of what the filter left" "+180us 19.57%" \
  "$(awk '$NF == "main" {print $5, $6}' "$TMP/df")"
# diff of two programs whose (main) are of different files: two rows, each
# labelled with its file (neither profile alone has a second (main))
"$PROFKIT" diff "$PROFKIT_SRC/tests/data/br/ok_gosub.brprof" "$PROFKIT_SRC/tests/data/br/ok_sampled.brprof" > "$TMP/dm"
expect_eq "diff: (main) of each file" "-4 4 0|+3 0 3" \
  "$(grep -E '  \(main\) ' "$TMP/dm" | awk '{print $5, $7, $8}' | paste -sd'|')"

# 10. A name of one file merged with frames that carry none (a folded main
# and a speedscope main of app.py): one row, named by its file and line,
# whichever input came first, for every thread.
S="$PROFKIT_SRC/tests/data/speedscope/ok_sampled.speedscope.json"
printf 'main;work;hot 5\nmain;io 3\n' > "$TMP/nofile.folded"
for th in "" "--thread Worker"; do
  # shellcheck disable=SC2086
  "$PROFKIT" top -n 0 --json $th "$TMP/nofile.folded" "$S" | python3 -c '
import json, sys
print(" ".join("%s|%s|%s" % (r["name"], r.get("file", ""), r.get("line", "")) for r in json.load(sys.stdin)["rows"] if r["name"] == "main"))' > "$TMP/m"
  expect_eq "top ${th:-all threads}: main named by its file" "main|app.py|1" "$(cat "$TMP/m")"
done
finish
