#!/usr/bin/env bash
# Makes the real recordings of this directory with Debian's linux-perf (run
# it here, where perf may record: root, or perf_event_paranoid <= 1):
#   ok_record.data        perf record -e cpu-clock -g -F 1000 (a file)
#   ok_record_pipe.data   the same written to a pipe (perf record -o -)
#   record.script         perf script of each, with pid/tid, time, period,
#   record_pipe.script    event, and per frame the address, symbol and DSO
# of tests/oracle/perf_burn.c (three threads). tests/unit/test_perf_data.c
# reads each recording and checks every sample against its perf script
# output: thread, time, period and each frame's DSO and address.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$tmp/perf_burn" "$here/../../oracle/perf_burn.c"
fields=comm,pid,tid,time,period,event,ip,sym,dso
# perf keeps a copy of each DSO it saw under $HOME/.debug: a scratch one.
HOME=$tmp perf record -q -e cpu-clock -g -F 1000 -o "$here/ok_record.data" "$tmp/perf_burn" 3000
HOME=$tmp perf record -q -e cpu-clock -g -F 1000 -o - "$tmp/perf_burn" 3000 > "$here/ok_record_pipe.data"
HOME=$tmp perf script -F "$fields" -i "$here/ok_record.data" > "$here/record.script"
HOME=$tmp perf script -F "$fields" -i "$here/ok_record_pipe.data" > "$here/record_pipe.script"
chmod 644 "$here"/ok_record*.data
