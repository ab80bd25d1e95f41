#!/usr/bin/env bash
# perf.data read directly (issue 27): how fast profkit reads perf.data, in
# MB/s of the file, against the way users went before: `perf script` to
# text, then that text read by profkit's perf_script reader. Two inputs
# under build/bench/:
#   - synthetic: bench/gen_perf_data.c, 1,000,000 samples (about 250 MB):
#     4 processes of 8 threads, 20,000 distinct user stacks of depth 5 to
#     40 (shared prefixes) over 50,000 addresses, one sample in five with a
#     kernel part; two CPUs' buffers interleaved in time;
#   - real (where perf may record here): `perf record -e cpu-clock -g -F
#     10000` of compiling profkit's own sources twice in parallel (cc1,
#     hundreds of short processes; about 17 MB).
# Each command runs RUNS times (default 3), alternating; the medians of
# wall time, CPU time (user + sys) and peak RSS are printed, and MB/s of
# the perf.data over CPU time (the machine is shared: wall time is noisy).
# Usage: PROFKIT=path/to/profkit bash bench/perf_data.sh   (KEEP=1 keeps the inputs)
set -euo pipefail
cd "$(dirname "$0")/.."
PROFKIT=${PROFKIT:-build/release/profkit}
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
command -v perf > /dev/null || { echo "bench: needs perf (Debian linux-perf)" >&2; exit 1; }
mkdir -p build/bench
OUT=build/bench
cc -O2 -o $OUT/gen_perf_data bench/gen_perf_data.c
HOME_SCRATCH=$(mktemp -d)
trap 'rm -rf "$HOME_SCRATCH"' EXIT
PERF() { HOME="$HOME_SCRATCH" perf "$@"; }

measure() { # NAME CMD...: prints "wall_s cpu_s max_rss_kb"
  local name=$1; shift
  /usr/bin/time -v "$@" > "$OUT/perf_data-$name.out" 2> "$OUT/perf_data-$name.time" || true
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s }
              /User time|System time/ { c += $2 }
              /Maximum resident set size/ { m = $2 } END { print w, c, m }' "$OUT/perf_data-$name.time"
}
median() { # "wall cpu rss" lines as arguments: the median of each column
  for c in 1 2 3; do
    printf '%s\n' "$@" | awk -v c="$c" '{ print $c }' | sort -g | awk '{ v[NR] = $1 } END { printf "%s ", v[int((NR + 1) / 2)] }'
  done
  echo
}
row() { # LABEL BYTES "wall cpu rss"
  echo "$3" | awk -v l="$1" -v b="$2" '{ printf "%-42s %8.2f %8.2f %9.0f %10.1f\n", l, $1, $2, b / 1e6 / $2, $3 / 1024 }'
}

inputs=()
SYN=$OUT/perf_data-synthetic.data
[ -s "$SYN" ] || $OUT/gen_perf_data "$SYN" 1000000 20000
inputs+=("$SYN")
REAL=$OUT/perf_data-real.data
if [ ! -s "$REAL" ]; then
  ls src/*/*.c src/*/*/*.c > $OUT/perf_data-sources.txt
  flags="-O2 -Isrc -Iinclude $(pkg-config --cflags yajl libzstd libelf libdw 2> /dev/null || true)"
  if PERF record -q -e cpu-clock -g -F 10000 -o "$REAL" -- \
       sh -c "xargs -P2 -I{} cc $flags -c {} -o /dev/null < $OUT/perf_data-sources.txt" > /dev/null 2>&1; then
    :
  else
    echo "note: perf record is refused here; only the synthetic input is measured"
    rm -f "$REAL"
  fi
fi
[ -s "$REAL" ] && inputs+=("$REAL")

RUNS=${RUNS:-3}
for IN in "${inputs[@]}"; do
  bytes=$(stat -c %s "$IN")
  TXT=$OUT/perf_data-script.txt
  PERF script -i "$IN" > "$TXT" 2> /dev/null
  echo "== $IN: $bytes bytes; $("$PROFKIT" info --no-symbolize "$IN" | sed -n 's/^samples: *\([0-9]*\) rows.*/\1 samples/p')," \
       "$("$PROFKIT" info --no-symbolize "$IN" | sed -n 's/^stacks: *\([0-9]*\) distinct.*/\1 stack nodes/p');" \
       "perf script's text: $(stat -c %s "$TXT") bytes"
  direct=() script=() text=()
  for ((i = 0; i < RUNS; i++)); do
    direct+=("$(measure direct "$PROFKIT" info --no-symbolize "$IN")")
    script+=("$(measure script env HOME="$HOME_SCRATCH" perf script -i "$IN")")
    text+=("$(measure text "$PROFKIT" info --no-symbolize "$TXT")")
  done
  printf "%-42s %8s %8s %9s %10s\n" "" "wall (s)" "CPU (s)" "MB/s CPU" "RSS (MB)"
  row "profkit info perf.data" "$bytes" "$(median "${direct[@]}")"
  row "perf script perf.data > text" "$bytes" "$(median "${script[@]}")"
  row "profkit info text (perf_script reader)" "$bytes" "$(median "${text[@]}")"
  # The two ways must count the same samples for the figures to compare.
  echo "samples: direct $("$PROFKIT" info --no-symbolize "$IN" | awk '$1 == "samples" && $2 == "count" {print $4}')," \
       "through the text $("$PROFKIT" info --no-symbolize "$TXT" | awk '$1 == "samples" && $2 == "count" {print $4}')"
  rm -f "$TXT"
  [ "${KEEP:-0}" = 1 ] || rm -f "$IN"
done
