#!/usr/bin/env python3
"""Counters against the Firefox Profiler's own loader (profiler-cli).

Usage: counters_compare.py PROFKIT PROFILER_CLI_JS WORKDIR FILE...

For every FILE (a raw Gecko or processed Firefox profile with counters):
  1. the loader loads FILE and gives each counter (`counter list` and
     `counter info`): name, category, description, its main thread's name,
     how many samples, how many in the root range, and for a memory graph
     (line-accumulated) its range in the graph;
  2. `profkit counters --json` must give the same counters, and with
     `--range 0%,100%` (the root range) the same samples in range and the
     same memory range (its total.range); and under each zoom of ZOOMS
     (`zoom push`) `--range` with the same zoom gives the loader's samples
     in range and memory range (which carries the running sum from before
     the range);
  3. `profkit convert FILE --to firefox` loaded by the loader must give
     the same view of every counter as the input: the fields above and
     label, unit, graph type, colour, process name, pid (where the input's
     threads have one), and where the round trip's root range is the
     input's every stat and the graph itself.
Counters are matched sorted by (name, category, description, thread,
samples). Prints a line per file and every difference; exits 1 on any.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loader import Loader, LoaderError, loadable  # noqa: E402


# the zooms profkit counters --range is compared under (profiler-cli's
# `zoom push`, percentages of the root range)
ZOOMS = ("25%,75%", "10%,40%", "60%,95%")


def zoomed_view(loader):
    """Per zoom of ZOOMS: the loader's counters (sorted as loader_view's)
    with their samples in the range and memory range in the graph."""
    out = {}
    for z in ZOOMS:
        loader("zoom", "push", z)
        try:
            lst = loader.json("counter", "list")["counters"]
            rows = []
            for c in lst:
                info = loader.json("counter", "info", c["counterHandle"])
                rows.append({"name": c["name"], "category": c["category"], "description": info.get("description"),
                             "thread": c.get("mainThreadName"), "samples": info.get("sampleCount"),
                             "in_range": c.get("rangeSampleCount"), "graphType": c.get("graphType"),
                             "stats": {s["source"]: s["value"] for s in c.get("stats", [])}})
            out[z] = sorted(rows, key=key)
        finally:
            loader("zoom", "pop")
    return out


def loader_view(loader, path, zooms=None):
    """The loader's counters: a list of dicts, sorted. zooms: a dict that
    gets zoomed_view's."""
    loader.load(path)
    try:
        if zooms is not None:
            zooms.update(zoomed_view(loader))
        doc = loader.json("counter", "list")
        lst = doc["counters"]
        root = doc.get("context", {}).get("rootRange")
        out = []
        for c in lst:
            info = loader.json("counter", "info", c["counterHandle"])
            stats = {s["source"]: s["value"] for s in c.get("stats", [])}
            out.append({
                "name": c["name"], "category": c["category"], "description": info.get("description"),
                "thread": c.get("mainThreadName"), "samples": info.get("sampleCount"),
                "in_range": c.get("rangeSampleCount"), "label": c.get("label"), "unit": c.get("unit"),
                "graphType": c.get("graphType"), "color": c.get("color"),
                "processName": c.get("processName"), "pid": c.get("pid"), "stats": stats,
                "graph": c.get("graph"), "root": root,
            })
        return sorted(out, key=key)
    finally:
        loader.stop_all()


def key(c):
    return (c["name"], c["category"], c["description"] or "", c["thread"] or "", c["samples"] or 0)


def profkit_view(profkit, path, whole, rng="0%,100%"):
    args = [profkit, "counters", "--json", "-q", path]
    if not whole:
        args[2:2] = ["--range", rng]
    r = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise RuntimeError("profkit counters %s failed: %s" % (path, r.stderr.strip()[:300]))
    return json.loads(r.stdout)["counters"]


def main():
    profkit, cli, work = sys.argv[1:4]
    loader = Loader(cli, work)
    bad = 0
    for n, path in enumerate(sys.argv[4:]):
        name = os.path.basename(path)
        zooms = {}
        try:
            want = loader_view(loader, loadable(path, work), zooms)
        except LoaderError as e:
            print("skip %s: the loader cannot load its counters: %s" % (name, str(e)[:200]))
            continue
        if not want:
            print("skip %s: the loader shows no counter" % name)
            continue
        diffs = []
        # 2. profkit counters against the loader on the input
        whole = profkit_view(profkit, path, True)
        ranged = profkit_view(profkit, path, False)
        mine = []
        for w, r in zip(whole, ranged):
            if w["thread"] is None:
                continue  # the loader drops a counter of no thread
            mine.append({"name": w["name"], "category": w["category"], "description": w["description"],
                         "thread": w["thread"]["name"], "samples": w["samples"], "in_range": r["samples"],
                         "range": r["total"]["range"]})
        mine.sort(key=key)
        if len(mine) != len(want):
            diffs.append("profkit counters lists %d counters, the loader %d" % (len(mine), len(want)))
        for m, w in zip(mine, want):
            for f in ("name", "category", "description", "thread", "samples", "in_range"):
                if m[f] != w[f]:
                    diffs.append("%s %s: profkit counters %s, the loader %s" % (w["name"], f, m[f], w[f]))
            if w["graphType"] == "line-accumulated" and "count-range" in w["stats"] and \
                    m["range"] != w["stats"]["count-range"]:
                diffs.append("%s: memory range %s, the loader %s" % (w["name"], m["range"], w["stats"]["count-range"]))
        # 2b. profkit counters --range against the loader under the same zoom:
        # samples in the range and the memory range (the running sum carried
        # in from before the range, as the loader scales the track)
        for z, zw in zooms.items():
            zm = []
            for w, r in zip(whole, profkit_view(profkit, path, False, z)):
                if w["thread"] is not None:
                    zm.append({"name": w["name"], "category": w["category"], "description": w["description"],
                               "thread": w["thread"]["name"], "samples": w["samples"], "in_range": r["samples"],
                               "range": r["total"]["range"]})
            zm.sort(key=key)
            for m, w in zip(zm, zw):
                if m["in_range"] != w["in_range"]:
                    diffs.append("zoom %s %s: profkit counters --range: %s samples, the loader %s" %
                                 (z, w["name"], m["in_range"], w["in_range"]))
                if w["graphType"] == "line-accumulated" and "count-range" in w["stats"] and \
                        m["range"] != w["stats"]["count-range"]:
                    diffs.append("zoom %s %s: memory range %s, the loader %s" %
                                 (z, w["name"], m["range"], w["stats"]["count-range"]))
        # 3. the round trip
        out = os.path.join(work, "rt-%d.json" % n)
        r = subprocess.run([profkit, "convert", "-q", path, "--to", "firefox", "-o", out],
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            diffs.append("convert failed: " + r.stderr.strip()[:300])
        else:
            try:
                got = loader_view(loader, out)
            except LoaderError as e:
                got = None
                diffs.append("the loader cannot load the round trip: %s" % str(e)[:300])
            if got is not None:
                if len(got) != len(want):
                    diffs.append("round trip: %d counters, the input %d" % (len(got), len(want)))
                pids = all(w["pid"] and not str(w["pid"]).startswith("Unknown") for w in want)
                fields = ["name", "category", "description", "thread", "samples", "label", "unit",
                          "graphType", "color"] + (["processName", "pid"] if pids else [])
                # what depends on the root range is compared where the
                # round trip has the input's (it comes from the samples)
                same_root = got and got[0]["root"] == want[0]["root"]
                if same_root:
                    fields += ["in_range", "stats", "graph"]
                else:
                    print("note %s: the round trip's root range %s is not the input's %s: "
                          "samples in range, stats and graphs not compared" %
                          (name, got[0]["root"] if got else None, want[0]["root"]))
                for g, w in zip(got, want):
                    for f in fields:
                        if g[f] != w[f]:
                            diffs.append("round trip %s %s: %s, the input %s" %
                                         (w["name"], f, str(g[f])[:120], str(w[f])[:120]))
        if diffs:
            bad += 1
            print("FAIL %s" % name)
            for d in diffs:
                print("  " + d)
        else:
            print("ok %s: %d counters; profkit counters (also under %d zooms) and the round trip give "
                  "the loader's view" % (name, len(want), len(zooms)))
    if loader.retries:
        print("(the loader's daemon needed %d start-up retries)" % loader.retries)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
