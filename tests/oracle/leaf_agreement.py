"""leaf_agreement.py: of the samples whose leaf Go pprof names (a function,
not "[binary]"), the share whose leaf profkit names the same: per
function, min(profkit flat, pprof flat), summed, over pprof's named flat
total. Prints the share; exits 1 below MIN (0.99).

Usage: leaf_agreement.py PROFKIT_TOP_OUT PPROF_TOP_OUT [MIN]"""
import sys

def flat(path, pprof):
    out, started = {}, False
    for line in open(path, encoding="utf-8", errors="replace"):
        f = line.split()
        if not started:
            started = len(f) >= 5 and f[0] == "flat"
            continue
        if len(f) < 6:
            continue
        name = " ".join(f[5:]).replace(" (inline)", "")
        if pprof and name.startswith("["):
            continue
        out[name] = out.get(name, 0) + int(f[0])
    return out

pk, go = flat(sys.argv[1], False), flat(sys.argv[2], True)
need = float(sys.argv[3]) if len(sys.argv) > 3 else 0.99
total = sum(go.values())
same = sum(min(v, pk.get(k, 0)) for k, v in go.items())
share = same / total if total else 0.0
print(f"{same} of {total} samples Go pprof names have the same leaf in profkit ({share:.2%})")
for k, v in sorted(go.items(), key=lambda kv: -kv[1])[:10]:
    if pk.get(k, 0) != v:
        print(f"  {k}: Go pprof {v}, profkit {pk.get(k, 0)}")
sys.exit(0 if total and share >= need else 1)
