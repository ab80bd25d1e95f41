#!/usr/bin/env bash
# Every tests/data/FORMAT/bad_* (with a bad_*.expect beside it) must give
# exactly the expected stderr from `profkit info --format FORMAT`, and exit 1
# when that text has an error line, else 0. Every ok_* must read with exit 0,
# and be detected as FORMAT without --format (a file a reader accepts must be
# recognised by content; docs/formats/README.md#detection).
. "$(dirname "$0")/lib.sh"
n=0
for dir in "$PROFKIT_SRC"/tests/data/*/; do
  fmt=$(basename "$dir")
  for f in "$dir"ok_*; do
    [ -e "$f" ] || continue
    case "$f" in *.expect) continue ;; esac
    n=$((n + 1))
    (cd "$dir" && "$PROFKIT" info --format "$fmt" "$(basename "$f")" > /dev/null 2> "$TMP/err")
    st=$?
    if [ $st -eq 0 ]; then pass; else fail "$fmt/$(basename "$f"): exit $st: $(cat "$TMP/err")"; fi
    got=$(cd "$dir" && "$PROFKIT" info "$(basename "$f")" 2> /dev/null | awk '$1 == "format:" {print $2}')
    expect_eq "$fmt/$(basename "$f") detected without --format" "$fmt" "$got"
  done
  for f in "$dir"bad_*; do
    [ -e "$f" ] || continue
    case "$f" in *.expect) continue ;; esac
    n=$((n + 1))
    exp="$f.expect"
    if [ ! -f "$exp" ]; then fail "$fmt/$(basename "$f"): no $(basename "$exp")"; continue; fi
    (cd "$dir" && "$PROFKIT" info --format "$fmt" "$(basename "$f")" > /dev/null 2> "$TMP/err")
    st=$?
    want=0
    grep -q 'error:' "$exp" && want=1
    if [ $st -ne $want ]; then fail "$fmt/$(basename "$f"): exit $st, expected $want"; fi
    if diff -u "$exp" "$TMP/err" > "$TMP/diff"; then pass; else fail "$fmt/$(basename "$f"): stderr differs"; cat "$TMP/diff"; fi
  done
done
echo "checked $n data files"
finish
