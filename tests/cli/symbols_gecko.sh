#!/usr/bin/env bash
# Gecko's native frames named from the profile's libs:
#   - a program built now (tests/oracle/inl_main.c, -g -O2, non-PIE) and a
#     raw Gecko profile made here whose libs name it (path, breakpadId and
#     codeId from its build id) and whose frames are addresses in its
#     functions: each leaf is named as eu-addr2line -i -f names it
#     (innermost function, file and line), with its inlined callers;
#   - the same profile with another breakpadId: one warning naming both ids,
#     the frames stay PROG+0xOFFSET;
#   - the file found through --symbols DIR when the path in libs is absent;
#   - the real unsymbolicated processed profile (macOS libs, absent here):
#     its frames are shown as LIB+0xOFFSET.
. "$(dirname "$0")/lib.sh"
ORACLE="$PROFKIT_SRC/tests/oracle"
for t in eu-addr2line objdump readelf python3; do
  command -v "$t" > /dev/null || { fail "$t missing: scripts/deps.sh --test"; finish; }
done
D="$TMP/src"
mkdir -p "$D"
cp "$ORACLE/inl_main.c" "$ORACLE/inl_lib.c" "$D/"
cd "$D" || exit 1
cc -g -O2 -fPIC -shared -o libinl.so inl_lib.c &&
  cc -g -O2 -fno-pie -no-pie -o prog inl_main.c -L. -linl -Wl,-rpath,"$D" ||
  { fail "cannot build inl_main.c"; finish; }
bid=$(readelf -n prog | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || { fail "prog has no build id"; finish; }
# Instruction addresses inside hot and warm (where step and mix are inlined).
objdump -d --no-show-raw-insn prog | awk '
  /^[0-9a-f]+ <(hot|warm)>:/ { on = 1; next }
  /^$/ { on = 0 }
  on && /^ *[0-9a-f]+:/ { sub(":", "", $1); print $1 }' | awk 'NR % 4 == 1' | head -40 > "$TMP/addrs"
[ "$(wc -l < "$TMP/addrs")" -ge 6 ] || { fail "too few addresses in hot and warm"; finish; }

# gecko.json PATH BREAKPADID: one sample per address, each the only frame.
gecko() {
  python3 - "$TMP/addrs" "$1" "$2" "$bid" << 'PY'
import json, sys
addrs = [int(a, 16) for a in open(sys.argv[1]).read().split()]
path, breakpad, code = sys.argv[2], sys.argv[3], sys.argv[4]
strings = ["0x%x" % a for a in addrs]
prof = {
  "meta": {"version": 27, "startTime": 1000.0, "interval": 1, "product": "test",
           "categories": [{"name": "Other", "color": "grey", "subcategories": ["Other"]}]},
  "libs": [{"start": 0x400000, "end": 0x500000, "offset": 0, "name": path.rsplit("/", 1)[-1],
            "path": path, "debugName": path.rsplit("/", 1)[-1], "debugPath": path,
            "breakpadId": breakpad, "codeId": code, "arch": "x86_64"}],
  "threads": [{
    "name": "GeckoMain", "processType": "default", "pid": "1", "tid": 1,
    "samples": {"schema": {"stack": 0, "time": 1, "eventDelay": 2},
                "data": [[i, 1.0 + i, 0] for i in range(len(addrs))]},
    "markers": {"schema": {"name": 0, "startTime": 1, "endTime": 2, "phase": 3, "category": 4, "data": 5}, "data": []},
    "stackTable": {"schema": {"prefix": 0, "frame": 1}, "data": [[None, i] for i in range(len(addrs))]},
    "frameTable": {"schema": {"location": 0, "relevantForJS": 1, "innerWindowID": 2, "implementation": 3,
                              "line": 4, "column": 5, "category": 6, "subcategory": 7},
                   "data": [[i] for i in range(len(addrs))]},
    "stringTable": strings}],
  "processes": []}
json.dump(prof, sys.stdout)
PY
}
# Breakpad's id: the build id's first 16 bytes as a GUID (the first three
# fields byte-swapped), upper case, then the age 0.
breakpad=$(python3 -c '
import sys
b = bytes.fromhex(sys.argv[1])[:16].ljust(16, b"\0")
print((b[3::-1] + b[5:3:-1] + b[7:5:-1] + b[8:]).hex().upper() + "0")' "$bid")
gecko "$D/prog" "$breakpad" > "$TMP/g.json"

# What eu-addr2line says of each address: the innermost function, file:line.
sed 's/^/0x/' "$TMP/addrs" | eu-addr2line -i -f -e prog > "$TMP/a2l" 2> /dev/null
python3 - "$TMP/addrs" "$TMP/a2l" << 'PY' > "$TMP/want"
import sys
addrs = open(sys.argv[1]).read().split()
lines = open(sys.argv[2]).read().splitlines()
# eu-addr2line -i -f: per address, pairs (function, file:line), innermost
# first, then the callers the code is inlined into; the next address starts
# again with the real function's pair. Split on the address count: each
# chain ends with a function that is not inlined (hot or warm).
pairs = [(lines[i], lines[i + 1]) for i in range(0, len(lines) - 1, 2)]
chains, cur = [], []
for fn, loc in pairs:
    fn = fn.split()[0]
    loc = loc.rsplit("/", 1)[-1]
    if loc.count(":") == 2:  # file:line:column
        loc = loc.rsplit(":", 1)[0]
    cur.append((fn, loc))
    if fn in ("hot", "warm"):
        chains.append(cur)
        cur = []
for a, ch in zip(addrs, chains):
    # outermost first, as profkit's traces print root to leaf reversed
    print(a, ";".join("%s@%s" % (fn, loc) for fn, loc in reversed(ch)))
PY
[ "$(wc -l < "$TMP/want")" -eq "$(wc -l < "$TMP/addrs")" ] ||
  { fail "could not read eu-addr2line's answer"; cat "$TMP/a2l"; finish; }

# profkit: per sample (one address) its chain, root first, "fn@file:line",
# read from its Firefox output (frameTable line, funcTable source).
chains() { # FILE [OPTIONS...]
  local f=$1; shift
  "$PROFKIT" convert "$f" --to firefox -o "$TMP/c.json" "$@" 2> "$TMP/err" || { cat "$TMP/err"; return 1; }
  python3 - "$TMP/c.json" << 'PY'
import json, sys
p = json.load(open(sys.argv[1]))
sh = p["shared"]
st, ft, fn, src, strs = sh["stackTable"], sh["frameTable"], sh["funcTable"], sh["sources"], sh["stringArray"]
out = set()
for th in p["threads"]:
    s = th["samples"]
    for i in range(s["length"]):
        k, names = s["stack"][i], []
        while k is not None:
            f = st["frame"][k]
            fu = ft["func"][f]
            so = fn["source"][fu]
            file = strs[src["filename"][so]].rsplit("/", 1)[-1] if so is not None else "?"
            names.append("%s@%s:%s" % (strs[fn["name"][fu]], file, ft["line"][f]))
            off = st["prefixOffset"][k]
            k = k - off if off else None
        out.add(";".join(reversed(names)))
print("\n".join(sorted(out)))
PY
}
chains "$TMP/g.json" > "$TMP/got.n" || fail "convert failed"
cut -d' ' -f2- "$TMP/want" | sort -u > "$TMP/want.n"
if cmp -s "$TMP/want.n" "$TMP/got.n"; then pass; else
  fail "Gecko frames named from libs differ from eu-addr2line -i -f:"; diff "$TMP/want.n" "$TMP/got.n" | head -20; fi
grep -q ';' "$TMP/want.n" && pass || fail "no inlined call among the chosen addresses"
"$PROFKIT" info "$TMP/g.json" 2>&1 | grep -q "$D/prog: [0-9]* addresses (DWARF" && pass ||
  fail "info: prog not named from DWARF: $("$PROFKIT" info "$TMP/g.json" 2>&1 | grep -A3 symbols)"

# Another build id: a warning naming both, the frames stay PROG+0xOFFSET.
gecko "$D/prog" "0123456789ABCDEF0123456789ABCDEF0" > "$TMP/bad.json"
"$PROFKIT" top -n 3 "$TMP/bad.json" > "$TMP/out" 2> "$TMP/err"
grep -q "build id $bid, but the profile's mapping $D/prog has build id 0123456789ABCDEF0123456789ABCDEF0: not used" "$TMP/err" &&
  pass || { fail "no build id warning"; cat "$TMP/err"; }
grep -q " prog+0x[0-9a-f]*$" "$TMP/out" && pass || { fail "unnamed frames not shown as prog+0xOFFSET"; cat "$TMP/out"; }

# The path in libs absent: found by --symbols DIR (by file name).
gecko "/nonexistent/build/prog" "$breakpad" > "$TMP/away.json"
chains "$TMP/away.json" --symbols "$D" > "$TMP/got.n"
expect_files_eq "--symbols DIR finds the lib by name" "$TMP/want.n" "$TMP/got.n"

# The real unsymbolicated processed profile: libs absent, frames LIB+0xOFFSET.
FIX="$FIX/firefox/unsymbolicated-v49.json.gz"
if [ -f "$FIX" ]; then
  "$PROFKIT" top -n 0 "$FIX" > "$TMP/out" 2> "$TMP/err" || fail "top on $FIX: $(cat "$TMP/err")"
  expect_eq "unsymbolicated-v49: leaf" "libsystem_kernel.dylib+0x43e8" "$(awk 'NR == 4 { print $6 }' "$TMP/out")"
  n=$(awk 'NR > 3 && $6 !~ /^[A-Za-z_.]+\+0x[0-9a-f]+$/' "$TMP/out" | wc -l)
  expect_eq "unsymbolicated-v49: every frame LIB+0xOFFSET" 0 "$n"
  "$PROFKIT" info "$FIX" 2>&1 | grep -q "no file for: /usr/lib/dyld, /usr/helloworld/a.out" && pass ||
    fail "info does not list the absent libs"
else
  echo "note: $FIX absent (outside the workspace): the fixture part is not run"
fi
finish
