#!/usr/bin/env bash
# Installs the Debian packages profkit builds and tests with, when any is
# missing. Does nothing when all are present. Runs apt-get as root, or through
# sudo when not root.
#   scripts/deps.sh           build dependencies (make demo)
#   scripts/deps.sh --demo    build dependencies + gperftools for the demo
#   scripts/deps.sh --test    build + test dependencies and oracles (make check)
set -euo pipefail

# What every build needs, then the packages of the optional parts (README,
# "Install"): debuginfod, disassembly, the server, the store and its
# ClickHouse engine; a build without one of them leaves that part out.
pkgs=(build-essential cmake pkg-config zlib1g-dev libzstd-dev libisal-dev libyajl-dev libelf-dev libdw-dev
      libdebuginfod-dev libcapstone-dev libmicrohttpd-dev libsqlite3-dev libcurl4-openssl-dev)
# The viewer page's scripts are minified at build time where terser is
# installed (CMakeLists.txt; without it the page is ~150 KB larger).
pkgs+=(terser)
if [ "${1:-}" = "--demo" ]; then
  pkgs+=(google-perftools libgoogle-perftools-dev)
fi
if [ "${1:-}" = "--test" ]; then
  # Oracles (docs/testing.md) and what the tests compile against.
  pkgs+=(libcmocka-dev
         google-perftools libgoogle-perftools-dev golang-go golang-github-google-pprof-dev
         protobuf-compiler zstd gzip python3 curl python3-jsonschema
         elfutils debuginfod dwz xz-utils binutils linux-perf valgrind libc6-dbg llvm openssl)
  # A static link against libprofkit.a takes the private libraries of its
  # packages too (pkg-config --static; tests/cli/install_consumer.sh):
  # libcurl's and libmicrohttpd's need these.
  pkgs+=(libnghttp2-dev librtmp-dev libssh2-1-dev libpsl-dev libkrb5-dev libldap-dev libunistring-dev)
  # The profile store's second engine, started by tests/cli/store_clickhouse.sh.
  pkgs+=(clickhouse-server sqlite3)
  # The viewer page's browser tests (Debian's chromium, driven by playwright-core).
  pkgs+=(chromium)
  # A real Gecko profile, recorded by Firefox itself (tests/cli/gecko_firefox_oracle.sh),
  # installed with the packages it recommends (below), as the test was made.
  pkgs+=(firefox-esr)
  # bench/inflate_page.sh: the page's inflater against Debian's pako (docs/viewer.md, "markers").
  pkgs+=(node-pako)
  # Node may come from another package source (nodesource bundles npm);
  # only ask Debian for it when there is none at all.
  command -v npm >/dev/null 2>&1 || pkgs+=(nodejs npm)
fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
SUDO=
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
with_recommends=()
without=()
for p in "${missing[@]}"; do
  case $p in firefox-esr) with_recommends+=("$p") ;; *) without+=("$p") ;; esac
done
[ ${#without[@]} -eq 0 ] || $SUDO apt-get install -y -qq --no-install-recommends "${without[@]}" >/dev/null
[ ${#with_recommends[@]} -eq 0 ] || $SUDO apt-get install -y -qq "${with_recommends[@]}" >/dev/null
