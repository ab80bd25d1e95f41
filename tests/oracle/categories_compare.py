#!/usr/bin/env python3
"""Frame categories against the Firefox Profiler's own loader (profiler-cli).

Usage: categories_compare.py PROFKIT PROFILER_CLI_JS WORKDIR FILE...

For every FILE (a raw Gecko or processed Firefox profile):
  1. the loader loads FILE and gives, thread by thread, its category
     breakdown of the samples (`thread samples --json`: per category name
     the samples whose stack is in it, and per subcategory name);
  2. `profkit convert FILE --to firefox` loaded by the loader must give
     the same breakdown on every thread (threads matched by name, in
     order), and its meta.categories must be the input's (names, colours
     and subcategories, where the input gives them);
  3. every function of the output that is JS (isJS) or relevantForJS in
     the input keeps it: the sets of (name, flag) are compared.
Prints a line per file and every difference; exits 1 on any.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loader import Loader, LoaderError, loadable, read_json, run  # noqa: E402


def breakdown(loader, path):
    """[((thread name, tid), {category: (samples, {subcategory: samples})})],
    sorted by name and tid."""
    loader.load(path)
    try:
        threads = loader.json("thread", "list", "--limit", "0")["threads"]
        out = []
        for t in sorted(threads, key=lambda t: t["threadIndex"]):
            d = loader.json("thread", "samples", "--thread", t["threadHandle"])
            cats = {}
            for c in d["categoryBreakdown"]["categories"]:
                if not c["samples"]:
                    continue
                subs = {s["name"]: s["samples"] for s in c.get("subcategories", []) if s["samples"]}
                cats[c["name"]] = (c["samples"], subs)
            out.append(((t["name"], str(t.get("tid"))), cats))
        return sorted(out, key=lambda x: x[0])
    finally:
        run(loader.base + ["stop"], env=loader.env, check=False)


def meta_categories(doc):
    cats = doc.get("meta", {}).get("categories") if isinstance(doc, dict) else None
    return [(c.get("name"), c.get("color"), c.get("subcategories") or ["Other"])
            for c in cats or [] if isinstance(c, dict)]


def js_functions(doc):
    """{(name, "isJS"|"relevantForJS")} of a processed profile (shared or
    per-thread tables, flags or columns)."""
    out = set()
    tables = []
    if isinstance(doc.get("shared"), dict) and "funcTable" in doc["shared"]:
        tables.append((doc["shared"]["funcTable"], doc["shared"].get("stringArray", [])))
    for t in doc.get("threads", []):
        if "funcTable" in t:
            tables.append((t["funcTable"], t.get("stringArray") or t.get("stringTable")
                           or doc.get("shared", {}).get("stringArray", [])))
    for ft, strings in tables:
        n = ft.get("length", len(ft.get("name", [])))
        for i in range(n):
            name = strings[ft["name"][i]]
            flags = ft["flags"][i] if "flags" in ft else 0
            if flags & 1 or ("isJS" in ft and ft["isJS"][i]):
                out.add((name, "isJS"))
            if flags & 2 or ("relevantForJS" in ft and ft["relevantForJS"][i]):
                out.add((name, "relevantForJS"))
    return out


def dst_names(doc):
    """The function names of profkit's output."""
    sh = doc["shared"]
    return [sh["stringArray"][i] for i in sh["funcTable"]["name"]]


def main():
    profkit, cli, work = sys.argv[1:4]
    loader = Loader(cli, work)
    bad = 0
    for f in sys.argv[4:]:
        base = os.path.basename(f)
        errs = []
        n_cats = 0
        note = "the round trip gives the loader the same categories"
        try:
            try:
                want = breakdown(loader, loadable(f, work))
            except LoaderError as e:  # the loader fails on the input itself
                want = None
                why = str(e).split(": ", 2)[-1][:70]
                note = "the loader fails on the input (%s): the round trip loads, meta.categories checked" % why
            out = os.path.join(work, base.replace(".gz", "") + ".firefox.json")
            run([profkit, "convert", "-q", "--no-symbolize", f, "--to", "firefox", "-o", out])
            got = breakdown(loader, out)
            if want is not None:
                if [n for n, _ in got] != [n for n, _ in want]:
                    errs.append("threads %s, expected %s" % ([n for n, _ in got], [n for n, _ in want]))
                # threads of one name and tid (the loader orders them by process)
                # are compared as a set
                gb, wb = {}, {}
                for n, c in got:
                    gb.setdefault(n, []).append(json.dumps(c, sort_keys=True))
                for n, c in want:
                    wb.setdefault(n, []).append(json.dumps(c, sort_keys=True))
                    n_cats = max(n_cats, len(c))
                for n in wb:
                    if sorted(gb.get(n, [])) != sorted(wb[n]):
                        errs.append("thread %s: categories %s, expected %s" % (n, gb.get(n), wb[n]))
            else:
                want = got
            src, dst = read_json(f), read_json(out)
            sc, dc = meta_categories(src), meta_categories(dst)
            if sc:
                for i, (name, color, subs) in enumerate(sc):
                    if i >= len(dc) or dc[i][0] != name or dc[i][1] != color or \
                            (src["meta"]["categories"][i].get("subcategories") and dc[i][2] != subs):
                        errs.append("meta.categories[%d] %s, expected %s" %
                                    (i, dc[i] if i < len(dc) else None, (name, color, subs)))
                        break
            if "shared" in src or "funcTable" in (src.get("threads") or [{}])[0]:
                # functions no sample reaches are not written: compare those written
                sj, dj = js_functions(src), js_functions(dst)
                names = set(dst_names(dst))
                sj = {x for x in sj if x[0] in names}
                if sj - dj:
                    errs.append("isJS/relevantForJS lost: %s" % sorted(sj - dj)[:5])
        except (LoaderError, OSError, ValueError, KeyError) as e:
            errs.append(str(e))
        if errs:
            bad += 1
            print("FAIL %s" % base)
            for e in errs[:10]:
                print("  " + e[:600])
        else:
            print("ok   %s: %d threads, up to %d categories in one: %s" % (base, len(want), n_cats, note))
    if loader.retries:
        print("(the loader's daemon was slow to start %d times: retried)" % loader.retries)
    loader.stop_all()
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
