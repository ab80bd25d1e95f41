#!/usr/bin/env python3
"""Files from the wild (../shared/fixtures/wild/, see its README) read with
the answers their own tools give. Each family's answer is computed here from
the files' own data, as the README states it, never written down:

- perf/: the folded stacks equal stackcollapse-perf.pl's recorded `--all`
  output less its first frame and the `_[k]`/`_[j]` suffixes
  (perf_collapsed.py, which also allows the last sample of a file that
  ends without a blank line, which that tool drops).
- speedscope/stackcollapse_*: the total is the sum of the counts of every
  line that ends in a number and is not a comment.
- speedscope/speedscope_*: each sampled profile's total weight (or sample
  count), in the file's unit; invalid_ files give an error or a warning
  naming the file, never a crash.
- speedscope/Firefox_*: detected as gecko; per thread, as many samples as
  the embedded profile's samples.data holds (those with a null stack may
  count nowhere).
- linux-perf/: every sample counted once in `samples`, and each sample's
  leaf named as stackcollapse-perf.pl names it.
- v8/: every sample counted (those on the root node may count nowhere),
  leaves grouped by the node's functionName.

    wild_fixtures.py PROFKIT WILD_DIR SRC_DIR

Prints one line per check ("ok ..." or "FAIL ..."); exits 1 when any failed.
"""
import collections
import json
import os
import re
import subprocess
import sys

PROFKIT, WILD, SRC = sys.argv[1:4]
failures = 0
checks = 0


def check(ok, what):
    global failures, checks
    checks += 1
    if ok:
        print("ok   %s" % what)
    else:
        failures += 1
        print("FAIL %s" % what)


def run(*args):
    out = subprocess.run([PROFKIT] + list(args), capture_output=True)
    return out.returncode, out.stdout.decode("utf-8", "surrogateescape"), \
        out.stderr.decode("utf-8", "surrogateescape")


def clean_exit(rc, err):
    """Exit 0 or 1 with a message: no crash, no sanitizer report."""
    return rc in (0, 1) and "Sanitizer" not in err and "runtime error" not in err


def info(path):
    rc, out, err = run("info", "--json", path)
    if rc != 0:
        return None, err
    return json.loads(out), err


def folded_total(path, *opts):
    rc, out, err = run("convert", "--to", "folded", *opts, path)
    if rc != 0:
        return None
    return sum(int(l.rpartition(" ")[2]) for l in out.splitlines() if l)


def thread_totals(path, doc, value=None):
    """[(thread name, total of `value` or the default)] in thread order."""
    res = []
    for t in doc["threads"]:
        opts = ["--thread", str(t["index"])]
        if value:
            opts += ["--value", value]
        res.append((t["name"], folded_total(path, *opts)))
    return res


def leaves(path, value):
    """{function name: flat value}, from `top`."""
    rc, out, err = run("top", "--json", "-n", "0", "--value", value, path)
    if rc != 0:
        return None
    got = collections.Counter()
    for row in json.loads(out)["rows"]:
        if row["flat"]:
            got[row["name"]] += row["flat"]
    return got


# ---------------------------------------------------------------- perf/

def perf_family():
    d = os.path.join(WILD, "perf")
    for name in sorted(os.listdir(d)):
        if not name.endswith(".txt"):
            continue
        path = os.path.join(d, name)
        base = name[:-4]
        doc, err = info(path)
        check(doc is not None and doc["format"] == "perf_script", "perf/%s: read as perf_script %s" % (name, err.strip()))
        res = os.path.join(d, "results", base + "-collapsed-all.txt")
        out = subprocess.run([sys.executable, os.path.join(SRC, "tests/cli/perf_collapsed.py"), PROFKIT, path, res],
                             capture_output=True, text=True)
        check(out.returncode == 0, "perf/%s: stackcollapse-perf.pl's stacks%s" % (
            name, "" if out.returncode == 0 else "\n" + out.stdout + out.stderr))


# ---------------------------------------------------------------- speedscope/

def folded_answer(path):
    raw = open(path, "rb").read()
    if raw.startswith(b"\xff\xfe") or raw.startswith(b"\xfe\xff"):
        text = raw.decode("utf-16")
    else:
        text = raw.decode("utf-8", "surrogateescape").lstrip("\ufeff")
    total = 0
    for line in text.split("\n"):
        line = line.rstrip("\r")
        if line.lstrip().startswith(("#", "//")):
            continue
        m = re.search(r"\s(\d+)$", line)
        if m:
            total += int(m.group(1))
    return total


def gecko_threads(profile):
    """[(name, samples in samples.data, of them with a null stack)] in
    document order, sub-processes where they appear."""
    res = []
    for key, val in profile.items():
        if key == "threads":
            for t in val:
                if isinstance(t, str):
                    t = json.loads(t)
                s = t.get("samples", {})
                data = s.get("data", []) if isinstance(s, dict) else s
                col = s.get("schema", {}).get("stack", 0) if isinstance(s, dict) else 0
                nulls = sum(1 for row in data
                            if (row[col] if isinstance(row, list) and col < len(row) else None) is None)
                res.append((t.get("name", ""), len(data), nulls))
        elif key == "processes":
            for sub in val:
                res.extend(gecko_threads(sub))
    return res


def speedscope_family():
    d = os.path.join(WILD, "speedscope")
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        if name.startswith("stackcollapse_"):
            doc, err = info(path)
            want = folded_answer(path)
            got = None if doc is None else [v["total"] for v in doc["value_types"] if v["default"]][0]
            check(doc is not None and doc["format"] == "folded" and got == want,
                  "speedscope/%s: folded total %s, expected %d %s" % (name, got, want, err.strip()[:200]))
        elif name.startswith("speedscope_invalid_"):
            rc, out, err = run("info", path)
            said = ("error:" in err or "warning:" in err) and name in err
            check(clean_exit(rc, err) and said, "speedscope/%s: a clear error or warning (exit %d): %s" % (name, rc, err.strip()[:300]))
        elif name.startswith("speedscope_"):
            src = json.load(open(path))
            doc, err = info(path)
            check(doc is not None and doc["format"] == "speedscope", "speedscope/%s: read as speedscope %s" % (name, err.strip()))
            if doc is None:
                continue
            got = dict(thread_totals(path, doc))
            default = [v for v in doc["value_types"] if v["default"]][0]
            for prof in src["profiles"]:
                if prof.get("type") != "sampled":
                    continue
                want = sum(prof["weights"]) if prof.get("weights") is not None else len(prof["samples"])
                check(got.get(prof.get("name", "")) == want,
                      "speedscope/%s: profile %r total weight %s, expected %d" % (name, prof.get("name"), got.get(prof.get("name", "")), want))
                unit = prof.get("unit", "none")
                if prof.get("weights") is not None and unit != "none":
                    check(default["unit"] == unit, "speedscope/%s: unit %s, expected the file's %s" % (name, default["unit"], unit))
        elif name.startswith("Firefox_"):
            doc, err = info(path)
            check(doc is not None and doc["format"] == "gecko", "speedscope/%s: detected as gecko %s" % (name, err.strip()[:300]))
            if doc is None:
                continue
            want = gecko_threads(json.load(open(path))["profile"])
            got = thread_totals(path, doc, "samples")
            check(len(got) == len(want), "speedscope/%s: %d threads, expected %d" % (name, len(got), len(want)))
            for (gname, gn), (wname, wn, nulls) in zip(got, want):
                check(gname == wname and gn is not None and wn - nulls <= gn <= wn,
                      "speedscope/%s: thread %s: %s samples, expected %d (%d with a null stack)" % (name, gname, gn, wn, nulls))


# ---------------------------------------------------------------- linux-perf/

HEADER = re.compile(r"^(\S.+?)\s+(\d+)/*(\d+)*\s+")
FRAME = re.compile(r"^\s*(\w+)\s*(.+) \((.*)\)")


def perf_leaf(comm, frame_lines):
    """The leaf of a sample as stackcollapse-perf.pl names it, or None."""
    for line in frame_lines:
        m = FRAME.match(line)
        if not m:
            continue
        rawfunc, mod = m.group(2), m.group(3)
        rawfunc = re.sub(r"\+0x[\da-f]+$", "", rawfunc)
        if rawfunc.startswith("("):
            continue  # a process name, not a frame
        parts = []
        for func in rawfunc.split("->"):
            if func == "[unknown]" and mod != "[unknown]":
                func = "[" + mod.rsplit("/", 1)[-1] + "]"
            func = func.replace(";", ":")
            if not re.search(r"\.\(.*\)\.", func):
                func = re.sub(r"\((?!anonymous namespace\)).*", "", func)
            func = func.replace('"', "").replace("'", "")
            if comm == "java" and "/" in func:
                func = re.sub(r"^L", "", func)
            if parts and "_[i]" not in func:
                func += "_[i]"
            parts.append(func)
        return parts[-1]
    return None


def linux_perf_family():
    d = os.path.join(WILD, "linux-perf")
    for name in sorted(os.listdir(d)):
        if not name.endswith(".txt"):
            continue
        path = os.path.join(d, name)
        samples, want = 0, collections.Counter()
        comm, frames = None, None
        for line in open(path, encoding="utf-8", errors="surrogateescape").read().split("\n") + [""]:
            if line.startswith("#"):
                continue
            m = HEADER.match(line)
            if m or not line.strip():
                if frames is not None:
                    leaf = perf_leaf(comm, frames)
                    if leaf is not None:
                        want[leaf] += 1
                comm, frames = (m.group(1), []) if m else (None, None)
                samples += 1 if m else 0
            elif frames is not None:
                frames.append(line)
        doc, err = info(path)
        check(doc is not None and doc["format"] == "perf_script" and not err.strip(),
              "linux-perf/%s: read as perf_script without a warning %s" % (name, err.strip()))
        if doc is None:
            continue
        got = [v["total"] for v in doc["value_types"] if v["type"] == "samples"]
        check(got == [samples], "linux-perf/%s: %s samples, expected %d" % (name, got, samples))
        got = leaves(path, "samples")
        bad = [k for k in set(want) | set(got or {}) if got is None or want[k] != got[k]]
        check(got is not None and not bad, "linux-perf/%s: samples per leaf as stackcollapse-perf.pl names it%s" % (
            name, "".join("\n  %r: expected %d, got %s" % (k, want[k], got[k] if got else None) for k in sorted(bad)[:8])))


# ---------------------------------------------------------------- v8/

def v8_family():
    d = os.path.join(WILD, "v8")
    for name in sorted(os.listdir(d)):
        if not name.endswith(".cpuprofile"):
            continue
        path = os.path.join(d, name)
        src = json.load(open(path))
        names, roots = {}, set()
        if "nodes" in src:
            for n in src["nodes"]:
                names[n["id"]] = n["callFrame"]["functionName"]
            children = {c for n in src["nodes"] for c in n.get("children", [])}
            roots = {n["id"] for n in src["nodes"] if n["id"] not in children}
        else:
            todo = [(src["head"], True)]
            while todo:
                n, root = todo.pop()
                names[n["id"]] = n["functionName"]
                if root:
                    roots.add(n["id"])
                todo.extend((c, False) for c in n.get("children", []))
        want = collections.Counter()
        on_root = 0
        for s in src["samples"]:
            if s in roots:
                on_root += 1
            else:
                want[names[s] or "(anonymous)"] += 1
        doc, err = info(path)
        check(doc is not None and doc["format"] == "v8_cpuprofile", "v8/%s: read as v8_cpuprofile %s" % (name, err.strip()))
        if doc is None:
            continue
        total = [v["total"] for v in doc["value_types"] if v["type"] == "samples"]
        n = len(src["samples"])
        check(len(total) == 1 and n - on_root <= total[0] <= n, "v8/%s: %s samples, expected %d (%d on the root)" % (name, total, n, on_root))
        got = leaves(path, "samples")
        bad = [k for k in set(want) | set(got or {}) if got is None or want[k] != got[k]]
        check(got is not None and not bad, "v8/%s: samples per leaf functionName%s" % (
            name, "".join("\n  %r: expected %d, got %s" % (k, want[k], got[k] if got else None) for k in sorted(bad)[:8])))


for family, fn in (("perf", perf_family), ("speedscope", speedscope_family),
                   ("linux-perf", linux_perf_family), ("v8", v8_family)):
    if os.path.isdir(os.path.join(WILD, family)):
        fn()
    else:
        check(False, "%s/ is missing from %s" % (family, WILD))
print("%d checks, %d failed" % (checks, failures))
sys.exit(1 if failures or checks == 0 else 0)
