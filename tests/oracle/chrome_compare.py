#!/usr/bin/env python3
"""chrome_compare.py: profkit's Chrome trace reader and writer against the
Firefox Profiler's own loader (@firefox-devtools/profiler-cli), which
imports Chrome traces (docs/formats/chrome.md, "The Firefox Profiler").

Two modes:
  --read TRACE...    a trace (recorded by Chromium in the test): the root
                     range (`info --json` time_range, the loader's
                     rootRange) and, per thread and name, the markers are
                     the loader's; per sampled thread, profkit's
                     per-function self and total sample counts equal the
                     loader's.
  --write PROFILE... profkit's Chrome output of a profile of any format
                     (`profkit convert IN --to chrome`): loaded by the
                     loader, it gives per thread the per-function counts of
                     IN as profkit reads it.

What the loader does that the comparison accounts for (rulings in
docs/formats/chrome.md):
  - it keeps a sample only when it is 0.5 ms or more after the last sample
    it kept on its thread (its meta.interval): the comparison computes that
    choice from the trace's own startTime and timeDeltas with the loader's
    arithmetic (doubles, ms, in event order) and counts profkit's samples
    at the same positions;
  - it numbers frames by cpuProfile node id across the whole trace, so in a
    trace whose profiles reuse node ids (Chrome's start at 1 in every
    process) a later profile's node renames an earlier one's frames: --read
    feeds the loader one profile at a time (the trace's metadata events and
    that profile's Profile and ProfileChunk events, a trace of its own), as
    profkit's writer avoids it by numbering nodes across the trace;
  - each stack starts with the "(root)" node as a function, which profkit
    reads as the root itself: "(root)" is not compared as a function (nor
    a function of that name in profkit's profile, a Gecko profile's root
    frame, which the loader cannot tell from it); but --write checks its
    counts: its total is the thread's kept samples and its self the kept
    samples without a stack (profkit's empty stack, which the writer puts
    on the "(root)" node: a Chrome sample cannot have a null stack);
  - its root range ends with the last sample of the threads that have
    samples, and it lists only the markers that overlap that range: --write
    compares the markers of profkit's input that overlap it (per name, as
    `profkit markers` pairs them), --read all of them per thread and name;
    a trace without samples has an empty root range (no marker shown);
  - a timed row is one sample in the trace whatever its weight (the writer
    leaves weights out, with a warning): the expected side counts it once.
profkit's samples, in order with their stacks, come from its speedscope
output of the same input (`--value samples`, or for a timed thread whose
samples weigh in another type that type: one row per sample, root
first); the number of samples per thread is checked too.

Usage: chrome_compare.py --profkit BIN --cli PROFILER_CLI_JS --work DIR
                         (--read | --write) FILE...
Exits 1 on any mismatch or failure.
"""
import argparse
import json
import os
import re
import subprocess
import sys

INTERVAL_MS = 0.5  # the loader's meta.interval for Chrome traces


def run(cmd, timeout=300, env=None, check=True):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, env=env)
    if check and r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd[:3]), r.returncode,
                                                r.stderr.decode("utf-8", "replace").strip()[:400]))
    return r


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loader import Loader, cli_name, run_files  # noqa: E402,F401 (other drivers take Loader from here)


def events_of(doc):
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def profiles_of(events):
    """[(pid, id, tid, Profile event index)] in the order of the Profile events."""
    return [(e.get("pid"), e.get("id"), e.get("tid"), i) for i, e in enumerate(events)
            if isinstance(e, dict) and e.get("name") == "Profile"]


def loader_keeps(events, pid, pid_id, with_times=False):
    """Which samples of profile (pid, id) the loader keeps, in order: its
    importer's arithmetic (lastSeenTime, lastSampledTime, meta.interval)."""
    prof = [e for e in events if e.get("name") == "Profile" and e.get("id") == pid_id and e.get("pid") == pid][0]
    last_seen = prof["args"]["data"]["startTime"] / 1e3
    last_sampled = 0
    keep = []
    kept_times = []
    for e in events:
        if e.get("name") != "ProfileChunk" or e.get("id") != pid_id or e.get("pid") != pid:
            continue
        data = (e.get("args") or {}).get("data")
        if not data or not data.get("cpuProfile"):
            continue
        deltas = data.get("timeDeltas")
        if deltas is None:
            continue
        for w in range(len(data["cpuProfile"].get("samples", []))):
            last_seen += deltas[w] / 1e3
            if last_seen - last_sampled >= INTERVAL_MS:
                last_sampled = last_seen
                keep.append(True)
                kept_times.append(last_seen)
            else:
                keep.append(False)
    return (keep, kept_times) if with_times else keep


def speedscope_rows(profkit, path, work, tag, value, timed):
    """[[names root first, ...] per thread] of profkit's speedscope output
    with --value `value` (a row with no value of it is left out)."""
    out = os.path.join(work, "%s.%s.speedscope.json" % (tag, value))
    run([profkit, "convert", "--quiet", path, "--to", "speedscope", "--value", value, "-o", out])
    doc = json.load(open(out, encoding="utf-8"))
    names = [cli_name(f["name"], f.get("file", "")) for f in doc["shared"]["frames"]]
    threads = []
    for prof in doc["profiles"]:
        rows = []
        for stack, weight in zip(prof["samples"], prof["weights"]):
            # a timed row is one sample in the trace whatever its weight
            # (the writer leaves weights out and says so)
            rows += [[names[i] for i in stack]] * (1 if timed else int(weight))
        threads.append(rows)
    return threads


def profkit_samples(profkit, path, work, tag):
    """profkit's samples of each thread, in order: [[names root first, ...] per
    thread] (a sample without a stack is []), from its speedscope output
    (--value samples). A timed profile's rows are each one sample in the
    trace whatever their values, but speedscope leaves out a row with no
    value of the type asked: each thread takes the value type that gives it
    the most rows (a Gecko thread's samples weigh in one type, its
    weightType: samples, bytes or tracing-ms)."""
    info = json.loads(run([profkit, "info", "--quiet", "--json", path]).stdout.decode("utf-8", "replace"))
    timed = bool(info.get("timed"))
    threads = speedscope_rows(profkit, path, work, tag, "samples", timed)
    if timed:
        for vt in info.get("value_types", []):
            if vt["type"] == "samples":
                continue
            other = speedscope_rows(profkit, path, work, tag, vt["type"], timed)
            threads = [a if len(a) >= len(b) else b for a, b in zip(threads, other)]
    return threads


def counts(samples, keep):
    """{name: [self, total]} over the kept samples."""
    if len(samples) != len(keep):
        raise RuntimeError("profkit has %d samples on the thread, the trace %d" % (len(samples), len(keep)))
    res = {}
    for stack, k in zip(samples, keep):
        stack = [n for n in stack if n != "(root)"]
        if not k or not stack:
            continue
        res.setdefault(stack[-1], [0, 0])[0] += 1
        for n in set(stack):
            res.setdefault(n, [0, 0])[1] += 1
    return res


def loader_counts(loader, handle):
    """{name: [self, total, largest total of one function, functions]}: the
    loader's functions summed by name (it keeps apart functions of one name
    that profkit's speedscope frames merge, e.g. two "(anonymous)" of one
    file at two columns, so a name's total lies between its largest
    function's and the sum)."""
    fun = loader.json("thread", "functions", "--thread", handle, "--include-idle", "--limit", "0")
    res = {}
    for f in fun["functions"]:
        if f["name"] == "(root)":
            r = res.setdefault(None, [0, 0])  # kept apart: see root_check
            r[0] += f["selfSamples"]
            r[1] = max(r[1], f["totalSamples"])
            continue
        g = res.setdefault(f["name"], [0, 0, 0, 0])
        g[0] += f["selfSamples"]
        g[1] += f["totalSamples"]
        g[2] = max(g[2], f["totalSamples"])
        g[3] += 1
    return res


def root_check(samples, keep, got, what):
    """The loader's "(root)" function against profkit's samples (kept by the
    loader): every stack starts with it, so its total is the thread's kept
    samples, and its self the kept samples without a stack (profkit's
    empty stack, written on the "(root)" node: a Chrome sample has a node,
    never a null stack). Not checked when profkit has a function of that
    name (the loader cannot tell it from the node)."""
    root = got.pop(None, [0, 0])
    if any("(root)" in st for st in samples):
        return None
    n_kept = sum(1 for k in keep if k)
    empty = sum(1 for st, k in zip(samples, keep) if k and not st)
    if root != [empty, n_kept]:
        return "%s: samples without a stack/all samples kept %r in profkit, (root) self/total %r in the loader" % (
            what, [empty, n_kept], root)
    return None


def compare(exp, got, what):
    for k in [k for k, v in exp.items() if v == [0, 0]]:
        del exp[k]
    for k in [k for k, v in got.items() if v[:2] == [0, 0]]:
        del got[k]
    for k in sorted(set(exp) | set(got)):
        e, g = exp.get(k, [0, 0]), got.get(k, [0, 0, 0, 1])
        if e[0] == g[0] and (e[1] == g[1] or (g[3] > 1 and g[2] <= e[1] <= g[1])):
            continue
        return "%s: function %r: self/total %r in profkit, %r in the loader (%d functions of that name)" % (
            what, k, e, g[:2], g[3])
    return None


def profkit_markers(profkit, path, by_thread):
    """{(thread "pid:tid" or None, name): count} from `profkit markers --json`."""
    out = run([profkit, "markers", "--quiet", path, "--json"]).stdout.decode("utf-8", "replace")
    dec, i, res = json.JSONDecoder(), 0, {}
    while i < len(out):
        while i < len(out) and out[i].isspace():
            i += 1
        if i >= len(out):
            break
        doc, i = dec.raw_decode(out, i)
        for g in doc.get("groups", []):
            t = g["thread"]
            key = ("%s:%s" % (t["pid"], t["tid"]) if by_thread else None, g["name"])
            res[key] = res.get(key, 0) + g["count"]
    return res


def loader_markers(loader, by_thread):
    res = {}
    for t in loader.json("thread", "list")["threads"]:
        d = loader.json("thread", "markers", "--thread", t["threadHandle"], "--limit", "0")
        for g in d.get("byType", []):
            key = (t["tid"] if by_thread else None, g["markerName"])
            res[key] = res.get(key, 0) + g["count"]
    return res


MARKER_PHASES = set("XBEbeiInR")


def loader_root_range(events):
    """The loader's root range of a trace profkit wrote (ms): from its
    TracingStartedInBrowser event to the latest thread end, a thread with
    samples ending at its last kept sample plus the interval, one without
    at its latest marker plus the interval (docs/formats/chrome.md); but a
    trace with no sample at all has an empty root range (the loader gives
    its end as null: -Infinity), so none of its markers is shown."""
    starts = [e["ts"] / 1e3 for e in events if e.get("name") == "TracingStartedInBrowser"]
    if not starts:
        return float("-inf"), float("inf")  # nothing timed was written
    start = starts[0]
    end = float("-inf")
    sampled = set()
    for pid, pid_id, tid, _ in profiles_of(events):
        sampled.add((pid, tid))
        _, times = loader_keeps(events, pid, pid_id, True)
        if times:
            end = max(end, times[-1] + INTERVAL_MS)
    if end == float("-inf"):
        return start, end
    for e in events:
        if e.get("ph") in MARKER_PHASES and (e.get("pid"), e.get("tid")) not in sampled \
                and e.get("name") not in ("Profile", "ProfileChunk", "CpuProfile"):
            t = e["ts"] / 1e3 + (e.get("dur", 0) / 1e3 if e["ph"] == "X" else 0)
            end = max(end, t + INTERVAL_MS)
    return start, end


def profkit_markers_in(profkit, path, lo, hi):
    """{(None, name): count} of profkit's markers (as its markers report
    pairs them) that overlap [lo, hi] ms on the samples' time axis."""
    doc = json.loads(run([profkit, "markers", "--quiet", "--list", "--json", path]).stdout.decode("utf-8"))
    res = {}
    for m in doc["markers"]:
        a = doc["zero"] + m["start"]
        b = a + m.get("duration", 0)
        if a <= hi and b >= lo:
            res[(None, m["name"])] = res.get((None, m["name"]), 0) + 1
    return res


def compare_markers(ours, theirs):
    for k in sorted(set(ours) | set(theirs), key=str):
        if ours.get(k, 0) != theirs.get(k, 0):
            return "markers %s: %d in profkit, %d in the loader" % (k, ours.get(k, 0), theirs.get(k, 0))
    return None


TOL_MS = 1e-5  # the loader's times are doubles in ms, profkit's ns


def profkit_marker_list(profkit, path):
    """{thread "pid:tid": [(name, start, duration or None)]} from `profkit
    markers --list --json`, times in ms on the samples' axis (the zero
    added back), and the zero's root range end."""
    doc = json.loads(run([profkit, "markers", "--quiet", "--list", "--json", path]).stdout.decode("utf-8"))
    res = {}
    for m in doc["markers"]:
        t = m["thread"]
        res.setdefault("%s:%s" % (t["pid"], t["tid"]), []).append(
            (m["name"], doc["zero"] + m["start"], m.get("duration")))
    return res


def loader_marker_list(loader):
    """The same from the loader's `thread markers --list --json`."""
    res = {}
    for t in loader.json("thread", "list")["threads"]:
        d = loader.json("thread", "markers", "--thread", t["threadHandle"], "--list", "--limit", "0")
        zero = ((d.get("context") or {}).get("rootRange") or {}).get("start") or 0
        for m in d.get("flatMarkers", []):
            res.setdefault(t["tid"], []).append((m["name"], zero + m["start"], m.get("duration")))
    return res


def compare_marker_lists(ours, theirs, names=("profkit", "the loader")):
    """Per thread, marker by marker (sorted by start, name, duration): the
    same name, start and duration (none for an instant) within TOL_MS.
    names: what ours and theirs are, for the message."""
    def key(m):
        return (round(m[1], 4), m[0], -1e300 if m[2] is None else round(m[2], 4))
    for t in sorted(set(ours) | set(theirs), key=str):
        a, b = sorted(ours.get(t, []), key=key), sorted(theirs.get(t, []), key=key)
        if len(a) != len(b):
            return "thread %s: %d markers listed by %s, %d by %s" % (t, len(a), names[0], len(b), names[1])
        for x, y in zip(a, b):
            if x[0] != y[0] or abs(x[1] - y[1]) > TOL_MS or (x[2] is None) != (y[2] is None) or \
                    (x[2] is not None and abs(x[2] - y[2]) > TOL_MS):
                return "thread %s: marker %r in %s, %r in %s (name, start ms, duration ms)" % (
                    t, x, names[0], y, names[1])
    return None


def thread_handle(loader, pid, tid):
    for t in loader.json("thread", "list")["threads"]:
        if t["tid"] == "%s:%s" % (pid, tid):
            return t["threadHandle"], t
    raise RuntimeError("the loader has no thread %s:%s" % (pid, tid))


def check_read(profkit, loader, work, path, index):
    doc = json.load(open(path, encoding="utf-8"))
    events = events_of(doc)
    meta = [e for e in events if e.get("ph") == "M"]
    msgs = []
    profiles = profiles_of(events)
    if not profiles:
        return "no Profile event in the trace"
    # markers: per thread and name, as profkit's markers report and the
    # loader's marker listing count them
    ours_m = profkit_markers(profkit, path, True)
    info = json.loads(run([profkit, "info", "--quiet", "--json", path]).stdout.decode("utf-8", "replace"))
    mine = info.get("time_range") or {}
    loader.load(path)
    try:
        # the root range (the markers shown are those that touch it)
        root = loader.json("status").get("rootRange") or {}
        if not mine or abs(root.get("start", 0) - mine["start"]) > 1e-6 or \
                abs(root.get("end", 0) - mine["end"]) > 1e-6:
            return "root range %r in the loader, %r in profkit" % (root, mine)
        msg = compare_markers(ours_m, loader_markers(loader, True)) or \
            compare_marker_lists(profkit_marker_list(profkit, path), loader_marker_list(loader))
    finally:
        loader("stop", timeout=60)
    if msg:
        return msg
    ours = sum(ours_m.values())
    checked = 0
    for k, (pid, pid_id, tid, _) in enumerate(profiles):
        one = os.path.join(work, "r%d-%d.trace.json" % (index, k))
        chunks = [e for e in events if e.get("name") in ("Profile", "ProfileChunk")
                  and e.get("pid") == pid and e.get("id") == pid_id]
        json.dump({"traceEvents": meta + chunks}, open(one, "w"))
        keep = loader_keeps(events, pid, pid_id)
        threads = profkit_samples(profkit, one, work, "r%d-%d" % (index, k))
        sampled = [t for t in threads if t]
        if len(sampled) > 1:
            return "profile %d: profkit has %d sampled threads in one profile" % (k, len(sampled))
        exp = counts(sampled[0] if sampled else [], keep)
        loader.load(one)
        try:
            handle, _ = thread_handle(loader, pid, tid)
            got = loader_counts(loader, handle)
        finally:
            loader("stop", timeout=60)
        got.pop(None, None)  # a recorded trace's samples are on V8's own nodes
        msg = compare(exp, got, "profile %d (pid %s tid %s, %d samples, %d kept)" % (
            k, pid, tid, len(keep), sum(keep)))
        if msg:
            return msg
        checked += len(exp)
        msgs.append("%d/%d" % (sum(keep), len(keep)))
    return "ok: %d profile(s), %d function(s), samples kept/read %s, %d markers" % (
        len(profiles), checked, " ".join(msgs), ours)


def check_write(profkit, loader, work, path, index):
    out = os.path.join(work, "w%d.trace.json" % index)
    # an aggregated profile is written one sample per count of --value:
    # the samples, as the expected side counts them
    info = run([profkit, "info", "--quiet", path]).stdout.decode("utf-8", "replace")
    value = ["--value", "samples"] if re.search(r"^\s+samples\s+count", info, re.M) else []
    run([profkit, "convert", "--quiet", path, "--to", "chrome", "-o", out] + value)
    events = events_of(json.load(open(out, encoding="utf-8")))
    profiles = profiles_of(events)
    threads = [t for t in profkit_samples(profkit, path, work, "w%d" % index)]
    sampled = [t for t in threads if t]
    if len(sampled) != len(profiles):
        return "%d threads with samples in profkit, %d Profile events written" % (len(sampled), len(profiles))
    # the markers the loader shows: those in its root range, which ends
    # with the samples (of the threads that have some)
    lo, hi = loader_root_range(events)
    loader.load(out)
    try:
        # The range as the loader itself reports it, where it gives one:
        # its end comes from its own reading of the samples, which the
        # model above follows on every file of the list but not exactly on
        # some traces Chromium records here (there the loader ended a few
        # ms earlier, before the last of a burst of instants, and listed
        # none of them); the markers are then compared on the range the
        # loader lists them in.
        try:
            rr = (loader.json("profile", "info").get("context") or {}).get("rootRange") or {}
        except Exception:  # it gives none for an empty root range ("out of range")
            rr = {}
        if isinstance(rr.get("start"), (int, float)) and isinstance(rr.get("end"), (int, float)):
            lo, hi = rr["start"], rr["end"]
        ours_m = profkit_markers_in(profkit, path, lo, hi)
        ours = sum(ours_m.values())
        msg = compare_markers(ours_m, loader_markers(loader, False))
        if msg:
            return msg
        # profkit's reading of its own output: the loader's root range and,
        # marker by marker, the loader's list (start and duration: a start
        # never ended and an end without a start take the thread's range,
        # which is the loader's kept samples', not the input's)
        back = json.loads(run([profkit, "info", "--quiet", "--json", out]).stdout.decode("utf-8"))
        mine = back.get("time_range") or {}
        if "start" in rr and "end" in rr and (
                not mine or abs(rr["start"] - mine["start"]) > 1e-6 or abs(rr["end"] - mine["end"]) > 1e-6):
            return "output read back: root range %r in the loader, %r in profkit" % (rr, mine)
        msg = compare_marker_lists(profkit_marker_list(profkit, out), loader_marker_list(loader))
        if msg:
            return "output read back: " + msg
        checked = kept = total = empty = 0
        for k, (pid, pid_id, tid, _) in enumerate(profiles):
            keep = loader_keeps(events, pid, pid_id)
            exp = counts(sampled[k], keep)
            handle, _ = thread_handle(loader, pid, tid)
            got = loader_counts(loader, handle)
            msg = root_check(sampled[k], keep, got, "thread %s:%s" % (pid, tid)) or \
                compare(exp, got, "thread %s:%s" % (pid, tid))
            if msg:
                return msg
            checked += len(exp)
            empty += sum(1 for st, kp in zip(sampled[k], keep) if kp and not st)
            kept += sum(keep)
            total += len(keep)
    finally:
        loader("stop", timeout=60)
    return "ok: %d thread(s), %d function(s), %d of %d samples kept by the loader (%d without a stack), %d markers" % (
        len(profiles), checked, kept, total, empty, ours)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profkit", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", required=True)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--read", action="store_true")
    mode.add_argument("--write", action="store_true")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()

    def one(loader, path, i):
        msg = (check_read if a.read else check_write)(a.profkit, loader, a.work, path, i)
        return ["%s %s: %s" % ("PASS" if msg.startswith("ok") else "FAIL", path, msg)]

    return run_files(a.cli, a.work, a.files, one)


if __name__ == "__main__":
    sys.exit(main())
