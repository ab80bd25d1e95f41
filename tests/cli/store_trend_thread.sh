#!/usr/bin/env bash
# `profkit trend --thread` (docs/store.md, "Comparing and trends"): each
# point is the value of one thread's samples in that group, what `top --db
# --where LABEL=VALUE --thread T` says of it; a group without the thread
# counts 0; the threads' points add up to the point without --thread; the
# thread is named as the selection merged names it (a name, an index,
# tid:TID), an ambiguous or unknown one is an error naming the threads.
. "$(dirname "$0")/lib.sh"

DB="$TMP/t.sqlite"
D="$PROFKIT_SRC/tests/data/gecko"
# versions 1 and 2: GeckoMain of pid 4242 and of 5151, Renderer (tid 4250);
# version 3: GeckoMain of pid 7 and of 9, no Renderer
"$PROFKIT" store add "$DB" -q --label version=1 "$D/ok_counters.json" || fail "add version 1"
"$PROFKIT" store add "$DB" -q --label version=2 "$D/ok_jank.json" || fail "add version 2"
"$PROFKIT" store add "$DB" -q --label version=3 "$D/ok_cpu_delta.json" || fail "add version 3"

# every thread of the selection (index), each point against top's
check_points() { # SEL [FUNCTION]
  "$PROFKIT" trend --db "$DB" --by version --thread "$1" ${2:+--function "$2"} --json > "$TMP/trend.json" 2> "$TMP/err" ||
    { fail "trend --thread $1: $(cat "$TMP/err")"; return; }
  expect_eq "trend --thread $1 ${2:+--function $2}: each point as top --thread over its group" "ok" \
    "$(python3 - "$PROFKIT" "$DB" "$1" "${2:-}" "$TMP/trend.json" << 'PY'
import json, re, subprocess, sys
profkit, db, sel, fn, path = sys.argv[1:]
d = json.load(open(path))
bad = []
if d["report"] != "trend" or d["by"] != "version" or not d.get("thread") or len(d["points"]) != 3:
    bad.append("header %r" % {k: d.get(k) for k in ("report", "by", "thread")})
# the thread the trend names, by its tid (unique here): an index of the
# selection merged is another index in a group
tid = re.search(r"tid (\d+)\)$", d.get("thread") or "")
for p in d["points"]:
    r = subprocess.run([profkit, "top", "--db", db, "--where", "version=" + p["group"], "--thread",
                        "tid:" + (tid.group(1) if tid else "?"), "--json", "-n", "0"], capture_output=True, text=True)
    if r.returncode != 0:  # the group has no such thread
        want = (0, 0) if "no thread" in r.stderr else ("top failed", r.stderr)
    else:
        top = json.loads(r.stdout)
        cum = sum(x["cum"] for x in top["rows"] if re.search(fn, x["name"])) if fn else top["total"]
        want = (cum, top["total"])
    if (p["value"], p["total"]) != want:
        bad.append("%s: trend %s/%s, top %s" % (p["group"], p["value"], p["total"], want))
print("; ".join(bad) or "ok")
PY
)"
}
for t in 0 1 2 3 4 Renderer tid:5151; do check_points "$t"; done
check_points Renderer work
check_points tid:4242 '^work$'

# the threads add up to the trend without --thread
expect_eq "the five threads' points add up to the points without --thread" \
  "$("$PROFKIT" trend --db "$DB" --by version --json | python3 -c 'import json, sys; print([(p["value"], p["total"]) for p in json.load(sys.stdin)["points"]])')" \
  "$(for t in 0 1 2 3 4; do "$PROFKIT" trend --db "$DB" --by version --thread "$t" --json; done | python3 -c '
import json, sys
sums = {}
for line in sys.stdin:
    for p in json.loads(line)["points"]:
        v, t = sums.get(p["group"], (0, 0))
        sums[p["group"]] = (v + p["value"], t + p["total"])
print([sums[g] for g in sorted(sums)])')"

# the text names the thread; without --thread the output is as before
"$PROFKIT" trend --db "$DB" --by version --thread Renderer > "$TMP/text" 2>&1 || fail "trend --thread Renderer (text)"
grep -q "^Trend of samples (count) by version: thread Renderer (Parent Process, pid 4242, tid 4250), the total, 3 groups, 3 profiles$" "$TMP/text" && pass ||
  fail "trend --thread's text does not name the thread: $(head -2 "$TMP/text")"
expect_eq "a group without the thread counts 0" "3               1             0             0    0.00%" "$(grep '^3 ' "$TMP/text")"
"$PROFKIT" trend --db "$DB" --by version --json > "$TMP/all.json"
grep -q '"thread"' "$TMP/all.json" && fail "trend --json without --thread has a thread key" || pass
# --by day with a thread, and --where with it
"$PROFKIT" trend --db "$DB" --by day --thread Renderer --json > "$TMP/day.json" 2> "$TMP/err" || fail "trend --by day --thread: $(cat "$TMP/err")"
expect_eq "trend --by day --thread Renderer: Renderer's total" "4" \
  "$(python3 -c 'import json, sys; print(sum(p["total"] for p in json.load(open(sys.argv[1]))["points"]))' "$TMP/day.json")"
expect_status "trend --where version=3 --thread Renderer: no such thread in the selection" 1 \
  "$PROFKIT" trend --db "$DB" --where version=3 --by version --thread Renderer
grep -q "no thread 'Renderer'" "$TMP/err" && pass || fail "--thread of another selection: $(cat "$TMP/err")"

# errors: a name four threads have, a thread no profile has
expect_status "trend --thread GeckoMain (four threads)" 1 "$PROFKIT" trend --db "$DB" --by version --thread GeckoMain
grep -q "thread 'GeckoMain' matches 4 threads: 0: GeckoMain (Parent Process, pid 4242, tid 4242);" "$TMP/err" && pass ||
  fail "an ambiguous --thread: $(cat "$TMP/err")"
expect_status "trend --thread nosuch" 1 "$PROFKIT" trend --db "$DB" --by version --thread nosuch
grep -q "no thread 'nosuch' (use a thread name, an index 0..4 or tid:TID" "$TMP/err" && pass || fail "an unknown --thread: $(cat "$TMP/err")"
expect_status "trend --help" 0 "$PROFKIT" trend --help
grep -q -- "--thread NAME" "$TMP/out" && pass || fail "trend --help does not list --thread"

finish
