#!/usr/bin/env bash
# The filters (--focus, --ignore, --hide, --show, --show-from, --prune-from)
# against Go pprof's -focus, -ignore, -hide, -show, -show_from, -prune_from on
# the same file: a real libprofiler profile with named frames (Go pprof's
# own -proto of gperftools-real/real1.prof; the pprof fixtures hold only
# addresses, which pprof's filters do not match). Both sides
# run without symbolization; profkit's filtered total must be pprof's
# "accounting for" figure and every function's flat and cumulative value
# pprof's (tests/oracle/compare_top_json.py). Also: filters reach convert, a bad
# regular expression is a usage error naming the option.
. "$(dirname "$0")/lib.sh"
need_shared
PPROF="$PROFKIT_TOOLS/pprof"
[ -x "$PPROF" ] || { fail "Go pprof missing: run scripts/tools.sh"; finish; }
CMP="$PROFKIT_SRC/tests/oracle/compare_top_json.py"

# check FILE PK_FLAG GO_FLAG RE
check() {
  local f=$1 pkf=$2 gof=$3 re=$4 what="$(basename "$1") $2 '$4'"
  "$PROFKIT" top -n 0 --json "$pkf" "$re" "$f" > "$TMP/pk.json" 2> "$TMP/pk.err" ||
    { fail "$what: profkit failed: $(head -2 "$TMP/pk.err")"; return; }
  "$PPROF" -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -unit=ns -symbolize=none \
    "-$gof=$re" "$f" > "$TMP/go.top" 2> /dev/null ||
    { fail "$what: Go pprof failed"; return; }
  if python3 "$CMP" "$TMP/pk.json" "$TMP/go.top" > "$TMP/cmp.out"; then pass; else
    fail "$what differs from Go pprof:"; head -10 "$TMP/cmp.out"; fi
}

REAL="$FIX/gperftools-real/real1.pprof.pb.gz"
for args in "--focus focus math_kernel" "--focus focus do_s.*" "--ignore ignore hash_block" \
            "--ignore ignore ^(cmp_loop|math_kernel)$" "--hide hide do_.*" "--hide hide main" \
            "--show show ^(math_kernel|__sin_fma|cmp_loop)$" "--show-from show_from run_all" \
            "--show-from show_from math_kernel" "--prune-from prune_from __sin_fma" \
            "--prune-from prune_from run_all"; do
  set -- $args
  check "$REAL" "$1" "$2" "$3"
done

# Every filter changes something on this file: a filter that did nothing
# would pass the comparisons above only if pprof's did nothing too.
full=$("$PROFKIT" top --json "$REAL" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
foc=$("$PROFKIT" top --json --focus math_kernel "$REAL" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
[ "$foc" -gt 0 ] && [ "$foc" -lt "$full" ] && pass || fail "--focus math_kernel: total $foc of $full"

# Several filters together, in pprof's order.
"$PROFKIT" top -n 0 --json --focus run_all --ignore hash_block --hide 'do_.*' --prune-from __sin_fma "$REAL" > "$TMP/pk.json"
"$PPROF" -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -unit=ns -symbolize=none \
  -focus=run_all -ignore=hash_block -hide='do_.*' -prune_from=__sin_fma "$REAL" > "$TMP/go.top" 2> /dev/null
if python3 "$CMP" "$TMP/pk.json" "$TMP/go.top" > "$TMP/cmp.out"; then pass; else
  fail "combined filters differ from Go pprof:"; head -10 "$TMP/cmp.out"; fi

# Filters reach convert: the folded output of a focused profile holds only
# stacks through the match, and sums to the focused total.
"$PROFKIT" convert --to folded --focus math_kernel "$REAL" > "$TMP/f.folded"
expect_eq "convert --focus: every stack passes math_kernel" 0 "$(grep -vc 'math_kernel' "$TMP/f.folded")"
expect_eq "convert --focus: folded sum is the focused total" "$foc" \
  "$(awk '{ s += $NF } END { printf "%d", s }' "$TMP/f.folded")"

# A bad regular expression is a usage error that names the option.
expect_status "bad --focus" 2 "$PROFKIT" top --focus '(' "$REAL"
grep -q -- "--focus: bad regular expression '('" "$TMP/err" && pass || fail "bad --focus message: $(cat "$TMP/err")"
finish
