#!/usr/bin/env bash
# --min-percent on top, hist and diff: the rows shown with it are exactly
# the rows shown without it whose sort value (top: flat, or cum with --cum;
# hist: the sort column's; diff: the flat or cum change) is at least P
# percent of the total (diff: of BASE's total), in the same order; -n
# counts the rows left; the diff gate still sees the hidden rows; a bad P
# is a usage error.
. "$(dirname "$0")/lib.sh"
D="$PROFKIT_SRC/tests/data"
CHECK="$TMP/check.py"
cat > "$CHECK" <<'PY'
import json, sys
kind, p, full, cut = sys.argv[1], float(sys.argv[2]), json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
cum = full["sort"] == "cum"
if kind == "top":
    tot, val = abs(full["total"]), lambda r: r["cum" if cum else "flat"]
elif kind == "hist":
    i = [c["type"] for c in full["columns"]].index(full["value"]["type"])
    tot = abs(full["columns"][i]["total"])
    assert not cum
    val = lambda r: r["values"][i]
else:
    tot, val = abs(full["base_total"]), lambda r: r["cum_change" if cum else "flat_change"]
want = [r for r in full["rows"] if 100.0 * abs(val(r)) >= p * tot]
assert cut["rows"] == want, (len(cut["rows"]), len(want))
assert cut["min_percent"] == p
assert 0 < len(want) < len(full["rows"]), "P=%g keeps %d of %d rows: pick another" % (p, len(want), len(full["rows"]))
print(len(want), len(full["rows"]))
PY
# check KIND P ARGS...: runs profkit KIND with and without --min-percent P.
check() {
  local kind=$1 p=$2
  shift 2
  "$PROFKIT" "$kind" --json -n 0 "$@" > "$TMP/full.json" &&
    "$PROFKIT" "$kind" --json -n 0 --min-percent "$p" "$@" > "$TMP/cut.json" ||
    { fail "$kind $*: profkit failed"; return; }
  if python3 "$CHECK" "$kind" "$p" "$TMP/full.json" "$TMP/cut.json" > "$TMP/out" 2>&1; then pass
  else fail "$kind --min-percent $p $*: $(tail -1 "$TMP/out")"; fi
}
B="$D/bsprof/ok_lines.bsprof"
P="$D/pprof/ok_full.pb"
check top 10 -q "$B"
check top 70 --cum -q "$B"
check top 20 "$P"
check hist 20 -q "$B"
check hist 50 "$P"
printf 'main;a 50\nmain;b 30\nmain;c 15\nmain;d 5\n' > "$TMP/base.folded"
printf 'main;a 52\nmain;b 20\nmain;c 25\nmain;d 6\n' > "$TMP/new.folded"
check diff 5 "$TMP/base.folded" "$TMP/new.folded"
check diff 9 --cum "$TMP/base.folded" "$TMP/new.folded"
# -n counts the rows that are left.
expect_eq "top -n 1 --min-percent" 1 "$("$PROFKIT" top --json -n 1 --min-percent 10 -q "$B" |
  python3 -c 'import json,sys; print(len(json.load(sys.stdin)["rows"]))')"
# The gate sees hidden rows: d grows by 1 of 100 (1%), hidden by --min-percent 50.
expect_status "gate with hidden rows" 3 "$PROFKIT" diff --min-percent 50 --fail-on-increase 0.5 "$TMP/base.folded" "$TMP/new.folded"
grep -q '^FAIL flat  +1 .* d$' "$TMP/out" && pass || fail "the gate did not print the hidden row d: $(cat "$TMP/out")"
expect_status "top --min-percent 101" 2 "$PROFKIT" top --min-percent 101 "$P"
expect_status "hist --min-percent x" 2 "$PROFKIT" hist --min-percent x "$P"
finish
