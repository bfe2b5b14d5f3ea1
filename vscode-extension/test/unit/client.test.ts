// BridgeConnection against a fake bridge written with the same SDK's AgentApp,
// over real NDJSON byte streams: what the extension sends and how it serves
// what the bridge asks.
import assert from "node:assert/strict";
import { test } from "node:test";
import { agent, ndJsonStream, RequestError } from "@agentclientprotocol/sdk";
import { permissionResponse } from "../../src/approvals";
import { BridgeConnection, type ClientHandlers } from "../../src/client";

const raw = (p: unknown) => (p ?? {}) as any;

function pipePair() {
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  return {
    clientStream: ndJsonStream(toAgent.writable, toClient.readable),
    agentStream: ndJsonStream(toClient.writable, toAgent.readable),
  };
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function handlers(over: Partial<ClientHandlers> = {}): ClientHandlers & { updates: unknown[]; resolved: unknown[]; statuses: unknown[]; invalid: string[]; badRules: string[][] } {
  const h = {
    updates: [] as unknown[],
    resolved: [] as unknown[],
    statuses: [] as unknown[],
    invalid: [] as string[],
    badRules: [] as string[][],
    settingsInvalid: (e: string) => h.invalid.push(e),
    rulesInvalid: (problems: string[]) => h.badRules.push(problems),
    readTextFile: async (p: { path: string }) => ({ content: `content of ${p.path}` }),
    writeTextFile: async () => {},
    requestPermission: async () => permissionResponse("acp-bridge:allow_once"),
    sessionUpdate: (p: unknown) => h.updates.push(p),
    approvalResolved: (p: unknown) => h.resolved.push(p),
    agentStatus: (p: unknown) => h.statuses.push(p),
    persist: async () => ({ persisted: true as const }),
    ...over,
  };
  return h as any;
}

test("initialize advertises fs read/write and no terminal, sends the workspace trust; reads the bridge's _meta", async () => {
  const { clientStream, agentStream } = pipePair();
  const initParams: any[] = [];
  const ignored = [{ key: "agents.pwn", file: "/w/.acp-bridge.yaml", line: 3, reason: "runs only in a trusted workspace" }];
  const modes = [
    { id: "default", name: "Default", description: "asks", atLeastAsStrictAs: ["default"] },
    { id: "plan", name: "Plan", description: "reads", atLeastAsStrictAs: ["plan", "default"] },
  ];
  agent()
    .onRequest("initialize", raw, ({ params }) => {
      initParams.push(params);
      return {
        protocolVersion: 1,
        agentCapabilities: { loadSession: true },
        _meta: { "acp-bridge": { version: "0.9.0", defaultAgent: "demo", agents: [{ id: "demo", name: "Demo" }], policyModes: ["default", "plan"], modes, workspaceTrust: { trusted: false, ignored } } },
      };
    })
    .connect(agentStream);
  const conn = BridgeConnection.connect(clientStream, handlers());
  const init = await conn.initialize();
  assert.equal(initParams[0].protocolVersion, 1);
  assert.deepEqual(initParams[0].clientCapabilities, { fs: { readTextFile: true, writeTextFile: true }, terminal: false });
  assert.equal(initParams[0].clientInfo.name, "acp-bridge-vscode");
  assert.deepEqual(initParams[0]._meta, { "acp-bridge": { workspaceTrusted: false, openDocumentFs: true } }, "untrusted unless told");
  assert.deepEqual(init.meta, {
    version: "0.9.0",
    defaultAgent: "demo",
    agents: [{ id: "demo", name: "Demo" }],
    modes,
    workspaceTrust: { trusted: false, ignored },
  });
  await conn.initialize(true);
  assert.deepEqual(initParams[1]._meta, { "acp-bridge": { workspaceTrusted: true, openDocumentFs: true } });
  conn.close();
});

test("workspace trust: the grant goes out as didChangeTrust, the bridge's report reaches the handler", async () => {
  const { clientStream, agentStream } = pipePair();
  const granted = deferred<any>();
  agent()
    .onNotification("_acp-bridge/workspace/didChangeTrust", raw, ({ params }) => granted.resolve(params))
    .onRequest("session/prompt", raw, async ({ client }) => {
      await client.notify("_acp-bridge/workspace/trust", { trusted: false, ignored: [{ key: "permissions.allow", file: "/w/.acp-bridge.yaml", reason: "r" }, { bad: 1 }] });
      await client.notify("_acp-bridge/workspace/trust", { trusted: "yes" });
      return { stopReason: "end_turn" };
    })
    .connect(agentStream);
  const reports: unknown[] = [];
  const conn = BridgeConnection.connect(clientStream, handlers({ workspaceTrust: (t) => void reports.push(t) }));
  await conn.workspaceTrustChanged(true);
  assert.deepEqual(await granted.promise, { trusted: true });
  await conn.prompt("S", "x");
  // A report without a boolean trusted is dropped; malformed entries are dropped.
  assert.deepEqual(reports, [{ trusted: false, ignored: [{ key: "permissions.allow", file: "/w/.acp-bridge.yaml", reason: "r" }] }]);
  conn.close();
});

test("workspace approval: a report's pending version reaches the handler; approve sends exactly that digest and reads the answer", async () => {
  const { clientStream, agentStream } = pipePair();
  const approved: unknown[] = [];
  const pending = { file: "/w/.acp-bridge.yaml", digest: "sha256:ab", approved: "absent" };
  agent()
    .onRequest("_acp-bridge/workspace/approve", raw, ({ params }) => {
      approved.push(params);
      if ((params as { digest: string }).digest !== "sha256:ab") throw new RequestError(-32602, "invalid params: not the version you approved");
      return { trusted: true, ignored: [] };
    })
    .onRequest("session/prompt", raw, async ({ client }) => {
      await client.notify("_acp-bridge/workspace/trust", { trusted: true, ignored: [{ key: "agents.pwn", file: pending.file, reason: "r" }], pending });
      await client.notify("_acp-bridge/workspace/trust", { trusted: true, ignored: [], pending: { file: 3 } });
      return { stopReason: "end_turn" };
    })
    .connect(agentStream);
  const reports: unknown[] = [];
  const conn = BridgeConnection.connect(clientStream, handlers({ workspaceTrust: (t) => void reports.push(t) }));
  await conn.prompt("S", "x");
  assert.deepEqual(reports, [
    { trusted: true, ignored: [{ key: "agents.pwn", file: pending.file, reason: "r" }], pending },
    { trusted: true, ignored: [] },
  ], "a malformed pending is dropped, never read as a version to approve");
  assert.deepEqual(await conn.approveWorkspaceFile("sha256:ab"), { trusted: true, ignored: [] });
  await assert.rejects(conn.approveWorkspaceFile("sha256:cd"), /not the version you approved/);
  assert.deepEqual(approved, [{ digest: "sha256:ab" }, { digest: "sha256:cd" }]);
  conn.close();
});

test("a turn: session/new with the agent in _meta, updates in order, a permission round trip with rule and scope", async () => {
  const { clientStream, agentStream } = pipePair();
  let newParams: any;
  let permAnswer: any;
  agent()
    .onRequest("session/new", raw, ({ params }) => {
      newParams = params;
      return { sessionId: "S1", _meta: { "acp-bridge": { agent: "demo", mode: "acceptEdits" } } };
    })
    .onRequest("session/prompt", raw, async ({ params, client }) => {
      for (let i = 0; i < 5; i++) await client.notify("session/update", { sessionId: params.sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${i}` } } });
      // A variant the SDK's schema does not know is dropped by the SDK's session router, but must not
      // break the connection; unknown fields of a known variant reach us intact.
      await client.notify("session/update", { sessionId: params.sessionId, update: { sessionUpdate: "future_thing", extra: { a: 1 } } });
      await client.notify("session/update", { sessionId: params.sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "5" }, extra: { a: 1 } } });
      permAnswer = await client.request("session/request_permission", {
        sessionId: params.sessionId,
        toolCall: { toolCallId: "t1", title: "go test ./...", _meta: { claudeCode: { toolName: "Bash" } } },
        options: [{ optionId: "acp-bridge:allow_always", name: "Always allow", kind: "allow_always" }],
        _meta: { "acp-bridge": { approvalId: "A1", suggestedRules: ["Bash(go test *)"] } },
      });
      return { stopReason: "end_turn" };
    })
    .connect(agentStream);
  let seenPerm: any;
  const h = handlers({
    requestPermission: async (p) => {
      seenPerm = p;
      return permissionResponse("acp-bridge:allow_always", "Bash(go test *)", "workspace");
    },
  });
  const conn = BridgeConnection.connect(clientStream, h);
  const s = await conn.newSession("/work/ws", "demo");
  assert.deepEqual(newParams, { cwd: "/work/ws", mcpServers: [], _meta: { "acp-bridge": { agent: "demo" } } });
  assert.equal(s.sessionId, "S1");
  assert.equal(s.mode, "acceptEdits");
  const res = await conn.prompt("S1", "hello");
  assert.equal(res.stopReason, "end_turn");
  assert.deepEqual(
    h.updates.slice(0, 5).map((u: any) => u.update.content.text),
    ["0", "1", "2", "3", "4"],
  );
  assert.deepEqual((h.updates.at(-1) as any).update, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "5" }, extra: { a: 1 } });
  assert.deepEqual(seenPerm.toolCall._meta, { claudeCode: { toolName: "Bash" } });
  assert.equal(seenPerm._meta["acp-bridge"].approvalId, "A1");
  assert.deepEqual(permAnswer, { outcome: { outcome: "selected", optionId: "acp-bridge:allow_always" }, _meta: { "acp-bridge": { rule: "Bash(go test *)", scope: "workspace" } } });
  conn.close();
});

test("bridge -> editor: fs reads/writes, settings/persist, approval/resolved, agent/status", async () => {
  const { clientStream, agentStream } = pipePair();
  const done = deferred<any>();
  agent()
    .onRequest("session/prompt", raw, async ({ client }) => {
      const read = await client.request("fs/read_text_file", { sessionId: "S", path: "/w/a.txt", line: 2, limit: 1 });
      await client.request("fs/write_text_file", { sessionId: "S", path: "/w/b.txt", content: "new" });
      const persisted = await client.request("_acp-bridge/settings/persist", { kind: "rule", scope: "user", list: "allow", rule: "Bash(go test *)" });
      let persistErr: any;
      try {
        await client.request("_acp-bridge/settings/persist", { kind: "bypass" });
      } catch (e) {
        persistErr = e;
      }
      await client.notify("_acp-bridge/approval/resolved", { approvalId: "A1", decision: "allow", by: "rule", rule: "Bash(go test *)" });
      await client.notify("_acp-bridge/agent/status", { id: "demo", status: "running" });
      await client.notify("_acp-bridge/settings/invalid", { error: "editor settings: agents.x.command: required" });
      await client.notify("_acp-bridge/rules/invalid", { problems: ['deny rule "Bash(rm *" from user: malformed rule', 7] });
      await client.notify("_acp-bridge/rules/invalid", { problems: [] });
      await client.notify("_acp-bridge/unknown/notification", {});
      done.resolve({ read, persisted, persistErr });
      return { stopReason: "end_turn" };
    })
    .connect(agentStream);
  const writes: any[] = [];
  const persists: any[] = [];
  const h = handlers({
    readTextFile: async (p) => ({ content: `${p.path}:${p.line}:${p.limit}` }),
    writeTextFile: async (p) => void writes.push(p),
    persist: async (p) => {
      persists.push(p);
      if (p.kind === "bypass" && !p.agent) throw new Error("persist: a bypass needs an agent");
      return { persisted: true };
    },
  });
  const conn = BridgeConnection.connect(clientStream, h);
  await conn.prompt("S", "x");
  const r = await done.promise;
  assert.deepEqual(r.read, { content: "/w/a.txt:2:1" });
  assert.deepEqual(writes, [{ sessionId: "S", path: "/w/b.txt", content: "new" }]);
  assert.deepEqual(r.persisted, { persisted: true });
  assert.equal(persists[0].rule, "Bash(go test *)");
  assert.match(r.persistErr.message, /a bypass needs an agent/);
  assert.deepEqual(h.resolved, [{ approvalId: "A1", decision: "allow", by: "rule", rule: "Bash(go test *)" }]);
  assert.deepEqual(h.statuses, [{ id: "demo", status: "running" }]);
  assert.deepEqual(h.invalid, ["editor settings: agents.x.command: required"]);
  // Bad rules reach the handler (non-strings dropped; an empty list is not reported).
  assert.deepEqual(h.badRules, [['deny rule "Bash(rm *" from user: malformed rule']]);
  conn.close();
});

test("editor -> bridge extension methods: names, params, and errors surface with their message", async () => {
  const { clientStream, agentStream } = pipePair();
  const got: Record<string, unknown> = {};
  const settingsSeen = deferred<any>();
  agent()
    .onRequest("_acp-bridge/agents/list", raw, () => ({ agents: [{ id: "demo", name: "Demo", status: "idle", restarts: 0 }] }))
    .onRequest("_acp-bridge/approvals/list", raw, () => ({ approvals: [{ approvalId: "A", sessionId: "S", toolCall: {}, options: [] }] }))
    .onRequest("_acp-bridge/approvals/respond", raw, ({ params }) => {
      got["respond"] = params;
      throw new RequestError(-32002, "approval A was already resolved by timeout at 10:00:00");
    })
    .onRequest("_acp-bridge/grants/list", raw, () => ({ grants: [{ sessionId: "S", agent: "demo", rule: "Bash(ls *)" }] }))
    .onRequest("_acp-bridge/grants/revoke", raw, ({ params }) => {
      got["revoke"] = params;
      return {};
    })
    .onRequest("session/set_mode", raw, ({ params }) => {
      got["setMode"] = params;
      return {};
    })
    .onNotification("_acp-bridge/settings/didChange", raw, ({ params }) => settingsSeen.resolve(params))
    .onNotification("session/cancel", raw, ({ params }) => void (got["cancel"] = params))
    .connect(agentStream);
  const conn = BridgeConnection.connect(clientStream, handlers());
  assert.deepEqual(await conn.listAgents(), [{ id: "demo", name: "Demo", status: "idle", restarts: 0 }]);
  assert.equal((await conn.listApprovals())[0].approvalId, "A");
  await assert.rejects(conn.respond({ approvalId: "A", optionId: "acp-bridge:allow_once" }), (e: any) => e.code === -32002 && /already resolved by timeout/.test(e.message));
  assert.deepEqual(got["respond"], { approvalId: "A", optionId: "acp-bridge:allow_once" });
  assert.deepEqual(await conn.listGrants(), [{ sessionId: "S", agent: "demo", rule: "Bash(ls *)" }]);
  await conn.revokeGrant("S", "Bash(ls *)");
  assert.deepEqual(got["revoke"], { sessionId: "S", rule: "Bash(ls *)" });
  await conn.setMode("S", "plan");
  assert.deepEqual(got["setMode"], { sessionId: "S", modeId: "plan" });
  await conn.settingsDidChange({ defaultAgent: "demo" });
  assert.deepEqual(await settingsSeen.promise, { settings: { defaultAgent: "demo" } });
  await conn.cancel("S");
  conn.close();
});

test("policy/check, grants/stored, grants/removeStored; a declined persist keeps its code", async () => {
  const { clientStream, agentStream } = pipePair();
  const got: Record<string, unknown> = {};
  const declined = deferred<any>();
  agent()
    .onRequest("_acp-bridge/policy/check", raw, ({ params }: any) =>
      params.rule.endsWith(")") ? { ok: true, rule: params.rule, list: params.list } : { ok: false, rule: params.rule, list: params.list, error: "malformed rule: unclosed (" },
    )
    .onRequest("_acp-bridge/grants/stored", raw, () => ({
      rules: [{ list: "allow", rule: "Bash(touch *)", scope: "user", file: "/h/.config/acp-bridge/config.yaml" }],
      bypass: [{ agent: "demo", scope: "workspace", file: "/w/.acp-bridge.yaml" }],
      inForce: [
        { kind: "mode", value: "plan", source: "workspace", file: "/w/.acp-bridge.yaml" },
        { kind: "rule", list: "allow", value: "Bash(npm test)", agent: "demo", source: "session S" },
      ],
    }))
    .onRequest("_acp-bridge/grants/removeStored", raw, ({ params }) => {
      got["remove"] = params;
      return { removed: true, file: "/w/.acp-bridge.yaml" };
    })
    .onRequest("session/prompt", raw, async ({ client }) => {
      try {
        await client.request("_acp-bridge/settings/persist", { kind: "bypass", scope: "user", agent: "demo" });
        declined.resolve(undefined);
      } catch (e) {
        declined.resolve(e);
      }
      return { stopReason: "end_turn" };
    })
    .connect(agentStream);
  const conn = BridgeConnection.connect(
    clientStream,
    handlers({
      persist: async () => {
        throw new RequestError(-32042, "the person declined to store the grant");
      },
    }),
  );
  assert.deepEqual(await conn.checkRule("Bash(rm -rf build", "allow"), { ok: false, error: "malformed rule: unclosed (" });
  assert.deepEqual(await conn.checkRule("Bash(rm -rf build)", "deny"), { ok: true, error: undefined });
  const stored = await conn.storedGrants();
  assert.deepEqual(stored, [
    { kind: "rule", scope: "user", file: "/h/.config/acp-bridge/config.yaml", agent: undefined, list: "allow", rule: "Bash(touch *)" },
    { kind: "bypass", scope: "workspace", file: "/w/.acp-bridge.yaml", agent: "demo" },
  ]);
  // What is in force is the bridge's merge, passed on as it is.
  assert.deepEqual(await conn.inForce(), [
    { kind: "mode", value: "plan", source: "workspace", file: "/w/.acp-bridge.yaml" },
    { kind: "rule", list: "allow", value: "Bash(npm test)", agent: "demo", source: "session S" },
  ]);
  await conn.removeStoredGrant(stored[1]);
  assert.deepEqual(got["remove"], { kind: "bypass", scope: "workspace", agent: "demo" });
  await conn.prompt("S", "go");
  const e = await declined.promise;
  assert.equal(e?.code, -32042, "the bridge sees 'declined', not a generic error it would fall back on");
  conn.close();
});
