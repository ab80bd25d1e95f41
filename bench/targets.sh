#!/usr/bin/env bash
# The targets of issue 28 in one interleaved run, on bench/compare.sh's inputs
# (kept in build/bench/compare/; made here the same way when missing):
#   1. `profkit top` on the 196 MB gperftools profile of 5,000 real python3 and
#      libc PCs with their mappings (symbolized) against Go pprof `-top`
#      symbolizing locally: >= 50x faster, <= 0.05 of its peak memory (with
#      the symbol cache a run before wrote, and beside it without);
#   2. `flame` within 1.1x `top`'s time and 1.2x its peak memory on the
#      gperftools, bsprof (200 MB) and Gecko (133 MB raw JSON) inputs;
#   3. bsprof `mem` >= 400 MB/s; 4. raw Gecko `top` >= 200 MB/s on one core.
# Time is CPU time (user + sys: the machine is shared, wall time is mostly
# waiting) and peak RSS, from /usr/bin/time; each command runs RUNS times,
# the commands interleaved round by round, medians reported, the load
# average (1 min) beside each round. Every profkit run is on one core
# (taskset -c 0) except the gperftools ones, whose reader uses two threads,
# and Go pprof, which uses both cores as it would anywhere.
# Usage: PROFKIT=build/release/profkit RUNS=3 bash bench/targets.sh
#        (PPROF_RUNS=N: Go pprof's runs, default RUNS; ONLY=regex of names;
#        REPORT=runs.tsv prints the table again from a run's raw figures)
set -euo pipefail
cd "$(dirname "$0")/.."
PROFKIT=${PROFKIT:-build/release/profkit}
PPROF=build/tools/pprof
RUNS=${RUNS:-3}
PPROF_RUNS=${PPROF_RUNS:-$RUNS}
ONLY=${ONLY:-.*}
IN=build/bench/compare
OUT=build/bench/targets
mkdir -p "$OUT"
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
[ -x "$PPROF" ] || bash scripts/tools.sh
GP=$IN/gp-real.prof BS=$IN/bench-200mb.bsprof GK=$IN/gecko-100mb.json
# The inputs as bench/compare.sh makes them (the same generators and arguments).
mkdir -p "$IN/gen"
if [ ! -s "$GP" ]; then
  cc -O2 -o "$IN/gen/gen_gperftools" bench/gen_gperftools.c
  python3 bench/symbols_pcs.py "$IN/gen" 5000 > /dev/null
  "$IN/gen/gen_gperftools" "$GP" 1000000 200000 0 tree "$IN/gen/pcs.txt" "$IN/gen/maps.txt" > /dev/null
fi
if [ ! -s "$BS" ]; then
  cc -O2 -o "$IN/gen/bsprof_gen" bench/bsprof_gen.c
  "$IN/gen/bsprof_gen" random "$BS" modules=20 elements=50000 cpu=1000000 size_mb=200 lines=1 seed=1 > /dev/null
fi
if [ ! -s "$GK" ]; then
  cc -O2 -o "$IN/gen/gecko_gen" bench/gecko_gen.c
  "$IN/gen/gecko_gen" "$GK" 100 8 1 > /dev/null
fi

# name|command (words without spaces)
# top-gp reads the symbol cache (docs/symbols.md), written by its first run
# (or any run before); top-gp-nocache is the first run's cost, every time.
CMDS="top-gp|$PROFKIT top -n 20 $GP
top-gp-nocache|env PROFKIT_SYMBOL_CACHE=0 $PROFKIT top -n 20 $GP
top-gp-nosym|$PROFKIT top -n 20 --no-symbolize $GP
flame-gp|$PROFKIT flame -q $GP -o $OUT/page.html
pprof-gp|$PPROF -top -nodecount=20 $GP
mem-bs|taskset -c 0 $PROFKIT mem -n 5 -q $BS
top-bs|taskset -c 0 $PROFKIT top -n 5 -q $BS
flame-bs|taskset -c 0 $PROFKIT flame -q $BS -o $OUT/page.html
top-gk|taskset -c 0 $PROFKIT top -n 5 -q $GK
flame-gk|taskset -c 0 $PROFKIT flame -q $GK -o $OUT/page.html"
CMDS=$(grep -E "^($ONLY)\|" <<< "$CMDS")

log=${REPORT:-$OUT/runs.tsv}
[ -n "${REPORT:-}" ] || {
printf 'name\tround\tload1\twall_s\tcpu_s\trss_kb\n' > "$log"
# One run first, untimed, so every top-gp run reads the symbol cache.
! grep -q '^top-gp|' <<< "$CMDS" || "$PROFKIT" top -n 1 "$GP" > /dev/null
for ((r = 1; r <= RUNS; r++)); do
  while IFS='|' read -r name cmd; do
    [ "$name" != pprof-gp ] || [ "$r" -le "$PPROF_RUNS" ] || continue
    load=$(cut -d' ' -f1 /proc/loadavg)
    # shellcheck disable=SC2086 # words without spaces
    /usr/bin/time -f '%e %U %S %M' -o "$OUT/time" $cmd > "$OUT/$name.out" 2> "$OUT/$name.err" ||
      { echo "targets.sh: $name failed: $(head -c 300 "$OUT/$name.err")" >&2; exit 1; }
    read -r w u s m < "$OUT/time"
    awk -v n="$name" -v r="$r" -v l="$load" -v w="$w" -v c="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" -v m="$m" \
      'BEGIN { printf "%s\t%d\t%s\t%s\t%s\t%s\n", n, r, l, w, c, m }' >> "$log"
  done <<< "$CMDS"
done
}

# Medians per name, then the ratios.
awk -F'\t' -v gp="$(stat -L -c %s "$GP")" -v bs="$(stat -L -c %s "$BS")" -v gk="$(stat -L -c %s "$GK")" '
function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
NR == 1 { next }
{ if (!($1 in n)) order[++k] = $1; i = ++n[$1]; W[$1, i] = $4; C[$1, i] = $5; R[$1, i] = $6
  if (i == 1 || $3 + 0 < lo[$1] + 0) lo[$1] = $3
  if (i == 1 || $3 + 0 > hi[$1] + 0) hi[$1] = $3 }
END {
  printf "%-14s %5s %9s %9s %10s  %s\n", "command", "runs", "wall s", "CPU s", "RSS MB", "load (1 min)"
  for (q = 1; q <= k; q++) { x = order[q]
    for (i = 1; i <= n[x]; i++) { a[i] = W[x, i]; b[i] = C[x, i]; c[i] = R[x, i] }
    w[x] = med(a, n[x]); cp[x] = med(b, n[x]); rs[x] = med(c, n[x]) / 1024
    printf "%-14s %5d %9.2f %9.2f %10.1f  %s-%s\n", x, n[x], w[x], cp[x], rs[x], lo[x], hi[x] }
  print ""
  if ("top-gp" in w && "pprof-gp" in w)
    printf "Go pprof / top (symbolized): %.1fx CPU, %.1fx wall (target >= 50x); memory %.3f of Go pprof (target <= 0.05)\n",
      cp["pprof-gp"] / cp["top-gp"], w["pprof-gp"] / w["top-gp"], rs["top-gp"] / rs["pprof-gp"]
  if ("top-gp-nocache" in w && "pprof-gp" in w)
    printf "Go pprof / top, symbol cache off: %.1fx CPU, %.1fx wall; memory %.3f of Go pprof\n",
      cp["pprof-gp"] / cp["top-gp-nocache"], w["pprof-gp"] / w["top-gp-nocache"], rs["top-gp-nocache"] / rs["pprof-gp"]
  split("gp bs gk", f, " ")
  for (q = 1; q <= 3; q++) if (("top-" f[q]) in w && ("flame-" f[q]) in w)
    printf "flame / top, %s: %.2fx CPU (target <= 1.1), %.2fx memory (target <= 1.2)\n", f[q],
      cp["flame-" f[q]] / cp["top-" f[q]], rs["flame-" f[q]] / rs["top-" f[q]]
  if ("mem-bs" in w) printf "bsprof mem: %.0f MB/s of CPU, %.0f MB/s wall (target >= 400)\n", bs / 1e6 / cp["mem-bs"], bs / 1e6 / w["mem-bs"]
  if ("top-gk" in w) printf "raw Gecko top: %.0f MB/s of CPU, %.0f MB/s wall, one core (target >= 200)\n", gk / 1e6 / cp["top-gk"], gk / 1e6 / w["top-gk"]
}' "$log"
