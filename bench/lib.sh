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

# Starts Debian's clickhouse-server, one node on free 127.0.0.1 ports, its
# data under $OUT/ch; sets chpid and CH_HTTP. stop_clickhouse stops it; a
# script that starts one traps EXIT with stop_clickhouse_and_clean.
# The config is written whole here, so the server keeps none of its own
# log tables (system.query_log, part_log, and on later versions trace_log,
# metric_log, asynchronous_metric_log, text_log, ...): each is a section
# of config.xml, and a server writes only those its config has. The
# MergeTree settings are the server's defaults: the store's tables set
# what they need themselves (old_parts_lifetime: docs/store.md, "Size on
# ClickHouse"), so the figures are what a team's server gives.
chpid=
stop_clickhouse() {
  if [ -n "$chpid" ]; then kill "$chpid" 2> /dev/null || true; wait "$chpid" 2> /dev/null || true; fi
  chpid=
}
stop_clickhouse_and_clean() {
  stop_clickhouse
  rm -rf "$OUT"
}

start_clickhouse() {
  local http tcp dir="$OUT/ch"
  http=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  tcp=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$dir/data" "$dir/tmp"
  cp /etc/clickhouse-server/users.xml "$dir/users.xml"
  cat > "$dir/config.xml" << XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$dir/server.log</log><errorlog>$dir/error.log</errorlog><console>0</console></logger>
  <http_port>$http</http_port><tcp_port>$tcp</tcp_port><listen_host>127.0.0.1</listen_host>
  <path>$dir/data/</path><tmp_path>$dir/tmp/</tmp_path><users_config>$dir/users.xml</users_config>
  <default_profile>default</default_profile><default_database>default</default_database>
  <mark_cache_size>536870912</mark_cache_size>
  <!-- no query_log, part_log, ... section: no system log table (a bench or a test reads none) -->
  <!-- every part zstd-compressed (the default is LZ4): the store's size (docs/store.md) -->
  <compression><case><min_part_size>0</min_part_size><min_part_size_ratio>0</min_part_size_ratio><method>zstd</method></case></compression>
</yandex>
XML
  /usr/sbin/clickhouse-server --config-file="$dir/config.xml" > "$dir/stdout" 2>&1 &
  chpid=$!
  for _ in $(seq 1 300); do
    [ "$(curl -s "http://127.0.0.1:$http/?query=SELECT%201")" = 1 ] && break
    sleep 0.2
  done
  CH_HTTP=$http
}
