#!/usr/bin/env python3
"""gen_chrome.py OUT MB: a Chrome trace of about MB megabytes, shaped like a
DevTools Performance recording: per process (pid) a renderer main thread
with a V8 Profile and ProfileChunks of 100 samples (nodes of a 5,000-node
tree, new ones in the chunk that first uses them, deltas of 100-300 us),
and about as many bytes of trace events (complete X events with args.data,
B/E pairs, instants), as Chrome writes them (args first)."""
import random
import sys

out, mb = sys.argv[1], float(sys.argv[2])
rnd = random.Random(25)
target = int(mb * 1e6)
names = ["f%d" % i for i in range(600)]
urls = ["https://example.org/js/m%d.js" % i for i in range(40)]
with open(out, "w") as f:
    f.write('{"traceEvents":[\n')
    written = 0
    pid = 1000
    first = True

    def emit(s):
        global written, first
        if not first:
            f.write(",\n")
        first = False
        f.write(s)
        written += len(s) + 2

    while written < target:
        pid += 1
        tid = pid
        emit('{"args":{"name":"Renderer"},"cat":"__metadata","name":"process_name","ph":"M","pid":%d,"tid":0,"ts":0}' % pid)
        emit('{"args":{"name":"CrRendererMain"},"cat":"__metadata","name":"thread_name","ph":"M","pid":%d,"tid":%d,"ts":0}' % (pid, tid))
        ts = 1000000 + rnd.randrange(1000)
        emit('{"args":{"data":{"startTime":%d}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x1","name":"Profile","ph":"P","pid":%d,"tid":%d,"ts":%d}' % (ts, pid, tid, ts))
        parent = [0, 0]  # node 1 = (root)
        known = {1}
        n_nodes = 5000
        for i in range(2, n_nodes + 1):
            parent.append(rnd.randrange(max(1, i - 50), i))
        end = written + min(target - written, 40 * 1000 * 1000)
        while written < end:
            samples = [rnd.randrange(1, n_nodes + 1) for _ in range(100)]
            new = []
            for s in samples:
                chain = []
                while s not in known:
                    chain.append(s)
                    s = parent[s]
                for x in reversed(chain):
                    known.add(x)
                    new.append(x)
            nodes = []
            if len(known) - len(new) == 1:  # the first chunk: the root too
                nodes.append('{"callFrame":{"codeType":"other","functionName":"(root)","scriptId":0},"id":1}')
            for x in new:
                nodes.append('{"callFrame":{"codeType":"JS","columnNumber":%d,"functionName":"%s","lineNumber":%d,"scriptId":%d,"url":"%s"},"id":%d,"parent":%d}'
                             % (x % 80, names[x % 600], x % 900, x % 40, urls[x % 40], x, parent[x]))
            deltas = [rnd.randrange(100, 300) for _ in samples]
            ts += sum(deltas)
            emit('{"args":{"data":{"cpuProfile":{"nodes":[%s],"samples":[%s]},"lines":[%s],"timeDeltas":[%s]}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x1","name":"ProfileChunk","ph":"P","pid":%d,"tid":%d,"ts":%d}'
                 % (",".join(nodes), ",".join(map(str, samples)), ",".join(str(s % 900) for s in samples),
                    ",".join(map(str, deltas)), pid, tid, ts))
            for k in range(12):
                t0 = ts - rnd.randrange(20000)
                kind = k % 4
                if kind == 0:
                    emit('{"args":{"data":{"frame":"F%d","type":"click","url":"https://example.org/"}},"cat":"devtools.timeline","dur":%d,"name":"EventDispatch","ph":"X","pid":%d,"tid":%d,"ts":%d,"tdur":%d}'
                         % (k, rnd.randrange(1, 500), pid, tid, t0, rnd.randrange(1, 400)))
                elif kind == 1:
                    emit('{"args":{},"cat":"devtools.timeline","name":"Layout","ph":"B","pid":%d,"tid":%d,"ts":%d}' % (pid, tid, t0))
                    emit('{"args":{"endData":{"root":[1,2,3,4]}},"cat":"devtools.timeline","name":"Layout","ph":"E","pid":%d,"tid":%d,"ts":%d}' % (pid, tid, t0 + 50))
                elif kind == 2:
                    emit('{"args":{"data":{"id":"%d","priority":"High"}},"cat":"devtools.timeline","name":"ResourceSendRequest","ph":"I","pid":%d,"s":"t","tid":%d,"ts":%d}' % (k, pid, tid, t0))
                else:
                    emit('{"args":{},"cat":"toplevel","dur":%d,"name":"RunTask","ph":"X","pid":%d,"tid":%d,"ts":%d,"tdur":%d}' % (rnd.randrange(1, 900), pid, tid, t0, 10))
    f.write('\n],"metadata":{"source":"gen_chrome.py"}}\n')
