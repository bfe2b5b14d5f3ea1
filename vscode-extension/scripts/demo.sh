#!/usr/bin/env bash
# The whole thing in a browser: installs what is missing (Node 24 and
# code-server from npm, libkrb5-dev from apt), builds the .vsix with the Go
# binary, and starts code-server on 127.0.0.1:$PORT (default 8080) with a fresh
# profile, the extension installed, the built-in demo agent as the default
# agent, and a small sample workspace. Open the printed address; Ctrl-C stops
# everything (code-server's whole process group, the bridge, the agent).
set -euo pipefail
ext="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ext"
t0=$(date +%s)
# shellcheck source=setup.sh
. "$ext/scripts/setup.sh"

apt_ensure npm bubblewrap # bubblewrap: the OS sandbox every agent runs in (docs/sandbox.md)
npm_ci "$ext"
code_server_ensure
stamp "building the extension"
mkdir -p "$ext/.cache"
vsix="$(VSIX_OUT="$ext/.cache/acp-bridge-demo.vsix" bash scripts/vsix.sh | tail -1)"
stamp "starting code-server"
export PORT="${PORT:-8080}"
exec node test/e2e/codeserver.mjs "$vsix"
