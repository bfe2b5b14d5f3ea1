import assert from "node:assert/strict";
import { test } from "node:test";
import pkg from "../../package.json";
import {
  agentMode,
  buildBridgeSettings,
  personValue,
  listBypasses,
  listStoredRules,
  mergeAgents,
  mergePermissions,
  planPersist,
  planRevoke,
  planRevokeBypass,
  type RawSettings,
} from "../../src/settings";

const contributed = (pkg as any).contributes.configuration.properties;
const defaults = contributed["acpBridge.agents"].default;

function raw(over: Partial<RawSettings> = {}): RawSettings {
  return {
    agents: { defaultValue: defaults },
    permissions: { defaultValue: contributed["acpBridge.permissions"].default },
    defaultAgent: "demo",
    ...over,
  };
}

test("package.json presets: demo runs the bridge itself, the others their ACP commands", () => {
  assert.deepEqual(defaults.demo, { command: "${bridge}", args: ["demo-agent"] });
  assert.deepEqual(defaults.claude, { command: "npx", args: ["@agentclientprotocol/claude-agent-acp"] });
  assert.deepEqual(defaults.gemini, { command: "gemini", args: ["--acp"] });
  assert.deepEqual(defaults.codex, { command: "npx", args: ["@zed-industries/codex-acp"] });
  assert.deepEqual(defaults.goose, { command: "goose", args: ["acp"] });
  assert.deepEqual(defaults.opencode, { command: "opencode", args: ["acp"] });
  assert.equal(contributed["acpBridge.defaultAgent"].default, "demo");
  const agentSchema = contributed["acpBridge.agents"].additionalProperties.anyOf[0];
  assert.deepEqual(agentSchema.properties.mode.enum, ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"]);
});

test("didChange payload: ${bridge} resolved, prefix-free keys, only what the person set besides agents", () => {
  const s = buildBridgeSettings(raw(), "/opt/acp-bridge");
  assert.deepEqual(s.agents["demo"], { command: "/opt/acp-bridge", args: ["demo-agent"] });
  assert.equal(s.defaultAgent, "demo");
  assert.deepEqual(s.permissions, { allow: [], ask: [], deny: [], additionalDirectories: [] }, "no defaultMode unless set");
  assert.deepEqual(Object.keys(s).sort(), ["agents", "defaultAgent", "permissions"]);
  // Without a known binary the placeholder is left for the bridge to refuse, never guessed.
  assert.equal(buildBridgeSettings(raw(), undefined).agents["demo"].command, "${bridge}");
  const set = buildBridgeSettings(raw({ timeoutSeconds: 60, timeoutOutcome: "cancel", logLevel: "debug", auditPath: "/tmp/a.jsonl" }), "/b");
  assert.deepEqual(set.approvals, { timeoutSeconds: 60, timeoutOutcome: "cancel" });
  assert.deepEqual(set.log, { level: "debug" }, "acpBridge.logLevel is the bridge's log.level");
  assert.deepEqual(set.audit, { path: "/tmp/a.jsonl" });
});

test("personValue ignores the default layer; agentMode: bypass, then the agent's mode, then defaultMode", () => {
  assert.equal(personValue({ defaultValue: 300 }), undefined);
  assert.equal(personValue({ defaultValue: 300, globalValue: 60, workspaceValue: 30 }), 30);
  const s = buildBridgeSettings(
    raw({
      agents: { defaultValue: defaults, globalValue: { claude: { mode: "plan" }, goose: { bypassPermissions: true, mode: "plan" } } },
      permissions: { defaultValue: {}, globalValue: { defaultMode: "acceptEdits" } },
    }),
    "/b",
  );
  assert.equal(agentMode(s, "claude"), "plan");
  assert.equal(agentMode(s, "goose"), "bypassPermissions");
  assert.equal(agentMode(s, "demo"), "acceptEdits");
  assert.equal(agentMode(buildBridgeSettings(raw(), "/b"), "demo"), "default");
});

test("didChange payload: unknown defaultAgent falls back to demo; a bad timeout is not sent", () => {
  const s = buildBridgeSettings(raw({ defaultAgent: "nope", timeoutSeconds: -4 }), "/b");
  assert.equal(s.defaultAgent, "demo");
  assert.equal(s.approvals, undefined);
});

test("agents merge across layers: fields override, env merges, rule lists union, null removes", () => {
  const merged = mergeAgents({
    defaultValue: { demo: { command: "${bridge}", args: ["demo-agent"] }, goose: { command: "goose", args: ["acp"] } },
    globalValue: { demo: { env: { A: "1" }, permissions: { allow: ["Bash(ls *)"] } }, goose: null },
    workspaceValue: { demo: { mode: "plan", env: { B: "2" }, permissions: { allow: ["Bash(go test *)"], deny: ["Read(.env)"] } }, mine: { command: "x" } },
  });
  assert.deepEqual(merged, {
    demo: {
      command: "${bridge}",
      args: ["demo-agent"],
      env: { A: "1", B: "2" },
      mode: "plan",
      permissions: { allow: ["Bash(ls *)", "Bash(go test *)"], ask: [], deny: ["Read(.env)"] },
    },
    mine: { command: "x" },
  });
});

test("permissions merge: lists union (a deny anywhere stays), defaultMode from the heaviest layer the person set", () => {
  const p = mergePermissions({
    defaultValue: { defaultMode: "default", allow: [], deny: [] },
    globalValue: { defaultMode: "acceptEdits", allow: ["Bash(npm run *)"], deny: ["Read(.env*)"] },
    workspaceValue: { allow: ["Bash(npm run *)", "Edit(src/**)"], additionalDirectories: ["/tmp/x"] },
    workspaceFolderValue: { defaultMode: "plan", ask: ["Bash(git push *)"] },
  });
  assert.deepEqual(p, {
    defaultMode: "plan",
    allow: ["Bash(npm run *)", "Edit(src/**)"],
    ask: ["Bash(git push *)"],
    deny: ["Read(.env*)"],
    additionalDirectories: ["/tmp/x"],
  });
});

test("persist -> settings target and value", () => {
  const r = raw({
    permissions: { defaultValue: { allow: [] }, globalValue: { allow: ["Bash(ls *)"], defaultMode: "acceptEdits" }, workspaceValue: { deny: ["Read(.env)"] } },
    agents: { defaultValue: defaults, globalValue: { demo: { env: { A: "1" } } } },
  });
  const cases = [
    {
      name: "allow rule, user scope (default), keeps the layer's other keys",
      req: { kind: "rule" as const, list: "allow" as const, rule: "Bash(go test *)" },
      want: { scope: "user", key: "permissions", value: { allow: ["Bash(ls *)", "Bash(go test *)"], defaultMode: "acceptEdits" } },
    },
    {
      name: "deny rule in workspace: starts from the workspace layer only",
      req: { kind: "rule" as const, list: "deny" as const, rule: "Bash(rm -rf *)", scope: "workspace" as const },
      want: { scope: "workspace", key: "permissions", value: { deny: ["Read(.env)", "Bash(rm -rf *)"] } },
    },
    {
      name: "same rule twice is stored once",
      req: { kind: "rule" as const, list: "allow" as const, rule: " Bash(ls *) " },
      want: { scope: "user", key: "permissions", value: { allow: ["Bash(ls *)"], defaultMode: "acceptEdits" } },
    },
    {
      name: "agent rule goes under agents.<id>.permissions",
      req: { kind: "rule" as const, list: "allow" as const, rule: "Bash(make)", agent: "demo" },
      want: { scope: "user", key: "agents", value: { demo: { env: { A: "1" }, permissions: { allow: ["Bash(make)"] } } } },
    },
    {
      name: "bypass for an agent in the workspace",
      req: { kind: "bypass" as const, agent: "claude", scope: "workspace" as const },
      want: { scope: "workspace", key: "agents", value: { claude: { bypassPermissions: true } } },
    },
  ];
  for (const c of cases) assert.deepEqual(planPersist(c.req, r), c.want, c.name);
  // The inputs were not mutated.
  assert.deepEqual(r.permissions.globalValue, { allow: ["Bash(ls *)"], defaultMode: "acceptEdits" });
});

test("persist refuses what it cannot honour", () => {
  const bad = [
    { kind: "bypass" },
    { kind: "rule", list: "allow" },
    { kind: "rule", list: "maybe", rule: "Bash(x)" },
    { kind: "grant", rule: "x" },
    { kind: "rule", rule: "Bash(x)", scope: "machine" },
  ];
  for (const b of bad) assert.throws(() => planPersist(b as any, raw()), /persist:/, JSON.stringify(b));
});

test("stored rules list and revoke", () => {
  const r = raw({
    permissions: { globalValue: { allow: ["Bash(ls *)", "Bash(go test *)"] }, workspaceValue: { deny: ["Read(.env)"] } },
    agents: { defaultValue: defaults, globalValue: { demo: { permissions: { ask: ["Bash(git push *)"] }, bypassPermissions: true } } },
  });
  const rules = listStoredRules(r);
  assert.deepEqual(rules, [
    { scope: "user", list: "allow", rule: "Bash(ls *)" },
    { scope: "user", list: "allow", rule: "Bash(go test *)" },
    { scope: "user", list: "ask", rule: "Bash(git push *)", agent: "demo" },
    { scope: "workspace", list: "deny", rule: "Read(.env)" },
  ]);
  assert.deepEqual(planRevoke(rules[1], r), { scope: "user", key: "permissions", value: { allow: ["Bash(ls *)"] } });
  assert.deepEqual(planRevoke(rules[2], r), { scope: "user", key: "agents", value: { demo: { permissions: { ask: [] }, bypassPermissions: true } } });
  assert.deepEqual(listBypasses(r), [{ scope: "user", agent: "demo" }]);
  assert.deepEqual(planRevokeBypass({ scope: "user", agent: "demo" }, r).value, { demo: { permissions: { ask: ["Bash(git push *)"] }, bypassPermissions: false } });
});
