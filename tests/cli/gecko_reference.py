#!/usr/bin/env python3
"""An independent, whole-document reading of Gecko / processed profiles.

Usage: gecko_reference.py FILE
Prints, for every thread in the Firefox Profiler's order (raw Gecko: a
profile's own threads, then its sub-processes'), a header line
  "# thread I NAME samples=N weight=W"
followed by the thread's folded stacks ("root;...;leaf VALUE", sorted).

It is written from docs/formats/gecko.md with Python's json module (the whole file in
memory, no streaming), so it shares no code with profkit's reader; the CLI
tests compare profkit's per-thread folded output with it.
"""
import gzip
import json
import re
import sys


def location_name(s):
    """docs/formats/gecko.md: the function label of a raw Gecko location string."""
    if re.fullmatch(r"0[xX][0-9a-fA-F]{1,16}", s):
        return s
    m = re.fullmatch(r"(.*\))\[\d+\]", s)  # Gecko 32+: trailing [source index]
    if m:
        s = m.group(1)
    m = re.fullmatch(r"(.+) \(in (.+)\)", s)
    if m and " (" not in m.group(2):
        return m.group(1)
    m = re.fullmatch(r"(.+) \((.+):(\d{1,9})(?::(\d{1,9}))?\)", s)
    if m and " (" not in m.group(2):
        return m.group(1)
    return s


def label(name):
    return name.replace(";", "_").replace("\n", "_")


def table_rows(t):
    """A raw {schema, data} table as a list of dicts (short rows: None)."""
    if "schema" in t:
        schema = t["schema"]
        return [{k: (row[i] if i < len(row) else None) for k, i in schema.items()} for row in t["data"]]
    n = max([len(v) for v in t.values() if isinstance(v, list)] + [0])
    return [{k: (v[i] if i < len(v) else None) for k, v in t.items() if isinstance(v, list)} for i in range(n)]


def sub_profiles(profile):
    """A profile's sub-processes: Gecko 3-4's profiles as JSON text inside
    `threads` (the upgrader makes them `processes` entries), then `processes`."""
    subs = [json.loads(th) for th in profile.get("threads", []) if isinstance(th, str)]
    return subs + list(profile.get("processes") or [])


def raw_threads(profile, out):
    """Threads as the Firefox Profiler's loader numbers them, wherever the
    keys are: the profile's own threads, then each sub-process's own; the
    threads of processes inside a sub-process (which the loader does not
    read) after all of them, depth first."""
    deep = []

    def depth_first(p):
        raw_thread_list(p, deep)
        for sub in sub_profiles(p):
            depth_first(sub)

    raw_thread_list(profile, out)
    for sub in sub_profiles(profile):
        raw_thread_list(sub, out)
        for subsub in sub_profiles(sub):
            depth_first(subsub)
    out.extend(deep)


def raw_thread_list(profile, out):
    """A profile's own threads."""
    for th in profile.get("threads", []):
        if isinstance(th, str):  # Gecko 3-4: a sub-process profile as JSON text
            continue
        strings = th["stringTable"]
        frames = table_rows(th["frameTable"])
        stacks = table_rows(th["stackTable"])
        labels = []
        for s in stacks:
            loc = strings[frames[s["frame"]]["location"]]
            if profile["meta"]["version"] < 14 and loc.startswith("AutoEntryScript "):
                loc = loc[len("AutoEntryScript "):]  # the upgrade to version 14 takes it off
            labels.append(location_name(loc))

        def path(i):
            p = []
            while i is not None:
                p.append(labels[i])
                i = stacks[i]["prefix"]
            return p[::-1]

        samples = table_rows(th["samples"])
        name = th.get("name", "")
        if name == "Content" and "processType" not in th and profile["meta"]["version"] < 4:
            name = "GeckoMain"
        out.append((name, [(path(s["stack"]), s.get("weight")) for s in samples if s["stack"] is not None]))


def processed_threads(profile, out):
    version = profile["meta"].get("preprocessedProfileVersion", 0)
    shared = profile.get("shared", {})
    for th in profile["threads"]:
        strings = th.get("stringArray", shared.get("stringArray"))
        stacks = table_rows(th.get("stackTable", shared.get("stackTable")))
        frames = table_rows(th.get("frameTable", shared.get("frameTable")))
        funcs = table_rows(th.get("funcTable", shared.get("funcTable")))

        def fname(f):
            func = funcs[f]
            s = strings[func["name"]]
            if version < 4 and "fileName" not in func and func.get("isJS"):
                m = re.fullmatch(r"(.+) \((.+):(\d+)\)", s)
                if m:
                    return m.group(1)
            if version < 17 and s.startswith("AutoEntryScript "):
                return s[len("AutoEntryScript "):]
            return s

        def parent(i):
            s = stacks[i]
            if "prefixOffset" in s and "prefix" not in s:
                return None if not s["prefixOffset"] else i - s["prefixOffset"]
            return s["prefix"]

        def path(i):
            p = []
            while i is not None:
                p.append(fname(frames[stacks[i]["frame"]]["func"]))
                i = parent(i)
            return p[::-1]

        samples = th["samples"]
        rows = table_rows({k: v for k, v in samples.items() if k in ("stack", "weight")})
        name = th.get("name", "")
        if name == "Content" and "processType" not in th and version < 1:
            name = "GeckoMain"
        out.append((name, [(path(s["stack"]), s.get("weight")) for s in rows if s["stack"] is not None]))


def main():
    path = sys.argv[1]
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        profile = json.load(f)
    threads = []
    if "preprocessedProfileVersion" in profile["meta"] or any(
            "stringArray" in t for t in profile["threads"] if isinstance(t, dict)):
        processed_threads(profile, threads)
    else:
        raw_threads(profile, threads)
    for i, (name, samples) in enumerate(threads):
        folded = {}
        weight = 0
        for stack, w in samples:
            w = 1 if w is None else int(round(w))
            weight += w
            key = ";".join(label(x) for x in stack)
            folded[key] = folded.get(key, 0) + w
        print("# thread %d %s samples=%d weight=%d" % (i, name, len(samples), weight))
        for k in sorted(folded):
            if folded[k]:
                print("%s %d" % (k, folded[k]))


if __name__ == "__main__":
    main()
