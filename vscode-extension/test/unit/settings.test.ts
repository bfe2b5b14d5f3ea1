import assert from "node:assert/strict";
import { test } from "node:test";
import pkg from "../../package.json";
import { BRIDGE_KEYS, editorValues, listBypasses, listStoredRules, planPersist, planRevoke, planRevokeBypass, withWorkspaceValue, type RawSettings } from "../../src/settings";
import { atLeastAsStrict } from "../../src/wire";

const contributed = (pkg as any).contributes.configuration.properties;
const defaults = contributed["acpBridge.agents"].default;

function raw(over: Partial<RawSettings> = {}): RawSettings {
  return {
    agents: { defaultValue: defaults },
    permissions: { defaultValue: contributed["acpBridge.permissions"].default },
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

// Merging, workspace narrowing and pins are the bridge's (settings/editorlayers_test.go holds the former cases of this file).
test("settings/layers values: every key the bridge reads, each layer as inspect() gives it, unset layers left out", () => {
  const seen: string[] = [];
  const v = editorValues((k) => {
    seen.push(k);
    if (k === "permissions") return { defaultValue: { allow: [] }, globalValue: { deny: ["Read(.env)"] }, workspaceValue: undefined, workspaceFolderValue: { ask: ["WebFetch"] } };
    if (k === "logLevel") return { defaultValue: "info" };
    return undefined;
  });
  assert.deepEqual(seen, [...BRIDGE_KEYS]);
  assert.deepEqual(BRIDGE_KEYS, ["agents", "permissions", "defaultAgent", "approvals.timeoutSeconds", "approvals.timeoutOutcome", "logLevel", "audit.path"]);
  assert.deepEqual(v["permissions"], { defaultValue: { allow: [] }, globalValue: { deny: ["Read(.env)"] }, workspaceFolderValue: { ask: ["WebFetch"] } });
  assert.ok(!("workspaceValue" in v["permissions"]!), "an unset layer is not sent (JSON drops it anyway)");
  assert.deepEqual(v["logLevel"], { defaultValue: "info" });
  assert.deepEqual(v["agents"], {});
  const next = withWorkspaceValue(v, "permissions", { allow: ["Bash(ls)"] });
  assert.deepEqual(next["permissions"], { defaultValue: { allow: [] }, globalValue: { deny: ["Read(.env)"] }, workspaceValue: { allow: ["Bash(ls)"] }, workspaceFolderValue: { ask: ["WebFetch"] } });
  assert.equal((v["permissions"] as Record<string, unknown>)["workspaceValue"], undefined, "the values read are not changed");
  // Every key sent is contributed by package.json, so VS Code can hold it.
  for (const k of BRIDGE_KEYS) assert.ok(contributed[`acpBridge.${k}`], k);
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

test("atLeastAsStrict (wire.gen.ts) matches the bridge's table (docs/settings.md)", () => {
  const stricterOrEqualMode = atLeastAsStrict;
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
