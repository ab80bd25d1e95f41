#!/usr/bin/env python3
"""v8_range_compare.py: a V8 .cpuprofile's time range in profkit against the
Firefox Profiler's own loader (@firefox-devtools/profiler-cli).

For each FILE (a timed .cpuprofile):
  - profkit's root range (`info --json` time_range) equals the loader's
    (`status --json` rootRange) of FILE itself, when the loader reads FILE
    (the current form: its importer takes startTime .. endTime; it does not
    read the old form with `head` and `timestamps`, nor a file without
    startTime or endTime);
  - it has the length of the loader's root range of profkit's Firefox output
    of FILE (`convert --to firefox`): the zero and the percentages of
    `--range` are the loader's;
  - `profkit top FILE --range R --json --value samples` gives each function
    the self and total samples, and the thread the total, the loader gives
    after `zoom push R` on the output with --value samples (`thread
    functions --include-idle`; its "(root)" is V8's root node, which profkit
    reads as the root, not a function: its total is the thread's). The loader keeps every sample
    of profkit's output; reading FILE itself it keeps a sample only 0.5 ms
    or more after the one it kept before (docs/formats/chrome.md), so on FILE
    the counts are compared only where that rule keeps every sample.

Usage: v8_range_compare.py --profkit BIN --cli PROFILER_CLI_JS --work DIR
                           [--range R]... FILE...
Prints a line per file and check; exits 1 on any difference.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loader import LoaderError, cli_name, run_files  # noqa: E402


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd[:3]), r.returncode, r.stderr.strip()[:400]))
    return r.stdout


def profkit_counts(profkit, path, rng):
    """{name: [self, total]} of `top --range rng` on the sample counts."""
    doc = json.loads(run([profkit, "top", "-q", "--no-symbolize", "--value", "samples", "--range", rng,
                          "-n", "0", "--json", path]))
    res = {None: [0, doc["total"], 1]}
    for r in doc["rows"]:
        g = res.setdefault(cli_name(r["name"], r.get("file", "")), [0, 0, 0])
        g[0] += r["flat"]
        g[1] = max(g[1], r["cum"])
        g[2] += 1
    return res


def loader_counts(loader, rng):
    """{name: [self, total]} of the loaded profile's only thread after
    `zoom push rng` (the zoom is popped again)."""
    threads = loader.json("thread", "list")["threads"]
    if len(threads) != 1:
        raise RuntimeError("%d threads in the loader" % len(threads))
    loader("zoom", "push", rng)
    try:
        fun = loader.json("thread", "functions", "--thread", threads[0]["threadHandle"],
                          "--include-idle", "--limit", "0")
    finally:
        loader("zoom", "pop")
    # the thread's samples in the range: the root's total (V8's "(root)"
    # node, which profkit reads as the root, not a frame), else the sum of
    # the self samples
    res = {None: [0, sum(f["selfSamples"] for f in fun["functions"]), 1]}
    for f in fun["functions"]:
        if f["name"] == "(root)":
            res[None] = [0, f["totalSamples"], 1]
            if f["selfSamples"]:
                res["(root) self"] = [f["selfSamples"], f["selfSamples"], 1]
            continue
        if f["selfSamples"] == 0 and f["totalSamples"] == 0:
            continue
        g = res.setdefault(f["name"], [0, 0, 0])
        g[0] += f["selfSamples"]
        g[1] = max(g[1], f["totalSamples"])
        g[2] += 1
    return res


def diff(ours, theirs):
    """Self samples summed per name; totals where each side has one
    function of the name (profkit keys functions by name, file and line,
    the loader by its own function table)."""
    for k in sorted(set(ours) | set(theirs), key=str):
        a, b = ours.get(k, [0, 0, 0]), theirs.get(k, [0, 0, 0])
        if a[0] != b[0] or (a[2] <= 1 and b[2] <= 1 and a[1] != b[1]):
            if k is None:
                return "samples in the range: %d in profkit, %d in the loader" % (a[1], b[1])
            return "function %r: self/total %r in profkit, %r in the loader" % (k, a[:2], b[:2])
    return None


def keeps_all(path):
    """Whether the loader's 0.5 ms rule keeps every sample of a current-form
    file (its importer's arithmetic: ms, doubles, from startTime)."""
    d = json.load(open(path, encoding="utf-8"))
    seen, last = d["startTime"] / 1000, 0
    for dt in d["timeDeltas"]:
        seen += dt / 1000
        if seen - last < 0.5:
            return False
        last = seen
    return True


def range_checks(profkit, loader, path, ranges, where, out):
    """Each range's counts, profkit's of PATH against the loaded file's
    (WHERE names it); a line each in OUT; the number that differ."""
    bad = 0
    for rng in ranges:
        msg = diff(profkit_counts(profkit, path, rng), loader_counts(loader, rng))
        out.append("%s %s --range %s on %s: %s" % ("FAIL" if msg else "ok", path, rng, where,
                                                   msg or "same counts"))
        bad += msg is not None
    return bad


def check(profkit, loader, work, path, index, ranges):
    info = json.loads(run([profkit, "info", "-q", "--json", path]))
    mine = info.get("time_range")
    if not mine:
        return ["FAIL %s: profkit gives no time range" % path]
    length = mine["end"] - mine["start"]
    out = []
    bad = 0
    # the file itself, where the loader reads it
    try:
        loader.load(path)
        direct = True
    except LoaderError as e:
        if "did not become ready" in str(e):
            raise
        direct = False
        out.append("note %s: the loader does not read it (%s)" % (path, str(e)[-90:]))
    if direct:
        try:
            root = loader.json("status")["rootRange"]
            same = abs(root["start"] - mine["start"]) < 1e-6 and abs(root["end"] - mine["end"]) < 1e-6
            out.append("%s %s: root range %r in the loader, %r in profkit" % (
                "ok" if same else "FAIL", path, [root["start"], root["end"]], [mine["start"], mine["end"]]))
            bad += not same
            if keeps_all(path):
                bad += range_checks(profkit, loader, path, ranges, "the file", out)
            else:
                out.append("note %s: the loader leaves out samples closer than 0.5 ms: counts compared "
                           "on the Firefox output only" % path)
        finally:
            loader("stop")
    # profkit's Firefox output
    ff = os.path.join(work, "v%d.json" % index)
    run([profkit, "convert", "-q", path, "--to", "firefox", "--value", "samples", "-o", ff])
    loader.load(ff)
    try:
        root = loader.json("status")["rootRange"]
        same = abs((root["end"] - root["start"]) - length) < 1e-6
        out.append("%s %s: root range %.6f ms in the loader of the Firefox output, %.6f ms in profkit" % (
            "ok" if same else "FAIL", path, root["end"] - root["start"], length))
        bad += not same
        bad += range_checks(profkit, loader, path, ranges, "the Firefox output", out)
    finally:
        loader("stop")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profkit", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--range", action="append", dest="ranges")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    return run_files(a.cli, a.work, a.files,
                     lambda loader, path, i: check(a.profkit, loader, a.work, path, i,
                                                   a.ranges or ["25%,75%"]))


if __name__ == "__main__":
    sys.exit(main())
