#!/usr/bin/env python3
"""Compares `profkit top --range R` with the Firefox Profiler's zoomed view.

Usage: range_oracle_compare.py PROFKIT PROFILER_CLI_JS RANGE FILE

RANGE may also be during:TEXT or outside:TEXT: then, thread by thread, the
loader's `filter push --during-marker (--outside-marker) --search TEXT`
against `profkit top --during-marker (--outside-marker) TEXT`.

Loads FILE in the Firefox Profiler's own loader (@firefox-devtools/profiler-cli,
run by the `node` on PATH), checks that its root range has the length
`profkit info --json` gives (time_range), runs `zoom push RANGE`, and for
every thread compares each function's self and total sample counts
(`thread functions --include-idle`) with `profkit top --range RANGE
--no-symbolize --thread I --json` on the sample counts. Functions are
matched by name (profkit's name of a script's top level as the loader's
"(root scope) URL", the loader's shown names read back as profkit's:
tests/oracle/loader.py gecko_name, loader_function_name): self counts of
equal names are summed on both sides; total counts are compared for names
that occur once in the thread. Prints one
line per thread and every difference; exits 1 on any difference, 2 when the
loader cannot read FILE (the caller decides whether that is a failure).
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
from loader import LoaderError, gecko_name, loader_function_name  # noqa: E402
from loader import load as loader_load  # noqa: E402


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd[:3]), r.returncode, r.stderr.strip()[:400]))
    return r.stdout


def load(pq, path, env):
    """`load` through tests/oracle/loader.py (its start-up retries); False
    when the loader cannot read the file."""
    try:
        loader_load(pq, path, env)
        return True
    except LoaderError as e:
        if "did not become ready" in str(e):
            raise
        return False

def pk_counts(profkit, path, rng, thread, value):
    if rng.startswith(("during:", "outside:")):
        kind, _, text = rng.partition(":")
        sel = ["--%s-marker" % kind, text]
    else:
        sel = ["--range", rng]
    cmd = [profkit, "top", "-q", "--no-symbolize"] + sel + ["--thread", str(thread),
           "-n", "0", "--json", path]
    if value:
        cmd[2:2] = ["--value", value]
    doc = json.loads(run(cmd))
    rows = {}
    for r in doc["rows"]:
        k = gecko_name(r["name"])
        s, t, n = rows.get(k, (0, 0, 0))
        rows[k] = (s + r["flat"], r["cum"], n + 1)
    return rows


def main():
    profkit, cli, rng, path = sys.argv[1:5]
    env = dict(os.environ)
    env["PROFILER_CLI_NO_SYMBOLICATE"] = "1"
    env.setdefault("PROFILER_CLI_LOAD_TIMEOUT_MS", "60000")
    info = json.loads(run([profkit, "info", "-q", "--no-symbolize", "--json", path]))
    # the loader counts samples: compare on a count value type
    value = None
    for v in info["value_types"]:
        if v["unit"] == "count" and v["type"] in ("samples", "sample"):
            value = v["type"]
    failures = 0
    name = os.path.basename(path)
    with tempfile.TemporaryDirectory() as sessions, tempfile.TemporaryDirectory() as cache:
        env["PROFILER_CLI_SESSION_DIR"] = sessions
        env["NODE_COMPILE_CACHE"] = cache
        pq = ["node", cli]
        try:
            if not load(pq, path, env):
                print("%s: the loader cannot read it" % name)
                return 2
            status = json.loads(run(pq + ["status", "--json"], env))
            root = status["rootRange"]
            mine = info.get("time_range")
            if not mine or abs((mine["end"] - mine["start"]) - (root["end"] - root["start"])) > 1e-6:
                print("%s: root range %r in the Firefox Profiler, %r in profkit" % (name, root, mine))
                failures += 1
            marker = rng.startswith(("during:", "outside:"))
            if not marker:
                run(pq + ["zoom", "push", rng], env)
            threads = json.loads(run(pq + ["thread", "list", "--json", "--limit", "0"], env))["threads"]
            threads.sort(key=lambda t: t["threadIndex"])
            if len(threads) != len(info["threads"]):
                print("%s: %d threads in the Firefox Profiler, %d in profkit" % (
                    name, len(threads), len(info["threads"])))
                return 1
            for t in threads:
                idx = t["threadIndex"]
                if marker:
                    kind, _, text = rng.partition(":")
                    run(pq + ["filter", "push", "--%s-marker" % kind, "--search", text,
                              "--thread", t["threadHandle"]], env)
                data = json.loads(run(pq + ["thread", "functions", "--thread", t["threadHandle"],
                                            "--include-idle", "--limit", "0", "--json"], env))
                if marker:
                    run(pq + ["filter", "pop", "--thread", t["threadHandle"]], env)
                pk = pk_counts(profkit, path, rng, idx, value)
                ff = {}
                for f in data.get("functions", []):
                    k = loader_function_name(f, pk)
                    s, tot, n = ff.get(k, (0, 0, 0))
                    ff[k] = (s + f["selfSamples"], f["totalSamples"], n + 1)
                diffs = []
                for fn in sorted(set(ff) | set(pk)):
                    a = ff.get(fn, (0, 0, 0))
                    b = pk.get(fn, (0, 0, 0))
                    if a[0] != b[0]:
                        diffs.append("%s: self %s (Firefox) vs %s (profkit)" % (fn, a[0], b[0]))
                    if a[2] <= 1 and b[2] <= 1 and a[1] != b[1]:
                        diffs.append("%s: total %s (Firefox) vs %s (profkit)" % (fn, a[1], b[1]))
                print("%s %s: thread %d %s: %d functions, %d samples in range, %s" % (
                    name, rng, idx, t["name"], len(ff), sum(v[0] for v in ff.values()),
                    "same self/total counts" if not diffs else "%d differences" % len(diffs)))
                for d in diffs[:20]:
                    print("  " + d)
                failures += len(diffs) > 0
        finally:
            subprocess.run(pq + ["stop", "--all"], capture_output=True, env=env)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
