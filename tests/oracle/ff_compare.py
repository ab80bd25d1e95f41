#!/usr/bin/env python3
"""ff_compare.py: checks profkit's Firefox writer against the Firefox
Profiler's own loader (@firefox-devtools/profiler-cli, docs/testing.md).

For every input profile (and every value type, up to --max-values of them):
  1. `profkit convert IN --to firefox [--value V] -o OUT.json[.gz]`
  2. the loader loads OUT (`profiler-cli load`), lists its threads and gives
     per-function selfSamples/totalSamples per thread
  3. the expected numbers come from profkit's stable scripting interface,
     `profkit convert IN --to folded --thread N --value V`: self of a label =
     the counts of the lines it ends; total = the counts of the lines it is
     on (once per line, as recursion counts once)
and they must be equal, thread by thread, function by function (the loader's
functions are summed by name, as folded merges frames by label). Time values
become milliseconds in the viewer ("tracing-ms"), so they are compared
after the same unit change, to 1e-9 relative.

Usage: ff_compare.py --profkit BIN --cli PROFILER_CLI_JS --work DIR FILE...
Prints one line per checked (file, value) and a summary; exits 1 on any
mismatch or failure. Sessions live in DIR/sessions (PROFILER_CLI_SESSION_DIR)
so that `stop --all` only ever stops this run's daemons.
"""
import argparse
import gzip
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loader import Loader  # noqa: E402,F401 (ff_transform_compare.py takes it from here)

TIME_UNITS = {"nanoseconds": 1e-6, "microseconds": 1e-3, "milliseconds": 1.0, "seconds": 1e3}


def run(cmd, timeout=120, env=None, check=True):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, env=env)
    if check and r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd[:3]), r.returncode,
                                                r.stderr.decode("utf-8", "replace").strip()[:400]))
    return r


def profile_info(profkit, path, fmt):
    """(value types [(name, unit, is_default)], default name, thread names) from
    `profkit info`, or None when profkit cannot read the file."""
    r = run([profkit, "info", "--quiet"] + fmt + [path], check=False)
    if r.returncode != 0:
        return None
    lines = r.stdout.decode("utf-8", "replace").splitlines()
    values, threads, default = [], [], None
    for i, line in enumerate(lines):
        m = re.match(r"value types:\s+(\d+)", line)
        if m:
            for vl in lines[i + 1:i + 1 + int(m.group(1))]:
                f = vl.split()
                values.append((f[0], f[1], "[default]" in vl))
                if "[default]" in vl:
                    default = f[0]
        m = re.match(r"threads:\s+(\d+)", line)
        if m:
            for tl in lines[i + 1:i + 1 + int(m.group(1))]:
                tm = re.match(r"\s+(\d+): (.*)$", tl)
                threads.append(tm.group(2) if tm else "")
    return values, default, threads


def expected(profkit, path, fmt, thread, value):
    """{label: [self, total]} from folded output of one thread."""
    cmd = [profkit, "convert", "--quiet"] + fmt + [path, "--to", "folded", "--thread", str(thread)]
    if value:
        cmd += ["--value", value]
    out = run(cmd).stdout.decode("utf-8", "replace")
    res = {}
    # Only "\n" ends a folded line: str.splitlines() would also split at
    # \v, \f and \x1c-\x1e, which a function's name may hold.
    for line in out.split("\n"):
        if not line:
            continue
        stack, _, count = line.rpartition(" ")
        n = int(count)
        labels = stack.split(";")
        res.setdefault(labels[-1], [0, 0])[0] += n
        for lab in set(labels):
            res.setdefault(lab, [0, 0])[1] += n
    return res


def sanitize(name):
    """A function name as folded prints it (pk_ltree sanitize, 4095-byte labels)."""
    name = re.sub(r"[;\n\r]", "_", name)
    b = name.encode("utf-8")
    if len(b) > 4095:
        name = b[:4095].decode("utf-8", "replace")
    return name


def check_file(profkit, loader, work, path, fmt, index, value, unit, thread_names, gz):
    out = os.path.join(work, "p%d%s.json%s" % (index, "-" + value if value else "", ".gz" if gz else ""))
    cmd = [profkit, "convert", "--quiet"] + fmt + [path, "--to", "firefox", "-o", out]
    if value:
        cmd += ["--value", value]
    run(cmd)
    # The output must be valid JSON on its own, before any loader sees it.
    with (gzip.open(out, "rb") if gz else open(out, "rb")) as f:
        doc = json.loads(f.read().decode("utf-8"))
    assert doc["meta"]["preprocessedProfileVersion"] >= 75, "old processed version"
    loader.load(out)
    try:
        listing = loader.json("thread", "list")
        got = [t["name"] for t in listing["threads"]]
        want = max(len(thread_names), 1)  # a profile without threads gets one empty thread
        # Without --value an untimed profile's other value types follow, a
        # thread "NAME (VALUE)" each (tests/oracle/bsprof_values_compare.py
        # checks their values).
        extra = got[want:]
        if value is None and extra and all(re.match(r".* \([A-Za-z0-9_.:-]+\)$", g) for g in extra):
            got = got[:want]
        if len(got) != want:
            return "thread count %d, profkit has %d" % (len(got), want)
        scale = TIME_UNITS.get(unit, 1.0)
        checked = 0
        for t in range(len(thread_names)):
            exp = expected(profkit, path, fmt, t, value)
            fun = loader.json("thread", "functions", "--thread", "t-%d" % t, "--include-idle", "--limit", "0")
            gotf = {}
            # A name the loader lists as several functions (overloads whose
            # tidied names agree, e.g. perf's JavaCalls::call_virtual(...)):
            # its total by name is the samples through any of them, which
            # the loader's per-function totals bound from both sides: at
            # least the largest, at most their sum.
            split = {}
            for f in fun["functions"]:
                # "name" is the part after the first "!" when the name holds
                # one ("lib!function"), and "nameWithLibrary" then the name
                # whole; an address function's library is its resource's.
                # The one profkit labels so is the one compared.
                name = sanitize(f["name"])
                whole = sanitize(f.get("nameWithLibrary", f["name"]))
                if whole != name and whole in exp and name not in exp:
                    name = whole
                g = gotf.setdefault(name, [0, 0])
                g[0] += f["selfSamples"]
                g[1] += f["totalSamples"]
                lo_hi = split.setdefault(name, [0, 0, 0])
                lo_hi[0] = max(lo_hi[0], f["totalSamples"])
                lo_hi[1] += f["totalSamples"]
                lo_hi[2] += 1
            # Labels with nothing in either are not listed by one side or the other.
            for d in (exp, gotf):
                for k in [k for k, v in d.items() if v == [0, 0]]:
                    del d[k]
            keys = set(exp) | set(gotf)
            for k in sorted(keys):
                e = [x * scale for x in exp.get(k, [0, 0])]
                g = gotf.get(k, [0, 0])
                for what, a, b in (("self", e[0], g[0]), ("total", e[1], g[1])):
                    if what == "total" and split.get(k, [0, 0, 0])[2] > 1:
                        lo, hi = split[k][0], split[k][1]
                        if lo - 1e-9 * max(1.0, abs(a)) <= a <= hi + 1e-9 * max(1.0, abs(a)):
                            continue
                        return "thread %d (%s) function %r (%d functions of that name): total %r in profkit, " \
                               "not within the loader's %r..%r" % (t, got[t], k, split[k][2], a, lo, hi)
                    if abs(a - b) > 1e-9 * max(1.0, abs(a)):
                        return "thread %d (%s) function %r: %s %r in profkit, %r in the loader" % (
                            t, got[t], k, what, a, b)
            checked += len(keys)
        return "ok: %d thread(s), %d function(s)" % (len(got), checked)
    finally:
        loader("stop", timeout=60)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profkit", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--max-values", type=int, default=3)
    ap.add_argument("--data", help="tests/data: its FORMAT/ok_* files are read with --format FORMAT "
                    "(as bad_files.sh does) and must be readable")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    loader = Loader(a.cli, a.work)
    failures = checked = unreadable = 0
    try:
        for i, path in enumerate(a.files):
            fmt, must_read = [], False
            if a.data and os.path.dirname(os.path.dirname(os.path.abspath(path))) == os.path.abspath(a.data):
                fmt = ["--format", os.path.basename(os.path.dirname(path))]
                must_read = os.path.basename(path).startswith("ok_")
            info = profile_info(a.profkit, path, fmt)
            if info is None:
                if must_read:
                    failures += 1
                    print("FAIL %s: profkit cannot read it" % path)
                else:
                    unreadable += 1
                    print("unreadable by profkit, not a profile here: %s" % path)
                continue
            values, default, threads = info
            # the default value, then up to max-values others by name
            units = dict((v, u) for v, u, _ in values)
            choices = [(None, units.get(default, ""))]
            choices += [(v, u) for v, u, d in values if not d][:a.max_values]
            for value, unit in choices:
                try:
                    msg = check_file(a.profkit, loader, a.work, path, fmt, i, value, unit, threads,
                                     gz=(i % 4 == 1))
                except Exception as e:  # a failed command or an invalid output
                    msg = "error: %s" % e
                checked += 1
                ok = msg.startswith("ok")
                failures += not ok
                print("%s %s%s: %s" % ("PASS" if ok else "FAIL", path,
                                         " --value " + value if value else "", msg))
                sys.stdout.flush()
    finally:
        loader.stop_all()
    print("%d checks, %d failures, %d files unreadable" % (checked, failures, unreadable))
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
