#!/usr/bin/env python3
"""traces_folded.py: `profkit traces --json` or Go pprof's `-traces` text
as merged folded stacks (root first, `;`-joined, then the summed value),
sorted, so the two compare line by line.

Usage: traces_folded.py pk < profkit.json
       traces_folded.py go [--addresses] [--plus1] < pprof.traces
Go's values must be plain integers with an optional unit suffix (run it
with -unit=ns or -unit=B). --addresses: Go ran with -addresses; frames are
named by their address as profkit's --by address names them (0x...).
--plus1: the file was a gperftools profile, where Go stores each caller as
its return address - 1; the 1 is added back (the PC in the file).
--keep A,B,...: frames of other names become `?` (system libraries are
named from other files by the two tools)."""
import json
import re
import sys

merged = {}
keep = None
for a in sys.argv[2:]:
    if a.startswith("--keep="):
        keep = set(a[len("--keep="):].split(","))


def add(leaf_first, value):
    if keep is not None:
        leaf_first = [n if n in keep else "?" for n in leaf_first]
    key = ";".join(reversed(leaf_first))
    merged[key] = merged.get(key, 0) + value


if sys.argv[1] == "pk":
    doc = json.load(sys.stdin)
    for t in doc["traces"]:
        add(t["stack"], t["value"])
else:
    addresses = "--addresses" in sys.argv
    plus1 = "--plus1" in sys.argv
    stack, value = None, 0
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line.startswith("-----------+"):
            if stack:
                add(stack, value)
            stack = []
            continue
        if stack is None or not line.strip():
            continue
        name = line[13:]
        if line[:10].strip():  # "%10s   NAME": a wider value pushes the name right
            m = re.match(r"^\s*(-?\d+)[a-zA-Z]*   (.*)$", line)
            if not m:
                sys.exit("not an integer value: %r (run Go pprof with -unit=ns)" % line)
            value, name = int(m.group(1)), m.group(2)
        name = name[:-len(" (inline)")] if name.endswith(" (inline)") else name
        if addresses:
            pc = int(name.split()[0], 16)
            if plus1 and stack:
                pc += 1
            name = "0x%x" % pc
        stack.append(name)
for k in sorted(merged):
    if merged[k]:
        print("%s %d" % (k, merged[k]))
