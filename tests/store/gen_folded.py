#!/usr/bin/env python3
"""Writes N folded profiles for the store's tests and benchmark: stacks drawn
from one call tree of F functions, so profiles share most of their stacks.

gen_folded.py OUTDIR N STACKS [SEED] [FUNCTIONS] [DEEP]
Files are OUTDIR/p00000.folded ...; OUTDIR/labels.tsv lists each file with
its labels (host, version) and a day (mtime).
DEEP (a depth, e.g. 40; default 0): stacks are instead paths of DEEP/2 to
DEEP frames down one fixed call tree (a path's next call is its usual one
85% of the time, else one of three others), so stacks share long prefixes
and differ near their leaves, as real deep stacks do."""
import os
import random
import sys

out, n, stacks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
nfunc = int(sys.argv[5]) if len(sys.argv) > 5 else 400
rng = random.Random(seed)
funcs = ["fn_%03d" % i for i in range(nfunc)] + ["recurse"]
# a pool of distinct stacks, four times what one profile holds
deep = int(sys.argv[6]) if len(sys.argv) > 6 else 0
pool = []
for _ in range(stacks * 4):
    if deep:
        # a walk down a fixed tree: the callees of a path are fixed by it
        st, h = ["main"], 0
        for _d in range(rng.randint(deep // 2, deep)):
            h = (h * 31 + (1 if rng.random() < 0.85 else rng.randrange(2, 5))) % 1000003
            st.append(funcs[h % nfunc])
        pool.append(";".join(st))
        continue
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
