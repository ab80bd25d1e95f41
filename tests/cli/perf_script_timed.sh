#!/usr/bin/env bash
# perf script text keeps each sample's time (issue 25,
# docs/formats/perf_script.md) when every sample header has one: on the
# ok_ files of tests/data/perf_script and the real files of
# ../shared/fixtures/perf, against the samples and times read from the file
# by tests/cli/perf_script_timed.py (independently of profkit):
#   - `info` says timed, one row per sample, and its root range is the
#     file's first sample time to its last plus 1 ms;
#   - `top`/`convert --to folded --range R` of a sub-range equal the same
#     of a file holding only the samples whose time is in R;
#   - `convert --to folded` gives what it gave before times were kept
#     (recorded below as checksums of the untimed reader's output);
#   - a file without times stays aggregated; one with times on only some
#     samples is read untimed (bad_some_times.perf: its warning is checked
#     by bad_files.sh) with every sample counted;
#   - through `convert --to firefox`, the Firefox Profiler's own loader
#     agrees with `profkit top --range` on a zoomed range, and profkit reads
#     the same range back from the JSON.
. "$(dirname "$0")/lib.sh"
need_shared
D="$PROFKIT_SRC/tests/data/perf_script"
PY="$PROFKIT_SRC/tests/cli/perf_script_timed.py"
json_field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
files=("$D"/ok_*.perf "$FIX"/perf/perf-*.txt)
timed_files=()
for f in "${files[@]}"; do
  b=$(basename "$f")
  read -r kind n start end <<< "$(python3 "$PY" "$f" info)"
  "$PROFKIT" info "$f" > "$TMP/info" 2> "$TMP/err" || { fail "$b: info: $(cat "$TMP/err")"; continue; }
  if [ "$kind" = untimed ]; then
    expect_eq "$b: without times, aggregated" "aggregated" \
      "$(sed -n 's/^samples: .*(\(aggregated\) per stack and thread)$/\1/p' "$TMP/info")"
    continue
  fi
  timed_files+=("$f")
  expect_eq "$b: info says timed" "samples:      $n rows (timed, in time order)" "$(grep '^samples:' "$TMP/info")"
  "$PROFKIT" info --json "$f" > "$TMP/info.json" 2> /dev/null
  expect_eq "$b: root range from the file's first time to its last plus 1 ms" "$start $end" \
    "$(json_field '"%.3f %.3f" % (d["time_range"]["start"], d["time_range"]["end"])' < "$TMP/info.json")"
  # a sub-range against the samples whose time is in it
  r=$(python3 "$PY" "$f" range "$TMP/sub.perf")
  for v in "" "--value samples"; do
    "$PROFKIT" convert $v --range "$r" "$f" --to folded -o "$TMP/range.folded" 2> /dev/null
    "$PROFKIT" convert $v "$TMP/sub.perf" --to folded -o "$TMP/sub.folded" 2> /dev/null
    expect_files_eq "$b: convert --range $r ${v:-(default value)}" "$TMP/sub.folded" "$TMP/range.folded"
  done
  "$PROFKIT" top -n 1000 --range "$r" "$f" 2> /dev/null | tail -n +2 > "$TMP/range.top"
  "$PROFKIT" top -n 1000 "$TMP/sub.perf" 2> /dev/null | tail -n +2 > "$TMP/sub.top"
  expect_files_eq "$b: top --range $r" "$TMP/sub.top" "$TMP/range.top"
  [ -s "$TMP/sub.folded" ] && pass || fail "$b: the sub-range $r holds no sample"
done
[ "${#timed_files[@]}" -ge 10 ] && pass || fail "only ${#timed_files[@]} files read timed"

# Folded output is what the untimed reader gave (sha256 of `convert --to
# folded` and of `--value samples`, recorded at the commit before times
# were kept): aggregating timed rows changes nothing.
while read -r sum vsum name; do
  f="$D/$name"; [ -e "$f" ] || f="$FIX/perf/$name"
  expect_eq "$name: folded unchanged" "$sum" "$("$PROFKIT" convert "$f" --to folded 2> /dev/null | sha256sum | cut -c1-16)"
  expect_eq "$name: folded samples unchanged" "$vsum" \
    "$("$PROFKIT" convert --value samples "$f" --to folded 2> /dev/null | sha256sum | cut -c1-16)"
done << 'EOF'
25c61854028cbbc7 96d0ec3dc89eaf18 ok_event_modifiers.perf
109b54a796f0b8b0 be9784fab680066f ok_fields.perf
cdec78f8ab112860 003902d84b1bdc56 ok_no_blank_at_end.perf
e0d4efe3c1b42296 d3818039bd6607be ok_no_call_chains.perf
cdec78f8ab112860 003902d84b1bdc56 ok_no_newline_at_end.perf
a20c729958775fbd 359d46a0c47c4b1a perf-cycles-instructions-01.txt
cda6f0f0f869e878 1082682cd4b40f0a perf-dd-stacks-01.txt
41da53455b6ce887 41da53455b6ce887 perf-funcab-cmd-01.txt
3e0cd6e48644e15c 3e0cd6e48644e15c perf-java-stacks-02.txt
2432a83e486a3540 2432a83e486a3540 perf-js-stacks-01.txt
5eeb65696a2748d3 5eeb65696a2748d3 perf-mirageos-stacks-01.txt
2faa9363255f28b1 2faa9363255f28b1 perf-numa-stacks-01.txt
EOF

# Times on only some samples: untimed, every sample counted.
"$PROFKIT" info "$D/bad_some_times.perf" > "$TMP/info" 2> /dev/null
expect_eq "some times: aggregated" "samples:      2 rows (aggregated per stack and thread)" "$(grep '^samples:' "$TMP/info")"
expect_eq "some times: every sample" "main;leaf 3|main;other 1" \
  "$("$PROFKIT" convert --value samples "$D/bad_some_times.perf" --to folded 2> /dev/null | tr '\n' '|' | sed 's/|$//')"
expect_status "some times: --range refused" 2 "$PROFKIT" top --range 0%,50% "$D/bad_some_times.perf"

# Through the Firefox writer and the Firefox Profiler's loader.
need_loader "$TMP/loader"
for f in "$FIX/perf/perf-numa-stacks-01.txt" "$FIX/perf/perf-funcab-cmd-01.txt" "$D/ok_no_call_chains.perf"; do
  b=$(basename "$f")
  "$PROFKIT" convert "$f" --to firefox --value samples -o "$TMP/$b.json" 2> /dev/null || { fail "$b: convert --to firefox"; continue; }
  r=$(python3 "$PY" "$f" range "$TMP/sub.perf")
  "$PROFKIT" convert --value samples --range "$r" "$f" --to folded -o "$TMP/a.folded" 2> /dev/null
  "$PROFKIT" convert --value samples --range "$r" "$TMP/$b.json" --to folded -o "$TMP/b.folded" 2> /dev/null
  expect_files_eq "$b: the same range read back from the Firefox JSON" "$TMP/a.folded" "$TMP/b.folded"
  ok=0
  for try in 1 2; do # the loader's start is flaky under load (docs/testing.md)
    if python3 "$PROFKIT_SRC/tests/cli/range_oracle_compare.py" "$PROFKIT" "$CLI" "$r" "$TMP/$b.json" > "$TMP/cmp" 2>&1; then
      ok=1; break
    fi
  done
  [ $ok = 1 ] && pass || { fail "$b: the Firefox Profiler disagrees on --range $r"; cat "$TMP/cmp"; }
done
finish
