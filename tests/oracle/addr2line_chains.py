"""addr2line_chains.py: the inline chains eu-addr2line -i -f gives for the
leaf addresses of an unsymbolized folded profile, as folded suffixes with
their sample counts, against the same suffixes in profkit's symbolized
folded output. Exits 1 on any difference.

Usage: addr2line_chains.py BINARY LO HI RAW.folded SYMBOLIZED.folded
(leaf addresses in [LO, HI) are the binary's own, non-PIE)."""
import collections, subprocess, sys

binary, lo, hi = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16)
leaf = collections.Counter()
for line in open(sys.argv[4]):
    stack, n = line.rsplit(" ", 1)
    a = int(stack.split(";")[-1], 16)
    if lo <= a < hi:
        leaf[a] += int(n)
addrs = sorted(leaf)
out = subprocess.run(["eu-addr2line", "-a", "-i", "-f", "-e", binary] + [hex(a) for a in addrs],
                     capture_output=True, text=True, check=True).stdout.splitlines()
chains, cur = {}, None
i = 0
while i < len(out):
    if out[i].startswith("0x"):
        cur = int(out[i], 16)
        chains[cur] = []
        i += 1
        continue
    chains[cur].append(out[i].split(" ")[0])  # "step inlined at F:L:C in hot", then file:line
    i += 2
want = collections.Counter()
for a in addrs:
    want[";".join(reversed(chains[a]))] += leaf[a]
got = collections.Counter()
lines = [l.rsplit(" ", 1) for l in open(sys.argv[5])]
for t in want:
    for stack, n in lines:
        if stack == t or stack.endswith(";" + t):
            got[t] += int(n)
bad = 0
for t in sorted(want):
    if want[t] != got[t]:
        print(f"{t}: eu-addr2line {want[t]} samples, profkit {got[t]}")
        bad = 1
print(f"{len(addrs)} leaf addresses, {len(want)} chains, {sum(1 for t in want if ';' in t)} with inlined calls")
if not any(";" in t for t in want):
    print("no inlined chains among the leaves")
    bad = 1
sys.exit(bad)
