#!/usr/bin/env bash
# Paused ranges per process (docs/formats/gecko.md): a raw Gecko profile has
# them per process profile (the top level and each `processes[]` entry);
# written as a processed profile, each thread gets its own process's ranges,
# as the Firefox Profiler's own processing of a raw profile gives them, not
# every process's; a second round trip (processed: ranges per thread) keeps
# each thread's.
. "$(dirname "$0")/lib.sh"
IN="$PROFKIT_SRC/tests/data/gecko/ok_cpu_delta.json"

"$PROFKIT" convert -q --no-symbolize "$IN" --to firefox -o "$TMP/1.json" || fail "convert"
"$PROFKIT" convert -q --no-symbolize "$TMP/1.json" --to firefox -o "$TMP/2.json" || fail "second convert"
if python3 - "$IN" "$TMP/1.json" "$TMP/2.json" << 'PY'
import json, sys
src, one, two = (json.load(open(f)) for f in sys.argv[1:4])
want = {}
def walk(p):
    for t in p['threads']:
        want[str(t['pid'])] = p.get('pausedRanges') or []
    for c in p.get('processes', []):
        walk(c)
walk(src)
ok = True
for name, out in (('raw -> processed', one), ('processed -> processed', two)):
    for t in out['threads']:
        if t['pausedRanges'] != want[str(t['pid'])]:
            print(f"FAIL: {name}: thread pid {t['pid']}: pausedRanges {t['pausedRanges']}, expected {want[str(t['pid'])]}")
            ok = False
# the two processes' ranges differ, so the check can fail
if len({json.dumps(v) for v in want.values()}) < 2:
    print('FAIL: the input does not tell its processes apart'); ok = False
sys.exit(0 if ok else 1)
PY
then pass; else fail "paused ranges per process"; fi
finish
