#!/usr/bin/env python3
"""Writes N folded profiles for the store's tests and benchmark: stacks drawn
from one call tree of F functions, so profiles share most of their stacks.

gen_folded.py OUTDIR N STACKS [SEED] [FUNCTIONS]
Files are OUTDIR/p00000.folded ...; OUTDIR/labels.tsv lists each file with
its labels (host, version) and a day (mtime)."""
import os
import random
import sys

out, n, stacks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
nfunc = int(sys.argv[5]) if len(sys.argv) > 5 else 400
rng = random.Random(seed)
funcs = ["fn_%03d" % i for i in range(nfunc)] + ["recurse"]
# a pool of distinct stacks, four times what one profile holds
pool = []
for _ in range(stacks * 4):
    depth = rng.randint(1, 12)
    st = ["main"] + [rng.choice(funcs[: 20 + 10 * d]) for d in range(depth)]
    if rng.random() < 0.1:
        st += ["recurse", "fn_001", "recurse"]
    pool.append(";".join(st))
pool = sorted(set(pool))
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "labels.tsv"), "w") as lab:
    for i in range(n):
        name = os.path.join(out, "p%05d.folded" % i)
        with open(name, "w") as f:
            for st in rng.sample(pool, min(stacks, len(pool))):
                f.write("%s %d\n" % (st, rng.randint(1, 1000)))
        lab.write("%s\thost=h%02d\tversion=1.%d\t%d\n" % (name, i % 50, i % 20, 1 + i % 9))
