import assert from "node:assert/strict";
import { test } from "node:test";
import { agentStartMessage, bridgeConfigPath, isMissingAgent } from "../../src/agentHints";

test("a missing agent gets one message with the npm package of its family", () => {
  const notFound = 'start agent claude: exec: "npx": executable file not found in $PATH';
  const cases: [string, string, string[], string][] = [
    ["claude", "npx", ["@agentclientprotocol/claude-agent-acp"], "@agentclientprotocol/claude-agent-acp"],
    ["gemini", "gemini", ["--acp"], "@google/gemini-cli"],
    ["codex", "npx", ["@zed-industries/codex-acp"], "@zed-industries/codex-acp"],
    ["opencode", "opencode", ["acp"], "opencode-ai"],
    ["qwen", "qwen", ["--acp"], "@qwen-code/qwen-code"],
    ["my-agent", "/opt/gemini/bin/gemini", [], "@google/gemini-cli"], // family from the command
  ];
  for (const [agent, cmd, args, pkg] of cases) {
    const m = agentStartMessage(agent, notFound, cmd, args);
    assert.match(m, new RegExp(`^${agent} is not installed`), agent);
    assert.ok(m.includes(`npm install -g ${pkg}`), `${agent}: ${m}`);
    assert.ok(!m.includes("executable file not found"), "no raw exec error");
  }
  const unknown = agentStartMessage("goose", "fork/exec /usr/bin/goose: no such file or directory", "goose");
  assert.match(unknown, /goose is not installed/);
  assert.ok(!unknown.includes("npm install"), "no guessed package for an unknown family");
});

test("other start errors pass through as they are", () => {
  assert.equal(isMissingAgent("initialize: no answer within 30 s"), false);
  assert.equal(agentStartMessage("claude", "initialize: no answer within 30 s", "npx"), "Could not start a session with claude: initialize: no answer within 30 s");
});

test("bridgeConfigPath: user config under XDG_CONFIG_HOME or ~/.config, workspace file in the folder", () => {
  assert.equal(bridgeConfigPath("user", {}, "/home/me"), "/home/me/.config/acp-bridge/config.yaml");
  assert.equal(bridgeConfigPath("user", { XDG_CONFIG_HOME: "/x" }, "/home/me"), "/x/acp-bridge/config.yaml");
  assert.equal(bridgeConfigPath("workspace", {}, "/home/me", "/w"), "/w/.acp-bridge.yaml");
});
