#!/usr/bin/env bash
# `profkit tree`: exact output on a small bsprof (tests/data/bsprof/asm/
# ok_lines.txt spells out every entry), cut-offs, threads, lines, and a
# profile of another format.
. "$(dirname "$0")/lib.sh"
D="$PROFKIT_SRC/tests/data/bsprof"

expect_status "tree" 0 "$PROFKIT" tree -q "$D/ok_lines.bsprof"
cat > "$TMP/want" <<'OUT'
Value: cpu (microseconds), total 1.90ms

Thread 0: MainScene (tid 1), total 1.35ms
     total  total%       self    callees  name
    1.35ms 100.00%      100us     1.25ms  main
    1.25ms  92.59%      200us     1.05ms    init
    1.05ms  77.78%      300us      750us      loadData
     750us  55.56%      750us          0        parseJson

Thread 1: TaskNode (tid 2), total 550us
     total  total%       self    callees  name
     550us 100.00%       50us      500us  loadData
     500us  90.91%      500us          0    parseJson
OUT
expect_files_eq "tree (cpu, every thread)" "$TMP/want" "$TMP/out"

# Lines split main:14 into init:40 (17.5% of the wall time: cut) and
# init:42; main:11 (8.8%) is cut too.
expect_status "tree --by-line --min-percent" 0 "$PROFKIT" tree -q --value wall --by-line \
  --thread MainScene --min-percent 20 "$D/ok_lines.bsprof"
cat > "$TMP/want" <<'OUT'
Value: wall (microseconds), total 2.67ms, nodes >= 20% of their thread

Thread 0: MainScene (tid 1), total 1.71ms
     total  total%       self    callees  name
    1.56ms  91.23%          0     1.56ms  main:14
    1.26ms  73.68%          0     1.26ms    init:42
     760us  44.44%          0      760us      loadData:81
     500us  29.24%      500us          0        parseJson:120
     500us  29.24%      500us          0      loadData:83
OUT
expect_files_eq "tree wall by line, 20% cut-off" "$TMP/want" "$TMP/out"

expect_status "tree --depth 2 --value calls" 0 "$PROFKIT" tree -q --depth 2 --value calls "$D/ok_lines.bsprof"
cat > "$TMP/want" <<'OUT'
Value: calls (count), total 13, depth <= 2

Thread 0: MainScene (tid 1), total 9
     total  total%       self    callees  name
         9 100.00%          1          8  main
         8  88.89%          1          7    init

Thread 1: TaskNode (tid 2), total 4
     total  total%       self    callees  name
         4 100.00%          1          3  loadData
         3  75.00%          3          0    parseJson
OUT
expect_files_eq "tree calls, depth 2" "$TMP/want" "$TMP/out"

# Any format: a folded profile has one thread.
printf 'main;a;b 6\nmain;a 2\nmain;c 2\n' > "$TMP/x.folded"
expect_status "tree of folded" 0 "$PROFKIT" tree "$TMP/x.folded"
cat > "$TMP/want" <<'OUT'
Value: samples (count), total 10

Thread 0: main, total 10
     total  total%       self    callees  name
        10 100.00%          0         10  main
         8  80.00%          2          6    a
         6  60.00%          6          0      b
         2  20.00%          2          0    c
OUT
expect_files_eq "tree of a folded profile" "$TMP/want" "$TMP/out"

expect_status "--min-percent abc" 2 "$PROFKIT" tree --min-percent abc "$TMP/x.folded"
expect_status "--min-percent 101" 2 "$PROFKIT" tree --min-percent 101 "$TMP/x.folded"
expect_status "--depth -1" 2 "$PROFKIT" tree --depth -1 "$TMP/x.folded"
expect_status "unknown thread" 2 "$PROFKIT" tree --thread nope "$D/ok_lines.bsprof"
grep -q "no thread 'nope'" "$TMP/err" && pass || fail "unknown thread message: $(cat "$TMP/err")"
expect_status "unknown value" 2 "$PROFKIT" tree --value bogus "$D/ok_lines.bsprof"
finish
