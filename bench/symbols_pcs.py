#!/usr/bin/env python3
"""symbols_pcs.py OUTDIR N: picks N distinct PCs inside real functions of
/usr/bin/python3 and libc.so.6 (two thirds python3, one third libc), from
their symbol tables (readelf -sW --dyn-syms: FUNC symbols with a size; one
PC per function at a fixed-seed offset inside it, then more per function
until N), as a process would map them (python3, a non-PIE executable, at
its link addresses; libc at 0x7f0000000000). Writes OUTDIR/pcs.txt (hex,
one a line), OUTDIR/maps.txt (the /proc/PID/maps lines of the executable
segments) and, for eu-addr2line, OUTDIR/python3.addrs and OUTDIR/libc.addrs
(the same PCs as each file's own virtual addresses)."""
import os, random, re, subprocess, sys

out, n = sys.argv[1], int(sys.argv[2])
r = random.Random(42)

def funcs(path):
    seen, res = set(), []
    for line in subprocess.run(["readelf", "-sW", "--dyn-syms", path], capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[6] != "UND":
            v, size = int(f[1], 16), int(f[2], 0) if not f[2].startswith("0x") else int(f[2], 16)
            if v and size > 4 and v not in seen:
                seen.add(v)
                res.append((v, size))
    return sorted(res)

def exec_loads(path):
    res = []
    for line in subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        if f and f[0] == "LOAD" and "E" in f[6:-1]:
            res.append((int(f[1], 16), int(f[2], 16), int(f[5], 16)))  # offset, vaddr, memsz
    return res

py = os.path.realpath("/usr/bin/python3")
libc = subprocess.run(["sh", "-c", "ldd " + py + " | awk '/libc.so.6/ { print $3 }'"], capture_output=True, text=True).stdout.strip()
libc = os.path.realpath(libc)
maps, pcs, addrs = [], [], {}
for path, base, share in [(py, 0, 2 * n // 3), (libc, 0x7f0000000000, n - 2 * n // 3)]:
    fs = funcs(path)
    loads = exec_loads(path)
    for off, vaddr, memsz in loads:
        lo, hi = (vaddr & ~0xfff), (vaddr + memsz + 0xfff) & ~0xfff
        maps.append("%x-%x r-xp %08x 08:01 4242 %s" % (base + lo, base + hi, off & ~0xfff, path))
    chosen = set()
    rounds = 0
    while len(chosen) < share and rounds < 64:
        for v, size in fs:
            if len(chosen) >= share:
                break
            chosen.add(v + r.randrange(1, size))
        rounds += 1
    chosen = sorted(chosen)
    addrs[path] = chosen
    pcs += [base + a for a in chosen]
r.shuffle(pcs)
with open(os.path.join(out, "pcs.txt"), "w") as f:
    f.write("".join("%x\n" % p for p in pcs))
with open(os.path.join(out, "maps.txt"), "w") as f:
    f.write("".join(m + "\n" for m in maps))
for path, name in [(py, "python3"), (libc, "libc")]:
    with open(os.path.join(out, name + ".addrs"), "w") as f:
        f.write("".join("0x%x\n" % a for a in addrs[path]))
print(py, len(addrs[py]), libc, len(addrs[libc]))
