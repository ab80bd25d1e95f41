#!/usr/bin/env bash
# speedscope -> Firefox, against the Firefox Profiler's loader
# (profiler-cli; docs/formats/speedscope.md, "Firefox output"). The
# Firefox Profiler imports no speedscope file (its loader says "This does
# not appear to be a valid Gecko Profile, there is no meta field."), so its
# view of the file itself cannot be had: profkit's `convert --to firefox`
# output is loaded instead, and the loader's self and total per function,
# per thread, must equal the speedscope file's own weights, folded without
# profkit by tests/cli/speedscope_firefox.py (evented: time-weighted, each
# interval between two events weighs its duration; sampled: each sample
# its weight, and one on the "(samples)" thread). Files: evented in
# nanoseconds (tests/data), evented in milliseconds with two profiles
# (made by tests/cli/speedscope_timed.py), evented with no unit and
# sampled ones (../shared's wild speedscope files, tests/data).
. "$(dirname "$0")/lib.sh"
need_loader
export PROFKIT_TOOLS
D="$PROFKIT_SRC/tests/data/speedscope"
python3 "$PROFKIT_SRC/tests/cli/speedscope_timed.py" "$TMP/made.speedscope.json"
files=("$D/ok_evented.speedscope.json" "$TMP/made.speedscope.json" "$D/ok_sampled.speedscope.json"
       "$D/ok_no_schema.speedscope.json")
if [ -d "$FIX" ]; then
  files+=("$FIX"/wild/speedscope/speedscope_0.*.json)
else
  echo "note: $FIX is absent; ../shared's speedscope files are not checked"
fi
# the loader itself refuses a speedscope file (the reason for the above)
python3 - "$PROFKIT_SRC" "$D/ok_evented.speedscope.json" "$TMP/direct" > "$TMP/direct.out" 2>&1 << 'PY'
import os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "tests", "oracle"))
from chrome_compare import Loader
from loader import LoaderError
l = Loader(os.path.join(os.environ["PROFKIT_TOOLS"], "node_modules", "@firefox-devtools", "profiler-cli", "dist", "profiler-cli.js"), sys.argv[3])
try:
    l.load(sys.argv[2])
    print("loaded")
except LoaderError as e:
    print(e)
finally:
    l.stop_all()
PY
expect_eq "the loader imports no speedscope file" 1 \
  "$(grep -c 'This does not appear to be a valid Gecko Profile, there is no meta field' "$TMP/direct.out")"
for f in "${files[@]}"; do
  b=$(basename "$f" .json)
  "$PROFKIT" convert -q "$f" --to firefox -o "$TMP/$b.ff.json" 2> "$TMP/$b.err" ||
    { fail "$b: convert --to firefox failed: $(cat "$TMP/$b.err")"; continue; }
  if python3 "$PROFKIT_SRC/tests/cli/speedscope_firefox.py" "$PROFKIT_SRC" "$f" "$TMP/$b.ff.json" "$TMP/work.$b" > "$TMP/$b.cmp" 2>&1; then
    pass
  else
    fail "$b: $(head -c 1500 "$TMP/$b.cmp")"
  fi
done
finish
