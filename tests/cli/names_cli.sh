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
finish
