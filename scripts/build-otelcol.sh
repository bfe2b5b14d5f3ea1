#!/usr/bin/env bash
# Builds tools/otelcol, an OpenTelemetry Collector made of the Collector's
# own Go modules (OTLP receiver, file exporter), into a cache directory,
# where telemetry/collector_test.go finds it: $ACP_BRIDGE_OTELCOL_CACHE, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/acp-bridge/otelcol. The build is slow (a
# few minutes on two cores): it is skipped when the binary there was built
# from the same tools/otelcol sources. While it runs, otelcol.building holds
# its pid and the test waits for it. scripts/prepare.sh may start it in the
# background.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="$root/tools/otelcol"
cache="${ACP_BRIDGE_OTELCOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/acp-bridge/otelcol}"
mkdir -p "$cache"
key="$(cat "$src/go.mod" "$src/go.sum" "$src/main.go" | sha256sum | cut -c1-16)"
bin="$cache/otelcol"
if [ -x "$bin" ] && [ "$(cat "$cache/otelcol.key" 2>/dev/null)" = "$key" ]; then
  echo "build-otelcol: $bin is up to date"
  exit 0
fi
echo $$ >"$cache/otelcol.building"
trap 'rm -f "$cache/otelcol.building" "$bin.tmp.$$"' EXIT
echo "build-otelcol: building $bin"
(cd "$src" && GOFLAGS=-mod=readonly go build -trimpath -o "$bin.tmp.$$" .)
mv -f "$bin.tmp.$$" "$bin"
echo "$key" >"$cache/otelcol.key"
"$bin" --version
