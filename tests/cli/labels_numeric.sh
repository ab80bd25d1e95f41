#!/usr/bin/env bash
# Numeric labels against Go pprof on tests/data/pprof/numlabels (written by
# gen.go beside it with pprof's profile package): size (bytes, 40 values,
# absent on some samples), pages (a count), pair (two numbers on one
# sample), mixed (numbers and strings of one key), kind (strings).
#   - `profkit tags` prints what `pprof -tags` prints, byte for byte;
#   - `top` with --tagroot/--tagleaf of each numeric key has pprof's -top
#     rows (the frames are pprof's: one per value, "1kB", "1kB,2kB",
#     "some,2kB", <unknown> without a value);
#   - a numeric key's "(none)" as the page names it (--tagignore
#     KEY=MINunit:MAXunit, its whole range) keeps what pprof keeps: the
#     samples without the key; and ranges of --tagfocus as pprof's.
. "$(dirname "$0")/lib.sh"
PPROF="$PROFKIT_TOOLS/pprof"
[ -x "$PPROF" ] || { fail "Go pprof missing: run scripts/tools.sh"; finish; }
CMP="$PROFKIT_SRC/tests/oracle/compare_top_json.py"
F="$PROFKIT_SRC/tests/data/pprof/numlabels/numlabels.pb.gz"

"$PPROF" -tags "$F" > "$TMP/go.tags" 2> /dev/null
"$PROFKIT" tags "$F" > "$TMP/pk.tags"
expect_files_eq "tags as pprof -tags" "$TMP/go.tags" "$TMP/pk.tags"

top_eq() { # top_eq SAMPLE_INDEX PPROF_UNIT_FLAG OPTION VALUE
  local si=$1 uf=$2 opt=$3 val=$4 what="top $1 --$3 $4"
  "$PROFKIT" top -q -n 0 --json --value "$si" "--$opt" "$val" "$F" > "$TMP/pk.json" 2> "$TMP/pk.err" ||
    { fail "$what: profkit failed: $(head -2 "$TMP/pk.err")"; return; }
  "$PPROF" -top -nodecount=100000 -nodefraction=0 -edgefraction=0 $uf -sample_index="$si" \
    -symbolize=none "-$opt=$val" "$F" > "$TMP/go.top" 2> /dev/null || { fail "$what: pprof failed"; return; }
  if python3 "$CMP" "$TMP/pk.json" "$TMP/go.top" > "$TMP/cmp.out"; then pass; else
    fail "$what: top differs from pprof -top:"; head -10 "$TMP/cmp.out"; fi
}
# The label frames: pprof names a number in its -unit (-unit=B: "1024B"),
# profkit as pprof's default, so these are compared on alloc_objects,
# whose counts pprof prints unscaled without -unit.
for a in "tagroot size" "tagleaf size" "tagroot pages" "tagleaf pages" "tagroot pair" "tagleaf pair" \
         "tagroot mixed" "tagleaf mixed" "tagroot size,pages" "tagleaf pages,kind"; do
  set -- $a
  top_eq alloc_objects "" "$1" "$2"
done
for si in alloc_space alloc_objects; do
  for a in "tagignore size=16bytes:25600bytes" "tagignore pages=1count:3count" \
           "tagignore pair=1024bytes:4096bytes" "tagfocus size=256bytes:400bytes" "tagfocus pair=2kb" \
           "tagfocus pair=1kb:2kb" "tagfocus mixed=1kb:" "tagfocus mixed=some" "tagfocus mixed=^some$" "tagfocus pair=1024bytes" "tagfocus pages=2count"; do
    set -- $a
    top_eq "$si" -unit=B "$1" "$2"
  done
done

# The frames named as pprof names them (a check of the oracle's own rows,
# so that the comparison above is not of two empty lists).
"$PPROF" -top -nodecount=100000 -nodefraction=0 -sample_index=alloc_space -symbolize=none -tagroot=pair "$F" 2> /dev/null > "$TMP/go.top"
for fr in "1kB,2kB" "4kB" "1kB" "<unknown>"; do
  grep -q " $fr\$" "$TMP/go.top" && pass || fail "pprof -tagroot pair has no frame $fr: $(cat "$TMP/go.top")"
  "$PROFKIT" top -n 0 --value alloc_space --tagroot pair "$F" | grep -q " $fr\$" && pass || fail "profkit --tagroot pair has no frame $fr"
done
# (none) of size: the samples without it, 14788 bytes
expect_eq "--tagignore size=16bytes:25600bytes keeps the samples without size" 14788 \
  "$("$PROFKIT" top --json --value alloc_space --tagignore size=16bytes:25600bytes "$F" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')"
finish
