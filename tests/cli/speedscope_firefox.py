#!/usr/bin/env python3
"""speedscope -> Firefox against the Firefox Profiler's loader
(tests/cli/speedscope_firefox.sh). For a speedscope file IN and profkit's
Firefox output OUT of it: the loader's self and total per function on
each thread of OUT equal the file's own per-function weights, folded here
without profkit. speedscope's model of an evented profile (its file
format's documented semantics): between two consecutive events the stack
of open frames holds for the time between them, so a function's self
weight is the time it was on top and its total the time it was anywhere on
the stack (once however deep); a sampled profile gives each sample its
weight. Times are compared in milliseconds (the Firefox format's
`tracing-ms` weights), weights of a profile whose unit is no time as they
are (`samples` weights). A sampled profile has a second value, its
samples, which the Firefox writer puts on a thread of its own,
"NAME (samples)": there each sample counts one.
An evented profile's recorded range (startValue .. endValue) is the
loader's root range (its length; the zero moves to its start).
Usage: speedscope_firefox.py PROFKIT_SRC IN OUT WORK
Prints one line per difference and exits 1 on any; else "ok N threads".
"""
import json
import os
import sys

src, path, out, work = sys.argv[1:5]
sys.path.insert(0, os.path.join(src, "tests", "oracle"))
from chrome_compare import Loader  # noqa: E402

MS = {"nanoseconds": 1e-6, "microseconds": 1e-3, "milliseconds": 1.0, "seconds": 1e3}


def fold(doc):
    """[(thread name, {function: [self, total]})] in the loader's thread order:
    each profile, then the samples thread of each sampled profile."""
    frames = doc["shared"]["frames"]
    res, counts = [], []
    for p in doc["profiles"]:
        unit = p.get("unit", "none")
        scale = MS.get(unit, 1.0)
        fn, cn = {}, {}

        def add(stack, w, fn=fn, scale=scale):
            if not stack or w == 0:
                return
            names = [frames[i]["name"] for i in stack]
            fn.setdefault(names[-1], [0.0, 0.0])[0] += w * scale
            for n in set(names):
                fn.setdefault(n, [0.0, 0.0])[1] += w * scale
        if p["type"] == "evented":
            stack, last = [], None
            for e in p["events"]:
                if last is not None:
                    add(stack, e["at"] - last)
                last = e["at"]
                if e["type"] == "O":
                    stack.append(e["frame"])
                else:
                    stack.pop()
        else:
            for s, w in zip(p["samples"], p["weights"]):
                add(s, w)
                add(s, 1, cn, 1.0)
            counts.append((p.get("name") + " (samples)", cn))
        res.append((p.get("name"), fn))
    return res + counts


def recorded_range(doc):
    """The profiles' recorded range in ms when every profile is evented in
    a time unit (speedscope's startValue .. endValue, the first event if
    earlier, the last event when there is no endValue); else None."""
    lo = hi = None
    for p in doc.get("profiles", []):
        scale = MS.get(p.get("unit"))
        if p.get("type") != "evented" or scale is None:
            return None
        ev = p.get("events", [])
        a = p.get("startValue", 0)
        b = p.get("endValue", ev[-1]["at"] if ev else a)
        if ev and ev[0]["at"] < a:
            a = ev[0]["at"]
        lo = a * scale if lo is None else min(lo, a * scale)
        hi = b * scale if hi is None else max(hi, b * scale)
    return None if lo is None else (lo, hi)


doc = json.load(open(path))
want = fold(doc)
rec = recorded_range(doc)
loader = Loader(os.path.join(os.environ["PROFKIT_TOOLS"], "node_modules", "@firefox-devtools",
                             "profiler-cli", "dist", "profiler-cli.js"), work)
bad = []
try:
    loader.load(out)
    if rec is not None:
        # the loader's zero and whole range are the recording's, as
        # profkit's (--range's percentages count from them)
        root = loader.json("status")["rootRange"]
        if abs((root["end"] - root["start"]) - (rec[1] - rec[0])) > 1e-6:
            bad.append("root range %r in the loader, the file records %r ms" % (root, rec))
    threads = loader.json("thread", "list")["threads"]
    if len(threads) != len(want):
        bad.append("loader threads %d, the file's profiles %d" % (len(threads), len(want)))
    for th, (name, fn) in zip(threads, want):
        if name is not None and th["name"] != name:
            bad.append("thread %s named %r, profile %r" % (th.get("threadIndex"), th["name"], name))
        handle = th.get("threadHandle") or "t-%d" % th["threadIndex"]
        got = {}
        for f in loader.json("thread", "functions", "--thread", handle, "--include-idle", "--limit", "0")["functions"]:
            g = got.setdefault(f["name"], [0.0, 0.0])
            g[0] += f["selfSamples"]
            g[1] += f["totalSamples"]
        for k in sorted(set(fn) | set(got)):
            a, b = fn.get(k, [0, 0]), got.get(k, [0, 0])
            if any(abs(x - y) > 1e-9 * max(1.0, abs(x)) for x, y in zip(a, b)):
                bad.append("%s %s: the file's self/total %r, loader %r" % (name, k, a, b))
finally:
    loader.stop_all()
for b in bad[:20]:
    print(b)
if bad:
    sys.exit(1)
print("ok", len(want), "threads")
