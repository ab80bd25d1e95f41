#!/usr/bin/env python3
"""What a range of memory operations did per allocation site, read from a
.bsprof file here (docs/formats/bsprof.md), independently of profkit, for
tests/cli/bsprof_memrange.sh.

    bsprof_memrange.py FILE RANGES_JSON

RANGES_JSON: {"THREAD NAME": [[A, B], ...], ...}, or "all" for each
thread's whole run. Prints JSON {"THREAD": {"ops": N, "ranges": [[A, B,
{path: [alloc_objects, alloc_space, free_objects, freed_space,
inuse_objects, inuse_space]}, unmatched], ...]}} for operations A..B-1 of
the thread's memory series: an allocation is an operation of its thread; a
free (or free_realloc) is an operation of the thread that made the
allocation it frees; a free of no live allocation one of its own thread;
an allocation at an address still live frees that allocation first (one
operation when both are of one thread, else one in each, the other
thread's first). A path is the allocating call path's function names, root
first, joined by ';'.
"""
import json
import struct
import sys


class Cut(Exception):
    pass


class Reader:
    def __init__(self, data):
        self.d = data
        self.i = 0

    def varint(self):
        v, shift = 0, 0
        while True:
            if self.i >= len(self.d):
                raise Cut()
            b = self.d[self.i]
            self.i += 1
            v |= (b & 127) << shift
            shift += 7
            if not b & 128:
                return v

    def cstr(self):
        j = self.d.find(b"\0", self.i)
        if j < 0:
            raise Cut()
        s = self.d[self.i:j].decode("utf-8", "replace")
        self.i = j + 1
        return s


def read(path):
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        import gzip
        data = gzip.decompress(data)
    r = Reader(data)
    assert data[:8] == b"bsprof\0\0", "not a bsprof file"
    r.i = 8
    for _ in range(3):
        r.varint()
    hsize = r.varint()
    r.i += 8  # two float32 ratios
    lines = r.varint() != 0
    r.varint()  # memory flag
    r.varint()  # start timestamp
    for _ in range(6):
        r.cstr()
    r.i = hsize
    strings, modules, pe = {0: ""}, {}, {}
    ops = {}       # thread name -> [(stack path or None, size, freed op index or None)]
    live = {}      # address -> (thread, op index, path, size)

    def thread_of(e):
        while pe[e][0]:
            e = pe[e][0]
        return pe[e][1]

    def path_of(e):
        names = []
        while e:
            names.append(pe[e][2])
            e = pe[e][0]
        return ";".join(reversed(names))

    def op(th, path, size, freed):
        ops.setdefault(th, []).append((path, size, freed))
        return len(ops[th]) - 1

    try:
        while True:
            start = r.i
            tag = r.varint()
            if tag == 0:
                break
            t = tag & 7
            if t == 0:
                strings[tag >> 3] = r.cstr()
            elif t == 1:
                modules[tag >> 3] = strings[r.varint()]
            elif t == 2:
                caller = r.varint()
                if caller == 0:
                    mod = r.varint()
                    r.varint(); r.varint()
                    fn = r.varint()
                    pe[tag >> 3] = (0, modules[mod], strings[fn] or "(unknown)")
                else:
                    if lines:
                        r.varint()
                    r.varint(); r.varint()
                    fn = r.varint()
                    pe[tag >> 3] = (caller, None, strings[fn] or "(unknown)")
            elif t == 3:
                e, kind = (tag >> 5) & 0xFFFFFFFF, (tag >> 3) & 3
                if lines:
                    r.varint()
                addr = r.varint()
                size = r.varint() if kind == 0 else 0
                th = thread_of(e)
                if kind == 0:
                    freed = None
                    if addr in live:
                        oth, ok, _, _ = live.pop(addr)
                        if oth == th:
                            freed = ok
                        else:
                            op(oth, None, 0, ok)
                    k = op(th, path_of(e), size, freed)
                    live[addr] = (th, k, path_of(e), size)
                elif addr in live:
                    oth, ok, _, _ = live.pop(addr)
                    op(oth, None, 0, ok)
                else:
                    op(th, None, 0, None)
            elif t == 4:
                if lines:
                    r.varint()
                r.varint(); r.varint()
            elif t == 5:
                r.varint()
            else:
                raise SystemExit("entry type %d at %d" % (t, start))
    except Cut:
        pass  # a cut stream: every complete entry counts (entries apply whole)
    return ops


def sites(series, a, b):
    out, unmatched = {}, 0

    def row(p):
        return out.setdefault(p, [0, 0, 0, 0, 0, 0])
    for i in range(max(0, a), min(b, len(series))):
        path, size, freed = series[i]
        if path is not None:
            x = row(path)
            x[0] += 1; x[1] += size; x[4] += 1; x[5] += size
        if freed is not None:
            fpath, fsize, _ = series[freed]
            x = row(fpath)
            x[2] += 1; x[3] += fsize
            if freed >= a:
                x[4] -= 1; x[5] -= fsize
        elif path is None:
            unmatched += 1
    return out, unmatched


def main():
    ops = read(sys.argv[1])
    want = sys.argv[2]
    res = {}
    for th, series in ops.items():
        ranges = [[0, len(series)]] if want == "all" else json.loads(want).get(th, [])
        res[th] = {"ops": len(series), "ranges": [[a, b] + list(sites(series, a, b)) for a, b in ranges]}
    json.dump(res, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
