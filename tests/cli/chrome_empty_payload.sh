#!/usr/bin/env bash
# A marker whose payload is an empty object keeps it through profkit's
# Chrome and Firefox writers (docs/formats/chrome.md, the markers): a
# Chrome trace's args.data `{}` is read as the payload `{}`, no args (or
# args `{}`) as no payload; written as Chrome (`{"data":{},"empty":true}`
# for `{}`, `{"data":{}}` for none) or Firefox and read back, every marker
# has the payload it had, `{}` neither dropped nor null.
. "$(dirname "$0")/lib.sh"
IN="$PROFKIT_SRC/tests/data/chrome/ok_empty_payload.json"
payloads() {
  "$PROFKIT" markers --list --json -q "$1" | python3 -c '
import json, sys
print("|".join(m["name"] + " " + json.dumps(m.get("data"), sort_keys=True) for m in json.load(sys.stdin)["markers"]))'
}
want='Empty {}|EmptyX {}|None null|NoArgs null|Obj {"a": 1}'
expect_eq "read: args.data {} is the payload {}, no args none" "$want" "$(payloads "$IN")"
for to in chrome firefox; do
  "$PROFKIT" convert -q "$IN" --to $to -o "$TMP/a.$to.json" || fail "convert --to $to failed"
  expect_eq "through $to" "$want" "$(payloads "$TMP/a.$to.json")"
  for to2 in chrome firefox; do
    "$PROFKIT" convert -q "$TMP/a.$to.json" --to $to2 -o "$TMP/b.$to.$to2.json" || fail "convert $to --to $to2 failed"
    expect_eq "through $to then $to2" "$want" "$(payloads "$TMP/b.$to.$to2.json")"
  done
done
# the written forms: `{}` marked as such, none as an empty args.data (which
# DevTools' trace engine needs on the events it knows by name)
expect_eq "the Chrome output's args" \
  'Empty {"data": {}, "empty": true}|EmptyX {"data": {}, "empty": true}|None {"data": {}}|NoArgs {"data": {}}|Obj {"data": {"a": 1}}' \
  "$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["traceEvents"]
print("|".join(e["name"] + " " + json.dumps(e["args"], sort_keys=True) for e in t if e.get("ph") in ("X", "I")))' "$TMP/a.chrome.json")"
# outside profkit's traces the mark is just args: a trace without the
# producer event reads `{"data":{},"empty":true}` as that whole object
python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
t["traceEvents"] = [e for e in t["traceEvents"] if e.get("name") != "profkit"]
json.dump(t, open(sys.argv[2], "w"))' "$TMP/a.chrome.json" "$TMP/noproducer.json"
expect_eq "without the producer event" \
  'Empty {"data": {}, "empty": true}|EmptyX {"data": {}, "empty": true}|None {}|NoArgs {}|Obj {"a": 1}' \
  "$(payloads "$TMP/noproducer.json")"
finish
