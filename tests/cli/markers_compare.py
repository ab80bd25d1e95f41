#!/usr/bin/env python3
"""Markers against the Firefox Profiler's own loader (profiler-cli).

Usage: markers_compare.py PROFKIT PROFILER_CLI_JS WORKDIR FILE...

For every FILE (a raw Gecko or processed Firefox profile):
  1. `profkit markers --list --json FILE` must equal, thread by thread, the
     loader's `thread markers --list --json` on FILE: the same markers
     (name, category, start and duration in ms on the loader's zero, no
     duration for an instant; times to 1e-5 ms, profkit keeping ns).
  2. `profkit convert FILE --to firefox` loaded by the loader must give the
     same markers per thread as FILE itself (and the same stack, function
     names and capture time, for a marker with one: `marker stack`), the same threads (name, tid),
     processes (pid, name, start time) and root range, and the output's
     meta.startTime must be the input's.
The loader cannot load a raw Gecko file whose libs have no offset (it
fails converting undefined to a BigInt): such a file is given to it as a
copy in WORKDIR with "offset": 0 added to each lib (as profkit reads a lib
without one), nothing else changed. Processes are compared where the input
names their pids (the loader calls a thread without one "Unknown Process
N", a pid no file has); process start times to 1e-5 ms (profkit keeps ns).
Threads are matched by name, one to one, in order. PROFKIT_MARKER_STACKS=N
compares the stacks of the first N markers with one per thread only (the
rest as if they had none, on both sides). Prints a line per check
and every difference; exits 1 on any.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
from loader import environment, loadable, read_json  # noqa: E402
from loader import load as loader_load  # noqa: E402

TOL = 1e-5
# The markers with a stack whose stacks are compared, per thread (the loader
# answers one `marker stack` at a time: a real recording has thousands).
STACKS_MAX = int(os.environ.get("PROFKIT_MARKER_STACKS", "1000000000"))


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd[:3]), r.returncode, r.stderr.strip()[:400]))
    return r.stdout


def load(pq, path, env):
    """`load` through tests/oracle/loader.py (its start-up retries)."""
    loader_load(pq, path, env)

def marker_stack(pq, env, m):
    """A marker's stack as the loader shows it: (its function names, leaf
    first, and when it was captured), or None."""
    if not m.get("hasStack"):
        return None
    d = json.loads(run(pq + ["marker", "stack", "--marker", m["handle"], "--json"], env))
    return (tuple(f["name"] for f in d["stack"]["frames"]), d["stack"].get("capturedAt"))


def same_stack(a, b):
    if a is None or b is None:
        return a is b
    return a[0] == b[0] and (a[1] is None) == (b[1] is None) and (a[1] is None or abs(a[1] - b[1]) <= TOL)


def loader_view(pq, path, env):
    """{threads: [(name, tid, [markers])], processes, root}."""
    load(pq, path, env)
    try:
        threads = json.loads(run(pq + ["thread", "list", "--json", "--limit", "0"], env))["threads"]
        try:
            info = json.loads(run(pq + ["profile", "info", "--json", "--all"], env))
            procs = sorted((str(p.get("pid")), p.get("name"), p.get("startTime")) for p in info["processes"])
        except RuntimeError:
            procs = None  # it fails on some profiles' counters
        out = []
        root = None
        for t in sorted(threads, key=lambda t: t["threadIndex"]):
            d = json.loads(run(pq + ["thread", "markers", "--thread", t["threadHandle"], "--list", "--json",
                                     "--limit", "0"], env))
            root = d["context"]["rootRange"]
            ms = []
            stacks = 0
            for m in d["flatMarkers"]:
                st = None
                if stacks < STACKS_MAX:
                    st = marker_stack(pq, env, m)
                    stacks += st is not None
                ms.append((m["name"], m["category"], m["start"], m.get("duration"), st))
            out.append((t["name"], t.get("tid"), ms))
        return {"threads": out, "processes": procs, "root": root}
    finally:
        subprocess.run(pq + ["stop"], capture_output=True, env=env)


def profkit_view(profkit, path):
    d = json.loads(run([profkit, "markers", "-q", "--no-symbolize", "--list", "--json", path]))
    by = {}
    names = {}
    for m in d["markers"]:
        t = m["thread"]["index"]
        names[t] = m["thread"]["name"]
        by.setdefault(t, []).append((m["name"], m["category"], m["start"], m.get("duration")))
    return [(names[t], by[t]) for t in sorted(by)]


def key(m):
    return (round(m[2], 4), m[0], m[1], -1 if m[3] is None else round(m[3], 4))


def same_marker(x, y):
    return not (x[0] != y[0] or x[1] != y[1] or abs(x[2] - y[2]) > TOL or (x[3] is None) != (y[3] is None) or
                (x[3] is not None and abs(x[3] - y[3]) > TOL) or
                (len(x) > 4 and len(y) > 4 and not same_stack(x[4], y[4])))


def same_list(a, b):
    """None when a and b hold the same markers: sorted by start (rounded),
    each of a matched with an unused one of b near its place, since two
    starts within the tolerance may round to either side of a boundary."""
    if len(a) != len(b):
        return "%d markers, expected %d" % (len(a), len(b))
    a, b = sorted(a, key=key), sorted(b, key=key)
    used = [False] * len(b)
    for i, x in enumerate(a):
        k = next((k for k in range(max(0, i - 16), min(len(b), i + 17)) if not used[k] and same_marker(x, b[k])),
                 None)
        if k is None:
            return "marker %r, expected %r" % (x, b[i])
        used[k] = True
    return None


def same_processes(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x[:2] != y[:2] or (x[2] is None) != (y[2] is None) or (x[2] is not None and abs(x[2] - y[2]) > TOL):
            return False
    return True


def match_threads(got, want, what):
    """got, want: [(name, markers)]; every thread of want with markers must
    have a thread of got of its name with the same markers (one to one)."""
    errors = []
    used = set()
    for name, ms in want:
        if not ms:
            continue
        found = None
        why = "no thread %r" % name
        for i, (gname, gms) in enumerate(got):
            if i in used or gname != name:
                continue
            why = same_list(gms, ms)
            if why is None:
                found = i
                break
        if found is None:
            errors.append("%s: thread %r: %s" % (what, name, why))
        else:
            used.add(found)
    extra = [g for i, g in enumerate(got) if i not in used and g[1]]
    if extra:
        errors.append("%s: %d thread(s) with markers the loader does not show (%s)" %
                      (what, len(extra), extra[0][0]))
    return errors


def main():
    profkit, cli, work = sys.argv[1:4]
    files = sys.argv[4:]
    env = environment(work)
    pq = ["node", cli]
    bad = 0
    for f in files:
        base = os.path.basename(f)
        errs = []
        note = "round trip kept them"
        want = None
        try:
            try:
                want = loader_view(pq, loadable(f, work), env)
            except RuntimeError as e:
                # The loader fails on some inputs: at `load` when its daemon
                # starts in time, or at the first query after it when a slow
                # start made tests/oracle/loader.py adopt a daemon whose log
                # says "loaded" (ok_flags_v75.json). Either way it is the
                # loader's view of the input that is missing.
                if "did not become ready" in str(e):
                    raise
                note = "the loader cannot load the input (%s): checked against its view of the round trip" % (
                    str(e).split("failed: ")[-1].split("): ")[-1][:60])
            mine = profkit_view(profkit, f)
            out = os.path.join(work, base.replace(".gz", "") + ".firefox.json")
            run([profkit, "convert", "-q", "--no-symbolize", f, "--to", "firefox", "-o", out])
            back = loader_view(pq, out, env)
            back_lists = [(n, ms) for n, _, ms in back["threads"]]
            if want is None:
                errs += match_threads(mine, back_lists, "markers against the round trip")
                want = back
            else:
                want_lists = [(n, ms) for n, _, ms in want["threads"]]
                errs += match_threads(mine, want_lists, "markers")
                errs += match_threads(back_lists, want_lists, "round trip")
                got_t = sorted((n, str(t)) for n, t, _ in back["threads"])
                want_t = sorted((n, str(t)) for n, t, _ in want["threads"])
                if got_t != want_t:
                    errs.append("round trip: threads %s, expected %s" % (got_t, want_t))
                if want["processes"] is not None and back["processes"] is not None and \
                        not any(p[0].startswith("Unknown Process") for p in want["processes"]) and \
                        not same_processes(back["processes"], want["processes"]):
                    errs.append("round trip: processes %s, expected %s" % (back["processes"], want["processes"]))
                if want["root"] and back["root"] and (abs(back["root"]["start"] - want["root"]["start"]) > TOL or
                                                      abs(back["root"]["end"] - want["root"]["end"]) > TOL):
                    errs.append("round trip: root range %s, expected %s" % (back["root"], want["root"]))
            src, dst = read_json(f), read_json(out)
            if isinstance(src, dict) and isinstance(src.get("meta"), dict) and "startTime" in src["meta"]:
                if dst["meta"].get("startTime") != src["meta"].get("startTime"):
                    errs.append("round trip: meta.startTime %r, expected %r" %
                                (dst["meta"].get("startTime"), src["meta"].get("startTime")))
        except Exception as e:  # noqa: BLE001 - any failure is this file's
            errs.append(str(e))
        n = sum(len(ms) for _, _, ms in want["threads"]) if want else 0
        if errs:
            bad += 1
            print("FAIL %s" % base)
            for e in errs[:10]:
                print("  " + e)
        else:
            print("ok   %s: %d markers in %d threads, %s" % (base, n, len(want["threads"]), note))
    subprocess.run(pq + ["stop", "--all"], capture_output=True, env=env)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
