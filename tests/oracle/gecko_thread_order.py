#!/usr/bin/env python3
"""Raw Gecko threads by index against the Firefox Profiler's own loader.

Usage: gecko_thread_order.py PROFKIT PROFILER_CLI_JS WORKDIR FILE...

The loader numbers a raw profile's threads as its own `threads` first, then
each of its `processes`' threads, wherever the keys are in the file (and
does not read a process inside a sub-process). For every FILE that has
`processes` before `threads` somewhere (others are listed as skipped), each
of the loader's threads I is paired with profkit's thread I, by index, not
by name (two threads of one name in different processes are told apart):
  - `profkit info --json`'s thread I has the loader's name, tid and pid (a
    pid the file has; the loader calls a thread without one "Unknown
    Process N"); profkit's threads past the loader's are all of processes
    inside a sub-process;
  - `profkit markers --list --json --thread I` lists the markers of the
    loader's `thread markers --thread t-I --list` (name, category, start,
    duration on its zero; times to 1e-5 ms);
  - `profkit top --json --thread I --value samples` has the self and total
    sample counts of the loader's `thread functions --thread t-I`;
  - `profkit counters --json`'s counter I is the loader's `counter list`
    counter I (name, main thread index);
  - `profkit convert --to firefox` loaded by the loader gives the same
    threads in the same order (name, tid) with the same markers per index,
    and the same counters in the same order.
Prints PASS or FAIL lines per file; exits 1 on any failure.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loader import loadable, run_files  # noqa: E402

TOL = 1e-5


def processes_first(path):
    """True when a profile in path (at any depth) has `processes` before
    `threads` in the file."""
    def walk(prof):
        if isinstance(prof, str):
            try:
                prof = json.loads(prof, object_pairs_hook=lambda kv: kv)
            except ValueError:
                return False
        if not isinstance(prof, list):
            return False
        keys = [k for k, _ in prof if isinstance(k, str)]
        d = dict(prof)
        if "meta" not in d and isinstance(d.get("profile"), list):
            return walk(d["profile"])
        if "processes" in keys and "threads" in keys and keys.index("processes") < keys.index("threads"):
            return True
        subs = list(d.get("processes") or []) + [t for t in d.get("threads") or [] if isinstance(t, str)]
        return any(walk(s) for s in subs)
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        import gzip
        data = gzip.decompress(data)
    try:
        top = json.loads(data, object_pairs_hook=lambda kv: kv)
    except ValueError:
        return False
    return walk(top)


def pk(profkit, *args):
    r = subprocess.run([profkit] + list(args), capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("profkit %s failed (%d): %s" % (args[0], r.returncode, r.stderr.strip()[:300]))
    return json.loads(r.stdout)


def loader_threads(loader):
    ts = loader.json("thread", "list", "--limit", "0")["threads"]
    return sorted(ts, key=lambda t: t["threadIndex"])


def loader_markers(loader, handle):
    d = loader.json("thread", "markers", "--thread", handle, "--list", "--limit", "0")
    return [(m["name"], m["category"], m["start"], m.get("duration")) for m in d["flatMarkers"]]


def loader_functions(loader, handle):
    d = loader.json("thread", "functions", "--thread", handle, "--include-idle", "--limit", "0")
    out = {}
    for f in d.get("functions", []):
        s, t, n = out.get(f["name"], (0, 0, 0))
        out[f["name"]] = (s + f["selfSamples"], f["totalSamples"], n + 1)
    return out


def key(m):
    return (round(m[2], 4), m[0], m[1], -1 if m[3] is None else round(m[3], 4))


def same_markers(a, b):
    if len(a) != len(b):
        return "%d markers, expected %d (%s)" % (len(a), len(b), sorted({m[0] for m in b})[:4])
    for x, y in zip(sorted(a, key=key), sorted(b, key=key)):
        if x[0] != y[0] or x[1] != y[1] or abs(x[2] - y[2]) > TOL or (x[3] is None) != (y[3] is None) or \
                (x[3] is not None and abs(x[3] - y[3]) > TOL):
            return "marker %r, expected %r" % (x, y)
    return None


def pk_markers(profkit, path, i):
    d = pk(profkit, "markers", "-q", "--no-symbolize", "--list", "--json", "--thread", str(i), path)
    bad = [m for m in d["markers"] if m["thread"]["index"] != i]
    if bad:
        raise RuntimeError("markers --thread %d lists a marker of thread %d" % (i, bad[0]["thread"]["index"]))
    return [(m["name"], m["category"], m["start"], m.get("duration")) for m in d["markers"]]


def pk_top(profkit, path, i):
    d = pk(profkit, "top", "-q", "--no-symbolize", "--thread", str(i), "--value", "samples", "-n", "0",
           "--json", path)
    out = {}
    for r in d["rows"]:
        name = r["name"]
        s, t, n = out.get(name, (0, 0, 0))
        out[name] = (s + int(r["flat"]), int(r["cum"]), n + 1)
    return out


def check_file(profkit, work):
    def check(loader, path, _i):
        base = os.path.basename(path)
        if not processes_first(path):
            return ["PASS %s: skipped (no processes before threads)" % base]
        errs = []
        loader.load(loadable(path, work))
        want = loader_threads(loader)
        wmarks = [loader_markers(loader, t["threadHandle"]) for t in want]
        wfuncs = [loader_functions(loader, t["threadHandle"]) for t in want]
        try:
            wcounters = [(c["name"], c.get("mainThreadIndex"))
                         for c in loader.json("counter", "list")["counters"]]
        except Exception:  # noqa: BLE001 - it fails on some profiles' counters
            wcounters = None
        loader("stop")
        if wcounters is not None:
            got = [(c["name"], c["thread"]["index"] if c.get("thread") else None)
                   for c in pk(profkit, "counters", "-q", "--json", path)["counters"]]
            if got[:len(wcounters)] != wcounters:
                errs.append("counters %s, the loader's %s" % (got, wcounters))
        mine = pk(profkit, "info", "-q", "--no-symbolize", "--json", path)["threads"]
        if len(mine) < len(want):
            errs.append("%d threads, the loader has %d" % (len(mine), len(want)))
        for i, t in enumerate(want):
            if i >= len(mine):
                break
            m = mine[i]
            pid = str(t.get("pid"))
            if m["name"] != t["name"] or (t.get("tid") is not None and m.get("tid") != t["tid"]) or \
                    (not pid.startswith("Unknown Process") and str(m.get("pid")) != pid):
                errs.append("thread %d: %s pid %s tid %s, the loader's is %s pid %s tid %s" % (
                    i, m["name"], m.get("pid"), m.get("tid"), t["name"], pid, t.get("tid")))
                continue
            why = same_markers(pk_markers(profkit, path, i), wmarks[i])
            if why:
                errs.append("thread %d (%s): markers: %s" % (i, t["name"], why))
            got = pk_top(profkit, path, i)
            for name in sorted(set(got) | set(wfuncs[i])):
                a, b = wfuncs[i].get(name, (0, 0, 0)), got.get(name, (0, 0, 0))
                if a[0] != b[0] or (a[2] <= 1 and b[2] <= 1 and a[1] != b[1]):
                    errs.append("thread %d (%s): %s self/total %s/%s, the loader's %s/%s" % (
                        i, t["name"], name, b[0], b[1], a[0], a[1]))
        out = os.path.join(work, base.replace(".gz", "") + ".order.firefox.json")
        r = subprocess.run([profkit, "convert", "-q", "--no-symbolize", path, "--to", "firefox", "-o", out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            errs.append("convert --to firefox failed: %s" % r.stderr.strip()[:200])
        else:
            loader.load(out)
            back = loader_threads(loader)
            names = [(t["name"], t.get("tid")) for t in back[:len(want)]]
            expect = [(t["name"], t.get("tid")) for t in want]
            if names != expect:
                errs.append("round trip: threads %s, expected %s" % (names, expect))
            else:
                for i, t in enumerate(back[:len(want)]):
                    why = same_markers(loader_markers(loader, t["threadHandle"]), wmarks[i])
                    if why:
                        errs.append("round trip: thread %d (%s): markers: %s" % (i, t["name"], why))
            if wcounters:
                back_c = [(c["name"], c.get("mainThreadIndex"))
                          for c in loader.json("counter", "list")["counters"]]
                if back_c[:len(wcounters)] != wcounters:
                    errs.append("round trip: counters %s, expected %s" % (back_c, wcounters))
            loader("stop")
        if errs:
            return ["FAIL %s: %s" % (base, e) for e in errs[:12]]
        return ["PASS %s: %d threads by index (%d more of nested processes), %s counters, markers, top "
                "and the round trip agree" % (base, len(want), len(mine) - len(want),
                                              "no" if not wcounters else len(wcounters))]
    return check


def main():
    profkit, cli, work = sys.argv[1:4]
    files = sys.argv[4:]
    sys.exit(run_files(cli, work, files, check_file(profkit, work)))


if __name__ == "__main__":
    main()
