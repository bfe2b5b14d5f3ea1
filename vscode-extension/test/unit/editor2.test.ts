// Agents from a list, the rules editor's rows, compact cards' option groups,
// and Deny with a reason (issue 19, items 4-6 and the editor's part of 8).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { AGENT_PRESETS, agentIdProblem, agentInstalled, findOnPath, planAddAgent, splitCommandLine } from "../../src/agentPresets";
import { permissionResponse, respondParams } from "../../src/approvals";
import { ApprovalCoordinator } from "../../src/coordinator";
import { ChatStore } from "../../src/model";
import { OPT, splitCardOptions, type HostMessage } from "../../src/protocol";
import { buildRuleRows, explainInput, rowView } from "../../src/rulesModel";

function tempBin(): { dir: string; exe: (name: string) => string; plain: (name: string) => string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acpb-presets-"));
  return {
    dir,
    exe: (name) => {
      const f = path.join(dir, name);
      fs.writeFileSync(f, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
      return f;
    },
    plain: (name) => {
      const f = path.join(dir, name);
      fs.writeFileSync(f, "not a program", { mode: 0o644 });
      return f;
    },
  };
}

test("findOnPath finds executables the way exec.LookPath does: PATH order, executable files only, relative PATH entries skipped", () => {
  const a = tempBin();
  const b = tempBin();
  const g1 = a.exe("gemini");
  b.exe("gemini");
  a.plain("qwen"); // not executable
  fs.mkdirSync(path.join(b.dir, "goose")); // a directory is no program
  const PATH = [".", "relative/bin", a.dir, b.dir].join(path.delimiter);
  const cases: [string, string | undefined][] = [
    ["gemini", g1],
    ["qwen", undefined],
    ["goose", undefined],
    ["opencode", undefined],
    ["", undefined],
    [g1, g1],
    [path.join(a.dir, "qwen"), undefined],
  ];
  for (const [cmd, want] of cases) assert.equal(findOnPath(cmd, PATH), want, cmd);
  // A program in the current directory is not found through "." (Go refuses it too).
  const cwd = process.cwd();
  try {
    process.chdir(a.dir);
    assert.equal(findOnPath("gemini", "."), undefined, "an executable in the current directory, reached only through \".\"");
    assert.equal(findOnPath("gemini", a.dir), g1, "the control: the same file through its absolute directory");
  } finally {
    process.chdir(cwd);
  }
  assert.equal(agentInstalled({ command: "${bridge}" }, ""), true, "the bundled binary is always there");
  assert.equal(agentInstalled({ command: "/opt/acp-bridge" }, "", undefined, "/opt/acp-bridge"), true);
  assert.equal(agentInstalled({ command: "gemini" }, a.dir), true);
  assert.equal(agentInstalled({ command: "gemini" }, ""), false);
});

test("the presets are the families the bridge has profiles for, each with an install command", () => {
  assert.deepEqual(AGENT_PRESETS.map((p) => p.family).sort(), ["claude", "codex", "gemini", "goose", "opencode", "qwen"]);
  for (const p of AGENT_PRESETS) {
    assert.ok(p.command && !p.command.includes(" "), p.id);
    assert.match(p.install, /\S/, p.id);
    assert.equal(agentIdProblem(p.id, {}), undefined, p.id);
  }
});

test("splitCommandLine keeps quoted arguments together and refuses an unclosed quote", () => {
  const cases: [string, string[] | RegExp][] = [
    ["my-agent --acp", ["my-agent", "--acp"]],
    ['  "/opt/my agent/bin"  --flag "a b" \'c d\' ""', ["/opt/my agent/bin", "--flag", "a b", "c d", ""]],
    ["", []],
    ['agent "open', /unclosed "/],
  ];
  for (const [line, want] of cases) {
    if (want instanceof RegExp) assert.throws(() => splitCommandLine(line), want);
    else assert.deepEqual(splitCommandLine(line), want, line);
  }
});

test("planAddAgent adds to the user layer only, never replaces an agent, and agentIdProblem names what is wrong", () => {
  const user = { gemini: { command: "gemini", args: ["--acp"], bypassPermissions: true } };
  const out = planAddAgent(user, "qwen", { command: "qwen", args: ["--acp"] });
  assert.deepEqual(out, { ...user, qwen: { command: "qwen", args: ["--acp"] } });
  assert.deepEqual(user, { gemini: { command: "gemini", args: ["--acp"], bypassPermissions: true } }, "the layer passed in is not changed");
  assert.deepEqual(planAddAgent(undefined, "x", { command: "x", args: [] }), { x: { command: "x", args: [] } }, "no user layer: only the new agent (the defaults stay defaults)");
  assert.throws(() => planAddAgent(user, "gemini", { command: "g", args: [] }), /exists in your settings already/);
  assert.throws(() => planAddAgent(user, "y", { command: "", args: [] }), /command is empty/);
  assert.match(agentIdProblem("gemini", { gemini: {} }) ?? "", /exists already/);
  assert.match(agentIdProblem("-x", {}) ?? "", /letters, digits/);
  assert.match(agentIdProblem("a b", {}) ?? "", /letters, digits/);
  assert.equal(agentIdProblem("my-agent_2.1", {}), undefined);
});

test("rules editor rows: every rule in force with its source; VS Code settings rules editable in their scope, the bridge's file removable, session grants revocable, managed and defaults locked", () => {
  const rows = buildRuleRows(
    [
      { kind: "mode", value: "default", source: "default" },
      { kind: "rule", list: "deny", value: "Bash(rm *)", source: "editor" },
      { kind: "rule", list: "allow", value: "Bash(go test *)", source: "editor", agent: "demo" },
      { kind: "rule", list: "deny", value: "Read(./.env)", source: "managed", file: "/etc/acp-bridge/managed-settings.yaml" },
      { kind: "rule", list: "allow", value: "Bash(make *)", source: "user", file: "/home/u/.config/acp-bridge/config.yaml" },
      { kind: "rule", list: "allow", value: "Bash(npm test)", source: "session 0123456789abcdef" },
      { kind: "bypass", value: "true", source: "editor", agent: "helper" },
      { kind: "rule", list: "ask", value: "Bash(curl *)", source: "env" },
    ],
    [
      { scope: "user", list: "deny", rule: "Bash(rm *)" },
      { scope: "workspace", list: "deny", rule: "Bash(rm *)" },
      { scope: "user", list: "allow", rule: "Bash(go test *)", agent: "demo" },
      { scope: "workspace", list: "allow", rule: "Bash(curl *)" }, // an untrusted workspace's allow: not in force
    ],
    [{ scope: "user", agent: "helper" }],
    [{ kind: "rule", scope: "user", file: "/home/u/.config/acp-bridge/config.yaml", list: "allow", rule: "Bash(make *)" }],
  );
  const views = rows.map(rowView);
  const by = (v: string) => views.filter((r) => r.value === v);
  assert.deepEqual(
    views.map((r) => [r.kind, r.list ?? "", r.value, r.source, r.inForce, r.editable, r.removable, !!r.locked]),
    [
      ["mode", "", "default", "default", true, false, false, true],
      ["rule", "deny", "Bash(rm *)", "VS Code workspace settings", true, true, true, false],
      ["rule", "allow", "Bash(go test *)", "VS Code user settings", true, true, true, false],
      ["rule", "deny", "Read(./.env)", "managed (your organisation)", true, false, false, true],
      ["rule", "allow", "Bash(make *)", "the bridge's user file", true, false, true, false],
      ["rule", "allow", "Bash(npm test)", "this session's grant (01234567)", true, false, true, false],
      ["bypass", "", "bypass permissions", "VS Code user settings", true, false, true, false],
      ["rule", "ask", "Bash(curl *)", "env", true, false, false, true],
      ["rule", "deny", "Bash(rm *)", "VS Code user settings", false, true, true, false],
      ["rule", "allow", "Bash(curl *)", "VS Code workspace settings", false, true, true, false],
    ],
  );
  assert.match(by("Read(./.env)")[0].locked ?? "", /organisation's managed settings: not changeable/);
  assert.equal(by("Read(./.env)")[0].file, "/etc/acp-bridge/managed-settings.yaml");
  assert.deepEqual(rows[4].action, { kind: "bridgeFile", grant: { kind: "rule", scope: "user", file: "/home/u/.config/acp-bridge/config.yaml", list: "allow", rule: "Bash(make *)" } });
  assert.deepEqual(rows[5].action, { kind: "session", sessionId: "0123456789abcdef" });
  assert.deepEqual(rows[2].agent, "demo");
  // Without the bridge, what settings hold is listed (and counted as in force: nothing says otherwise).
  const offline = buildRuleRows(undefined, [{ scope: "user", list: "deny", rule: "Bash(rm *)" }], [], []);
  assert.deepEqual(offline.map((r) => [r.value, r.inForce, r.action.kind]), [["Bash(rm *)", true, "settings"]]);
});

test("explainInput gives policy/explain the input each tool reads", () => {
  assert.deepEqual(explainInput("Bash", "  rm -rf build "), { command: "rm -rf build" });
  assert.deepEqual(explainInput("Read", "./.env"), { file_path: "./.env" });
  assert.deepEqual(explainInput("Edit", "src/a.go"), { file_path: "src/a.go" });
  assert.deepEqual(explainInput("WebFetch", "https://example.com"), { url: "https://example.com" });
});

test("compact cards: Allow once and Deny are primary, the other scopes go in their dropdowns, bypass and sideless options last", () => {
  const o = (optionId: string, kind: string, name = optionId) => ({ optionId, kind, name });
  const all = [
    o(OPT.allowOnce, "allow_once"),
    o(OPT.allowSession, "allow_always"),
    o(OPT.allowAlways, "allow_always"),
    o(OPT.rejectOnce, "reject_once"),
    o(OPT.rejectAndStop, "reject_once"),
    o(OPT.rejectAlways, "reject_always"),
    o(OPT.bypass, "allow_always"),
    o("agent:plan-exit", "allow_once"),
    o("agent:weird", "other"),
  ];
  const g = splitCardOptions(all);
  assert.equal(g.allowOnce?.optionId, OPT.allowOnce);
  assert.equal(g.denyOnce?.optionId, OPT.rejectOnce);
  assert.deepEqual(g.allowMore.map((x) => x.optionId), [OPT.allowSession, OPT.allowAlways, "agent:plan-exit"]);
  assert.deepEqual(g.denyMore.map((x) => x.optionId), [OPT.rejectAndStop, OPT.rejectAlways]);
  assert.deepEqual(g.rest.map((x) => x.optionId), ["agent:weird", OPT.bypass], "bypass is the very last");
  // Every option is in exactly one place.
  const placed = [g.allowOnce, g.denyOnce, ...g.allowMore, ...g.denyMore, ...g.rest].map((x) => x!.optionId).sort();
  assert.deepEqual(placed, all.map((x) => x.optionId).sort());
  // A breaker's card: no grants; an agent's own card with only its ids.
  const breaker = splitCardOptions([o(OPT.allowOnce, "allow_once"), o(OPT.rejectOnce, "reject_once")]);
  assert.deepEqual([breaker.allowMore.length, breaker.denyMore.length, breaker.rest.length], [0, 0, 0]);
  const agentOnly = splitCardOptions([o("agent:yes", "allow_once"), o("agent:no", "reject_once")]);
  assert.equal(agentOnly.allowOnce?.optionId, "agent:yes");
  assert.equal(agentOnly.denyOnce?.optionId, "agent:no");
});

test("Deny with a reason: the reason goes in the live answer's _meta and in approvals/respond, only with a deny, and the chat records it", async () => {
  assert.deepEqual(permissionResponse(OPT.rejectOnce, undefined, undefined, "  use make test  "), {
    outcome: { outcome: "selected", optionId: OPT.rejectOnce },
    _meta: { "acp-bridge": { reason: "use make test" } },
  });
  assert.deepEqual(permissionResponse(OPT.rejectOnce, undefined, undefined, "   "), { outcome: { outcome: "selected", optionId: OPT.rejectOnce } });
  assert.deepEqual(respondParams("A", OPT.rejectOnce, undefined, undefined, "no"), { approvalId: "A", optionId: OPT.rejectOnce, reason: "no" });

  const sent: HostMessage[] = [];
  const store = new ChatStore((m) => sent.push(m));
  store.createChat("demo", "default", { sessionId: "S1" });
  const responded: unknown[] = [];
  const co = new ApprovalCoordinator({
    store,
    respond: async (p) => void responded.push(p),
    listApprovals: async () => [],
    cancelSession: async () => {},
    changed: () => {},
    arrived: () => {},
  });
  const options = [
    { optionId: OPT.allowOnce, name: "Allow once", kind: "allow_once" },
    { optionId: OPT.rejectOnce, name: "Deny", kind: "reject_once" },
  ];
  const req = (id: string) => ({ sessionId: "S1", toolCall: { toolCallId: `tc-${id}`, title: "go test", kind: "execute" }, options, _meta: { "acp-bridge": { approvalId: id, agent: "demo" } } });
  // Live: the reason rides in the answer's _meta.
  const live = co.onRequest(req("L"));
  await co.answer("L", OPT.rejectOnce, { reason: "use make test, it sets the tags" });
  assert.deepEqual(await live, { outcome: { outcome: "selected", optionId: OPT.rejectOnce }, _meta: { "acp-bridge": { reason: "use make test, it sets the tags" } } });
  assert.equal(store.approval("L")!.denyReason, "use make test, it sets the tags");
  // The bridge's approval/resolved keeps the reason on the card and puts it on the tool card's verdict.
  store.resolveApproval({ approvalId: "L", sessionId: "S1", toolCallId: "tc-L", decision: "deny", by: "user", optionId: OPT.rejectOnce, specifier: "Bash(go test)" } as never);
  assert.equal(store.approval("L")!.denyReason, "use make test, it sets the tags");
  // An allow never carries a reason.
  const allow = co.onRequest(req("Y"));
  await co.answer("Y", OPT.allowOnce, { reason: "should not be sent" });
  assert.deepEqual(await allow, { outcome: { outcome: "selected", optionId: OPT.allowOnce } });
  assert.equal(store.approval("Y")!.denyReason, undefined);
  // Not live (a card from approvals/list): approvals/respond carries it.
  assert.ok(store.addApproval(req("R")));
  await co.answer("R", OPT.rejectOnce, { reason: "the tests need the tags" });
  assert.deepEqual(responded, [{ approvalId: "R", optionId: OPT.rejectOnce, reason: "the tests need the tags" }]);
  assert.equal(store.approval("R")!.denyReason, "the tests need the tags");
});
