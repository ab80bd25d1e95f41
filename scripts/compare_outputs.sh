#!/usr/bin/env bash
# compare_outputs.sh: proves a change leaves every output of profkit as it was.
#
#   scripts/compare_outputs.sh [OPTIONS] BASE [HEAD]
#
# Builds commit BASE, and HEAD (a commit; default: the working tree, with its
# uncommitted changes), each a Release build of the profkit command out of the
# source tree under build/compare/, then runs every command of profkit on
# every input file (tests/data/*/ok_* and bad_*, every file of
# ../shared/fixtures/**) with both builds and compares stdout, stderr, the
# exit status and the files written (-o) byte for byte. Prints each difference
# (command, file, the first lines of the diff) and a last line
# "N identical, M differ"; exits 0 when nothing differs, 1 when something
# does, 2 on bad usage or a failed build.
#
# Options:
#   -j N             jobs in parallel (default 2)
#   --max-size BYTES skip input files larger than this (default 8388608);
#   --all            include them
#   --add PATH       also run on PATH (a file, or every file under a folder;
#                    repeatable), e.g. generated benchmark inputs with --all
#   --full           every command on files profkit cannot read, too (by
#                    default those get info, info.json, top, top.line, tree,
#                    mem, traces, diff, convert.folded, convert.firefox,
#                    flame.html: the reader fails alike in every command)
#   --only REGEX     only the commands whose name matches REGEX (names as in
#                    the output: top.json, convert.pprof, flame.svg, ...)
#   --files REGEX    only the input files whose path matches REGEX
#   --timeout S      each run's time limit (default 60 s; status 124 past it)
#   --max-output BYTES  each run's limit on a file it writes, stdout too
#                    (default 64 MiB; status 153 past it: convert --to br of a
#                    profile with large counts writes one record per count)
#   --diff-lines N   lines of each diff shown (default 20)
#   --keep           keep the outputs of every run (build/compare/run/)
#   --clean          remove build/compare/ first (the cached BASE builds)
#   --build-only     build both sides, print the two binaries' paths, stop
#                    (bench/compare.sh builds through this)
#
# Both builds read the same input files (the working tree's tests/data and
# ../shared/fixtures, by absolute path), in the same environment (LC_ALL=C,
# TZ=UTC, no DEBUGINFOD_URLS, so nothing depends on the network), with stdin
# from /dev/null, each command under the limits of --timeout and
# --max-output; the runs that hit one are listed at the end.
#
# Normalised before comparing, and why:
#   - each side's build folder and binary path (build/compare/<key>/), and
#     each side's scratch folder (a run's cwd, where -o writes): they differ
#     between the two sides by construction, and appear in messages;
#   nothing else. One output is not deterministic: the SVG's colours (a hash
#   of each name with a per-process random secret), so flame.svg runs with
#   PROFKIT_HASH_SEED fixed (see --job below). With that, BASE = HEAD (the
#   same commit, two runs) gives the same bytes for every command, so no time
#   or random token needs masking. (profkit view, whose URL holds a random
#   token, and store, which needs a database, are not run.)
#
# Builds of a commit are cached by commit id under build/compare/ (the source
# is exported with git archive, so the repository's worktree list is left as
# it is); the working tree's build is incremental. Everything runs under nice.
set -euo pipefail
# The whole script is one block, read before it runs: editing the file while
# it runs (a rebase, a checkout) does not change what runs.
{

# ---------------------------------------------------------------------------
# One job (called through xargs): every command on one file, both builds.
# Argument: a line of the job list, "ID<tab>FILE<tab>FILE2" (FILE2: the other
# file of the diff commands). Writes $CMP_RES/ID: a line "= NAME" for each
# command whose outputs are the same, a "DIFF NAME FILE" block for the others.
if [ "${1:-}" = --job ]; then
  IFS=$'\t' read -r id file file2 <<< "$2"
  show() { case $1 in "$CMP_ROOT"/*) echo "${1#"$CMP_ROOT"/}" ;; "$CMP_SHARED"/*) echo "fixtures/${1#"$CMP_SHARED"/}" ;; *) echo "$1" ;; esac; }
  why() { case $1 in 124 | 137) echo "$1 (past --timeout)" ;; 153) echo "153 (an output past --max-output)" ;; *) echo "$1" ;; esac; }
  is_text() { [ ! -s "$1" ] || grep -qI . "$1"; }
  regex='[aeiou]' # peek and list: a fixed regex that matches most names
  argv_of() {
    case $1 in
      info) argv=(info "$file") ;;
      info.json) argv=(info --json "$file") ;;
      top) argv=(top "$file") ;;
      top.json) argv=(top --json "$file") ;;
      top.cum.all) argv=(top -n 0 --cum "$file") ;;
      top.line) argv=(top --by line "$file") ;;
      top.file) argv=(top --by file "$file") ;;
      top.address) argv=(top --by address "$file") ;;
      tree) argv=(tree "$file") ;;
      tree.json) argv=(tree --json "$file") ;;
      mem) argv=(mem "$file") ;;
      mem.json) argv=(mem --json "$file") ;;
      hist) argv=(hist "$file") ;;
      hist.json) argv=(hist --json "$file") ;;
      traces) argv=(traces "$file") ;;
      traces.json) argv=(traces --json "$file") ;;
      peek) argv=(peek -n 5 "$regex" "$file") ;;
      peek.json) argv=(peek -n 5 --json "$regex" "$file") ;;
      list) argv=(list -n 3 "$regex" "$file") ;;
      diff) argv=(diff "$file" "$file2") ;;
      diff.json) argv=(diff --json "$file" "$file2") ;;
      convert.*) argv=(convert "$file" --to "${1#convert.}") ;;
      flame.html) argv=(flame "$file" -o x.html) ;;
      flame.svg) argv=(flame "$file" -o x.svg) ;;
      *) echo "compare_outputs.sh: unknown command $1" >&2; exit 2 ;;
    esac
  }
  jdir=$CMP_RUN/$id
  mkdir -p "$jdir"
  : > "$CMP_RES/$id.part"
  # run_cmd NAME: runs it with both builds in $jdir/NAME/{a,b}; its stdout,
  # stderr and status there, the files it writes in out/.
  run_cmd() {
    local name=$1 side bin seed="" rc
    argv_of "$name"
    # The SVG's colours come from a hash of each name. Before they came from
    # a fixed hash (pk_fnv1a), they used the tables' hash, which mixes in a
    # secret drawn at random per process (util.c: so no input can choose
    # colliding keys), and changed from run to run; so that a BASE from
    # then compares, the SVG runs with PROFKIT_HASH_SEED fixed. Every other
    # command runs with a random secret, so an output that depended on a
    # table's order would show here as a difference between the sides.
    [ "$name" = flame.svg ] && seed=PROFKIT_HASH_SEED=1
    dir=$jdir/$name
    for side in a b; do
      if [ $side = a ]; then bin=$CMP_BIN_A; else bin=$CMP_BIN_B; fi
      mkdir -p "$dir/$side/out"
      rc=0
      # (The outer 2> /dev/null: bash's own note when a run dies of SIGXFSZ.)
      { (cd "$dir/$side/out" && ulimit -f "$CMP_MAX_OUTPUT_KB" &&
          exec env $seed timeout -k 5 "$CMP_TIMEOUT" "$bin" "${argv[@]}") \
          < /dev/null > "$dir/$side/stdout" 2> "$dir/$side/stderr"; } 2> /dev/null || rc=$?
      echo "$rc" > "$dir/$side/status"
    done
  }
  # compare_cmd NAME: appends "= NAME" or a DIFF block to the result. Each
  # side's own paths (its build folder and binary, its out/ folder) are
  # replaced by @PROFKIT@, @BUILD@, @CWD@ first, in files that differ.
  compare_cmd() {
    local name=$1 rel fa fb side bin report="" sa sb cut
    sa=$(cat "$dir/a/status") sb=$(cat "$dir/b/status")
    case " $sa $sb " in
      *" 124 "* | *" 137 "* | *" 153 "*)
        if [ "$sa" = "$sb" ]; then cut="status $(why "$sa") in both"
        else cut="status $(why "$sa") in BASE, $(why "$sb") in HEAD"; fi
        echo "! $name $(show "$file"): $cut" >> "$CMP_RES/$id.part" ;;
    esac
    for rel in $( (cd "$dir/a" && find . -type f; cd "$dir/b" && find . -type f) | LC_ALL=C sort -u); do
      rel=${rel#./} fa=$dir/a/$rel fb=$dir/b/$rel
      if [ ! -e "$fa" ]; then report+="  $rel: only in HEAD"$'\n'; continue; fi
      if [ ! -e "$fb" ]; then report+="  $rel: only in BASE"$'\n'; continue; fi
      cmp -s "$fa" "$fb" && continue
      for side in a b; do
        if [ $side = a ]; then bin=$CMP_BIN_A; else bin=$CMP_BIN_B; fi
        sed -i -e "s|$dir/$side/out|@CWD@|g" -e "s|$bin|@PROFKIT@|g" -e "s|${bin%/*}|@BUILD@|g" "$dir/$side/$rel"
      done
      cmp -s "$fa" "$fb" && continue
      if is_text "$fa" && is_text "$fb"; then
        report+="  $rel:"$'\n'"$(diff -u --label BASE --label HEAD "$fa" "$fb" |
          head -n "$((CMP_DIFF_LINES + 2))" | sed 's/^/    /' || true)"$'\n'
      else
        report+="  $rel (binary; $(stat -c %s "$fa") bytes in BASE, $(stat -c %s "$fb") in HEAD): $(cmp "$fa" "$fb" 2>&1 | sed 's/^.*differ: //' || true)"$'\n'
      fi
    done
    if [ -z "$report" ]; then
      echo "= $name" >> "$CMP_RES/$id.part"
    else
      argv_of "$name"
      local other=""
      case $name in diff*) other=" $(show "$file2")" ;; esac
      printf 'DIFF %s %s%s\n  argv: profkit %s\n%s' "$name" "$(show "$file")" "$other" \
        "${argv[*]}" "$report" >> "$CMP_RES/$id.part"
    fi
    [ -n "$CMP_KEEP" ] || rm -rf "$dir"
  }
  # A file that profkit cannot read (info fails in BASE: the bad_ files of
  # tests/data, fixtures that are not profiles) gets the shorter list of
  # commands, CMP_FAIL_COMMANDS, unless --full: every command fails alike
  # there, in the reader, but a few read differently (markers, lines, memory).
  list=$CMP_COMMANDS
  if [[ " $list " == *" info "* ]]; then
    run_cmd info
    if [ -z "$CMP_FULL" ] && [ "$(cat "$jdir/info/a/status")" != 0 ]; then list=$CMP_FAIL_COMMANDS; fi
    compare_cmd info
  fi
  for name in $list; do
    [ "$name" = info ] && continue
    run_cmd "$name"
    compare_cmd "$name"
  done
  [ -n "$CMP_KEEP" ] || rm -rf "$jdir"
  mv "$CMP_RES/$id.part" "$CMP_RES/$id"
  exit 0
fi

# ---------------------------------------------------------------------------
usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
  exit 2
}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
jobs=2 max_size=8388608 timeout=60 max_output=67108864 files_re="" all="" full="" build_only="" keep="" clean="" diff_lines=20 only="" adds=()
while [ $# -gt 0 ]; do
  case $1 in
    -j) jobs=${2:?}; shift 2 ;;
    --max-size) max_size=${2:?}; shift 2 ;;
    --all) all=1; shift ;;
    --full) full=1; shift ;;
    --add) adds+=("$(realpath "${2:?}")"); shift 2 ;;
    --only) only=${2:?}; shift 2 ;;
    --files) files_re=${2:?}; shift 2 ;;
    --timeout) timeout=${2:?}; shift 2 ;;
    --max-output) max_output=${2:?}; shift 2 ;;
    --diff-lines) diff_lines=${2:?}; shift 2 ;;
    --keep) keep=1; shift ;;
    --clean) clean=1; shift ;;
    --build-only) build_only=1; shift ;;
    -h | --help) usage ;;
    -*) echo "compare_outputs.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] && [ $# -le 2 ] || usage
BASE=$1 HEAD=${2:-}

WORK=$ROOT/build/compare
[ -z "$clean" ] || rm -rf "$WORK"
mkdir -p "$WORK"
case $WORK in *'|'*) echo "compare_outputs.sh: $WORK: a path with '|' is not supported" >&2; exit 2 ;; esac

# build_commit REV: exports REV with git archive, builds it, prints the binary.
build_commit() {
  local sha src bld
  sha=$(git -C "$ROOT" rev-parse --verify --quiet "$1^{commit}") ||
    { echo "compare_outputs.sh: $1: not a commit" >&2; return 2; }
  src=$WORK/src-$sha bld=$WORK/build-$sha
  if [ ! -f "$src/CMakeLists.txt" ]; then
    rm -rf "$src.tmp" && mkdir -p "$src.tmp"
    git -C "$ROOT" archive "$sha" | tar -x -C "$src.tmp"
    mv "$src.tmp" "$src"
  fi
  build_dir "$src" "$bld" "$1 ($sha)" || return 2
  touch "$src"
  echo "$bld/profkit"
}
# Keeps the builds of the 4 commits used last (about 10 MB each).
prune_builds() {
  local old
  for old in $(ls -td "$WORK"/src-* 2> /dev/null | tail -n +5); do
    rm -rf "$old" "$WORK/build-${old##*/src-}" "$WORK/build-${old##*/src-}.log"
  done
}
# build_dir SRC BUILD LABEL: a Release build of the profkit command only.
build_dir() {
  echo "compare_outputs.sh: building $3 in ${2#"$ROOT"/}" >&2
  mkdir -p "$2"
  # flock: bench/compare.sh builds into the same folders.
  if ! flock "$2/.lock" sh -c 'nice cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release > "$2.log" 2>&1 &&
         nice cmake --build "$2" -j "$3" --target profkit_cli >> "$2.log" 2>&1' sh "$1" "$2" "$jobs"; then
    echo "compare_outputs.sh: the build of $3 failed; its log: $2.log" >&2
    tail -n 20 "$2.log" >&2
    return 2
  fi
}

bin_a=$(build_commit "$BASE") || exit 2
if [ -n "$HEAD" ]; then
  bin_b=$(build_commit "$HEAD") || exit 2
  head_label=$HEAD
else
  build_dir "$ROOT" "$WORK/build-worktree" "the working tree" || exit 2
  bin_b=$WORK/build-worktree/profkit
  head_label="the working tree"
fi
prune_builds
if [ -n "$build_only" ]; then printf '%s\n%s\n' "$bin_a" "$bin_b"; exit 0; fi

# The input files, by absolute path; sizes checked here.
files=() skipped=()
add_file() {
  local f=$1 size
  [ -z "$files_re" ] || [[ $f =~ $files_re ]] || return 0
  size=$(stat -L -c %s "$f")
  if [ -z "$all" ] && [ "$size" -gt "$max_size" ]; then skipped+=("$f ($size bytes)"); return; fi
  files+=("$f")
}
for f in "$ROOT"/tests/data/*/ok_* "$ROOT"/tests/data/*/bad_*; do
  case $f in *.expect) continue ;; esac
  [ -f "$f" ] && add_file "$f"
done
shared=$ROOT/../shared/fixtures
if [ -d "$shared" ]; then
  shared=$(cd "$shared" && pwd -P)
  while IFS= read -r f; do add_file "$f"; done < <(find -L "$shared" -type f | LC_ALL=C sort)
else
  echo "compare_outputs.sh: ${shared#"$ROOT"/} is absent: its fixtures are skipped" >&2
fi
for a in "${adds[@]}"; do
  if [ -d "$a" ]; then
    while IFS= read -r f; do add_file "$f"; done < <(find -L "$a" -type f | LC_ALL=C sort)
  elif [ -f "$a" ]; then add_file "$a"
  else echo "compare_outputs.sh: $a: no such file" >&2; exit 2
  fi
done
for f in "${files[@]}"; do
  case $f in *$'\n'* | *$'\t'*) echo "compare_outputs.sh: a file name with a tab or newline is not supported: $f" >&2; exit 2 ;; esac
done

commands=(info info.json top top.json top.cum.all top.line top.file top.address
  tree tree.json mem mem.json hist hist.json traces traces.json peek peek.json list
  diff diff.json
  convert.folded convert.pprof convert.firefox convert.speedscope convert.callgrind
  convert.gperftools convert.bsprof convert.br convert.dcpi flame.html flame.svg)
fail_commands=(info info.json top top.line tree mem traces diff convert.folded convert.firefox flame.html)
pick() {
  local c
  for c in "$@"; do
    if [ -z "$only" ] || [[ $c =~ $only ]]; then printf '%s ' "$c"; fi
  done
}
CMP_COMMANDS=$(pick "${commands[@]}") CMP_FAIL_COMMANDS=$(pick "${fail_commands[@]}")
[ -n "$CMP_COMMANDS" ] || { echo "compare_outputs.sh: --only $only matches no command" >&2; exit 2; }

RUN=$WORK/run
rm -rf "$RUN" "$WORK/results"
mkdir -p "$RUN" "$WORK/results"
joblist=$WORK/jobs.txt
: > "$joblist"
for i in "${!files[@]}"; do
  f=${files[$i]}
  # diff of pairs: each file against the next one of the same folder (the
  # last against the first), so the files of a folder meet each other.
  next=""
  for ((j = i + 1; j < ${#files[@]}; j++)); do
    [ "${files[$j]%/*}" = "${f%/*}" ] && { next=${files[$j]}; break; }
  done
  if [ -z "$next" ]; then
    for ((j = 0; j < i; j++)); do
      [ "${files[$j]%/*}" = "${f%/*}" ] && { next=${files[$j]}; break; }
    done
  fi
  printf '%06d\t%s\t%s\n' "$i" "$f" "${next:-$f}" >> "$joblist"
done

echo "compare_outputs.sh: BASE $BASE, HEAD $head_label: ${#files[@]} files, $jobs in parallel" >&2
for s in "${skipped[@]}"; do echo "compare_outputs.sh: skipped (larger than --max-size $max_size; --all runs it): ${s#"$ROOT"/}" >&2; done

export CMP_RUN=$RUN CMP_RES=$WORK/results CMP_BIN_A=$bin_a CMP_BIN_B=$bin_b
export CMP_ROOT=$ROOT CMP_SHARED=$shared CMP_KEEP=$keep CMP_DIFF_LINES=$diff_lines
export CMP_COMMANDS CMP_FAIL_COMMANDS CMP_FULL=$full
export CMP_TIMEOUT=$timeout CMP_MAX_OUTPUT_KB=$((max_output / 1024))
export LC_ALL=C TZ=UTC
unset DEBUGINFOD_URLS
start=$SECONDS
nice xargs -a "$joblist" -P "$jobs" -d '\n' -n 1 bash "$0" --job ||
  echo "compare_outputs.sh: some runs failed (NOT RUN below)" >&2

same=0 differ=0 missing=0
: > "$WORK/limits.txt"
while IFS=$'\t' read -r id f rest; do
  r=$WORK/results/$id
  if [ ! -f "$r" ]; then missing=$((missing + 1)); echo "NOT RUN (the job failed) $f"; continue; fi
  same=$((same + $(grep -c '^= ' "$r" || true)))
  differ=$((differ + $(grep -c '^DIFF ' "$r" || true)))
  grep -v '^= \|^! ' "$r" || true
  grep '^! ' "$r" >> "$WORK/limits.txt" || true
done < "$joblist"
if [ -s "$WORK/limits.txt" ]; then
  echo "Runs cut by a limit (each compared up to the cut; the same cut on both sides counts as identical):"
  sed 's/^! /  /' "$WORK/limits.txt"
fi
[ -n "$keep" ] && echo "compare_outputs.sh: outputs kept in ${RUN#"$ROOT"/}" >&2
echo "compare_outputs.sh: $((SECONDS - start)) s" >&2
[ "$missing" -eq 0 ] || echo "compare_outputs.sh: $missing files not compared (their job failed)" >&2
echo "$same identical, $differ differ"
[ "$differ" -eq 0 ] && [ "$missing" -eq 0 ]
exit
}
