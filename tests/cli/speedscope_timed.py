#!/usr/bin/env python3
"""An evented speedscope file in milliseconds (two profiles, nested events,
fixed seed) and, independently of profkit, the folded stacks of its
intervals (tests/cli/speedscope_timed.sh)."""
import json, random, sys
# usage: speedscope_timed.py OUT.json -> writes an evented speedscope file (ms, two profiles)
# and prints nothing; speedscope_timed.py OUT.json fold A B -> folded of the intervals whose
# start (ms from the root start) is in [A, B), weights in ns
random.seed(7)
names = ["main", "parse", "eval", "gc", "io", "draw"]
profiles, intervals = [], []
for pi in range(2):
    t, stack, ev = 5.0 + pi * 0.25, [], []
    for k in range(60):
        if stack and (len(stack) > 4 or random.random() < 0.45):
            ev.append({"type": "C", "frame": stack.pop(), "at": t})
        else:
            f = random.randrange(len(names)) if stack else 0
            ev.append({"type": "O", "frame": f, "at": t})
            stack.append(f)
        nt = round(t + random.choice([0.125, 0.5, 1.25, 0.0]), 3)
        if stack and nt > t:
            intervals.append((pi, t, nt, [names[x] for x in stack]))
        t = nt
    while stack:
        ev.append({"type": "C", "frame": stack.pop(), "at": t})
    profiles.append({"type": "evented", "name": "t%d" % pi, "unit": "milliseconds",
                     "startValue": 5.0, "endValue": 50.0, "events": ev})
doc = {"$schema": "https://www.speedscope.app/file-format-schema.json",
       "shared": {"frames": [{"name": n} for n in names]}, "profiles": profiles}
json.dump(doc, open(sys.argv[1], "w"))
if len(sys.argv) > 2:
    a, b = float(sys.argv[3]), float(sys.argv[4])
    agg = {}
    for pi, s, e, st in intervals:
        if a <= s - 5.0 < b:
            k = ";".join(st)
            agg[k] = agg.get(k, 0) + round((e - s) * 1e6)
    for k, v in agg.items():
        print(k, v)
