#!/usr/bin/env bash
# Every marker through profkit's Chrome writer and back (docs/formats/
# chrome.md, "What is written"): tests/data/chrome/ok_marker_threads.json
# has the shape of an rspack trace (no TracingStartedInBrowser, markers on
# threads without samples after the last sample, an async `b` on one
# thread and its `e` on another); ok_tsib_unpaired.json has that event,
# and a `B` never ended and an `E` without its `B` on a thread without
# samples, which the Firefox Profiler lists with no duration;
# ok_negative_dur_range.json `X` events of negative duration (written as
# such: the end before the start). Written by
# `convert --to chrome` and read back, each keeps every marker, with its
# start and duration (ms on the samples' axis), in profkit and in the
# Firefox Profiler's loader, which lists the same markers on the input
# and on the output. The writer leaves TracingStartedInBrowser out where
# the loader's root range would then end before a marker of a thread
# without samples (ok_marker_threads.json), and writes it otherwise.
. "$(dirname "$0")/lib.sh"
D="$PROFKIT_SRC/tests/data/chrome"

# profkit's marker list: "pid:tid name start duration" lines, start on
# the samples' axis (the zero added back), to the µs
list() {
  "$PROFKIT" markers -q --list --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for m in sorted(d["markers"], key=lambda m: (m["thread"]["pid"], m["thread"]["tid"], m["start"], m["name"])):
    dur = m.get("duration")
    print("%s:%s %s %.3f %s" % (m["thread"]["pid"], m["thread"]["tid"], m["name"], d["zero"] + m["start"],
                                "-" if dur is None else "%.3f" % dur))'
}

for f in ok_marker_threads.json ok_tsib_unpaired.json ok_negative_dur_range.json; do
  out="$TMP/${f%.json}.trace.json"
  "$PROFKIT" convert -q "$D/$f" --to chrome -o "$out"
  list "$D/$f" > "$TMP/in.list"
  list "$out" > "$TMP/out.list"
  if diff "$TMP/in.list" "$TMP/out.list" > "$TMP/diff"; then
    pass
  else
    fail "$f: profkit's markers on the round trip differ from the input's:"
    cat "$TMP/diff"
  fi
done
expect_eq "ok_marker_threads.json: markers listed" "7" "$(list "$D/ok_marker_threads.json" | wc -l | tr -d ' ')"
expect_eq "ok_marker_threads.json: TracingStartedInBrowser written" "0" \
  "$(grep -c '"TracingStartedInBrowser"' "$TMP/ok_marker_threads.trace.json")"
expect_eq "ok_tsib_unpaired.json: TracingStartedInBrowser written" "1" \
  "$(grep -c '"TracingStartedInBrowser","ph":"M"' "$TMP/ok_tsib_unpaired.trace.json")"

need_loader
# the loader: the same markers on the input and on the output, and they
# are profkit's (each name, start and duration within 1e-5 ms)
if timeout 600 python3 - "$PROFKIT_SRC/tests/oracle" "$PROFKIT" "$CLI" "$TMP/work" \
     "$D/ok_marker_threads.json" "$TMP/ok_marker_threads.trace.json" \
     "$D/ok_tsib_unpaired.json" "$TMP/ok_tsib_unpaired.trace.json" \
     "$D/ok_negative_dur_range.json" "$TMP/ok_negative_dur_range.trace.json" > "$TMP/loader" 2>&1 << 'PY'; then
import sys
sys.path.insert(0, sys.argv[1])
from chrome_compare import Loader, compare_marker_lists, loader_marker_list, profkit_marker_list
profkit, cli, work, files = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
L = Loader(cli, work)
bad = 0
try:
    for src, out in zip(files[::2], files[1::2]):
        views = {}
        for f in (src, out):
            L.load(f)
            try:
                views[f] = loader_marker_list(L)
            finally:
                L("stop")
        n = sum(len(v) for v in views[src].values())
        for what, msg in (("the loader on the output against the loader on the input",
                           compare_marker_lists(views[out], views[src], ("the output", "the input"))),
                          ("profkit on the output against the loader on it",
                           compare_marker_lists(profkit_marker_list(profkit, out), views[out]))):
            bad += msg is not None
            print("%s %s: %s: %s" % ("FAIL" if msg else "ok", src, what, msg or "%d markers" % n))
finally:
    L.stop_all()
sys.exit(1 if bad else 0)
PY
  pass
else
  fail "the round trip against the loader:"
fi
cat "$TMP/loader"

# the comparison of cli/chrome_oracle on the same files (per-function
# counts, the markers in the loader's root range, the output read back)
if timeout 600 python3 "$PROFKIT_SRC/tests/oracle/chrome_compare.py" --profkit "$PROFKIT" --cli "$CLI" \
     --work "$TMP/work2" --write "$D/ok_marker_threads.json" "$D/ok_tsib_unpaired.json" \
     "$D/ok_negative_dur_range.json" > "$TMP/write" 2>&1; then
  pass
else
  fail "profkit's Chrome output against the loader:"
fi
cat "$TMP/write"
finish
