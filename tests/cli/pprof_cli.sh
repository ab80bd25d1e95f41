#!/usr/bin/env bash
# The pprof format from the command line, on the hand-made files of
# tests/data/pprof: detection of raw and gzipped protobufs (and --format for
# what the sniffer leaves alone), the writer chosen by the .pb/.pb.gz
# extension, gzip when the name ends in .gz, a byte-stable rewrite, thread
# labels that Go pprof and protoc see, and metadata kept across a round trip;
# shapes from the wild against Go pprof's -traces.
. "$(dirname "$0")/lib.sh"
D="$PROFKIT_SRC/tests/data/pprof"

# Detection: raw (sniffed) and gzipped (the source layer) without --format.
"$PROFKIT" info --no-symbolize "$D/ok_full.pb" > "$TMP/info" 2> "$TMP/err" || fail "raw pprof not detected: $(cat "$TMP/err")"
grep -q '^format:       pprof$' "$TMP/info" && pass || fail "format line: $(head -1 "$TMP/info")"
gzip -c "$D/ok_full.pb" > "$TMP/full.pb.gz"
"$PROFKIT" info --no-symbolize "$TMP/full.pb.gz" > "$TMP/info.gz" 2>&1
expect_files_eq "gzipped input reads the same" "$TMP/info" "$TMP/info.gz"
# The Go runtime's field order (time_nanos, period_type, then sample types).
"$PROFKIT" info --no-symbolize "$D/ok_go_order.pb" > "$TMP/info.go" 2> "$TMP/err" && pass || fail "Go runtime order not detected: $(cat "$TMP/err")"
grep -q '  cpu            nanoseconds   total 10000000 (10ms)  \[default\]' "$TMP/info.go" && pass || fail "ok_go_order: $(cat "$TMP/info.go")"
# Seeded random bytes are not pprof (nor anything else).
python3 -c 'import random, sys; random.seed(1); sys.stdout.buffer.write(bytes(random.randrange(256) for _ in range(4096)))' > "$TMP/random.bin"
"$PROFKIT" info --no-symbolize "$TMP/random.bin" 2>&1 | grep -q 'unrecognized profile format' && pass || fail "random bytes sniffed as a format"
# A whole small message without any sample type is the weakest claim
# (docs/formats/pprof.md): detected when nothing else claims it; bytes that
# stop inside a field are not.
"$PROFKIT" info --no-symbolize "$D/ok_empty_profile.pb" > "$TMP/info.empty" 2> "$TMP/err"
grep -q '^format:       pprof$' "$TMP/info.empty" && pass || fail "empty profile not detected: $(cat "$TMP/err")"
printf '\x32\x05ab' > "$TMP/cut.pb"
"$PROFKIT" info --no-symbolize "$TMP/cut.pb" 2>&1 | grep -q 'unrecognized profile format' && pass || fail "a cut field sniffed as pprof"
expect_status "--format pprof forces it" 0 "$PROFKIT" info --no-symbolize --format pprof "$D/ok_empty_profile.pb"

# What ok_full.pb holds (see make_data.py): two threads, inline frames,
# default sample type named by default_sample_type.
grep -q '  samples        count         total 7 (7)  \[default\]' "$TMP/info" && pass || fail "default/total: $(cat "$TMP/info")"
grep -q '  0: worker, 1 sample rows' "$TMP/info" && pass || fail "thread label"
expect_eq "folded stacks" "$(printf 'outer;inl;0x3abc 2\nouter;inl;leaf 5')" "$("$PROFKIT" convert --no-symbolize "$D/ok_full.pb" --to folded)"
expect_eq "inline frames keep their lines" "$(printf 'outer:30;inl:20;0x3abc 2\nouter:30;inl:20;leaf:10 5')" \
  "$("$PROFKIT" convert --no-symbolize "$D/ok_full.pb" --to folded --by-line)"

# Writer: the extension picks the format, .gz compresses, rewrites are stable.
"$PROFKIT" convert --no-symbolize "$D/ok_full.pb" -o "$TMP/a.pb.gz" || fail "convert -o a.pb.gz"
expect_eq "a .pb.gz output is gzip" "1f8b" "$(head -c 2 "$TMP/a.pb.gz" | od -An -tx1 | tr -d ' \n')"
"$PROFKIT" convert --no-symbolize "$TMP/a.pb.gz" -o "$TMP/b.pb" || fail "convert -o b.pb"
"$PROFKIT" convert --no-symbolize "$TMP/b.pb" -o "$TMP/c.pb" || fail "convert -o c.pb"
cmp -s "$TMP/b.pb" "$TMP/c.pb" && pass || fail "pprof -> pprof is not byte-stable"
expect_eq "first byte is the sample_type tag" "0a" "$(head -c 1 "$TMP/b.pb" | od -An -tx1 | tr -d ' \n')"
"$PROFKIT" info --no-symbolize "$TMP/b.pb" > "$TMP/info.b"
for k in 'period_type: cpu/nanoseconds' 'period: 10000000' 'time_nanos: 1700000000000000000' \
         'duration_nanos: 2000000000' 'comment: a comment' '0: worker, 1 sample rows' '1: main, 1 sample rows'; do
  grep -qF "$k" "$TMP/info.b" && pass || fail "lost in the round trip: $k"
done
expect_eq "round trip keeps the stacks" "$("$PROFKIT" convert --no-symbolize "$D/ok_full.pb" --to folded --by-line)" \
  "$("$PROFKIT" convert --no-symbolize "$TMP/b.pb" --to folded --by-line)"
# One thread selected: no thread labels, only its samples.
"$PROFKIT" convert --no-symbolize "$D/ok_full.pb" --to pprof --thread worker -o "$TMP/w.pb"
expect_eq "--thread worker" "outer;inl;0x3abc 2" "$("$PROFKIT" convert --no-symbolize "$TMP/w.pb" --to folded)"

# protoc decodes what we write, with the thread labels.
if command -v protoc > /dev/null; then
  protoc -I"$PROFKIT_SRC/tests/oracle" --decode=perftools.profiles.Profile profile.proto \
    < "$TMP/b.pb" > "$TMP/decoded" 2> "$TMP/err" && pass || fail "protoc: $(cat "$TMP/err")"
  # two thread labels, and the sample label pid=... kept
  expect_eq "three labels" "3" "$(grep -c '^  label {' "$TMP/decoded")"
  expect_eq "string table starts with \"\"" 'string_table: ""' "$(grep -m1 string_table "$TMP/decoded")"
else
  fail "protoc missing: scripts/deps.sh --test installs protobuf-compiler"
fi
# Go pprof sees the thread labels and the default sample type.
PPROF="$PROFKIT_TOOLS/pprof"
if [ -x "$PPROF" ]; then
  "$PPROF" -raw "$TMP/b.pb" > "$TMP/raw" 2> /dev/null
  grep -q 'thread:\[worker\]' "$TMP/raw" && pass || fail "Go pprof: no thread label"
  grep -q '^samples/count\[dflt\] cpu/nanoseconds$' "$TMP/raw" && pass || fail "Go pprof: default sample type"
  # Files from the wild's shapes (make_data.py): an only sample type that is
  # empty (detected, as Go reads it), a function name of every byte 0x00-0xff
  # (all kept), a delta profile whose subtree under main sums to 0 (both its
  # lines kept): folded stacks equal Go pprof's -traces, read as
  # 'root;...;leaf VALUE' lines by tests/cli/pprof_traces.py.
  for f in ok_empty_sample_type every_byte_name ok_delta; do
    got=$("$PROFKIT" info --no-symbolize "$D/$f.pb" 2> "$TMP/err" | awk '$1 == "format:" {print $2}')
    expect_eq "$f: detected" pprof "$got"
    [ $f = every_byte_name ] && continue # its name holds newlines, which -traces prints raw
    "$PPROF" -traces "$D/$f.pb" 2> /dev/null | python3 "$PROFKIT_SRC/tests/cli/pprof_traces.py" > "$TMP/want"
    "$PROFKIT" convert --no-symbolize --to folded "$D/$f.pb" | LC_ALL=C sort > "$TMP/got"
    [ -s "$TMP/want" ] && pass || fail "$f: Go pprof -traces gave nothing"
    expect_files_eq "$f: folded stacks as Go pprof -traces" "$TMP/want" "$TMP/got"
  done
  # The name is every byte, NUL first (folded turns ';', CR and LF into '_').
  python3 -c 'import sys; n = bytes(range(256)); [n := n.replace(bytes([c]), b"_") for c in b";\n\r"]; sys.stdout.buffer.write(n + b" 7\n")' > "$TMP/want"
  "$PROFKIT" convert --no-symbolize --to folded "$D/every_byte_name.pb" > "$TMP/got"
  cmp -s "$TMP/want" "$TMP/got" && pass || fail "every_byte_name: the name's 256 bytes: $(od -c "$TMP/got" | head -3)"
  "$PROFKIT" top --json --no-symbolize "$D/every_byte_name.pb" > "$TMP/top.json"
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["rows"][0]["name"]; sys.exit(r.encode("utf-8", "surrogatepass")[:128] != bytes(range(128)))' "$TMP/top.json" \
    && pass || fail "every_byte_name: top --json name is not every byte"
  # ok_nul_name (bytes 0x00-0x7f) keeps them through a JSON format too
  "$PROFKIT" convert --no-symbolize "$D/ok_nul_name.pb" --to speedscope -o "$TMP/nul.speedscope.json"
  cmp -s <("$PROFKIT" convert --no-symbolize --to folded "$D/ok_nul_name.pb") \
    <("$PROFKIT" convert --to folded "$TMP/nul.speedscope.json") && pass || fail "ok_nul_name: through speedscope"
  # and through pprof (a Line for a name that starts with NUL), which Go reads
  "$PROFKIT" convert --no-symbolize "$D/every_byte_name.pb" --to pprof -o "$TMP/every.pb"
  "$PROFKIT" convert --no-symbolize --to folded "$TMP/every.pb" > "$TMP/got"
  cmp -s "$TMP/want" "$TMP/got" && pass || fail "every_byte_name: through pprof: $(od -c "$TMP/got" | head -3)"
  "$PPROF" -raw "$TMP/every.pb" 2> /dev/null | grep -q 'ABCDEFGHIJ' && pass || fail "every_byte_name: Go pprof reads no name from profkit's pprof"
else
  fail "Go pprof missing: run scripts/tools.sh"
fi
finish
