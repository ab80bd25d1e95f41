#!/usr/bin/env bash
# Profiles pushed over HTTP into a SQLite store (`profkit store serve`,
# docs/store.md "Pushing profiles"): several clients at once (curl, and
# Pyroscope-style /ingest requests: format=pprof, from, until, multipart,
# lines), two killed mid-push; the store holds exactly the completed pushes,
# each equal to its file; requests without the token, with a wrong one, a
# foreign Host, an Origin or an oversized body are refused with their status
# and a JSON error. Then `store gc` on SQLite.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store_checks.bash"
. "$(dirname "$0")/store_ingest.bash"

DB="$TMP/ingest.sqlite"
expect_status "serve with a FILE" 2 "$PROFKIT" store serve "$DB" "$PROFKIT_SRC/tests/data/folded/ok_simple.folded"
expect_status "--listen for another verb" 2 "$PROFKIT" store ls "$DB" --listen 127.0.0.1:0
expect_status "a bad --listen" 2 "$PROFKIT" store serve "$DB" --listen localhost
grep -q "listen address 'localhost': expected ADDRESS:PORT" "$TMP/err" && pass || fail "bad --listen: $(cat "$TMP/err")"
expect_status "a bad --token" 2 "$PROFKIT" store serve "$DB" --token short
expect_status "a bad --max-body" 2 "$PROFKIT" store serve "$DB" --max-body 12X
# a token from the environment is used and not printed
PROFKIT_STORE_TOKEN=env-token-0123456789abcdef serve_start "$DB" "$TMP/env.out"
expect_eq "a token from the environment is not printed" "" "$TOKEN"
TOKEN=env-token-0123456789abcdef push "name=envtoken" "$PROFKIT_SRC/tests/data/folded/ok_simple.folded" "$TMP/env"
expect_eq "the environment's token is the one wanted" 200 "$(cat "$TMP/env.status")"
serve_stop
"$PROFKIT" store rm "$DB" --where name=envtoken > /dev/null || fail "rm of the env push failed"

# --allow-host: the name agents use is answered; another is not
serve_start "$TMP/hosts.sqlite" "$TMP/hosts.out" --allow-host profiles.example
F="$PROFKIT_SRC/tests/data/folded/ok_simple.folded"
push "name=h" "$F" "$TMP/h1" -H "Host: profiles.example:$(ingest_port)"
expect_eq "a Host given with --allow-host" 200 "$(cat "$TMP/h1.status")"
push "name=h" "$F" "$TMP/h2" -H "Host: other.example:$(ingest_port)"
refused "a Host not given with --allow-host" 421 "$TMP/h2"
push "name=h" "$F" "$TMP/h3" -H "Host: localhost:$(ingest_port)"
expect_eq "localhost on loopback" 200 "$(cat "$TMP/h3.status")"
serve_stop
# IPv6, where this machine has ::1
if python3 -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2> /dev/null; then
  "$PROFKIT" store serve "$TMP/v6.sqlite" --listen '[::1]:0' > "$TMP/v6.out" 2> "$TMP/v6.err" &
  SERVE_PID=$!
  for _ in $(seq 1 100); do grep -q '^Serving' "$TMP/v6.out" && break; sleep 0.1; done
  INGEST=$(sed -n 's/^ingest: //p' "$TMP/v6.out"); TOKEN=$(sed -n 's/^token: *//p' "$TMP/v6.out")
  expect_eq "an IPv6 address" "http://[::1]:" "$(grep -o '^http://\[::1\]:' <<< "$INGEST")"
  push "name=v6" "$F" "$TMP/v6" -g
  expect_eq "a push over IPv6" 200 "$(cat "$TMP/v6.status")"
  serve_stop
else
  echo "no ::1 on this machine: the IPv6 listen is not checked"
fi

ingest_suite "$DB"

echo "== gc on SQLite"
# rm removes the shared rows no profile uses itself: gc finds none after it
GC="$TMP/gc.sqlite"
python3 "$PROFKIT_SRC/tests/store/gen_folded.py" "$TMP/gc" 12 150 7 > /dev/null
mapfile -t gc_all < <(cut -f1 "$TMP/gc/labels.tsv")
"$PROFKIT" store add "$GC" -q "${gc_all[@]}" || fail "gc: add failed"
"$PROFKIT" store rm "$GC" --where 'file~p0000[13579]' > /dev/null || fail "gc: rm failed"
mapfile -t gc_kept < <(stored_files "$GC")
STORE_REPORTS=("top -n 0" "top -n 0 --cum" "tree" "traces")
for r in "${STORE_REPORTS[@]}"; do
  # shellcheck disable=SC2086
  "$PROFKIT" $r -q --db "$GC" > "$TMP/before.$(echo "$r" | tr ' ' _)"
done
expect_status "gc after rm" 0 "$PROFKIT" store gc "$GC"
expect_eq "gc after rm finds nothing left (rm removed it)" "removed 0 unused shared rows" "$(cat "$TMP/out")"
# rows no profile uses (as a store written otherwise may hold): gc removes them
python3 - "$GC" "$PROFKIT_SRC" << 'PY' || fail "gc: the orphan rows could not be written"
import os, sqlite3, sys
sys.path.insert(0, os.path.join(sys.argv[2], "tests", "store"))
import store_tables
db = sqlite3.connect(sys.argv[1])
# (id: a row's small id; strings in blocks of 256 ids; a stack's frames:
# varints of the differences, zigzag)
def varint(v):
    out = bytearray()
    while True:
        out.append((v & 0x7f) | (0x80 if v >> 7 else 0))
        v >>= 7
        if not v:
            return bytes(out)
block = (1000011 - 1) // 256
db.execute("INSERT INTO strings VALUES (?, ?, ?)", (block, 1000013, store_tables.string_block_blob(
    block, [(1000011, b"orphan"), (1000012, b"orphan.c"), (1000013, b"orphan key")])))
db.execute("INSERT INTO functions VALUES (1000021, 1000011, 1000011, 1000012, 0, 3)")
db.execute("INSERT INTO frames VALUES (1000031, 0, 1000021, 4, 0, 0, 0, 1000013)")
db.execute("INSERT INTO stacks VALUES (1000041, ?)", (varint(2 * 1000031),))
db.commit()
PY
python3 "$PROFKIT_SRC/tests/store/store_tables.py" "$GC" | head -12 > "$TMP/gc.before"
expect_status "gc of orphan rows" 0 "$PROFKIT" store gc "$GC"
expect_eq "gc removes the four kinds of orphan rows" "removed 6 unused shared rows" "$(cat "$TMP/out")"
python3 "$PROFKIT_SRC/tests/store/store_tables.py" "$GC" | head -12 > "$TMP/gc.after"
for t in strings functions frames stacks; do
  b=$(awk -v t=$t '$1 == t { print $2 }' "$TMP/gc.before"); a=$(awk -v t=$t '$1 == t { print $2 }' "$TMP/gc.after")
  [ "$a" -lt "$b" ] && pass || fail "gc: $t did not shrink ($b -> $a)"
done
for r in "${STORE_REPORTS[@]}"; do
  # shellcheck disable=SC2086
  "$PROFKIT" $r -q --db "$GC" > "$TMP/after"
  expect_files_eq "gc: '$r' unchanged" "$TMP/before.$(echo "$r" | tr ' ' _)" "$TMP/after"
done
compare_reports "after gc" "$GC" "" "${gc_kept[@]}"
expect_status "gc with a selection" 2 "$PROFKIT" store gc "$GC" --where a=b
finish
