#!/usr/bin/env bash
# Builds the acp-bridge Go binary and its companion acp-bridge-org (OPA and
# telemetry; the bridge looks for it in its own directory only) into
# bin/<platform>-<arch>/ and packs the extension (esbuild bundles + both
# binaries) into a .vsix with @vscode/vsce.
# Prints the path of the .vsix on its last line.
#   VSIX_OUT=path   where to write it (default: vscode-extension/acp-bridge-<version>.vsix)
#   BRIDGE_BIN=path use this already built binary instead of running go build;
#                   its companion must be beside it (make build builds both)
set -euo pipefail
ext="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "$ext/.." && pwd)"
cd "$ext"

if [ ! -x node_modules/.bin/vsce ] || ! cmp -s package-lock.json node_modules/.acpb-lock; then
  npm ci --no-audit --no-fund >&2
  cp package-lock.json node_modules/.acpb-lock
fi

goos="$(go env GOOS)"; goarch="$(go env GOARCH)"
case "$goos" in windows) plat=win32 ;; *) plat="$goos" ;; esac
case "$goarch" in amd64) arch=x64 ;; 386) arch=ia32 ;; *) arch="$goarch" ;; esac
bin="bin/$plat-$arch/acp-bridge"
org="bin/$plat-$arch/acp-bridge-org"
[ "$plat" = win32 ] && bin="$bin.exe" && org="$org.exe"
rm -rf bin && mkdir -p "$(dirname "$bin")"
if [ -n "${BRIDGE_BIN:-}" ]; then
  cp "$BRIDGE_BIN" "$bin"
  cp "$(dirname "$BRIDGE_BIN")/$(basename "$org")" "$org"
else
  (cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "vscode-extension/$bin" ./cmd/acp-bridge) >&2
  (cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "vscode-extension/$org" ./cmd/acp-bridge-org) >&2
fi
chmod +x "$bin" "$org"
"./$bin" --version >&2
"./$org" --version >&2

node scripts/build.mjs >&2
version="$(node -p "require('./package.json').version")"
out="${VSIX_OUT:-$ext/acp-bridge-$version.vsix}"
npx --no-install vsce package --no-dependencies -o "$out" >&2
echo "$out"
