#!/usr/bin/env bash
# The shape of the tree (docs/architecture.md), from the linker's view of
# this build: no circle between files or folders, every folder uses only the
# folders below it, formats do not use each other, and the CLI uses only the
# public header, and no file of src/ or docs/ points at design notes beside
# the repository. Then the checker itself, on a small tree made here with
# one fault of each kind, must fail naming the files and symbols.
. "$(dirname "$0")/lib.sh"
CHECK="$PROFKIT_SRC/tests/layers/check_layers.py"
: "${PROFKIT_BUILD:?PROFKIT_BUILD must name the build directory}"
command -v nm > /dev/null || { fail "nm is missing (binutils)"; echo "1 failed"; exit 1; }

if python3 "$CHECK" "$PROFKIT_SRC/src" "$PROFKIT_BUILD/CMakeFiles/profkit.dir/src" \
  "$PROFKIT_BUILD/CMakeFiles/profkit_cli.dir/src/cli" "$PROFKIT_SRC/include/profkit.h" > "$TMP/real.out" 2>&1; then
  pass
else
  fail "the tree breaks its layers:"
  cat "$TMP/real.out"
fi

# The project stands alone: its sources and docs never send the reader to
# design notes beside the repository (only tests and benchmarks read
# ../shared, for its fixtures).
if grep -rnE "shared/design|(FORMATS|ARCHITECTURE|ORACLES|SYMBOLS|VIEWER)\.md" \
  "$PROFKIT_SRC/src" "$PROFKIT_SRC/include" "$PROFKIT_SRC/docs" "$PROFKIT_SRC/README.md" > "$TMP/refs"; then
  fail "references to design notes outside the repository:"
  cat "$TMP/refs"
else
  pass
fi

# A tree with one fault of each kind. Sources under $T/src, objects laid out
# the same way under $T/obj, as CMake lays them out.
T="$TMP/tree"
mk() { # mk PATH CODE: writes src/PATH and compiles it to obj/PATH.o
  mkdir -p "$(dirname "$T/src/$1")" "$(dirname "$T/obj/$1")"
  printf '%s\n' "$2" > "$T/src/$1"
  cc -c -o "$T/obj/$1.o" "$T/src/$1" -w || fail "cc $1"
}
mk util/base.c 'int util_base(void) { return 1; }'
mk model/model.c 'int util_base(void); int model_get(void) { return util_base(); }'
# a circle between two files of one folder
mk io/a.c 'int io_b(void); int io_a(void) { return io_b(); }'
mk io/b.c 'int io_a(void); int io_b(void) { return io_a() + 1; }'
# a folder below using one above it (util -> model), which is also a circle
mk util/up.c 'int model_get(void); int util_up(void) { return model_get(); }'
# a format using another format
mk formats/one.c 'int fmt_two(void); int fmt_one(void) { return fmt_two(); }'
mk formats/two/two.c 'int fmt_two(void) { return 2; }'
mk formats/registry/registry.c 'int fmt_one(void); int fmt_two(void); int reg(void) { return fmt_one() + fmt_two(); }'
# the CLI using a symbol the public header does not declare, and an internal header
mk cli/main.c 'int model_get(void); int pub_call(void); int main(void) { return model_get() + pub_call(); }'
printf '#include "model/model.h"\n' >> "$T/src/cli/main.c"
mk report/pub.c 'int pub_call(void) { return 0; }'
# two files with one name
mk analysis/pub.c 'int other_call(void) { return 0; }'
# thirteen entries at the top of formats/
for i in 1 2 3 4 5 6 7 8 9 10; do mk "formats/f$i.c" "int fmt_f$i(void) { return $i; }"; done
printf 'int pub_call(void);\n' > "$T/public.h"
mv "$T/obj/cli" "$T/cliobj"

python3 "$CHECK" "$T/src" "$T/obj" "$T/cliobj" "$T/public.h" > "$TMP/bad.out" 2>&1
expect_eq "the faulty tree fails" 1 $?
expect_line() { # expect_line WHAT FIXED-STRING
  if grep -qF -- "$2" "$TMP/bad.out"; then pass; else fail "$1: no line with [$2] in:"; cat "$TMP/bad.out"; fi
}
expect_line "file circle" "circle between source files io/a.c, io/b.c"
expect_line "file circle names the symbol" "io/a.c -> io/b.c: io_b"
expect_line "folder circle" "circle between folders model, util"
expect_line "folder above" "util/ uses model/, a folder above it: util/up.c -> model/model.c: model_get"
expect_line "format uses format" "a format uses another format: formats/one.c -> formats/two/two.c: fmt_two"
expect_line "cli symbol" "cli/main.c uses model_get from model/model.c, which public.h does not declare"
expect_line "cli include" "cli/main.c:2 includes model/model.h"
expect_line "unique names" "two files named pub.c: analysis/pub.c, report/pub.c"
expect_line "formats/ at most 12 entries" "formats/ has 13 entries at its top, more than 12"
if grep -q "pub_call\|reg\b" "$TMP/bad.out"; then fail "a declared symbol or the registry was reported"; cat "$TMP/bad.out"; else pass; fi

echo "$checks passed, $failures failed"
[ "$failures" -eq 0 ]
