#!/usr/bin/env bash
# profkit counters on tests/data/gecko/ok_counters.json (memory and power
# counters in two processes, times on each process's zero): each counter's
# thread, samples, counts and running sums, by hand from the file; --range
# (its zero is the root range's start, the first sample at 1010 ms),
# --thread, --json's series; usage errors.
. "$(dirname "$0")/lib.sh"
F="$PROFKIT_SRC/tests/data/gecko/ok_counters.json"
out=$("$PROFKIT" counters "$F")
expect_eq "three counters" 3 "$(grep -c '^counter ' <<< "$out")"
# malloc of the parent: counts 4096 -1024 65536 -32768 0 -> sums 4096 3072 68608 35840 35840
grep -q 'count:   min -32768  max 65536  mean 7168  sum 35840' <<< "$out" && pass || fail "parent malloc counts: $out"
grep -q 'total:   min 3072  max 68608  range 65536' <<< "$out" && pass || fail "parent malloc running sum"
# the content process's malloc: its GeckoMain (pid 5151), times shifted by 500 ms
grep -q 'thread: 2 GeckoMain (Content Process, pid 5151, tid 5151)' <<< "$out" && pass || fail "content malloc thread"
j=$("$PROFKIT" counters --json "$F")
expect_eq "series of the content malloc: ms from the zero (1010 ms), count, number, sum" \
  '[[491, 100000, 5, 100000], [492, 50000, 1, 150000], [493.5, -120000, 2, 30000]]' \
  "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["counters"][2]["series"])' <<< "$j")"
# --range 4ms,15ms: the parent's samples at 5.5 and 10 ms
r=$("$PROFKIT" counters --json --range 4ms,15ms "$F")
expect_eq "range: samples per counter" "[2, 1, 0]" \
  "$(python3 -c 'import json,sys; print([c["samples"] for c in json.load(sys.stdin)["counters"]])' <<< "$r")"
expect_eq "range: the parent malloc's sums" "[3072, 68608, 65536]" \
  "$(python3 -c 'import json,sys; t=json.load(sys.stdin)["counters"][0]["total"]; print([t["min"], t["max"], t["range"]])' <<< "$r")"
t=$("$PROFKIT" counters --thread 2 "$F")
expect_eq "--thread 2: one counter" 1 "$(grep -c '^counter ' <<< "$t")"
"$PROFKIT" counters --range 5,2,3 "$F" > /dev/null 2> "$TMP/err"; st=$?
expect_eq "a bad range is a usage error" 2 "$st"
"$PROFKIT" counters --db "$TMP/x.db" > /dev/null 2> "$TMP/err"; st=$?
expect_eq "--db is a usage error" 2 "$st"
grep -q "the store keeps no counters" "$TMP/err" && pass || fail "--db message: $(cat "$TMP/err")"
n=$("$PROFKIT" counters "$PROFKIT_SRC/tests/data/gecko/ok_markers.json")
expect_eq "a profile without counters" "no counters" "$n"
# the Firefox writer: counters, process types and the paused range kept
"$PROFKIT" convert -q --to firefox "$F" -o "$TMP/rt.json"
expect_eq "round trip: counters, process types, paused range" \
  "3 ['default', 'default', 'tab'] [{'startTime': 25.0, 'endTime': 27.0, 'reason': 'profiler-paused'}]" \
  "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["counters"]), [t["processType"] for t in d["threads"]], d["threads"][0]["pausedRanges"])' "$TMP/rt.json")"
finish
