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

# By function: symbolized from the image (here profkit itself, whose
# addresses are its virtual addresses since DCPI profiles carry no mapping):
# a per-procedure histogram.
le32() { local v=$1; printf "\\x$(printf %02x $((v & 255)))\\x$(printf %02x $((v >> 8 & 255)))\\x$(printf %02x $((v >> 16 & 255)))\\x$(printf %02x $((v >> 24 & 255)))"; }
a=$((16#$(nm --defined-only "$PROFKIT" | awk '$3 == "cmd_hist" {print $1}')))
b=$((16#$(nm --defined-only "$PROFKIT" | awk '$3 == "cmd_top" {print $1}')))
[ "$a" -lt "$b" ] || { t=$a; a=$b; b=$t; }
{
  hdr=$(printf 'image 1\nepoch 9805191724\nplatform p\nevent cycles\nperiod 1\ntsize 1\ncpuspeed 1\ntstart 0x%x\n' "$a")
  printf '%s\nsamples' "$hdr"
  pad=$(( (4 - (${#hdr} + 1 + 8) % 4) % 4 )); printf '%*s\n' "$pad" ''
  le32 0; le32 2; le32 3; le32 2
  le32 $((b - a)); le32 1; le32 7
  le32 3; le32 12
} > "$TMP/sym.dcpi"
# (nm addresses compared as strings: awk would read 00000000000e4350 as 0e4350, 0)
"$PROFKIT" top --binary "$PROFKIT" "$TMP/sym.dcpi" | awk 'NR > 3 {print $1, $NF}' > "$TMP/sym.got"
printf '7 %s\n5 %s\n' "$(nm --defined-only "$PROFKIT" | awk -v x="$(printf %016x $b)" '$1 "" == x "" && $2 == "T" {print $3; exit}')" \
  "$(nm --defined-only "$PROFKIT" | awk -v x="$(printf %016x $a)" '$1 "" == x "" && $2 == "T" {print $3; exit}')" > "$TMP/sym.want"
expect_files_eq "top --binary: per-procedure histogram" "$TMP/sym.want" "$TMP/sym.got"

# Histogram: the totals of top are the footer's sample count.
total=$("$PROFKIT" top -n 1 "$DATA/ok_canonical.dcpi" | head -1)
expect_eq "top total" "Value: cycles (count), total 27" "$total"
finish
