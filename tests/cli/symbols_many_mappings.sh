#!/usr/bin/env bash
# Many mappings of a few paths that name no file on this machine (a pprof
# profile written here: 60 mappings alternating between two missing
# libraries, one location and one sample in each). The symbolizer searches
# each (path, build id) once and works out each path's file name once, so:
# - `info` names each missing path once in its "no file for" list, not
#   once per mapping;
# - every frame is labelled by its own mapping's file name, FILE+0xOFFSET
#   (the offset into the file: address - start + the mapping's offset),
#   whichever path the mapping before it had;
# - so does a frame of a long path (2,000 bytes).
. "$(dirname "$0")/lib.sh"
gen() { # OUT N LONG: N mappings; LONG=1: the second path is 2,000 bytes
  python3 - "$@" << 'EOF'
import gzip, sys
out, n, long_ = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
def varint(v):
    b = bytearray()
    while True:
        x, v = v & 0x7f, v >> 7
        b.append(x | 0x80 if v else x)
        if not v:
            return bytes(b)
def field(k, p): return varint(k << 3 | 2) + varint(len(p)) + p
def vfield(k, v): return varint(k << 3) + varint(v)
def packed(k, vals): return field(k, b"".join(varint(v) for v in vals))
b_path = "/nonexistent/" + ("y" * 2000 if long_ else "libbee") + ".so"
strings = ["", "samples", "count", "/nonexistent/libay.so", b_path]
b = bytearray(field(1, vfield(1, 1) + vfield(2, 2)))
for i in range(n):
    b += field(2, packed(1, [i + 1]) + packed(2, [i + 1]))
for i in range(n):
    start = 0x100000 * (i + 1)
    b += field(3, vfield(1, i + 1) + vfield(2, start) + vfield(3, start + 0x1000) +
               vfield(4, 0x2000 * i) + vfield(5, 3 + i % 2))
for i in range(n):
    b += field(4, vfield(1, i + 1) + vfield(2, i + 1) + vfield(3, 0x100000 * (i + 1) + 0x10))
for s in strings:
    b += field(6, s.encode())
open(out, "wb").write(gzip.compress(bytes(b)))
EOF
}
gen "$TMP/p.pb.gz" 60 0 || { fail "cannot write the profile"; finish; }
"$PROFKIT" info "$TMP/p.pb.gz" > "$TMP/info" 2> "$TMP/err"
expect_eq "info: the missing paths, each once" \
  "  no file for: /nonexistent/libay.so, /nonexistent/libbee.so" "$(grep 'no file for' "$TMP/info")"
"$PROFKIT" top -n 0 --by address "$TMP/p.pb.gz" > /dev/null 2>&1 && pass || fail "top --by address failed"
"$PROFKIT" top -n 0 "$TMP/p.pb.gz" > "$TMP/top" 2> "$TMP/err" || fail "top failed: $(cat "$TMP/err")"
# mapping i (from 0) maps offset 0x2000 * i at its start; its PC is 0x10 in
expected=$(for ((i = 0; i < 60; i++)); do
  if ((i % 2)); then f=libbee.so; else f=libay.so; fi
  printf '%s+0x%x\n' "$f" $((0x2000 * i + 0x10))
done | sort)
expect_eq "top: each frame labelled by its own mapping's file" "$expected" \
  "$(awk 'NR > 3 && NF >= 6 { print $6 }' "$TMP/top" | sort)"

gen "$TMP/long.pb.gz" 20 1 || { fail "cannot write the profile"; finish; }
"$PROFKIT" top -n 0 "$TMP/long.pb.gz" > "$TMP/top" 2> "$TMP/err" || fail "top failed: $(cat "$TMP/err")"
expect_eq "labels of the long path: its whole file name, then the offset" "10" \
  "$(awk 'NR > 3 && NF >= 6 { print $6 }' "$TMP/top" | grep -cE '^y{2000}\.so\+0x[0-9a-f]+$')"
"$PROFKIT" info "$TMP/long.pb.gz" | grep -c 'y\{2000\}\.so' > "$TMP/count"
expect_eq "info: the long path once" "1" "$(cat "$TMP/count")"
finish
