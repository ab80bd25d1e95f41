#!/usr/bin/env bash
# A real Gecko profile against the Firefox Profiler's own loader: Debian's
# firefox-esr (scripts/deps.sh --test), headless, records its own start-up
# and a page that works in named functions, marks user timings and flushes
# layout (MOZ_PROFILER_STARTUP: a raw Gecko profile of the parent, content
# and extension processes, written at shutdown, with IPC, layout, DOM and
# user-timing markers, JS frames, sub-processes with their own start
# times). On it, as on the fixtures (markers_oracle, range_cli):
#   - `profkit markers --list --json` lists per thread the markers the
#     loader lists, and `convert --to firefox` gives the loader the same
#     markers, threads, processes and root range (tests/cli/markers_compare.py;
#     the stacks of the first 25 markers with one per thread);
#   - `profkit top --range 25%,75%` gives per thread every function's self
#     and total samples the loader gives (tests/cli/range_oracle_compare.py).
. "$(dirname "$0")/lib.sh"
need_loader "$TMP/work/sessions"
FF=$(command -v firefox-esr || command -v firefox || true)
[ -n "$FF" ] || { fail "firefox-esr is missing (scripts/deps.sh --test installs it)"; finish; }

cat > "$TMP/page.html" << 'HTML'
<!doctype html><html><head><title>profkit</title><style>.on { color: red }</style></head>
<body><div id="d">x</div><script>
function leaf(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * Math.sin(i); return s; }
function middle(n) { return leaf(n) + leaf(n >> 1); }
const d = document.getElementById('d');
d.addEventListener('click', () => middle(50000));
const t0 = performance.now();
let r = 0, k = 0;
while (performance.now() - t0 < 800) {
  performance.mark('step-' + (k++ % 4));
  r += middle(20000);
  d.textContent = String(r).slice(0, 8);
  d.className = k % 2 ? 'on' : '';
  d.getBoundingClientRect();
  d.click();
}
performance.measure('busy', { start: t0, end: performance.now() });
</script></body></html>
HTML
P="$TMP/firefox.json"
mkdir -p "$TMP/ffprofile" "$TMP/home"
# --screenshot loads the page and quits; the profiler writes at shutdown.
HOME="$TMP/home" MOZ_PROFILER_STARTUP=1 MOZ_PROFILER_STARTUP_INTERVAL=1 \
  MOZ_PROFILER_STARTUP_FILTERS='GeckoMain,Compositor,Renderer,DOM Worker' \
  MOZ_PROFILER_SHUTDOWN="$P" timeout 180 "$FF" --headless --no-remote --profile "$TMP/ffprofile" \
  --screenshot "$TMP/shot.png" "file://$TMP/page.html" > "$TMP/firefox.log" 2>&1
if [ ! -s "$P" ]; then
  fail "firefox wrote no profile: $(tail -3 "$TMP/firefox.log")"
  finish
fi

# What it holds: processes, the page's JS function, IPC and user timings.
"$PROFKIT" info -q --json --no-symbolize "$P" > "$TMP/info.json" || { fail "profkit info"; finish; }
expect_eq "a raw Gecko profile of several processes, with markers" "gecko yes yes" \
  "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["format"], len({t.get("pid") for t in d["threads"]}) >= 2, d["markers"] > 1000)' "$TMP/info.json" |
     sed 's/True/yes/g; s/False/no/g')"
"$PROFKIT" top -q --no-symbolize -n 0 --json "$P" > "$TMP/top.json"
grep -q '"name":"leaf"' "$TMP/top.json" && pass || fail "the page's function leaf is not in top"
"$PROFKIT" markers -q --json "$P" > "$TMP/markers.json"
for name in IPCOut IPCIn UserTiming; do
  grep -q "\"name\":\"$name\"" "$TMP/markers.json" && pass || fail "no $name marker"
done

# The loader's view.
if PROFKIT_MARKER_STACKS=25 python3 "$PROFKIT_SRC/tests/cli/markers_compare.py" "$PROFKIT" "$CLI" "$TMP/work" "$P" \
     > "$TMP/markers.cmp" 2>&1; then
  pass
else
  fail "markers differ from the Firefox Profiler's: $(grep -v '^ok ' "$TMP/markers.cmp" | head -5)"
fi
if python3 "$PROFKIT_SRC/tests/cli/range_oracle_compare.py" "$PROFKIT" "$CLI" 25%,75% "$P" > "$TMP/range.cmp" 2>&1; then
  pass
else
  fail "top --range 25%,75% differs from the Firefox Profiler's: $(grep -v 'same self' "$TMP/range.cmp" | head -5)"
fi
cat "$TMP/markers.cmp" "$TMP/range.cmp"
finish
