#!/usr/bin/env python3
"""Checks a page written by `profkit flame` (docs/viewer.md, schema 1).

Usage: flame_check.py PAGE.html [--totals T1,T2,...] [--base-totals ...]
                      [--max-nodes N] [--threads N] [--print EXPR]

Extracts the data element, parses it as JSON, checks every array of the
schema's shape (lengths, parents before children, indexes in range, runs in
time order), that no '<' is in the data, and that each tree's root total
(sum of self) per value type equals the given totals (the merged tree, or
the only one). Prints what --print evaluates (d = the data) and exits 1 with
a message on the first failure.
"""
import json
import re
import sys


def fail(msg):
    print("flame_check: " + msg)
    sys.exit(1)


def main():
    args = sys.argv[1:]
    page = open(args[0], encoding="utf-8").read()
    opts = {}
    i = 1
    while i < len(args):
        opts[args[i]] = args[i + 1]
        i += 2
    # The data element ends at the first "</script" after it, as in a
    # browser; what is inside must be all of the JSON and hold no '<'.
    m = re.search(r'<script[^>]*\bid="profkit-data"[^>]*>(.*?)</script', page, re.S | re.I)
    if not m:
        fail("no data element")
    text = m.group(1)
    if "<" in text:
        fail("the data holds '<'")
    d = json.loads(text)
    for k, t in (("schema", int), ("generator", str), ("title", str), ("format", str),
                 ("diff", bool), ("strings", list), ("values", list), ("default_value", int),
                 ("funcs", dict), ("threads", list)):
        if not isinstance(d.get(k), t):
            fail("%s missing or not %s" % (k, t.__name__))
    if d["schema"] != 1:
        fail("schema is not 1")
    strings, nv = d["strings"], len(d["values"])
    if strings[0] != "":
        fail("strings[0] is not empty")
    for v in d["values"]:
        if not isinstance(v.get("type"), str) or not isinstance(v.get("unit"), str):
            fail("bad value type %r" % v)
    if not 0 <= d["default_value"] < max(nv, 1):
        fail("default_value out of range")
    f = d["funcs"]
    nf = len(f["name"])
    for col in ("name", "file", "line", "module"):
        if len(f[col]) != nf:
            fail("funcs.%s has %d entries, not %d" % (col, len(f[col]), nf))
    for col in ("name", "file", "module"):
        if any(not 0 <= s < len(strings) for s in f[col]):
            fail("funcs.%s: string index out of range" % col)
    if not d["threads"]:
        fail("no threads")
    nodes = 0
    for ti, th in enumerate(d["threads"]):
        where = "threads[%d]" % ti
        for k in ("name", "process"):
            if not 0 <= th[k] < len(strings):
                fail(where + "." + k + " out of range")
        if not isinstance(th["merged"], bool) or not isinstance(th["pid"], int):
            fail(where + ": merged/pid")
        t = th["tree"]
        n = len(t["parent"])
        nodes += n
        if n < 1 or t["parent"][0] != -1 or t["func"][0] != -1 or len(t["func"]) != n:
            fail(where + ": bad root or func length")
        for j in range(1, n):
            if not 0 <= t["parent"][j] < j:
                fail(where + ": parent of node %d is not before it" % j)
            if not (t["func"][j] == -2 or 0 <= t["func"][j] < nf):
                fail(where + ": func of node %d out of range" % j)
            if t["func"][j] == -2 and t["func"][t["parent"][j]] == -2:
                fail(where + ": (other) under (other)")
        keys = ("self", "base_self") if d["diff"] else ("self",)
        if not d["diff"] and "base_self" in t:
            fail(where + ": base_self without diff")
        for k in keys:
            if len(t[k]) != nv or any(len(col) != n for col in t[k]):
                fail(where + ": %s is not %d x %d" % (k, nv, n))
        if "samples" in th:
            s = th["samples"]
            if len(s["start"]) != len(s["node"]):
                fail(where + ": samples.start and .node differ in length")
            if any(b < a for a, b in zip(s["start"], s["start"][1:])):
                fail(where + ": runs out of time order")
            if any(not 0 <= x < n for x in s["node"]):
                fail(where + ": run node out of range")
            if any(a == b for a, b in zip(s["node"], s["node"][1:])):
                fail(where + ": two consecutive runs of one node")
            if s["start"] and s["end"] < s["start"][-1]:
                fail(where + ": end before the last run")
    totals = [sum(col) for col in d["threads"][0]["tree"]["self"]]
    if "--totals" in opts:
        want = [int(x) for x in opts["--totals"].split(",") if x]
        if totals != want:
            fail("root totals %s, expected %s" % (totals, want))
    if "--base-totals" in opts:
        got = [sum(col) for col in d["threads"][0]["tree"]["base_self"]]
        want = [int(x) for x in opts["--base-totals"].split(",") if x]
        if got != want:
            fail("base totals %s, expected %s" % (got, want))
    if "--max-nodes" in opts and nodes > int(opts["--max-nodes"]):
        fail("%d nodes, more than %s" % (nodes, opts["--max-nodes"]))
    if "--threads" in opts and len(d["threads"]) != int(opts["--threads"]):
        fail("%d threads, expected %s" % (len(d["threads"]), opts["--threads"]))
    if "--print" in opts:
        print(eval(opts["--print"], {"d": d, "strings": strings}))


main()
