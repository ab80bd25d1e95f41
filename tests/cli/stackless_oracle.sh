#!/usr/bin/env bash
# Samples without a stack in profkit's totals against the Firefox
# Profiler's own loader (tests/oracle/stackless_compare.py): on the
# processed profiles with null stacks, the loader's call tree holds the
# samples with a stack only, and profkit's total is larger by exactly the
# file's null stacks (docs/formats/firefox.md says why profkit keeps them
# in its total); on V8 .cpuprofiles with "(program)" and "(garbage
# collector)" samples and a Chrome trace with a sample on the "(root)"
# node, the loader leaves no sample out of its call tree and counts each
# function as profkit does (docs/formats/chrome.md).
. "$(dirname "$0")/lib.sh"
need_shared
need_loader
F="$FIX/firefox"
if timeout 900 python3 "$PROFKIT_SRC/tests/oracle/stackless_compare.py" --profkit "$PROFKIT" --cli "$CLI" \
     --work "$TMP/work" "$F/samply-profile_without_js-v66.json" \
     "$F/samply-profile_counters_with_sorted_processes-v66.json" "$F/samply-ls-profile-v41.json" \
     "$FIX/wild/v8/Chrome_65_sucrase.cpuprofile" "$PROFKIT_SRC/tests/data/v8_cpuprofile/ok_node.cpuprofile" \
     "$PROFKIT_SRC/tests/data/chrome/ok_marker_edges.json" > "$TMP/report" 2>&1; then
  pass
else
  fail "samples without a stack against the loader:"
fi
cat "$TMP/report"
# the report names each case it checked
for what in "13069 samples, profkit's total 13083" "1 on the (root) node" "'(garbage collector)': 2717"; do
  if grep -qF "$what" "$TMP/report"; then pass; else fail "the report does not say: $what"; fi
done
finish
