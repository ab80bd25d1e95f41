#!/usr/bin/env bash
# The pprof reader and writer against Go pprof (docs/testing.md): every readable
# fixture under ../shared/fixtures (gperftools, folded, pprof) is read by
# profkit and written with `convert --to pprof -o x.pb.gz`; Go pprof must read
# that file, with the same total as `profkit top` and the same stacks and
# values as `profkit convert --to folded` (Go's `-raw` dump turned into folded
# stacks below). The pprof fixtures, and CPU and heap profiles that the Go
# runtime writes for a small program built here, are read by profkit and
# compared with Go pprof's dump of the original the same way (cppbench also
# with its `.string` dump). protoc decodes every file we write.
. "$(dirname "$0")/lib.sh"
need_shared
PPROF="$PROFKIT_TOOLS/pprof"
[ -x "$PPROF" ] || { fail "Go pprof missing: run scripts/tools.sh"; finish; }
command -v protoc > /dev/null || { fail "protoc missing: scripts/deps.sh --test installs protobuf-compiler"; finish; }
command -v python3 > /dev/null || { fail "python3 missing"; finish; }

# raw_folded VALUE_TYPE: Go pprof's `-raw -symbolize=none` on stdin, as merged
# folded stacks of the named value type's column (root first, inline frames
# expanded: the first Line of a location is the innermost), sorted.
raw_folded() {
  python3 -c '
import re, sys
want = sys.argv[1]
mode, col, rows, locs, cur = None, None, [], {}, None
for line in sys.stdin:
    s = line.rstrip("\n")
    if s.startswith("Samples:"): mode = "hdr"; continue
    if s.startswith("Locations"): mode = "l"; continue
    if s.startswith("Mappings"): mode = "m"; continue
    if mode == "hdr":
        col = [x.replace("[dflt]", "") for x in s.split()].index(want); mode = "s"; continue
    if mode == "s":
        m = re.match(r"^\s*(-?\d+(?:\s+-?\d+)*):((?:\s+\d+)*)\s*$", s)
        if m: rows.append((int(m.group(1).split()[col]), m.group(2).split()))
    elif mode == "l":
        m = re.match(r"^\s*(\d+): 0x([0-9a-f]+)(?: M=\d+)?(?: (.*) (\S*):(-?\d+) s=\d+)?\s*$", s)
        if m:
            cur = m.group(1)
            locs[cur] = (int(m.group(2), 16), [m.group(3)] if m.group(3) is not None else [])
            continue
        m = re.match(r"^\s+(.*) (\S*):(-?\d+) s=\d+\s*$", s)
        if m and cur: locs[cur][1].append(m.group(1))
merged = {}
for v, ids in rows:
    if v == 0: continue
    frames = []
    for i in reversed(ids):
        addr, names = locs[i]
        frames += [n.replace(";", "_") or "0x%x" % addr for n in reversed(names)] or ["0x%x" % addr]
    k = ";".join(frames)
    merged[k] = merged.get(k, 0) + v
for k in merged:
    if merged[k]: print("%s %d" % (k, merged[k]))
' "$1" | LC_ALL=C sort
}

# go_total FILE UNIT: the total of Go pprof's -top header ("of 838000000ns
# total"), in the base unit (-unit=ns / B), without the unit.
go_total() {
  local u=
  case "$2" in nanoseconds) u=-unit=ns ;; bytes) u=-unit=B ;; esac
  "$PPROF" -top -symbolize=none $u "$1" 2> /dev/null | sed -n 's/.* of \([0-9.e+]*\)[a-zA-Z]* total$/\1/p' | head -1
}
# pk_total FILE: the exact total of the default value type (profkit info).
pk_total() { "$PROFKIT" info --no-symbolize "$1" 2> /dev/null | sed -n 's/^  [^ ]* *[^ ]* *total \(-*[0-9]*\) .*\[default\]$/\1/p'; }
# pk_unit FILE: the unit of the default value type.
pk_unit() { "$PROFKIT" info --no-symbolize "$1" 2> /dev/null | sed -n 's/^  [^ ]* *\([^ ]*\) .*\[default\]$/\1/p'; }
# go_type FILE: the sample type Go pprof picks by default ("Type: cpu").
go_type() { "$PPROF" -top -symbolize=none "$1" 2> /dev/null | sed -n 's/^Type: //p'; }
# default value type name of a profile read by profkit
pk_default() { "$PROFKIT" info --no-symbolize "$1" | sed -n 's/^  \([^ ]*\) .*\[default\]$/\1/p'; }

decode() { gunzip -c "$1" | protoc -I"$PROFKIT_SRC/tests/oracle" --decode=perftools.profiles.Profile profile.proto; }

# 1. The pprof fixtures read by profkit equal Go pprof's reading of them.
for f in "$FIX/pprof/cppbench.pb.gz" "$FIX/gperftools-real/real1.pprof.pb.gz"; do
  b=$(basename "$f")
  vt=$(pk_default "$f")
  expect_eq "$b: default value type" "cpu" "$vt"
  "$PPROF" -raw -symbolize=none "$f" | raw_folded "$vt/nanoseconds" > "$TMP/go.folded"
  "$PROFKIT" convert --no-symbolize "$f" --to folded 2> /dev/null | LC_ALL=C sort > "$TMP/pk.folded"
  [ -s "$TMP/go.folded" ] && pass || fail "$b: empty Go pprof dump"
  expect_files_eq "$b: stacks as Go pprof reads them" "$TMP/go.folded" "$TMP/pk.folded"
  expect_eq "$b: total as Go pprof's -top" "$(go_total "$f" nanoseconds)" "$(pk_total "$f")"
done
# cppbench's samples: 712 of period 10 ms (the .string dump of the same
# benchmark recorded as a gperftools file).
want=$(awk '/^Samples:/ {s=1; next} /^Locations/ {s=0} s && /:/ {n += $1} END {printf "%.0f\n", n * 10000000}' \
  "$FIX/pprof/cppbench.cpu.string")
expect_eq "cppbench total equals cppbench.cpu.string" "$want" \
  "$("$PROFKIT" info --no-symbolize "$FIX/pprof/cppbench.pb.gz" | sed -n 's/^  cpu .* total \([0-9]*\) .*/\1/p')"
# Go pprof's -traces stacks of real1 (symbolized): the same multiset of traces.
"$PPROF" -traces -symbolize=none "$FIX/gperftools-real/real1.pprof.pb.gz" | awk '
  /^-----/ { if (st != "") print st " " v; st = ""; next }
  /^ *[0-9.]+[a-z]*s / { v = $1; sub(/^ *[0-9.]+[a-z]*s +/, ""); sub(/ \(inline\)$/, ""); st = $0; next }
  st != "" && /^             / { sub(/^ +/, ""); sub(/ \(inline\)$/, ""); st = $0 ";" st }
  END { if (st != "") print st " " v }' | LC_ALL=C sort > "$TMP/go.traces"
"$PROFKIT" convert --no-symbolize "$FIX/gperftools-real/real1.pprof.pb.gz" --to folded |
  awk '{ n = $NF; $NF = ""; sub(/ $/, ""); printf "%s %dms\n", $0, n / 1000000 }' | LC_ALL=C sort > "$TMP/pk.traces"
expect_eq "real1: Go -traces stacks (merged) equal ours" \
  "$(awk '{ n = $NF; $NF = ""; sub(/ms$/, "", n); s[$0] += n } END { for (k in s) printf "%s%dms\n", k, s[k] }' "$TMP/go.traces" | LC_ALL=C sort)" \
  "$(cat "$TMP/pk.traces")"

# 2. Profiles written by the Go runtime itself (runtime/pprof, which starts
# with time_nanos or period_type, not sample_type, and has inline frames): a
# small program built here with Debian's Go, profiled for half a second.
command -v go > /dev/null || { fail "go missing (scripts/deps.sh --test installs golang-go)"; finish; }
mkdir -p "$TMP/go"
cat > "$TMP/go/main.go" <<'GO'
package main

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

var sink []byte

func leaf(n int) int { s := 0; for i := 0; i < n; i++ { s += i * i % 7 }; return s }
func mid(n int) int  { return leaf(n) + 1 }

func work(d time.Duration) int {
	s := 0
	for t := time.Now(); time.Since(t) < d; {
		s += mid(100000)
		sink = make([]byte, 1<<16)
	}
	return s
}

func main() {
	runtime.MemProfileRate = 4096
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	pprof.Do(context.Background(), pprof.Labels("worker", "a"), func(context.Context) { work(300 * time.Millisecond) })
	work(200 * time.Millisecond)
	pprof.StopCPUProfile()
	f.Close()
	h, _ := os.Create(os.Args[2])
	pprof.WriteHeapProfile(h)
	h.Close()
}
GO
gocache="$PROFKIT_TOOLS/gocache"
[ -d "$gocache" ] || gocache="$TMP/gocache"
if (cd "$TMP/go" && GO111MODULE=off GOPROXY=off GOFLAGS= GOCACHE="$gocache" go build -o gobin main.go) 2> "$TMP/err" &&
   "$TMP/go/gobin" "$TMP/go/cpu.pb.gz" "$TMP/go/heap.pb.gz"; then
  for f in "$TMP/go/cpu.pb.gz" "$TMP/go/heap.pb.gz"; do
    b=go-$(basename "$f")
    "$PROFKIT" info --no-symbolize "$f" > "$TMP/info" 2> "$TMP/err" || { fail "$b: $(cat "$TMP/err")"; continue; }
    vu=$(sed -n 's/^  \([^ ]*\) *\([^ ]*\) .*\[default\]$/\1\/\2/p' "$TMP/info")
    "$PPROF" -raw -symbolize=none "$f" 2> /dev/null | raw_folded "$vu" > "$TMP/go.folded"
    "$PROFKIT" convert --no-symbolize "$f" --to folded | LC_ALL=C sort > "$TMP/pk.folded"
    expect_files_eq "$b: stacks as Go pprof reads them" "$TMP/go.folded" "$TMP/pk.folded"
    expect_eq "$b: default value type as Go pprof picks it" "$(go_type "$f")" "${vu%%/*}"
    expect_eq "$b: total as Go pprof's -top" "$(go_total "$f" "${vu#*/}")" "$(pk_total "$f")"
  done
  grep -q '^  inuse_space    bytes .*\[default\]$' <("$PROFKIT" info --no-symbolize "$TMP/go/heap.pb.gz") && pass ||
    fail "heap profile: inuse_space (the last sample type) is not the default"
else
  fail "could not build or run the Go profile writer: $(head -5 "$TMP/err")"
fi

# 3. Every readable fixture (and the Go runtime's profiles) -> pprof -> Go pprof.
n=0
for f in "$FIX"/gperftools-real/*.prof "$FIX"/gperftools-edge/*.prof "$FIX"/pprof/*.cpu \
         "$FIX"/folded/*.txt "$FIX"/pprof/*.pb.gz "$FIX"/gperftools-real/*.pb.gz "$TMP"/go/*.pb.gz; do
  b=$(basename "$f")
  [ -e "$f" ] || continue
  "$PROFKIT" info --no-symbolize "$f" > /dev/null 2>&1 || continue # unreadable by design (edge cases)
  n=$((n + 1))
  out="$TMP/$b.out.pb.gz"
  if ! "$PROFKIT" convert --no-symbolize "$f" --to pprof -o "$out" 2> "$TMP/err"; then
    fail "$b: convert --to pprof: $(cat "$TMP/err")"; continue
  fi
  decode "$out" > "$TMP/decoded" 2> "$TMP/err" && pass || fail "$b: protoc cannot decode: $(head -3 "$TMP/err")"
  vt=$(pk_default "$f")
  unit=$("$PROFKIT" info --no-symbolize "$f" | awk -v t="$vt" '$1 == t && /\[default\]/ {print $2}')
  "$PPROF" -raw -symbolize=none "$out" 2> "$TMP/err" | raw_folded "$vt/$unit" > "$TMP/go.folded"
  "$PROFKIT" convert --no-symbolize "$f" --to folded 2> /dev/null | LC_ALL=C sort > "$TMP/pk.folded"
  expect_files_eq "$b: Go pprof reads our pprof with the same stacks" "$TMP/pk.folded" "$TMP/go.folded"
  expect_eq "$b: Go pprof's total of our pprof" "$(pk_total "$f")" "$(go_total "$out" "$(pk_unit "$f")")"
  expect_eq "$b: Go pprof's default type of our pprof" "$vt" "$(go_type "$out")"
  # pprof -> pprof -> folded is the identity on stacks
  "$PROFKIT" convert --no-symbolize "$out" --to folded | LC_ALL=C sort > "$TMP/again.folded"
  expect_files_eq "$b: pprof round trip keeps the stacks" "$TMP/pk.folded" "$TMP/again.folded"
done
[ "$n" -ge 10 ] && pass || fail "only $n fixtures were readable"
finish
