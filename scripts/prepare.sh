#!/usr/bin/env bash
# Installs what the npm-side tests need (Debian chromium, npm, libkrb5-dev;
# the extension's npm packages; Node 24 and code-server under
# vscode-extension/e2e; the interop npm packages and the real agents) and
# builds the OpenTelemetry Collector the telemetry tests need
# (scripts/build-otelcol.sh), and nothing else. scripts/test.sh starts it in the background while the Go
# tests run, since most of it waits on the network; interop/run.sh and
# vscode-extension/scripts/test.sh then find everything in place (each
# npm ci is skipped when node_modules already matches its lockfile) and
# install only what is still missing. Exits non-zero if an install failed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ext="$root/vscode-extension"
t0=${t0:-$(date +%s)}
# shellcheck source=../vscode-extension/scripts/setup.sh
. "$ext/scripts/setup.sh"

# The OpenTelemetry Collector the telemetry tests run against
# (scripts/build-otelcol.sh: a few minutes of compiling, a no-op when the
# cached binary is current) builds beside the installs, which mostly wait on
# the network. scripts/test.sh's main go test run skips the tests that need
# it (ACP_BRIDGE_OTELCOL_OPTIONAL=1); its collector stage runs them after
# this script ends.
stamp "prepare: background: scripts/build-otelcol.sh"
"$root/scripts/build-otelcol.sh" &
otelcol_pid=$!

# One apt-get at a time (dpkg's lock): everything Debian first.
apt_ensure npm chromium libkrb5-dev g++
npm_ci "$ext"
for d in interop/ts interop/claude interop/agents; do
  npm_ci "$root/$d"
done
code_server_ensure
if ! wait "$otelcol_pid"; then
  echo "prepare: scripts/build-otelcol.sh failed" >&2
  exit 1
fi
stamp "prepare: otelcol built"
stamp "prepare: done"
