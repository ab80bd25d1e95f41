#!/usr/bin/env bash
# `profkit list REGEX`:
#   - golden output for a small pprof profile made here (protoc's text form
#     of tests/oracle/profile.proto): ROUTINE headers, each source line with
#     flat and cum ("." for zero), --source-dir, the per-line table alone
#     without source, usage errors;
#   - a program built now (tests/oracle/inl_main.c, -g -O2, inlined calls)
#     profiled with libprofiler: every function's header and every line's
#     flat and cum equal Go pprof -list's, and per-line flat sums to the
#     function's flat.
. "$(dirname "$0")/lib.sh"
ORACLE="$PROFKIT_SRC/tests/oracle"
PPROF="$PROFKIT_TOOLS/pprof"
command -v protoc > /dev/null || { fail "protoc missing: scripts/deps.sh --test"; finish; }
mkdir -p "$TMP/src/app"
cat > "$TMP/src/app/demo.c" << 'SRC'
int leaf(int x)
{
    return x * 2;
}

int work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += leaf(i);
    return s;
}
SRC
# strings: 0 "", 1 samples, 2 count, 3 leaf, 4 work, 5 main, 6 /build/app/demo.c, 7 main.c
cat > "$TMP/demo.txt" << 'PB'
sample_type { type: 1 unit: 2 }
sample { location_id: [1, 3, 4] value: [5] }
sample { location_id: [2, 4] value: [3] }
sample { location_id: [3, 4] value: [1] }
location { id: 1 line { function_id: 1 line: 3 } }
location { id: 2 line { function_id: 2 line: 9 } }
location { id: 3 line { function_id: 2 line: 10 } }
location { id: 4 line { function_id: 3 line: 4 } }
function { id: 1 name: 3 filename: 6 start_line: 1 }
function { id: 2 name: 4 filename: 6 start_line: 6 }
function { id: 3 name: 5 filename: 7 start_line: 1 }
string_table: ["", "samples", "count", "leaf", "work", "main", "/build/app/demo.c", "main.c"]
PB
protoc --encode=perftools.profiles.Profile -I "$ORACLE" profile.proto < "$TMP/demo.txt" > "$TMP/demo.pb" ||
  { fail "protoc --encode failed"; finish; }
"$PROFKIT" list --source-dir "$TMP/src" 'work|leaf' "$TMP/demo.pb" > "$TMP/out" 2>&1
cat > "$TMP/want" << 'OUT'
Value: samples (count), total 9
ROUTINE ======================== work in /build/app/demo.c
         4          9 (flat, cum) 100% of Total
         .          .      6:int work(int n)
         .          .      7:{
         .          .      8:    int s = 0;
         3          3      9:    for (int i = 0; i < n; i++)
         1          6     10:        s += leaf(i);
ROUTINE ======================== leaf in /build/app/demo.c
         5          5 (flat, cum) 55.56% of Total
         .          .      1:int leaf(int x)
         .          .      2:{
         5          5      3:    return x * 2;
OUT
expect_files_eq "list with --source-dir" "$TMP/want" "$TMP/out"
"$PROFKIT" list -n 1 --source-dir="$TMP/src/app" work "$TMP/demo.pb" | sed -n 2p > "$TMP/out"
expect_eq "--source-dir by base name, -n 1" "ROUTINE ======================== work in /build/app/demo.c" "$(cat "$TMP/out")"
"$PROFKIT" list '^work$' "$TMP/demo.pb" > "$TMP/out" 2>&1
cat > "$TMP/want" << 'OUT'
Value: samples (count), total 9
ROUTINE ======================== work in /build/app/demo.c
         4          9 (flat, cum) 100% of Total
                      (source not found: /build/app/demo.c)
         3          3      9
         1          6     10
OUT
expect_files_eq "list without source: the per-line table" "$TMP/want" "$TMP/out"
expect_eq "no match" "no function matches 'nothing'" "$("$PROFKIT" list nothing "$TMP/demo.pb" | sed -n 2p)"
expect_status "no REGEX" 2 "$PROFKIT" list
expect_status "bad REGEX" 2 "$PROFKIT" list '(' "$TMP/demo.pb"
expect_status "no file" 2 "$PROFKIT" list work
"$PROFKIT" list --help | grep -q '^Usage: profkit list' && pass || fail "list --help"

# A real program against Go pprof -list.
[ -x "$PPROF" ] || bash "$PROFKIT_SRC/scripts/tools.sh" > /dev/null 2>&1 || true
[ -x "$PPROF" ] || { fail "Go pprof missing: run scripts/tools.sh"; finish; }
D="$TMP/prog"
mkdir -p "$D"
cp "$ORACLE/inl_main.c" "$ORACLE/inl_lib.c" "$D/"
cd "$D" || exit 1
cc -g -O2 -fPIC -shared -o libinl.so inl_lib.c &&
  cc -g -O2 -fno-pie -no-pie -o prog inl_main.c -L. -linl -Wl,-rpath,"$D" -Wl,--no-as-needed -lprofiler ||
  { fail "cannot build inl_main.c against libprofiler (libgoogle-perftools-dev)"; finish; }
prof="$TMP/p.prof"
CPUPROFILE="$prof" CPUPROFILE_FREQUENCY=1000 ./prog 2000 > /dev/null 2>&1
[ -s "$prof" ] || { fail "no profile written"; finish; }
# "ROUTINE name" and "flat cum" headers, and "line flat cum" for lines with a value.
norm() {
  python3 -c '
import re, sys
for line in sys.stdin:
    if line.startswith("ROUTINE"):
        print("R", line.split()[2])
    elif "(flat, cum)" in line:
        print("H", *line.split()[:2])
    else:
        m = re.match(r"^ *(\S+) +(\S+) +([0-9]+)[: ]", line)
        if m and (m.group(1) != "." or m.group(2) != "."):
            print("L", m.group(3), m.group(1), m.group(2))'
}
for fn in hot warm step mix lib_spin lib_inner main; do
  "$PROFKIT" list "^$fn\$" "$prof" | norm > "$TMP/pk.$fn"
  "$PPROF" -list "^$fn\$" "$prof" 2> /dev/null | norm > "$TMP/go.$fn"
  [ -s "$TMP/pk.$fn" ] || { fail "$fn: nothing listed"; continue; }
  expect_files_eq "$fn: list equals Go pprof -list" "$TMP/go.$fn" "$TMP/pk.$fn"
done
"$PROFKIT" list --value samples '^(hot|warm|mix|main)$' "$prof" | norm | python3 -c '
import sys
flat, sums, name = {}, {}, None
for line in sys.stdin:
    f = line.split()
    if f[0] == "R":
        name = f[1]
        sums[name] = 0
    elif f[0] == "H":
        flat[name] = 0 if f[1] == "." else int(f[1])
    elif f[2] != ".":
        sums[name] += int(f[2])
bad = [n for n in flat if flat[n] != sums[n]]
sys.exit("per-line flat does not sum to flat: %s" % bad if bad or not flat else 0)' &&
  pass || fail "per-line flat values do not sum to the function's flat"
finish
