#!/usr/bin/env python3
"""A bsprof's value types, memory counters and identity through the Firefox
writer, against the Firefox Profiler's own loader (profiler-cli).

Usage: bsprof_values_compare.py PROFKIT PROFILER_CLI_JS WORKDIR FILE...

For every FILE (a bsprof), `profkit convert FILE --to firefox` is loaded by
the loader, and:
  1. every (thread, value type) with a value in profkit is one thread of
     the loader's ("NAME" for the default value, cpu; "NAME (VALUE)" for
     the others) and no other thread is there;
  2. on each, the loader's self and total per function (`thread functions`)
     equal `profkit top --value VALUE --thread NAME --json` (flat and cum;
     cpu and wall in ms, as tracing-ms weights are);
  3. per thread with memory operations, the loader's memory counter has
     every sample of `profkit counters --json` in its root range, and its
     range in the graph is profkit's highest total less its lowest (0
     counted: the graph starts at 0);
  4. the profile's name is the app's (header target name) with its
     firmware, its platform the firmware, and the file's meta has the app
     version (appBuildID), the device (vendor and model) and the start time.
Prints a line per file and every difference; exits 1 on any.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loader import Loader  # noqa: E402

VALUES = ["cpu", "wall", "calls", "alloc_objects", "alloc_space", "free_objects", "inuse_objects",
          "inuse_space"]
SCALE = {"cpu": 1e-3, "wall": 1e-3}  # microseconds -> tracing-ms


def pk(profkit, *args):
    r = subprocess.run([profkit] + list(args), capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError("profkit %s: %s" % (" ".join(args[:3]), r.stderr.strip()[:300]))
    return r.stdout


def stacks(profkit, path, t, v):
    """Thread t's folded stacks of value v: {stack: value} (a row each)."""
    out = {}
    for line in pk(profkit, "convert", "-q", "--to", "folded", "--value", v, "--thread", t, path, "-o", "-").splitlines():
        st, _, n = line.rpartition(" ")
        out[st] = out.get(st, 0) + int(n)
    return out


def says_more(a, b):
    """Whether value b is not value a times one constant on every stack
    (a value the writer gives a thread of its own)."""
    ref = None
    for st in set(a) | set(b):
        x, y = a.get(st, 0), b.get(st, 0)
        if x == 0:
            if y != 0:
                return True
            continue
        if ref is None:
            ref = (x, y)
        elif y * ref[0] != ref[1] * x:
            return True
    return False


def meta(profkit, path):
    out = {}
    for line in pk(profkit, "info", "-q", path).splitlines():
        if line.startswith("  ") and ":" in line:
            k, v = line.strip().split(":", 1)
            out[k] = v.strip()
    return out


def check(profkit, loader, work, path, n):
    errs = []
    out = os.path.join(work, "b%d.json" % n)
    pk(profkit, "convert", "-q", path, "--to", "firefox", "-o", out)
    doc = json.load(open(out))
    m = meta(profkit, path)
    fm = doc["meta"]
    want_meta = {"product": m.get("target_name") or "bsprof", "startTime": int(m["start_timestamp_ms"])}
    if m.get("target_version"):
        want_meta["appBuildID"] = m["target_version"]
    dev = " ".join(x for x in (m.get("device_vendor"), m.get("device_model")) if x)
    if dev:
        want_meta["device"] = dev
    for k, v in want_meta.items():
        if fm.get(k) != v:
            errs.append("meta %s: %r, want %r" % (k, fm.get(k), v))
    # profkit's threads and what each value type has on each
    names = []
    for line in pk(profkit, "info", "-q", path).splitlines():
        if line.startswith("  ") and " tid " in line and ": " in line:
            names.append(line.strip().split(": ", 1)[1].split(" tid ")[0])
    # every value type with a value may have a thread (want); one that is
    # not cpu times a constant on the folded stacks must (need): the writer
    # decides per row, finer than folded stacks, so it may write more
    want, need = {}, set()
    for t in names:
        cpu = stacks(profkit, path, t, "cpu")
        for v in VALUES:
            top = json.loads(pk(profkit, "top", "-q", "--json", "-n", "0", "--value", v, "--thread", t, path))
            if top["total"]:
                tn = t if v == "cpu" else "%s (%s)" % (t, v)
                want[tn] = (v, top)
                if v == "cpu" or says_more(cpu, stacks(profkit, path, t, v)):
                    need.add(tn)
    loader.load(out)
    try:
        info = loader.json("profile", "info")
        got = {}
        for th in loader.json("thread", "list")["threads"]:
            got[th["name"]] = th.get("threadHandle") or "t-%d" % th["threadIndex"]
        if not (need <= set(got) <= set(want)):
            errs.append("threads %s, want those of %s and at least %s" % (sorted(got), sorted(want), sorted(need)))
        fw = m.get("device_firmware")
        name = (m.get("target_name") or "bsprof") + (" \u2013 " + fw if fw else "")
        if info["name"] != name:
            errs.append("profile name %r, want %r" % (info["name"], name))
        if fw and info.get("platform") != fw:
            errs.append("platform %r, want %r" % (info.get("platform"), fw))
        checked = 0
        for tname, (v, top) in sorted(want.items()):
            if tname not in got:
                continue
            fun = loader.json("thread", "functions", "--thread", got[tname], "--include-idle", "--limit", "0")
            lf = {}
            for f in fun["functions"]:
                s = lf.setdefault(f["name"], [0, 0])
                s[0] += f["selfSamples"]
                s[1] += f["totalSamples"]
            pf = {}
            for r in top["rows"]:
                s = pf.setdefault(r["name"], [0, 0])
                s[0] += r["flat"] * SCALE.get(v, 1)
                s[1] = max(s[1], r["cum"] * SCALE.get(v, 1))
            for k in set(lf) | set(pf):
                a, b = pf.get(k, [0, 0]), lf.get(k, [0, 0])
                if any(abs(x - y) > 1e-6 * max(1.0, abs(x)) for x, y in zip(a, b)):
                    errs.append("%s %s: profkit self/total %r, loader %r" % (tname, k, a, b))
                checked += 1
        cl = loader.json("counter", "list")
        root = cl.get("context", {}).get("rootRange")
        pc = {c["thread"]["name"]: c for c in json.loads(pk(profkit, "counters", "-q", "--json", path))["counters"]}
        lc = {c.get("mainThreadName"): c for c in cl["counters"]}
        if sorted(pc) != sorted(lc):
            errs.append("counters on %s, want %s" % (sorted(lc), sorted(pc)))
        for t, c in pc.items():
            x = lc.get(t)
            if not x:
                continue
            if x.get("rangeSampleCount") != len(c["series"]):
                errs.append("%s counter: %s samples in the root range %r, profkit has %d" % (
                    t, x.get("rangeSampleCount"), root, len(c["series"])))
            stats = {s["source"]: s["value"] for s in x.get("stats", [])}
            want_range = c["total"]["max"] - c["total"]["min"]
            if stats.get("count-range") != want_range:
                errs.append("%s counter: range %r, want %r" % (t, stats.get("count-range"), want_range))
    finally:
        loader("stop", timeout=60)
    return errs, "%d threads, %d functions, %d counters" % (len(got), checked, len(lc))


def main():
    profkit, cli, work = sys.argv[1:4]
    loader = Loader(cli, work)
    bad = 0
    try:
        for n, path in enumerate(sys.argv[4:]):
            try:
                errs, what = check(profkit, loader, work, path, n)
            except Exception as e:  # a failed command or load
                errs, what = ["error: %s" % e], ""
            bad += bool(errs)
            print("%s %s: %s" % ("FAIL" if errs else "PASS", os.path.basename(path), "; ".join(errs) or what))
            sys.stdout.flush()
    finally:
        loader.stop_all()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
