#!/usr/bin/env bash
# gecko_same.sh: checks that two builds of profkit print the same thing on
# Gecko and Firefox profiles, byte for byte: `top`, `top --json`, `tree
# --json`, `info`, `markers --list --json`, the flame page, `convert --to
# folded` and `convert --to firefox` (stdout, stderr and exit status of
# each) on every file given, by default the benchmark input of
# bench/compare.sh (generated if missing), ../shared/fixtures/firefox/*,
# ../shared/fixtures/wild/**, and the fixtures of every reader of JSON
# (tests/data/{gecko,firefox,chrome,speedscope,v8_cpuprofile}). For a
# change to the Gecko reader, the JSON layer under it or the model's
# tables, which must not change any output.
#
# Usage: bench/gecko_same.sh PROFKIT_A PROFKIT_B [FILE...]
# Prints one line per difference and "N identical, M differ"; exits 1 when
# something differs.
set -uo pipefail
cd "$(dirname "$0")/.."
a=$(realpath "$1") b=$(realpath "$2")
shift 2
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  big=build/bench/gecko_same_100mb.json
  if [ ! -f "$big" ]; then
    mkdir -p build/bench
    cc -O2 -o build/bench/gecko_gen bench/gecko_gen.c && build/bench/gecko_gen "$big" 100 8 1 > /dev/null
  fi
  files=("$big" ../shared/fixtures/firefox/*)
  while IFS= read -r f; do files+=("$f"); done < <(find ../shared/fixtures/wild -type f ! -name '*.md' | sort)
  for d in gecko firefox chrome speedscope v8_cpuprofile; do
    for f in tests/data/$d/*; do
      case $f in *.expect | *.md) ;; *) files+=("$f") ;; esac
    done
  done
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
same=0 differ=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  for cmd in "top" "top --json" "tree --json" "info" "markers --list --json" "flame" \
    "convert --to folded" "convert --to firefox"; do
    for side in a b; do
      bin=$a; [ $side = b ] && bin=$b
      # shellcheck disable=SC2086
      LC_ALL=C timeout 300 "$bin" $cmd "$f" > "$out/$side.out" 2> "$out/$side.err"
      echo "exit $?" >> "$out/$side.err"
      # the error text names the binary's path: the same name for both
      sed -i "s|$bin|PROFKIT|g" "$out/$side.err"
    done
    if cmp -s "$out/a.out" "$out/b.out" && cmp -s "$out/a.err" "$out/b.err"; then
      same=$((same + 1))
    else
      differ=$((differ + 1))
      echo "DIFFER: $cmd $f"
    fi
  done
done
echo "$same identical, $differ differ"
[ "$differ" -eq 0 ]
