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

warn_eq() { # warn_eq FILE OPTION=VALUE... : the options that matched nothing, pprof's and profkit's
  local f=$1; shift
  local go=() pk=() a
  for a in "$@"; do go+=("-$a"); pk+=("--${a%%=*}" "${a#*=}"); done
  "$PPROF" -top -symbolize=none "${go[@]}" "$f" 2> "$TMP/go.err" > /dev/null
  "$PROFKIT" top "${pk[@]}" "$f" 2> "$TMP/pk.err" > /dev/null || { fail "$*: profkit failed: $(head -2 "$TMP/pk.err")"; return; }
  local want got
  want=$(sed -n 's/^\([A-Za-z]*\) expression matched no samples$/\1/p' "$TMP/go.err" | tr '\n' ' ')
  got=$(sed -n "s/^profkit: warning: \([A-Za-z]*\) expression matched no samples (--[a-z]* '.*')\$/\1/p" "$TMP/pk.err" | tr '\n' ' ')
  expect_eq "$(basename "$f") $*: warnings as pprof's" "$want" "$got"
  expect_eq "$(basename "$f") $*: no other message" "" "$(grep -v 'expression matched no samples' "$TMP/pk.err")"
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
# a match prints nothing, also in tags and flame
"$PROFKIT" tags --tagfocus function=slow "$C" 2> "$TMP/t.err" > /dev/null
expect_eq "tags --tagfocus matching: no warning" "" "$(cat "$TMP/t.err")"
"$PROFKIT" tags --tagfocus function=nothing "$C" 2> "$TMP/t.err" > /dev/null
expect_eq "tags --tagfocus matching nothing: the warning" \
  "profkit: warning: TagFocus expression matched no samples (--tagfocus 'function=nothing')" "$(cat "$TMP/t.err")"
finish
