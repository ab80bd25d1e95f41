#!/usr/bin/env bash
# Firefox DevTools' wrapper of a raw Gecko profile,
# {"fileType": "Recorded Performance Data", "version": N, "profile": {...}}
# (docs/formats/gecko.md), reads as the profile inside: the committed
# tests/data/gecko/ok_devtools_wrapper.json gives the same `top`, folded
# stacks and `info` as ok_nested_processes.json, which it wraps; every other
# ok_ file and the ../shared raw Gecko fixtures, wrapped here with "profile"
# first and last, too, each detected as gecko without --format. A root that
# has profile keys of its own keeps them and its "profile" key is skipped.
# The panel's own order, "profile" and "fileType" after hundreds of KiB of
# its keys, is detected too, from a file, a .gz and standard input.
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
# The panel's real key order: "profile" and "fileType" far past the first
# 64 KiB, which detection reads on through the panel's keys.
python3 - "$D/ok_nested_processes.json" "$TMP" <<'PY'
import json, sys
prof = open(sys.argv[1]).read().strip()
markers = json.dumps([{"name": "Reflow", "start": i, "end": i + 1, "stack": None} for i in range(6000)])
head = '{"label": "a", "duration": 74.5, "markers": ' + markers + ', "frames": [], "memory": [], "ticks": [], "allocations": {"sites": [], "timestamps": []}, '
tail = '"configuration": {"withMarkers": true, "bufferSize": 10000000}, "systemHost": {"appid": "x"}, "systemClient": {}, '
with open(sys.argv[2] + "/panel.json", "w") as f:
    f.write(head + '"profile": ' + prof + ', ' + tail + '"fileType": "Recorded Performance Data", "version": 2}\n')
with open(sys.argv[2] + "/panel_type_first.json", "w") as f:
    f.write(head + tail + '"fileType": "Recorded Performance Data", "version": 2, "profile": ' + prof + '}\n')
with open(sys.argv[2] + "/panel_extra_key.json", "w") as f:
    f.write(head + '"recordingDurationFromALaterVersion": {"a": [1, 2]}, "profile": ' + prof + ', ' + tail + '"fileType": "Recorded Performance Data", "version": 3}\n')
with open(sys.argv[2] + "/other_key_first.json", "w") as f:
    f.write('{"someOtherTool": ' + markers + ', "label": "a", "profile": ' + prof + '}\n')
with open(sys.argv[2] + "/not_panel.json", "w") as f:
    f.write(head + tail + '"fileType": "Recorded Something Else", "version": 2}\n')
PY
[ "$(stat -c %s "$TMP/panel.json")" -gt 200000 ] && pass || fail "the panel wrapper is past 200 KB"
same "panel key order" "$D/ok_nested_processes.json" "$TMP/panel.json"
same "panel key order, fileType before profile" "$D/ok_nested_processes.json" "$TMP/panel_type_first.json"
same "panel key order, a key of a later version among the panel's" "$D/ok_nested_processes.json" "$TMP/panel_extra_key.json"
gzip -c "$TMP/panel.json" > "$TMP/panel.json.gz"
same "panel key order, gzip" "$D/ok_nested_processes.json" "$TMP/panel.json.gz"
"$PROFKIT" convert --to folded "$D/ok_nested_processes.json" > "$TMP/a" 2>&1
"$PROFKIT" convert --to folded - < "$TMP/panel.json" > "$TMP/b" 2>&1
expect_files_eq "panel key order from standard input" "$TMP/a" "$TMP/b"
# Another tool's key first: not the panel's export, not read on.
expect_status "another tool's key first" 1 "$PROFKIT" info "$TMP/other_key_first.json"
grep -q "unrecognized profile format" "$TMP/err" && pass || fail "other_key_first.json: $(cat "$TMP/err")"
# The panel's keys without a profile: no format claims it.
expect_status "the panel's keys without a profile" 1 "$PROFKIT" info "$TMP/not_panel.json"
grep -q "unrecognized profile format" "$TMP/err" && pass || fail "not_panel.json: $(cat "$TMP/err")"
# A raw profile with a "profile" key after its own keys is not a wrapper.
python3 -c 'import sys; t = open(sys.argv[1]).read().rstrip(); assert t.endswith("}")
print(t[:-1] + ", \"profile\": {\"meta\": {}, \"threads\": []}}")' "$D/ok_weights.json" > "$TMP/extra.json"
"$PROFKIT" convert --to folded "$D/ok_weights.json" > "$TMP/a" 2>&1
"$PROFKIT" convert --to folded --format gecko "$TMP/extra.json" > "$TMP/b" 2>&1
expect_files_eq "a profile key after the profile's own keys is skipped" "$TMP/a" "$TMP/b"
finish
