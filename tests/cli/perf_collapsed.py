#!/usr/bin/env python3
"""Compares profkit's folded stacks of a `perf script` file with
stackcollapse-perf.pl's recorded `--all` output for it
(docs/formats/perf_script.md):

    perf_collapsed.py PROFKIT FILE COLLAPSED_ALL

The recorded output is taken as the answer once its first frame (the
process name, a thread in profkit) is taken off and the `_[k]` and `_[j]`
suffixes (its --all annotations) are removed. stackcollapse-perf.pl records
a stack only at a blank line, so a file that ends right after its last
frame line loses that sample there, where profkit keeps it: then the file
up to its last blank line must give exactly the answer, and the whole file
the answer plus that one last sample (its header's period, as many frames
as its frame lines). Prints what differs; exits 1 when anything does.
"""
import collections
import os
import re
import subprocess
import sys
import tempfile


def folded(profkit, path):
    out = subprocess.run([profkit, "convert", "--to", "folded", path],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("FAIL: %s: profkit exit %d: %s" % (path, out.returncode, out.stderr.strip()))
    got = collections.Counter()
    for line in out.stdout.splitlines():
        stack, _, count = line.rpartition(" ")
        got[stack] += int(count)
    return got, out.stderr


def answer(collapsed):
    want = collections.Counter()
    with open(collapsed, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            stack, _, count = line.rpartition(" ")
            frames = [re.sub(r"_\[[kj]\]$", "", x) for x in stack.split(";")[1:]]
            if frames:
                want[";".join(frames)] += int(count)
    return want


def differences(name, want, got, limit=8):
    bad = [k for k in set(want) | set(got) if want[k] != got[k]]
    for k in sorted(bad)[:limit]:
        print("  %s: expected %d, got %d: %s" % (name, want[k], got[k], k[-200:]))
    return len(bad)


def main():
    profkit, path, collapsed = sys.argv[1:4]
    name = os.path.basename(path)
    want = answer(collapsed)
    got, err = folded(profkit, path)
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()  # the newline ends the last line; no line follows it
    last_blank = max((i for i, l in enumerate(lines) if not l.strip()), default=-1)
    tail = [l for l in lines[last_blank + 1:] if l.strip()]
    failed = 0
    if "warning" in err or "error" in err:
        print("FAIL: %s: %s" % (name, err.strip()))
        failed += 1
    if not tail:
        n = differences(name, want, got)
        if n:
            print("FAIL: %s: %d stacks differ from stackcollapse-perf.pl's" % (name, n))
            failed += 1
    else:
        # The last sample has no blank line after it.
        with tempfile.NamedTemporaryFile(suffix=".txt", delete=False) as t:
            t.write(b"\n".join(lines[:last_blank + 1]) + b"\n")
        try:
            before, _ = folded(profkit, t.name)
        finally:
            os.unlink(t.name)
        n = differences(name + " up to its last blank line", want, before)
        if n:
            print("FAIL: %s up to its last blank line: %d stacks differ from stackcollapse-perf.pl's" % (name, n))
            failed += 1
        extra = got - before
        header = tail[0].decode("utf-8", "replace")
        m = re.search(r":\s*(\d+)?\s+(\S+):\s*$", header)
        period = int(m.group(1)) if m and m.group(1) else 1
        frames = len(tail) - 1
        if (before - got) or sum(extra.values()) != period or len(extra) != 1 or \
                len(next(iter(extra)).split(";")) != frames:
            print("FAIL: %s: the last sample (no blank line after it) is not one more stack of "
                  "%d frames and value %d: %s" % (name, frames, period, dict(extra)))
            failed += 1
    print("%s: %s" % (name, "differs" if failed else "same as stackcollapse-perf.pl%s" %
                      (" plus its last sample" if tail else "")))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
