#!/usr/bin/env python3
"""Second generators of issue 27's hostile shapes, written apart from
bench/reliability_gen.py (its own JSON writing, other sizes and
constructions; only the protobuf encoding is shared), so that a fix fitted to one generator's files does not pass
for the shape: bench/reliability.sh runs them as the families NAME_b.

  reliability_gen2.py FAMILY N OUT

  empty_threads_b      raw Gecko, pretty-printed, "threads" before "meta":
                       N threads each {"name": ""} or {} in turn
  firefox_empty_threads_b  processed, N threads each with empty tables of
                       zero length (samples, markers, stackTable)
  wide_row_b           raw Gecko, every table's "data" before its "schema":
                       a stack chain of N rows with four rows N/8 cells
                       wide (nulls and numbers), samples before schema too
  long_location_b      raw Gecko: one location string of 40N bytes naming
                       N frames that differ by line and column, each the
                       leaf of a two-frame stack with one sample
  thread_strings_b     processed: "shared" first, N/2 deep chain, N threads
                       each with its own stringArray, thread k sampling the
                       stack k % depth
  pprof_long_name_b    pprof: one function named by 30N bytes, N Locations
                       each with two Lines of it (an inline chain) at two
                       lines, one sample on each Location pair
  pprof_long_mapping_b pprof: N mappings of one path of 16N bytes made of
                       many short directories (a short base name), two
                       locations in each, samples of both
  paused_ranges_b      raw Gecko: one sampled thread and N paused ranges,
                       every third one a copy of the range before it
  chrome_threads_b     a Chrome trace of N sampled threads, each with a B never
                       ended (each thread's range in the loader, for markers)
  thread_pids_b        raw Gecko: N threads of one sample each, every one
                       of a process of its own (its own pid)
"""
import gzip
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reliability_gen  # noqa: E402


def jstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def gecko_meta():
    return '{"version":30,"interval":0.5,"startTime":1000,"stackwalk":0,"processType":0}'


def empty_threads_b(n, out):
    out.write(b'{\n  "threads": [\n')
    for i in range(n):
        out.write(b'    {"name": ""}' if i % 2 else b"    {}")
        out.write(b",\n" if i + 1 < n else b"\n")
    out.write(('  ],\n  "libs": [],\n  "meta": %s,\n  "processes": []\n}\n' % gecko_meta()).encode())


def firefox_empty_threads_b(n, out):
    th = ('{"processType":"default","name":"E","pid":"2","tid":0,'
          '"samples":{"length":0,"stack":[],"time":[]},'
          '"markers":{"length":0,"name":[],"startTime":[],"endTime":[],"phase":[],"category":[],"data":[]},'
          '"stackTable":{"length":0,"frame":[],"prefix":[]},"stringArray":[]}')
    meta = ('{"version":30,"preprocessedProfileVersion":48,"interval":1,"startTime":0,'
            '"categories":[{"name":"Other","color":"grey","subcategories":["Other"]}],"markerSchema":[]}')
    out.write(('{"meta":%s,"threads":[' % meta).encode())
    out.write(",".join([th] * n).encode())
    out.write(b"]}")


def wide_row_b(n, out):
    rows = []
    for i in range(n):
        r = "[%s,%d]" % ("null" if i == 0 else str(i - 1), i % 8)
        if i % (n // 4 + 1) == n // 8:
            r = r[:-1] + "," + ",".join("null" if k % 2 else str(k) for k in range(n // 8)) + "]"
        rows.append(r)
    strings = ",".join(jstr("w%d (in libw.so)" % i) for i in range(8))
    frames = ",".join("[%d]" % i for i in range(8))
    th = ('{"name":"W","tid":7,"pid":"7","processType":"default",'
          '"samples":{"data":[[%d,1.5],[%d,2.5]],"schema":{"stack":0,"time":1}},'
          '"markers":{"data":[],"schema":{"name":0,"time":1}},'
          '"stackTable":{"data":[%s],"schema":{"prefix":0,"frame":1}},'
          '"frameTable":{"data":[%s],"schema":{"location":0}},'
          '"stringTable":[%s]}' % (n - 1, n // 2, ",".join(rows), frames, strings))
    out.write(('{"meta":%s,"libs":[],"threads":[%s],"processes":[]}' % (gecko_meta(), th)).encode())


def long_location_b(n, out):
    loc = "handler" + "Q" * (20 * n) + " (resource://gre/" + "m" * (20 * n) + ".mjs:1:1)"
    frames = ['[1,null,null,null,null]']  # a root frame: "root"
    for i in range(n):
        frames.append("[0,null,null,%d,%d]" % (i + 2, i % 7 + 1))
    stacks = ["[null,0]"] + ["[0,%d]" % (i + 1) for i in range(n)]
    samples = ["[%d,%d.25]" % (i + 1, i) for i in range(n)]
    th = ('{"name":"GeckoMain","tid":3,"pid":"3","processType":"default",'
          '"stringTable":[%s,"root"],'
          '"frameTable":{"schema":{"location":0,"implementation":1,"optimizations":2,"line":3,"column":4},"data":[%s]},'
          '"stackTable":{"schema":{"prefix":0,"frame":1},"data":[%s]},'
          '"samples":{"schema":{"stack":0,"time":1},"data":[%s]},'
          '"markers":{"schema":{"name":0,"time":1},"data":[]}}'
          % (jstr(loc), ",".join(frames), ",".join(stacks), ",".join(samples)))
    out.write(('{"meta":%s,"libs":[],"threads":[%s],"processes":[]}' % (gecko_meta(), th)).encode())


def thread_strings_b(n, out):
    depth = max(2, n // 2)
    nums = lambda xs: ",".join(str(x) for x in xs)
    nulls = lambda k: ",".join(["null"] * k)
    shared = ('{"stackTable":{"length":%d,"prefix":[null,%s],"frame":[%s]},'
              '"frameTable":{"length":%d,"address":[%s],"func":[%s],"line":[%s],"column":[%s],'
              '"category":[%s],"subcategory":[%s],"inlineDepth":[%s],"nativeSymbol":[%s],"innerWindowID":[%s]},'
              '"funcTable":{"length":%d,"name":[%s],"isJS":[%s],"relevantForJS":[%s],"resource":[%s],'
              '"source":[%s],"lineNumber":[%s],"columnNumber":[%s]},'
              '"resourceTable":{"length":0,"name":[],"host":[],"type":[]}}'
              % (depth, nums(range(depth - 1)), nums(range(depth)),
                 depth, nums([-1] * depth), nums(range(depth)), nulls(depth), nulls(depth),
                 nums([0] * depth), nums([0] * depth), nums([0] * depth), nulls(depth), nums([0] * depth),
                 depth, nums([i % 3 for i in range(depth)]), ",".join(["true"] * depth),
                 ",".join(["false"] * depth), nums([-1] * depth), nulls(depth), nulls(depth), nulls(depth)))
    threads = []
    for t in range(n):
        threads.append('{"name":"S%d","processType":"default","pid":"9","tid":%d,'
                       '"stringArray":["x%d","y%d","z%d"],'
                       '"samples":{"length":1,"stack":[%d],"time":[%d]},'
                       '"markers":{"length":0,"name":[],"startTime":[],"endTime":[],"phase":[],"category":[],"data":[]}}'
                       % (t, t + 100, t, t, t, t % depth, t))
    meta = '{"version":30,"preprocessedProfileVersion":48,"interval":1,"startTime":0}'
    out.write(('{"shared":%s,"meta":%s,"threads":[%s]}' % (shared, meta, ",".join(threads))).encode())


# protobuf: the encoding is reliability_gen.py's (the shapes are this file's)
uv, ld, vi = reliability_gen.varint, reliability_gen.field, reliability_gen.vfield


def pprof_long_name_b(n, out):
    b = bytearray(ld(1, vi(1, 1) + vi(2, 2)))  # samples/count
    for i in range(n):
        b += ld(2, vi(1, 2 * i + 1) + vi(1, 2 * i + 2) + vi(2, 1 + i % 3))
    for i in range(2 * n):
        lines = ld(4, vi(1, 1) + vi(2, 10 * i + 1)) + ld(4, vi(1, 1) + vi(2, 10 * i + 5))
        b += ld(4, vi(1, i + 1) + vi(3, 0x400000 + 8 * i) + lines)
    b += ld(5, vi(1, 1) + vi(2, 3) + vi(3, 3) + vi(4, 4))
    for s in ["", "samples", "count", "L" * (30 * n), "long.go"]:
        b += ld(6, s.encode())
    out.write(gzip.compress(bytes(b), 6))


def pprof_long_mapping_b(n, out):
    path = "/" + "dd/" * (16 * n // 3) + "libshort.so"
    b = bytearray(ld(1, vi(1, 1) + vi(2, 2)))
    for i in range(n):
        b += ld(2, vi(1, 2 * i + 1) + vi(1, 2 * i + 2) + vi(2, 2))
    for i in range(n):
        start = 0x7f0000000000 + 0x100000 * i
        b += ld(3, vi(1, i + 1) + vi(2, start) + vi(3, start + 0x80000) + vi(4, 0x1000) + vi(5, 3) + vi(6, 4))
    for i in range(n):
        start = 0x7f0000000000 + 0x100000 * i
        b += ld(4, vi(1, 2 * i + 1) + vi(2, i + 1) + vi(3, start + 0x40))
        b += ld(4, vi(1, 2 * i + 2) + vi(2, i + 1) + vi(3, start + 0x400))
    for s in ["", "cpu", "nanoseconds", path, "0123456789abcdef"]:
        b += ld(6, s.encode())
    out.write(bytes(b))  # not compressed


def tiny_thread(name, pid, tid):
    return ('{"name":%s,"processType":"default","pid":%d,"tid":%d,'
            '"samples":{"schema":{"stack":0,"time":1},"data":[[1,1.5]]},'
            '"markers":{"schema":{"name":0,"time":1,"data":2},"data":[]},'
            '"stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,0],[0,1]]},'
            '"frameTable":{"schema":{"location":0,"implementation":1,"optimizations":2,"line":3,"category":4},'
            '"data":[[0,null,null,null,null],[1,null,null,7,null]]},'
            '"stringTable":["(root)","work (file.js:7:1)"]}' % (jstr(name), pid, tid))


def paused_ranges_b(n, out):
    rs = []
    for i in range(n):
        k = i - i % 3 if i % 3 == 2 else i  # every third a copy of the one before
        rs.append('{"startTime":%d.25,"endTime":%d.75,"reason":"profiler-paused"}' % (k, k))
    out.write(('{"meta":%s,"libs":[],"threads":[%s],"processes":[],"pausedRanges":[%s]}'
               % (gecko_meta(), tiny_thread("GeckoMain", 7, 7), ",".join(rs))).encode())


def thread_pids_b(n, out):
    out.write(('{"meta":%s,"libs":[],"processes":[],"threads":[' % gecko_meta()).encode())
    out.write(",".join(tiny_thread("T%d" % i, 100 + i, 100 + i) for i in range(n)).encode())
    out.write(b"]}")


def chrome_threads_b(n, out):
    """A Chrome trace of n threads, each with a sampled profile of two
    samples and a B never ended: a range per thread for the markers."""
    ev = ['{"ph":"I","name":"TracingStartedInBrowser","pid":1,"tid":1,"ts":0,"cat":"disabled-by-default-devtools.timeline","args":{}}']
    for i in range(n):
        pid, tid = 10 + i // 7, 1000 + i
        ev.append('{"ph":"P","name":"Profile","id":"0x%x","pid":%d,"tid":%d,"ts":%d,"args":{"data":{"startTime":%d}}}'
                  % (i + 1, pid, tid, 10 + i, 10 + i))
        ev.append('{"ph":"P","name":"ProfileChunk","id":"0x%x","pid":%d,"tid":%d,"ts":%d,"args":{"data":{"cpuProfile":'
                  '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":0,"url":"","lineNumber":-1,'
                  '"columnNumber":-1}},{"id":2,"parent":1,"callFrame":{"functionName":"f%d","scriptId":1,"url":"a.js",'
                  '"lineNumber":1,"columnNumber":1}}],"samples":[2,2]},"timeDeltas":[100,1000]}}}'
                  % (i + 1, pid, tid, 11 + i, i % 50))
        ev.append('{"ph":"B","name":"Task","pid":%d,"tid":%d,"ts":%d,"cat":"x","args":{}}' % (pid, tid, 12 + i))
    out.write(('{"traceEvents":[%s]}' % ",".join(ev)).encode())


def thread_order_b(n, out):
    """A Chrome trace of n sampled threads whose tids fall as the file goes
    on (one process): the threads come numbered in the reverse order of the
    stacks their samples made, which the page sorts by."""
    ev = []
    for i in range(n):
        tid = 1000 + n - i
        ev.append('{"ph":"P","name":"Profile","id":"0x%x","pid":1,"tid":%d,"ts":%d,"args":{"data":{"startTime":%d}}}'
                  % (i + 1, tid, 10 + i, 10 + i))
        ev.append('{"ph":"P","name":"ProfileChunk","id":"0x%x","pid":1,"tid":%d,"ts":%d,"args":{"data":{"cpuProfile":'
                  '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":0,"url":"","lineNumber":-1,'
                  '"columnNumber":-1}},{"id":2,"parent":1,"callFrame":{"functionName":"f%d","scriptId":1,"url":"a.js",'
                  '"lineNumber":1,"columnNumber":1}}],"samples":[2,2]},"timeDeltas":[100,1000]}}}'
                  % (i + 1, tid, 11 + i, i % 50))
    out.write(('{"traceEvents":[%s]}' % ",".join(ev)).encode())


FAMILIES = {f.__name__: f for f in (empty_threads_b, firefox_empty_threads_b, wide_row_b,
                                    long_location_b, thread_strings_b, pprof_long_name_b,
                                    pprof_long_mapping_b, paused_ranges_b, thread_pids_b,
                                    chrome_threads_b, thread_order_b)}

if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in FAMILIES:
        sys.exit("usage: reliability_gen2.py FAMILY N OUT\nfamilies: " + " ".join(FAMILIES))
    with open(sys.argv[3], "wb") as f:
        FAMILIES[sys.argv[1]](int(sys.argv[2]), f)
