#!/usr/bin/env python3
"""Compares `profkit top -n 0 --json` (file 1) with Go pprof's
`-top -nodecount=N -nodefraction=0 -unit=ns` (or -unit=B) text (file 2):
the sum of every function's flat value must equal pprof's "accounting for"
figure (the filtered total; pprof's "of ... total" is the unfiltered one),
and each function's flat and cumulative values must be equal, and its
inline mark: pprof's " (inline)" / " (partial-inline)" suffix against
profkit's "inline" field ("all" / "partial"). Prints the differences;
exits 1 on any.
Usage: compare_top_json.py PROFKIT_JSON PPROF_TOP
"""
import json
import re
import sys

pk = json.load(open(sys.argv[1]))
go_rows, go_shown = {}, None
for line in open(sys.argv[2]):
    m = re.match(r"^Showing nodes accounting for (-?\d+)(?:ns|B)?,", line)
    if m:
        go_shown = int(m.group(1))
        continue
    m = re.match(r"^\s*(-?\d+)(?:ns|B)?\s+\S+%\s+\S+%\s+(-?\d+)(?:ns|B)?\s+\S+%\s+(.*?)"
                 r"(?: \((inline|partial-inline)\))?\s*$", line)
    if m:
        mark = {"inline": "all", "partial-inline": "partial"}.get(m.group(4), "")
        go_rows[m.group(3)] = (int(m.group(1)), int(m.group(2)), mark)
bad = []
pk_rows = {r["name"]: (r["flat"], r["cum"], r.get("inline", "")) for r in pk["rows"]}
if go_shown is None:
    bad.append("no 'Showing nodes accounting for' line in pprof's output")
elif go_shown != pk["total"]:
    bad.append("total: profkit %d, pprof %d" % (pk["total"], go_shown))
for name in sorted(set(pk_rows) | set(go_rows)):
    a, b = pk_rows.get(name, (0, 0, "")), go_rows.get(name, (0, 0, ""))
    if a != b:
        bad.append("%s: profkit flat/cum/inline %s, pprof %s" % (name, a, b))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
