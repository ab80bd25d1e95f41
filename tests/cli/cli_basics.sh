#!/usr/bin/env bash
# The command's contract: help, version, exit statuses, stdout/stderr, -o.
. "$(dirname "$0")/lib.sh"

# --version: the command's version (the header's), the library's, then each
# optional part with yes or no, in profkit_part_get's order.
version=$(sed -n 's/^#define PROFKIT_VERSION_STRING "\(.*\)"$/\1/p' "$PROFKIT_SRC/include/profkit.h")
expect_status "--version" 0 "$PROFKIT" --version
expect_eq "--version: the command" "profkit $version" "$(sed -n 1p "$TMP/out")"
expect_eq "--version: the library" "libprofkit $version, optional parts:" "$(sed -n 2p "$TMP/out")"
expect_eq "--version: the parts" "store clickhouse server disasm debuginfod" \
  "$(sed -n '3,$p' "$TMP/out" | awk '$2 == "yes" || $2 == "no" {print $1}' | xargs)"
expect_eq "--version: 7 lines" 7 "$(wc -l < "$TMP/out")"
expect_status "--help" 0 "$PROFKIT" --help
grep -q '^Usage: profkit COMMAND' "$TMP/out" && pass || fail "--help has no usage line"
expect_status "no arguments" 2 "$PROFKIT"
expect_status "unknown command" 2 "$PROFKIT" frobnicate
grep -q "unknown command 'frobnicate'" "$TMP/err" && pass || fail "unknown command message"
expect_status "--formats" 0 "$PROFKIT" --formats
grep -q '^  folded      rw' "$TMP/out" && pass || fail "--formats lists folded"

# Every subcommand has a --help with a usage line and an example.
for cmd in $("$PROFKIT" --help | awk '/^Commands:/{f=1;next} /^$/{f=0} f{print $1}'); do
  expect_status "$cmd --help" 0 "$PROFKIT" "$cmd" --help
  grep -q "^Usage: profkit $cmd" "$TMP/out" && pass || fail "$cmd --help: no usage line"
  grep -q "^Example" "$TMP/out" && pass || fail "$cmd --help: no example"
  expect_status "$cmd with a bad option" 2 "$PROFKIT" "$cmd" --no-such-option x
done

printf 'main;work;inner 5\nmain;work 3\nmain;other 2\n' > "$TMP/a.folded"
printf 'main;work 1\nmain;other;deep 4\n' > "$TMP/b.folded"

expect_status "info" 0 "$PROFKIT" info "$TMP/a.folded"
grep -q '^format:       folded' "$TMP/out" && pass || fail "info shows the format"
grep -q 'samples        count         total 10 ' "$TMP/out" && pass || fail "info total: $(cat "$TMP/out")"

# Usage errors exit 2, input errors exit 1.
expect_status "top without file" 2 "$PROFKIT" top
expect_status "top -n bad" 2 "$PROFKIT" top -n x "$TMP/a.folded"
expect_status "top --by bad" 2 "$PROFKIT" top --by nothing "$TMP/a.folded"
expect_status "top unknown value" 2 "$PROFKIT" top --value cpu "$TMP/a.folded"
grep -q "no value type 'cpu' (this profile has: samples)" "$TMP/err" && pass || fail "value error: $(cat "$TMP/err")"
expect_status "top unknown thread" 2 "$PROFKIT" top --thread nosuch "$TMP/a.folded"
expect_status "missing file" 1 "$PROFKIT" top "$TMP/missing.prof"
grep -q "profkit: error: $TMP/missing.prof: cannot open: No such file or directory" "$TMP/err" && pass || fail "missing file message: $(cat "$TMP/err")"
printf '\x00\x01\x02garbage' > "$TMP/garbage"
expect_status "unrecognized input" 1 "$PROFKIT" info "$TMP/garbage"
grep -q "unrecognized profile format" "$TMP/err" && pass || fail "unrecognized message"
expect_status "unknown --format" 1 "$PROFKIT" info --format nosuch "$TMP/a.folded"
expect_status "convert without --to or -o" 2 "$PROFKIT" convert "$TMP/a.folded"
expect_status "convert to unknown format" 2 "$PROFKIT" convert "$TMP/a.folded" --to nosuch
expect_status "convert to unknown extension" 2 "$PROFKIT" convert "$TMP/a.folded" -o "$TMP/x.unknownext"

# top: values, percentages, recursion, limits; nothing on stderr when fine.
expect_status "top" 0 "$PROFKIT" top "$TMP/a.folded"
expect_eq "top stderr is empty" "" "$(cat "$TMP/err")"
expect_eq "top header" "      flat   flat%    sum%        cum    cum%  function" "$(sed -n 3p "$TMP/out")"
expect_eq "top first row" "         5     50%     50%          5     50%  inner" "$(sed -n 4p "$TMP/out")"
expect_eq "top main row" "         0      0%    100%         10    100%  main" "$(awk '$NF=="main"{print}' "$TMP/out")"
expect_status "top -n 1 --cum" 0 "$PROFKIT" top -n 1 --cum "$TMP/a.folded"
expect_eq "top --cum row" "         0      0%      0%         10    100%  main" "$(sed -n 4p "$TMP/out")"
expect_eq "top -n 1 rows" 4 "$(wc -l < "$TMP/out")"

# Merging several files sums them.
"$PROFKIT" convert "$TMP/a.folded" "$TMP/b.folded" --to folded > "$TMP/merged"
expect_eq "merged folded" "main;other 2
main;other;deep 4
main;work 4
main;work;inner 5" "$(cat "$TMP/merged")"

# convert -o writes atomically; the extension picks the format.
expect_status "convert -o" 0 "$PROFKIT" convert "$TMP/a.folded" -o "$TMP/out.folded"
expect_eq "convert -o prints nothing" "" "$(cat "$TMP/out")"
expect_eq "no temporary left" "" "$(ls "$TMP" | grep '\.tmp\.' || true)"
expect_eq "round trip" "$(sort "$TMP/a.folded")" "$(sort "$TMP/out.folded")"
expect_status "convert -o .gz" 0 "$PROFKIT" convert "$TMP/a.folded" -o "$TMP/out.folded.gz"
expect_eq "gzip output" "$(cat "$TMP/out.folded")" "$(gzip -dc "$TMP/out.folded.gz")"
expect_status "read .gz" 0 "$PROFKIT" convert "$TMP/out.folded.gz" --to folded
expect_eq "read .gz back" "$(cat "$TMP/out.folded")" "$(cat "$TMP/out")"
# .zst compresses with zstd: the zstd tool reads it, and so does profkit.
expect_status "convert -o .zst" 0 "$PROFKIT" convert "$TMP/a.folded" -o "$TMP/out.folded.zst"
expect_eq "zstd output" "$(cat "$TMP/out.folded")" "$(zstd -dcq "$TMP/out.folded.zst")"
expect_status "read .zst" 0 "$PROFKIT" convert "$TMP/out.folded.zst" --to folded
expect_eq "read .zst back" "$(cat "$TMP/out.folded")" "$(cat "$TMP/out")"
# A large output crosses many buffers of the compressors.
python3 -c 'print("\n".join("main;f%d;g%d %d" % (i, i % 97, i + 1) for i in range(60000)))' > "$TMP/big.folded"
"$PROFKIT" convert -q "$TMP/big.folded" --to folded > "$TMP/big.out"
for z in gz zst; do
  expect_status "convert -o big.$z" 0 "$PROFKIT" convert -q "$TMP/big.folded" -o "$TMP/big.folded.$z"
  expect_eq "big .$z round trip" "$(md5sum < "$TMP/big.out")" "$("$PROFKIT" convert -q "$TMP/big.folded.$z" --to folded | md5sum)"
done
# A failed write leaves no file (directory does not exist).
expect_status "convert into a missing directory" 1 "$PROFKIT" convert "$TMP/a.folded" -o "$TMP/nodir/x.folded"

# Standard input, and zstd.
expect_eq "stdin" "$(cat "$TMP/out.folded")" "$("$PROFKIT" convert - --to folded < "$TMP/a.folded")"
if command -v zstd >/dev/null; then
  zstd -q -c "$TMP/a.folded" > "$TMP/a.folded.zst"
  expect_eq "zstd input" "$(cat "$TMP/out.folded")" "$("$PROFKIT" convert "$TMP/a.folded.zst" --to folded)"
fi

# Progress goes to a terminal only: with stderr a file, nothing is printed.
awk 'BEGIN{for(i=0;i<300000;i++) printf "main;f%d;g %d\n", i%1000, i%7+1}' > "$TMP/big.folded"
"$PROFKIT" top -n 1 "$TMP/big.folded" > /dev/null 2> "$TMP/err"
expect_eq "no progress when stderr is not a terminal" "" "$(cat "$TMP/err")"
if command -v script >/dev/null; then
  script -qec "$PROFKIT top -n 1 $TMP/big.folded $TMP/big.folded $TMP/big.folded" /dev/null > "$TMP/tty" 2>&1 || true
  grep -q 'Value: samples' "$TMP/tty" && pass || fail "top under a terminal"
fi

finish
