#!/usr/bin/env python3
"""focus_category_ref.py: the Firefox Profiler's focus-category transform,
written again from its definition, on a processed profile of version 75
(profkit's Firefox output, which tests/oracle/categories_compare.py checks
gives the loader the input's categories), for one thread and category.

Usage: focus_category_ref.py PROFILE.json THREAD_INDEX CATEGORY_NAME
Prints the folded stacks that stay (function names root first, joined by
';', then the summed weight), sorted, as `profkit convert --to folded`.

A stack's category is its frame's (frame flags bit 4), else its prefix's,
else the default category (the first grey one). The transform keeps, in
each stack, only the frames whose stack is of the category; a sample left
with no frame goes.
"""
import json
import re
import sys


def main():
    path, thread, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path) as f:
        d = json.load(f)
    cats = d["meta"]["categories"]
    want = [i for i, c in enumerate(cats) if c["name"] == name][0]
    default = next((i for i, c in enumerate(cats) if c.get("color") == "grey"), -1)
    sh = d["shared"]
    st, ft, fn, strings = sh["stackTable"], sh["frameTable"], sh["funcTable"], sh["stringArray"]
    n = st["length"]
    cat = [0] * n
    prefix = [-1] * n
    kept = [None] * n  # the kept frames' function names, root first
    for i in range(n):
        off = st["prefixOffset"][i]
        prefix[i] = -1 if off == 0 else i - off
        fr = st["frame"][i]
        if ft["flags"][fr] & 4:
            cat[i] = ft["category"][fr]
        elif prefix[i] >= 0:
            cat[i] = cat[prefix[i]]
        else:
            cat[i] = default
        up = kept[prefix[i]] if prefix[i] >= 0 else ()
        if cat[i] == want:
            label = re.sub(r"[;\n\r]", "_", strings[fn["name"][ft["func"][fr]]])
            kept[i] = up + (label,)
        else:
            kept[i] = up
    s = d["threads"][thread]["samples"]
    weights = s.get("weight")
    out = {}
    for k, stack in enumerate(s["stack"]):
        if stack is None or not kept[stack]:
            continue
        w = weights[k] if weights else 1
        key = ";".join(kept[stack])
        out[key] = out.get(key, 0) + w
    for key in sorted(out):
        print("%s %d" % (key, out[key]))


if __name__ == "__main__":
    main()
