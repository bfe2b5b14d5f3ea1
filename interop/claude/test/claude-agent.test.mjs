// A real agent through the bridge, offline: the official TypeScript SDK
// (ClientApp) is the editor of a real acp-bridge process whose agent
// "claude" is the npm-installed Claude Agent ACP adapter, which runs the
// real Claude Code CLI against a scripted fake Messages API on 127.0.0.1
// (lib/fake-anthropic.mjs). The fake proposes one Bash tool call; Claude
// asks for permission through ACP, the bridge decides (or asks us), and the
// workspace shows whether Claude really ran the command. Every line the
// bridge writes is validated against the ACP v1 JSON schema.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { AsyncQueue } from "../../ts/lib/bridge.mjs";
import { AgentOutputValidator, formatFailures } from "../../ts/lib/schema.mjs";
import { ADAPTER, spawnClaudeBridge } from "../lib/bridge.mjs";
import { startFakeAnthropic } from "../lib/fake-anthropic.mjs";

const validator = new AgentOutputValidator();

const ALLOW_ONCE = "acp-bridge:allow_once";
const REJECT_ONCE = "acp-bridge:reject_once";
const FILE = "created-by-fake.txt";
const COMMAND = `touch ${FILE}`;

/** Notifications the client got that the SDK routes to no helper. */
class Notifications {
  all = [];
  #waiters = new Set();
  add(n) {
    this.all.push(n);
    for (const w of this.#waiters) w();
  }
  /** Resolves with the first notification matching pred (already received or not). */
  wait(pred) {
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
  resolved() {
    return this.all.filter((n) => n.method === "_acp-bridge/approval/resolved").map((n) => n.params);
  }
}

/**
 * Starts the fake API with a script proposing `command`, a bridge with
 * `permissions`, and runs op(agent, ctx) with an SDK client connected to it;
 * then closes the bridge and validates its whole output.
 */
async function withClaude(t, { name, command, permissions, sandbox }, op) {
  const toolUseId = `toolu_fake_${name.replace(/[^a-z0-9]/gi, "_")}`;
  const api = await startFakeAnthropic({ tool: "Bash", toolUseId, input: { command, description: "Create an empty file" } });
  const bridge = spawnClaudeBridge({ name, apiUrl: api.url, permissions, sandbox });
  const permissionsQ = new AsyncQueue();
  const notifications = new Notifications();
  const cards = [];
  const app = acp
    .client({ name: "acp-bridge-interop-claude" })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => {
      cards.push(params);
      return new Promise((resolve) => {
        permissionsQ.push({ params, resolve });
        signal.addEventListener("abort", () => resolve({ outcome: { outcome: "cancelled" } }));
      });
    })
    .onNotification("*", ({ method, params }) => notifications.add({ method, params }));
  let failure;
  try {
    await app.connectWith(bridge.stream, (agent) =>
      op(agent, { permissions: permissionsQ, notifications, cards, api, toolUseId, workspace: bridge.workspace }),
    );
  } catch (err) {
    failure = err;
  }
  const status = await bridge.close();
  await api.close();
  const diagnose = () => {
    t.diagnostic(`fake API requests: ${JSON.stringify(api.requests)}`);
    t.diagnostic(`acp-bridge stderr (last 6000 chars):\n${bridge.stderr().slice(-6000)}`);
  };
  if (failure) {
    diagnose();
    throw failure;
  }
  try {
    assert.equal(status.timedOut, undefined, "acp-bridge did not exit within 20s of stdin closing");
    assert.equal(status.code, 0, `acp-bridge exit status ${status.code} (signal ${status.signal}) after stdin closed`);
    assert.equal(status.rest, "", "the bridge's last output line has no newline");
    assert.deepEqual(api.unexpected, [], "the CLI called endpoints the fake API does not know");
  } catch (err) {
    diagnose();
    throw err;
  }
  const report = validator.validateTranscript(bridge.transcript);
  const total = report.results.length;
  t.diagnostic(`validated ${total} bridge messages: ${JSON.stringify(report.counts)}`);
  assert.ok(total > 0, "the bridge wrote nothing");
  assert.equal(report.failures.length, 0, `${report.failures.length} of ${total} bridge messages violate the ACP v1 schema:\n\n${formatFailures(report.failures)}`);
  assert.deepEqual(report.unanswered, [], "client requests the bridge never answered");
  // No update of the agent may be dropped or shown on another session.
  const misrouted = misroutedUpdates(bridge.stderr());
  assert.deepEqual(misrouted, [], `the bridge dropped or misrouted ${misrouted.length} session/update(s) of the agent`);
  return bridge.stderr();
}

/**
 * The bridge's log lines (it runs with --log-level debug) for session/updates
 * of child sessions it had not registered: dropped (no session to show them
 * on) or shown on the agent's active session. Without sub-agents (none here)
 * every such line is an update of a session the bridge was still creating.
 */
function misroutedUpdates(stderr) {
  return stderr.split("\n").filter((l) => /session\/update for (a session the bridge does not know|an unknown child session)/.test(l));
}

async function initialize(agent) {
  const init = await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    // No fs, no terminal: Claude keeps its own Bash tool (acp-protocol.md §6).
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "acp-bridge-interop-claude", version: "1.0.0" },
  });
  assert.equal(init.protocolVersion, 1);
  const meta = init._meta?.["acp-bridge"];
  assert.equal(meta?.defaultAgent, "claude", `initialize _meta["acp-bridge"]: ${JSON.stringify(meta)}`);
}

/** One prompt; returns the stop reason and every update the turn sent. */
async function runTurn(session, text, onPermission) {
  const turn = session.prompt(text);
  const updates = [];
  const drain = (async () => {
    for (;;) {
      const m = await session.nextUpdate();
      if (m.kind === "stop") return m.stopReason;
      updates.push(m.update);
    }
  })();
  if (onPermission) await onPermission();
  const stopReason = await drain;
  assert.equal((await turn).stopReason, stopReason);
  return { stopReason, updates };
}

const updatesFor = (updates, id) => updates.filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === id);

/** Checks the card for the scripted Bash call and returns its _meta["acp-bridge"]. */
function checkCard(card, sessionId, toolUseId, command) {
  assert.equal(card.sessionId, sessionId, "card for another session");
  assert.equal(card.toolCall.toolCallId, toolUseId, "the card is not for the scripted tool_use id");
  assert.equal(card.toolCall.rawInput?.command, command, `card rawInput: ${JSON.stringify(card.toolCall.rawInput)}`);
  // Neither adapter puts _meta.claudeCode.toolName in the request itself:
  // the bridge merged it from the tool_call it saw first.
  assert.equal(card.toolCall._meta?.claudeCode?.toolName, "Bash", `card toolCall: ${JSON.stringify(card.toolCall)}`);
  assert.equal(card.toolCall.kind, "execute", `card toolCall: ${JSON.stringify(card.toolCall)}`);
  const meta = card._meta?.["acp-bridge"];
  assert.ok(meta?.approvalId, `no _meta["acp-bridge"].approvalId: ${JSON.stringify(card)}`);
  assert.equal(meta.agent, "claude");
  // The claude normaliser on the adapter's real payload.
  assert.equal(meta.tool, "Bash", `_meta["acp-bridge"]: ${JSON.stringify(meta)}`);
  assert.equal(meta.specifier, `Bash(${command})`, `_meta["acp-bridge"]: ${JSON.stringify(meta)}`);
  const ids = card.options.map((o) => o.optionId);
  for (const id of [ALLOW_ONCE, REJECT_ONCE]) assert.ok(ids.includes(id), `option ${id} not offered: ${ids}`);
  for (const id of ids) assert.match(id, /^(acp-bridge|agent):/, `an option the bridge did not name: ${ids}`);
  return meta;
}

test(`${ADAPTER.name}@${ADAPTER.version}: no rule, a card for Bash(${COMMAND}), allow_once runs it`, { timeout: 120_000 }, async (t) => {
  await withClaude(t, { name: "allow-once", command: COMMAND }, async (agent, ctx) => {
    await initialize(agent);
    const session = await agent.buildSession(ctx.workspace).start();
    let meta;
    const { stopReason, updates } = await runTurn(session, "Create the file created-by-fake.txt", async () => {
      const perm = await ctx.permissions.next();
      meta = checkCard(perm.params, session.sessionId, ctx.toolUseId, COMMAND);
      assert.ok(!existsSync(join(ctx.workspace, FILE)), "the file exists before the card was answered");
      perm.resolve({ outcome: { outcome: "selected", optionId: ALLOW_ONCE } });
    });
    assert.equal(stopReason, "end_turn");
    assert.ok(existsSync(join(ctx.workspace, FILE)), `${FILE} not in the workspace: Claude did not run the command`);
    assert.equal(ctx.cards.length, 1, "more than one card");
    const calls = updatesFor(updates, ctx.toolUseId);
    assert.ok(calls.some((u) => u.status === "completed"), `no completed update for ${ctx.toolUseId}: ${JSON.stringify(calls)}`);
    // Claude sent the tool's real result back to the (fake) model.
    assert.equal(ctx.api.toolResults.length, 1);
    assert.notEqual(ctx.api.toolResults[0].is_error, true, `tool_result: ${JSON.stringify(ctx.api.toolResults[0])}`);
    const resolved = (await ctx.notifications.wait((n) => n.method === "_acp-bridge/approval/resolved" && n.params.approvalId === meta.approvalId)).params;
    assert.deepEqual([resolved.decision, resolved.by, resolved.specifier], ["allow", "user", `Bash(${COMMAND})`], `resolved: ${JSON.stringify(resolved)}`);
    session.dispose();
  });
});

test(`${ADAPTER.name}@${ADAPTER.version}: deny rule Bash(touch *) refuses without a card`, { timeout: 120_000 }, async (t) => {
  await withClaude(t, { name: "deny-rule", command: COMMAND, permissions: { deny: ["Bash(touch *)"] } }, async (agent, ctx) => {
    await initialize(agent);
    const session = await agent.buildSession(ctx.workspace).start();
    const { stopReason, updates } = await runTurn(session, "Create the file created-by-fake.txt");
    assert.equal(stopReason, "end_turn");
    assert.deepEqual(ctx.cards, [], "a card was shown although a deny rule matches");
    assert.ok(!existsSync(join(ctx.workspace, FILE)), `${FILE} exists: a denied command ran`);
    assert.ok(!updatesFor(updates, ctx.toolUseId).some((u) => u.status === "completed"), "a denied call completed");
    const resolved = (await ctx.notifications.wait((n) => n.method === "_acp-bridge/approval/resolved" && n.params.toolCallId === ctx.toolUseId)).params;
    assert.deepEqual(
      [resolved.decision, resolved.by, resolved.rule, resolved.specifier],
      ["deny", "rule", "Bash(touch *)", `Bash(${COMMAND})`],
      `resolved: ${JSON.stringify(resolved)}`,
    );
    // 0.100 tells the model the call was refused; 0.16 ends the turn instead.
    assert.ok(ctx.api.toolResults.every((r) => r.is_error === true), `tool_result: ${JSON.stringify(ctx.api.toolResults)}`);
    session.dispose();
  });
});

test(`${ADAPTER.name}@${ADAPTER.version}: allow rule Bash(touch *) runs it without a card`, { timeout: 120_000 }, async (t) => {
  await withClaude(t, { name: "allow-rule", command: COMMAND, permissions: { allow: ["Bash(touch *)"] } }, async (agent, ctx) => {
    await initialize(agent);
    const session = await agent.buildSession(ctx.workspace).start();
    const { stopReason } = await runTurn(session, "Create the file created-by-fake.txt");
    assert.equal(stopReason, "end_turn");
    assert.deepEqual(ctx.cards, [], "a card was shown although an allow rule matches");
    assert.ok(existsSync(join(ctx.workspace, FILE)), `${FILE} not in the workspace: the allowed command did not run`);
    assert.equal(ctx.api.toolResults.length, 1);
    assert.notEqual(ctx.api.toolResults[0].is_error, true, `tool_result: ${JSON.stringify(ctx.api.toolResults[0])}`);
    const resolved = (await ctx.notifications.wait((n) => n.method === "_acp-bridge/approval/resolved" && n.params.toolCallId === ctx.toolUseId)).params;
    assert.deepEqual(
      [resolved.decision, resolved.by, resolved.rule, resolved.specifier],
      ["allow", "rule", "Bash(touch *)", `Bash(${COMMAND})`],
      `resolved: ${JSON.stringify(resolved)}`,
    );
    session.dispose();
  });
});

test(`${ADAPTER.name}@${ADAPTER.version}: reject_once on the card, the command does not run`, { timeout: 120_000 }, async (t) => {
  await withClaude(t, { name: "reject-once", command: COMMAND }, async (agent, ctx) => {
    await initialize(agent);
    const session = await agent.buildSession(ctx.workspace).start();
    let meta;
    const { stopReason, updates } = await runTurn(session, "Create the file created-by-fake.txt", async () => {
      const perm = await ctx.permissions.next();
      meta = checkCard(perm.params, session.sessionId, ctx.toolUseId, COMMAND);
      perm.resolve({ outcome: { outcome: "selected", optionId: REJECT_ONCE } });
    });
    assert.equal(stopReason, "end_turn");
    assert.ok(!existsSync(join(ctx.workspace, FILE)), `${FILE} exists: a rejected command ran`);
    assert.ok(!updatesFor(updates, ctx.toolUseId).some((u) => u.status === "completed"), "a rejected call completed");
    const resolved = (await ctx.notifications.wait((n) => n.method === "_acp-bridge/approval/resolved" && n.params.approvalId === meta.approvalId)).params;
    assert.deepEqual([resolved.decision, resolved.by], ["deny", "user"], `resolved: ${JSON.stringify(resolved)}`);
    assert.ok(ctx.api.toolResults.every((r) => r.is_error === true), `tool_result: ${JSON.stringify(ctx.api.toolResults)}`);
    session.dispose();
  });
});

// A documented limit, not a feature: the bridge decides only what an agent
// asks. Claude Code runs commands it deems read-only (echo, ls, ...) without
// session/request_permission, so even a matching deny rule never sees them.
// If this starts failing, Claude began asking: update docs/interop.md.
// Claude runs commands it deems read-only without asking, so the bridge is
// not asked; it sees the call in Claude's tool_call updates once it has run,
// decides it as if asked, and, the deny rule matching, shows a notice and
// cancels the turn (docs/policy.md, "Tool calls never asked about").
test(`${ADAPTER.name}@${ADAPTER.version}: limit: a read-only command runs without asking; the bridge sees it afterwards, its deny rule raises a notice and cancels the turn`, { timeout: 120_000 }, async (t) => {
  const command = "echo scripted-by-fake";
  await withClaude(t, { name: "limit-readonly", command, permissions: { deny: ["Bash(echo *)"] } }, async (agent, ctx) => {
    await initialize(agent);
    const session = await agent.buildSession(ctx.workspace).start();
    const { stopReason, updates } = await runTurn(session, "Say scripted-by-fake");
    assert.deepEqual(ctx.cards, [], "Claude asked for a read-only command");
    // It ran (the cancel may stop the turn before the model gets its output).
    assert.ok(updatesFor(updates, ctx.toolUseId).some((u) => u.status === "completed"), "the echo did not complete");
    assert.ok(unaskedNotice(updates, ctx.toolUseId), `no unaskedDenied notice: ${JSON.stringify(updates.filter((u) => u.sessionUpdate === "agent_message_chunk"))}`);
    assert.equal(stopReason, "cancelled", "a denied unasked call cancels the turn");
    session.dispose();
  });
});

/** The bridge's notice that the agent ran a denied tool call without asking. */
const unaskedNotice = (updates, id) =>
  updates.some((u) => u.sessionUpdate === "agent_message_chunk" && u._meta?.["acp-bridge"]?.notice === "unaskedDenied" && u._meta["acp-bridge"].toolCallId === id);

// The kernel floor (docs/sandbox.md): Claude runs `cat .env` without asking
// (a read-only command), so no rule sees it; with Read(.env) denied, the OS
// sandbox the bridge starts Claude in makes the file unreadable, and the
// secret never reaches the model. The control runs the same turn with the
// sandbox off: there the secret does reach the fake model API, which shows
// the read really happened unasked.
for (const sandboxed of [true, false]) {
  test(`${ADAPTER.name}@${ADAPTER.version}: kernel floor: an unasked read of a Read-denied file ${sandboxed ? "fails in the sandbox" : "(control, sandbox off) leaks"}`, { timeout: 120_000 }, async (t) => {
    const secret = "hunter2-" + (sandboxed ? "sandboxed" : "control");
    await withClaude(t, {
      name: sandboxed ? "floor-sandboxed" : "floor-control", command: "cat .env",
      // cancelOnUnaskedDeny off: the turn goes on, so the model gets the
      // tool_result this test reads (the notice still comes).
      permissions: { deny: ["Read(.env)"], cancelOnUnaskedDeny: false }, sandbox: sandboxed ? undefined : { enabled: false },
    }, async (agent, ctx) => {
      writeFileSync(join(ctx.workspace, ".env"), `SECRET=${secret}\n`);
      await initialize(agent);
      const session = await agent.buildSession(ctx.workspace).start(); // the agent process starts here
      const { stopReason, updates } = await runTurn(session, "Show me .env");
      // The read is denied by rule: once Claude has run it unasked, the
      // bridge says so, sandboxed or not.
      assert.equal(stopReason, "end_turn");
      assert.ok(unaskedNotice(updates, ctx.toolUseId), "no unaskedDenied notice");
      assert.deepEqual(ctx.cards, [], "Claude asked for a read-only command");
      assert.equal(ctx.api.toolResults.length, 1, "Claude did not run the command");
      const sent = JSON.stringify(ctx.api.toolResults[0].content);
      if (sandboxed) {
        assert.doesNotMatch(sent, new RegExp(secret), "the secret reached the model through the sandbox");
        assert.match(sent, /Permission denied/, "the read did not fail as the sandbox makes it fail");
      } else {
        assert.match(sent, new RegExp(secret), "unsandboxed, the read did not happen: the sandboxed case proves nothing");
      }
      session.dispose();
    });
  });
}

// Regression (found by this test): the adapter sends available_commands_update
// right after its session/new response; the bridge's child read loop used to
// handle it before the session was registered, dropping it (first session) or
// showing it on another session. The bridge now holds such updates until the
// editor has the new id (bridge/updates.go). Each session gets its own update.
test(`${ADAPTER.name}@${ADAPTER.version}: every new session gets the agent's first session/update`, { timeout: 120_000 }, async (t) => {
  const N = 4;
  let received;
  const stderr = await withClaude(t, { name: "new-sessions", command: COMMAND }, async (agent, ctx) => {
    await initialize(agent);
    const sessions = [];
    for (let i = 0; i < N; i++) sessions.push(await agent.buildSession(ctx.workspace).start());
    received = await Promise.all(
      sessions.map(async (s) => {
        let timer;
        const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve(null), 5_000)));
        const m = await Promise.race([s.nextUpdate(), timeout]);
        clearTimeout(timer);
        s.dispose();
        return m?.kind === "session_update" ? m.update.sessionUpdate : "nothing within 5s";
      }),
    );
  });
  const bad = misroutedUpdates(stderr);
  assert.deepEqual(bad, [], `the bridge dropped or misrouted ${bad.length} of the agent's session/updates; first update per session: ${JSON.stringify(received)}`);
  assert.deepEqual(received, Array(N).fill("available_commands_update"));
});
