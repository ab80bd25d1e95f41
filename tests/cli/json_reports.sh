#!/usr/bin/env bash
# --json on every report (info, top, tree, mem, hist, diff, traces, peek, tags, markers): each output is
# valid against docs/report.schema.json (python3-jsonschema, draft 2020-12)
# on small profiles of several formats; the validator rejects a document
# with a formatted value; text and JSON give the same numbers (top, diff).
. "$(dirname "$0")/lib.sh"
python3 -c 'import jsonschema' 2> /dev/null ||
  { fail "python3-jsonschema missing: scripts/deps.sh --test installs it"; finish; }
SCHEMA="$PROFKIT_SRC/docs/report.schema.json"
ORACLE="$PROFKIT_SRC/tests/oracle"
D="$PROFKIT_SRC/tests/data"
files=()
run() { # run NAME ARGS...: profkit ARGS > $TMP/NAME.json
  local name=$1; shift
  if "$PROFKIT" "$@" > "$TMP/$name.json" 2> "$TMP/$name.err"; then files+=("$TMP/$name.json"); pass
  else fail "$name: profkit $* failed: $(head -2 "$TMP/$name.err")"; fi
}
for f in folded/ok_simple.folded pprof/ok_full.pb gperftools/ok_le32.prof bsprof/ok_lines.bsprof dcpi/ok_canonical.dcpi; do
  n=$(basename "$f" | tr . _)
  run "info_$n" info --json "$D/$f"
  run "top_$n" top --json -n 0 "$D/$f"
  run "topcum_$n" top --json --cum --by line "$D/$f"
  run "tree_$n" tree --json "$D/$f"
  run "hist_$n" hist --json "$D/$f"
  run "diff_$n" diff --json "$D/$f" "$D/$f"
  run "gate_$n" diff --json --normalize --fail-on-increase 0 "$D/$f" "$D/$f"
  run "traces_$n" traces --json "$D/$f"
  run "traceslines_$n" traces --json -n 2 --by line "$D/$f"
  run "peek_$n" peek --json . "$D/$f"
done
run mem_bsprof mem --json -q "$D/bsprof/ok_lines.bsprof"
run tags_cpu tags --json "$D/pprof/labels/cpu.pb.gz"
run tags_heap tags --json --value alloc_objects "$D/pprof/labels/heap.pb.gz"
run tags_none tags --json "$D/folded/ok_simple.folded"
run markers_gecko markers --json -q "$D/gecko/ok_markers.json"
run markers_gecko_list markers --json --list -q "$D/gecko/ok_markers.json"
run markers_firefox_list markers --json --list -q --thread 0 "$D/firefox/ok_flags_v75.json"
run markers_none markers --json -q "$D/folded/ok_simple.folded"
run tree_bsprof_depth tree --json --depth 2 --min-percent 5 "$D/bsprof/ok_lines.bsprof"
if python3 "$ORACLE/validate_json.py" "$SCHEMA" "${files[@]}" > "$TMP/v.out"; then pass; else
  fail "outputs not valid against the schema:"; head -20 "$TMP/v.out"; fi

# The validator and the schema catch a bad document: a formatted value.
sed 's/"total":\([0-9]*\)/"total":"\1ms"/' "$TMP/top_ok_full_pb.json" > "$TMP/bad.json"
grep -q '"total":"' "$TMP/bad.json" || fail "could not make the bad document"
if python3 "$ORACLE/validate_json.py" "$SCHEMA" "$TMP/bad.json" > /dev/null; then
  fail "a top document with a formatted total passed the schema"; else pass; fi

# Each report says what it is and carries raw integers.
expect_eq "top report name" top "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["report"])' "$TMP/top_ok_simple_folded.json")"
expect_eq "folded top total" 7 "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"])' "$TMP/top_ok_simple_folded.json")"

# Text and JSON agree (count values, which the text prints as integers).
if [ -d "$FIX" ]; then
  REAL="$FIX/gperftools-real/real1.prof"
  GZ="$FIX/gperftools-real/gzip.prof"
  "$PROFKIT" top -n 0 --value samples "$REAL" > "$TMP/t.txt"
  "$PROFKIT" top -n 0 --value samples --json "$REAL" > "$TMP/t.json"
  if python3 "$ORACLE/text_vs_json.py" top "$TMP/t.txt" "$TMP/t.json" > "$TMP/c.out"; then pass; else
    fail "top text vs JSON:"; head "$TMP/c.out"; fi
  "$PROFKIT" diff -n 0 --value samples --by file "$REAL" "$GZ" > "$TMP/d.txt"
  "$PROFKIT" diff -n 0 --value samples --by file --json "$REAL" "$GZ" > "$TMP/d.json"
  if python3 "$ORACLE/text_vs_json.py" diff "$TMP/d.txt" "$TMP/d.json" > "$TMP/c.out"; then pass; else
    fail "diff text vs JSON:"; head "$TMP/c.out"; fi
fi
"$PROFKIT" top -n 0 "$D/folded/ok_simple.folded" > "$TMP/t.txt"
"$PROFKIT" top -n 0 --json "$D/folded/ok_simple.folded" > "$TMP/t.json"
if python3 "$ORACLE/text_vs_json.py" top "$TMP/t.txt" "$TMP/t.json" > "$TMP/c.out"; then pass; else
  fail "folded top text vs JSON:"; head "$TMP/c.out"; fi
finish
