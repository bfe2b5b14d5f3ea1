#!/usr/bin/env bash
# The whole thing in a browser: installs what is missing (Node 24 and
# code-server from npm, libkrb5-dev from apt), builds the .vsix with the Go
# binary, and starts code-server on 127.0.0.1:$PORT (default 8080) with a fresh
# profile, the extension installed, the built-in demo agent as the default
# agent, and a small sample workspace. Open the printed address; Ctrl-C stops
# everything at once (code-server, the bridge and every agent: see
# test/e2e/proctree.mjs). It first says what it will install and how long that
# takes on this machine; it waits for another installer holding apt's lock.
set -euo pipefail
ext="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ext"
t0=$(date +%s)
# shellcheck source=setup.sh
. "$ext/scripts/setup.sh"

# What this run installs, and how long that takes here. Seconds measured on a
# quiet 2-core machine (README): apt 40, the extension's npm ci 15, Node 24 13,
# code-server 131 (it compiles native modules), the .vsix 30 (a cold Go build);
# a busy machine is slower, about as the square root of its load per core
# (8 min 29 s at load 10 on 2 cores).
plan=()
est=30
pkgs="$(apt_missing npm bubblewrap libkrb5-dev g++)"
[ -z "$pkgs" ] || { plan+=("Debian packages with apt-get: $pkgs"); est=$((est + 40)); }
npm_current "$ext" || { plan+=("the extension's npm packages (npm ci in vscode-extension/)"); est=$((est + 15)); }
npm_current "$ext/e2e/node24" || { plan+=("Node 24 from npm (vscode-extension/e2e/node24)"); est=$((est + 13)); }
npm_current "$ext/e2e/code-server" || { plan+=("code-server 4.139.1 from npm, compiling its native modules (vscode-extension/e2e/code-server; the long part)"); est=$((est + 131)); }
gocache="$(go env GOCACHE 2>/dev/null || true)"
[ -n "$gocache" ] && [ -d "$gocache" ] || { plan+=("Go modules of the bridge (go build, cold)"); est=$((est + 90)); }
cores=$(nproc 2>/dev/null || echo 2)
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
est=$(awk -v e="$est" -v l="$load" -v c="$cores" 'BEGIN { f = (l + 1) / c; if (f < 1) f = 1; f = sqrt(f); if (c < 2) f *= 2 / c; printf "%d", e * f + 0.5 }')
if [ ${#plan[@]} -gt 0 ]; then
  echo "== make demo installs, once (kept for later runs; nothing outside this repository but the Debian packages):"
  printf '     - %s\n' "${plan[@]}"
  echo "     - then builds the .vsix (the Go bridge binary and the extension) and starts code-server"
  echo "   First run on this machine: about $(( (est + 30) / 60 )) min ($cores cores, load $load now; 3-4 min on a quiet 2-core machine)."
else
  echo "== everything is installed: building the .vsix and starting code-server (about ${est}s here)."
fi

apt_ensure npm bubblewrap # bubblewrap: the OS sandbox every agent runs in (docs/sandbox.md)
npm_ci "$ext"
code_server_ensure
stamp "building the extension"
mkdir -p "$ext/.cache"
vsix="$(VSIX_OUT="$ext/.cache/acp-bridge-demo.vsix" bash scripts/vsix.sh | tail -1)"
stamp "starting code-server (ready in $(( $(date +%s) - t0 ))s; estimated ${est}s)"
export PORT="${PORT:-8080}"
exec node test/e2e/codeserver.mjs "$vsix"
