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
  pprof_names    pprof, N locations each with one `Line` of one 4 KiB
                 function name, one sample through all of them
  bsprof_allocs  bsprof, N allocations at addresses N << 32 apart (one
                 home bucket under a low-bits or unseeded table), then
                 their frees
  bsprof_modules bsprof, N modules, each with one root path element and
                 one CPU entry
  gperf_build    gperftools, a `build=` path of 8N bytes, then N short
                 executable mapping lines naming `$build`
  firefox_strings processed Firefox, shared tables of N rows (root stacks)
                 beside N/8 threads each with a string table of its own
  gecko_nested   raw Gecko, processes inside processes, N/16 chains of
                 16 levels, a thread at each level
  gecko_waiting  raw Gecko, N threads without tables of their own before
                 the shared tables, beside N empty sub-processes
  gzip_members   folded text as a .gz of N concatenated one-line members
  sibling_loops  processed Firefox, a chain of N distinct functions (a
                 sample at every level), under its deepest node N siblings
                 x_i, each calling the chain's root function again (a
                 loop back to the root of a long path; a sample at each)
  empty_threads  raw Gecko, N threads that are empty objects (`{}`)
  firefox_empty_threads processed Firefox, the same N empty threads
  wide_row       raw Gecko, a stack table with `data` before `schema`: N
                 two-cell rows and one row N/2 cells wide
  long_location  raw Gecko, one location string of 48N bytes (a name and
                 a URL of 24N each) used by N frames that differ only by
                 line, a sample on each
  thread_strings processed Firefox, N threads each with a string array of
                 its own over one shared stack chain N deep, each with one
                 sample on the deepest stack; the threads come first and
                 wait for the shared tables
  thread_strings_after the same with the shared tables first: each thread
                 is built (and freed) as it closes
  pprof_long_name pprof, one function name of 20N bytes on N locations
                 (one `Line` each, at line i), a sample on each
  firefox_old_names processed Firefox of version 3, N JS functions (each
                 its own line) all named by one location string of 48N
                 bytes, a sample on each
  pprof_long_mapping pprof, N mappings of one file whose path is 20N
                 bytes, a location and a sample in each (symbolized by
                 `info` and `top`; docs/BENCHMARKS.md)
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


def write_processed_thread(th, out):
    """A processed profile (version 24) of one thread: th's tables plus empty
    markers, resources and libs."""
    th.update({"markers": {"length": 0, "name": [], "startTime": [], "endTime": [],
                           "phase": [], "category": [], "data": []},
               "resourceTable": {"length": 0, "lib": [], "name": [], "host": [], "type": []},
               "libs": []})
    doc = {"meta": {"version": 4, "preprocessedProfileVersion": 24, "startTime": 0,
                    "interval": 1,
                    "categories": [{"name": "Other", "color": "grey", "subcategories": ["Other"]}]},
           "threads": [th]}
    out.write(json.dumps(doc, separators=(",", ":")).encode())


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
    }
    write_processed_thread(th, out)


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


def pprof_names(n, out):
    strings = ["", "samples", "count", "x" * 4096]
    fn = vfield(1, 1) + vfield(2, 3)
    # n locations, each one Line of the one long-named function
    locs = [vfield(1, i + 1) + vfield(3, 0x1000 + 16 * i) + field(4, vfield(1, 1) + vfield(2, i + 1))
            for i in range(n)]
    sample = packed(1, list(range(1, n + 1))) + packed(2, [1])
    out.write(pprof_profile([(1, 2)], [sample], locs, [fn], strings))


def bsprof_header(line_data=0, memory=1):
    tail = struct.pack("<ff", 1.0, 1.0) + varint(line_data) + varint(memory) + varint(0) + b"\0" * 6
    head = b"bsprof\0\0" + varint(1) + varint(0) + varint(0)
    size = len(head) + 1 + len(tail)
    assert size < 128
    return head + varint(size) + tail


def bsprof_string(i, s):
    return varint(i << 3) + s.encode() + b"\0"


def bsprof_allocs(n, out):
    b = bytearray(bsprof_header())
    b += bsprof_string(1, "main") + bsprof_string(2, "pkg:/source/main.brs") + bsprof_string(3, "alloc")
    b += varint(1 << 3 | 1) + varint(1)                                # module 1
    b += varint(1 << 3 | 2) + varint(0) + varint(1) + varint(2) + varint(1) + varint(1)
    b += varint(2 << 3 | 2) + varint(1) + varint(2) + varint(5) + varint(3)
    alloc = varint(2 << 5 | 0 << 3 | 3)
    free = varint(2 << 5 | 1 << 3 | 3)
    addrs = [(i + 1) << 32 for i in range(n)]
    for a in addrs:
        b += alloc + varint(a) + varint(16)
    for a in addrs[: n // 2]:
        b += free + varint(a)
    b += varint(0) + varint(1)
    out.write(bytes(b))


def bsprof_modules(n, out):
    b = bytearray(bsprof_header(memory=0))
    b += bsprof_string(1, "pkg:/source/main.brs") + bsprof_string(2, "main")
    for i in range(n):
        b += bsprof_string(3 + i, "m%d" % i)
        b += varint((i + 1) << 3 | 1) + varint(3 + i)                  # module i+1
        b += varint((i + 1) << 3 | 2) + varint(0) + varint(i + 1) + varint(1) + varint(1) + varint(2)
        b += varint((i + 1) << 3 | 4) + varint(10) + varint(12)       # CPU
    b += varint(0) + varint(1)
    out.write(bytes(b))


def gperf_build(n, out):
    w = lambda v: struct.pack("<Q", v & ((1 << 64) - 1))
    b = bytearray()
    b += w(0) + w(3) + w(0) + w(10000) + w(0)
    b += w(1) + w(1) + w(0x400100)
    b += w(0) + w(1) + w(0)
    out.write(bytes(b))
    out.write(b"build=/" + b"b" * (8 * n) + b"\n")
    for i in range(n):
        out.write(b"%x-%x r-xp 00000000 00:00 0 $build/l%d\n" % (0x400000 + i * 0x1000, 0x401000 + i * 0x1000, i % 8))


def processed_meta(version=70):
    return {"version": 31, "preprocessedProfileVersion": version, "startTime": 0, "interval": 1,
            "categories": [{"name": "Other", "color": "grey", "subcategories": ["Other"]}]}


def firefox_strings(n, out):
    shared = {
        "stringArray": ["s%d" % i for i in range(16)],
        "stackTable": {"length": n, "frame": list(range(n)), "prefix": [None] * n},
        "frameTable": {"length": n, "address": [-1] * n, "func": list(range(n)),
                       "line": [None] * n, "column": [None] * n, "category": [0] * n,
                       "subcategory": [0] * n, "inlineDepth": [0] * n,
                       "nativeSymbol": [None] * n, "innerWindowID": [0] * n},
        "funcTable": {"length": n, "name": [i % 4 for i in range(n)], "isJS": [False] * n,
                      "relevantForJS": [False] * n, "resource": [-1] * n,
                      "source": [None] * n, "lineNumber": [None] * n, "columnNumber": [None] * n},
        "resourceTable": {"length": 0, "name": [], "host": [], "type": []},
        "sources": {"length": 0, "id": [], "filename": [], "startLine": [], "startColumn": [],
                    "sourceMapURL": []},
    }
    threads = []
    for t in range(max(1, n // 8)):
        threads.append({
            "name": "T%d" % t, "processType": "default", "pid": "1", "tid": t + 1,
            "stringArray": ["a%d" % t, "b%d" % t, "c%d" % t, "d%d" % t],
            "samples": {"length": 1, "stack": [(t * 8) % n], "timeDeltas": [1]},
            "markers": {"length": 0, "name": [], "startTime": [], "endTime": [], "phase": [],
                        "category": [], "data": []},
        })
    doc = {"meta": processed_meta(), "threads": threads, "shared": shared}
    out.write(json.dumps(doc, separators=(",", ":")).encode())


def small_thread(name, tid):
    t = empty_thread(name, tid)
    t["stringTable"] = ["f (in lib.so)"]
    t["frameTable"]["data"] = [[0]]
    t["stackTable"]["data"] = [[None, 0]]
    t["samples"]["data"] = [[0, 1]]
    return t


def gecko_nested(n, out):
    procs = []
    for c in range(max(1, n // 16)):
        inner = None
        for level in range(16):
            p = gecko_doc([small_thread("c%d.%d" % (c, level), c * 16 + level)])
            p["meta"]["startTime"] = level
            if inner is not None:
                p["processes"] = [inner]
            inner = p
        procs.append(inner)
    doc = gecko_doc([small_thread("root", 0)])
    doc["processes"] = procs
    out.write(json.dumps(doc, separators=(",", ":")).encode())


def gecko_waiting(n, out):
    # threads with a string table but no stack table of their own wait for
    # the shared tables at the end; empty sub-processes come between
    threads = []
    for i in range(n):
        threads.append({"name": "w%d" % i, "tid": i, "pid": "1", "processType": "default",
                        "samples": {"schema": {"stack": 0, "time": 1}, "data": [[0, 1]]}})
    shared = {"stringArray": ["f"],
              "stackTable": {"length": 1, "frame": [0], "prefix": [None]},
              "frameTable": {"length": 1, "func": [0], "address": [-1], "line": [None],
                             "column": [None], "category": [0], "subcategory": [0]},
              "funcTable": {"length": 1, "name": [0], "isJS": [False], "resource": [-1],
                            "lineNumber": [None], "columnNumber": [None]},
              "resourceTable": {"length": 0, "name": [], "host": [], "type": []}}
    empty = {"meta": {"version": 36, "interval": 1, "startTime": 1}, "libs": [], "threads": []}
    doc = gecko_doc(threads)
    doc["processes"] = [empty] * n
    doc["shared"] = shared
    out.write(json.dumps(doc, separators=(",", ":")).encode())


def sibling_loops(n, out):
    # funcs 0..n-1 are the chain g_k, n..2n-1 the siblings x_i; one frame
    # per func; stacks 0..n-1 the chain, then per sibling x_i and x_i;g0
    names = ["g%d" % i for i in range(n)] + ["x%d" % i for i in range(n)]
    m = 2 * n
    prefix = [None] + list(range(n - 1))
    frame = list(range(n))
    for i in range(n):
        prefix += [n - 1, n + 2 * i]
        frame += [n + i, 0]
    leaves = list(range(n)) + [n + 2 * i + 1 for i in range(n)]
    th = {
        "name": "GeckoMain", "processType": "default", "pid": "1", "tid": 1,
        "stringArray": names,
        "funcTable": {"length": m, "name": list(range(m)), "resource": [-1] * m,
                      "isJS": [False] * m, "fileName": [None] * m,
                      "lineNumber": [None] * m, "columnNumber": [None] * m},
        "frameTable": {"length": m, "func": list(range(m)), "address": [-1] * m,
                       "line": [None] * m, "column": [None] * m,
                       "category": [None] * m, "implementation": [None] * m},
        "stackTable": {"length": 3 * n, "prefix": prefix, "frame": frame,
                       "category": [0] * (3 * n), "subcategory": [0] * (3 * n)},
        "samples": {"length": 2 * n, "stack": leaves, "time": list(range(2 * n))},
    }
    write_processed_thread(th, out)


def empty_threads(n, out):
    doc = gecko_doc([])
    text = json.dumps(doc, separators=(",", ":"))
    out.write(text.replace('"threads":[]', '"threads":[' + ",".join(["{}"] * n) + "]", 1).encode())


def firefox_empty_threads(n, out):
    doc = {"meta": processed_meta(24), "threads": []}
    text = json.dumps(doc, separators=(",", ":"))
    out.write(text.replace('"threads":[]', '"threads":[' + ",".join(["{}"] * n) + "]", 1).encode())


def wide_row(n, out):
    # a stack table whose rows come before its schema: n two-cell rows (a
    # chain) and one row n/2 cells wide in the middle
    t = empty_thread()
    t["stringTable"] = ["f%d (in lib.so)" % i for i in range(16)]
    t["frameTable"] = {"schema": {"location": 0}, "data": [[i] for i in range(16)]}
    rows = [[None if i == 0 else i - 1, i % 16] for i in range(n)]
    rows[n // 2] = rows[n // 2] + [0] * (n // 2)
    t["stackTable"] = {"data": rows, "schema": {"prefix": 0, "frame": 1}}
    t["samples"] = {"schema": {"stack": 0, "time": 1}, "data": [[n - 1, 1]]}
    out.write(json.dumps(gecko_doc([t]), separators=(",", ":")).encode())


def long_location(n, out):
    # one long location string (a long JS function name in a long URL)
    # shared by n frames that differ only by their line, each the root of a
    # sample
    t = empty_thread()
    t["stringTable"] = ["run" + "r" * (24 * n) + " (https://example.com/" + "a" * (24 * n) + ".js:7:3)"]
    t["frameTable"] = {"schema": {"location": 0, "relevantForJS": 1, "innerWindowID": 2,
                                  "implementation": 3, "line": 4, "column": 5, "category": 6},
                       "data": [[0, False, 0, None, i + 1, None, 0] for i in range(n)]}
    t["stackTable"] = {"schema": {"prefix": 0, "frame": 1}, "data": [[None, i] for i in range(n)]}
    t["samples"] = {"schema": {"stack": 0, "time": 1}, "data": [[i, i] for i in range(n)]}
    out.write(json.dumps(gecko_doc([t]), separators=(",", ":")).encode())


def thread_strings(n, out, shared_first=False):
    # shared tables hold a chain n deep; every thread names the functions
    # through a string array of its own and samples the deepest stack once
    shared = {
        "stackTable": {"length": n, "frame": list(range(n)), "prefix": [None] + list(range(n - 1))},
        "frameTable": {"length": n, "address": [-1] * n, "func": list(range(n)),
                       "line": [None] * n, "column": [None] * n, "category": [0] * n,
                       "subcategory": [0] * n, "inlineDepth": [0] * n,
                       "nativeSymbol": [None] * n, "innerWindowID": [0] * n},
        "funcTable": {"length": n, "name": [i % 2 for i in range(n)], "isJS": [False] * n,
                      "relevantForJS": [False] * n, "resource": [-1] * n,
                      "source": [None] * n, "lineNumber": [None] * n, "columnNumber": [None] * n},
        "resourceTable": {"length": 0, "name": [], "host": [], "type": []},
    }
    threads = []
    for t in range(n):
        threads.append({
            "name": "T%d" % t, "processType": "default", "pid": "1", "tid": t + 1,
            "stringArray": ["a%d" % t, "b%d" % t],
            "samples": {"length": 1, "stack": [n - 1], "timeDeltas": [1]},
            "markers": {"length": 0, "name": [], "startTime": [], "endTime": [], "phase": [],
                        "category": [], "data": []},
        })
    if shared_first:
        doc = {"meta": processed_meta(), "shared": shared, "threads": threads}
    else:
        doc = {"meta": processed_meta(), "threads": threads, "shared": shared}
    out.write(json.dumps(doc, separators=(",", ":")).encode())


def thread_strings_after(n, out):
    thread_strings(n, out, shared_first=True)


def pprof_long_name(n, out):
    strings = ["", "samples", "count", "y" * (20 * n)]
    fn = vfield(1, 1) + vfield(2, 3)
    locs = [vfield(1, i + 1) + vfield(3, 0x1000 + 16 * i) + field(4, vfield(1, 1) + vfield(2, i + 1))
            for i in range(n)]
    samples = [packed(1, [i + 1]) + packed(2, [1]) for i in range(n)]
    out.write(pprof_profile([(1, 2)], samples, locs, [fn], strings))


def firefox_old_names(n, out):
    # before version 4 a JS function's name was its whole location string:
    # n functions (differing by their line) name one long one
    loc = "run" + "r" * (24 * n) + " (https://example.com/" + "a" * (24 * n) + ".js:7)"
    th = {"name": "GeckoMain", "processType": "default", "pid": "1", "tid": 1,
          "stringArray": [loc],
          "funcTable": {"length": n, "name": [0] * n, "resource": [-1] * n, "isJS": [True] * n,
                        "lineNumber": [i + 1 for i in range(n)]},
          "frameTable": {"length": n, "func": list(range(n)), "address": [-1] * n,
                         "line": [None] * n},
          "stackTable": {"length": n, "prefix": [None] * n, "frame": list(range(n))},
          "samples": {"length": n, "stack": list(range(n)), "time": list(range(n))},
          "markers": {"length": 0, "name": [], "time": [], "data": []}}
    doc = {"meta": {"version": 4, "preprocessedProfileVersion": 3, "startTime": 0, "interval": 1},
           "threads": [th]}
    out.write(json.dumps(doc, separators=(",", ":")).encode())


def pprof_long_mapping(n, out):
    strings = ["", "samples", "count", "/lib/" + "z" * (20 * n) + ".so"]
    b = bytearray(field(1, vfield(1, 1) + vfield(2, 2)))
    for i in range(n):
        b += field(2, packed(1, [i + 1]) + packed(2, [1]))
    for i in range(n):
        start = 0x10000 * (i + 1)
        b += field(3, vfield(1, i + 1) + vfield(2, start) + vfield(3, start + 0x1000) + vfield(5, 3))
    for i in range(n):
        b += field(4, vfield(1, i + 1) + vfield(2, i + 1) + vfield(3, 0x10000 * (i + 1) + 16))
    for s in strings:
        b += field(6, s.encode())
    out.write(gzip.compress(bytes(b), 1))


def gzip_members(n, out):
    for i in range(n):
        out.write(gzip.compress(b"main;f%d %d\n" % (i % 100, i + 1), 1))


FAMILIES = {f.__name__: f for f in (json_string, json_escapes, json_number, json_threads,
                                    json_rows, gecko_deep, firefox_deep, folded_line,
                                    gperf_pcs, pprof_types, pprof_labels, pprof_deep,
                                    pprof_names, bsprof_allocs, bsprof_modules, gperf_build,
                                    firefox_strings, gecko_nested, gecko_waiting, gzip_members,
                                    sibling_loops, empty_threads, firefox_empty_threads,
                                    wide_row, long_location, thread_strings,
                                    thread_strings_after, pprof_long_name,
                                    firefox_old_names, pprof_long_mapping)}

if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in FAMILIES:
        sys.exit("usage: reliability_gen.py FAMILY N OUT\nfamilies: " + " ".join(FAMILIES))
    with open(sys.argv[3], "wb") as f:
        FAMILIES[sys.argv[1]](int(sys.argv[2]), f)
