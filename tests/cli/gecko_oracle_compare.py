#!/usr/bin/env python3
"""Compares profkit's per-function sample counts with the Firefox Profiler's.

Usage: gecko_oracle_compare.py PROFKIT PROFILER_CLI_JS FILE

Loads FILE in the Firefox Profiler's own loader (@firefox-devtools/profiler-cli,
run by the `node` on PATH) and, for every thread, compares each function's
self and total sample counts with `profkit top --no-symbolize --thread I
--value samples` (the loader does not symbolize).
Functions are matched by name: self counts of equal names are summed on both
sides; total counts are compared for names that occur once in the thread.
Prints one line per thread and every difference; exits 1 on any difference.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
from loader import load as loader_load  # noqa: E402


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd[:3]), r.returncode, r.stderr.strip()[:400]))
    return r.stdout


def load(pq, path, env):
    """`load` through tests/oracle/loader.py (its start-up retries)."""
    loader_load(pq, path, env)

def pk_top(profkit, path, thread):
    """profkit's rows by bare name (the JSON's `name`: the text labels
    same-named functions of different files `NAME FILE`, the loader's
    functions are matched by name alone)."""
    out = run([profkit, "top", "-q", "--no-symbolize", "--thread", str(thread), "--value", "samples",
               "-n", "0", "--json", path])
    rows = {}
    for r in json.loads(out)["rows"]:
        s, t, n = rows.get(r["name"], (0, 0, 0))
        rows[r["name"]] = (s + int(r["flat"]), int(r["cum"]), n + 1)
    return rows


def main():
    profkit, cli, path = sys.argv[1:4]
    env = dict(os.environ)
    env["PROFILER_CLI_NO_SYMBOLICATE"] = "1"
    env.setdefault("PROFILER_CLI_LOAD_TIMEOUT_MS", "60000")
    failures = 0
    with tempfile.TemporaryDirectory() as sessions, tempfile.TemporaryDirectory() as cache:
        env["PROFILER_CLI_SESSION_DIR"] = sessions
        # Node keeps the loader's compiled code here, so each daemon after the
        # first starts faster, within the loader's fixed 500 ms more often.
        env["NODE_COMPILE_CACHE"] = cache
        pq = ["node", cli]
        try:
            load(pq, path, env)
            threads = json.loads(run(pq + ["thread", "list", "--json"], env))["threads"]
            threads.sort(key=lambda t: t["threadIndex"])
            for t in threads:
                idx = t["threadIndex"]
                data = json.loads(run(pq + ["thread", "functions", "--thread", t["threadHandle"],
                                            "--include-idle", "--limit", "0", "--json"], env))
                ff = {}
                for f in data.get("functions", []):
                    s, tot, n = ff.get(f["name"], (0, 0, 0))
                    ff[f["name"]] = (s + f["selfSamples"], f["totalSamples"], n + 1)
                pk = pk_top(profkit, path, idx)
                diffs = []
                for name in sorted(set(ff) | set(pk)):
                    a = ff.get(name, (0, 0, 0))
                    b = pk.get(name, (0, 0, 0))
                    if a[0] != b[0]:
                        diffs.append("%s: self %s (Firefox) vs %s (profkit)" % (name, a[0], b[0]))
                    if a[2] <= 1 and b[2] <= 1 and a[1] != b[1]:
                        diffs.append("%s: total %s (Firefox) vs %s (profkit)" % (name, a[1], b[1]))
                print("%s: thread %d %s: %d functions, %s" % (
                    os.path.basename(path), idx, t["name"], len(ff),
                    "same self/total counts" if not diffs else "%d differences" % len(diffs)))
                for d in diffs[:20]:
                    print("  " + d)
                failures += len(diffs) > 0
        finally:
            subprocess.run(pq + ["stop", "--all"], capture_output=True, env=env)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
