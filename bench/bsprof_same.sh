#!/usr/bin/env bash
# Whether two builds of profkit read bsprof files the same: for every
# bsprof file given (default: tests/data/bsprof/*.bsprof*, the fixtures of
# ../shared/fixtures named *.bsprof*, and bench/compare.sh's 200 MB
# benchmark), `mem`, `mem --json`, `top --json`, `counters --json`, the
# flame page and `convert --to bsprof` are run with both and their
# standard output, standard error, exit status and written files compared
# byte for byte. Prints one line per difference and a count; exits 1 when
# anything differs.
# Usage: bash bench/bsprof_same.sh BASE_PROFKIT NEW_PROFKIT [FILE...]
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bash bench/bsprof_same.sh BASE_PROFKIT NEW_PROFKIT [FILE...]" >&2; exit 2; }
BASE=$1 NEW=$2
shift 2
if [ $# -gt 0 ]; then
  files=("$@")
else
  files=(tests/data/bsprof/*.bsprof*)
  while IFS= read -r f; do files+=("$f"); done < <(find ../shared/fixtures -name '*.bsprof*' ! -name '*.expect' 2>/dev/null | sort)
  [ -s build/bench/compare/bench-200mb.bsprof ] && files+=(build/bench/compare/bench-200mb.bsprof)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
run() { # TAG BIN ARGS... (the file written, if any, is $tmp/TAG.out)
  local tag=$1 bin=$2
  shift 2
  "$bin" "$@" > "$tmp/$tag.stdout" 2> "$tmp/$tag.stderr"
  echo $? > "$tmp/$tag.rc"
}
for f in "${files[@]}"; do
  case $f in *.expect) continue ;; esac
  for cmd in "mem -n 20" "mem --json" "top --json" "counters --json" "flame" "convert"; do
    for side in base new; do
      bin=$BASE; [ $side = new ] && bin=$NEW
      rm -f "$tmp/$side.out"
      case $cmd in
        flame) run $side "$bin" flame -q -o "$tmp/$side.out" "$f" ;;
        convert) run $side "$bin" convert --to bsprof -o "$tmp/$side.out" "$f" ;;
        *) run $side "$bin" $cmd "$f" ;;
      esac
      # the written file's name appears in messages: the same for both
      sed -i "s#$tmp/$side.out#OUT#g" "$tmp/$side.stderr" "$tmp/$side.stdout"
    done
    n=$((n + 1))
    same=1
    for part in stdout stderr rc; do
      cmp -s "$tmp/base.$part" "$tmp/new.$part" || same=0
    done
    if [ -e "$tmp/base.out" ] || [ -e "$tmp/new.out" ]; then
      cmp -s "$tmp/base.out" "$tmp/new.out" || same=0
    fi
    if [ "$cmd" = convert ] && [ -s "$tmp/new.out" ]; then
      # the round trip: the written file read back by each build
      run base "$BASE" mem --json "$tmp/base.out"
      run new "$NEW" mem --json "$tmp/new.out"
      cmp -s "$tmp/base.stdout" "$tmp/new.stdout" && cmp -s "$tmp/base.rc" "$tmp/new.rc" || same=0
    fi
    [ $same = 1 ] || { bad=$((bad + 1)); echo "differs: $cmd $f"; }
  done
done
echo "bsprof_same: $n comparisons, $bad differ"
[ $bad = 0 ]
