#!/usr/bin/env bash
# Golden outputs of traces, peek, --to callgrind and --min-percent on small
# profiles of three formats (tests/data: folded, pprof, bsprof): each case
# of tests/golden/cases.txt must print exactly tests/golden/NAME. After a
# deliberate change of output, PROFKIT_UPDATE_GOLDEN=1 rewrites the files
# (review the diff before committing it).
. "$(dirname "$0")/lib.sh"
G="$PROFKIT_SRC/tests/golden"
cd "$PROFKIT_SRC/tests/data" || { fail "no tests/data"; finish; }
n=0
while read -r name args; do
  case "$name" in ''|'#'*) continue ;; esac
  n=$((n + 1))
  # The arguments hold no spaces or quotes; word splitting is wanted
  # (set -f: no globbing of patterns such as 'load|init').
  set -f
  "$PROFKIT" $args > "$TMP/out" 2> "$TMP/err"
  rc=$?
  set +f
  [ $rc -eq 0 ] || { fail "$name: profkit $args: exit $rc: $(head -2 "$TMP/err")"; continue; }
  if [ "${PROFKIT_UPDATE_GOLDEN:-}" = 1 ]; then cp "$TMP/out" "$G/$name"; pass; continue; fi
  [ -f "$G/$name" ] || { fail "$name: tests/golden/$name is missing"; continue; }
  expect_files_eq "$name: profkit $args" "$G/$name" "$TMP/out"
done < "$G/cases.txt"
[ $n -ge 16 ] && pass || fail "only $n cases read"
finish
