#!/usr/bin/env bash
# gperftools CPU profiles (issue 2): generates 200 MB profiles (1 M records,
# depth 5 to 40, about 200 k distinct stacks over 5,000 PCs;
# bench/gen_gperftools.c) under build/bench/ in two shapes -- "tree" (stacks
# share prefixes as real ones do) and "random" (they share almost none, the
# worst case for the model's prefix tree) -- and runs `profkit top` and
# Go pprof `-top -symbolize=none` on each in the same run, with
# /usr/bin/time -v for wall time, CPU time and peak RSS.
# Targets: profkit >= 20x faster (wall), <= 1/10 of Go pprof's peak memory.
# Usage: PROFKIT=path/to/profkit bash bench/gperftools.sh   (KEEP=1 keeps the inputs;
# RUNS=N runs each tool N times, default 3, and reports the medians)
set -euo pipefail
cd "$(dirname "$0")/.."
PROFKIT=${PROFKIT:-build/release/profkit}
PPROF=build/tools/pprof
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
[ -x "$PPROF" ] || bash scripts/tools.sh
mkdir -p build/bench
cc -O2 -o build/bench/gen_gperftools bench/gen_gperftools.c

measure() { # NAME CMD...: prints "wall_s cpu_s max_rss_kb"
  local name=$1; shift
  /usr/bin/time -v "$@" > "build/bench/gperftools-$name.out" 2> "build/bench/gperftools-$name.time"
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s }
              /User time|System time/ { c += $2 }
              /Maximum resident set size/ { m = $2 } END { print w, c, m }' "build/bench/gperftools-$name.time"
}

median() { # "wall cpu rss" lines as arguments: the median of each column
  for c in 1 2 3; do
    printf '%s\n' "$@" | awk -v c="$c" '{ print $c }' | sort -g | awk '{ v[NR] = $1 } END { printf "%s ", v[int((NR + 1) / 2)] }'
  done
  echo
}

RUNS=${RUNS:-3}
for shape in tree random; do
  IN=build/bench/gperftools-200m-$shape.prof
  [ -s "$IN" ] || build/bench/gen_gperftools "$IN" 1000000 200000 5000 "$shape"
  echo "== shape $shape: $IN, $(stat -c %s "$IN") bytes;" \
    "$("$PROFKIT" info "$IN" | sed -n 's/^samples: *\([0-9]*\) rows.*/\1 distinct stacks/p')," \
    "$("$PROFKIT" info "$IN" | sed -n 's/^stacks: *\([0-9]*\) distinct.*/\1 prefix-tree nodes/p')"
  # RUNS runs of each tool, alternating, and the median of each figure: the
  # machine is shared, and one unlucky run should not decide the ratio.
  pk_runs=() go_runs=()
  for ((i = 0; i < RUNS; i++)); do
    pk_runs+=("$(measure profkit "$PROFKIT" top "$IN")")
    go_runs+=("$(measure pprof "$PPROF" -top -symbolize=none "$IN")")
  done
  read -r pk_wall pk_cpu pk_rss < <(median "${pk_runs[@]}")
  read -r go_wall go_cpu go_rss < <(median "${go_runs[@]}")
  echo "runs (wall CPU RSS): profkit: $(printf '[%s] ' "${pk_runs[@]}")"
  echo "                     pprof:   $(printf '[%s] ' "${go_runs[@]}")"
  awk -v pw="$pk_wall" -v pc="$pk_cpu" -v pr="$pk_rss" -v gw="$go_wall" -v gc="$go_cpu" -v gr="$go_rss" 'BEGIN {
    printf "%-28s %9s %9s %13s\n", "tool", "wall (s)", "CPU (s)", "max RSS (MB)"
    printf "%-28s %9.2f %9.2f %13.1f\n", "profkit top", pw, pc, pr / 1024
    printf "%-28s %9.2f %9.2f %13.1f\n", "pprof -top -symbolize=none", gw, gc, gr / 1024
    printf "speed-up: %.1fx wall, %.1fx CPU (target >= 20x); memory: %.3f of Go pprof (target <= 0.1)\n",
      gw / pw, gc / pc, pr / gr }'
  # Both must agree on the total for the figures to mean anything.
  echo "totals: profkit $("$PROFKIT" info "$IN" | awk '$1 == "cpu" { print $4 }') ns," \
       "Go pprof $(sed -n 's/.* of \(.*\) total.*/\1/p' build/bench/gperftools-pprof.out)"
  [ "${KEEP:-0}" = 1 ] || rm -f "$IN"
done
