import assert from "node:assert/strict";
import { test } from "node:test";
import pkg from "../../package.json";
import {
  buildBridgeSettings,
  personValue,
  listBypasses,
  listStoredRules,
  mergeAgents,
  mergePermissions,
  planPersist,
  planRevoke,
  planRevokeBypass,
  restrictWorkspaceLayers,
  stricterOrEqualMode,
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

test("personValue ignores the default layer; the settings sent carry what the bridge's start mode reads (bridge TestAgentsListStartMode)", () => {
  assert.equal(personValue({ defaultValue: 300 }), undefined);
  assert.equal(personValue({ defaultValue: 300, globalValue: 60, workspaceValue: 30 }), 30);
  const s = buildBridgeSettings(
    raw({
      agents: { defaultValue: defaults, globalValue: { claude: { mode: "plan" }, goose: { bypassPermissions: true, mode: "plan" } } },
      permissions: { defaultValue: {}, globalValue: { defaultMode: "acceptEdits" } },
    }),
    "/b",
  );
  assert.equal(s.agents["claude"].mode, "plan");
  assert.equal(s.agents["goose"].bypassPermissions, true);
  assert.equal(s.permissions.defaultMode, "acceptEdits");
  assert.equal(buildBridgeSettings(raw(), "/b").permissions.defaultMode, undefined);
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
      name: "bypass for an agent in user settings",
      req: { kind: "bypass" as const, agent: "claude", scope: "user" as const },
      want: { scope: "user", key: "agents", value: { demo: { env: { A: "1" } }, claude: { bypassPermissions: true } } },
    },
  ];
  for (const c of cases) assert.deepEqual(planPersist(c.req, r), c.want, c.name);
  // Trusted, an allow rule may go to the workspace.
  assert.deepEqual(planPersist({ kind: "rule", list: "allow", rule: "Bash(make)", scope: "workspace" }, r, true), {
    scope: "workspace",
    key: "permissions",
    value: { deny: ["Read(.env)"], allow: ["Bash(make)"] },
  });
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
    // acpBridge.agents is machine-scoped: nothing of an agent goes to workspace settings.
    { kind: "bypass", agent: "claude", scope: "workspace" },
    // Untrusted (the default), an allow into the workspace would be ignored.
    { kind: "rule", list: "allow", rule: "Bash(x)", scope: "workspace" },
    { kind: "rule", list: "allow", rule: "Bash(x)", agent: "demo", scope: "workspace" },
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

test("package.json: limited support of untrusted workspaces; agent commands and paths never from a workspace", () => {
  const caps = (pkg as any).capabilities.untrustedWorkspaces;
  assert.equal(caps.supported, "limited");
  assert.ok(caps.description.length > 20);
  for (const k of ["acpBridge.permissions", "acpBridge.defaultAgent", "acpBridge.approvals.timeoutOutcome"]) assert.ok(caps.restrictedConfigurations.includes(k), k);
  for (const k of ["acpBridge.agents", "acpBridge.audit.path", "acpBridge.bridgePath"]) {
    assert.ok(["machine", "application"].includes(contributed[k].scope), `${k} scope ${contributed[k].scope}`);
  }
});

test("untrusted workspace settings: only deny/ask and a stricter mode; workspace agents never", () => {
  const r = raw({
    agents: { defaultValue: defaults, globalValue: { claude: { mode: "acceptEdits" } }, workspaceValue: { pwn: { command: "sh", args: ["-c", "touch PWNED"] }, claude: { bypassPermissions: true } } },
    permissions: {
      defaultValue: contributed["acpBridge.permissions"].default,
      globalValue: { defaultMode: "acceptEdits", allow: ["Bash(ls *)"] },
      workspaceValue: { allow: ["Bash"], deny: ["Bash(curl *)"], additionalDirectories: ["/"], defaultMode: "bypassPermissions" },
      workspaceFolderValue: { ask: ["WebFetch"], defaultMode: "plan" },
    },
  });
  const s = buildBridgeSettings(r, "/b", false);
  assert.equal(s.agents["pwn"], undefined, "a workspace agent is never sent");
  assert.equal(s.agents["claude"].bypassPermissions, undefined);
  assert.deepEqual(s.permissions, { defaultMode: "plan", allow: ["Bash(ls *)"], ask: ["WebFetch"], deny: ["Bash(curl *)"], additionalDirectories: [] });
  // A looser workspace mode is dropped.
  const loose = restrictWorkspaceLayers(raw({ permissions: { globalValue: { defaultMode: "default" }, workspaceValue: { defaultMode: "auto" } } }), false);
  assert.deepEqual(loose.permissions.workspaceValue, { deny: undefined, ask: undefined });
  // Trusted: the workspace's permissions count in full, its agents still never.
  const t = buildBridgeSettings(r, "/b", true);
  assert.equal(t.agents["pwn"], undefined);
  assert.deepEqual(t.permissions.allow, ["Bash(ls *)", "Bash"]);
  assert.equal(t.permissions.defaultMode, "plan");
  assert.deepEqual(t.permissions.additionalDirectories, ["/"]);
});

test("stricterOrEqualMode matches the bridge's table (docs/settings.md)", () => {
  const modes = ["bypassPermissions", "acceptEdits", "default", "dontAsk", "plan"];
  const yes = new Set([
    "bypassPermissions>bypassPermissions",
    "acceptEdits>acceptEdits", "acceptEdits>bypassPermissions",
    "default>default", "default>acceptEdits", "default>bypassPermissions",
    "dontAsk>dontAsk", "dontAsk>default", "dontAsk>acceptEdits", "dontAsk>bypassPermissions",
    "plan>plan", "plan>default", "plan>acceptEdits", "plan>bypassPermissions",
  ]);
  for (const w of modes) for (const t of modes) assert.equal(stricterOrEqualMode(w, t), yes.has(`${w}>${t}`), `${w} over ${t}`);
  assert.equal(stricterOrEqualMode("autonomous", "default"), false);
  assert.equal(stricterOrEqualMode("ask_every_time", "acceptEdits"), true);
  // "auto" is no alias of bypassPermissions (policy.SettingsAliases): an unknown name is never stricter, nor looser.
  assert.equal(stricterOrEqualMode("auto", "default"), false);
  assert.equal(stricterOrEqualMode("default", "auto"), false);
});
