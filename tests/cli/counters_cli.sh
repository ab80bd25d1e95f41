#!/usr/bin/env bash
# profkit counters on tests/data/gecko/ok_counters.json (memory and power
# counters in two processes, times on each process's zero): each counter's
# thread, samples, counts and running sums, by hand from the file; --range
# (its zero is the root range's start, the first sample at 1010 ms),
# --thread, --json's series and its validity against docs/report.schema.json;
# usage errors.
. "$(dirname "$0")/lib.sh"
F="$PROFKIT_SRC/tests/data/gecko/ok_counters.json"
out=$("$PROFKIT" counters "$F")
expect_eq "three counters" 3 "$(grep -c '^counter ' <<< "$out")"
# malloc of the parent: counts 4096 -1024 65536 -32768 0 -> sums 4096 3072 68608 35840 35840
grep -q 'count:   min -32768  max 65536  mean 7168  sum 35840' <<< "$out" && pass || fail "parent malloc counts: $out"
grep -q 'total:   start 0  min 3072  max 68608  range 65536' <<< "$out" && pass || fail "parent malloc running sum"
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
# the running sum carried into the range: the parent malloc's sample at
# 0 ms (4096) before 4 ms; at 12ms,25ms its sample at 10 ms (68608), the
# one before (3072) and the one after (35840) scale the track, as the
# Firefox Profiler's memory range (counters_oracle checks it under zooms)
expect_eq "range: the sums carried in" "[4096, 1500000, 0]" \
  "$(python3 -c 'import json,sys; print([c["total"]["start"] for c in json.load(sys.stdin)["counters"]])' <<< "$r")"
r2=$("$PROFKIT" counters --json --range 12ms,25ms "$F")
expect_eq "range 12-25 ms: the parent malloc's start, min, max, range" "[1, 68608, 3072, 68608, 65536]" \
  "$(python3 -c 'import json,sys; c=json.load(sys.stdin)["counters"][0]; t=c["total"]; print([c["samples"], t["start"], t["min"], t["max"], t["range"]])' <<< "$r2")"
"$PROFKIT" counters --range 12ms,25ms "$F" | grep -q 'total:   start 68608  min 3072  max 68608  range 65536' && pass ||
  fail "text: the total line with the sum carried in"
# --json is valid against docs/report.schema.json, and the schema catches a formatted figure
if python3 -c 'import jsonschema' 2> /dev/null; then
  printf '%s\n' "$j" > "$TMP/c1.json"; printf '%s\n' "$r" > "$TMP/c2.json"; printf '%s\n' "$r2" > "$TMP/c3.json"
  "$PROFKIT" counters --json -q "$PROFKIT_SRC/tests/data/folded/ok_simple.folded" > "$TMP/c4.json"
  if python3 "$PROFKIT_SRC/tests/oracle/validate_json.py" "$PROFKIT_SRC/docs/report.schema.json" "$TMP"/c[1-4].json > "$TMP/v.out"; then
    pass; else fail "counters --json not valid against the schema: $(head -5 "$TMP/v.out")"; fi
  sed 's/"start":4096/"start":"4096 B"/' "$TMP/c2.json" > "$TMP/bad.json"
  grep -q '"start":"4096 B"' "$TMP/bad.json" || fail "could not make the bad document"
  if python3 "$PROFKIT_SRC/tests/oracle/validate_json.py" "$PROFKIT_SRC/docs/report.schema.json" "$TMP/bad.json" > /dev/null; then
    fail "a counters document with a formatted total passed the schema"; else pass; fi
else
  fail "python3-jsonschema missing: scripts/deps.sh --test installs it"
fi
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
