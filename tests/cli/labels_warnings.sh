#!/usr/bin/env bash
# A label option that matched no sample prints pprof's warning ("TagRoot
# expression matched no samples", its warnNoMatches) on stderr, with the
# flag and its value, once, and only when Go pprof prints it for the same
# options on the same file (tests/data/pprof/labels): the option names of
# profkit's warnings are those of pprof's, in pprof's order. --quiet drops
# them; --strict makes the first an error.
. "$(dirname "$0")/lib.sh"
PPROF="$PROFKIT_TOOLS/pprof"
[ -x "$PPROF" ] || { fail "Go pprof missing: run scripts/tools.sh"; finish; }
D="$PROFKIT_SRC/tests/data/pprof/labels"

warn_eq() { # warn_eq FILE OPTION=VALUE... : pprof's warnings and profkit's, in order
  local f=$1; shift
  local go=() pk=() a k
  for a in "$@"; do
    k=${a%%=*}
    go+=("-$a"); pk+=("--${k//_/-}" "${a#*=}")
  done
  "$PPROF" -top -symbolize=none "${go[@]}" "$f" 2> "$TMP/go.err" > /dev/null
  "$PROFKIT" top "${pk[@]}" "$f" 2> "$TMP/pk.err" > /dev/null || { fail "$*: profkit failed: $(head -2 "$TMP/pk.err")"; return; }
  local want got
  # pprof: "Focus expression matched no samples", "tagfocus:Interpreted '64b' as range, not regexp"
  want=$(sed -n -e 's/^\([A-Za-z]*\) expression matched no samples$/\1/p' \
                -e "s/^\([a-z]*\):Interpreted '\(.*\)' as range, not regexp\$/range \1 \2/p" "$TMP/go.err" | tr '\n' ' ')
  # profkit: the same, with the flag and its value
  got=$(sed -n -e "s/^profkit: warning: \([A-Za-z]*\) expression matched no samples (--[a-z-]* '.*')\$/\1/p" \
               -e "s/^profkit: warning: Interpreted '\(.*\)' as range, not regexp (--\([a-z]*\) '.*')\$/range \2 \1/p" "$TMP/pk.err" | tr '\n' ' ')
  expect_eq "$(basename "$f") $*: warnings as pprof's" "$want" "$got"
  expect_eq "$(basename "$f") $*: no other message" "" "$(grep -v "expression matched no samples\|as range, not regexp" "$TMP/pk.err")"
  # each warning names its flag and the value given
  local line opt val
  while IFS= read -r line; do
    opt=$(sed -n "s/.*(--\([a-z-]*\) '.*')\$/\1/p" <<< "$line")
    val=$(sed -n "s/.*(--[a-z-]* '\(.*\)')\$/\1/p" <<< "$line")
    case " ${pk[*]} " in
      *" --$opt $val "*) ;;
      *) fail "$(basename "$f") $*: '$line' names an option not given" ;;
    esac
  done < "$TMP/pk.err"
}

H="$D/heap.pb.gz" C="$D/cpu.pb.gz"
# the runtime's bytes label has no unit: pprof names no frame by it (warns)
warn_eq "$H" tagroot=bytes
warn_eq "$H" tagleaf=bytes
warn_eq "$H" tagroot=nosuch tagleaf=other
warn_eq "$H" tagfocus=bytes=64b
warn_eq "$H" tagfocus=bytes=1mb:
warn_eq "$H" tagignore=bytes=1mb:
warn_eq "$H" tagignore=bytes=64b
warn_eq "$H" tagshow=zz taghide=qq
warn_eq "$H" tagshow=byt taghide=byt
warn_eq "$C" tagroot=function tagleaf=function
warn_eq "$C" tagroot=nosuch tagfocus=function=slow tagignore=function=nothing tagshow=func taghide=x
warn_eq "$C" tagfocus=function=nothing tagshow=func
warn_eq "$C" tagfocus=slow,fast
warn_eq "$C" tagignore=other=x
# numeric ranges: pprof's note, whether or not they match
warn_eq "$H" tagfocus=bytes=1kb:1mb
warn_eq "$H" tagfocus=:2kb tagignore=bytes=12kb
warn_eq "$H" tagfocus=bytes=64b tagignore=1kb: tagshow=zz
warn_eq "$C" tagfocus=function=slow2 tagignore=v2
# the name filters (profkit matches function names: the patterns here
# match no file or mapping name, which pprof matches too)
warn_eq "$C" focus=nosuch
warn_eq "$C" focus=slowWork
warn_eq "$C" ignore=nosuch
warn_eq "$C" hide=nosuch show=nosuch
warn_eq "$C" hide=asyncPreempt show=spin
warn_eq "$C" show_from=nosuch
warn_eq "$C" show_from=slowWork prune_from=nosuch
warn_eq "$C" focus=slowWork ignore=slowWork
warn_eq "$C" focus=slowWork ignore=spin
warn_eq "$C" focus=spin ignore=slowWork
warn_eq "$C" hide=slowWork show_from=slowWork
warn_eq "$C" show=spin show_from=slowWork
warn_eq "$C" show=slowWork show_from=slowWork
warn_eq "$C" focus=zz ignore=yy hide=xx show=ww show_from=vv prune_from=uu
warn_eq "$H" focus=allocSmall
warn_eq "$H" focus=allocSmall hide=allocSmall show_from=allocSmall
warn_eq "$H" ignore=gcBgMark tagfocus=bytes=64b
# pprof's order: the name filters before the label filters, so a label
# that only the samples --focus drops have matches nothing (as pprof says)
warn_eq "$C" focus=fastWork tagfocus=function=slow
warn_eq "$C" ignore=slowWork tagfocus=function=slow tagshow=func
warn_eq "$C" show_from=fastWork tagignore=function=slow
warn_eq "$H" focus=allocLarge tagfocus=bytes=64b tagignore=bytes=2kb
warn_eq "$H" ignore=main tagshow=bytes
warn_eq "$C" focus=nosuch tagfocus=function=slow tagignore=function=fast tagshow=f taghide=f
# --tagroot's frames are there for the name filters (named by the value)
warn_eq "$C" tagroot=function focus=^slow\$
warn_eq "$C" tagleaf=function ignore=^fast\$ tagfocus=function=fast
warn_eq "$C" tagroot=function hide=^nosuch\$ show_from=^fast\$

# The exact text, once however many inputs are filtered (a diff: two)
"$PROFKIT" diff --tagroot nosuch "$C" "$C" 2> "$TMP/d.err" > /dev/null
expect_eq "diff: one warning" "profkit: warning: TagRoot expression matched no samples (--tagroot 'nosuch')" "$(cat "$TMP/d.err")"
"$PROFKIT" top --tagfocus 'function=^nothing$' "$C" "$C" 2> "$TMP/m.err" > /dev/null
expect_eq "two inputs merged: one warning" "profkit: warning: TagFocus expression matched no samples (--tagfocus 'function=^nothing\$')" "$(cat "$TMP/m.err")"
# --quiet: none; --strict: the error (exit 1)
"$PROFKIT" top -q --tagroot nosuch "$C" 2> "$TMP/q.err" > /dev/null
expect_eq "--quiet: no warning" "" "$(cat "$TMP/q.err")"
expect_status "--strict: an error" 1 "$PROFKIT" top --strict --tagroot nosuch "$C"
grep -q "error: .*TagRoot expression matched no samples (--tagroot 'nosuch')" "$TMP/err" && pass ||
  fail "--strict message: $(cat "$TMP/err")"
# the range note: its text; --quiet drops it; --strict leaves it a note
"$PROFKIT" top --tagfocus 'bytes=1kb:' "$H" 2> "$TMP/r.err" > /dev/null
expect_eq "range: pprof's note" "profkit: warning: Interpreted '1kb:' as range, not regexp (--tagfocus 'bytes=1kb:')" "$(cat "$TMP/r.err")"
"$PROFKIT" top -q --tagfocus 'bytes=1kb:' "$H" 2> "$TMP/r.err" > /dev/null
expect_eq "range --quiet: nothing" "" "$(cat "$TMP/r.err")"
expect_status "range --strict: not an error" 0 "$PROFKIT" top --strict --tagfocus 'bytes=1kb:' "$H"
expect_status "range matching nothing --strict: the error" 1 "$PROFKIT" top --strict --tagfocus 'bytes=1gb:' "$H"
grep -q "error: .*TagFocus expression matched no samples (--tagfocus 'bytes=1gb:')" "$TMP/err" && pass ||
  fail "--strict range message: $(cat "$TMP/err")"
# a name filter's warning: its text, once for two inputs; --strict
"$PROFKIT" top --focus nosuch --show-from '^x$' "$C" "$C" 2> "$TMP/n.err" > /dev/null
expect_eq "name filters: pprof's warnings once" "profkit: warning: Focus expression matched no samples (--focus 'nosuch')
profkit: warning: ShowFrom expression matched no samples (--show-from '^x\$')" "$(cat "$TMP/n.err")"
expect_status "--strict --hide matching nothing: an error" 1 "$PROFKIT" top --strict --hide nosuch "$C"
grep -q "error: .*Hide expression matched no samples (--hide 'nosuch')" "$TMP/err" && pass ||
  fail "--strict --hide message: $(cat "$TMP/err")"
"$PROFKIT" top -q --ignore nosuch "$C" 2> "$TMP/q.err" > /dev/null
expect_eq "--quiet --ignore: no warning" "" "$(cat "$TMP/q.err")"
# a match prints nothing, also in tags and flame
"$PROFKIT" tags --tagfocus function=slow "$C" 2> "$TMP/t.err" > /dev/null
expect_eq "tags --tagfocus matching: no warning" "" "$(cat "$TMP/t.err")"
"$PROFKIT" tags --tagfocus function=nothing "$C" 2> "$TMP/t.err" > /dev/null
expect_eq "tags --tagfocus matching nothing: the warning" \
  "profkit: warning: TagFocus expression matched no samples (--tagfocus 'function=nothing')" "$(cat "$TMP/t.err")"
finish
