#!/usr/bin/env bash
# Interop tests of acp-bridge with ACP code nobody on this project wrote
# (docs/interop.md):
#   1. interop/go: the example agent and example client of
#      github.com/coder/acp-go-sdk (from the Go module proxy) around the real
#      bridge binary, under -race;
#   2. interop/ts: the official TypeScript SDK as the bridge's parent, and the
#      ACP v1 JSON schema check of every line the bridge wrote in 1 and 2;
#   3. interop/claude: the real Claude Agent ACP adapter (npm) as the bridge's
#      child, offline against a scripted fake Messages API on 127.0.0.1,
#      with the TypeScript SDK as parent; every bridge line schema-checked;
#   4. interop/agents: the real Gemini CLI, Codex (codex-acp), OpenCode, Qwen
#      Code and Claude agents as the bridge's child, each offline against a
#      scripted fake model API on 127.0.0.1 (one test file per agent): a deny
#      rule keeps build/ on disk, an allow-once card makes made.txt, the
#      audit log holds the decisions; and per agent the matrix (each mode x
#      rm, .env, .git/hooks, a fetch; test/matrix-*.test.mjs, one agent
#      process for all its cells). Steps 3 and 4 run their agents under
#      the Node 24 that interop/agents pins (npm package "node"), since the
#      Claude adapter and Qwen Code declare node >= 22.
# Needs go and node >= 20 with npm; fetches the npm packages (npm ci) and
# the Go SDK module on first use. Exits non-zero if anything failed.
# Set ACP_INTEROP_KEEP=DIR to keep the binary and the transcripts in DIR.
set -uo pipefail
cd "$(dirname "$0")/.."

# Minimum number of go-*.jsonl transcripts interop/go writes (one per
# scenario: 3 with the example agent, 2 with the example client).
expect_go_transcripts=5

need() { command -v "$1" >/dev/null 2>&1 || { echo "interop: $1 is required" >&2; exit 2; }; }
need go
need node
need npm
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "interop: node >= 20 is required (found $(node --version))" >&2
  exit 2
fi

work=${ACP_INTEROP_KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/acp-interop.XXXXXX")}
mkdir -p "$work"
transcripts=$work/transcripts
rm -rf "$transcripts"
mkdir -p "$transcripts"
failed=()

# npm_ci DIR: npm ci in DIR unless its node_modules already matches its
# lockfile (scripts/prepare.sh may have installed it while the Go tests ran;
# the same marker as vscode-extension/scripts/setup.sh).
npm_ci() {
  if [ -d "$1/node_modules" ] && cmp -s "$1/package-lock.json" "$1/node_modules/.acpb-lock"; then return 0; fi
  (cd "$1" && npm ci --no-audit --no-fund --loglevel=error) && cp "$1/package-lock.json" "$1/node_modules/.acpb-lock"
}

echo "== interop: npm ci (interop/ts)"
(npm_ci interop/ts) || { echo "interop: npm ci failed" >&2; exit 1; }

echo "== interop: go build ./cmd/acp-bridge"
bin=$work/acp-bridge
go build -o "$bin" ./cmd/acp-bridge || { echo "interop: the bridge does not build" >&2; exit 1; }

echo "== interop: go test -race ./interop/... (acp-go-sdk example agent and client)"
ACP_INTEROP_TRANSCRIPT_DIR=$transcripts go test -race -count=1 ./interop/... || failed+=("go interop tests")

echo "== interop: node --test (TypeScript SDK parent, ACP v1 schema validation)"
(cd interop/ts && ACP_BRIDGE_BIN=$bin ACP_INTEROP_TRANSCRIPT_DIR=$transcripts \
  ACP_INTEROP_EXPECT_GO_TRANSCRIPTS=$expect_go_transcripts \
  node --test --test-reporter=spec test/) || failed+=("node interop tests")

# timed LABEL CMD...: runs CMD, prints how long it took, returns its status.
timed() {
  local label=$1 start=$SECONDS status
  shift
  "$@"
  status=$?
  echo "== interop: $label took $((SECONDS - start))s (exit $status)"
  return $status
}

# Steps 3 and 4 share one Node for the agents: Node 24 from interop/agents.
echo "== interop: npm ci (interop/claude, interop/agents: the real agents)"
claude_ok=1
agents_ok=1
timed "npm ci interop/claude" npm_ci interop/claude || { failed+=("npm ci (interop/claude)"); claude_ok=0; }
timed "npm ci interop/agents" npm_ci interop/agents || { failed+=("npm ci (interop/agents)"); agents_ok=0; }
agent_node=$PWD/interop/agents/node_modules/node/bin/node
if ! [ -x "$agent_node" ] || ! "$agent_node" --version >/dev/null 2>&1; then
  echo "interop: the pinned Node 24 is not usable; the agents run under $(node --version)" >&2
  agent_node=$(command -v node)
fi

# After step 2: interop/claude imports interop/ts/lib (and its node_modules).
if [ $claude_ok = 1 ]; then
  echo "== interop: node --test (interop/claude: real Claude Agent ACP adapter, fake Messages API)"
  (cd interop/claude && ACP_BRIDGE_BIN=$bin ACP_INTEROP_TRANSCRIPT_DIR=$transcripts \
    timed "interop/claude tests" "$agent_node" --test --test-reporter=spec test/*.test.mjs) || failed+=("claude interop tests")
fi

# interop/agents imports interop/ts/lib and interop/claude/lib (the Claude
# adapter installed there). Two test files at a time: the machine may have
# two cores; each agent's describe line shows its own time.
if [ $agents_ok = 1 ] && [ $claude_ok = 1 ]; then
  echo "== interop: node --test (interop/agents: Gemini CLI, Codex, OpenCode, Qwen Code, Claude; fake model APIs)"
  (cd interop/agents && ACP_BRIDGE_BIN=$bin ACP_INTEROP_TRANSCRIPT_DIR=$transcripts \
    timed "interop/agents tests" "$agent_node" --test --test-concurrency=2 --test-reporter=spec test/*.test.mjs) || failed+=("real agent interop tests")
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "interop: FAILED: ${failed[*]} (transcripts kept in $transcripts)" >&2
  exit 1
fi
echo "interop: ok"
[ -n "${ACP_INTEROP_KEEP:-}" ] || rm -rf "$work"
