#!/usr/bin/env bash
# Runs every benchmark (bench/*.sh except this one, lib.sh and compare.sh, the
# A/B harness) with the given profkit.
set -euo pipefail
cd "$(dirname "$0")/.."
PROFKIT=$(realpath "${1:-build/release/profkit}")
export PROFKIT
for b in bench/*.sh; do
  case "$(basename "$b")" in run.sh | lib.sh | compare.sh) continue ;; esac
  echo "=== $b"
  bash "$b"
done
