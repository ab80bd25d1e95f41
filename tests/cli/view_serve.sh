#!/usr/bin/env bash
# `profkit view`: serves the converted profile on 127.0.0.1 with the CORS
# headers profiler.firefox.com needs, prints the from-url address that loads
# it, answers OPTIONS and unknown paths, and stops cleanly (status 0) on
# SIGINT, even while a client holds a connection open. Every wait is bounded.
. "$(dirname "$0")/lib.sh"
command -v curl > /dev/null || { fail "curl is missing (scripts/deps.sh --test installs it)"; finish; }
IN="$PROFKIT_SRC/tests/data/folded/ok_simple.folded"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$TMP"' EXIT

# Waits (at most 30 s) for the server to print its address; sets $local, $open.
start_view() {
  rm -f "$TMP/view.out" "$TMP/view.err" # not the last server's address
  "$PROFKIT" view --no-open "$@" > "$TMP/view.out" 2> "$TMP/view.err" &
  pid=$!
  local i
  for ((i = 0; i < 300; i++)); do
    local_line=$(grep -m1 '^profile: ' "$TMP/view.out" 2> /dev/null)
    [ -n "$local_line" ] && break
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.1
  done
  local=${local_line#profile: }
  open=$(sed -n 's/^open: *//p' "$TMP/view.out")
}

# Sends SIGINT and waits (at most 10 s) for the exit; sets $status.
stop_view() {
  kill -INT "$pid"
  local i
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2> /dev/null; then
    kill -KILL "$pid"
    status="still running"
  else
    wait "$pid"
    status=$?
  fi
  pid=
}

start_view --port 0 "$IN"
case $local in
  http://127.0.0.1:[0-9]*/profile.json) pass ;;
  *) fail "no local address printed: $(cat "$TMP/view.out" "$TMP/view.err")" ;;
esac
want_open="https://profiler.firefox.com/from-url/$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$local")/"
expect_eq "profiler.firefox.com address" "$want_open" "$open"

code=$(curl -sS --max-time 20 -D "$TMP/h" -o "$TMP/body" -w '%{http_code}' "$local")
expect_eq "GET /profile.json status" 200 "$code"
expect_eq "CORS header on GET" "Access-Control-Allow-Origin: *" "$(grep -i '^access-control-allow-origin:' "$TMP/h" | tr -d '\r')"
expect_eq "content type" "Content-Type: application/json" "$(grep -i '^content-type:' "$TMP/h" | tr -d '\r')"
expect_eq "served JSON is a processed profile with the source's samples" "75 7" \
  "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = d["threads"][0]["samples"]
print(d["meta"]["preprocessedProfileVersion"], sum(s["weight"]) if s["weight"] else s["length"])' "$TMP/body" 2>&1)"
expect_eq "served bytes equal convert --to firefox" "same" \
  "$("$PROFKIT" convert "$IN" --to firefox -o "$TMP/conv.json" && cmp -s "$TMP/conv.json" "$TMP/body" && echo same)"

code=$(curl -sS --max-time 20 -X OPTIONS -D "$TMP/h2" -o /dev/null -w '%{http_code}' \
  -H 'Origin: https://profiler.firefox.com' -H 'Access-Control-Request-Method: GET' "$local")
expect_eq "OPTIONS preflight status" 204 "$code"
expect_eq "CORS header on OPTIONS" 1 "$(grep -ci '^access-control-allow-origin: \*' "$TMP/h2")"
code=$(curl -sS --max-time 20 -o /dev/null -w '%{http_code}' "${local%/profile.json}/other")
expect_eq "unknown path" 404 "$code"
code=$(curl -sS --max-time 20 -X POST -o /dev/null -w '%{http_code}' "$local")
expect_eq "POST refused" 405 "$code"
code=$(curl -sS --max-time 20 -o /dev/null -w '%{http_code}' "$local?x=1")
expect_eq "query string ignored" 200 "$code"

# A client that connects and sends nothing must not keep Ctrl-C from working.
port=${local#http://127.0.0.1:}
port=${port%%/*}
exec 3<> "/dev/tcp/127.0.0.1/$port"
sleep 0.3
stop_view
expect_eq "exit status after SIGINT (idle client connected)" 0 "$status"
exec 3>&-
expect_eq "stop message" "profkit view: stopped" "$(tail -1 "$TMP/view.err")"

# A fixed port, a value type, a thread.
start_view --port 0 --value samples --thread 0 "$IN"
code=$(curl -sS --max-time 20 -o "$TMP/body2" -w '%{http_code}' "$local")
expect_eq "GET with --value/--thread" 200 "$code"
stop_view
expect_eq "exit status after SIGINT" 0 "$status"

expect_status "view --help" 0 "$PROFKIT" view --help
grep -q '^Examples:' "$TMP/out" && pass || fail "view --help has no examples"
expect_status "view without a file" 2 "$PROFKIT" view --no-open
expect_status "view --port out of range" 2 "$PROFKIT" view --no-open --port 70000 "$IN"
expect_status "view of an unknown value type" 2 "$PROFKIT" view --no-open --value nosuch "$IN"
expect_status "view of a missing file" 1 "$PROFKIT" view --no-open "$TMP/missing.prof"
finish
