#!/usr/bin/env bash
# threadCPUDelta (docs/formats/gecko.md): the samples' CPU use is read from
# raw Gecko profiles (rows streamed after their schema, and rows held until
# a later schema) and from processed ones, and the Firefox writer keeps it:
# the written column equals the input's, sample for sample (a sample without
# a stack too: it is kept, with its delta, and written back with a null
# stack), with meta.sampleUnits' unit, and a second round trip changes
# nothing.
. "$(dirname "$0")/lib.sh"

check() { # check NAME IN OUT: the kept samples' deltas and unit of IN in OUT
  python3 - "$@" << 'PY'
import json, sys
name, a, b = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))

def threads(p):
    yield p
    for c in p.get('processes', []):
        yield from threads(c)

def want_rows(t):
    s = t['samples']
    if 'schema' in s:  # raw: rows
        sc = s['schema']
        rows = [r for r in s['data'] if len(r) > sc['stack']]
        return [r[sc['threadCPUDelta']] if len(r) > sc['threadCPUDelta'] else None for r in rows]
    d = s.get('threadCPUDelta')
    if d is None:
        return []
    return [c for st, c in zip(s['stack'], d)]

# threads by (pid, tid, name), as a multiset: the writer may put them in
# another order, and two threads may share all three
key = lambda t: (str(t.get('pid')), str(t.get('tid')), str(t.get('name')))
norm = lambda d: None if not d or all(x is None for x in d) else d
want = sorted((key(t), json.dumps(norm(want_rows(t)))) for p in threads(a) for t in p['threads'])
got = sorted((key(t), json.dumps(norm(t['samples'].get('threadCPUDelta')))) for t in b['threads'])
ok = want == got
if not ok:
    print(f'FAIL: {name}: threads and their threadCPUDelta {str(got)[:300]}, expected {str(want)[:300]}')
unit = a['meta'].get('sampleUnits', {}).get('threadCPUDelta')
if any(w != 'null' for _, w in want) and b['meta'].get('sampleUnits', {}).get('threadCPUDelta') != unit:
    print(f"FAIL: {name}: sampleUnits {b['meta'].get('sampleUnits')}, expected threadCPUDelta {unit}"); ok = False
sys.exit(0 if ok else 1)
PY
}

roundtrip() { # roundtrip NAME FILE
  local name=$1 f=$2
  if ! "$PROFKIT" convert -q --no-symbolize "$f" --to firefox -o "$TMP/$name.1.json" 2> "$TMP/err"; then
    fail "$name: convert failed: $(head -2 "$TMP/err")"; return
  fi
  if check "$name" "$f" "$TMP/$name.1.json"; then pass; else fail "$name: threadCPUDelta not kept"; fi
  "$PROFKIT" convert -q --no-symbolize "$TMP/$name.1.json" --to firefox -o "$TMP/$name.2.json"
  if check "$name (second round trip)" "$TMP/$name.1.json" "$TMP/$name.2.json"; then pass; else fail "$name: second round trip"; fi
}

roundtrip raw "$PROFKIT_SRC/tests/data/gecko/ok_cpu_delta.json"
roundtrip short_rows "$PROFKIT_SRC/tests/data/gecko/ok_short_rows.json"
# the deltas really are there (not two empty columns compared)
"$PROFKIT" convert -q "$PROFKIT_SRC/tests/data/gecko/ok_cpu_delta.json" --to firefox -o "$TMP/raw.json"
expect_eq "raw: first thread's deltas" "[null,1500,99,500000,0]" \
  "$(grep -o '"threadCPUDelta":\[[^]]*\]' "$TMP/raw.json" | head -1 | sed 's/.*://')"
# the sample without a stack (the third) is written back with a null stack
expect_eq "raw: first thread's stacks" "[0,1,null,1,0]" \
  "$(grep -o '"stack":\[[^]]*\]' "$TMP/raw.json" | head -1 | sed 's/.*://')"
expect_eq "raw: unit" '"threadCPUDelta":"ns"' "$(grep -o '"threadCPUDelta":"[^"]*"' "$TMP/raw.json")"
# a profile without the column gets none
"$PROFKIT" convert -q "$PROFKIT_SRC/tests/data/gecko/ok_weights.json" --to firefox -o "$TMP/none.json"
expect_eq "no deltas: no column, no unit" 0 "$(grep -c threadCPUDelta "$TMP/none.json")"

# processed profiles (samply, with real deltas in µs), when ../shared is here
if [ -d "$FIX/firefox" ]; then
  for f in "$FIX"/firefox/samply-ls-profile-v41.json "$FIX"/firefox/samply-profile_without_js-v66.json; do
    roundtrip "$(basename "$f" .json)" "$f"
  done
fi
finish
