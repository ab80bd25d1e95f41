#!/usr/bin/env python3
"""The inputs of bench/store.sh, generated once and kept: the folded files
of tests/store/gen_folded.py and their sizes, computed here in one process.

store_inputs.py CACHE GENERATOR N STACKS SEED
Prints the directory that holds p00000.folded ... and labels.tsv (each
file's name without a directory, its host, version and day). The directory
is CACHE/n<N>-s<STACKS>-r<SEED>-<hash of the generator>; it is made once
(the generator is deterministic) and reused while sizes.txt is in it.

sizes.txt, one "name value" a line:
  bytes      the files' total size
  lines      their stack lines
  gz6        each file gzipped on its own at level 6 (gzip's default), summed
  gz9_files  how many files gz9 covers: all of them up to 1,000, else the
             first 1,000 (the same files as a run of 1,000: the generator
             draws the files in order from one seeded stream)
  gz9        those files gzipped on their own at level 9 (what the script
             compared with before: Python's gzip default), summed
  gz6_of_gz9 the same files at level 6, summed
Level 9 costs ~8x level 6 on these files (~30 ms of CPU a file) for 4-5%
fewer bytes, which made the 10,000-profile run spend most of its preparation
compressing; the script gives the level-9 sum of all files as gz6 * gz9 /
gz6_of_gz9 when N > 1,000 and says so."""
import gzip
import hashlib
import os
import shutil
import subprocess
import sys

cache, gen, n, stacks, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
with open(gen, "rb") as f:
    key = hashlib.sha256(f.read()).hexdigest()[:12]
d = os.path.join(cache, "n%d-s%d-r%d-%s" % (n, stacks, seed, key))
if not os.path.exists(os.path.join(d, "sizes.txt")):
    tmp = d + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    subprocess.run([sys.executable, gen, tmp, str(n), str(stacks), str(seed)], check=True)
    # names without the directory: the script links the files where it wants
    with open(os.path.join(tmp, "labels.tsv")) as f:
        rows = [line.split("\t", 1) for line in f]
    with open(os.path.join(tmp, "labels.tsv"), "w") as f:
        for path, rest in rows:
            f.write(os.path.basename(path) + "\t" + rest)
    total = lines = gz6 = gz9 = gz6_of_gz9 = 0
    nine = n if n <= 1000 else 1000
    for i in range(n):
        with open(os.path.join(tmp, "p%05d.folded" % i), "rb") as f:
            data = f.read()
        total += len(data)
        lines += data.count(b"\n")
        six = len(gzip.compress(data, 6, mtime=0))
        gz6 += six
        if i < nine:
            gz9 += len(gzip.compress(data, 9, mtime=0))
            gz6_of_gz9 += six
    with open(os.path.join(tmp, "sizes.txt"), "w") as f:
        f.write("bytes %d\nlines %d\ngz6 %d\ngz9_files %d\ngz9 %d\ngz6_of_gz9 %d\n"
                % (total, lines, gz6, nine, gz9, gz6_of_gz9))
    shutil.rmtree(d, ignore_errors=True)
    os.rename(tmp, d)
print(d)
