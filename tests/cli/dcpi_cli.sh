#!/usr/bin/env bash
# DCPI through the CLI: byte-exact rewrite of canonical files, generated
# profiles against the generator's own address list (bench/gen_dcpi.c,
# compiled here), several events of one image merged into columns, several
# images as threads, and `top --by address` as the per-address histogram.
. "$(dirname "$0")/lib.sh"
DATA="$PROFKIT_SRC/tests/data/dcpi"

cc -O1 -o "$TMP/gen_dcpi" "$PROFKIT_SRC/bench/gen_dcpi.c" || { fail "cannot compile bench/gen_dcpi.c"; finish; }

for f in ok_canonical.dcpi ok_pdb_epoch14.dcpi ok_no_chunks.dcpi; do
  "$PROFKIT" convert "$DATA/$f" --to dcpi -o "$TMP/$f"
  cmp -s "$DATA/$f" "$TMP/$f" && pass || fail "$f: rewrite is not byte-exact"
done
# A valid but non-canonical file (tabs, zero counts, no padding) becomes
# canonical: rewriting the rewrite changes nothing, and the counts stay.
"$PROFKIT" convert "$DATA/ok_unknown_lines.dcpi" --to dcpi -o "$TMP/u1.dcpi"
"$PROFKIT" convert "$TMP/u1.dcpi" --to dcpi -o "$TMP/u2.dcpi"
cmp -s "$TMP/u1.dcpi" "$TMP/u2.dcpi" && pass || fail "rewrite of a rewrite differs"
expect_eq "unknown lines kept verbatim, in order" "$(head -c 97 "$DATA/ok_unknown_lines.dcpi")" "$(head -c 97 "$TMP/u1.dcpi")"
expect_eq "counts survive the rewrite" "$("$PROFKIT" top -n 0 --by address "$DATA/ok_unknown_lines.dcpi")" \
  "$("$PROFKIT" top -n 0 --by address "$TMP/u1.dcpi")"

# Generated: canonical files come back byte for byte; counts match the generator.
"$TMP/gen_dcpi" "$TMP/g.dcpi" 20000 5 --canonical --expect "$TMP/g.want" 2> /dev/null
"$PROFKIT" convert "$TMP/g.dcpi" --to dcpi -o "$TMP/g2.dcpi"
cmp -s "$TMP/g.dcpi" "$TMP/g2.dcpi" && pass || fail "generated canonical file: rewrite differs"
"$TMP/gen_dcpi" "$TMP/z.dcpi" 20000 6 --density 40 --expect "$TMP/z.want" 2> /dev/null
"$PROFKIT" top -n 0 --by address "$TMP/z.dcpi" | awk 'NR > 3 {print $NF, $1}' | LC_ALL=C sort > "$TMP/z.got"
LC_ALL=C sort "$TMP/z.want" > "$TMP/z.want.sorted"
expect_files_eq "top --by address equals the generator's counts" "$TMP/z.want.sorted" "$TMP/z.got"

# Two events of one image: one thread, a value column per event, `samples`
# is the first file's event, each event writes back to its own file.
"$TMP/gen_dcpi" "$TMP/cy.dcpi" 5000 7 --event cycles --canonical 2> /dev/null
"$TMP/gen_dcpi" "$TMP/im.dcpi" 5000 8 --event imiss --canonical 2> /dev/null
"$PROFKIT" info "$TMP/cy.dcpi" "$TMP/im.dcpi" > "$TMP/info"
expect_eq "merged events: one thread" "threads:      1" "$(grep '^threads:' "$TMP/info")"
expect_eq "merged events: two value types" "value types:  2" "$(grep '^value types:' "$TMP/info")"
expect_eq "--value samples is the first event" "$("$PROFKIT" top "$TMP/cy.dcpi" "$TMP/im.dcpi" --value cycles)" \
  "$("$PROFKIT" top "$TMP/cy.dcpi" "$TMP/im.dcpi" --value samples)"
for ev in cycles imiss; do
  f=cy; [ $ev = imiss ] && f=im
  "$PROFKIT" convert "$TMP/cy.dcpi" "$TMP/im.dcpi" --to dcpi --value $ev -o "$TMP/back.dcpi"
  cmp -s "$TMP/$f.dcpi" "$TMP/back.dcpi" && pass || fail "merged profile: $ev does not write back byte-exact"
done
# hist: a column per event, each equal to top's figures for that event.
"$PROFKIT" hist -n 0 --by address "$TMP/cy.dcpi" "$TMP/im.dcpi" > "$TMP/hist"
expect_eq "hist columns" "Columns: cycles (count) total $("$PROFKIT" top "$TMP/cy.dcpi" | sed -n 's/.*total //p'); imiss (count) total $("$PROFKIT" top "$TMP/im.dcpi" | sed -n 's/.*total //p')" "$(head -1 "$TMP/hist")"
for ev in cycles imiss; do
  col=1; f=cy; [ $ev = imiss ] && { col=4; f=im; }
  awk -v c=$col 'NR > 3 && $c != 0 {print $NF, $c}' "$TMP/hist" | LC_ALL=C sort > "$TMP/h.$ev"
  "$PROFKIT" top -n 0 --by address "$TMP/$f.dcpi" | awk 'NR > 3 {print $NF, $1}' | LC_ALL=C sort > "$TMP/t.$ev"
  expect_files_eq "hist column $ev equals top of $f.dcpi" "$TMP/t.$ev" "$TMP/h.$ev"
done
# sorted by the --value column, cumulative percent reaching 100% at the end
expect_eq "hist sorted by imiss" "$(awk 'NR > 3 {print $4}' "$TMP/hist" | sort -rn | head -1)" \
  "$("$PROFKIT" hist -n 1 --by address --value imiss "$TMP/cy.dcpi" "$TMP/im.dcpi" | awk 'NR == 4 {print $4}')"
expect_eq "hist cum% ends at 100%" "100.00%" "$(tail -1 "$TMP/hist" | awk '{print $3}')"

# Another image: another thread; writing then needs --thread.
"$TMP/gen_dcpi" "$TMP/other.dcpi" 100 9 --image abc --canonical 2> /dev/null
expect_eq "two images: two threads" "threads:      2" "$("$PROFKIT" info "$TMP/cy.dcpi" "$TMP/other.dcpi" | grep '^threads:')"
expect_status "two images: writing needs --thread" 2 "$PROFKIT" convert "$TMP/cy.dcpi" "$TMP/other.dcpi" --to dcpi
"$PROFKIT" convert "$TMP/cy.dcpi" "$TMP/other.dcpi" --to dcpi --thread "image abc" -o "$TMP/o2.dcpi"
cmp -s "$TMP/other.dcpi" "$TMP/o2.dcpi" && pass || fail "--thread 'image abc' does not write back byte-exact"

# By function: symbolized from the image (here profkit itself). The image's
# first byte is at tstart (its mapping: tstart, tsize, file offset 0), so a
# DCPI address is tstart + the file offset of the instruction: a
# per-procedure histogram.
le32() { local v=$1; printf "\\x$(printf %02x $((v & 255)))\\x$(printf %02x $((v >> 8 & 255)))\\x$(printf %02x $((v >> 16 & 255)))\\x$(printf %02x $((v >> 24 & 255)))"; }
# the file offset of a virtual address, by the LOAD segment holding it
file_off() { readelf -lW "$PROFKIT" | python3 -c 'import sys
a = int(sys.argv[1])
for l in sys.stdin:
    f = l.split()
    if f and f[0] == "LOAD" and int(f[2], 16) <= a < int(f[2], 16) + int(f[4], 16):
        print(a - int(f[2], 16) + int(f[1], 16)); break' "$1"; }
va=$((16#$(nm --defined-only "$PROFKIT" | awk '$3 == "cmd_hist" {print $1}')))
vb=$((16#$(nm --defined-only "$PROFKIT" | awk '$3 == "cmd_top" {print $1}')))
a=$(file_off $va); b=$(file_off $vb)
[ "$a" -lt "$b" ] || { t=$a; a=$b; b=$t; t=$va; va=$vb; vb=$t; }
tstart=$((16#120000000))
{
  hdr=$(printf 'image 1\nepoch 9805191724\nplatform p\nevent cycles\nperiod 1\ntsize %d\ncpuspeed 1\ntstart 0x%x\n' "$(stat -c %s "$PROFKIT")" "$tstart")
  printf '%s\nsamples' "$hdr"
  pad=$(( (4 - (${#hdr} + 1 + 8) % 4) % 4 )); printf '%*s\n' "$pad" ''
  le32 $a; le32 2; le32 3; le32 2
  le32 $b; le32 1; le32 7
  le32 3; le32 12
} > "$TMP/sym.dcpi"
# (nm addresses compared as strings: awk would read 00000000000e4350 as 0e4350, 0)
"$PROFKIT" top --binary "$PROFKIT" "$TMP/sym.dcpi" | awk 'NR > 3 {print $1, $NF}' > "$TMP/sym.got"
printf '7 %s\n5 %s\n' "$(nm --defined-only "$PROFKIT" | awk -v x="$(printf %016x $vb)" '$1 "" == x "" && $2 == "T" {print $3; exit}')" \
  "$(nm --defined-only "$PROFKIT" | awk -v x="$(printf %016x $va)" '$1 "" == x "" && $2 == "T" {print $3; exit}')" > "$TMP/sym.want"
expect_files_eq "top --binary: per-procedure histogram" "$TMP/sym.want" "$TMP/sym.got"

# list --disasm: dcpilist's per-instruction listing, the counts on the
# instructions at their addresses (the image's mapping places them).
"$PROFKIT" list --disasm --binary "$PROFKIT" '^cmd_top$' "$TMP/sym.dcpi" > "$TMP/dis" 2>&1
grep -q 'no instructions' "$TMP/dis" && fail "list --disasm: $(grep 'no instructions' "$TMP/dis")" || pass
grep -Eq "^ +7 +7 +0x$(printf %x "$vb"):" "$TMP/dis" && pass || fail "list --disasm: 7 on cmd_top's first instruction: $(head -8 "$TMP/dis")"
[ "$(grep -Ec '^ +[0-9.]+ +[0-9.]+ +0x[0-9a-f]+: ' "$TMP/dis")" -gt 5 ] && pass || fail "list --disasm: instructions listed"
# The pprof export carries the image's mapping: tstart, tstart + tsize,
# file offset 0 and the path line; Go pprof names the addresses of an
# unsymbolized export from the binary through it as profkit does.
PPROF="$PROFKIT_TOOLS/pprof"
if [ -x "$PPROF" ]; then
  "$PROFKIT" convert "$DATA/ok_canonical.dcpi" --to pprof -o "$TMP/canon.pb"
  expect_eq "pprof export: the image's mapping" "1: 0x120000000/0x120001000/0x0 /usr/bin/walnut  " \
    "$("$PPROF" -raw "$TMP/canon.pb" 2> /dev/null | sed -n '/^Mappings/{n;p}')"
  "$PROFKIT" convert --no-symbolize "$TMP/sym.dcpi" --to pprof -o "$TMP/sym.pb"
  "$PPROF" -top "$PROFKIT" "$TMP/sym.pb" 2> /dev/null | awk '$NF ~ /^cmd_/ {print $1, $NF}' > "$TMP/sym.go"
  expect_files_eq "Go pprof names the export's addresses through the mapping" "$TMP/sym.want" "$TMP/sym.go"
else
  fail "Go pprof missing: run scripts/tools.sh"
fi
# info names what it looked for: the path line, or says there is none.
"$PROFKIT" info "$DATA/ok_canonical.dcpi" > "$TMP/info.c" 2>&1
grep -q '^  no file for: /usr/bin/walnut$' "$TMP/info.c" && pass || fail "info: the path it looked for: $(grep -A1 symbols "$TMP/info.c")"
"$PROFKIT" info "$TMP/sym.dcpi" > "$TMP/info.s" 2>&1
grep -q '^  no file for: the mapping at 0x120000000 without a file name (--binary names it)$' "$TMP/info.s" && pass \
  || fail "info: an image without a path line: $(grep -A1 symbols "$TMP/info.s")"
# --by module: dcpiprof -i's per-image table, also once --binary names the
# functions (where --by file turns to the source files).
"$PROFKIT" top --by module "$DATA/ok_canonical.dcpi" "$TMP/sym.dcpi" | awk 'NR > 3 {print $1, $NF}' > "$TMP/mod"
expect_eq "top --by module" "$(printf '27 /usr/bin/walnut\n12 1')" "$(cat "$TMP/mod")"
expect_eq "top --by module with --binary" "12 $PROFKIT" "$("$PROFKIT" top --by module --binary "$PROFKIT" "$TMP/sym.dcpi" | awk 'NR > 3 {print $1, $NF}')"
# Several events to one DCPI file: the left-out ones are named once.
"$PROFKIT" convert "$TMP/cy.dcpi" "$TMP/im.dcpi" --to dcpi -o "$TMP/one.dcpi" 2> "$TMP/err"
expect_eq "events left out, said once" "profkit: warning: $TMP/one.dcpi: a DCPI file holds one event: wrote cycles, left out imiss (--value EVENT writes another, one file each)" "$(cat "$TMP/err")"
cmp -s "$TMP/cy.dcpi" "$TMP/one.dcpi" && pass || fail "the default event written"
"$PROFKIT" convert -q "$TMP/cy.dcpi" "$TMP/im.dcpi" --to dcpi -o "$TMP/one.dcpi" 2> "$TMP/err"
expect_eq "-q: no warning" "" "$(cat "$TMP/err")"
# A cut file keeps the chunks before the cut, says truncated.
n=$(stat -c %s "$DATA/ok_canonical.dcpi")
head -c $((n - 6)) "$DATA/ok_canonical.dcpi" > "$TMP/cut.dcpi"
"$PROFKIT" top -n 0 --by address "$TMP/cut.dcpi" > "$TMP/cut.top" 2> "$TMP/err"
grep -q 'truncated file' "$TMP/err" && pass || fail "cut: $(cat "$TMP/err")"
expect_eq "cut: the chunks before the cut" "Value: cycles (count), total 15" "$(head -1 "$TMP/cut.top")"

# Histogram: the totals of top are the footer's sample count.
total=$("$PROFKIT" top -n 1 "$DATA/ok_canonical.dcpi" | head -1)
expect_eq "top total" "Value: cycles (count), total 27" "$total"
finish
