# Helpers the benchmark scripts share; source it after setting OUT (the
# directory for scratch files). Not a benchmark itself (bench/run.sh skips it).
# Runs CMD three times under /usr/bin/time -v; prints the best run: wall and
# user+sys CPU time, throughput over each, peak RSS.
# measure LABEL BYTES CMD...
measure() {
  local label=$1 bytes=$2; shift 2
  local best="" t
  for _ in 1 2 3; do
    /usr/bin/time -v "$@" > /dev/null 2> "$OUT/time.txt"
    t=$(awk -F': ' '/Elapsed/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}
                    /User time/ {u = $2} /System time/ {y = $2}
                    /Maximum resident/ {print u + y, $2}' "$OUT/time.txt" | paste -sd' ')
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN {split(a, x, " "); split(b, y, " "); exit !(x[1] < y[1])}'; then
      best=$t
    fi
  done
  echo "$best" | awk -v l="$label" -v b="$bytes" '{
    printf "%s: %.1f MB in %.2f s wall (%.0f MB/s), %.2f s CPU (%.0f MB/s), peak RSS %.0f MB\n",
           l, b / 1e6, $1, b / 1e6 / $1, $2, b / 1e6 / $2, $3 / 1024 }'
}
