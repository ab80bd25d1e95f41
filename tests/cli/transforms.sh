#!/usr/bin/env bash
# The transforms (docs/transforms.md) on the demo's program (examples/burn.c
# under libprofiler): collapse recursion makes glibc's merge sort one frame
# with the totals unchanged; merge, merge-node, root-at, focus-subtree and
# collapse-module do what they say on its folded stacks; steps apply in the
# order given; percentages under --focus are Go pprof's (of the whole
# profile's total; --relative as pprof's -relative_percentages); bad
# arguments are usage errors naming the flag; --help teaches them.
. "$(dirname "$0")/lib.sh"
PPROF="$PROFKIT_TOOLS/pprof"
command -v python3 > /dev/null || { fail "python3 missing"; finish; }

D="$TMP/demo"
mkdir -p "$D"
"${PROFKIT_CC:-cc}" -O1 -g -fno-omit-frame-pointer -o "$D/burn" "$PROFKIT_SRC/examples/burn.c" \
  -Wl,--no-as-needed -lprofiler -lm ||
  { fail "cannot build examples/burn.c against libprofiler (libgoogle-perftools-dev)"; finish; }
PROF="$D/burn.prof"
CPUPROFILE="$PROF" CPUPROFILE_FREQUENCY=1000 "$D/burn" 25 > /dev/null 2>&1
[ -s "$PROF" ] || { fail "no profile written"; finish; }

folded() { "$PROFKIT" convert -q --to folded "$@" "$PROF"; }
sum() { awk '{ s += $NF } END { printf "%d", s }'; }
# max_count LABEL: the most times LABEL is on one folded line
max_count() { awk -v l="$1" '{ n = split($1, a, ";"); c = 0; for (i = 1; i <= n; i++) c += a[i] == l; if (c > m) m = c } END { print m + 0 }'; }
# cum LABEL [FLAGS]: top --json's cum of LABEL; flat the same
cum() { local l=$1; shift; "$PROFKIT" top -q -n 0 --json "$@" "$PROF" |
  python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(r["cum"] for r in d["rows"] if r["name"]==sys.argv[1]))' "$l"; }
flat() { local l=$1; shift; "$PROFKIT" top -q -n 0 --json "$@" "$PROF" |
  python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(r["flat"] for r in d["rows"] if r["name"]==sys.argv[1]))' "$l"; }

folded > "$TMP/all.folded"
TOTAL=$(sum < "$TMP/all.folded")
MS=msort_with_tmp
deep=$(max_count $MS < "$TMP/all.folded")
[ "$deep" -ge 5 ] && pass || fail "the demo's merge sort should recurse (msort_with_tmp $deep deep)"

# Collapse recursion: one frame, totals unchanged.
folded --collapse-recursion "^$MS\$" > "$TMP/c.folded"
expect_eq "collapse-recursion: merge sort is one frame" 1 "$(max_count $MS < "$TMP/c.folded")"
expect_eq "collapse-recursion: total unchanged" "$TOTAL" "$(sum < "$TMP/c.folded")"
expect_eq "collapse-recursion: its cum unchanged" "$(cum $MS)" "$(cum $MS --collapse-recursion "^$MS\$")"
expect_eq "collapse-recursion: its flat unchanged" "$(flat $MS)" "$(flat $MS --collapse-recursion "^$MS\$")"
expect_eq "collapse-recursion: compare's cum unchanged" "$(cum compare)" "$(cum compare --collapse-recursion "^$MS\$")"
folded --collapse-direct-recursion "^$MS\$" > "$TMP/d.folded"
expect_eq "collapse-direct-recursion: merge sort is one frame" 1 "$(max_count $MS < "$TMP/d.folded")"
expect_eq "collapse-direct-recursion: total unchanged" "$TOTAL" "$(sum < "$TMP/d.folded")"

# Merge: compare leaves every stack, its time goes to its caller (the merge sort).
folded --merge '^compare$' > "$TMP/m.folded"
expect_eq "merge: compare gone" 0 "$(grep -c '[;]compare[; ]' "$TMP/m.folded")"
expect_eq "merge: total unchanged" "$TOTAL" "$(sum < "$TMP/m.folded")"
expect_eq "merge: compare's time is its caller's" "$(( $(flat $MS) + $(flat compare) ))" \
  "$(flat $MS --merge '^compare$')"

# Root-at: every stack starts at stage_sort, all of stage_sort's time kept.
folded --root-at '^stage_sort$' > "$TMP/r.folded"
expect_eq "root-at: every stack starts at stage_sort" 0 "$(grep -vc '^stage_sort[; ]' "$TMP/r.folded")"
expect_eq "root-at: total is stage_sort's cum" "$(cum stage_sort)" "$(sum < "$TMP/r.folded")"

# Focus-subtree and merge-node on the call path of stage_sort.
path=$(grep -o '^.*;stage_sort[; ]' "$TMP/all.folded" | head -1 | sed 's/[; ]$//')
[ -n "$path" ] && pass || fail "no call path to stage_sort"
folded --focus-subtree "$path" > "$TMP/s.folded"
expect_eq "focus-subtree: rooted at stage_sort" 0 "$(grep -vc '^stage_sort[; ]' "$TMP/s.folded")"
expect_eq "focus-subtree: the node's total" "$(grep "^$path[; ]" "$TMP/all.folded" | sum)" "$(sum < "$TMP/s.folded")"
folded --merge-node "$path" > "$TMP/n.folded"
expect_eq "merge-node: stage_sort gone" 0 "$(grep -c 'stage_sort' "$TMP/n.folded")"
expect_eq "merge-node: total unchanged" "$TOTAL" "$(sum < "$TMP/n.folded")"
expect_eq "merge-node: a path that is no node changes nothing" "$(cat "$TMP/all.folded")" \
  "$(folded --merge-node "stage_sort;$path")"

# Collapse-module: libc's frames become one frame per run, named libc.so.6.
folded --collapse-module '/libc\.so' > "$TMP/l.folded"
grep -q ';libc\.so\.6[; ]' "$TMP/l.folded" && pass || fail "collapse-module: no libc.so.6 frame"
expect_eq "collapse-module: no two libc frames in a row" 0 "$(grep -c 'libc\.so\.6;libc\.so\.6' "$TMP/l.folded")"
expect_eq "collapse-module: qsort's frames gone" 0 "$(grep -c "$MS\\|qsort" "$TMP/l.folded")"
expect_eq "collapse-module: total unchanged" "$TOTAL" "$(sum < "$TMP/l.folded")"

# Order: merge-node's path names the tree the steps before it left.
expect_eq "order: merge-node after a merge sees the merged tree" "$(folded --merge-node "$path")" \
  "$(folded --merge '^nothing$' --merge-node "$path")"
before=$(folded --merge '^stage_sort$' --root-at '^sort_numbers$' | sum)
after=$(folded --root-at '^stage_sort$' --merge '^stage_sort$' | sum)
expect_eq "order: merge then root-at keeps sort_numbers' time" "$(cum sort_numbers)" "$before"
# (a sample in stage_sort's own code has no frame left once its root is
# merged, and goes, as in the Firefox Profiler: the rest of its cum stays)
expect_eq "order: root-at then merge of the root keeps stage_sort's callees'" \
  "$(( $(cum stage_sort) - $(flat stage_sort) ))" "$after"
# the filters act as one step where the first of them is: --focus after a
# merge of its function matches nothing
expect_eq "order: --focus after --merge of its function" 0 "$(folded --merge '^compare$' --focus '^compare$' | sum)"
expect_eq "order: --focus before --merge" "$(cum compare)" "$(folded --focus '^compare$' --merge '^compare$' | sum)"

# Percentages under --focus: Go pprof's (-top -focus).
if [ -x "$PPROF" ]; then
  # rows NAME FLAT% CUM% of a pprof or profkit top listing
  rows() { awk '$1 != "flat" && $2 ~ /%$/ && $3 ~ /%$/ && $5 ~ /%$/ { print $6, $2, $5 }' | LC_ALL=C sort; }
  for flags in "" "-relative_percentages"; do
    pk=""; [ -n "$flags" ] && pk="--relative"
    "$PPROF" -top -nodecount=100000 $flags -focus=compare "$PROF" 2> /dev/null | rows > "$TMP/go.rows"
    "$PROFKIT" top -q -n 0 $pk --focus compare "$PROF" | rows > "$TMP/pk.rows"
    n=$(LC_ALL=C join "$TMP/go.rows" "$TMP/pk.rows" | wc -l)
    [ "$n" -ge 3 ] && pass || fail "percentages $pk: only $n functions in both listings"
    # as numbers: pprof keeps "22.10%" where profkit prints "22.1%"
    bad=$(LC_ALL=C join "$TMP/go.rows" "$TMP/pk.rows" | tr -d '%' |
      awk 'function d(a, b) { return a > b ? a - b : b - a } d($2, $4) > 0.0051 || d($3, $5) > 0.0051')
    expect_eq "percentages ${pk:-(whole total)} equal Go pprof's" "" "$bad"
  done
  # tree's total% is of the whole total too: _start's is pprof's cum%
  go_start=$("$PPROF" -top -nodecount=100000 -focus=compare "$PROF" 2> /dev/null | awk '$6 == "_start" { sub("%", "", $5); print $5 }')
  pk_start=$("$PROFKIT" tree -q --focus compare "$PROF" | awk '$NF == "_start" { sub("%", "", $2); print $2; exit }')
  expect_eq "tree --focus: _start's total% is pprof's cum%" "$(awk -v x="$go_start" 'BEGIN { printf "%.2f", x }')" "$pk_start"
  gotot=$("$PPROF" -top -focus=compare "$PROF" 2> /dev/null | sed -n 's/.* of \(.*\) total$/\1/p')
  pktot=$("$PROFKIT" top -q --focus compare "$PROF" | sed -n 's/^Value: .*, total \([^;]*\);.*/\1/p')
  expect_eq "the total printed is pprof's (the whole profile's)" "$gotot" "$pktot"
else
  fail "Go pprof missing: run scripts/tools.sh"
fi
# JSON: total is what is left, whole_total the whole profile's
"$PROFKIT" top -q --json --focus compare "$PROF" > "$TMP/f.json"
expect_eq "JSON whole_total" "$TOTAL" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["whole_total"])' "$TMP/f.json")"
expect_eq "JSON total" "$(cum compare)" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"])' "$TMP/f.json")"
"$PROFKIT" top -q --json "$PROF" > "$TMP/n.json"
expect_eq "no whole_total without filters" "no" "$(python3 -c 'import json,sys; print("yes" if "whole_total" in json.load(open(sys.argv[1])) else "no")' "$TMP/n.json")"

# Errors: usage errors that name the flag.
expect_status "bad --merge" 2 "$PROFKIT" top --merge '(' "$PROF"
grep -q -- "--merge: bad regular expression '('" "$TMP/err" && pass || fail "bad --merge message: $(cat "$TMP/err")"
expect_status "bad --merge-node" 2 "$PROFKIT" top --merge-node 'a;;b' "$PROF"
grep -q -- "--merge-node: empty function name in call path 'a;;b'" "$TMP/err" && pass ||
  fail "bad --merge-node message: $(cat "$TMP/err")"
expect_status "--focus-category" 2 "$PROFKIT" top --focus-category JavaScript "$PROF"
grep -q -- "--focus-category: no frame categories in this profile" "$TMP/err" && pass ||
  fail "--focus-category message: $(cat "$TMP/err")"

# --help teaches them, in every reading command.
for cmd in top tree convert flame; do
  "$PROFKIT" "$cmd" --help | grep -q -- '--collapse-recursion RE' && pass || fail "$cmd --help lacks the transforms"
done
finish
