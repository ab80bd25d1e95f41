#!/usr/bin/env bash
# The perf.data reader (docs/formats/perf_data.md) against perf itself, on
# recordings made here with Debian's linux-perf: tests/oracle/perf_burn.c
# (three threads) recorded with `perf record -e cpu-clock -g`, to a file,
# to a pipe, and with -z (zstd-compressed records). For each, profkit reading the file must agree with
# `perf script`'s output of it read by profkit's perf_script reader:
#   - per event and thread, the same stacks with the same values (frames
#     of the program and of the kernel by name, the kernel's from kallsyms;
#     every other frame by its file and the offset
#     perf prints: tests/oracle/perf_data_compare.py says why);
#   - the same threads (name, tid) and every sample's time;
#   - the same mappings and build ids (perf script --show-mmap-events,
#     perf buildid-list).
# Then cut copies keep the samples before the cut, say so, and agree with
# perf script on the same records. Where the kernel refuses perf events
# (perf_event_paranoid, a container), the test skips, naming the reason.
# It may lower perf_event_paranoid only as root, and puts it back.
. "$(dirname "$0")/lib.sh"
ORACLE="$PROFKIT_SRC/tests/oracle"
CMP="$ORACLE/perf_data_compare.py"
command -v protoc > /dev/null || { fail "protoc is missing: scripts/deps.sh --test installs protobuf-compiler"; finish; }

cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMP/perf_burn" "$ORACLE/perf_burn.c" ||
  { fail "cannot build perf_burn.c"; finish; }

need_perf
PERF record -q -e cpu-clock -g -o "$TMP/file.data" "$TMP/perf_burn" 6000 > /dev/null 2>&1 ||
  fail "perf record to a file failed"
PERF record -q -e cpu-clock -g -o - "$TMP/perf_burn" 6000 > "$TMP/pipe.data" 2> /dev/null ||
  fail "perf record to a pipe failed"
# -m 1: a one-page ring buffer, drained (and compressed) often, so the
# samples spread over many COMPRESSED records; with perf's default buffer a
# short run is often one record, and a copy cut inside it holds no whole
# record before the cut
PERF record -q -z -m 1 -e cpu-clock -g -o "$TMP/zstd.data" "$TMP/perf_burn" 6000 > /dev/null 2>&1 ||
  fail "perf record -z failed"
PERF record -q -e cpu-clock --call-graph dwarf -o "$TMP/dwarf.data" "$TMP/perf_burn" 3000 > /dev/null 2>&1 ||
  fail "perf record --call-graph dwarf failed"
# LBR call graphs need the CPU's last branch records: not in every machine
# or VM; recorded and read when the kernel allows it.
lbr=yes
PERF record -q -e cycles:u --call-graph lbr -o "$TMP/lbr.data" "$TMP/perf_burn" 3000 > "$TMP/lbr.log" 2>&1 || lbr=
perf_restore

decode() { protoc --decode=perftools.profiles.Profile -I "$ORACLE" "$ORACLE/profile.proto" < "$1" > "$2"; }

# compare NAME DATA SCRIPT: profkit on DATA against SCRIPT (perf script's
# output of the same records).
compare() {
  local name=$1 data=$2 script=$3 d="$TMP/$1"
  mkdir -p "$d"
  python3 "$CMP" text perf_burn < "$script" > "$d/script.txt"
  "$PROFKIT" convert "$d/script.txt" --format perf_script --to pprof -o "$d/script.pb" 2> "$d/err" ||
    { fail "$name: perf_script reader: $(cat "$d/err")"; return; }
  "$PROFKIT" convert "$data" --to pprof -o "$d/data.pb" 2> "$d/err" ||
    { fail "$name: $(cat "$d/err")"; return; }
  decode "$d/script.pb" "$d/script.pbtxt" && decode "$d/data.pb" "$d/data.pbtxt" ||
    { fail "$name: protoc cannot decode profkit's pprof"; return; }
  python3 "$CMP" stacks script perf_burn "$d/script.pbtxt" > "$d/want"
  python3 "$CMP" stacks data perf_burn "$d/data.pbtxt" > "$d/got"
  [ "$(grep -c . "$d/want")" -gt 5 ] && pass || fail "$name: perf script shows almost no stacks"
  expect_files_eq "$name: stacks and values per event and thread" "$d/want" "$d/got"
  # a whole recording: the program's own functions are named, and every
  # thread ran some (a cut copy may hold samples whose COMM and MMAP
  # records lay after the cut: perf writes each CPU's buffer in turn)
  case $name in
    *_cut) ;;
    *)
      for fn in main worker middle mix; do
        grep -q "[;	]$fn[;	]" "$d/got" && pass || fail "$name: no frame named $fn"
      done
      for th in burn-a burn-b perf_burn; do
        grep -q "^cpu-clock	$th	" "$d/got" && pass || fail "$name: no samples of thread $th"
      done ;;
  esac
  # threads: name and tid
  "$PROFKIT" info --json "$d/script.txt" > "$d/script.json" 2> /dev/null
  "$PROFKIT" info --json "$data" > "$d/data.json" 2> /dev/null
  local threads='import json, sys; print("\n".join(sorted("%s %s" % (t["name"], t["tid"]) for t in json.load(open(sys.argv[1]))["threads"])))'
  expect_eq "$name: threads (name, tid)" "$(python3 -c "$threads" "$d/script.json")" "$(python3 -c "$threads" "$d/data.json")"
}

for mode in file pipe zstd; do
  data="$TMP/$mode.data"
  [ -s "$data" ] || { fail "$mode: nothing recorded"; continue; }
  "$PROFKIT" info "$data" > "$TMP/info" 2> "$TMP/err" || { fail "$mode: $(cat "$TMP/err")"; continue; }
  expect_eq "$mode: no warnings" "" "$(cat "$TMP/err")"
  grep -q "^  mode: ${mode/zstd/file}\$" "$TMP/info" && pass || fail "$mode: metadata mode"
  grep -q '^samples: .* (timed, in time order)' "$TMP/info" && pass || fail "$mode: samples are not timed"
  PERF script -i "$data" > "$TMP/$mode.txt" 2> /dev/null
  compare "$mode" "$data" "$TMP/$mode.txt"
  # every sample's time, per thread
  PERF script -F comm,tid,time -i "$data" > "$TMP/$mode.times" 2> /dev/null
  "$PROFKIT" convert "$data" --to firefox -o "$TMP/$mode.json" 2> /dev/null
  python3 "$CMP" times "$TMP/$mode.times" "$TMP/$mode.json" > "$TMP/cmp" && pass ||
    fail "$mode: sample times differ: $(head -3 "$TMP/cmp")"
  # mappings and build ids
  PERF script --show-mmap-events -i "$data" 2> /dev/null | grep 'PERF_RECORD_MMAP' > "$TMP/$mode.mmaps"
  PERF buildid-list -i "$data" > "$TMP/$mode.buildids" 2> /dev/null
  python3 "$CMP" mappings "$TMP/$mode.mmaps" "$TMP/$mode.buildids" "$TMP/$mode/data.pbtxt" > "$TMP/cmp" && pass ||
    fail "$mode: mappings differ: $(head -5 "$TMP/cmp")"
  [ "$mode" = pipe ] || grep -q '[0-9] build ids checked' "$TMP/cmp" && pass || fail "$mode: no build ids recorded: $(cat "$TMP/cmp")"
done

# --call-graph dwarf: the kernel copies the user stack for unwinding, which
# profkit does not do. Read without a warning, each sample's leaf (its IP,
# or its kernel chain's leaf) is the first frame perf script prints of it.
if [ -s "$TMP/dwarf.data" ]; then
  "$PROFKIT" convert "$TMP/dwarf.data" --to pprof -o "$TMP/dwarf.pb" 2> "$TMP/err" || fail "dwarf: $(cat "$TMP/err")"
  expect_eq "dwarf: no warnings" "" "$(cat "$TMP/err")"
  decode "$TMP/dwarf.pb" "$TMP/dwarf.pbtxt"
  PERF script -i "$TMP/dwarf.data" 2> /dev/null | python3 "$CMP" leaves perf_burn > "$TMP/dwarf.want"
  python3 "$CMP" stacks data perf_burn "$TMP/dwarf.pbtxt" | python3 "$CMP" leafcut > "$TMP/dwarf.got"
  grep -q '	mix	' "$TMP/dwarf.want" && pass || fail "dwarf: perf script shows no samples in mix"
  expect_eq "dwarf: each sample's leaf, per thread" "" "$(python3 "$CMP" leafmatch "$TMP/dwarf.want" "$TMP/dwarf.got")"
fi
if [ -n "$lbr" ]; then
  "$PROFKIT" info "$TMP/lbr.data" > /dev/null 2> "$TMP/err" && pass || fail "lbr: $(cat "$TMP/err")"
  expect_eq "lbr: samples" "$(PERF script -i "$TMP/lbr.data" 2> /dev/null | grep -c 'cycles:u:')" \
    "$("$PROFKIT" info "$TMP/lbr.data" | awk '$1 == "samples" && $2 == "count" {print $4}')"
else
  echo "note: no LBR recording here: $(grep -m1 -i -e error -e support "$TMP/lbr.log" || tail -1 "$TMP/lbr.log")"
fi

# Cut copies: a warning naming the cut, the samples before it kept.
# (cut inside a record: a stream cut between two cannot be told from a
# shorter one)
head -c "$(python3 "$CMP" cutpoint "$TMP/pipe.data")" "$TMP/pipe.data" > "$TMP/pipe_cut.data"
"$PROFKIT" info "$TMP/pipe_cut.data" > "$TMP/info" 2> "$TMP/err" || fail "cut pipe: $(cat "$TMP/err")"
grep -q 'warning: .*(truncated file?); the [0-9]* samples before it are kept' "$TMP/err" && pass ||
  fail "cut pipe: no truncation warning: $(cat "$TMP/err")"
"$PROFKIT" info --strict "$TMP/pipe_cut.data" > /dev/null 2>&1 && fail "cut pipe: --strict accepts it" || pass
# perf script reads a cut stream up to the cut, as profkit does
PERF script -i "$TMP/pipe_cut.data" > "$TMP/pipe_cut.txt" 2> /dev/null
compare pipe_cut "$TMP/pipe_cut.data" "$TMP/pipe_cut.txt"

# A file (also one of zstd-compressed records) cut inside its data.
cut_file() {
  local mode=$1 cut kept all
  cut=$(python3 "$CMP" cutpoint "$TMP/$mode.data")
  head -c "$cut" "$TMP/$mode.data" > "$TMP/${mode}_cut.data"
  "$PROFKIT" info "$TMP/${mode}_cut.data" > "$TMP/info" 2> "$TMP/err" || fail "cut $mode: $(cat "$TMP/err")"
  grep -q 'warning: .*(truncated file?); the [0-9]* samples before .* kept, the feature sections after the data' "$TMP/err" && pass ||
    fail "cut $mode: no truncation warning: $(cat "$TMP/err")"
  kept=$(sed -n 's/.*; the \([0-9]*\) samples before.*/\1/p' "$TMP/err")
  all=$(PERF script -i "$TMP/$mode.data" 2> /dev/null | grep -c 'cpu-clock:')
  [ "${kept:-0}" -gt 0 ] && [ "$kept" -lt "$all" ] && pass || fail "cut $mode: kept $kept of $all samples"
  # perf script stops at a cut file's first bad record: it reads the same
  # records once the header's data size ends where the last whole one does
  python3 "$CMP" fixcut "$TMP/$mode.data" "$cut" "$TMP/${mode}_fixed.data"
  PERF script -i "$TMP/${mode}_fixed.data" > "$TMP/${mode}_cut.txt" 2> /dev/null
  expect_eq "cut $mode: samples kept" "$(grep -c 'cpu-clock:' "$TMP/${mode}_cut.txt")" "$kept"
  compare "${mode}_cut" "$TMP/${mode}_cut.data" "$TMP/${mode}_cut.txt"
}
cut_file file
cut_file zstd
finish
