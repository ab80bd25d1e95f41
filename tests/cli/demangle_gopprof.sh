#!/usr/bin/env bash
# Short demangling and inline marks against Go pprof (and list
# --diff-base --disasm on two runs of the program): a C++ program with
# std::sort over two element types and a std::map (tests/oracle/cxx_sort.cc)
# recorded with perf; profkit writes the profile as pprof with the mangled
# names (--demangle none), Go pprof demangles them its default way (no
# return type, no parameters, no template arguments) and marks inlined
# functions "(inline)"; profkit's own `top` (short demangling) must name
# the same functions with the same flat and cum, and mark the same rows.
# Where the kernel refuses perf events the test skips, naming the reason.
. "$(dirname "$0")/lib.sh"
ORACLE="$PROFKIT_SRC/tests/oracle"
PPROF="$PROFKIT_TOOLS/pprof"
[ -x "$PPROF" ] || { fail "Go pprof missing: run scripts/tools.sh"; finish; }
command -v c++ > /dev/null || { fail "c++ is missing"; finish; }
c++ -O1 -g -fno-omit-frame-pointer -o "$TMP/cxx_sort" "$ORACLE/cxx_sort.cc" ||
  { fail "cannot build cxx_sort.cc"; finish; }
need_perf
PERF record -q -e cpu-clock -F 4000 -g -o "$TMP/sort.data" "$TMP/cxx_sort" 8 > /dev/null 2>&1 ||
  fail "perf record failed"
perf_restore

"$PROFKIT" convert -q --demangle none "$TMP/sort.data" -o "$TMP/raw.pb.gz" || fail "convert --demangle none"
# Rows keyed by function and file on both sides (pprof -filefunctions: a
# function is its name and its file, as profkit's rows), the program's own
# and the STL's functions (system libraries are named from other files by
# the two tools): "NAME FILE[ (inline)]|flat|cum".
# -symbolize=remote: Go pprof demangles (its default way) without looking
# up the addresses again in the binary beside it (its own symbolizer
# attributes inlined call sites in its own way: not what is compared here).
"$PPROF" -top -filefunctions -nodecount=100000 -nodefraction=0 -edgefraction=0 -unit=ns \
  -symbolize=remote "$TMP/raw.pb.gz" 2> /dev/null | python3 -c '
import sys
on = False
for line in sys.stdin:
    f = line.split()
    if not on:
        on = f[:1] == ["flat"]
        continue
    if len(f) < 6:
        continue
    print("%s|%s|%s" % (" ".join(f[5:]), f[0].rstrip("ns"), f[3].rstrip("ns")))' |
  grep -E '^(std::|__gnu_cxx::|app::|main )' | LC_ALL=C sort > "$TMP/want"
"$PROFKIT" top -n 0 --json "$TMP/sort.data" | python3 -c '
import json, os, sys
mark = {"all": " (inline)", "partial": " (partial-inline)"}
for r in json.load(sys.stdin)["rows"]:
    n = r["name"] + (" " + os.path.normpath(r["file"]) if "file" in r else "") + mark.get(r.get("inline"), "")
    print("%s|%d|%d" % (n, r["flat"], r["cum"]))' |
  grep -E '^(std::|__gnu_cxx::|app::|main )' | LC_ALL=C sort > "$TMP/got"
[ "$(wc -l < "$TMP/want")" -ge 8 ] && pass || fail "pprof named fewer than 8 C++ functions: $(cat "$TMP/want")"
grep -q '^std::__unguarded_partition .* (inline)|' "$TMP/want" && pass ||
  fail "no inlined std::__unguarded_partition in pprof's rows"
expect_files_eq "top (short names, files, inline marks, flat, cum) = pprof -top -filefunctions" "$TMP/want" "$TMP/got"
# The text marks the same rows and shows no return type.
"$PROFKIT" top -n 0 "$TMP/sort.data" > "$TMP/top.txt"
expect_eq "text (inline) rows" "$(grep -c ' (inline)|' "$TMP/want")" \
  "$(grep -E '  (std::|__gnu_cxx::|app::)' "$TMP/top.txt" | grep -c ' (inline)$')"
grep -qE '  (bool|void|__gnu_cxx::__normal_iterator) ' "$TMP/top.txt" && fail "a return type is left: $(grep -E '  (bool|void) ' "$TMP/top.txt" | head -2)" || pass
# tree marks its inlined nodes too (std::__unguarded_partition is only ever inlined)
"$PROFKIT" tree "$TMP/sort.data" > "$TMP/tree.txt"
grep -q ' std::__unguarded_partition (inline)$' "$TMP/tree.txt" && pass ||
  fail "tree: no inlined std::__unguarded_partition node: $(grep -m2 unguarded_partition "$TMP/tree.txt")"
grep -q ' std::__unguarded_partition$' "$TMP/tree.txt" && fail "tree: an unmarked std::__unguarded_partition node" || pass
# peek marks it too
"$PROFKIT" peek '^std::__unguarded_partition$' "$TMP/sort.data" > "$TMP/peek.txt"
grep -q '| std::__unguarded_partition (inline)$' "$TMP/peek.txt" && pass || fail "peek: no (inline) mark: $(cat "$TMP/peek.txt")"
# list --diff-base --disasm: two runs of one binary, without PIE (one load
# address) and with it (ASLR: BASE's addresses are moved to NEW's load
# address by the file offset); each instruction's change adds up to the
# function's flat change, and nothing falls outside the instructions.
if "$PROFKIT" --version | grep -q '^  disasm  *yes'; then
  for pie in -no-pie -pie; do
    c++ -O1 -g -fno-omit-frame-pointer $pie -fPIE -o "$TMP/cxx$pie" "$ORACLE/cxx_sort.cc" || fail "cannot build $pie"
    perf_allow
    PERF record -q -e cpu-clock -F 4000 -g -o "$TMP/a$pie.data" "$TMP/cxx$pie" 4 > /dev/null 2>&1 || fail "perf record a $pie"
    PERF record -q -e cpu-clock -F 4000 -g -o "$TMP/b$pie.data" "$TMP/cxx$pie" 6 > /dev/null 2>&1 || fail "perf record b $pie"
    perf_restore
    "$PROFKIT" list --disasm --value samples --diff-base "$TMP/a$pie.data" '^main$' "$TMP/b$pie.data" > "$TMP/ld$pie" 2>&1 ||
      fail "list --disasm --diff-base $pie: $(tail -2 "$TMP/ld$pie")"
    expect_eq "list --disasm --diff-base $pie: instructions add up to the routine's flat change" ok "$(python3 -c '
import re, sys
lines = open(sys.argv[1]).read().splitlines()
head = [l for l in lines if "(flat, cum)" in l]
if len(head) != 1:
    print("routines: %r" % head); sys.exit()
want = int(head[0].split()[0])
got = 0
for l in lines:
    f = l.split()
    if len(f) >= 3 and re.match(r"0x[0-9a-f]+:", f[2]):
        got += 0 if f[0] == "." else int(f[0])
outside = [l for l in lines if "(at addresses outside" in l]
print("ok" if got == want and not outside and any(re.match(r"^ +[-0-9.]+ +[-0-9.]+ +0x", l) for l in lines)
      else "routine %d, instructions %d, outside: %r" % (want, got, outside))' "$TMP/ld$pie")"
  done
fi
finish
