#!/usr/bin/env python3
"""Text and JSON of one report give the same numbers. For `top` and `diff`
with a count value (printed as plain integers): the total(s) in the header
and every row's values and name (top: with the file and inline mark the
text adds), in order.
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
    # the text's label: the name, the file where another file's function
    # has that name too, and the inline mark
    mark = {"all": " (inline)", "partial": " (partial-inline)"}
    labels = [t[0] for t in got]
    def label(r):
        m = mark.get(r.get("inline"), "")
        split = r["name"] + " " + r.get("file", "") + m
        return split if "file" in r and split in labels else r["name"] + m
    want = [(label(r), r["flat"], r["cum"]) for r in js["rows"]]
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
