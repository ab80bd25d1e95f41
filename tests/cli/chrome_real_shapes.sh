#!/usr/bin/env bash
# Shapes of real Chrome traces that other tools wrote (docs/formats/chrome.md,
# "Real traces"): each read as the Firefox Profiler's importer reads it.
#  - a ProfileChunk whose cpuProfile has a startTime and endTime of its own
#    clock, its Profile starting at 0, and the timeDeltas at both places
#    (rspack's traces): times from the Profile, the end on the chunk's clock
#    (the last sample's wall time was 470,030 s);
#  - an async end ("e") with no begin on a thread without samples: the
#    root range has only its end (it was INT64_MIN, an overflow in `info`);
#  - children ids that name no node (DevTools' saved CpuProfile events):
#    left out with one warning (they stopped the read);
#  - a process's labels (`process_labels`) after its name, as the loader
#    names the process.
. "$(dirname "$0")/lib.sh"
D="$PROFKIT_SRC/tests/data/chrome"

field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

# --- the chunk's own clock
IN="$D/ok_chunk_own_clock.json"
expect_eq "own clock: wall total (ms from the Profile's start, end on the chunk's clock)" "7000" \
  "$("$PROFKIT" top --json --quiet --value wall "$IN" | field 'd["total"]')"
expect_eq "own clock: per function" "f 3000 7000|g 4000 4000" \
  "$("$PROFKIT" top --json --quiet --value wall "$IN" | field '"|".join("%s %d %d" % (r["name"], r["flat"], r["cum"]) for r in sorted(d["rows"], key=lambda r: r["name"]))')"
# --- an end without its begin: only its end counts in the root range
expect_eq "unmatched end: the root range (its end + 0.5 ms, the loader's)" "from 1 to 10 ms" \
  "$("$PROFKIT" info --quiet "$IN" | sed -n 's/^duration: *[0-9.]* ms (\(from [0-9.]* to [0-9.]* ms\);.*/\1/p')"
# --- dangling children, and the process's labels
IN="$D/bad_dangling_children.json"
expect_eq "dangling children: the samples read" "main 2 4|work 2 2" \
  "$("$PROFKIT" top --json --quiet --value samples "$IN" | field '"|".join("%s %d %d" % (r["name"], r["flat"], r["cum"]) for r in sorted(d["rows"], key=lambda r: r["name"]))')"
expect_eq "process labels after the process name" "Renderer (A page title)" \
  "$("$PROFKIT" info --json --quiet "$IN" | field 'd["threads"][0]["process"]')"

# --- with TracingStartedInBrowser, a thread without samples does not
# stretch the root range's end (the loader's, checked against it by
# chrome_range_oracle, which reads every ok_ trace; a DevTools recording's
# IO thread had markers past the last sample)
expect_eq "TracingStartedInBrowser: the end is the sampled threads'" "from 1 to 6.5 ms" \
  "$("$PROFKIT" info --quiet "$D/ok_tsib_marker_thread.json" | sed -n 's/^duration: *[0-9.]* ms (\(from [0-9.]* to [0-9.]* ms\);.*/\1/p')"

# --- a bare array whose first event's nested args come before its "ph"
# (Chrome 85's saved traces): detected as a trace (it was unrecognized)
expect_eq "args before ph: detected" "format:       chrome" \
  "$("$PROFKIT" info --quiet "$D/ok_args_first.json" | head -1)"
expect_eq "args before ph: read" "main 3 3" \
  "$("$PROFKIT" top --json --quiet --value samples "$D/ok_args_first.json" | field '"|".join("%s %d %d" % (r["name"], r["flat"], r["cum"]) for r in d["rows"])')"

# --- against the Firefox Profiler's loader
need_loader "$TMP/loader"
python3 - "$CLI" "$TMP" "$D" "$PROFKIT" <<'PY' || fail "the loader's view differs (above)"
import json, os, subprocess, sys
sys.path.insert(0, os.path.join(os.environ["PROFKIT_SRC"], "tests", "oracle"))
from loader import run_files
cli, tmp, d, profkit = sys.argv[1:5]
IN = os.path.join(d, "bad_dangling_children.json")
def pk(*args):
    return json.loads(subprocess.run([profkit, *args, "--json", "--quiet", IN], check=True,
                                     capture_output=True).stdout)
def one(L, path, i):
    def check(what, mine, theirs):
        return ("PASS " if mine == theirs else "FAIL ") + "%s: profkit %r, loader %r" % (what, mine, theirs)
    L.load(path)
    info = L.json("profile", "info")
    fun = L.json("thread", "functions", "--include-idle", "--limit", "0")["functions"]
    return [check("process name", [t["process"] for t in pk("info")["threads"]],
                  [p["name"] for p in info["processes"] if p["threads"]]),
            check("functions (self, total samples)",
                  sorted("%s %d %d" % (r["name"], r["flat"], r["cum"]) for r in pk("top", "--value", "samples")["rows"]),
                  sorted("%s %d %d" % (f["name"], f["selfSamples"], f["totalSamples"]) for f in fun if f["name"] != "(root)"))]
sys.exit(run_files(cli, os.path.join(tmp, "work"), [IN], one))
PY
pass
finish
