#!/usr/bin/env bash
# Runs every benchmark (bench/*.sh except this one and lib.sh) with the given profkit.
set -euo pipefail
cd "$(dirname "$0")/.."
PROFKIT=$(realpath "${1:-build/release/profkit}")
export PROFKIT
for b in bench/*.sh; do
  case "$(basename "$b")" in run.sh | lib.sh) continue ;; esac
  echo "=== $b"
  bash "$b"
done
