#!/usr/bin/env python3
"""ff_transform_compare.py: profkit's transforms against the Firefox
Profiler's own (@firefox-devtools/profiler-cli, `filter push`).

For every input profile and thread, the loader loads profkit's Firefox
output of it (as ff_compare.py does, so both sides name the same
functions), and for up to --per-thread functions of that thread (spread
from the heaviest to the lightest, names listed once) each filter is
pushed alone, its per-function selfSamples/totalSamples read, and popped:

    profiler-cli filter push --merge f-N              profkit --merge '^NAME$'
    profiler-cli filter push --root-at f-N            profkit --root-at '^NAME$'
    profiler-cli filter push --includes-function f-N  profkit --focus '^NAME$'
    profiler-cli filter push --excludes-function f-N  profkit --ignore '^NAME$'

The expected numbers come from `profkit convert IN --to folded --thread T`
with the same flag (self of a label = the counts of the lines it ends,
total = of the lines it is on, once per line), compared function by
function as ff_compare.py does.

Usage: ff_transform_compare.py --profkit BIN --cli PROFILER_CLI_JS --work DIR FILE...
Exits 1 on any mismatch or failure, or when nothing was compared.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ff_compare import TIME_UNITS, Loader, expected, profile_info, run, sanitize  # noqa: E402

FILTERS = (("merge", "--merge"), ("root-at", "--root-at"),
           ("includes-function", "--focus"), ("excludes-function", "--ignore"))


def ere_literal(s):
    """s as a POSIX extended regular expression matching it whole."""
    return "^" + "".join("\\" + c if c in ".[]{}()\\*+?^$|" else c for c in s) + "$"


def by_name(fun, exp):
    """{label: [self, total]} and {label: count} of the loader's functions,
    named as profkit labels them (ff_compare.py's rule)."""
    got, count = {}, {}
    for f in fun["functions"]:
        name = sanitize(f["name"])
        whole = sanitize(f.get("nameWithLibrary", f["name"]))
        if whole != name and whole in exp and name not in exp:
            name = whole
        g = got.setdefault(name, [0, 0])
        g[0] += f["selfSamples"]
        g[1] += f["totalSamples"]
        count[name] = count.get(name, 0) + 1
    return got, count


def compare(exp, got, count, scale):
    for d in (exp, got):
        for k in [k for k, v in d.items() if v == [0, 0]]:
            del d[k]
    for k in sorted(set(exp) | set(got)):
        if count.get(k, 0) > 1:
            continue  # several loader functions of one name: no exact total to compare
        e = [x * scale for x in exp.get(k, [0, 0])]
        g = got.get(k, [0, 0])
        for what, a, b in (("self", e[0], g[0]), ("total", e[1], g[1])):
            if abs(a - b) > 1e-9 * max(1.0, abs(a)):
                return "function %r: %s %r in profkit, %r in the loader" % (k, what, a, b)
    return None


def check_file(profkit, loader, work, path, index, per_thread):
    info = profile_info(profkit, path, [])
    if info is None:
        return None, ["profkit cannot read it"]
    values, default, threads = info
    unit = dict((v, u) for v, u, _ in values).get(default, "")
    scale = TIME_UNITS.get(unit, 1.0)
    out = os.path.join(work, "t%d.json" % index)
    run([profkit, "convert", "--quiet", path, "--to", "firefox", "-o", out])
    loader.load(out)
    fails, checked = [], 0
    try:
        for t in range(len(threads)):
            h = "t-%d" % t
            base_exp = expected(profkit, path, [], t, None)
            base = loader.json("thread", "functions", "--thread", h, "--include-idle", "--limit", "0")
            _, count = by_name(base, base_exp)
            cands = []
            for f in sorted(base["functions"], key=lambda f: -f["totalSamples"]):
                name = sanitize(f["name"])
                whole = sanitize(f.get("nameWithLibrary", f["name"]))
                if whole != name and whole in base_exp and name not in base_exp:
                    name = whole
                if f["totalSamples"] > 0 and count.get(name) == 1 and name in base_exp:
                    cands.append((f["functionHandle"], name))
            if len(cands) > per_thread:
                step = (len(cands) - 1) / (per_thread - 1) if per_thread > 1 else 1
                cands = [cands[round(i * step)] for i in range(per_thread)]
            for handle, name in cands:
                for ff, pk in FILTERS:
                    loader("filter", "push", "--thread", h, "--" + ff, handle)
                    try:
                        fun = loader.json("thread", "functions", "--thread", h, "--include-idle",
                                          "--limit", "0")
                    finally:
                        loader("filter", "pop", "--thread", h)
                    exp = expected(profkit, path, [pk, ere_literal(name)], t, None)
                    got, cnt = by_name(fun, exp)
                    msg = compare(exp, got, cnt, scale)
                    checked += 1
                    if msg:
                        fails.append("thread %d %s %r / %s: %s" % (t, pk, name, ff, msg))
    finally:
        loader("stop", timeout=60)
    return checked, fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profkit", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--per-thread", type=int, default=4)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    loader = Loader(a.cli, a.work)
    total = failures = 0
    try:
        for i, path in enumerate(a.files):
            try:
                checked, fails = check_file(a.profkit, loader, a.work, path, i, a.per_thread)
            except Exception as e:  # a failed command
                checked, fails = 0, ["error: %s" % e]
            if checked is None:
                print("SKIP %s: %s" % (path, fails[0]))
                continue
            total += checked
            failures += len(fails)
            for f in fails:
                print("FAIL %s: %s" % (path, f))
            if not fails:
                print("PASS %s: %d filter(s) compared" % (path, checked))
            sys.stdout.flush()
    finally:
        loader.stop_all()
    print("%d comparisons, %d failures" % (total, failures))
    return 1 if failures or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
