#!/usr/bin/env bash
# gperftools CPU profiles from ../shared/fixtures (pprof/, gperftools-real/,
# gperftools-edge/): totals and record counts as fixtures/README.md states,
# stacks equal to Go pprof's `-raw -symbolize=none` (tests/oracle/
# compare_go_folded.py allows only its signal-frame heuristic, which
# docs/formats/gperftools.md rules out), the edge rulings of docs/formats/gperftools.md where Go pprof
# or google-pprof differ, and the round trip read -> write gperftools ->
# read (same folded output; the second write byte-identical; Go pprof reads
# what we wrote).
. "$(dirname "$0")/lib.sh"
need_shared
ORACLE="$PROFKIT_SRC/tests/oracle"
PPROF="$PROFKIT_TOOLS/pprof"
[ -x "$PPROF" ] || bash "$PROFKIT_SRC/scripts/tools.sh" >/dev/null 2>&1 || true
[ -x "$PPROF" ] || { fail "Go pprof missing: run scripts/tools.sh"; finish; }

meta() { "$PROFKIT" info --no-symbolize "$1" 2>/dev/null | sed -n "s/^  $2: //p"; }
total_samples() { "$PROFKIT" info --no-symbolize "$1" 2>/dev/null | awk '$1 == "samples" && $2 == "count" { print $4 }'; }

# README numbers: file, samples, records ("" = not stated).
while read -r f samples records; do
  expect_eq "$f total samples" "$samples" "$(total_samples "$FIX/$f")"
  [ "$records" = - ] || expect_eq "$f records" "$records" "$(meta "$FIX/$f" records)"
done <<'LIST'
pprof/cppbench.cpu 712 52
pprof/go.crc32.cpu 211 -
pprof/gobench.cpu 305 -
gperftools-real/real1.prof 838 122
gperftools-real/gzip.prof 858 175
LIST
expect_eq "cppbench period" 10000 "$(meta "$FIX/pprof/cppbench.cpu" period_us)"
expect_eq "cppbench word size" 64 "$(meta "$FIX/pprof/cppbench.cpu" word_size)"
expect_eq "cppbench cpu total" "7120000000" \
  "$("$PROFKIT" info --no-symbolize "$FIX/pprof/cppbench.cpu" | awk '$1 == "cpu" { print $4 }')"

# The Java variant is refused by name, whether detected or named.
expect_status "java.cpu refused" 1 "$PROFKIT" info --no-symbolize "$FIX/pprof/java.cpu"
grep -q "not supported" "$TMP/err" && pass || fail "java.cpu: no 'not supported' in: $(cat "$TMP/err")"
expect_status "java.cpu refused (--format)" 1 "$PROFKIT" info --no-symbolize --format gperftools "$FIX/pprof/java.cpu"

# Stacks against Go pprof, for every file both read.
readable="pprof/cppbench.cpu pprof/go.crc32.cpu pprof/gobench.cpu gperftools-real/real1.prof
  gperftools-real/gzip.prof"
for f in attr_generic be32 be64 buildvar_twice garbage_after_trailer le32 maps_variants \
         no_trailer_no_maps odd_trailer ok strip_common_caller strip_one_sample; do
  readable="$readable gperftools-edge/$f.prof"
done
for f in $readable; do
  "$PPROF" -raw -symbolize=none "$FIX/$f" 2> /dev/null | python3 "$ORACLE/pprof_raw_folded.py" > "$TMP/go.folded"
  "$PROFKIT" convert --no-symbolize "$FIX/$f" --to folded --value samples > "$TMP/pk.folded" 2> /dev/null
  [ -s "$TMP/pk.folded" ] && pass || fail "$f: no folded output"
  if python3 "$ORACLE/compare_go_folded.py" "$TMP/pk.folded" "$TMP/go.folded" > "$TMP/cmp" 2>&1; then
    pass
  else
    fail "$f: stacks differ from Go pprof: $(tail -3 "$TMP/cmp")"
  fi
  # Go pprof's -top total (ms at period 10 ms or 1 ms) equals our cpu total.
  go_ms=$("$PPROF" -top -symbolize=none -unit=ms "$FIX/$f" 2>/dev/null | sed -n 's/.* of \([0-9.]*\)ms total.*/\1/p')
  pk_ns=$("$PROFKIT" info --no-symbolize "$FIX/$f" 2>/dev/null | awk '$1 == "cpu" { print $4 }')
  expect_eq "$f cpu total vs Go pprof -top" "$go_ms" "$(awk -v n="$pk_ns" 'BEGIN { printf "%g", n / 1e6 }')"
done
# Go pprof drops frames by its heuristic in these; we keep them (§4).
expect_eq "cppbench keeps the signal frame" 50 \
  "$("$PROFKIT" convert --no-symbolize "$FIX/pprof/cppbench.cpu" --to folded | grep -c '0x7f5e5414e5b0')"
expect_eq "strip_common_caller keeps callers" "0x403005;0x402005;0x401000 1
0x403005;0x402005;0x401100 1" "$("$PROFKIT" convert --no-symbolize "$FIX/gperftools-edge/strip_common_caller.prof" --to folded --value samples)"

# Edge rulings where Go pprof / google-pprof differ.
E="$FIX/gperftools-edge"
# dup_leaf: the repeated leaf PC is kept (Go pprof drops it as a duplicate).
expect_eq "dup_leaf keeps both frames" "0x402005;0x401000;0x401000 1" \
  "$("$PROFKIT" convert --no-symbolize "$E/dup_leaf.prof" --to folded --value samples | grep 0x402005)"
# odd_trailer: count 5 / depth 1 / PC 0 is a record (google-pprof stops there).
expect_eq "odd_trailer: 0x0 record" "0x0 5" "$("$PROFKIT" convert --no-symbolize "$E/odd_trailer.prof" --to folded --value samples | grep '^0x0 ')"
expect_eq "odd_trailer total" 10 "$(total_samples "$E/odd_trailer.prof")"
# no trailer: a warning, the data kept, no mappings.
expect_status "no_trailer_no_maps reads" 0 "$PROFKIT" info --no-symbolize "$E/no_trailer_no_maps.prof"
grep -q "warning: .*offset 208: no trailer" "$TMP/err" && pass || fail "no_trailer warning: $(cat "$TMP/err")"
grep -q "^mappings" "$TMP/out" && fail "no_trailer_no_maps has mappings" || pass
expect_status "no_trailer_no_maps --strict" 1 "$PROFKIT" info --no-symbolize --strict "$E/no_trailer_no_maps.prof"
# Errors with offsets instead of invented frames (Go pprof pads trunc_record
# with 0xffff... frames and reads the depth-0 record; google-pprof reads on).
while read -r f msg; do
  expect_status "$f is an error" 1 "$PROFKIT" info --no-symbolize --format gperftools "$E/$f"
  expect_eq "$f message" "profkit: error: $E/$f: $msg" "$(head -1 "$TMP/err")"
done <<'LIST'
trunc_record.prof offset 168: record: depth 10 but the input ends after 6 of its PCs
bad_depth.prof offset 168: record: depth 1000 but the input ends after 1 of its PCs
zero_count_depth.prof offset 208: record depth: expected at least 1 PC, got 0
period0.prof offset 24: header: sampling period is 0; a gperftools CPU profile needs a period > 0 (header words 0, 3, 0, period, 0)
LIST
expect_status "period0 is not detected as gperftools" 1 "$PROFKIT" info --no-symbolize "$E/period0.prof"
grep -q "unrecognized profile format" "$TMP/err" && pass || fail "period0 detection: $(cat "$TMP/err")"
# Mappings as the writer prints them: only build= substitutes ($foo stays),
# the latest build= wins (Go pprof keeps the first), non-code and
# non-/proc/self/maps lines are not mappings (Go pprof takes more forms).
maps_of() {
  "$PROFKIT" convert --no-symbolize "$1" --to gperftools -o "$TMP/m.prof" && LC_ALL=C grep -a -o '[0-9a-f]*-[0-9a-f]* r-xp .*' "$TMP/m.prof"
}
expect_eq "attr_generic mapping" "00400000-00500000 r-xp 00000000 00:00 0 \$foo/bin" "$(maps_of "$E/attr_generic.prof")"
expect_eq "buildvar_twice mapping" "00400000-00500000 r-xp 00000000 00:00 0 /second/libfoo.so" "$(maps_of "$E/buildvar_twice.prof")"
expect_eq "maps_variants mappings" "" "$(maps_of "$E/maps_variants.prof")"
expect_eq "garbage_after_trailer mapping" "00400000-00500000 r-xp 00000000 00:00 0 /bin/fake" "$(maps_of "$E/garbage_after_trailer.prof")"
expect_eq "cppbench mappings" "$(LC_ALL=C grep -a -c '[0-9a-f]-[0-9a-f]* [r-][w-]x[ps] ' "$FIX/pprof/cppbench.cpu")" \
  "$(maps_of "$FIX/pprof/cppbench.cpu" | wc -l)"

# Round trip for every readable fixture.
for f in $readable; do
  "$PROFKIT" convert --no-symbolize "$FIX/$f" --to folded > "$TMP/a.folded" 2> /dev/null
  "$PROFKIT" convert --no-symbolize "$FIX/$f" --to gperftools -o "$TMP/rt1.prof" 2> /dev/null
  "$PROFKIT" convert --no-symbolize "$TMP/rt1.prof" --to folded > "$TMP/b.folded"
  expect_files_eq "$f round trip folded" "$TMP/a.folded" "$TMP/b.folded"
  "$PROFKIT" convert --no-symbolize "$TMP/rt1.prof" -o "$TMP/rt2.gperftools"
  cmp -s "$TMP/rt1.prof" "$TMP/rt2.gperftools" && pass || fail "$f: second write differs"
  "$PPROF" -raw -symbolize=none "$TMP/rt1.prof" 2> /dev/null | python3 "$ORACLE/pprof_raw_folded.py" > "$TMP/go.folded"
  "$PROFKIT" convert --no-symbolize "$TMP/rt1.prof" --to folded --value samples > "$TMP/pk.folded"
  python3 "$ORACLE/compare_go_folded.py" "$TMP/pk.folded" "$TMP/go.folded" > "$TMP/cmp" 2>&1 && pass ||
    fail "$f: Go pprof reads our output differently: $(tail -2 "$TMP/cmp")"
done
# The reader streams: gzip, zstd and standard input read the same.
"$PROFKIT" convert --no-symbolize "$FIX/gperftools-real/real1.prof" --to folded > "$TMP/plain.folded"
gzip -c "$FIX/gperftools-real/real1.prof" > "$TMP/r1.prof.gz"
"$PROFKIT" convert --no-symbolize "$TMP/r1.prof.gz" --to folded > "$TMP/gz.folded"
expect_files_eq "gzip input" "$TMP/plain.folded" "$TMP/gz.folded"
"$PROFKIT" convert --no-symbolize - --to folded < "$FIX/gperftools-real/real1.prof" > "$TMP/stdin.folded"
expect_files_eq "stdin input" "$TMP/plain.folded" "$TMP/stdin.folded"
if command -v zstd > /dev/null; then
  zstd -q -c "$FIX/gperftools-real/real1.prof" | "$PROFKIT" convert --no-symbolize - --to folded > "$TMP/zst.folded"
  expect_files_eq "zstd input" "$TMP/plain.folded" "$TMP/zst.folded"
fi

# Another format into gperftools and back: same totals, one line per stack.
"$PROFKIT" convert --no-symbolize "$FIX/folded/perf-flamegraph.txt" --to gperftools -o "$TMP/ff.prof"
expect_eq "folded -> gperftools total" \
  "$(awk '{ s += $NF } END { print s }' "$FIX/folded/perf-flamegraph.txt")" "$(total_samples "$TMP/ff.prof")"
expect_eq "folded -> gperftools stacks" \
  "$("$PROFKIT" convert --no-symbolize "$FIX/folded/perf-flamegraph.txt" --to folded | wc -l)" \
  "$("$PROFKIT" convert --no-symbolize "$TMP/ff.prof" --to folded | wc -l)"
finish
