#!/usr/bin/env python3
"""Text and JSON of one report give the same numbers. For `top` and `diff`
with a count value (printed as plain integers): the total(s) in the header
and every row's values and name, in order.
Usage: text_vs_json.py top|diff TEXT JSON
"""
import json
import re
import sys

kind, text, js = sys.argv[1], open(sys.argv[2]).read().splitlines(), json.load(open(sys.argv[3]))
bad = []
num = r"([+-]?\d+)"
pct = r"\S+%"
if kind == "top":
    m = re.match(r"^Value: .*, total (\d+)", text[0])
    if not m or int(m.group(1)) != js["total"]:
        bad.append("total: text %r, json %d" % (text[0], js["total"]))
    rows = [re.match(r"^\s*%s\s+%s\s+%s\s+%s\s+%s  (.*)$" % (num, pct, pct, num, pct), l) for l in text[3:]]
    got = [(r.group(3), int(r.group(1)), int(r.group(2))) for r in rows if r]
    want = [(r["name"], r["flat"], r["cum"]) for r in js["rows"]]
else:
    m = re.match(r"^Value: .*, base total (\d+), new total (\d+), change \+?(-?\d+)", text[0])
    if not m or (int(m.group(1)), int(m.group(2)), int(m.group(3))) != (js["base_total"], js["new_total"], js["total_change"]):
        bad.append("totals: text %r, json %s" % (text[0], (js["base_total"], js["new_total"], js["total_change"])))
    rows = [re.match(r"^\s*%s\s+%s\s+%s\s+%s\s+%s\s+%s\s+%s\s+%s  (.*)$" % (num, pct, num, num, num, pct, num, num), l) for l in text[3:]]
    got = [(r.group(7), int(r.group(1)), int(r.group(2)), int(r.group(3)), int(r.group(4)), int(r.group(5)), int(r.group(6))) for r in rows if r]
    want = [(r["name"], r["flat_change"], r["base_flat"], r["new_flat"], r["cum_change"], r["base_cum"], r["new_cum"]) for r in js["rows"]]
if not want:
    bad.append("no rows in the JSON")
if got != want:
    bad.append("rows differ:\n text %s\n json %s" % (got[:5], want[:5]))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
