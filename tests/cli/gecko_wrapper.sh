#!/usr/bin/env bash
# Firefox DevTools' wrapper of a raw Gecko profile,
# {"fileType": "Recorded Performance Data", "version": N, "profile": {...}}
# (docs/formats/gecko.md), reads as the profile inside: the committed
# tests/data/gecko/ok_devtools_wrapper.json gives the same `top`, folded
# stacks and `info` as ok_nested_processes.json, which it wraps; every other
# ok_ file and the ../shared raw Gecko fixtures, wrapped here with "profile"
# first and last, too, each detected as gecko without --format. A root that
# has profile keys of its own keeps them and its "profile" key is skipped.
. "$(dirname "$0")/lib.sh"
D="$PROFKIT_SRC/tests/data/gecko"
same() { # WHAT UNWRAPPED WRAPPED
  for cmd in "top" "convert --to folded" "info"; do
    # shellcheck disable=SC2086
    "$PROFKIT" $cmd "$2" 2>&1 | sed "s|$2|FILE|" > "$TMP/a"
    # shellcheck disable=SC2086
    "$PROFKIT" $cmd "$3" 2>&1 | sed "s|$3|FILE|" > "$TMP/b"
    expect_files_eq "$1: $cmd" "$TMP/a" "$TMP/b"
  done
  got=$("$PROFKIT" info "$3" 2> /dev/null | awk '$1 == "format:" {print $2}')
  expect_eq "$1: detected" gecko "$got"
}
same ok_devtools_wrapper.json "$D/ok_nested_processes.json" "$D/ok_devtools_wrapper.json"
files=("$D"/ok_*.json)
[ -d "$FIX" ] && files+=("$FIX"/firefox/gecko-*.json)
for f in "${files[@]}"; do
  case "$f" in *ok_devtools_wrapper.json) continue ;; esac
  b=$(basename "$f")
  { printf '{"profile": '; cat "$f"; printf ', "fileType": "Recorded Performance Data", "version": 2}\n'; } > "$TMP/first.json"
  { printf '{"fileType": "Recorded Performance Data", "version": 3, "duration": 5, "profile": '; cat "$f"; printf '}\n'; } > "$TMP/last.json"
  same "$b (profile first)" "$f" "$TMP/first.json"
  same "$b (profile last)" "$f" "$TMP/last.json"
done
# A raw profile with a "profile" key after its own keys is not a wrapper.
python3 -c 'import sys; t = open(sys.argv[1]).read().rstrip(); assert t.endswith("}")
print(t[:-1] + ", \"profile\": {\"meta\": {}, \"threads\": []}}")' "$D/ok_weights.json" > "$TMP/extra.json"
"$PROFKIT" convert --to folded "$D/ok_weights.json" > "$TMP/a" 2>&1
"$PROFKIT" convert --to folded --format gecko "$TMP/extra.json" > "$TMP/b" 2>&1
expect_files_eq "a profile key after the profile's own keys is skipped" "$TMP/a" "$TMP/b"
finish
