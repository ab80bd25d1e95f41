#!/usr/bin/env bash
# Symbolization (issue 10): a gperftools CPU profile whose PCs are inside
# real functions of /usr/bin/python3 and libc.so.6 (bench/symbols_pcs.py
# picks DISTINCT of them, default 20,000, from their symbol tables;
# bench/gen_gperftools.c writes RECORDS records, default 1,000,000 = about
# 200 MB, over 200,000 stacks of depth 5 to 40 and the two files' mappings).
#   1. `profkit top` (symbolized by default: DWARF of libc6-dbg with lines and
#      inlines, python3's symbol table) against Go pprof `-top` symbolizing
#      locally (llvm-symbolizer on this machine), same run, /usr/bin/time -v:
#      wall time ratio (target >= 25x) and peak memory (target <= 1/10);
#      the top functions of both must agree.
#   2. Distinct addresses per second: `profkit top` on a profile holding
#      each of the DISTINCT PCs once (minus the same with --no-symbolize)
#      against eu-addr2line -i -f fed the same addresses, one process per file.
# Usage: PROFKIT=path/to/profkit bash bench/symbols.sh   (RECORDS=N, DISTINCT=N,
# RUNS=N runs of each tool, default 1, medians reported; KEEP=1 keeps the input)
# The lookups are what is measured: the symbol cache is off
# (PROFKIT_SYMBOL_CACHE=0) unless the environment sets it; bench/targets.sh
# measures `top` with and without it.
set -euo pipefail
cd "$(dirname "$0")/.."
PROFKIT=${PROFKIT:-build/release/profkit}
PPROF=build/tools/pprof
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
[ -x "$PPROF" ] || bash scripts/tools.sh
OUT=build/bench/symbols
mkdir -p "$OUT"
cc -O2 -o build/bench/gen_gperftools bench/gen_gperftools.c
RECORDS=${RECORDS:-1000000}
DISTINCT=${DISTINCT:-20000}
RUNS=${RUNS:-1}
export PROFKIT_SYMBOL_CACHE=${PROFKIT_SYMBOL_CACHE:-0}

measure() { # NAME CMD...: prints "wall_s cpu_s max_rss_kb"
  local name=$1; shift
  /usr/bin/time -v "$@" > "$OUT/$name.out" 2> "$OUT/$name.time" || true  # eu-addr2line exits 1 when an address has no name
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s }
              /User time|System time/ { c += $2 }
              /Maximum resident set size/ { m = $2 } END { print w, c, m }' "$OUT/$name.time"
}
median() {
  for c in 1 2 3; do
    printf '%s\n' "$@" | awk -v c="$c" '{ print $c }' | sort -g | awk '{ v[NR] = $1 } END { printf "%s ", v[int((NR + 1) / 2)] }'
  done
  echo
}

python3 bench/symbols_pcs.py "$OUT" "$DISTINCT" > "$OUT/files.txt"
read -r PY NPY LIBC NLIBC < "$OUT/files.txt"
IN=$OUT/symbols-$RECORDS.prof
[ -s "$IN" ] || build/bench/gen_gperftools "$IN" "$RECORDS" 200000 0 tree "$OUT/pcs.txt" "$OUT/maps.txt"
echo "== $IN: $(stat -c %s "$IN") bytes, $RECORDS records, PCs: $NPY in $PY, $NLIBC in $LIBC"
pk_runs=() go_runs=()
for ((i = 0; i < RUNS; i++)); do
  pk_runs+=("$(measure profkit "$PROFKIT" top -n 20 "$IN")")
  go_runs+=("$(measure pprof "$PPROF" -top -nodecount=20 "$IN")")
done
read -r pk_wall pk_cpu pk_rss < <(median "${pk_runs[@]}")
read -r go_wall go_cpu go_rss < <(median "${go_runs[@]}")
awk -v pw="$pk_wall" -v pc="$pk_cpu" -v pr="$pk_rss" -v gw="$go_wall" -v gc="$go_cpu" -v gr="$go_rss" 'BEGIN {
  printf "%-34s %9s %9s %13s\n", "tool", "wall (s)", "CPU (s)", "max RSS (MB)"
  printf "%-34s %9.2f %9.2f %13.1f\n", "profkit top (symbolized)", pw, pc, pr / 1024
  printf "%-34s %9.2f %9.2f %13.1f\n", "pprof -top (local symbolization)", gw, gc, gr / 1024
  printf "speed-up: %.1fx wall, %.1fx CPU (target >= 25x); memory: %.3f of Go pprof (target <= 0.1)\n",
    gw / pw, gc / pc, pr / gr }'
# The figures mean something only if both name the same top functions.
pk_names=$(awk 'NR > 3 && NF >= 6 { print $6 }' "$OUT/profkit.out" | head -10)
go_names=$(awk '/flat%/ { on = 1; next } on { print $6 }' "$OUT/pprof.out" | head -10)
[ "$pk_names" = "$go_names" ] && echo "top 10 functions: the same in both" ||
  { echo "top 10 functions differ:"; paste <(echo "$pk_names") <(echo "$go_names"); }

# Distinct addresses per second.
ONE=$OUT/distinct-$DISTINCT.prof
build/bench/gen_gperftools "$ONE" "$DISTINCT" "$DISTINCT" 0 tree "$OUT/pcs.txt" "$OUT/maps.txt"
read -r sw _ _ < <(measure profkit-one "$PROFKIT" top -n 1 "$ONE")
read -r nw _ _ < <(measure profkit-none "$PROFKIT" top -n 1 --no-symbolize "$ONE")
read -r a1 _ _ < <(measure a2l-py eu-addr2line -i -f -e "$PY" < "$OUT/python3.addrs")
read -r a2 _ _ < <(measure a2l-libc eu-addr2line -i -f -e "$LIBC" < "$OUT/libc.addrs")
n=$(sort -u "$OUT/pcs.txt" | wc -l)
awk -v n="$n" -v sw="$sw" -v nw="$nw" -v a="$a1" -v b="$a2" 'BEGIN {
  s = sw - nw; if (s <= 0) s = sw
  printf "distinct addresses: %d; profkit %.2f s symbolized - %.2f s not = %.2f s: %.0f addresses/s\n", n, sw, nw, s, n / s
  printf "eu-addr2line -i -f: %.2f s (python3) + %.2f s (libc) = %.2f s: %.0f addresses/s; profkit %.1fx\n",
    a, b, a + b, n / (a + b), (a + b) / s }'
[ "${KEEP:-0}" = 1 ] || rm -f "$IN" "$ONE"
