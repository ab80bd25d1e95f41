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
  gz9_files  how many files gz9 covers: all of them
  gz9        every file gzipped on its own at level 9 (what the store is
             compared with: Python's gzip default), summed
  gz6_of_gz9 the same files at level 6, summed (= gz6)
Level 9 costs ~8x level 6 on these files (~30 ms of CPU a file: about 5
minutes for 10,000), paid once: the sizes are kept with the files. A
sizes.txt of an older version of this script, whose level-9 sum covered
only the first 1,000 files, is computed again from the kept files (the
files themselves are not made again)."""
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


def sizes(where):
    """The sizes of the files in `where`, written to its sizes.txt."""
    total = lines = gz6 = gz9 = 0
    for i in range(n):
        with open(os.path.join(where, "p%05d.folded" % i), "rb") as f:
            data = f.read()
        total += len(data)
        lines += data.count(b"\n")
        gz6 += len(gzip.compress(data, 6, mtime=0))
        gz9 += len(gzip.compress(data, 9, mtime=0))
    with open(os.path.join(where, "sizes.tmp"), "w") as f:
        f.write("bytes %d\nlines %d\ngz6 %d\ngz9_files %d\ngz9 %d\ngz6_of_gz9 %d\n"
                % (total, lines, gz6, n, gz9, gz6))
    os.replace(os.path.join(where, "sizes.tmp"), os.path.join(where, "sizes.txt"))


def complete(where):
    """Whether where/sizes.txt has the level-9 size of every file."""
    try:
        with open(os.path.join(where, "sizes.txt")) as f:
            kv = dict(line.split() for line in f if line.strip())
        return int(kv.get("gz9_files", -1)) == n
    except OSError:
        return False


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
    sizes(tmp)
    shutil.rmtree(d, ignore_errors=True)
    os.rename(tmp, d)
elif not complete(d):
    sizes(d)
print(d)
