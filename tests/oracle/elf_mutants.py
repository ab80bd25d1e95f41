#!/usr/bin/env python3
"""elf_mutants.py ELF OUTDIR: writes corrupt copies of ELF (a 64-bit
little-endian file), each as OUTDIR/NN/BASENAME: truncations at several
points (inside the ELF header, the program headers, a section, the section
headers) and seeded bit flips in the section header table, .debug_info,
.debug_abbrev, .debug_line, .debug_str, .debug_aranges/.debug_rnglists and
.symtab/.strtab. Prints one line per copy: NN what."""
import os, random, struct, sys

src, out = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
base = os.path.basename(src)
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
phoff, = struct.unpack_from("<Q", data, 0x20)
secs = {}
stro = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 0x18)[0]
for i in range(shnum):
    h = shoff + i * shentsize
    name, typ = struct.unpack_from("<II", data, h)
    off, size = struct.unpack_from("<QQ", data, h + 0x18)
    end = data.index(b"\0", stro + name)
    secs[data[stro + name:end].decode()] = (off, size)

mutants = []
for cut in [0, 1, 4, 16, 63, 64, phoff + 56, phoff + 200, len(data) // 3, len(data) // 2,
            shoff - 1, shoff + shentsize * (shnum // 2), len(data) - 1]:
    if 0 <= cut < len(data):
        mutants.append(("truncated at %d" % cut, data[:cut]))
for name in [".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".symtab"]:
    if name in secs:
        off, size = secs[name]
        mutants.append(("truncated inside %s" % name, data[:off + size // 2]))

def flips(what, lo, hi, n, seed):
    r = random.Random(seed)
    d = bytearray(data)
    for _ in range(n):
        o = r.randrange(lo, hi)
        d[o] ^= 1 << r.randrange(8)
    mutants.append(("%d bit flips in %s (seed %d)" % (n, what, seed), bytes(d)))

for seed in range(12):
    flips("section headers", shoff, shoff + shnum * shentsize, 6, seed)
for name, count in [(".debug_info", 14), (".debug_abbrev", 6), (".debug_line", 6), (".debug_str", 2),
                    (".debug_aranges", 2), (".debug_rnglists", 2), (".symtab", 3), (".strtab", 2)]:
    if name in secs and secs[name][1] > 0:
        off, size = secs[name]
        for seed in range(count):
            flips(name, off, off + size, 1 + seed % 5 * 4, 100 + seed)
flips("ELF and program headers", 0, phoff + 56 * 4, 4, 999)

for i, (what, d) in enumerate(mutants):
    os.makedirs(os.path.join(out, "%02d" % i), exist_ok=True)
    p = os.path.join(out, "%02d" % i, base)
    with open(p, "wb") as f:
        f.write(d)
    os.chmod(p, 0o755)
    print("%02d %s" % (i, what))
