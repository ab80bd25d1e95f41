#!/usr/bin/env python3
"""compare_callgrind.py: callgrind_annotate's per-function totals of a file
profkit wrote (--to callgrind) against `profkit top --json` of the same
profile and value: exclusive = top's flat, inclusive = top's cum, for every
function with a non-zero value on either side. callgrind_annotate names a
function FILE:NAME; NAME is found as the longest top name that ends the
line after a ':'. A "(root)" function, when there is one, must have the
total as its inclusive value. Prints the differences; exit 1 when any.

Usage: compare_callgrind.py TOP_JSON ANNOTATE_EXCLUSIVE ANNOTATE_INCLUSIVE
(callgrind_annotate --threshold=100 --show=EVENT --sort=EVENT)."""
import json
import re
import sys

top = json.load(open(sys.argv[1]))
names = sorted({r["name"] for r in top["rows"]}, key=len, reverse=True)
# top keeps functions of one name in two files apart (a row each, with its
# file), and so does the callgrind writer (fl= tells them apart); where a
# name has several files, a function is "FILE:NAME", as callgrind_annotate
# names it, else its name alone
files = {}
for r in top["rows"]:
    files.setdefault(r["name"], set()).add(r.get("file", ""))
split = {n for n, f in files.items() if len(f) > 1}


def key_of(r):
    return "%s:%s" % (r.get("file", ""), r["name"]) if r["name"] in split else r["name"]


want_flat, want_cum = {}, {}
for r in top["rows"]:
    want_flat[key_of(r)] = want_flat.get(key_of(r), 0) + r["flat"]
    want_cum[key_of(r)] = want_cum.get(key_of(r), 0) + r["cum"]
want_flat = {k: v for k, v in want_flat.items() if v}
want_cum = {k: v for k, v in want_cum.items() if v}


def read(path):
    out, started = {}, False
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if "file:function" in line:
            started = True
            continue
        if not started:
            continue
        m = re.match(r"^\s*(-?[\d,]+)\s+\([^)]*\)\s+(.*)$", line)
        if not m:
            if line.startswith("----") or not line.strip():
                if out and not line.strip():
                    break
                continue
            continue
        value, rest = int(m.group(1).replace(",", "")), m.group(2)
        name = next((n for n in names + ["(root)"] if rest.endswith(":" + n)), None)
        if name is None:
            print("callgrind_annotate names a function top does not: %r" % rest)
            out["?" + rest] = value
            continue
        if name in split:
            name = rest  # FILE:NAME
        out[name] = out.get(name, 0) + value
    return out


bad = 0
for what, want, path in (("exclusive", want_flat, sys.argv[2]), ("inclusive", want_cum, sys.argv[3])):
    got = read(path)
    root = got.pop("(root)", None)
    if root is not None and what == "inclusive" and root != top["total"]:
        print("(root) inclusive %d, total %d" % (root, top["total"]))
        bad = 1
    got = {k: v for k, v in got.items() if v}
    if got != want:
        bad = 1
        for k in sorted(set(got) | set(want)):
            if got.get(k) != want.get(k):
                print("%s %s: callgrind_annotate %s, profkit top %s" % (what, k, got.get(k), want.get(k)))
    if not got and want:
        print("%s: callgrind_annotate listed nothing" % what)
        bad = 1
sys.exit(bad)
