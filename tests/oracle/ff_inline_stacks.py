#!/usr/bin/env python3
"""A processed Firefox profile (profkit's writer, version 75) -> its
samples' stacks, root first, frames of the test's own functions
(argv[2:]) with "+" per inlined frame (frameTable.flags bit 1), as sorted
"a;b+;c COUNT" lines (weights summed)."""
import json, sys

p = json.load(open(sys.argv[1]))
own = set(sys.argv[2:])
sh = p["shared"]
st, ft, fn, strs = sh["stackTable"], sh["frameTable"], sh["funcTable"], sh["stringArray"]
out = {}
for th in p["threads"]:
    s = th["samples"]
    w = s.get("weight") or [1] * s["length"]
    for i in range(s["length"]):
        k, names = s["stack"][i], []
        while k is not None:
            f = st["frame"][k]
            name = strs[fn["name"][ft["func"][f]]]
            if name in own:
                names.append(name + ("+" if ft["flags"][f] & 1 else ""))
            off = st["prefixOffset"][k]
            k = k - off if off else None
        key = ";".join(reversed(names))
        if key:
            out[key] = out.get(key, 0) + w[i]
for k in sorted(out):
    print(k, out[k])
