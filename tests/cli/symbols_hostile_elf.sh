#!/usr/bin/env bash
# Hostile ELF and DWARF: a program built now (-g -O2, inlined calls) is
# profiled with libprofiler, then replaced by corrupt copies made by
# tests/oracle/elf_mutants.py (truncated at a dozen points and inside its
# debug sections; seeded bit flips in its section headers, .debug_info,
# .debug_abbrev, .debug_line, .debug_str, .symtab...). `profkit top`
# on the profile with each copy as --binary must exit 0, with no
# sanitizer report (run under the ASan+UBSan build): names, labels or a
# warning, never a crash. The intact copy names the program's functions.
. "$(dirname "$0")/lib.sh"
ORACLE="$PROFKIT_SRC/tests/oracle"
D="$TMP/src"
mkdir -p "$D"
cp "$ORACLE/inl_main.c" "$ORACLE/inl_lib.c" "$D/"
cd "$D" || exit 1
cc -g -O2 -fPIC -shared -o libinl.so inl_lib.c &&
  cc -g -O2 -fno-pie -no-pie -o prog inl_main.c -L. -linl -Wl,-rpath,"$D" -Wl,--no-as-needed -lprofiler ||
  { fail "cannot build inl_main.c against libprofiler (libgoogle-perftools-dev)"; finish; }
prof="$TMP/p.prof"
CPUPROFILE="$prof" CPUPROFILE_FREQUENCY=1000 ./prog 1500 > /dev/null 2>&1
[ -s "$prof" ] || { fail "no profile written"; finish; }
mv prog "$TMP/prog.orig"   # the mapped path is gone: only --binary is read
mkdir -p "$TMP/intact" && cp "$TMP/prog.orig" "$TMP/intact/prog"
"$PROFKIT" top -n 0 --binary "$TMP/intact/prog" "$prof" > "$TMP/top" 2> "$TMP/err"
grep -q ' hot$' "$TMP/top" && grep -Eq ' mix( \(inline\))?$' "$TMP/top" && pass || fail "intact copy: no names: $(head -5 "$TMP/top")"

python3 "$ORACLE/elf_mutants.py" "$TMP/prog.orig" "$TMP/m" > "$TMP/list" || { fail "elf_mutants.py failed"; finish; }
n=$(wc -l < "$TMP/list")
[ "$n" -ge 40 ] && pass || fail "only $n corrupt copies"
while read -r id what; do
  bin="$TMP/m/$id/prog"
  for cmd in top; do
    "$PROFKIT" "$cmd" --binary "$bin" "$prof" > "$TMP/out" 2> "$TMP/err"
    rc=$?
    if [ $rc -ne 0 ] || grep -qE 'AddressSanitizer|LeakSanitizer|runtime error|Segmentation' "$TMP/err"; then
      fail "$cmd with $what: exit $rc: $(grep -m3 -E 'ERROR|error|SUMMARY' "$TMP/err")"
    else
      pass
    fi
  done
done < "$TMP/list"
finish
