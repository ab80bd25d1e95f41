#!/usr/bin/env bash
# A gzip or zstd file cut short keeps everything complete before the cut
# and says so: reading CUT.gz gives exactly what reading the decoded bytes
# before the cut as a plain file gives (reports and warnings), plus one
# warning naming the compressed offset and the bytes decoded. --strict
# makes the cut an error. Every cut point is tried on a few files of
# several formats, each large enough to span many deflate and zstd blocks.
. "$(dirname "$0")/lib.sh"
DATA="$PROFKIT_SRC/tests/data"

# Inputs: a large folded file, a bsprof file and a pprof file made here.
python3 -c 'print("\n".join("main;f%d;g%d;h%d %d" % (i % 500, i % 97, i, i % 13 + 1) for i in range(40000)))' > "$TMP/big.folded"
"$PROFKIT" convert -q "$TMP/big.folded" -o "$TMP/big.pb" --to pprof || fail "convert to pprof"
"$PROFKIT" convert -q "$TMP/big.folded" -o "$TMP/big.bsprof" --to bsprof || fail "convert to bsprof"
inputs=("$TMP/big.folded" "$TMP/big.pb" "$TMP/big.bsprof")

cuts=0
kept=0
for f in "${inputs[@]}"; do
  fmt=$(basename "$f" | sed 's/.*\.//; s/^pb$/pprof/')
  gzip -6n -c "$f" > "$TMP/in.gz"
  zstd -q -3 -c "$f" > "$TMP/in.zst"
  for z in gz zst; do
    size=$(stat -c %s "$TMP/in.$z")
    for frac in 10 35 60 85 99; do
      cut=$((size * frac / 100))
      head -c "$cut" "$TMP/in.$z" > "$TMP/cut.$z"
      "$PROFKIT" top --format "$fmt" -n 15 "$TMP/cut.$z" > "$TMP/got" 2> "$TMP/got.err"
      st=$?
      comp=$([ "$z" = gz ] && echo gzip || echo zstd)
      first=$(head -1 "$TMP/got.err")
      n=$(echo "$first" | sed -n "s/.*: offset $cut: $comp stream ends before its end marker (truncated file); the \([0-9]*\) bytes it decoded to before the cut are read$/\1/p")
      if [ -z "$n" ]; then fail "$fmt.$z cut at $cut: first message is not the cut warning: $first"; continue; fi
      pass
      [ "$n" -gt 0 ] && kept=$((kept + 1))
      # The same as the plain bytes before the cut, read as a file.
      head -c "$n" "$f" > "$TMP/prefix"
      "$PROFKIT" top --format "$fmt" -n 15 "$TMP/prefix" > "$TMP/want" 2> "$TMP/want.err"
      wst=$?
      expect_eq "$fmt.$z cut at $cut: exit status as the plain prefix" "$wst" "$st"
      expect_files_eq "$fmt.$z cut at $cut: report as the plain prefix" "$TMP/want" "$TMP/got"
      sed "s#$TMP/prefix#CUT#" "$TMP/want.err" > "$TMP/want.err2"
      tail -n +2 "$TMP/got.err" | sed "s#$TMP/cut.$z#CUT#" > "$TMP/got.err2"
      expect_files_eq "$fmt.$z cut at $cut: the reader's own messages as for the plain prefix" "$TMP/want.err2" "$TMP/got.err2"
      expect_status "$fmt.$z cut at $cut: --strict makes the cut an error" 1 "$PROFKIT" top --strict --format "$fmt" "$TMP/cut.$z"
      cuts=$((cuts + 1))
    done
  done
done
expect_eq "cut points tried" 30 "$cuts"
# Most cuts keep something: the comparisons above are not of empty inputs.
[ "$kept" -ge 24 ] && pass || fail "only $kept of $cuts cuts decoded any byte"
finish
