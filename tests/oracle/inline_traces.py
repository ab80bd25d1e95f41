#!/usr/bin/env python3
"""Go pprof -traces output -> the multiset of stacks, root first, each frame
of the test's own functions (argv[2:]) with "+" per inlined frame, as
"a;b+;c COUNT" lines sorted; frames of other functions are dropped and
traces that become equal are merged. Durations are summed in ms."""
import re, sys

own = set(sys.argv[2:])
traces = {}
cur, val = None, 0

def flush():
    if cur is not None:
        key = ";".join(reversed(cur))
        if key:
            traces[key] = traces.get(key, 0) + val

def ms(s):
    m = re.match(r"([0-9.]+)(ns|us|µs|ms|s)$", s)
    f = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1, "s": 1000}[m.group(2)]
    return float(m.group(1)) * f

for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    if line.startswith("-----------+"):
        flush()
        cur, val = [], 0
        continue
    if cur is None:
        continue
    m = re.match(r"^\s*([0-9.]+(?:ns|us|µs|ms|s))\s+(.*)$", line)
    if m and not cur:
        val = ms(m.group(1))
        name = m.group(2)
    else:
        name = line.strip()
    inl = name.endswith(" (inline)")
    if inl:
        name = name[: -len(" (inline)")]
    if name in own:
        cur.append(name + ("+" if inl else ""))
flush()
for k in sorted(traces):
    print(k, round(traces[k]))
