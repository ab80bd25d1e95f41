#!/usr/bin/env python3
"""Compares profkit's folded stacks (PC labels) of a gperftools profile with
Go pprof's (from pprof_raw_folded.py), allowing exactly one known difference:
Go pprof's signal-frame heuristic, which docs/formats/gperftools.md rules out. Go drops
up to two frames right above the leaf when (nearly) every record has them
there; profkit keeps them. So: the PCs profkit has and Go lacks must be at
most two, may only sit directly above the leaf, and removing them there
must give Go's stacks exactly (same counts). Prints what it dropped.
Usage: compare_go_folded.py OURS.folded GO.folded  (exit 0 = agree)
"""
import sys


def load(path):
    out = {}
    for line in open(path):
        line = line.rstrip("\n")
        if not line:
            continue
        stack, count = line.rsplit(" ", 1)
        out[stack] = out.get(stack, 0) + int(count)
    return out


ours, go = load(sys.argv[1]), load(sys.argv[2])
pcs_go = {pc for s in go for pc in s.split(";")}
extra = {pc for s in ours for pc in s.split(";")} - pcs_go
if len(extra) > 2:
    sys.exit("profkit has %d PCs Go pprof lacks (%s): more than its heuristic drops"
             % (len(extra), ", ".join(sorted(extra)[:5])))
stripped = {}
for s, c in ours.items():
    frames = s.split(";")  # root first; the leaf is last
    leaf, callers = frames[-1], frames[:-1]
    # The heuristic removes the frame directly above the leaf, up to twice.
    while callers and callers[-1] in extra:
        callers = callers[:-1]
    for pc in callers:
        if pc in extra:
            sys.exit("PC %s is not directly above the leaf in %s" % (pc, s))
    key = ";".join(callers + [leaf])
    stripped[key] = stripped.get(key, 0) + c
if stripped != go:
    for k in sorted(set(stripped) | set(go)):
        if stripped.get(k) != go.get(k):
            print("differs: %s profkit=%s go=%s" % (k, stripped.get(k), go.get(k)))
    sys.exit("stacks differ from Go pprof's")
print("agree with Go pprof%s" % (" after its signal-frame heuristic dropped " +
                                  ", ".join(sorted(extra)) if extra else ""))
