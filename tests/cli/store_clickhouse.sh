#!/usr/bin/env bash
# The profile store on ClickHouse (docs/store.md): Debian's clickhouse-server
# started here, twice, with configs of its own on 127.0.0.1 ports and data
# in a temporary directory; the two are the shards of a cluster. The same
# comparisons as on SQLite run on one node and on Distributed tables over
# both shards (whose local tables must both hold samples), and an add killed
# with SIGKILL leaves a store that answers for what it holds and that a
# re-add completes. The servers are stopped at the end.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store_checks.bash"
. "$(dirname "$0")/store_ingest.bash"

SERVER=/usr/sbin/clickhouse-server
if [ ! -x "$SERVER" ]; then
  echo "FAIL: $SERVER is missing: scripts/deps.sh --test installs clickhouse-server"
  exit 1
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
HTTP1=$(free_port); TCP1=$(free_port); HTTP2=$(free_port); TCP2=$(free_port); HTTPS1=$(free_port)
while [ "$(printf '%s\n' "$HTTP1" "$TCP1" "$HTTP2" "$TCP2" "$HTTPS1" | sort -u | wc -l)" != 5 ]; do
  HTTP2=$(free_port); TCP2=$(free_port); HTTPS1=$(free_port)
done
# server 1 also serves HTTPS with a certificate of its own for 127.0.0.1
# (self-signed: profkit must refuse it unless told to trust it, cafile=)
mkdir -p "$TMP/tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$TMP/tls/key.pem" -out "$TMP/tls/cert.pem" > /dev/null 2>&1 || { echo "FAIL: openssl could not make a certificate"; exit 1; }
# a user with a password of URL-special characters
PK_PASSWORD='s3cret:@/%x'
PK_PASSWORD_URL='s3cret%3A%40%2F%25x' 

pids=()
stop_servers() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$p" 2> /dev/null || break; sleep 0.2; done
    kill -9 "$p" 2> /dev/null
  done
  rm -rf "$TMP"
}
trap stop_servers EXIT

# server N HTTP TCP: config, users and data under $TMP/chN
server() {
  local n=$1 http=$2 tcp=$3 dir="$TMP/ch$1"
  mkdir -p "$dir/data" "$dir/tmp"
  cat > "$dir/users.xml" << 'XML'
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default>
    <pk><password>s3cret:@/%x</password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></pk></users>
  <quotas><default></default></quotas>
</yandex>
XML
  cat > "$dir/config.xml" << XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$dir/server.log</log><errorlog>$dir/error.log</errorlog><console>0</console></logger>
  <http_port>$http</http_port>
  <tcp_port>$tcp</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  $([ "$n" = 1 ] && echo "<https_port>$HTTPS1</https_port>")
  <openSSL><server><certificateFile>$TMP/tls/cert.pem</certificateFile><privateKeyFile>$TMP/tls/key.pem</privateKeyFile>
    <verificationMode>none</verificationMode><loadDefaultCAFile>false</loadDefaultCAFile></server></openSSL>
  <path>$dir/data/</path>
  <tmp_path>$dir/tmp/</tmp_path>
  <users_config>$dir/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>104857600</mark_cache_size>
  <max_concurrent_queries>20</max_concurrent_queries>
  <!-- every part zstd-compressed (the default is LZ4): the store's size (docs/store.md) -->
  <compression><case><min_part_size>0</min_part_size><min_part_size_ratio>0</min_part_size_ratio><method>zstd</method></case></compression>
  <remote_servers>
    <pk>
      <shard><replica><host>127.0.0.1</host><port>$TCP1</port></replica></shard>
      <shard><replica><host>127.0.0.1</host><port>$TCP2</port></replica></shard>
    </pk>
  </remote_servers>
</yandex>
XML
  "$SERVER" --config-file="$dir/config.xml" > "$dir/stdout" 2>&1 &
  pids+=($!)
}

# up HTTP PID_INDEX: waits (at most 60 s: a loaded machine) until the server answers.
up() {
  local http=$1 pid=${pids[$2]}
  for _ in $(seq 1 300); do
    [ "$(curl -s --max-time 2 "http://127.0.0.1:$http/?query=SELECT%201")" = 1 ] && return 0
    kill -0 "$pid" 2> /dev/null || return 1
    sleep 0.2
  done
  return 1
}

server 1 "$HTTP1" "$TCP1"
server 2 "$HTTP2" "$TCP2"
for i in 1 2; do
  http=$HTTP1; [ $i = 2 ] && http=$HTTP2
  if ! up "$http" $((i - 1)); then
    log=$(cat "$TMP/ch$i/stdout" "$TMP/ch$i/error.log" 2> /dev/null | tail -5)
    if grep -Eqi 'illegal instruction|SSE4|not supported by this CPU|cannot execute' <<< "$log"; then
      echo "SKIP: *** clickhouse-server cannot run on this machine: $log ***"
      exit 77
    fi
    echo "FAIL: clickhouse-server $i did not start on 127.0.0.1:$http: $log"
    exit 1
  fi
done
echo "clickhouse-server $(curl -s "http://127.0.0.1:$HTTP1/?query=SELECT%20version()") on 127.0.0.1:$HTTP1 and :$HTTP2"

ONE="clickhouse://127.0.0.1:$HTTP1/prof_one"
DIST="clickhouse://127.0.0.1:$HTTP1,127.0.0.1:$HTTP2/prof_dist?cluster=pk"

# Sample labels (pprof tags) come back as from the file, on one server and
# on the cluster; a store whose samples table predates labels gets the column.
LAB="$PROFKIT_SRC/tests/data/pprof/labels"
curl -s "http://127.0.0.1:$HTTP1/" --data-binary "CREATE DATABASE prof_nolab" > /dev/null
curl -s "http://127.0.0.1:$HTTP1/" --data-binary "CREATE TABLE prof_nolab.samples (seq Int64, stack Int64, thread Int64, vtype Int64, value Int64) ENGINE = MergeTree ORDER BY (seq, vtype, stack)" > /dev/null
for db in "clickhouse://127.0.0.1:$HTTP1/prof_labels" "clickhouse://127.0.0.1:$HTTP1,127.0.0.1:$HTTP2/prof_labels_dist?cluster=pk" \
          "clickhouse://127.0.0.1:$HTTP1/prof_nolab"; do
  "$PROFKIT" store add -q "$db" "$LAB/cpu.pb.gz" "$LAB/heap.pb.gz" > /dev/null 2> "$TMP/lab.err" ||
    fail "labels: store add to $db failed: $(head -2 "$TMP/lab.err")"
  for f in "$LAB/cpu.pb.gz" "$LAB/heap.pb.gz"; do
    expect_files_eq "labels: tags of $(basename "$f") from $db" <("$PROFKIT" tags "$f") \
      <("$PROFKIT" tags --db "$db" --where "file=$f")
  done
done

expect_status "a bad clickhouse:// URL" 1 "$PROFKIT" store ls "clickhouse://127.0.0.1:$HTTP1/bad-name"
grep -q 'expected clickhouse://' "$TMP/err" && pass || fail "bad URL: message: $(cat "$TMP/err")"
expect_status "a server that is not there" 1 "$PROFKIT" store ls "clickhouse://127.0.0.1:1/x"
grep -q 'ClickHouse at http://127.0.0.1:1/' "$TMP/err" && pass || fail "no server: message: $(cat "$TMP/err")"
# a store of the older schema (stacks as parent/frame pairs) is refused before any table is made
curl -s "http://127.0.0.1:$HTTP1/" --data-binary "CREATE DATABASE prof_old" > /dev/null
curl -s "http://127.0.0.1:$HTTP1/" --data-binary "CREATE TABLE prof_old.stacks (id Int64, parent Int64, frame Int64, depth Int64, leaf_key Int64) ENGINE = ReplacingMergeTree ORDER BY id" > /dev/null
expect_status "a store of stacks as pairs" 1 "$PROFKIT" store add "clickhouse://127.0.0.1:$HTTP1/prof_old" "$PROFKIT_SRC/tests/data/folded/ok_simple.folded"
grep -q "prof_old: the store's stacks table has a 'parent' column: it was written by an older profkit (stacks as parent/frame pairs)" "$TMP/err" && pass ||
  fail "old schema: $(cat "$TMP/err")"
expect_eq "no table is made in a store of stacks as pairs" stacks \
  "$(curl -s "http://127.0.0.1:$HTTP1/" --data-binary "SELECT name FROM system.tables WHERE database = 'prof_old'")"

# and so is one of stacks with their frames' keys beside them
curl -s "http://127.0.0.1:$HTTP1/" --data-binary "CREATE DATABASE prof_old2" > /dev/null
curl -s "http://127.0.0.1:$HTTP1/" --data-binary "CREATE TABLE prof_old2.stacks (id Int64, frames Array(Int64), keys Array(Int64)) ENGINE = ReplacingMergeTree ORDER BY id" > /dev/null
expect_status "a store of stacks with keys" 1 "$PROFKIT" top --db "clickhouse://127.0.0.1:$HTTP1/prof_old2"
grep -q "prof_old2: the store's stacks table has a 'keys' column: it was written by an older profkit (stacks as arrays of frames and keys)" "$TMP/err" && pass ||
  fail "old schema (keys): $(cat "$TMP/err")"
expect_eq "no table is made in a store of stacks with keys" stacks \
  "$(curl -s "http://127.0.0.1:$HTTP1/" --data-binary "SELECT name FROM system.tables WHERE database = 'prof_old2'")"

echo "== users, passwords, https, timeouts, a shard down"
AUTH="clickhouse://pk:$PK_PASSWORD_URL@127.0.0.1:$HTTP1/prof_auth"
F="$PROFKIT_SRC/tests/data/folded/ok_simple.folded"
expect_status "a wrong password" 1 "$PROFKIT" store ls "clickhouse://pk:wrongpass@127.0.0.1:$HTTP1/prof_auth"
grep -q 'ClickHouse answered' "$TMP/err" && pass || fail "wrong password: message: $(cat "$TMP/err")"
grep -q 'wrongpass' "$TMP/err" && fail "the password is printed: $(cat "$TMP/err")" || pass
grep -q 'clickhouse://pk:\*\*\*@127.0.0.1' "$TMP/err" && pass || fail "the store is not named without its password: $(cat "$TMP/err")"
expect_status "a user and password in the URL" 0 "$PROFKIT" store add "$AUTH" "$F"
grep -q "$PK_PASSWORD\|$PK_PASSWORD_URL" "$TMP/out" "$TMP/err" && fail "the password is printed by add" || pass
expect_eq "the profile added as user pk" 1 "$(stored_files "$AUTH" | wc -l)"
expect_eq "the user and password from the environment" 1 \
  "$(PROFKIT_CLICKHOUSE_USER=pk PROFKIT_CLICKHOUSE_PASSWORD="$PK_PASSWORD" stored_files "clickhouse://127.0.0.1:$HTTP1/prof_auth" | wc -l)"
expect_status "the environment's password, wrong" 1 env PROFKIT_CLICKHOUSE_USER=pk PROFKIT_CLICKHOUSE_PASSWORD=nope "$PROFKIT" store ls "clickhouse://127.0.0.1:$HTTP1/prof_auth"
grep -q 'nope' "$TMP/err" && fail "the environment's password is printed" || pass
TLS="clickhouse://127.0.0.1:$HTTPS1/prof_tls?secure=1"
expect_status "https: a certificate no CA vouches for is refused" 1 "$PROFKIT" store ls "$TLS"
grep -qi 'certificate' "$TMP/err" && pass || fail "https: untrusted certificate: message: $(cat "$TMP/err")"
expect_status "https with the certificate's CA" 0 "$PROFKIT" store add "$TLS&cafile=$TMP/tls/cert.pem" "$F"
expect_eq "https: the profile is there" 1 "$(stored_files "$TLS&cafile=$TMP/tls/cert.pem" | wc -l)"
expect_status "a bad timeout" 1 "$PROFKIT" store ls "clickhouse://127.0.0.1:$HTTP1/prof_auth?timeout=soon"
grep -q 'expected clickhouse://' "$TMP/err" && pass || fail "bad timeout: message: $(cat "$TMP/err")"
# a server that takes the connection and never answers: the query's timeout ends it
MUTE=$(free_port)
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8); s.settimeout(30); held = []
while True: held.append(s.accept()[0])' "$MUTE" 2> /dev/null &
mute_pid=$!
for _ in $(seq 1 100); do (exec 3<> "/dev/tcp/127.0.0.1/$MUTE") 2> /dev/null && break; sleep 0.1; done
start=$(date +%s)
expect_status "a query past its timeout" 1 "$PROFKIT" store ls "clickhouse://127.0.0.1:$MUTE/prof_mute?timeout=1"
grep -qi 'timeout was reached\|timed out' "$TMP/err" && pass || fail "timeout: message: $(cat "$TMP/err")"
[ $(( $(date +%s) - start )) -lt 10 ] && pass || fail "timeout=1 did not end the query within 10 s"
kill "$mute_pid" 2> /dev/null; wait "$mute_pid" 2> /dev/null
expect_status "a shard that is down" 1 "$PROFKIT" store ls "clickhouse://127.0.0.1:$HTTP1,127.0.0.1:1/prof_down?cluster=pk"
grep -q 'ClickHouse at http://127.0.0.1:1/ (shard 2 of 2)' "$TMP/err" && pass || fail "shard down: message: $(cat "$TMP/err")"

echo "== one node (fewer reports: the cluster below runs them all)"
saved=("${STORE_REPORTS[@]}")
STORE_REPORTS=("top -n 0" "top -n 0 --cum" "tree" "convert --to folded")
store_suite "$ONE"
STORE_REPORTS=("${saved[@]}")
echo "== two shards behind Distributed tables"
store_suite "$DIST"
echo "== day to day on the two shards"
store_day_to_day "clickhouse://127.0.0.1:$HTTP1,127.0.0.1:$HTTP2/prof_day?cluster=pk"
for port in "$HTTP1" "$HTTP2"; do
  n=$(curl -s "http://127.0.0.1:$port/?query=SELECT%20count()%20FROM%20prof_dist.samples_local")
  if [ "${n:-0}" -gt 0 ] 2> /dev/null; then pass; else fail "shard at $port holds no samples ($n)"; fi
done

# rm on the cluster: the removed profiles' own rows leave every shard's
# tables (mutations, in the background: waited for here), so those tables
# hold what a store of only the kept profiles holds; the shared rows stay
# (docs/store.md), and the reports are those of the kept files.
q() { curl -s "http://127.0.0.1:$1/" --data-binary "$2"; }
mutations_done() {
  local port _
  for _ in $(seq 1 150); do
    local busy=0
    for port in "$HTTP1" "$HTTP2"; do
      [ "$(q "$port" 'SELECT count() FROM system.mutations WHERE is_done = 0')" = 0 ] || busy=1
    done
    [ $busy = 0 ] && return 0
    sleep 0.2
  done
  return 1
}
own_counts() { # own_counts DATABASE: the rows of each profile's own table, over both shards
  local t
  for t in profiles labels meta profile_values profile_threads samples; do
    echo "$t $(q "$HTTP1" "SELECT count() FROM $1.$t")"
  done
}
python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$TMP/rm" 16 150 3 > /dev/null
mapfile -t rm_all < <(cut -f1 "$TMP/rm/labels.tsv")
RMDB="clickhouse://127.0.0.1:$HTTP1,127.0.0.1:$HTTP2/prof_rm?cluster=pk"
KEPTDB="clickhouse://127.0.0.1:$HTTP1,127.0.0.1:$HTTP2/prof_kept?cluster=pk"
"$PROFKIT" store add "$RMDB" -q "${rm_all[@]}" || fail "rm: store add failed"
"$PROFKIT" store rm "$RMDB" --where 'file~p000[01][13579]\.folded$' > "$TMP/rm.out" || fail "rm: store rm failed"
expect_eq "rm on the cluster says how many" "removed 8 profiles" "$(cat "$TMP/rm.out")"
mapfile -t rm_kept < <(stored_files "$RMDB")
"$PROFKIT" store add "$KEPTDB" -q "${rm_kept[@]}" || fail "rm: store add of the kept files failed"
mutations_done && pass || fail "rm: the mutations did not finish in 30 s"
expect_eq "after rm, each profile's own tables hold what a store of the kept ones holds" \
  "$(own_counts prof_kept)" "$(own_counts prof_rm)"
expect_eq "the tombstones: one per removed profile" 8 "$(q "$HTTP1" 'SELECT count() FROM prof_rm.removed')"
STORE_REPORTS=("top -n 0" "top -n 0 --cum" "tree")
compare_reports "after rm on the cluster" "$RMDB" "--where file~." "${rm_kept[@]}"
STORE_REPORTS=("${saved[@]}")

# A killed add on the cluster: what the store lists, it answers for in full
# (in batches of 200k: the default 16M holds all 40 files, sent at the end).
python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$TMP/kill" 40 1500 11 > /dev/null
mapfile -t all < <(cut -f1 "$TMP/kill/labels.tsv")
for delay in 0.7 2.1; do
  "$PROFKIT" store add "$DIST" -q --batch 200k --label set=kill "${all[@]}" &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  n=$(stored_files "$DIST" --where set=kill | wc -l)
  echo "killed after ${delay}s: $n of ${#all[@]} profiles in the store"
  if [ "$n" -gt 0 ]; then
    STORE_REPORTS=("top -n 0" "traces")
    # shellcheck disable=SC2046
    compare_reports "after a kill at ${delay}s" "$DIST" "--where set=kill" $(stored_files "$DIST" --where set=kill)
  fi
done
"$PROFKIT" store add "$DIST" -q --label set=kill "${all[@]}" || fail "re-add after the kills failed"
expect_eq "the re-add completes the store" "${#all[@]}" "$(stored_files "$DIST" --where set=kill | wc -l)"
STORE_REPORTS=("top -n 0" "tree" "traces")
compare_reports "after the kills and a re-add" "$DIST" "--where set=kill" "${all[@]}"

echo "== store gc: one node, then two shards"
gc_clickhouse_suite "clickhouse://127.0.0.1:$HTTP1/prof_gc" "clickhouse://127.0.0.1:$HTTP1/prof_gc_kept" \
  "$HTTP1" prof_gc prof_gc_kept
gc_clickhouse_suite "clickhouse://127.0.0.1:$HTTP1,127.0.0.1:$HTTP2/prof_gcd?cluster=pk" \
  "clickhouse://127.0.0.1:$HTTP1,127.0.0.1:$HTTP2/prof_gcd_kept?cluster=pk" "$HTTP1" prof_gcd prof_gcd_kept
echo "== profiles pushed over HTTP into the two shards (store serve)"
ingest_suite "clickhouse://127.0.0.1:$HTTP1,127.0.0.1:$HTTP2/prof_push?cluster=pk"

finish
