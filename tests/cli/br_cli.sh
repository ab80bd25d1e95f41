#!/usr/bin/env bash
# BR streams through the CLI: generated streams against the folded stacks the
# generator wrote (bench/gen_br.c, compiled here), the mode in `info`, the
# FILE:LINE[:CLAUSE] keys of `top --by line`, module remapping in
# `top --by file`, and br -> br -> folded.
. "$(dirname "$0")/lib.sh"
DATA="$PROFKIT_SRC/tests/data/br"

cc -O1 -o "$TMP/gen_br" "$PROFKIT_SRC/bench/gen_br.c" || { fail "cannot compile bench/gen_br.c"; finish; }

# Merges the generator's per-group lines the way folded output merges stacks.
merge() { awk '{c = $NF; sub(/ [0-9]+$/, ""); s[$0] += c} END {for (k in s) if (s[k] > 0) print k " " s[k]}' "$1" | LC_ALL=C sort; }

for mode in sampled timed; do
  flag=; [ $mode = timed ] && flag=--timed
  "$TMP/gen_br" "$TMP/$mode.brprof" 300000 11 $flag --distinct 400 --folded "$TMP/$mode.gen" 2> /dev/null
  merge "$TMP/$mode.gen" > "$TMP/$mode.want"
  # detected without --format
  "$PROFKIT" convert "$TMP/$mode.brprof" --to folded | LC_ALL=C sort > "$TMP/$mode.got"
  expect_files_eq "$mode stream -> folded equals the generator's stacks" "$TMP/$mode.want" "$TMP/$mode.got"
  expect_eq "$mode: info names the mode" "  mode: $mode" "$("$PROFKIT" info "$TMP/$mode.brprof" | grep '^  mode:')"
  # br -> br keeps every group
  "$PROFKIT" convert "$TMP/$mode.brprof" --to br -o "$TMP/$mode.again.brprof"
  "$PROFKIT" convert "$TMP/$mode.again.brprof" --format br --to folded | LC_ALL=C sort > "$TMP/$mode.again"
  expect_files_eq "$mode: br -> br -> folded" "$TMP/$mode.want" "$TMP/$mode.again"
done
groups=$(wc -l < "$TMP/timed.gen")
expect_eq "timed: one sample per group" "$groups" \
  "$("$PROFKIT" info "$TMP/timed.brprof" | awk '$1 == "samples" && $2 == "count" {print $4}')"
expect_eq "timed: default value is time" "[default]" \
  "$("$PROFKIT" info "$TMP/timed.brprof" | awk '$1 == "time" {print $NF}')"

# Module 3 is remapped halfway: both names appear as files.
"$PROFKIT" top -n 0 --by file "$TMP/sampled.brprof" > "$TMP/files"
grep -q ' lib3\.br$' "$TMP/files" && pass || fail "top --by file: lib3.br missing"
grep -q ' lib3-new\.br$' "$TMP/files" && pass || fail "top --by file: lib3-new.br missing"

# --by line: FILE:LINE, and FILE:LINE:CLAUSE where the clause is not 0.
"$PROFKIT" top -n 0 --by line "$DATA/ok_sampled.brprof" | awk 'NR > 3 {print $1, $NF}' | LC_ALL=C sort > "$TMP/lines"
cat > "$TMP/lines.want" << 'END'
0 main.br:10
0 main.br:40
1 2:7
1 lib/calc.br:120:2
1 lib/calc.br:130
END
expect_files_eq "top --by line on ok_sampled" "$TMP/lines.want" "$TMP/lines"

# Timed hand-made stream: time per function, in nanoseconds.
expect_eq "ok_timed folded" "$(printf '(main);F 3500')" "$("$PROFKIT" convert "$DATA/ok_timed.brprof" --to folded)"
expect_eq "ok_timed folded by samples" "$(printf '(main) 1\n(main);F 2')" \
  "$("$PROFKIT" convert "$DATA/ok_timed.brprof" --to folded --value samples)"

# info: a sampled stream keeps its order but has no times; a timed one is timed.
expect_eq "info: sampled stream" "samples:      3 rows (in recorded order, without times)" \
  "$("$PROFKIT" info "$DATA/ok_sampled.brprof" | grep '^samples:')"
expect_eq "info: timed stream" "samples:      3 rows (timed, in time order)" \
  "$("$PROFKIT" info "$DATA/ok_timed.brprof" | grep '^samples:')"

# GOSUB routines: each named by its caller's line (the GOSUB statement),
# not one "(gosub)" row; a nested one by the routine that called it.
"$PROFKIT" top -n 0 "$DATA/ok_gosub.brprof" | awk 'NR > 3 {f = $1; c = $4; $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print f, c, $0}' > "$TMP/gosub"
cat > "$TMP/gosub.want" << 'END'
2 3 (gosub from INVOICE.BR:300)
1 1 (gosub from INVOICE.BR:1220)
1 1 (gosub from INVOICE.BR:400)
0 4 (main)
END
expect_files_eq "top: gosub routines by caller line" "$TMP/gosub.want" "$TMP/gosub"
"$PROFKIT" convert "$DATA/ok_gosub.brprof" --to br -o "$TMP/gosub.brprof"
expect_eq "gosub names survive br -> br" "$("$PROFKIT" convert "$DATA/ok_gosub.brprof" --to folded)" \
  "$("$PROFKIT" convert "$TMP/gosub.brprof" --to folded)"

# list --source-dir: the module's Windows path (C:\ACME\INVOICE.BR) is split
# at backslashes: DIR/ACME/INVOICE.BR, then DIR/INVOICE.BR.
printf '00100 PRINT "x"\n' > "$TMP/INVOICE.BR"
expect_status "list without --source-dir" 0 "$PROFKIT" list 'from INVOICE.BR:300' "$DATA/ok_gosub.brprof"
grep -Fq '(source not found: C:\ACME\INVOICE.BR)' "$TMP/out" && pass || fail "list: $(cat "$TMP/out")"
for d in "$TMP" "$TMP/tree"; do
  [ "$d" = "$TMP/tree" ] && { mkdir -p "$TMP/tree/ACME"; mv "$TMP/INVOICE.BR" "$TMP/tree/ACME/"; }
  expect_status "list --source-dir $d" 0 "$PROFKIT" list --source-dir "$d" 'from INVOICE.BR:300' "$DATA/ok_gosub.brprof"
  grep -q 'source not found' "$TMP/out" && fail "list --source-dir $d: $(cat "$TMP/out")" || pass
  grep -Fq 'ROUTINE ======================== (gosub from INVOICE.BR:300) in C:\ACME\INVOICE.BR' "$TMP/out" && pass || fail "list header: $(head -2 "$TMP/out")"
done

# Another format into BR: folded counts become that many groups.
printf 'a;b 3\na;c 1\n' > "$TMP/x.folded"
"$PROFKIT" convert "$TMP/x.folded" --to br -o "$TMP/x.brprof"
expect_eq "folded -> br -> folded" "$(printf 'a;b 3\na;c 1')" "$("$PROFKIT" convert "$TMP/x.brprof" --to folded)"
finish
