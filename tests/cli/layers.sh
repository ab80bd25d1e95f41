#!/usr/bin/env bash
# The shape of the tree (docs/architecture.md), from the linker's view of
# this build: no circle between files or folders, every folder uses only the
# folders below it, formats do not use each other, and the CLI uses only the
# public header; the shared library exports exactly what the public header
# declares (each declaration marked PROFKIT_API), and every other global
# name of the library's objects is internal (pk_); no file of src/ or docs/
# points at design notes beside the repository. Then the checker itself, on
# a small tree made here with one fault of each kind, must fail naming the
# files and symbols.
. "$(dirname "$0")/lib.sh"
CHECK="$PROFKIT_SRC/tests/layers/check_layers.py"
: "${PROFKIT_BUILD:?PROFKIT_BUILD must name the build directory}"
command -v nm > /dev/null || { fail "nm is missing (binutils)"; echo "1 failed"; exit 1; }

OBJ="$PROFKIT_BUILD/CMakeFiles/profkit_objects.dir"
if python3 "$CHECK" --shared "$PROFKIT_BUILD/libprofkit.so" --objects "$OBJ" "$PROFKIT_SRC/src" "$OBJ/src" \
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
# Every name is internal (pk_) but the faults' own.
mk util/base.c 'int pk_util_base(void) { return 1; }'
mk model/model.c 'int pk_util_base(void); int pk_model_get(void) { return pk_util_base(); }'
# a circle between two files of one folder
mk io/a.c 'int pk_io_b(void); int pk_io_a(void) { return pk_io_b(); }'
mk io/b.c 'int pk_io_a(void); int pk_io_b(void) { return pk_io_a() + 1; }'
# a folder below using one above it (util -> model), which is also a circle
mk util/up.c 'int pk_model_get(void); int pk_util_up(void) { return pk_model_get(); }'
# a format using another format
mk formats/one.c 'int pk_fmt_two(void); int pk_fmt_one(void) { return pk_fmt_two(); }'
mk formats/two/two.c 'int pk_fmt_two(void) { return 2; }'
mk formats/registry/registry.c 'int pk_fmt_one(void); int pk_fmt_two(void); int pk_reg(void) { return pk_fmt_one() + pk_fmt_two(); }'
# the CLI using a symbol the public header does not declare, and an internal header
mk cli/main.c 'int pk_model_get(void); int pub_call(void); int main(void) { return pk_model_get() + pub_call(); }'
printf '#include "model/model.h"\n' >> "$T/src/cli/main.c"
mk report/pub.c 'int pub_call(void) { return 0; }'
# two files with one name
mk analysis/pub.c 'int pk_other_call(void) { return 0; }'
# thirteen entries at the top of formats/
for i in 1 2 3 4 5 6 7 8 9 10; do mk "formats/f$i.c" "int pk_fmt_f$i(void) { return $i; }"; done
# a global name neither public nor pk_ (static ones are fine)
mk symbols/names.c 'int sym_helper(void) { return 3; } static int quiet(void) { return 4; } int pk_sym_names(void) { return quiet(); }'
mv "$T/obj/cli" "$T/cliobj"
# The public header: pub_call and pub_gone marked, pub_unmarked without the
# mark. The shared library exports pub_call, pub_unmarked and pk_leaked (not
# in the header), hides pk_hidden, and lacks pub_gone.
cat > "$T/public.h" <<'H'
#define PROFKIT_API __attribute__((visibility("default")))
/* PROFKIT_API int pub_commented(void); */
PROFKIT_API int pub_call(void);
PROFKIT_API int pub_gone(void);
int pub_unmarked(void);
typedef int (*pub_fn)(int);
H
printf '%s\n' '#define OUT __attribute__((visibility("default")))' \
  'OUT int pub_call(void) { return 0; }' 'OUT int pub_unmarked(void) { return 1; }' \
  'OUT int pk_leaked(void) { return 2; }' 'int pk_hidden(void) { return 3; }' > "$T/so.c"
cc -shared -fPIC -fvisibility=hidden -o "$T/libfaulty.so" "$T/so.c" -w || fail "cc libfaulty.so"

python3 "$CHECK" --shared "$T/libfaulty.so" "$T/src" "$T/obj" "$T/cliobj" "$T/public.h" > "$TMP/bad.out" 2>&1
expect_eq "the faulty tree fails" 1 $?
expect_line() { # expect_line WHAT FIXED-STRING
  if grep -qF -- "$2" "$TMP/bad.out"; then pass; else fail "$1: no line with [$2] in:"; cat "$TMP/bad.out"; fi
}
expect_line "file circle" "circle between source files io/a.c, io/b.c"
expect_line "file circle names the symbol" "io/a.c -> io/b.c: pk_io_b"
expect_line "folder circle" "circle between folders model, util"
expect_line "folder above" "util/ uses model/, a folder above it: util/up.c -> model/model.c: pk_model_get"
expect_line "format uses format" "a format uses another format: formats/one.c -> formats/two/two.c: pk_fmt_two"
expect_line "cli symbol" "cli/main.c uses pk_model_get from model/model.c, which public.h does not declare"
expect_line "cli include" "cli/main.c:2 includes model/model.h"
expect_line "unique names" "two files named pub.c: analysis/pub.c, report/pub.c"
expect_line "formats/ at most 12 entries" "formats/ has 13 entries at its top, more than 12"
expect_line "global name neither public nor pk_" "symbols/names.c defines sym_helper, a global name neither public (declared by public.h) nor internal (pk_...)"
expect_line "exported, not declared" "libfaulty.so exports pk_leaked, which public.h does not declare"
expect_line "declared, not exported" "public.h declares pub_gone, which libfaulty.so does not export"
expect_line "declared without the mark" "public.h declares pub_unmarked without PROFKIT_API"
if grep -q "pub_call\|pk_reg\b\|quiet\|pk_hidden\|pub_fn\|pub_commented" "$TMP/bad.out"; then
  fail "a declared, static, hidden or internal name or the registry was reported"; cat "$TMP/bad.out"
else
  pass
fi
# exactly the faults above: each kind once
expect_eq "one line per fault" 12 "$(grep -c '^layers: [^0-9]' "$TMP/bad.out")"

echo "$checks passed, $failures failed"
[ "$failures" -eq 0 ]
