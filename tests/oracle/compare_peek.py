#!/usr/bin/env python3
"""compare_peek.py: `profkit peek --json` against Go pprof's `-peek` text
(run with -unit=ns): for every matched function its flat and cum value, and
each caller's and callee's edge value. Prints the differences; exit 1 when
there are any.

Usage: compare_peek.py PROFKIT_JSON PPROF_PEEK [NAME...]
With NAMEs, only those functions and the edges between two of them are
compared (the rest are named from other files by the two tools)."""
import json
import re
import sys


def num(s):
    m = re.match(r"^(-?\d+)[a-zA-Z]*$", s)
    if not m:
        sys.exit("not an integer value: %r (run Go pprof with -unit=ns)" % s)
    return int(m.group(1))


def go_rows(path):
    rows, cur, before = {}, None, []
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("-----") and "+" in line:
            cur, before = None, []
            continue
        if "|" not in line:
            continue
        left, right = line.split("|", 1)
        f = left.split()
        name = right.strip()
        if name.endswith(" (inline)"):
            name = name[:-len(" (inline)")]
        if len(f) == 2 and line.startswith(" " * 20):
            if cur is None:
                before.append((name, num(f[0])))
            else:
                rows[cur]["callees"][name] = num(f[0])
        elif len(f) == 5:
            cur = name
            rows[cur] = {"flat": num(f[0]), "cum": num(f[3]), "callers": dict(before), "callees": {}}
    return rows


def pk_rows(path):
    doc = json.load(open(path))
    return {r["name"]: {"flat": r["flat"], "cum": r["cum"],
                        "callers": {e["name"]: e["value"] for e in r["callers"]},
                        "callees": {e["name"]: e["value"] for e in r["callees"]}} for r in doc["rows"]}


pk, go = pk_rows(sys.argv[1]), go_rows(sys.argv[2])
only = set(sys.argv[3:])
bad = 0
if not go:
    print("Go pprof matched nothing")
    bad = 1
for name in sorted(set(pk) | set(go)):
    if only and name not in only:
        continue
    a, b = pk.get(name), go.get(name)
    if a is None or b is None:
        print("%s: only in %s" % (name, "Go pprof" if a is None else "profkit"))
        bad = 1
        continue
    for k in ("flat", "cum"):
        if a[k] != b[k]:
            print("%s %s: profkit %d, Go pprof %d" % (name, k, a[k], b[k]))
            bad = 1
    for k in ("callers", "callees"):
        ea = {n: v for n, v in a[k].items() if not only or n in only}
        eb = {n: v for n, v in b[k].items() if not only or n in only}
        if ea != eb:
            print("%s %s: profkit %s, Go pprof %s" % (name, k, sorted(ea.items()), sorted(eb.items())))
            bad = 1
sys.exit(bad)
