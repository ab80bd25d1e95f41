#!/usr/bin/env bash
# bsprof end to end: the committed data files are what their text sources
# assemble to; random profiles from bench/bsprof_gen.c read back to exactly
# what the generator put in (folded per value, with and without line data),
# also after bsprof -> bsprof; top's calls columns; --strict.
. "$(dirname "$0")/lib.sh"
D="$PROFKIT_SRC/tests/data/bsprof"

# 1. Data files match their sources.
mkdir -p "$TMP/asm"
bash "$D/asm/build.sh" "$TMP/asm" && pass || fail "assembling tests/data/bsprof/asm"
for f in "$D"/asm/*.txt; do
  b=$(basename "$f" .txt)
  cmp -s "$TMP/asm/$b.bsprof" "$D/$b.bsprof" && pass || fail "$b.bsprof differs from asm/$b.txt"
done

# 2. Generated profiles against the generator's own account.
cc -O1 -o "$TMP/gen" "$PROFKIT_SRC/bench/bsprof_gen.c" || { fail "cannot build the generator"; finish; }
agg() { awk '{v=$NF; $NF=""; a[$0]+=v} END{for(k in a) if (a[k]!=0) print k a[k]}' | LC_ALL=C sort; }
values="cpu wall calls alloc_objects alloc_space free_objects inuse_objects inuse_space"
for lines in 0 1; do
  for uniform in 0 1; do
    g="$TMP/g$lines$uniform"
    "$TMP/gen" random "$g.bsprof" elements=200 modules=4 cpu=3000 memops=30000 live=500 \
      lines=$lines uniform=$uniform seed=$((7 + lines + 2 * uniform)) expect="$g.expect"
    "$PROFKIT" convert -q "$g.bsprof" --to bsprof -o "$g.rt.bsprof" && pass || fail "bsprof -> bsprof"
    bl=; [ $lines = 1 ] && bl=--by-line
    for v in $values; do
      grep "^$v " "$g.expect" | cut -d' ' -f2- | agg > "$g.want"
      [ -s "$g.want" ] || fail "generator wrote no $v"
      for f in "$g.bsprof" "$g.rt.bsprof"; do
        "$PROFKIT" convert -q "$f" --to folded $bl --value "$v" | agg > "$g.got"
        expect_files_eq "$(basename "$f") lines=$lines uniform=$uniform: $v" "$g.want" "$g.got"
      done
    done
    want=$(sed -n 's/^unmatched_frees //p' "$g.expect")
    for f in "$g.bsprof" "$g.rt.bsprof"; do
      "$PROFKIT" info -q "$f" > "$TMP/info"
      expect_eq "unmatched frees ($(basename "$f"))" "$want" "$(sed -n 's/^  unmatched_frees: //p' "$TMP/info")"
      expect_eq "line_data ($(basename "$f"))" "$lines" "$(sed -n 's/^  line_data: //p' "$TMP/info")"
    done
    # Reports that show no inuse_* value do not match frees (skip_inuse):
    # same figures, no word about unmatched frees; mem and --value inuse_*
    # still match them.
    for v in calls alloc_objects free_objects inuse_objects; do
      tot=$(grep "^$v " "$g.expect" | awk '{s += $NF} END {print s + 0}')
      "$PROFKIT" top -n 1 --value "$v" "$g.bsprof" > "$TMP/top" 2> "$TMP/top.err"
      expect_eq "top --value $v total (lines=$lines uniform=$uniform)" "$tot" \
        "$(sed -n 's/^Value: .*, total \([0-9]*\).*/\1/p' "$TMP/top")"
      case $v in
        inuse_*) grep -q "matched no live allocation" "$TMP/top.err" && pass || fail "top --value $v: no unmatched-frees warning" ;;
        *) grep -q "matched no live allocation" "$TMP/top.err" && fail "top --value $v warned about unmatched frees" || pass ;;
      esac
    done
    "$PROFKIT" mem -n 1 "$g.bsprof" > /dev/null 2> "$TMP/mem.err"
    grep -q "matched no live allocation" "$TMP/mem.err" && pass || fail "mem: no unmatched-frees warning"
  done
done

# 3. Line-level folded output names the exact source lines.
expect_status "folded --by-line" 0 "$PROFKIT" convert -q "$D/ok_lines.bsprof" --to folded --by-line
cat > "$TMP/want" <<'OUT'
loadData:200 50
loadData:203;parseJson:121 500
main:11 100
main:14;init:40 200
main:14;init:42;loadData:81;parseJson:120 500
main:14;init:42;loadData:81;parseJson:122 250
main:14;init:42;loadData:83 300
OUT
expect_files_eq "folded --by-line" "$TMP/want" "$TMP/out"

# 4. top: calls and cumulative time per call beside cpu and wall.
expect_status "top" 0 "$PROFKIT" top -q "$D/ok_lines.bsprof"
cat > "$TMP/want" <<'OUT'
Value: cpu (microseconds), total 1.90ms
Showing top 4 of 4 functions, sorted by flat
      flat   flat%    sum%        cum    cum%      calls   avg/call  function
    1.25ms  65.79%  65.79%     1.25ms  65.79%          8      156us  parseJson
     350us  18.42%  84.21%     1.60ms  84.21%          3      533us  loadData
     200us  10.53%  94.74%     1.25ms  65.79%          1     1.25ms  init
     100us   5.26%    100%     1.35ms  71.05%          1     1.35ms  main
OUT
expect_files_eq "top cpu with calls" "$TMP/want" "$TMP/out"
expect_status "top --value alloc_space" 0 "$PROFKIT" top -q --value alloc_space "$D/ok_lines.bsprof"
grep -q "avg/call" "$TMP/out" && fail "calls columns beside a memory value" || pass
expect_status "top --by line --value wall" 0 "$PROFKIT" top -q --by line --value wall "$D/ok_lines.bsprof"
# by line: the function a line is in names it, and its calls are the function's
grep -q '^     900us  33.71%  33.71%      900us  33.71%          8      112us  parseJson pkg:/components/Scene.brs:121$' "$TMP/out" \
  && pass || fail "top by line: $(head -4 "$TMP/out")"

# Reports keyed by function read without lines (skip_lines); with
# --by-line they still have them.
expect_status "tree --by-line" 0 "$PROFKIT" tree -q --by-line "$D/ok_lines.bsprof"
grep -q '^     250us  18.52%      250us          0        parseJson:122$' "$TMP/out" \
  && pass || fail "tree --by-line: $(head -8 "$TMP/out")"
expect_status "mem --by-line" 0 "$PROFKIT" mem -q --by-line "$D/ok_lines.bsprof"
grep -q ' main:14;init:42;loadData:81;parseJson:120$' "$TMP/out" \
  && pass || fail "mem --by-line: $(tail -4 "$TMP/out")"
expect_status "mem" 0 "$PROFKIT" mem -q "$D/ok_lines.bsprof"
grep -q ' main;init;loadData;parseJson$' "$TMP/out" && pass || fail "mem: $(tail -4 "$TMP/out")"

# 5. Truncation: a warning, or under --strict an error.
expect_status "cut stream" 0 "$PROFKIT" info "$D/bad_cut_inside_entry.bsprof"
expect_status "cut stream, --strict" 1 "$PROFKIT" info --strict "$D/bad_cut_inside_entry.bsprof"
grep -q "offset 85: CPU entry cut off by the end of the input" "$TMP/err" && pass || fail "strict: $(cat "$TMP/err")"

# 6. Any profile can become a bsprof: a folded one (samples become cpu).
printf 'main;a;b 6\nmain;c 2\n' > "$TMP/x.folded"
expect_status "folded -> bsprof" 0 "$PROFKIT" convert "$TMP/x.folded" -o "$TMP/x.bsprof"
expect_status "bsprof -> folded" 0 "$PROFKIT" convert "$TMP/x.bsprof" --to folded
printf 'main;a;b 6\nmain;c 2\n' > "$TMP/want"
expect_files_eq "folded -> bsprof -> folded" "$TMP/want" "$TMP/out"
finish
