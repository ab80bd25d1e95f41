#!/usr/bin/env bash
# Sample labels (pprof tags) against Go pprof on labelled Go profiles: a CPU
# profile whose samples carry function=slow|fast (pprof.Do) and a heap
# profile with the runtime's numeric label `bytes`, both recorded by
# tests/data/pprof/labels/gen.go (the files beside it; when the Go toolchain
# is here, the test also records fresh ones and checks them the same way).
#   - `profkit tags` prints what `pprof -tags` prints, byte for byte, for
#     every value type and under --tagfocus/--tagignore/--tagshow/--taghide;
#   - `top` with --tagfocus, --tagignore (keys, regular expressions and
#     numeric ranges), --tagroot, --tagleaf has pprof's -top values per
#     function (compare_top_json.py; a --tagroot/--tagleaf frame without a
#     value is <unknown> in both, names compared as printed);
#   - pprof -> pprof keeps the labels (pprof -tags of the output is the
#     input's), also after a merge and after --tagfocus;
#   - the store keeps them (store add, then reports and pprof from --db);
#   - a format without labels says so once; info lists the keys; bad
#     options are usage errors naming the flag.
. "$(dirname "$0")/lib.sh"
PPROF="$PROFKIT_TOOLS/pprof"
[ -x "$PPROF" ] || { fail "Go pprof missing: run scripts/tools.sh"; finish; }
CMP="$PROFKIT_SRC/tests/oracle/compare_top_json.py"
D="$PROFKIT_SRC/tests/data/pprof/labels"
export GOCACHE="$TMP/gocache" GOPATH=/usr/share/gocode GO111MODULE=off GOPROXY=off GOFLAGS=

tags_eq() { # tags_eq WHAT FILE PPROF_FLAGS... -- PROFKIT_FLAGS...
  local what=$1 f=$2; shift 2
  local go=() pk=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do go+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  pk=("$@")
  "$PPROF" -tags "${go[@]}" "$f" > "$TMP/go.tags" 2> /dev/null || { fail "$what: pprof failed"; return; }
  "$PROFKIT" tags "${pk[@]}" "$f" > "$TMP/pk.tags" 2> "$TMP/pk.err" ||
    { fail "$what: profkit failed: $(head -2 "$TMP/pk.err")"; return; }
  expect_files_eq "$what: profkit tags differs from pprof -tags" "$TMP/go.tags" "$TMP/pk.tags"
}

top_eq() { # top_eq WHAT FILE UNIT SAMPLE_INDEX GO_FLAG PK_FLAG VALUE
  local what=$1 f=$2 unit=$3 si=$4 gof=$5 pkf=$6 val=$7
  "$PROFKIT" top -n 0 --json --value "$si" "--$pkf" "$val" "$f" > "$TMP/pk.json" 2> "$TMP/pk.err" ||
    { fail "$what: profkit failed: $(head -2 "$TMP/pk.err")"; return; }
  "$PPROF" -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -unit="$unit" \
    -sample_index="$si" -symbolize=none "-$gof=$val" "$f" 2> /dev/null |
    cat > "$TMP/go.top" || { fail "$what: pprof failed"; return; }
  if python3 "$CMP" "$TMP/pk.json" "$TMP/go.top" > "$TMP/cmp.out"; then pass; else
    fail "$what: top differs from pprof -top:"; head -10 "$TMP/cmp.out"; fi
}

check_cpu() { # the CPU profile with function=slow|fast
  local f=$1 n=$2
  tags_eq "$n tags" "$f"
  tags_eq "$n tags samples" "$f" -sample_index=samples -- --value samples
  tags_eq "$n tags tagfocus" "$f" -tagfocus=function=slow -- --tagfocus function=slow
  tags_eq "$n tags taghide" "$f" -taghide=func -- --taghide func
  for a in "tagfocus function=slow" "tagfocus function=fast" "tagignore function=slow" \
           "tagfocus function=^s" "tagfocus function=nothing" "tagfocus function:slo" \
           "tagfocus slow,fast" "tagignore other=x" "tagroot function" "tagleaf function" \
           "tagroot function,other"; do
    set -- $a
    top_eq "$n top --$1 $2" "$f" ns cpu "$1" "$1" "$2"
  done
  # pprof -> pprof keeps the labels; so does a merge (of the file with itself)
  "$PROFKIT" convert "$f" -o "$TMP/rt.pb.gz"
  expect_files_eq "$n pprof -tags after pprof -> pprof" <("$PPROF" -tags "$f" 2>/dev/null) \
    <("$PPROF" -tags "$TMP/rt.pb.gz" 2>/dev/null)
  "$PROFKIT" convert "$f" "$f" -o "$TMP/merged.pb.gz"
  "$PPROF" -proto "$f" "$f" > "$TMP/go_merged.pb.gz" 2> /dev/null
  expect_files_eq "$n pprof -tags after a merge" <("$PPROF" -tags "$TMP/go_merged.pb.gz" 2>/dev/null) \
    <("$PPROF" -tags "$TMP/merged.pb.gz" 2>/dev/null)
  "$PROFKIT" convert --tagfocus function=fast "$f" -o "$TMP/fast.pb.gz"
  expect_files_eq "$n pprof -tags after convert --tagfocus" \
    <("$PPROF" -tags -tagfocus=function=fast "$f" 2>/dev/null) <("$PPROF" -tags "$TMP/fast.pb.gz" 2>/dev/null)
  # --json: the text's numbers
  "$PROFKIT" tags --json "$f" > "$TMP/t.json"
  local slow
  slow=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
k = [k for k in d["keys"] if k["key"] == "function"][0]
assert k["total"] == sum(v["total"] for v in k["values"])
print([v["total"] for v in k["values"] if v["value"] == "slow"][0])' "$TMP/t.json")
  expect_eq "$n tags --json slow = top --tagfocus total" "$slow" \
    "$("$PROFKIT" top --json --tagfocus function=slow "$f" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')"
}

check_heap() { # the heap profile with the numeric label bytes
  local f=$1 n=$2
  for si in inuse_space inuse_objects alloc_space alloc_objects; do
    tags_eq "$n tags $si" "$f" -sample_index=$si -- --value $si
  done
  tags_eq "$n tags tagfocus range" "$f" -tagfocus=bytes=1kb: -- --tagfocus bytes=1kb:
  for a in "tagfocus bytes=64b" "tagfocus bytes=1kb:1mb" "tagfocus bytes=2kb:" "tagfocus bytes=:2kb" \
           "tagignore bytes=:100b" "tagfocus 40kb" "tagfocus bytes=64" "tagfocus other=1kb:" \
           "tagroot bytes" "tagleaf bytes"; do
    set -- $a
    for si in inuse_space alloc_objects; do
      top_eq "$n top $si --$1 $2" "$f" B "$si" "$1" "$1" "$2"
    done
  done
  "$PROFKIT" convert "$f" -o "$TMP/rt.pb.gz"
  expect_files_eq "$n pprof -tags after pprof -> pprof" <("$PPROF" -tags "$f" 2>/dev/null) \
    <("$PPROF" -tags "$TMP/rt.pb.gz" 2>/dev/null)
}

# A hand-made file: string labels, numbers with and without units, a label
# with neither (dropped, as Go drops it), one stack with two label sets.
tags_eq "ok_labels tags" "$PROFKIT_SRC/tests/data/pprof/ok_labels.pb"
expect_eq "ok_labels: one stack, two label sets, two rows" 2 \
  "$("$PROFKIT" info --json "$PROFKIT_SRC/tests/data/pprof/ok_labels.pb" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sample_rows"])')"
"$PROFKIT" convert "$PROFKIT_SRC/tests/data/pprof/ok_labels.pb" -o "$TMP/ok.pb"
expect_files_eq "ok_labels pprof -tags after pprof -> pprof" \
  <("$PPROF" -tags "$PROFKIT_SRC/tests/data/pprof/ok_labels.pb" 2>/dev/null) <("$PPROF" -tags "$TMP/ok.pb" 2>/dev/null)

check_cpu "$D/cpu.pb.gz" cpu
check_heap "$D/heap.pb.gz" heap

# The figures of the files: slow is most of the labelled time.
"$PROFKIT" tags "$D/cpu.pb.gz" > "$TMP/t.txt"
expect_eq "cpu tags lists slow then fast" "slow fast" "$(awk 'NR>1 && NF {printf "%s%s", s, $NF; s=" "}' "$TMP/t.txt")"

# The store keeps the labels: tags, top --tagfocus and a pprof written from
# a store selection are the file's; removing the profiles leaves no label
# set and none of their strings behind.
DB="$TMP/labels.sqlite"
"$PROFKIT" store add -q "$DB" "$D/cpu.pb.gz" "$D/heap.pb.gz" "$PROFKIT_SRC/tests/data/pprof/ok_labels.pb" > /dev/null ||
  fail "store add failed"
for f in "$D/cpu.pb.gz" "$D/heap.pb.gz" "$PROFKIT_SRC/tests/data/pprof/ok_labels.pb"; do
  expect_files_eq "store: tags of $(basename "$f")" <("$PROFKIT" tags "$f") <("$PROFKIT" tags --db "$DB" --where "file=$f")
  "$PROFKIT" convert --db "$DB" --where "file=$f" -o "$TMP/st.pb.gz"
  expect_files_eq "store: pprof -tags of a pprof written from the store, $(basename "$f")" \
    <("$PPROF" -tags "$f" 2>/dev/null) <("$PPROF" -tags "$TMP/st.pb.gz" 2>/dev/null)
done
expect_files_eq "store: top --tagfocus" <("$PROFKIT" top -n 0 --tagfocus function=slow "$D/cpu.pb.gz") \
  <("$PROFKIT" top -n 0 --tagfocus function=slow --db "$DB" --where "file=$D/cpu.pb.gz")
"$PROFKIT" store rm "$DB" --where 'file~.' > /dev/null
expect_eq "store: rm of everything leaves no label set nor string" "0 0" \
  "$(python3 -c 'import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); print(*[d.execute("SELECT count(*) FROM " + t).fetchone()[0] for t in ("labelsets", "strings")])' "$DB")"

# A format without labels says so once, and what it leaves out.
"$PROFKIT" convert --to folded "$D/cpu.pb.gz" -o "$TMP/x.folded" 2> "$TMP/w.err"
expect_eq "folded: one warning line" 1 "$(grep -c 'has no sample labels' "$TMP/w.err")"
grep -q 'folded has no sample labels: the labels of [0-9]* sample rows (keys: function) are left out' "$TMP/w.err" &&
  pass || fail "folded warning: $(cat "$TMP/w.err")"
"$PROFKIT" convert "$D/cpu.pb.gz" -o "$TMP/y.pb.gz" 2> "$TMP/w.err"
expect_eq "pprof writes labels without a warning" 0 "$(grep -c 'sample labels' "$TMP/w.err")"

# info lists the keys and their value counts.
"$PROFKIT" info "$D/cpu.pb.gz" > "$TMP/info.txt"
grep -q '^  function: 2 values$' "$TMP/info.txt" && pass || fail "info: $(grep -A2 labels "$TMP/info.txt")"
expect_eq "info --json labels" "[{'key': 'function', 'values': 2}]" \
  "$("$PROFKIT" info --json "$D/cpu.pb.gz" | python3 -c 'import json,sys; print(json.load(sys.stdin)["labels"])')"
expect_eq "info --json without labels" "[]" \
  "$("$PROFKIT" info --json "$PROFKIT_SRC/tests/data/pprof/ok_minimal.pb" | python3 -c 'import json,sys; print(json.load(sys.stdin)["labels"])')"

# Bad options are usage errors naming the flag.
expect_status "bad --tagfocus regexp" 2 "$PROFKIT" top --tagfocus 'function=(' "$D/cpu.pb.gz"
grep -q -- "--tagfocus: bad regular expression '('" "$TMP/err" && pass || fail "tagfocus message: $(cat "$TMP/err")"
expect_status "bad --taghide regexp" 2 "$PROFKIT" tags --taghide '[' "$D/cpu.pb.gz"
grep -q -- "--taghide: bad regular expression" "$TMP/err" && pass || fail "taghide message: $(cat "$TMP/err")"
expect_status "--tagfocus number past 64 bits" 2 "$PROFKIT" top --tagfocus 'bytes=99999999999999999999b' "$D/heap.pb.gz"
grep -q -- "--tagfocus: the number in '99999999999999999999b' does not fit in 64 bits" "$TMP/err" &&
  pass || fail "range message: $(cat "$TMP/err")"

# Fresh recordings, when the Go toolchain is here (it builds gen.go with the
# standard library only).
if command -v go > /dev/null && (cd "$TMP" && go build -o gen "$D/gen.go") 2> "$TMP/go.err"; then
  (cd "$TMP" && ./gen fresh_cpu.pb.gz fresh_heap.pb.gz)
  "$PPROF" -tags "$TMP/fresh_cpu.pb.gz" 2>/dev/null | grep -q ': slow$' && pass || fail "fresh cpu profile has no slow label"
  check_cpu "$TMP/fresh_cpu.pb.gz" fresh-cpu
  check_heap "$TMP/fresh_heap.pb.gz" fresh-heap
else
  echo "note: no Go toolchain here; the recorded files alone were checked"
fi
finish
