# Pushing profiles into a store over HTTP (`store serve`) and `store gc`,
# on each engine (sourced by store_ingest.sh and store_clickhouse.sh after
# lib.sh and store_checks.bash).

# serve_start DB OUT [OPTIONS...]: starts `store serve DB` in the background
# (its pid in SERVE_PID); sets INGEST (the /ingest URL) and TOKEN from what
# it prints.
serve_start() {
  local db=$1 out=$2; shift 2
  "$PROFKIT" store serve "$db" --listen 127.0.0.1:0 "$@" > "$out" 2> "$out.err" &
  SERVE_PID=$!
  INGEST=; TOKEN=
  for _ in $(seq 1 100); do
    grep -q '^Serving until' "$out" 2> /dev/null && break
    kill -0 "$SERVE_PID" 2> /dev/null || break
    sleep 0.1
  done
  INGEST=$(sed -n 's/^ingest: //p' "$out")
  TOKEN=$(sed -n 's/^token: *//p' "$out")
  [ -n "$INGEST" ] || fail "store serve $db did not start: $(cat "$out.err")"
}

# ingest_port: the port of $INGEST.
ingest_port() { sed 's|^http://.*:\([0-9]*\)/ingest$|\1|' <<< "$INGEST"; }

# serve_stop: SIGTERM, then its exit status must be 0.
serve_stop() {
  kill -TERM "$SERVE_PID" 2> /dev/null
  wait "$SERVE_PID"; local rc=$?
  expect_eq "store serve stops with status 0 on SIGTERM" 0 "$rc"
}

# push URL_QUERY FILE OUT [CURL OPTIONS...]: one push with curl; the answer
# in OUT, the status on OUT's last line.
push() {
  local query=$1 file=$2 out=$3; shift 3
  curl -sS --max-time 60 -o "$out" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$@" \
    --data-binary @"$file" "$INGEST?$query" > "$out.status" 2> "$out.err"
}

# json_field FILE KEY: a field of a JSON answer ("" when it is not JSON).
json_field() {
  python3 -c 'import json,sys
try: v = json.load(open(sys.argv[1])).get(sys.argv[2], "")
except Exception: v = "NOT-JSON"
print(str(v).lower() if isinstance(v, bool) else v)' "$1" "$2"
}

# refused WHAT STATUS OUT: the answer in OUT has status STATUS and a JSON error.
refused() {
  expect_eq "$1: status" "$2" "$(cat "$3.status")"
  local e; e=$(json_field "$3" error)
  if [ -n "$e" ] && [ "$e" != NOT-JSON ]; then pass; else fail "$1: no JSON error in the answer: $(head -c 200 "$3")"; fi
}

# ingest_suite DB: concurrent pushers (curl, Pyroscope-style requests,
# multipart, lines), clients killed mid-push, refusals; then the store
# holds exactly the completed pushes, each equal to its file.
ingest_suite() {
  local db=$1 dir="$TMP/ingest.$RANDOM" f i k
  mkdir -p "$dir"
  serve_start "$db" "$dir/serve.out" --max-body 2M
  [ -n "$INGEST" ] || return
  # the files: test data of every format profkit reads, and generated ones
  python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$dir/gen" 12 150 5 > /dev/null
  # shellcheck disable=SC2046
  local files=($(readable $(ls "$PROFKIT_SRC"/tests/data/*/ok_* | grep -v '\.expect$')) $(cut -f1 "$dir/gen/labels.tsv"))
  local n=${#files[@]}
  # four clients at once, each pushing every fourth file; pprof files go as
  # Pyroscope's agents send them (format=pprof, from, until; one client as
  # multipart/form-data), the rest with the format detected
  local clients=()
  for k in 0 1 2 3; do
    (
      for ((i = k; i < n; i += 4)); do
        f=${files[$i]}
        q="name=app%7Benv%3Dci%2Cpush%3D$i%7D"
        if [[ $f == */pprof/* ]]; then
          q="$q&from=1700000000&until=1700000010&format=pprof&sampleRate=100&spyName=gospy"
          if [ $k = 1 ]; then
            curl -sS --max-time 60 -o "$dir/push.$i" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
              -F "profile=@$f" "$INGEST?$q" > "$dir/push.$i.status" 2> "$dir/push.$i.err"
            continue
          fi
        fi
        push "$q" "$f" "$dir/push.$i"
      done
    ) &
    clients+=($!)
  done
  # a client killed mid-push: it sends half of the body it announced and
  # is killed; another, rate-limited curl, is killed while sending
  python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$dir/big" 1 20000 40 > /dev/null
  local big; big=$(cut -f1 "$dir/big/labels.tsv")
  python3 - "$INGEST" "$TOKEN" "$big" << 'EOF' &
import socket, sys, time, urllib.parse
u = urllib.parse.urlparse(sys.argv[1]); body = open(sys.argv[3], "rb").read()
s = socket.create_connection((u.hostname, u.port))
s.sendall(("POST /ingest?name=killed HTTP/1.1\r\nHost: %s:%d\r\nAuthorization: Bearer %s\r\n"
           "Content-Length: %d\r\n\r\n" % (u.hostname, u.port, sys.argv[2], len(body))).encode())
s.sendall(body[: len(body) // 2])
time.sleep(60)
EOF
  local killed=$!
  curl -sS --max-time 60 --limit-rate 50k -o /dev/null -H "Authorization: Bearer $TOKEN" --data-binary @"$big" \
    "$INGEST?name=killed2" 2> /dev/null &
  local killed2=$!
  sleep 1.5
  kill -9 "$killed" "$killed2" 2> /dev/null
  wait "${clients[@]}" "$killed" "$killed2" 2> /dev/null
  # what the pushes answered
  local ok=0 ids=() added=()
  for ((i = 0; i < n; i++)); do
    if [ "$(cat "$dir/push.$i.status" 2> /dev/null)" = 200 ]; then
      ok=$((ok + 1))
      ids+=("$(json_field "$dir/push.$i" id)")
      [ "$(json_field "$dir/push.$i" added)" = true ] && added+=("$i")
    else
      fail "push of ${files[$i]}: status $(cat "$dir/push.$i.status" 2> /dev/null): $(head -c 300 "$dir/push.$i")"
    fi
  done
  expect_eq "every complete push is stored" "$n" "$ok"
  # the store holds exactly the completed pushes: their ids, nothing of the killed ones
  "$PROFKIT" store ls "$db" --json > "$dir/ls.json" || fail "store ls --json failed"
  expect_eq "the store's profiles are the pushed ones" \
    "$(printf '%s\n' "${ids[@]}" | sort -u)" \
    "$(python3 -c 'import json,sys; [print(p["id"]) for p in json.load(open(sys.argv[1]))["profiles"]]' "$dir/ls.json" | sort -u)"
  expect_eq "nothing of the killed pushes is stored" "" \
    "$(python3 -c 'import json,sys; [print(p["id"]) for p in json.load(open(sys.argv[1]))["profiles"] if "killed" in p["labels"].get("name", []) or "killed2" in p["labels"].get("name", [])]' "$dir/ls.json")"
  # labels from the name's braces and the query
  local pp; pp=$(for i in "${added[@]}"; do [[ ${files[$i]} == */pprof/* ]] && echo "$i"; done | head -1)
  if [ -n "$pp" ]; then
    "$PROFKIT" store ls "$db" --where "push=$pp" > "$dir/pp.ls"
    for l in name=app env=ci "push=$pp" spyName=gospy sampleRate=100; do
      grep -q "labels:.*\b$l\b" "$dir/pp.ls" && pass || fail "a Pyroscope-style push lacks the label $l: $(cat "$dir/pp.ls")"
    done
  else
    fail "no pprof file was pushed"
  fi
  # each stored push equals its file
  local saved=("${STORE_REPORTS[@]}")
  STORE_REPORTS=("top -n 0" "tree")
  for i in "${added[@]}"; do
    if "$PROFKIT" top -n 0 -q --no-symbolize "${files[$i]}" > /dev/null 2>&1; then
      FILE_OPTS=--no-symbolize compare_reports "pushed ${files[$i]}" "$db" "--where push=$i" "${files[$i]}"
    else # no report on the file (no value type): none from the store either
      expect_status "pushed ${files[$i]}: no report, as on the file" 2 "$PROFKIT" top -n 0 -q --db "$db" --where "push=$i"
    fi
  done
  STORE_REPORTS=("${saved[@]}")

  # refusals, each with its status and a JSON error
  f="$PROFKIT_SRC/tests/data/folded/ok_simple.folded"
  curl -sS -o "$dir/r1" -w '%{http_code}' --data-binary @"$f" "$INGEST?name=x" > "$dir/r1.status"
  refused "no token" 401 "$dir/r1"
  TOKEN=wrong-token-0123456789 push "name=x" "$f" "$dir/r2"
  refused "a wrong token" 403 "$dir/r2"
  push "name=x" "$f" "$dir/r3" -H "Host: evil.example:$(ingest_port)"
  refused "a foreign Host" 421 "$dir/r3"
  push "name=x" "$f" "$dir/r4" -H "Origin: http://evil.example"
  refused "a request from a web page (Origin)" 403 "$dir/r4"
  head -c 3000000 /dev/zero > "$dir/zeros"
  push "name=x" "$dir/zeros" "$dir/r5"
  refused "a body over --max-body (Content-Length)" 413 "$dir/r5"
  push "name=x" "$dir/zeros" "$dir/r6" -H "Transfer-Encoding: chunked"
  refused "a chunked body over --max-body" 413 "$dir/r6"
  printf 'garbage' > "$dir/garbage"
  push "name=x&format=pprof" "$dir/garbage" "$dir/r7"
  refused "a body that is no pprof profile" 400 "$dir/r7"
  push "name=x&format=trie" "$f" "$dir/r8"
  refused "a format profkit does not read" 415 "$dir/r8"
  push "name=x%7Bbad" "$f" "$dir/r9"
  refused "a name without its closing brace" 400 "$dir/r9"
  curl -sS -o "$dir/r10" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$INGEST" > "$dir/r10.status"
  refused "GET /ingest" 405 "$dir/r10"
  expect_eq "the refused pushes added nothing" "$(printf '%s\n' "${ids[@]}" | sort -u | wc -l)" \
    "$("$PROFKIT" store ls "$db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')"
  # Pyroscope's "lines": one stack a line, each a sample
  printf 'main;a;b\nmain;a;b\nmain;c\n' > "$dir/lines.txt"
  printf 'main;a;b 2\nmain;c 1\n' > "$dir/lines.folded"
  push "name=lines%7Bkind%3Dlines%7D&format=lines&from=1700000000&until=1700000010" "$dir/lines.txt" "$dir/r11"
  expect_eq "a push of Pyroscope's lines" 200 "$(cat "$dir/r11.status")"
  STORE_REPORTS=("top -n 0")
  compare_reports "Pyroscope's lines" "$db" "--where kind=lines" "$dir/lines.folded"
  STORE_REPORTS=("${saved[@]}")
  "$PROFKIT" store ls "$db" --where kind=lines | grep -q '2023-11-14T22:13:20Z' && pass ||
    fail "the profile's time is not from= ($("$PROFKIT" store ls "$db" --where kind=lines | head -1))"
  serve_stop
}

# gc_clickhouse_suite DB KEPT_DB PORT DATABASE KEPT_DATABASE: on ClickHouse,
# add generated profiles and one pprof file, rm some (their shared rows
# stay), gc: the reports of the rest are as before, every shared table
# shrinks to the distinct rows a store of only the kept files holds.
gc_clickhouse_suite() {
  local db=$1 kept_db=$2 port=$3 d=$4 kd=$5 dir="$TMP/gc.$RANDOM" r t
  mkdir -p "$dir"
  python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$dir/gen" 12 150 9 > /dev/null
  local files=($(cut -f1 "$dir/gen/labels.tsv") "$PROFKIT_SRC/tests/data/pprof/ok_full.pb")
  "$PROFKIT" store add "$db" -q "${files[@]}" || fail "gc: add failed"
  "$PROFKIT" store rm "$db" --where 'file~(p0000[13579]\.folded|ok_full\.pb)$' > /dev/null || fail "gc: rm failed"
  local kept; mapfile -t kept < <(stored_files "$db")
  [ "${#kept[@]}" -gt 3 ] && [ "${#kept[@]}" -lt "${#files[@]}" ] && pass || fail "gc: rm kept ${#kept[@]} of ${#files[@]}"
  "$PROFKIT" store add "$kept_db" -q "${kept[@]}" || fail "gc: add of the kept files failed"
  local reports=("top -n 0" "top -n 0 --cum" "tree" "traces" "top -n 0 --by address")
  for r in "${reports[@]}"; do
    # shellcheck disable=SC2086
    "$PROFKIT" $r -q --db "$db" > "$dir/before.${r// /_}"
  done
  counts() { # the distinct ids of each shared table of database $1
    for t in stacks frames functions mappings strings; do
      echo "$t $(curl -s "http://127.0.0.1:$port/" --data-binary "SELECT count(DISTINCT id) FROM $1.$t")"
    done
  }
  counts "$d" > "$dir/counts.before"
  expect_status "store gc on ClickHouse" 0 "$PROFKIT" store gc "$db"
  grep -Eq '^removed [1-9][0-9]* unused shared rows$' "$TMP/out" && pass || fail "gc: $(cat "$TMP/out" "$TMP/err")"
  counts "$d" > "$dir/counts.after"
  for t in stacks frames functions strings; do
    local b a; b=$(awk -v t=$t '$1 == t { print $2 }' "$dir/counts.before"); a=$(awk -v t=$t '$1 == t { print $2 }' "$dir/counts.after")
    [ "$a" -lt "$b" ] 2> /dev/null && pass || fail "gc: $t did not shrink ($b -> $a)"
  done
  expect_files_eq "gc: the shared tables hold what a store of only the kept files holds" \
    <(counts "$kd") "$dir/counts.after"
  for r in "${reports[@]}"; do
    # shellcheck disable=SC2086
    "$PROFKIT" $r -q --db "$db" > "$dir/after"
    expect_files_eq "gc: '$r' unchanged" "$dir/before.${r// /_}" "$dir/after"
  done
  local saved=("${STORE_REPORTS[@]}")
  STORE_REPORTS=("top -n 0" "tree")
  compare_reports "after gc" "$db" "" "${kept[@]}"
  STORE_REPORTS=("${saved[@]}")
  expect_status "a second gc" 0 "$PROFKIT" store gc "$db"
  expect_eq "a second gc finds nothing" "removed 0 unused shared rows" "$(cat "$TMP/out")"
}
