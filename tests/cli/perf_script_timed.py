#!/usr/bin/env python3
"""The samples of a `perf script` text and their times, read independently
of profkit (tests/cli/perf_script_timed.sh).

Usage: perf_script_timed.py FILE info
         prints "timed N START END" (ms, to the microsecond) when every sample header has a
         time (START: the earliest first sample of a thread, END: the latest
         last sample of a thread plus 1 ms, the Firefox Profiler's root
         range of a profile without an interval), else "untimed N"
       perf_script_timed.py FILE range OUT
         picks a sub-range of about the middle half of the samples' times,
         writes the samples whose time falls in it (whole, as written) to
         OUT and prints the range as --range takes it ("Ams,Bms", from
         START), its ends half a microsecond before a sample's time so no
         rounding can move a sample across.

A sample header is a line that starts a sample: COMM PID[/TID] [CPU] TIME:
(the time a field `SECONDS.FRACTION:`), as the Firefox Profiler's own
`perf script` importer matches it; a blank line or the next header ends it.
"""
import re
import sys

HEADER = re.compile(r"^\s*(\S.*?)\s+(?:(\d+)/)?(\d+)\s+(?:\[\d+\]\s+)?(?:(\d+)\.(\d+):)?")
TIME = re.compile(r"\s(\d+)\.(\d+):(?:\s|$)")


def ns(sec, frac):
    return int(sec) * 10**9 + int(frac.ljust(9, "0")[:9])


def samples(path):
    out = []  # (thread key, time or None, lines)
    cur = None
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if not line.strip():
                cur = None
                continue
            if line.startswith("#"):
                continue
            frame_line = line[0] in " \t" and not TIME.search(line)
            if not frame_line:
                m = HEADER.match(line)
                t = TIME.search(line)
                if m:
                    cur = [(m.group(1).strip(), m.group(2), m.group(3)),
                           ns(t.group(1), t.group(2)) if t else None, [line]]
                    out.append(cur)
                    continue
            if cur is not None:
                cur[2].append(line)
    return out


def main():
    path, what = sys.argv[1], sys.argv[2]
    s = samples(path)
    if any(x[1] is None for x in s):
        print("untimed", len(s))
        return
    first, last = {}, {}
    for key, t, _ in s:
        first.setdefault(key, t)
        last[key] = t
    start = min(first.values())
    end = max(last.values()) + 10**6
    if what == "info":
        print("timed", len(s), "%.3f" % (start / 1e6), "%.3f" % (end / 1e6))
        return
    times = sorted(set(x[1] for x in s))
    a = times[len(times) // 4]
    b = times[(3 * len(times)) // 4] if len(times) > 1 else a + 10**6
    lo, hi = max(a - 500, start), b - 500
    with open(sys.argv[3], "w") as o:
        for _, t, lines in s:
            if lo <= t < hi:
                o.write("\n".join(lines) + "\n\n")
    ms = lambda v: "%d.%06dms" % divmod(v - start, 10**6)  # exact: ns as ms
    print("%s,%s" % (ms(lo), ms(hi)))


main()
