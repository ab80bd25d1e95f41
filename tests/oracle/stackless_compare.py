#!/usr/bin/env python3
"""stackless_compare.py: samples without a stack (and V8's "(root)",
"(program)", "(idle)", "(garbage collector)" samples) in profkit's totals
against the Firefox Profiler's own loader (docs/formats/firefox.md and
chrome.md say the rules this checks).

Per FILE, by its kind:
  - a processed Firefox profile (meta.preprocessedProfileVersion): per
    thread, the loader's call tree (`thread functions --include-idle`, the
    self samples summed) holds the samples with a stack only: its total
    equals the sum of profkit's self samples (`top --json --value samples`),
    and profkit's total is larger by exactly the thread's null stacks in the
    file, by their weights where the samples have some (profkit counts them
    in its total, in no function); a thread whose samples weigh in bytes or
    ms is passed over;
  - a V8 .cpuprofile or a Chrome trace of one profile: every sample has a
    node, so the loader leaves none out of its call tree: the samples it
    keeps (its 0.5 ms rule, computed from the file as chrome_compare.py
    does) give per function the counts profkit's samples give at the same
    positions, a sample on V8's "(root)" node is "(root)"'s self in the
    loader and profkit's empty stack, and the loader's total is the kept
    samples.

Usage: stackless_compare.py --profkit BIN --cli PROFILER_CLI_JS --work DIR FILE...
Exits 1 on any difference.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chrome_compare as cc  # noqa: E402
from loader import read_json  # noqa: E402


def check_processed(profkit, loader, path):
    doc = read_json(path)
    info = json.loads(cc.run([profkit, "info", "--quiet", "--json", path]).stdout.decode("utf-8"))
    loader.load(path)
    out = []
    try:
        threads = sorted(loader.json("thread", "list")["threads"], key=lambda t: t["threadIndex"])
        if len(threads) != len(info["threads"]) or len(threads) != len(doc["threads"]):
            return ["FAIL %s: %d threads in the loader, %d in profkit, %d in the file" % (
                path, len(threads), len(info["threads"]), len(doc["threads"]))]
        for i, t in enumerate(threads):
            samples = doc["threads"][i].get("samples") or {}
            if samples.get("weightType", "samples") != "samples":
                out.append("note %s thread %d: its samples weigh in %s: not counted" % (
                    path, i, samples["weightType"]))
                continue
            weight = samples.get("weight") or [1] * len(samples.get("stack", []))
            nulls = sum(w for s, w in zip(samples.get("stack", []), weight) if s is None)
            top = json.loads(cc.run([profkit, "top", "-q", "--no-symbolize", "--value", "samples", "--thread",
                                     str(i), "-n", "0", "--json", path]).stdout.decode("utf-8"))
            total, stacked = top["total"], sum(r["flat"] for r in top["rows"])
            fun = loader.json("thread", "functions", "--thread", t["threadHandle"], "--include-idle",
                              "--limit", "0")
            theirs = sum(f["selfSamples"] for f in fun["functions"])
            ok = theirs == stacked and total - stacked == nulls
            out.append("%s %s thread %d: loader's call tree %d samples, profkit's total %d = %d with a stack "
                       "+ %d without (the file's null stacks: %d)" % (
                           "ok" if ok else "FAIL", path, i, theirs, total, stacked, total - stacked, nulls))
    finally:
        loader("stop", timeout=60)
    return out


def check_v8(profkit, loader, work, path, index):
    doc = read_json(path)
    if isinstance(doc, dict) and "nodes" in doc:  # a .cpuprofile: one profile from startTime
        events = [{"name": "Profile", "id": 1, "pid": 0, "args": {"data": {"startTime": doc["startTime"]}}},
                  {"name": "ProfileChunk", "id": 1, "pid": 0,
                   "args": {"data": {"cpuProfile": {"samples": doc["samples"]}, "timeDeltas": doc["timeDeltas"]}}}]
        pid, pid_id, tid = 0, 1, 0
    else:
        events = cc.events_of(doc)
        profiles = cc.profiles_of(events)
        if len(profiles) != 1:
            return ["FAIL %s: expected a trace of one profile, it has %d" % (path, len(profiles))]
        pid, pid_id, tid, _ = profiles[0]
    keep = cc.loader_keeps(events, pid, pid_id)
    sampled = [t for t in cc.profkit_samples(profkit, path, work, "s%d" % index) if t]
    if len(sampled) != 1:
        return ["FAIL %s: %d sampled threads in profkit" % (path, len(sampled))]
    samples = sampled[0]
    exp = cc.counts(samples, keep)
    loader.load(path)
    try:
        if isinstance(doc, dict) and "nodes" in doc:
            handle = "t-0"
        else:
            handle, _ = cc.thread_handle(loader, pid, tid)
        got = cc.loader_counts(loader, handle)
        fun = loader.json("thread", "functions", "--thread", handle, "--include-idle", "--limit", "0")
    finally:
        loader("stop", timeout=60)
    theirs = sum(f["selfSamples"] for f in fun["functions"])
    kept = sum(keep)
    empty = sum(1 for st, k in zip(samples, keep) if k and not [n for n in st if n != "(root)"])
    special = {}
    for st, k in zip(samples, keep):
        if k and st and st[-1].startswith("("):
            special[st[-1]] = special.get(st[-1], 0) + 1
    msg = cc.root_check(samples, keep, got, path) or cc.compare(exp, got, path)
    if not msg and theirs != kept:
        msg = "the loader's call tree holds %d samples, it keeps %d" % (theirs, kept)
    return ["%s %s: %d of %d samples kept by the loader, all in its call tree (%d); %d on the (root) node "
            "(profkit's empty stack), leaves in parentheses %r%s" % (
                "FAIL" if msg else "ok", path, kept, len(keep), theirs, empty, special,
                ": " + msg if msg else "")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profkit", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()

    def one(loader, path, i):
        doc = read_json(path)
        if isinstance(doc, dict) and "meta" in doc:
            return check_processed(a.profkit, loader, path)
        return check_v8(a.profkit, loader, a.work, path, i)

    return cc.run_files(a.cli, a.work, a.files, one)


if __name__ == "__main__":
    sys.exit(main())
