#!/usr/bin/env bash
# `profkit list --disasm`:
#   - golden output for a program written in assembly here (its bytes, and
#     so its instructions, do not depend on a compiler's version) and a
#     pprof profile of its addresses made here: each source line, then its
#     instructions with their flat and cum values; a caller's return
#     address counts for its call instruction;
#   - a program built now (tests/oracle/inl_main.c, -g -O2, inlined calls)
#     profiled with libprofiler: per function, the per-instruction flat
#     values sum to each line's flat and to the function's; hot's
#     instructions are at objdump's addresses; every sampled leaf address in
#     hot is an instruction of it with a value, and every return address in
#     main follows a call instruction that has the caller's value;
#   - a corrupt ELF (text cut off, .text larger than the file, an unknown
#     machine): a message naming the file, exit 0, no crash;
#   - an AArch64 ELF written here: its instructions (golden).
. "$(dirname "$0")/lib.sh"
ORACLE="$PROFKIT_SRC/tests/oracle"
for t in as ld protoc objdump python3; do
  command -v "$t" > /dev/null || { fail "$t missing: scripts/deps.sh --test"; finish; }
done

A="$TMP/asm"
mkdir -p "$A"
cat > "$A/work.s" << 'ASM'
	.text
	.globl	_start
	.type	_start, @function
_start:
	mov	$1000, %ecx
1:	call	work
	dec	%ecx
	jnz	1b
	mov	$60, %eax
	xor	%edi, %edi
	syscall
	.size	_start, .-_start
	.globl	work
	.type	work, @function
work:
	xor	%eax, %eax
	add	$3, %eax
	imul	%eax, %eax
	ret
	.size	work, .-work
ASM
(cd "$A" && as -g -o work.o work.s && ld -o work work.o) || { fail "cannot assemble work.s"; finish; }
# leaf add (5), leaf imul (3), leaf dec in _start (2), leaf xor (1); callers
# return to 0x40100a (dec), after the call at 0x401005
cat > "$A/p.txt" << PB
sample_type { type: 1 unit: 2 }
sample { location_id: [1, 4] value: [5] }
sample { location_id: [2, 4] value: [3] }
sample { location_id: [4] value: [2] }
sample { location_id: [3, 4] value: [1] }
mapping { id: 1 memory_start: 0x400000 memory_limit: 0x402000 file_offset: 0 filename: 3 }
location { id: 1 mapping_id: 1 address: 0x401019 }
location { id: 2 mapping_id: 1 address: 0x40101c }
location { id: 3 mapping_id: 1 address: 0x401017 }
location { id: 4 mapping_id: 1 address: 0x40100a }
string_table: ["", "samples", "count", "$A/work"]
PB
protoc --encode=perftools.profiles.Profile -I "$ORACLE" profile.proto < "$A/p.txt" > "$A/p.pb" ||
  { fail "protoc --encode failed"; finish; }
"$PROFKIT" list --disasm . "$A/p.pb" 2>&1 | sed "s|$A|ASM|" > "$TMP/out"
printf '%s\n' \
  'Value: samples (count), total 11' \
  'ROUTINE ======================== _start in ASM/work.s' \
  '         2         11 (flat, cum) 100% of Total' \
  '         .          .      5:	mov	$1000, %ecx' \
  '         .          .               0x401000: mov ecx, 0x3e8' \
  '         .          9      6:1:	call	work' \
  '         .          9               0x401005: call 0x401017' \
  '         2          2      7:	dec	%ecx' \
  '         2          2               0x40100a: dec ecx' \
  '         .          .      8:	jnz	1b' \
  '         .          .               0x40100c: jne 0x401005' \
  '         .          .      9:	mov	$60, %eax' \
  '         .          .               0x40100e: mov eax, 0x3c' \
  '         .          .     10:	xor	%edi, %edi' \
  '         .          .               0x401013: xor edi, edi' \
  '         .          .     11:	syscall' \
  '         .          .               0x401015: syscall' \
  'ROUTINE ======================== work in ASM/work.s' \
  '         9          9 (flat, cum) 81.82% of Total' \
  '         1          1     16:	xor	%eax, %eax' \
  '         1          1               0x401017: xor eax, eax' \
  '         5          5     17:	add	$3, %eax' \
  '         5          5               0x401019: add eax, 3' \
  '         3          3     18:	imul	%eax, %eax' \
  '         3          3               0x40101c: imul eax, eax' \
  '         .          .     19:	ret' \
  '         .          .               0x40101f: ret' > "$TMP/want"
expect_files_eq "list --disasm of an assembly program" "$TMP/want" "$TMP/out"

# Without the source: the lines with values or instructions, each followed by its instructions.
mv "$A/work.s" "$A/work.s.away"
"$PROFKIT" list --disasm '^work$' "$A/p.pb" 2>&1 | sed "s|$A|ASM|" > "$TMP/out"
printf '%s\n' \
  'Value: samples (count), total 11' \
  'ROUTINE ======================== work in ASM/work.s' \
  '         9          9 (flat, cum) 81.82% of Total' \
  '                      (source not found: ASM/work.s)' \
  '         1          1     16' \
  '         1          1               0x401017: xor eax, eax' \
  '         5          5     17' \
  '         5          5               0x401019: add eax, 3' \
  '         3          3     18' \
  '         3          3               0x40101c: imul eax, eax' \
  '         .          .     19' \
  '         .          .               0x40101f: ret' > "$TMP/want"
expect_files_eq "list --disasm without the source" "$TMP/want" "$TMP/out"
mv "$A/work.s.away" "$A/work.s"

# Hostile files, found through --binary while the real one is away: the
# text cut off, then an unknown machine, then no file at all.
mv "$A/work" "$A/work.good"
mkdir -p "$A/cut" "$A/arch"
head -c 4120 "$A/work.good" > "$A/cut/work"
"$PROFKIT" list --disasm --binary "$A/cut/work" . "$A/p.pb" > "$TMP/out" 2>&1
expect_eq "cut ELF: exit 0" 0 "$?"
grep -q "AddressSanitizer\|runtime error" "$TMP/out" && fail "cut ELF: sanitizer report" || pass
# .text's size in its section header far past the end of the file
mkdir -p "$A/big"
python3 - "$A/work.good" "$A/big/work" << 'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
shoff, = struct.unpack_from('<Q', b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
stroff, = struct.unpack_from('<Q', b, shoff + shstrndx * shentsize + 0x18)
for i in range(shnum):
    h = shoff + i * shentsize
    name, = struct.unpack_from('<I', b, h)
    if b[stroff + name:stroff + name + 6] == b'.text\0':
        struct.pack_into('<Q', b, h + 0x20, 0x7fffffff)
open(sys.argv[2], 'wb').write(b)
PY
"$PROFKIT" list --disasm --binary "$A/big/work" . "$A/p.pb" > "$TMP/out" 2>&1
expect_eq ".text larger than the file: exit 0" 0 "$?"
grep -q "AddressSanitizer\|runtime error" "$TMP/out" && fail ".text larger than the file: sanitizer report" || pass
grep -qF "$A/big/work" "$TMP/out" && pass || { fail ".text larger than the file: no message naming it"; cat "$TMP/out"; }
python3 - "$A/work.good" "$A/arch/work" << 'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[18:20] = (243).to_bytes(2, 'little')  # e_machine = EM_RISCV
open(sys.argv[2], 'wb').write(b)
PY
"$PROFKIT" list --disasm --binary "$A/arch/work" '^work$' "$A/p.pb" > "$TMP/out" 2>&1
expect_eq "unknown machine: exit 0" 0 "$?"
grep -qF "(no instructions: $A/arch/work: ELF machine 243 has no disassembler here" "$TMP/out" &&
  pass || { fail "unknown machine: no message naming the file"; cat "$TMP/out"; }
"$PROFKIT" list --disasm --no-symbolize . "$A/p.pb" > "$TMP/out" 2>&1
expect_eq "no file: exit 0" 0 "$?"
grep -qF "(no instructions: no file for $A/work)" "$TMP/out" && pass || { fail "no file: no message"; cat "$TMP/out"; }
mv "$A/work.good" "$A/work"

# AArch64: an ELF written here byte by byte (no cross tools needed): one
# function of four instructions in .text, its symbol in .symtab.
mkdir -p "$TMP/a64"
python3 - "$TMP/a64/work" << 'PY'
import struct, sys
text = struct.pack('<4I', 0xd2800020, 0x91000c00, 0x9b007c00, 0xd65f03c0)  # mov, add, mul, ret
strtab, shstr = b"\0work\0", b"\0.text\0.symtab\0.strtab\0.shstrtab\0"
base, text_off = 0x400000, 0x100
sym = b"\0" * 24 + struct.pack('<IBBHQQ', 1, (1 << 4) | 2, 0, 1, base + text_off, len(text))
body = bytearray(text_off) + text
symoff = len(body); body += sym
stroff = len(body); body += strtab
shsoff = len(body); body += shstr
while len(body) % 8:
    body += b"\0"
shoff = len(body)
def sh(name, typ, flags, addr, off, size, link=0, info=0, align=1, entsize=0):
    return struct.pack('<IIQQQQIIQQ', name, typ, flags, addr, off, size, link, info, align, entsize)
body += (sh(0, 0, 0, 0, 0, 0) + sh(1, 1, 6, base + text_off, text_off, len(text), align=4) +
         sh(7, 2, 0, 0, symoff, len(sym), link=3, info=1, align=8, entsize=24) +
         sh(15, 3, 0, 0, stroff, len(strtab)) + sh(23, 3, 0, 0, shsoff, len(shstr)))
ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
body[0:64] = ident + struct.pack('<HHIQQQIHHHHHH', 2, 183, 1, base + text_off, 64, shoff, 0, 64, 56, 1, 64, 5, 4)
body[64:120] = struct.pack('<IIQQQQQQ', 1, 5, 0, base, base, text_off + len(text), text_off + len(text), 0x1000)
open(sys.argv[1], 'wb').write(body)
PY
cat > "$TMP/a64/p.txt" << PB
sample_type { type: 1 unit: 2 }
sample { location_id: [1] value: [5] }
sample { location_id: [2] value: [2] }
mapping { id: 1 memory_start: 0x400000 memory_limit: 0x401000 file_offset: 0 filename: 3 }
location { id: 1 mapping_id: 1 address: 0x400104 }
location { id: 2 mapping_id: 1 address: 0x400108 }
string_table: ["", "samples", "count", "$TMP/a64/work"]
PB
protoc --encode=perftools.profiles.Profile -I "$ORACLE" profile.proto < "$TMP/a64/p.txt" > "$TMP/a64/p.pb" ||
  { fail "protoc --encode failed"; finish; }
"$PROFKIT" list --disasm . "$TMP/a64/p.pb" > "$TMP/out" 2>&1
printf '%s\n' \
  'Value: samples (count), total 7' \
  'ROUTINE ======================== work in (no file)' \
  '         7          7 (flat, cum) 100% of Total' \
  '         7          7      ?: (no line)' \
  '         .          .               0x400100: movz x0, #0x1' \
  '         5          5               0x400104: add x0, x0, #3' \
  '         2          2               0x400108: mul x0, x0, x0' \
  '         .          .               0x40010c: ret' > "$TMP/want"
expect_files_eq "list --disasm of an AArch64 ELF" "$TMP/want" "$TMP/out"

# A real program.
D="$TMP/prog"
mkdir -p "$D"
cp "$ORACLE/inl_main.c" "$ORACLE/inl_lib.c" "$D/"
cd "$D" || exit 1
cc -g -O2 -fPIC -shared -o libinl.so inl_lib.c &&
  cc -g -O2 -fno-pie -no-pie -o prog inl_main.c -L. -linl -Wl,-rpath,"$D" -Wl,--no-as-needed -lprofiler ||
  { fail "cannot build inl_main.c against libprofiler (libgoogle-perftools-dev)"; finish; }
prof="$TMP/p.prof"
CPUPROFILE="$prof" CPUPROFILE_FREQUENCY=1000 ./prog 2000 > /dev/null 2>&1
[ -s "$prof" ] || { fail "no profile written"; finish; }
"$PROFKIT" list --disasm --value samples '^(hot|warm|mix|main|lib_spin)$' "$prof" > "$TMP/dis" 2>&1 ||
  { fail "list --disasm failed"; cat "$TMP/dis"; finish; }
objdump -d --no-show-raw-insn prog > "$TMP/objdump"
"$PROFKIT" traces --no-symbolize --value samples "$prof" > "$TMP/traces"
nm prog > "$TMP/nm"
python3 - "$TMP/dis" "$TMP/objdump" "$TMP/traces" "$TMP/nm" << 'PY'
import re, sys
dis, objd, traces, nm = (open(f).read().splitlines() for f in sys.argv[1:5])
def val(s):
    return 0 if s == "." else int(s)
funcs, name, line = {}, None, None
for l in dis:
    if l.startswith("ROUTINE"):
        name = l.split()[2]
        funcs[name] = {"flat": None, "lines": {}, "insns": {}, "order": []}
        continue
    f = funcs.get(name)
    if f is None:
        continue
    if "(flat, cum)" in l:
        f["flat"] = val(l.split()[0])
        continue
    m = re.match(r"^ *(\S+) +(\S+) +0x([0-9a-f]+): (.*)$", l)
    if m:
        a = int(m.group(3), 16)
        f["insns"][a] = (val(m.group(1)), val(m.group(2)), m.group(4))
        f["order"].append(a)
        f["lines"].setdefault(line, [0, 0])[1] += val(m.group(1))
        continue
    m = re.match(r"^ *(\S+) +(\S+) +([0-9]+|\?)[: ]", l)
    if m:
        line = m.group(3)
        f["lines"].setdefault(line, [0, 0])[0] = val(m.group(1))
bad = []
for n, f in sorted(funcs.items()):
    if not f["insns"]:
        bad.append("%s: no instructions" % n)
    for ln, (lflat, iflat) in f["lines"].items():
        if lflat != iflat:
            bad.append("%s line %s: flat %d, its instructions' flat %d" % (n, ln, lflat, iflat))
    if sum(v[0] for v in f["insns"].values()) != f["flat"]:
        bad.append("%s: instructions' flat %d != function flat %s" % (n, sum(v[0] for v in f["insns"].values()), f["flat"]))
print("functions:", " ".join(sorted(funcs)))
# hot's instructions are objdump's
want, on = set(), False
for l in objd:
    if re.match(r"^[0-9a-f]+ <hot>:", l):
        on = True
        continue
    if on and not l.strip():
        break
    m = re.match(r"^ *([0-9a-f]+):\s+(\S+)", l)
    if on and m:
        want.add(int(m.group(1), 16))
        last_ret = m.group(2)
        pad = int(m.group(1), 16)
# the alignment padding after the last instruction is outside DWARF's range
if want and last_ret.startswith(("nop", "xchg", "cs", "data16", "int3")):
    want.discard(pad)
got = set(funcs.get("hot", {"insns": {}})["insns"])
if not want or got != want:
    bad.append("hot: instruction addresses differ from objdump's: only profkit %s, only objdump %s"
               % (sorted(map(hex, got - want))[:5], sorted(map(hex, want - got))[:5]))
sym = {}
for l in nm:
    p = l.split()
    if len(p) == 3 and p[1] in "tT":
        sym[p[2]] = int(p[0], 16)
def range_of(fn):
    lo = sym[fn]
    return lo, min([a for a in sym.values() if a > lo] + [lo + 4096])
# leaf addresses in hot: each an instruction with a cum value; return addresses in main: after a call with one
hlo, hhi = range_of("hot")
mlo, mhi = range_of("main")
leaf, checked = True, 0
for l in traces:
    if l.startswith("---"):
        leaf = True
        continue
    m = re.search(r"(0x[0-9a-f]+)$", l)
    if not m or l.startswith("Value") or l.startswith("Showing"):
        continue
    a = int(m.group(1), 16)
    if leaf and hlo <= a < hhi:
        checked += 1
        ins = funcs["hot"]["insns"].get(a)
        if not ins or ins[1] == 0:
            bad.append("hot: leaf address %#x is not an instruction with a value" % a)
    if not leaf and mlo <= a < mhi:
        checked += 1
        prev = [x for x in funcs["main"]["insns"] if x < a]
        ins = funcs["main"]["insns"].get(max(prev)) if prev else None
        if not ins or not ins[2].startswith("call") or ins[1] == 0:
            bad.append("main: return address %#x does not follow a call with a value (%s)" % (a, ins))
    leaf = False
if checked < 3:
    bad.append("only %d sampled addresses checked" % checked)
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] && pass || fail "list --disasm on a real program (above)"
finish
