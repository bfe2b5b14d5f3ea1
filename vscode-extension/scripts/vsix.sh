#!/usr/bin/env bash
# Builds the acp-bridge Go binary into bin/<platform>-<arch>/ and packs the
# extension (esbuild bundles + the binary) into a .vsix with @vscode/vsce.
# Prints the path of the .vsix on its last line.
#   VSIX_OUT=path   where to write it (default: vscode-extension/acp-bridge-<version>.vsix)
#   BRIDGE_BIN=path use this already built binary instead of running go build
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
[ "$plat" = win32 ] && bin="$bin.exe"
rm -rf bin && mkdir -p "$(dirname "$bin")"
if [ -n "${BRIDGE_BIN:-}" ]; then
  cp "$BRIDGE_BIN" "$bin"
else
  (cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "vscode-extension/$bin" ./cmd/acp-bridge) >&2
fi
chmod +x "$bin"
"./$bin" --version >&2

node scripts/build.mjs >&2
version="$(node -p "require('./package.json').version")"
out="${VSIX_OUT:-$ext/acp-bridge-$version.vsix}"
npx --no-install vsce package --no-dependencies -o "$out" >&2
echo "$out"
