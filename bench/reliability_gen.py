#!/usr/bin/env python3
"""reliability_gen.py: hostile-shaped inputs for bench/reliability.sh.

Usage: reliability_gen.py FAMILY N OUT

Each family is one shape a crafted (or unlucky) file can take; N scales it,
and the input grows linearly with N, so a reader that stays linear takes
about N times as long. The shapes (docs/BENCHMARKS.md, "Reliability"):

  json_string    raw Gecko, a thread name of N KiB
  json_escapes   raw Gecko, a thread name of N KiB of \\uXXXX and \\n escapes
  json_number    raw Gecko, a thread id of N Ki digits
  json_threads   raw Gecko, N empty threads
  json_rows      raw Gecko, a frame table with `data` before `schema`, N rows
  gecko_deep     raw Gecko, a stack prefix chain N deep, a sample at every level
  firefox_deep   processed Firefox, the same chain
  folded_line    folded, one line of N frames (and a second one sharing it)
  gperf_pcs      gperftools, N distinct PCs whose hashes under a fixed
                 (unseeded) mixer share their low 20 bits
  pprof_types    pprof, N sample types, each with a type string of its own
  pprof_labels   pprof, N samples, each with its own `thread` label value
  pprof_deep     pprof, a stack N deep sampled once at its leaf and once
                 at each level's function (long Line lists over one name)
"""
import gzip
import json
import struct
import sys


def gecko_doc(threads, meta_extra=None):
    meta = {"version": 36, "interval": 1, "startTime": 0, "stackwalk": 1}
    if meta_extra:
        meta.update(meta_extra)
    return {"meta": meta, "libs": [], "threads": threads, "processes": []}


def empty_thread(name="t", tid=1):
    return {
        "name": name, "tid": tid, "pid": "1", "processType": "default",
        "samples": {"schema": {"stack": 0, "time": 1}, "data": []},
        "markers": {"schema": {"name": 0, "startTime": 1}, "data": []},
        "stackTable": {"schema": {"prefix": 0, "frame": 1}, "data": []},
        "frameTable": {"schema": {"location": 0}, "data": []},
        "stringTable": [],
    }


def write_json_with(out, doc, marker, raw):
    text = json.dumps(doc, separators=(",", ":"))
    text = text.replace(json.dumps(marker), raw, 1)
    out.write(text.encode())


def json_string(n, out):
    write_json_with(out, gecko_doc([empty_thread("@@NAME@@")]), "@@NAME@@",
                    '"' + "profkit" * (n * 1024 // 7) + '"')


def json_escapes(n, out):
    write_json_with(out, gecko_doc([empty_thread("@@NAME@@")]), "@@NAME@@",
                    '"' + "\\u00e9\\n" * (n * 1024 // 8) + '"')


def json_number(n, out):
    t = empty_thread()
    t["tid"] = "@@TID@@"
    write_json_with(out, gecko_doc([t]), "@@TID@@", "7" * (n * 1024))


def json_threads(n, out):
    out.write(json.dumps(gecko_doc([empty_thread("w%d" % i, i) for i in range(n)]),
                         separators=(",", ":")).encode())


def json_rows(n, out):
    t = empty_thread()
    frames = [[i] for i in range(n)]
    frames[n // 2] = [n // 2] + [None] * 50  # one row far wider than the rest
    t["stringTable"] = ["f%d (in lib.so)" % i for i in range(n)]
    # data before schema: JSON allows it, a streaming reader must hold the rows
    t["frameTable"] = {"data": frames, "schema": {"location": 0}}
    t["stackTable"] = {"schema": {"prefix": 0, "frame": 1},
                       "data": [[None if i == 0 else i - 1, i] for i in range(n)]}
    t["samples"] = {"schema": {"stack": 0, "time": 1}, "data": [[i, i] for i in range(n)]}
    out.write(json.dumps(gecko_doc([t]), separators=(",", ":")).encode())


def gecko_deep(n, out):
    t = empty_thread()
    t["stringTable"] = ["f%d (in lib.so)" % (i % 64) for i in range(64)]
    t["frameTable"] = {"schema": {"location": 0}, "data": [[i] for i in range(64)]}
    t["stackTable"] = {"schema": {"prefix": 0, "frame": 1},
                       "data": [[None if i == 0 else i - 1, i % 64] for i in range(n)]}
    t["samples"] = {"schema": {"stack": 0, "time": 1}, "data": [[i, i] for i in range(n)]}
    out.write(json.dumps(gecko_doc([t]), separators=(",", ":")).encode())


def firefox_deep(n, out):
    names = ["f%d" % i for i in range(64)]
    th = {
        "name": "GeckoMain", "processType": "default", "pid": "1", "tid": 1,
        "stringArray": names,
        "funcTable": {"length": 64, "name": list(range(64)), "resource": [-1] * 64,
                      "isJS": [False] * 64, "fileName": [None] * 64,
                      "lineNumber": [None] * 64, "columnNumber": [None] * 64},
        "frameTable": {"length": 64, "func": list(range(64)), "address": [-1] * 64,
                       "line": [None] * 64, "column": [None] * 64,
                       "category": [None] * 64, "implementation": [None] * 64},
        "stackTable": {"length": n, "prefix": [None] + list(range(n - 1)),
                       "frame": [i % 64 for i in range(n)],
                       "category": [0] * n, "subcategory": [0] * n},
        "samples": {"length": n, "stack": list(range(n)), "time": list(range(n))},
        "markers": {"length": 0, "name": [], "startTime": [], "endTime": [],
                    "phase": [], "category": [], "data": []},
        "resourceTable": {"length": 0, "lib": [], "name": [], "host": [], "type": []},
        "libs": [],
    }
    doc = {"meta": {"version": 4, "preprocessedProfileVersion": 24, "startTime": 0,
                    "interval": 1,
                    "categories": [{"name": "Other", "color": "grey", "subcategories": ["Other"]}]},
           "threads": [th]}
    out.write(json.dumps(doc, separators=(",", ":")).encode())


def folded_line(n, out):
    stack = ";".join("fn_%d" % (i % 1000) for i in range(n))
    out.write((stack + " 1\n" + stack + ";leaf 2\n").encode())


def fmix_inverse(h):
    m = (1 << 64) - 1
    inv1 = pow(0xc4ceb9fe1a85ec53, -1, 1 << 64)
    inv2 = pow(0xff51afd7ed558ccd, -1, 1 << 64)
    h ^= h >> 33
    h = (h * inv1) & m
    h ^= h >> 33
    h = (h * inv2) & m
    h ^= h >> 33
    return h


def gperf_pcs(n, out):
    w = lambda v: struct.pack("<Q", v & ((1 << 64) - 1))
    b = bytearray()
    b += w(0) + w(3) + w(0) + w(10000) + w(0)
    pcs = [fmix_inverse((i << 20) | 0x5a5a5) for i in range(1, n + 1)]
    for pc in pcs:
        b += w(1) + w(2) + w(pc) + w(0x400100)
    b += w(0) + w(1) + w(0)
    out.write(bytes(b))
    out.write(b"00000000-ffffffffffffffff r-xp 00000000 00:00 0 /bin/prog\n")


def varint(v):
    b = bytearray()
    while True:
        x = v & 0x7f
        v >>= 7
        if v:
            b.append(x | 0x80)
        else:
            b.append(x)
            return bytes(b)


def field(num, payload):  # length-delimited
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def vfield(num, v):
    return varint(num << 3) + varint(v)


def packed(num, vals):
    return field(num, b"".join(varint(v) for v in vals))


def pprof_profile(sample_types, samples, locations, functions, strings):
    b = bytearray()
    for t, u in sample_types:
        b += field(1, vfield(1, t) + vfield(2, u))
    for s in samples:
        b += field(2, s)
    for loc in locations:
        b += field(4, loc)
    for f in functions:
        b += field(5, f)
    for s in strings:
        b += field(6, s.encode())
    return gzip.compress(bytes(b), 1)


def pprof_types(n, out):
    strings = ["", "count"] + ["type%d" % i for i in range(n)]
    types = [(2 + i, 1) for i in range(n)]
    fn = vfield(1, 1) + vfield(2, 1)
    loc = vfield(1, 1) + field(4, vfield(1, 1) + vfield(2, 1))
    sample = packed(1, [1]) + packed(2, [1] * n)
    out.write(pprof_profile(types, [sample], [loc], [fn], strings))


def pprof_labels(n, out):
    strings = ["", "samples", "count", "main", "thread"] + ["t%d" % i for i in range(n)]
    fn = vfield(1, 1) + vfield(2, 3)
    loc = vfield(1, 1) + field(4, vfield(1, 1) + vfield(2, 1))
    samples = [packed(1, [1]) + packed(2, [1]) + field(3, vfield(1, 4) + vfield(2, 5 + i))
               for i in range(n)]
    out.write(pprof_profile([(1, 2)], samples, [loc], [fn], strings))


def pprof_deep(n, out):
    strings = ["", "samples", "count", "x" * 4096]
    fn = vfield(1, 1) + vfield(2, 3)
    # one location with n Line entries (an inline chain) of one long name
    loc = vfield(1, 1) + b"".join(field(4, vfield(1, 1) + vfield(2, i + 1)) for i in range(n))
    sample = packed(1, [1]) + packed(2, [1])
    out.write(pprof_profile([(1, 2)], [sample], [loc], [fn], strings))


FAMILIES = {f.__name__: f for f in (json_string, json_escapes, json_number, json_threads,
                                    json_rows, gecko_deep, firefox_deep, folded_line,
                                    gperf_pcs, pprof_types, pprof_labels, pprof_deep)}

if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in FAMILIES:
        sys.exit("usage: reliability_gen.py FAMILY N OUT\nfamilies: " + " ".join(FAMILIES))
    with open(sys.argv[3], "wb") as f:
        FAMILIES[sys.argv[1]](int(sys.argv[2]), f)
