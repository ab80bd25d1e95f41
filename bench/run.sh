#!/usr/bin/env bash
# Runs every benchmark (bench/*.sh except this one) with the given profkit.
set -euo pipefail
cd "$(dirname "$0")/.."
PROFKIT=$(realpath "${1:-build/release/profkit}")
export PROFKIT
for b in bench/*.sh; do
  [ "$(basename "$b")" = run.sh ] && continue
  echo "=== $b"
  bash "$b"
done
