// The official TypeScript SDK (@agentclientprotocol/sdk 2.x, ClientApp) as
// the editor of a real acp-bridge process whose agent is the built-in demo
// agent (the default of an empty config). Every line the bridge writes is
// validated against the ACP v1 JSON schema at the end of each scenario.

import { test } from "node:test";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { AsyncQueue, spawnBridge } from "../lib/bridge.mjs";
import { AgentOutputValidator, formatFailures } from "../lib/schema.mjs";

const validator = new AgentOutputValidator();

/** Notifications the client got that the SDK routes to no helper; wait() awaits one. */
class Notifications {
  all = [];
  #waiters = new Set();
  add(n) {
    this.all.push(n);
    for (const w of this.#waiters) w();
  }
  /** Resolves with the first notification matching pred (already received or not). */
  wait(what, pred) {
    return new Promise((resolve) => {
      const check = () => {
        const n = this.all.find(pred);
        if (n) {
          this.#waiters.delete(check);
          resolve(n);
        }
        return n;
      };
      if (!check()) this.#waiters.add(check);
    });
  }
  resolvedFor(approvalId) {
    return this.wait(`approval/resolved ${approvalId}`, (n) => n.method === "_acp-bridge/approval/resolved" && n.params.approvalId === approvalId);
  }
}

const ALLOW_ONCE = "acp-bridge:allow_once";
const REJECT_ONCE = "acp-bridge:reject_once";

/**
 * Runs op(agent, ctx) with an SDK client connected to a fresh bridge, then
 * closes the bridge and validates its whole output.
 */
async function withBridge(t, name, op) {
  const bridge = spawnBridge({ name });
  const permissions = new AsyncQueue();
  const notifications = new Notifications();
  const app = acp
    .client({ name: "acp-bridge-interop" })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => {
      return new Promise((resolve) => {
        permissions.push({ params, resolve, signal });
        // A request the bridge withdraws ($/cancel_request) still gets an
        // answer, "cancelled", as ACP asks.
        signal.addEventListener("abort", () => resolve({ outcome: { outcome: "cancelled" } }));
      });
    })
    .onNotification("*", ({ method, params }) => {
      notifications.add({ method, params });
    });
  let failure;
  try {
    await app.connectWith(bridge.stream, (agent) => op(agent, { permissions, notifications, workspace: bridge.workspace }));
  } catch (err) {
    failure = err;
  }
  const status = await bridge.close();
  if (failure) {
    t.diagnostic(`acp-bridge stderr:\n${bridge.stderr()}`);
    throw failure;
  }
  try {
    assert.equal(status.timedOut, undefined, "acp-bridge did not exit within 20s of stdin closing");
    assert.doesNotMatch(bridge.stderr(), /WARNING: DATA RACE/, "the race detector fired in acp-bridge");
    assert.equal(status.code, 0, `acp-bridge exit status ${status.code} (signal ${status.signal}) after stdin closed`);
    assert.equal(status.rest, "", "the bridge's last output line has no newline");
  } catch (err) {
    t.diagnostic(`acp-bridge stderr:\n${bridge.stderr()}`);
    throw err;
  }
  assertValidOutput(t, bridge.transcript);
}

/** Fails with every schema violation in what the bridge wrote. */
function assertValidOutput(t, transcript) {
  const report = validator.validateTranscript(transcript);
  const total = report.results.length;
  t.diagnostic(`validated ${total} bridge messages: ${JSON.stringify(report.counts)}`);
  assert.ok(total > 0, "the bridge wrote nothing");
  assert.equal(report.failures.length, 0, `${report.failures.length} of ${total} bridge messages violate the ACP v1 schema:\n\n${formatFailures(report.failures)}`);
  assert.deepEqual(report.unanswered, [], "client requests the bridge never answered");
}

async function initialize(agent) {
  const init = await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "acp-bridge-interop", version: "1.0.0" },
  });
  assert.equal(init.protocolVersion, 1);
  const meta = init._meta?.["acp-bridge"];
  assert.ok(meta, `initialize result lacks _meta["acp-bridge"]: ${JSON.stringify(init)}`);
  assert.ok(Array.isArray(meta.agents) && meta.agents.length > 0, "no agents in _meta[\"acp-bridge\"].agents");
  return init;
}

/** Reads the session's messages until the turn stops; returns them and the stop. */
async function drainTurn(session) {
  const updates = [];
  for (;;) {
    const m = await session.nextUpdate();
    if (m.kind === "stop") return { updates, stopReason: m.stopReason };
    updates.push(m.update);
  }
}

const toolUpdates = (updates, toolCallId) =>
  updates.filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === toolCallId);

/** Checks a card the bridge sent and returns its approval id. */
function checkCard(perm, sessionId) {
  const { params } = perm;
  assert.equal(params.sessionId, sessionId, "permission for another session");
  const meta = params._meta?.["acp-bridge"];
  assert.ok(meta?.approvalId, `no _meta["acp-bridge"].approvalId: ${JSON.stringify(params)}`);
  const ids = params.options.map((o) => o.optionId);
  for (const id of [ALLOW_ONCE, REJECT_ONCE]) assert.ok(ids.includes(id), `option ${id} not offered: ${ids}`);
  assert.ok(params.toolCall.toolCallId, "toolCall without toolCallId");
  return meta.approvalId;
}

test("SDK parent: allow_once, reject_once and the _acp-bridge extension methods", { timeout: 90_000 }, async (t) => {
  await withBridge(t, "sdk-allow-reject", async (agent, { permissions, notifications, workspace }) => {
    const init = await initialize(agent);
    const defaultAgent = init._meta["acp-bridge"].defaultAgent;
    assert.ok(defaultAgent, "no defaultAgent in initialize _meta");

    const session = await agent.buildSession(workspace).start();
    assert.ok(session.sessionId);
    assert.equal(session.meta?.["acp-bridge"]?.agent, defaultAgent, "session/new _meta names the agent");

    // Turn 1: "only:test" asks once (go test ./...); allow it once.
    const turn1 = session.prompt("only:test");
    const perm1 = await permissions.next();
    const approval1 = checkCard(perm1, session.sessionId);
    assert.equal(perm1.params.toolCall.title, "`go test ./...`");

    // While the card is open, the extension method lists it.
    const pending = await agent.request("_acp-bridge/approvals/list", {});
    assert.ok(Array.isArray(pending.approvals), `approvals/list: ${JSON.stringify(pending)}`);
    const listed = pending.approvals.find((a) => a.approvalId === approval1);
    assert.ok(listed, `approval ${approval1} not in approvals/list: ${JSON.stringify(pending)}`);
    assert.equal(listed.sessionId, session.sessionId);

    perm1.resolve({ outcome: { outcome: "selected", optionId: ALLOW_ONCE } });
    const r1 = await drainTurn(session);
    assert.equal((await turn1).stopReason, "end_turn");
    assert.equal(r1.stopReason, "end_turn");
    const call1 = toolUpdates(r1.updates, perm1.params.toolCall.toolCallId);
    assert.equal(call1[0]?.sessionUpdate, "tool_call", "the tool call was not announced first");
    assert.ok(
      call1.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed"),
      `no completed tool_call_update after allow_once: ${JSON.stringify(call1)}`,
    );

    const after = await agent.request("_acp-bridge/approvals/list", {});
    assert.ok(!after.approvals.some((a) => a.approvalId === approval1), "an answered approval is still listed");

    // Turn 2: "only:rm" rejected once: the demo agent reports the call failed.
    const turn2 = session.prompt("only:rm");
    const perm2 = await permissions.next();
    const approval2 = checkCard(perm2, session.sessionId);
    assert.notEqual(approval2, approval1);
    assert.equal(perm2.params.toolCall.title, "`rm -rf build`");
    perm2.resolve({ outcome: { outcome: "selected", optionId: REJECT_ONCE } });
    const r2 = await drainTurn(session);
    assert.equal((await turn2).stopReason, "end_turn");
    const call2 = toolUpdates(r2.updates, perm2.params.toolCall.toolCallId);
    assert.ok(
      call2.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed"),
      `no failed tool_call_update after reject_once: ${JSON.stringify(call2)}`,
    );
    assert.ok(!call2.some((u) => u.status === "completed"), "a rejected call completed");

    // Every decision was announced; the person's two with by: user.
    const d1 = (await notifications.resolvedFor(approval1)).params;
    const d2 = (await notifications.resolvedFor(approval2)).params;
    assert.deepEqual([d1.decision, d1.by], ["allow", "user"], `resolved: ${JSON.stringify(d1)}`);
    assert.deepEqual([d2.decision, d2.by], ["deny", "user"], `resolved: ${JSON.stringify(d2)}`);

    // The agents the bridge knows, with the one in use running.
    const agents = await agent.request("_acp-bridge/agents/list", {});
    assert.ok(Array.isArray(agents.agents), `agents/list: ${JSON.stringify(agents)}`);
    const used = agents.agents.find((a) => a.id === defaultAgent);
    assert.ok(used, `default agent ${defaultAgent} not in agents/list: ${JSON.stringify(agents)}`);
    assert.equal(used.status, "running");

    // An extension method the bridge does not have: -32601, through the SDK.
    await assert.rejects(agent.request("_acp-bridge/no/such/method", {}), (err) => {
      assert.ok(err instanceof acp.RequestError, `not a RequestError: ${err}`);
      assert.equal(err.code, -32601);
      return true;
    });
    session.dispose();
  });
});

test("SDK parent: session/cancel during a permission request ends the turn cancelled", { timeout: 90_000 }, async (t) => {
  await withBridge(t, "sdk-cancel", async (agent, { permissions, notifications, workspace }) => {
    await initialize(agent);
    const session = await agent.buildSession(workspace).start();
    const turn = session.prompt("only:edit");
    const perm = await permissions.next();
    const approval = checkCard(perm, session.sessionId);
    await agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
    // ACP: the client answers its pending requests "cancelled" after session/cancel.
    perm.resolve({ outcome: { outcome: "cancelled" } });
    const r = await drainTurn(session);
    assert.equal(r.stopReason, "cancelled");
    assert.equal((await turn).stopReason, "cancelled");
    assert.ok(!toolUpdates(r.updates, perm.params.toolCall.toolCallId).some((u) => u.status === "completed"), "a cancelled call completed");
    const list = await agent.request("_acp-bridge/approvals/list", {});
    assert.ok(!list.approvals.some((a) => a.approvalId === approval), "a cancelled approval is still listed");
    const resolved = (await notifications.resolvedFor(approval)).params;
    assert.equal(resolved.decision, "cancelled", `resolved: ${JSON.stringify(resolved)}`);
    const dup = notifications.all.filter((n) => n.method === "_acp-bridge/approval/resolved" && n.params.approvalId === approval);
    assert.equal(dup.length, 1, "approval/resolved sent more than once");
    session.dispose();
  });
});
