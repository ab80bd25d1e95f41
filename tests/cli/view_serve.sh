#!/usr/bin/env bash
# `profkit view`: by default serves profkit's own viewer page at
# http://127.0.0.1:PORT/TOKEN/ (byte for byte the page `profkit flame`
# writes, same-origin: no CORS header, its own address printed to open);
# with --firefox serves the converted profile byte for byte at
# http://127.0.0.1:PORT/TOKEN/profile.json (a new random token each run, or
# --token), prints the from-url address that loads it in the Firefox
# Profiler; either way refuses a wrong token or a traversal path (404), a foreign Host
# (421), a foreign Origin (403) and other methods (405), gives CORS only to
# profiler.firefox.com, answers 20 clients at once within a second each
# while half-open connections are held, and stops cleanly (status 0) on
# SIGINT and SIGTERM. Every wait is bounded.
. "$(dirname "$0")/lib.sh"
command -v curl > /dev/null || { fail "curl is missing (scripts/deps.sh --test installs it)"; finish; }
IN="$PROFKIT_SRC/tests/data/folded/ok_simple.folded"
FF=https://profiler.firefox.com
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$TMP"' EXIT

# Waits (at most 30 s) for the server to print its address; sets $local,
# $open, $port, $token, $base (http://127.0.0.1:PORT).
start_view() {
  rm -f "$TMP/view.out" "$TMP/view.err" # not the last server's address
  "$PROFKIT" view --no-open "$@" > "$TMP/view.out" 2> "$TMP/view.err" &
  pid=$!
  local i local_line=
  for ((i = 0; i < 300; i++)); do
    local_line=$(grep -m1 '^profile: ' "$TMP/view.out" 2> /dev/null)
    [ -n "$local_line" ] && break
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.1
  done
  local=${local_line#profile: }
  open=$(sed -n 's/^open: *//p' "$TMP/view.out")
  port=${local#http://127.0.0.1:}
  port=${port%%/*}
  token=${local#http://127.0.0.1:*/}
  token=${token%%/*}
  base=http://127.0.0.1:$port
}

# Sends a signal (default INT) and waits (at most 10 s) for the exit; sets $status.
stop_view() {
  kill "-${1:-INT}" "$pid"
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

# code WHAT WANT CURL-ARGS...: the status curl gets (headers in $TMP/h).
code() {
  local what=$1 want=$2
  shift 2
  expect_eq "$what" "$want" "$(curl -sS --max-time 20 -D "$TMP/h" -o "$TMP/b" -w '%{http_code}' "$@")"
}
hdr() { grep -i "^$1:" "$TMP/h" | tr -d '\r' | sed 's/^[^:]*: *//'; }

"$PROFKIT" convert "$IN" --to firefox -o "$TMP/conv.json" || fail "convert --to firefox"

# The default: profkit's own page, same-origin.
"$PROFKIT" flame -q "$IN" -o "$TMP/flame.html" || fail "flame -o flame.html"
start_view --port 0 "$IN"
if [[ $local =~ ^http://127\.0\.0\.1:[0-9]+/[0-9a-f]{32}/$ ]]; then pass; else
  fail "no page address with a 32-hex-digit token printed: $(cat "$TMP/view.out" "$TMP/view.err")"
fi
expect_eq "the page's own address is the one to open" "$local" "$open"
code "GET the page" 200 "$local"
expect_eq "served page equals profkit flame's" "same" "$(cmp -s "$TMP/flame.html" "$TMP/b" && echo same)"
expect_eq "page content type" "text/html; charset=utf-8" "$(hdr content-type)"
expect_eq "no CORS header for the page" "" "$(hdr access-control-allow-origin)"
grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$TMP/b" && pass || fail "the served page has no CSP"
code "GET the page as index.html" 200 "${local}index.html"
code "the page from profiler.firefox.com" 403 -H "Origin: $FF" "$local"
code "no profile.json beside the page" 404 "${local}profile.json"
code "page, wrong token" 404 "$base/0123456789abcdef0123456789abcdef/"
code "page, foreign Host" 421 -H "Host: evil.example:$port" "$local"
stop_view INT
expect_eq "exit status after SIGINT (page)" 0 "$status"
"$PROFKIT" flame -q --max-nodes 2 "$IN" -o "$TMP/flame2.html" || fail "flame --max-nodes 2"
start_view --max-nodes 2 "$IN"
code "GET the page with --max-nodes" 200 "$local"
expect_eq "--max-nodes reaches the page" "same" "$(cmp -s "$TMP/flame2.html" "$TMP/b" && echo same)"
stop_view INT

# --firefox: the Firefox Profiler hand-off.
start_view --firefox --port 0 "$IN"
if [[ $local =~ ^http://127\.0\.0\.1:[0-9]+/[0-9a-f]{32}/profile\.json$ ]]; then pass; else
  fail "no local address with a 32-hex-digit token printed: $(cat "$TMP/view.out" "$TMP/view.err")"
  finish
fi
want_open="$FF/from-url/$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$local")/"
expect_eq "profiler.firefox.com address" "$want_open" "$open"

# The profile, byte for byte, and the headers of every response.
code "GET profile.json" 200 "$local"
expect_eq "served bytes equal convert --to firefox" "same" "$(cmp -s "$TMP/conv.json" "$TMP/b" && echo same)"
expect_eq "content type" "application/json" "$(hdr content-type)"
expect_eq "no CORS header without an Origin" "" "$(hdr access-control-allow-origin)"
expect_eq "Cache-Control" "no-store" "$(hdr cache-control)"
expect_eq "X-Content-Type-Options" "nosniff" "$(hdr x-content-type-options)"
expect_eq "Referrer-Policy" "no-referrer" "$(hdr referrer-policy)"
code "GET from profiler.firefox.com" 200 -H "Origin: $FF" "$local"
expect_eq "CORS for profiler.firefox.com only" "$FF" "$(hdr access-control-allow-origin)"
expect_eq "CORS response is the profile" "same" "$(cmp -s "$TMP/conv.json" "$TMP/b" && echo same)"
code "HEAD" 200 -I "$local"
expect_eq "HEAD length" "$(wc -c < "$TMP/conv.json")" "$(hdr content-length)"
code "query string ignored" 200 "$local?x=1"
code "Host localhost:PORT" 200 -H "Host: localhost:$port" "$local"
code "same-origin Origin" 200 -H "Origin: $base" "$local"

# Refused.
wrong=$(printf '%s' "$token" | tr '0-9a-f' '1-9a-f0')
code "wrong token" 404 "$base/$wrong/profile.json"
code "no token" 404 "$base/profile.json"
code "token prefix" 404 "$base/${token:0:31}/profile.json"
code "other name" 404 "$base/$token/other"
for p in "/$token/../../etc/passwd" "/$token/%2e%2e/%2e%2e/etc/passwd" "/$token/%2E%2E/%2E%2E/etc/passwd" \
  "/$token/..%2f..%2fetc%2fpasswd" "/%2e%2e/%2e%2e/etc/passwd" "/../../etc/passwd" "/$token/../$token/profile.json"; do
  code "traversal $p" 404 --path-as-is "$base$p"
done
code "foreign Host" 421 -H 'Host: evil.example' "$local"
code "foreign Host with our port" 421 -H "Host: evil.example:$port" "$local"
code "foreign Origin" 403 -H 'Origin: https://evil.example' "$local"
expect_eq "no CORS for a foreign Origin" "" "$(hdr access-control-allow-origin)"
code "Origin null" 403 -H 'Origin: null' "$local"
code "POST" 405 -X POST --data 'x=1' "$local"
expect_eq "405 says what is allowed" "GET, HEAD" "$(hdr allow)"
code "PUT" 405 -X PUT --data 'x' "$local"
code "OPTIONS preflight from profiler.firefox.com" 204 -X OPTIONS -H "Origin: $FF" \
  -H 'Access-Control-Request-Method: GET' "$local"
expect_eq "preflight CORS header" "$FF" "$(hdr access-control-allow-origin)"
code "OPTIONS from a foreign Origin" 403 -X OPTIONS -H 'Origin: https://evil.example' \
  -H 'Access-Control-Request-Method: GET' "$local"
code "OPTIONS without an Origin" 405 -X OPTIONS "$local"

# Half-open connections (half a request line, or nothing) do not keep 20
# concurrent clients from being answered, each within a second.
for fd in 3 4 5 6 7 8; do
  eval "exec $fd<> /dev/tcp/127.0.0.1/$port"
  [ $((fd % 2)) -eq 1 ] && printf 'GET /%s' "${token:0:8}" >&$fd
done
sleep 0.3
clients=()
for i in $(seq 1 20); do
  curl -sS --max-time 1 -o "$TMP/c$i" -w '%{http_code}\n' "$local" > "$TMP/s$i" 2>&1 &
  clients+=($!)
done
wait "${clients[@]}"
ok=0
for i in $(seq 1 20); do
  if [ "$(cat "$TMP/s$i")" = 200 ] && cmp -s "$TMP/conv.json" "$TMP/c$i"; then ok=$((ok + 1)); fi
done
expect_eq "concurrent requests answered within 1 s while 6 connections are half-open" 20 "$ok"

# SIGINT with those connections still open stops it, status 0.
stop_view INT
expect_eq "exit status after SIGINT (half-open clients connected)" 0 "$status"
for fd in 3 4 5 6 7 8; do eval "exec $fd>&-"; done
expect_eq "stop message" "profkit view: stopped" "$(tail -1 "$TMP/view.err")"
first_token=$token

# A fixed port and token, --firefox, a value type, a thread; SIGTERM.
fixed=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start_view --firefox --port "$fixed" --token script-token_0123456789 --value samples --thread 0 "$IN"
expect_eq "--port and --token in the address" "http://127.0.0.1:$fixed/script-token_0123456789/profile.json" "$local"
code "GET with --value/--thread" 200 "$local"
stop_view TERM
expect_eq "exit status after SIGTERM" 0 "$status"
start_view --firefox "$IN"
expect_eq "a new random token each run" "different" "$([ -n "$token" ] && [ "$token" != "$first_token" ] && echo different)"
stop_view INT

expect_status "view --help" 0 "$PROFKIT" view --help
grep -q '^Examples:' "$TMP/out" && pass || fail "view --help has no examples"
expect_status "view without a file" 2 "$PROFKIT" view --no-open
expect_status "view --port out of range" 2 "$PROFKIT" view --no-open --port 70000 "$IN"
expect_status "view --token too short" 2 "$PROFKIT" view --no-open --token abc "$IN"
expect_status "view --token with a slash" 2 "$PROFKIT" view --no-open --token 0123456789abcdef/x "$IN"
expect_status "view of an unknown value type" 2 "$PROFKIT" view --no-open --value nosuch "$IN"
expect_status "view --firefox of an unknown value type" 2 "$PROFKIT" view --no-open --firefox --value nosuch "$IN"
expect_status "view --min-percent out of range" 2 "$PROFKIT" view --no-open --min-percent 101 "$IN"
expect_status "view of a missing file" 1 "$PROFKIT" view --no-open "$TMP/missing.prof"
finish
