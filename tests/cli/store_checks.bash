# What the store's tests check on each engine (sourced by store_sqlite.sh and
# store_clickhouse.sh after lib.sh): reports from the store equal, byte for
# byte, the same reports on the files merged.

# The reports compared (hist on bsprof: see compare_reports).
STORE_REPORTS=("top -n 0" "top -n 0 --cum" "top -n 0 --json" "top -n 5 --min-percent 1"
  "top -n 0 --by line" "top -n 0 --by file" "top -n 0 --by address" "tree" "traces"
  "peek ." "hist" "convert --to folded" "info --json")

# compare_reports WHAT DB "SELECTION" FILE...: every report of STORE_REPORTS
# with --db DB SELECTION against the same on FILE... merged.
compare_reports() {
  local what=$1 db=$2 sel=$3; shift 3
  local r reports=("${STORE_REPORTS[@]}")
  if [ $# -eq 0 ]; then fail "$what: no files to compare with"; return; fi
  # A Roku profile's files are read without matching frees unless a report
  # shows in-use values (README): their hist columns are 0 from files, the
  # store has them; compared where the files are read with them.
  if grep -q bsprof <<< "$*"; then reports+=("mem" "hist --value inuse_space"); fi
  for r in "${reports[@]}"; do
    if [ "$r" = hist ] && grep -q bsprof <<< "$*"; then continue; fi
    # shellcheck disable=SC2086
    "$PROFKIT" $r -q --db "$db" $sel > "$TMP/from_db" 2> "$TMP/from_db.err"; local ra=$?
    # shellcheck disable=SC2086
    "$PROFKIT" $r -q ${FILE_OPTS:-} "$@" > "$TMP/from_files" 2> "$TMP/from_files.err"; local rb=$?
    if [ "$r" = "info --json" ]; then
      # info counts rows of the model (samples, stacks), which the store
      # keeps summed: compare what it says about values and threads
      for f in from_db from_files; do
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [t.pop("sample_rows", 0) for t in d.get("threads", [])]; print(json.dumps({k: d.get(k) for k in ("value_types","threads","format")}, sort_keys=True))' "$TMP/$f" > "$TMP/$f.x" 2>&1
        mv "$TMP/$f.x" "$TMP/$f"
      done
    fi
    if [ $ra -eq 0 ] && [ $rb -eq 0 ] && cmp -s "$TMP/from_db" "$TMP/from_files"; then
      pass
    else
      fail "$what: '$r' from the store (exit $ra) differs from the files merged (exit $rb) $(head -c 300 "$TMP/from_db.err")"
      diff "$TMP/from_files" "$TMP/from_db" | head -8
    fi
  done
}

# stored_files DB [SELECTION...]: the files of the selected profiles, oldest first.
stored_files() {
  local db=$1; shift
  "$PROFKIT" store ls "$db" "$@" | awk 'length($1) == 16 && $1 ~ /^[0-9a-f]+$/ { print $4 }'
}

# readable FILE...: those profkit reads.
readable() {
  local f
  for f in "$@"; do "$PROFKIT" info -q "$f" > /dev/null 2>&1 && echo "$f"; done
}

# store_suite DB: the whole comparison on one (empty) store.
store_suite() {
  local db=$1 fmt files kept
  # every format of tests/data, one store each for a clear message, then all in one
  for fmt in "$PROFKIT_SRC"/tests/data/*/; do
    fmt=$(basename "$fmt")
    # shellcheck disable=SC2046
    files=$(readable $(ls "$PROFKIT_SRC"/tests/data/"$fmt"/ok_* | grep -v '\.expect$'))
    # shellcheck disable=SC2086
    "$PROFKIT" store add "$db" -q --label set="$fmt" $files || fail "$fmt: store add failed"
    # files whose content another already has are one profile (by content)
    kept=$(stored_files "$db" --where set="$fmt")
    # shellcheck disable=SC2086
    compare_reports "tests/data/$fmt" "$db" "--where set=$fmt" $kept
  done
  if [ -d "$FIX" ]; then
    for fmt in firefox folded gperftools-real perf pprof; do
      # shellcheck disable=SC2046
      files=$(readable $(ls "$FIX/$fmt"/* | grep -Ev '\.(string|top|traces|text|collapsed|out)$|LICENSE|results'))
      # The pprof fixtures are of several programs whose binaries are not
      # here: merged before symbolizing (files), one program's mapping
      # names another's addresses; the store symbolizes each file alone.
      # Compared unsymbolized on both sides.
      FILE_OPTS=
      [ "$fmt" = pprof ] && FILE_OPTS=--no-symbolize
      # shellcheck disable=SC2086
      "$PROFKIT" store add "$db" -q $FILE_OPTS --label set="fixture-$fmt" $files || fail "fixtures/$fmt: store add failed"
      kept=$(stored_files "$db" --where set="fixture-$fmt")
      # shellcheck disable=SC2086
      compare_reports "fixtures/$fmt" "$db" "--where set=fixture-$fmt" $kept
      FILE_OPTS=
    done
  else
    echo "note: $FIX is absent: real fixtures not compared"
  fi
  # several formats merged: pprof, gperftools, folded, Firefox and perf together
  kept=$(stored_files "$db" --where 'set~^(pprof|gperftools|folded|firefox|fixture-perf)$')
  # shellcheck disable=SC2086
  compare_reports "mixed formats" "$db" "--where set~^(pprof|gperftools|folded|firefox|fixture-perf)$" $kept

  # generated profiles with labels and times
  python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$TMP/gen" 40 200 7 > /dev/null
  local name host version day
  while IFS=$'\t' read -r name host version day; do
    touch -d "2026-11-0${day}T12:00:00Z" "$name"
    "$PROFKIT" store add "$db" -q --label "$host" --label "$version" --label set=gen "$name" ||
      fail "gen: store add $name failed"
  done < "$TMP/gen/labels.tsv"
  gen_files() { # gen_files AWK-CONDITION on host ($2), version ($3), day ($4)
    awk -F'\t' "$1 { print \$1 }" "$TMP/gen/labels.tsv"
  }
  # shellcheck disable=SC2046
  compare_reports "generated, all" "$db" "--where set=gen" $(gen_files 1)
  # shellcheck disable=SC2046
  compare_reports "generated, version=1.3" "$db" "--where set=gen --where version=1.3" $(gen_files '$3 == "version=1.3"')
  # shellcheck disable=SC2046
  compare_reports "generated, version!=1.3" "$db" "--where set=gen --where version!=1.3" $(gen_files '$3 != "version=1.3"')
  # shellcheck disable=SC2046
  compare_reports "generated, host~^h0[0-4]$" "$db" "--where set=gen --where host~^h0[0-4]$" $(gen_files '$2 ~ /^host=h0[0-4]$/')
  # shellcheck disable=SC2046
  compare_reports "generated, days 3 and 4" "$db" "--where set=gen --since 2026-11-03 --until 2026-11-05" $(gen_files '$4 == 3 || $4 == 4')
  expect_eq "ls counts the selected profiles" "$(gen_files '$4 >= 7' | wc -l) profiles" \
    "$("$PROFKIT" store ls "$db" --where set=gen --since 2026-11-07 | tail -1)"
  expect_status "no profile matches: bad input" 1 "$PROFKIT" top --db "$db" --where version=9.9
  grep -q "no profile in the store matches" "$TMP/err" && pass || fail "no match: message: $(cat "$TMP/err")"

  # flame: the SVG from the store equals the files' (its colours come from
  # the names, the same in every run); the page holds the same data
  # in another order (its string table is in the order the profile met the
  # names), so it is checked for its shape, value types and threads
  local ext
  for ext in html svg; do
    # shellcheck disable=SC2046
    "$PROFKIT" flame --title T -o "$TMP/files.$ext" $(gen_files '$3 == "version=1.3"') 2> /dev/null
    "$PROFKIT" flame --title T -o "$TMP/db.$ext" --db "$db" --where set=gen --where version=1.3 2> /dev/null
  done
  if [ -s "$TMP/files.svg" ] && cmp -s "$TMP/files.svg" "$TMP/db.svg"; then pass; else fail "flame .svg from the store differs from the files'"; fi
  # the page from the store is the same bytes in every run (ClickHouse
  # sends rows in no fixed order; the load orders them by id)
  local run
  for run in 2 3; do
    "$PROFKIT" flame --title T -o "$TMP/db$run.html" --db "$db" --where set=gen --where version=1.3 2> /dev/null
    expect_files_eq "flame's page from the store, run $run: the bytes of run 1" "$TMP/db.html" "$TMP/db$run.html"
  done
  local expr='[d["values"], [t["name"] for t in d["threads"]], d["default_value"], d["format"]]'
  expect_eq "flame's page from the store: value types, threads, format" \
    "$(python3 "$PROFKIT_SRC/tests/cli/flame_check.py" "$TMP/files.html" --print "$expr" 2>&1)" \
    "$(python3 "$PROFKIT_SRC/tests/cli/flame_check.py" "$TMP/db.html" --print "$expr" 2>&1)"

  # diff between two selections equals diff of the two files
  local a b
  a=$(gen_files 'NR == 1'); b=$(gen_files 'NR == 2')
  "$PROFKIT" diff -n 0 --db "$db" --base-where file="$a" --new-where file="$b" > "$TMP/d1" 2>&1
  "$PROFKIT" diff -n 0 "$a" "$b" > "$TMP/d2" 2>&1
  expect_files_eq "diff --base-where/--new-where equals diff of the files" "$TMP/d2" "$TMP/d1"
  # and so does flame's diff page and SVG of the two selections
  for ext in html svg; do
    "$PROFKIT" flame --title T --diff -o "$TMP/dfiles.$ext" "$a" "$b" 2> /dev/null
    "$PROFKIT" flame --title T -o "$TMP/ddb.$ext" --db "$db" --base-where file="$a" --new-where file="$b" 2> /dev/null
  done
  "$PROFKIT" flame --title T -o "$TMP/ddb2.html" --db "$db" --base-where file="$a" --new-where file="$b" 2> /dev/null
  expect_files_eq "flame --base-where/--new-where page, run 2: the bytes of run 1" "$TMP/ddb.html" "$TMP/ddb2.html"
  if [ -s "$TMP/dfiles.svg" ] && cmp -s "$TMP/dfiles.svg" "$TMP/ddb.svg"; then pass; else fail "flame --base-where/--new-where .svg differs from flame --diff of the files"; fi
  expr='[d["diff"], d["values"], [t["name"] for t in d["threads"]], sum(d["threads"][0]["tree"]["self"][0]), sum(d["threads"][0]["tree"]["base_self"][0])]'
  expect_eq "flame --base-where/--new-where page: a diff, its values and totals as the files'" \
    "$(python3 "$PROFKIT_SRC/tests/cli/flame_check.py" "$TMP/dfiles.html" --print "$expr" 2>&1)" \
    "$(python3 "$PROFKIT_SRC/tests/cli/flame_check.py" "$TMP/ddb.html" --print "$expr" 2>&1)"
  expect_status "flame --base-where without --new-where" 2 "$PROFKIT" flame --db "$db" --base-where file="$a" -o "$TMP/x.html"

  # trend: each point (per version, per day; a function's cum or the
  # total) is what top says of that group's profiles
  local fn
  fn=$("$PROFKIT" top --db "$db" --where set=gen --json -n 1 | python3 -c 'import json, sys; print(json.load(sys.stdin)["rows"][0]["name"])')
  for run in "version ^$fn\$" "day"; do
    read -r by f <<< "$run"
    {
      "$PROFKIT" trend --db "$db" --where set=gen --by "$by" ${f:+--function "$f"} --json > "$TMP/trend.json" 2> "$TMP/err" ||
        fail "trend --by $by ${f:+--function $f}: $(cat "$TMP/err")"
      expect_eq "trend --by $by ${f:+--function $f}: each point as top over its group" "ok" "$(python3 - "$PROFKIT" "$db" "$by" "$fn" "$f" "$TMP/trend.json" << 'PY'
import datetime, json, subprocess, sys
profkit, db, by, fn, f, path = sys.argv[1:]
d = json.load(open(path))
bad = []
if d["report"] != "trend" or d["by"] != by or not d["points"]:
    bad.append("header")
for p in d["points"]:
    sel = ["--where", "set=gen"]
    if by == "day":
        day = datetime.date.fromisoformat(p["group"])
        sel += ["--since", str(day), "--until", str(day + datetime.timedelta(days=1))]
    else:
        sel += ["--where", by + "=" + p["group"]]
    top = json.loads(subprocess.run([profkit, "top", "--db", db, "--json", "-n", "0"] + sel,
                                    capture_output=True, text=True, check=True).stdout)
    cum = sum(r["cum"] for r in top["rows"] if r["name"] == fn) if f else top["total"]
    n = json.loads(subprocess.run([profkit, "store", "ls", db, "--json"] + sel, capture_output=True, text=True,
                                  check=True).stdout)["count"]
    if (p["value"], p["total"], p["profiles"]) != (cum, top["total"], n):
        bad.append("%s: trend %s/%s/%s, top %s/%s/%s" % (p["group"], p["value"], p["total"], p["profiles"], cum, top["total"], n))
print("; ".join(bad) or "ok")
PY
)"
    }
  done
  "$PROFKIT" trend --db "$db" --where set=gen --by version --json | python3 -c 'import json, sys; [print(p["group"]) for p in json.load(sys.stdin)["points"]]' > "$TMP/groups"
  awk -F'\t' '{ sub(/^version=/, "", $3); print $3 }' "$TMP/gen/labels.tsv" | sort -uV > "$TMP/groups.want"
  expect_files_eq "trend --by version: every version, in natural order" "$TMP/groups.want" "$TMP/groups"
  expect_status "trend --by a key no profile has" 1 "$PROFKIT" trend --db "$db" --by vesion
  grep -q "no profile has a label 'vesion'; the keys in the store are: " "$TMP/err" && pass || fail "trend --by vesion: $(cat "$TMP/err")"

  # idempotent: adding the same files again adds nothing
  local before after
  before=$("$PROFKIT" store ls "$db" | tail -1)
  # shellcheck disable=SC2046
  "$PROFKIT" store add "$db" $(gen_files 1) 2> "$TMP/again.err" || fail "re-add failed: $(grep -v "already in the store" "$TMP/again.err" | head -3)"
  after=$("$PROFKIT" store ls "$db" | tail -1)
  expect_eq "adding the same files again adds nothing" "$before" "$after"
  expect_eq "each file again is named as already there" 40 "$(grep -c 'already in the store' "$TMP/again.err")"
  # shellcheck disable=SC2046
  compare_reports "generated, all, after adding again" "$db" "--where set=gen" $(gen_files 1)

  # rm: the removed profiles are gone from every answer
  "$PROFKIT" store rm "$db" --where set=gen --where version=1.3 > "$TMP/rm.out" || fail "store rm failed"
  expect_eq "rm says how many" "removed 2 profiles" "$(cat "$TMP/rm.out")"
  # shellcheck disable=SC2046
  compare_reports "generated, after rm version=1.3" "$db" "--where set=gen" $(gen_files '$3 != "version=1.3"')
  expect_eq "ls after rm" "0 profiles" "$("$PROFKIT" store ls "$db" --where version=1.3 | tail -1)"
  # and a removed profile can be added again
  # shellcheck disable=SC2046
  "$PROFKIT" store add "$db" -q --label set=gen --label version=1.3 $(gen_files '$3 == "version=1.3"')
  expect_eq "re-added after rm" "2 profiles" "$("$PROFKIT" store ls "$db" --where version=1.3 | tail -1)"
}

# store_day_to_day DB: add --keep-going, add's report, ls --json, label,
# an unknown --where key, rm --older-than, on one (empty) store.
store_day_to_day() {
  local db=$1 d="$PROFKIT_SRC/tests/data"
  local good=("$d/folded/ok_simple.folded" "$d/pprof/ok_full.pb" "$d/gperftools/$(ls "$d/gperftools" | grep '^ok_' | head -1)")
  local bad="$d/pprof/bad_len_past_end.pb"
  # one unreadable file among readable ones: without --keep-going the add
  # stops there; with it, the rest go in, the bad one is named, exit 1
  "$PROFKIT" store add "$db" -q "${good[0]}" "$bad" "${good[1]}" > /dev/null 2> "$TMP/kg.err"
  expect_eq "add stops at an unreadable file" 1 "$(stored_files "$db" | wc -l)"
  "$PROFKIT" store add "$db" --keep-going "$bad" "${good[@]}" > "$TMP/kg.out" 2> "$TMP/kg.err"; local rc=$?
  expect_eq "add --keep-going exits 1 when a file failed" 1 "$rc"
  expect_eq "add --keep-going adds every readable file" 3 "$(stored_files "$db" | wc -l)"
  grep -q "$bad: not added" "$TMP/kg.err" && pass || fail "keep-going: the failed file is not named: $(cat "$TMP/kg.err")"
  grep -q "1 of 4 files not added" "$TMP/kg.err" && pass || fail "keep-going: no count: $(cat "$TMP/kg.err")"
  # add prints what it added (those not already there), as ls shows them
  expect_eq "add prints each profile it added" 2 "$(grep -c '^added [0-9a-f]\{16\} ' "$TMP/kg.out")"
  grep -q "^    labels: .*format=pprof" "$TMP/kg.out" && pass || fail "add: no labels printed: $(head -5 "$TMP/kg.out")"
  # ls --json: one document, the same profiles and labels as the text
  "$PROFKIT" store ls "$db" --json > "$TMP/ls.json" || fail "ls --json failed"
  python3 - "$TMP/ls.json" <<'PY' > "$TMP/ls.check" 2>&1 || fail "ls --json: $(cat "$TMP/ls.check")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["report"] == "store_ls" and d["count"] == len(d["profiles"]) == 3, d
for p in d["profiles"]:
    assert len(p["id"]) == 16 and p["labels"]["format"] and p["file"] in p["labels"]["file"], p
    assert all(set(t) == {"type", "unit", "value"} for t in p["totals"]), p
PY
  [ -s "$TMP/ls.check" ] || pass
  diff <("$PROFKIT" store ls "$db" | awk 'length($1) == 16 { print $1 }') \
       <(python3 -c 'import json,sys; [print(p["id"]) for p in json.load(open(sys.argv[1]))["profiles"]]' "$TMP/ls.json") > /dev/null &&
    pass || fail "ls --json lists other profiles than ls"
  # label: by --where and by id; the id does not change, queries see the new labels
  local ids_before id
  ids_before=$("$PROFKIT" store ls "$db" | awk 'length($1) == 16 { print $1 }' | sort)
  "$PROFKIT" store label "$db" --where format=pprof --set version=1.8 --set keep=yes > "$TMP/lab.out" || fail "label --where failed"
  expect_eq "label says how many" "labelled 1 profile" "$(cat "$TMP/lab.out")"
  expect_eq "label: the selection by the new label" 1 "$(stored_files "$db" --where version=1.8 | wc -l)"
  expect_eq "label: ids unchanged" "$ids_before" "$("$PROFKIT" store ls "$db" | awk 'length($1) == 16 { print $1 }' | sort)"
  "$PROFKIT" store label "$db" --where version=1.8 --set version=1.9 > /dev/null || fail "label: relabel failed"
  expect_eq "label: the old value is gone" 0 "$(stored_files "$db" --where version=1.8 2> /dev/null | wc -l)"
  expect_eq "label: the new value" 1 "$(stored_files "$db" --where version=1.9 | wc -l)"
  id=$("$PROFKIT" store ls "$db" --where version=1.9 | awk 'length($1) == 16 { print $1 }')
  "$PROFKIT" store label "$db" "$id" --unset keep > /dev/null || fail "label ID --unset failed"
  expect_status "label: a removed key is unknown" 2 "$PROFKIT" store ls "$db" --where keep=yes
  expect_status "label: a bad id" 2 "$PROFKIT" store label "$db" 12345 --set a=b
  expect_status "label: nothing to set" 2 "$PROFKIT" store label "$db" "$id"
  # a --where key no profile has names the keys there are
  expect_status "an unknown --where key" 2 "$PROFKIT" store ls "$db" --where vesion=1.9
  grep -q "no profile has a label 'vesion'; the keys in the store are: file, format,.* version" "$TMP/err" && pass ||
    fail "unknown key: $(cat "$TMP/err")"
  expect_status "an unknown --where key in a report" 2 "$PROFKIT" top --db "$db" --where vesion=1.9
  # rm --older-than: the profiles older than the duration; not the new ones
  expect_status "rm --older-than a bad duration" 2 "$PROFKIT" store rm "$db" --older-than 3x
  local n_old n_all
  n_all=$(stored_files "$db" | wc -l)
  n_old=$(stored_files "$db" --until "$(($(date +%s) - 3600))" | wc -l)
  "$PROFKIT" store rm "$db" --older-than 1h > "$TMP/rm.out" || fail "rm --older-than failed"
  expect_eq "rm --older-than removes the older profiles" "removed $n_old profile$([ "$n_old" = 1 ] || echo s)" "$(cat "$TMP/rm.out")"
  expect_eq "rm --older-than keeps the newer" $((n_all - n_old)) "$(stored_files "$db" | wc -l)"
}
