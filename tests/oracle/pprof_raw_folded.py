#!/usr/bin/env python3
"""Go pprof's `-raw -symbolize=none` dump of a gperftools CPU profile, as
folded stacks labelled by the PCs recorded in the file, merged and sorted,
so it compares with `profkit convert --to folded --value samples | sort`.

Go pprof stores each caller as its return address - 1 (the address to
symbolize); the PC in the file is that + 1, so callers get 1 added back.
Rows with a count of 0 are dropped, as folded output drops them.
Usage: pprof -raw -symbolize=none FILE | pprof_raw_folded.py
"""
import re
import sys

mode = None
rows = []
addr = {}
for line in sys.stdin:
    s = line.rstrip("\n")
    if s.startswith("Samples:"):
        mode = "s"
        continue
    if s.startswith("Locations"):
        mode = "l"
        continue
    if s.startswith("Mappings"):
        mode = "m"
        continue
    if mode == "s" and ":" in s:
        vals, ids = s.split(":", 1)
        rows.append((int(vals.split()[0]), ids.split()))
    elif mode == "l":
        m = re.match(r"\s*(\d+): (0x[0-9a-f]+)", s)
        if m:
            addr[m.group(1)] = int(m.group(2), 16)

merged = {}
for count, ids in rows:
    if count == 0:
        continue
    pcs = [addr[i] + (1 if k > 0 else 0) for k, i in enumerate(ids)]
    key = ";".join("0x%x" % pc for pc in reversed(pcs))
    merged[key] = merged.get(key, 0) + count
for key in sorted(merged):
    print("%s %d" % (key, merged[key]))
