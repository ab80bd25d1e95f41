#!/usr/bin/env python3
"""A seeded pprof profile for the label benchmark (docs/BENCHMARKS.md,
"pprof labels"): SAMPLES samples over LOCS single-Line locations, stacks of
depth 5 to 40 that share prefixes, each sample with LABELS of its own
(0: none; else a string label `function` of 8 values, and from 2 on a
numeric label `bytes` with unit bytes from 16 sizes, or from SIZES
multiples of 64 when given: the page's label grouping of many numbers).
Usage: gen_pprof_labels.py OUT SAMPLES LOCS LABELS [SIZES]"""
import random
import sys


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def lfield(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def vfield(num, v):
    return varint(num << 3) + varint(v)


def main():
    out, n_samples, n_locs, labels = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    sizes = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    rnd = random.Random(42)
    strings = ["", "samples", "count", "cpu", "nanoseconds", "function", "bytes"]
    fvals = ["slow", "fast", "io", "parse", "render", "net", "gc", "idle"]
    fval_ids = []
    for v in fvals:
        fval_ids.append(len(strings))
        strings.append(v)
    parts = [lfield(1, vfield(1, 1) + vfield(2, 2)), lfield(1, vfield(1, 3) + vfield(2, 4))]
    for i in range(1, n_locs + 1):
        strings.append("fn_%d" % i)
        parts.append(lfield(5, vfield(1, i) + vfield(2, len(strings) - 1)))
        parts.append(lfield(4, vfield(1, i) + lfield(4, vfield(1, i) + vfield(2, i % 1000 + 1))))
    roots = [rnd.randrange(1, n_locs + 1) for _ in range(50)]
    for _ in range(n_samples):
        depth = rnd.randrange(5, 41)
        stack = [rnd.choice(roots)]
        for d in range(1, depth):
            # prefixes shared: the first levels come from few choices
            stack.append(rnd.randrange(1, min(n_locs, 4 * (d + 1) ** 2) + 1))
        body = lfield(1, b"".join(varint(x) for x in reversed(stack)))
        body += lfield(2, varint(1) + varint(rnd.randrange(1, 100) * 10000000))
        if labels >= 1:
            body += lfield(3, vfield(1, 5) + vfield(2, rnd.choice(fval_ids)))
        if labels >= 2:
            size = 64 * rnd.randrange(1, sizes + 1) if sizes else 64 << rnd.randrange(0, 16)
            body += lfield(3, vfield(1, 6) + vfield(3, size) + vfield(4, 6))
        parts.append(lfield(2, body))
    parts.extend(lfield(6, s.encode()) for s in strings)
    with open(out, "wb") as f:
        f.write(b"".join(parts))


main()
