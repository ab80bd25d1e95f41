#!/usr/bin/env bash
# The speedscope writer: valid JSON of speedscope's schema whose samples,
# folded back into stacks, equal profkit's own folded output per thread;
# strings that need escaping survive (quotes, control characters, bad UTF-8).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { fail "python3 is required"; finish; }

# speedscope JSON (one profile) -> folded text, by the file's own frames.
fold() {
  python3 - "$1" "$2" <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
frames = d["shared"]["frames"]
prof = d["profiles"][int(sys.argv[2])]
assert prof["type"] == "sampled" and len(prof["samples"]) == len(prof["weights"])
assert prof["endValue"] == sum(prof["weights"])
acc = collections.Counter()
for s, w in zip(prof["samples"], prof["weights"]):
    acc[";".join(frames[i]["name"].replace(";", "_").replace("\n", "_").replace("\r", "_") for i in s)] += w
for k in sorted(acc, key=lambda x: x.encode()):
    if acc[k]:
        print(k, acc[k])
PY
}

printf 'main;work;inner 5\nmain;work 3\nmain;other 2\n' > "$TMP/a.folded"
expect_status "convert to speedscope" 0 "$PROFKIT" convert "$TMP/a.folded" -o "$TMP/a.speedscope.json"
fold "$TMP/a.speedscope.json" 0 > "$TMP/got" || fail "speedscope JSON did not parse"
"$PROFKIT" convert "$TMP/a.folded" --to folded | LC_ALL=C sort > "$TMP/want"
LC_ALL=C sort "$TMP/got" > "$TMP/got.sorted"
expect_files_eq "speedscope samples = folded stacks" "$TMP/want" "$TMP/got.sorted"

# Names needing escapes.
printf 'ma"in;w\\ork;caf\xc3\xa9;bad\xff\xfebytes;tab\there 7\n' > "$TMP/esc.folded"
expect_status "escapes" 0 "$PROFKIT" convert "$TMP/esc.folded" --to speedscope -o "$TMP/esc.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1],encoding="utf-8")); n=[f["name"] for f in d["shared"]["frames"]]; assert n[:3]==["ma\"in","w\\ork","caf\u00e9"], n; assert n[3]=="bad\ufffd\ufffdbytes", n; assert n[4]=="tab\there", n' "$TMP/esc.json" && pass || fail "escaped names"

# Every readable fixture profile of the shared set converts and folds back.
if [ -d "$FIX" ]; then
  for f in "$FIX"/folded/*.txt "$FIX"/gperftools-real/*.prof "$FIX"/pprof/cppbench.cpu; do
    [ -e "$f" ] || continue
    "$PROFKIT" info "$f" > /dev/null 2>&1 || continue
    "$PROFKIT" convert "$f" --to speedscope -o "$TMP/x.json" 2> "$TMP/err" || { fail "$f: $(cat "$TMP/err")"; continue; }
    fold "$TMP/x.json" 0 | LC_ALL=C sort > "$TMP/got"
    "$PROFKIT" convert "$f" --to folded --thread 0 | LC_ALL=C sort > "$TMP/want"
    expect_files_eq "$(basename "$f"): speedscope = folded" "$TMP/want" "$TMP/got"
  done
fi
finish
