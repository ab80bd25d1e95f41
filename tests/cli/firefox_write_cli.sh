#!/usr/bin/env bash
# The Firefox writer on its own: the output is valid JSON (hostile names
# escaped, invalid UTF-8 replaced) with consistent processed-format tables;
# .json.gz is gzip; count values survive a round trip through profkit's own
# Firefox reader; time values become "tracing-ms" weights in milliseconds,
# bytes become "bytes"; --value and --thread select; markers are written.
. "$(dirname "$0")/lib.sh"
need_shared
D="$PROFKIT_SRC/tests/data"

# check_tables FILE: prints "ok" or what is inconsistent.
check_tables() {
  python3 - "$1" << 'PY'
import gzip, json, sys
raw = open(sys.argv[1], "rb").read()
if raw[:2] == b"\x1f\x8b":
    raw = gzip.decompress(raw)
d = json.loads(raw.decode("utf-8"))  # strict: control characters in strings fail
sh = d["shared"]
def cols(t, name):
    for k, v in t.items():
        if isinstance(v, list) and len(v) != t["length"]:
            sys.exit("%s.%s has %d rows, length %d" % (name, k, len(v), t["length"]))
for k in ("stackTable", "frameTable", "funcTable", "resourceTable", "sources", "nativeSymbols"):
    cols(sh[k], k)
ns, nf, nfn, nstr = sh["stackTable"]["length"], sh["frameTable"]["length"], sh["funcTable"]["length"], len(sh["stringArray"])
for i in range(ns):
    off = sh["stackTable"]["prefixOffset"][i]
    if off < 0 or off > i or sh["stackTable"]["frame"][i] >= nf:
        sys.exit("stack %d: bad prefixOffset or frame" % i)
ft = sh["frameTable"]
for i in range(nf):
    if ft["func"][i] >= nfn or ((ft["flags"][i] & 2) and ft["lib"][i] >= len(d["libs"])):
        sys.exit("frame %d: bad func or lib" % i)
fn = sh["funcTable"]
for i in range(nfn):
    if fn["name"][i] >= nstr or ((fn["flags"][i] & 4) and fn["resource"][i] >= sh["resourceTable"]["length"]) \
       or ((fn["flags"][i] & 8) and fn["source"][i] >= sh["sources"]["length"]):
        sys.exit("func %d: bad name, resource or source" % i)
for t in d["threads"]:
    s = t["samples"]
    cols({k: v for k, v in s.items() if k != "weight" or v is not None}, "samples")
    if any(x is not None and not 0 <= x < ns for x in s["stack"]):
        sys.exit("thread %s: sample stack out of range" % t["name"])
    if any(b < a for a, b in zip(s["time"], s["time"][1:])):
        sys.exit("thread %s: sample times go back" % t["name"])
    m = t["markers"]
    cols(m, "markers")
    for i in range(m["length"]):
        # phases 0 instant, 1 interval, 2 start, 3 end: only the times a phase has
        if m["name"][i] >= nstr or m["phase"][i] not in (0, 1, 2, 3) \
           or (m["phase"][i] in (0, 2)) != (m["endTime"][i] is None) or (m["phase"][i] == 3) != (m["startTime"][i] is None) \
           or not 0 <= m["category"][i] < len(d["meta"]["categories"]) or not (m["data"][i] is None or isinstance(m["data"][i], dict)):
            sys.exit("thread %s: marker %d inconsistent" % (t["name"], i))
# the input's frame categories first, as they came; a grey one (the default) among them
if d["meta"]["preprocessedProfileVersion"] != 75 or \
        not any(c["color"] == "grey" for c in d["meta"]["categories"]) or \
        any(not 0 <= c < len(d["meta"]["categories"]) for c in sh["frameTable"]["category"]):
    sys.exit("meta: version or categories")
print("ok")
PY
}

# Hostile names: quotes, backslashes, control characters, invalid UTF-8.
printf 'main;q"uote;back\\slash 3\nmain;ctl\001\002x;bad\377\376utf 2\nmain;caf\303\251 1\n' > "$TMP/hostile.folded"
expect_status "hostile names convert" 0 "$PROFKIT" convert "$TMP/hostile.folded" --to firefox -o "$TMP/hostile.json"
expect_eq "hostile names: tables" ok "$(check_tables "$TMP/hostile.json" 2>&1)"
expect_eq "hostile names: strings as written" \
  "['back\\\\slash', 'bad\\ufffd\\ufffdutf', 'caf\\xe9', 'ctl\\x01\\x02x', 'main', 'q\"uote']" \
  "$(python3 -c 'import json, sys; print(ascii(sorted(s for s in json.load(open(sys.argv[1]))["shared"]["stringArray"] if s)))' "$TMP/hostile.json")"

# .json.gz is gzip and the same document.
expect_status "gzip output" 0 "$PROFKIT" convert "$D/bsprof/ok_lines.bsprof" --to firefox -o "$TMP/b.json.gz"
expect_eq "gzip magic" "1f8b" "$(head -c2 "$TMP/b.json.gz" | od -An -tx1 | tr -d ' \n')"
"$PROFKIT" convert -q "$D/bsprof/ok_lines.bsprof" --to firefox -o "$TMP/b.json"
expect_eq ".json.gz decompresses to .json" same "$(gzip -dc "$TMP/b.json.gz" | cmp -s - "$TMP/b.json" && echo same)"

# Every readable input: consistent tables.
for f in "$D"/*/ok_* "$FIX"/folded/* "$FIX"/gperftools-real/*.prof "$FIX"/firefox/*.json*; do
  "$PROFKIT" info -q "$f" > /dev/null 2>&1 || continue
  if "$PROFKIT" convert -q "$f" --to firefox -o "$TMP/t.json" 2> "$TMP/err"; then
    r=$(check_tables "$TMP/t.json" 2>&1)
    [ "$r" = ok ] && pass || fail "$(basename "$f"): $r"
  else
    fail "$(basename "$f"): convert failed: $(head -2 "$TMP/err")"
  fi
done

# Count values survive the round trip through the Firefox reader, per thread.
roundtrip() { # FILE VALUE THREADS
  local f=$1 v=$2 n=$3 t
  "$PROFKIT" convert -q "$f" --to firefox --value "$v" -o "$TMP/rt.json" || { fail "$f: convert"; return; }
  for ((t = 0; t < n; t++)); do
    expect_eq "$(basename "$f") --value $v thread $t: folded after the round trip" \
      "$("$PROFKIT" convert -q "$f" --to folded --value "$v" --thread "$t")" \
      "$("$PROFKIT" convert -q "$TMP/rt.json" --to folded --thread "$t")"
  done
}
roundtrip "$D/bsprof/ok_lines.bsprof" calls 2
roundtrip "$D/bsprof/ok_lines.bsprof" alloc_objects 2
roundtrip "$FIX/gperftools-real/real1.prof" samples 1
roundtrip "$FIX/folded/perf-flamegraph.txt" samples 1
roundtrip "$D/gecko/ok_markers.json" samples 1
roundtrip "$FIX/firefox/samply-profile_with_js-v66.json" samples 1

# Units: microseconds -> tracing-ms (exact decimals), bytes -> bytes.
"$PROFKIT" convert -q "$D/bsprof/ok_lines.bsprof" --to firefox --value cpu -o "$TMP/cpu.json"
expect_eq "cpu (microseconds) as tracing-ms: weight type, total in ms" "tracing-ms 1.9" \
  "$(python3 -c 'import json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]), parse_float=Decimal)
s = [t["samples"] for t in d["threads"]]
print(s[0]["weightType"], "%g" % sum(sum(x["weight"]) for x in s))' "$TMP/cpu.json")"
"$PROFKIT" convert -q "$D/bsprof/ok_lines.bsprof" --to firefox --value alloc_space -o "$TMP/bytes.json"
expect_eq "alloc_space as bytes" "bytes 1504" \
  "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = [t["samples"] for t in d["threads"]]
print(s[0]["weightType"], sum(sum(x["weight"] or []) for x in s))' "$TMP/bytes.json")"
"$PROFKIT" convert -q "$FIX/gperftools-real/real1.prof" --to firefox -o "$TMP/ns.json"
expect_eq "gperftools cpu (nanoseconds) as tracing-ms" "tracing-ms 838" \
  "$(python3 -c 'import json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]), parse_float=Decimal)
s = d["threads"][0]["samples"]
print(s["weightType"], sum(s["weight"]))' "$TMP/ns.json")"

# Selection and usage errors.
"$PROFKIT" convert -q "$D/bsprof/ok_lines.bsprof" --to firefox --thread 1 -o "$TMP/one.json"
expect_eq "--thread keeps one thread (and a thread per other value type it has)" \
  "TaskNode,TaskNode (wall),TaskNode (calls),TaskNode (alloc_objects),TaskNode (alloc_space),TaskNode (free_objects),TaskNode (inuse_objects),TaskNode (inuse_space)" \
  "$(python3 -c 'import json, sys; print(",".join(t["name"] for t in json.load(open(sys.argv[1]))["threads"]))' "$TMP/one.json")"
"$PROFKIT" convert -q "$D/bsprof/ok_lines.bsprof" --to firefox --thread 1 --value cpu -o "$TMP/one.json"
expect_eq "--thread --value keeps one thread" "1 TaskNode" \
  "$(python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["threads"]; print(len(t), t[0]["name"])' "$TMP/one.json")"
expect_status "unknown --value" 2 "$PROFKIT" convert "$D/bsprof/ok_lines.bsprof" --to firefox --value nosuch -o "$TMP/x.json"
expect_status "unknown --thread" 2 "$PROFKIT" convert "$D/bsprof/ok_lines.bsprof" --to firefox --thread nosuch -o "$TMP/x.json"
[ ! -e "$TMP/x.json" ] && pass || fail "a failed conversion left its output behind"

# Timed input keeps its times; markers are written with their payloads.
"$PROFKIT" convert -q "$D/gecko/ok_markers.json" --to firefox -o "$TMP/m.json"
expect_eq "markers written" ok "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
m = sum(t["markers"]["length"] for t in d["threads"])
p = sum(1 for t in d["threads"] for x in t["markers"]["data"] if x)
print("ok" if m > 0 and p > 0 else "markers %d, payloads %d" % (m, p))' "$TMP/m.json")"
finish
