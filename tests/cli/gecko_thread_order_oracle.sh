#!/usr/bin/env bash
# Raw Gecko threads by index against the Firefox Profiler's own loader
# (docs/testing.md; scripts/tools.sh installs it): in every raw Gecko file
# of ../shared/fixtures/firefox and tests/data/gecko whose `processes` come
# before its `threads`, profkit's thread I (info, `markers --list --json
# --thread I`, `top --json --thread I`) is the loader's thread I, its
# counter I the loader's counter I, and `convert --to firefox` keeps both
# orders (tests/oracle/gecko_thread_order.py;
# the others are skipped there). Pairing by index, not by name, is the point:
# tests/data/gecko/ok_processes_first.json has two `DOM Worker` and three
# `GeckoMain` threads in different processes, markers and counters;
# order_processes_first_nested.json adds a process inside a sub-process, which
# the loader does not read and profkit numbers last (not an ok_ file: the
# oracles that compare the loader's view of an ok_ file with its round trip
# would count that thread as one too many).
. "$(dirname "$0")/lib.sh"
need_shared
need_loader
files=("$FIX"/firefox/gecko-*.json "$PROFKIT_SRC"/tests/data/gecko/ok_*.json
       "$PROFKIT_SRC"/tests/data/gecko/order_*.json)
if python3 "$PROFKIT_SRC/tests/oracle/gecko_thread_order.py" "$PROFKIT" "$CLI" "$TMP" "${files[@]}" > "$TMP/cmp" 2>&1; then
  pass
else
  fail "threads by index differ from the Firefox Profiler's"
fi
cat "$TMP/cmp"
n=$(grep '^PASS ' "$TMP/cmp" | grep -vc 'skipped')
# gecko-2, gecko-11 and the two ok_processes_first files at least
[ "$n" -ge 4 ] && pass || fail "only $n files with processes before threads were compared"
finish
