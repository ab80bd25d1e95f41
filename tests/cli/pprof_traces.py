#!/usr/bin/env python3
"""Reads Go pprof's `-traces` output on stdin and prints each trace as a
folded line `root;...;leaf VALUE` (sorted, equal stacks summed), the form
`profkit convert --to folded` writes. Go prints each trace leaf first, the
value on the leaf's line, traces between lines of dashes."""
import collections
import sys

stacks = collections.Counter()
value, frames = None, []


def flush():
    if value is not None and frames:
        stacks[";".join(f.replace(";", "_") for f in reversed(frames))] += value


for raw in sys.stdin.buffer.read().split(b"\n"):
    line = raw.decode("utf-8", "surrogateescape")
    if line.startswith("-----------+"):
        flush()
        value, frames = None, []
        continue
    if value is None and frames == [] and len(line) > 13 and line[10:13] == "   " and line[:10].strip().lstrip("-").isdigit():
        value = int(line[:10].strip())
        frames.append(line[13:])
    elif value is not None and line.startswith(" " * 13):
        frames.append(line[13:])
flush()
out = sorted(("%s %d" % (k, v)).encode("utf-8", "surrogateescape") for k, v in stacks.items() if v)
sys.stdout.buffer.write(b"".join(s + b"\n" for s in out))
