#!/usr/bin/env python3
"""A reference reading of a V8 .cpuprofile, written from the rules in
docs/formats/v8_cpuprofile.md and nothing of profkit's: prints the folded
stacks (root;...;leaf VALUE) of the value named on the command line
("samples" or "wall"), one line per distinct stack, sorted.

Stacks follow the parent/child links of `nodes[].children`; a tree root
named "(root)" is left out; an empty functionName is "(anonymous)". Sample
i is at startTime + timeDeltas[0..i]; its wall time is the gap to sample
i+1 (0 when negative), the last sample's the gap to endTime."""
import json
import sys
from collections import defaultdict


def main():
    path, value = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        prof = json.load(f)
    nodes = {n["id"]: n for n in prof["nodes"]}
    parent = {}
    for n in prof["nodes"]:
        for c in n.get("children", []):
            parent[c] = n["id"]

    def label(n):
        name = n["callFrame"]["functionName"] or "(anonymous)"
        return name.replace(";", "_").replace("\n", "_").replace("\r", "_")

    def stack(nid):
        out = []
        while nid is not None:
            n = nodes[nid]
            if not (nid not in parent and n["callFrame"]["functionName"] == "(root)"):
                out.append(label(n))
            nid = parent.get(nid)
        return ";".join(reversed(out))

    samples, deltas = prof["samples"], prof["timeDeltas"]
    assert len(samples) == len(deltas)
    times, t = [], prof["startTime"]
    for d in deltas:
        t += d
        times.append(t)
    sums = defaultdict(int)
    for i, s in enumerate(samples):
        if value == "samples":
            v = 1
        else:
            end = times[i + 1] if i + 1 < len(times) else prof["endTime"]
            v = max(0, end - times[i])
        sums[stack(s)] += v
    for k in sorted(sums):
        if sums[k] and k:
            print(f"{k} {sums[k]}")


main()
