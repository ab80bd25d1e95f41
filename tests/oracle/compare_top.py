"""compare_top.py: profkit's `top` against Go pprof's `-top` (or --by line
against `-top -lines`) for the keys in KEYS only (the test's own functions
or source lines; system libraries are named from other files by the two
tools). Prints the differences; exits 1 when there are any.

Usage: compare_top.py function|line PROFKIT_TOP_OUT PPROF_TOP_OUT KEY...
A KEY ending in '/' is a prefix (a source directory, for lines)."""
import sys

def rows(path, skip_header_word, pprof):
    out = {}
    started = False
    for line in open(path, encoding="utf-8", errors="replace"):
        f = line.split()
        if not started:
            started = len(f) >= 5 and f[0] == "flat"
            continue
        if len(f) < 6:
            continue
        name = " ".join(f[5:])
        name = name.replace(" (partial-inline)", "").replace(" (inline)", "")
        if mode == "line":  # "func file:line" -> "file:line" (both tools name the function)
            name = name.split(" ")[-1]
        if mode == "line" and name in out:
            a = out[name]
            out[name] = (a[0] + int(f[0]), a[1] + int(f[3]))
        else:
            out[name] = (int(f[0]), int(f[3]))
    return out

mode = sys.argv[1]
pk = rows(sys.argv[2], "flat", False)
go = rows(sys.argv[3], "flat", True)
keys = sys.argv[4:]
def wanted(k):
    return any(k == w or (w.endswith("/") and k.startswith(w)) for w in keys)
bad = 0
seen = 0
for k in sorted(set(pk) | set(go)):
    if not wanted(k):
        continue
    seen += 1
    if pk.get(k) != go.get(k):
        print(f"{k}: profkit (flat, cum) {pk.get(k)}, Go pprof {go.get(k)}")
        bad = 1
if seen == 0:
    print("no rows to compare")
    bad = 1
sys.exit(bad)
