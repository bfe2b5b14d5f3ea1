import assert from "node:assert/strict";
import { test } from "node:test";
import { ApprovalCoordinator, decisionOfKind } from "../../src/coordinator";
import { ChatStore } from "../../src/model";
import type { HostMessage } from "../../src/protocol";
import type { PendingApprovalWire } from "../../src/wire";

const OPTIONS = [
  { optionId: "acp-bridge:allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "acp-bridge:allow_always", name: "Always allow", kind: "allow_always" },
  { optionId: "acp-bridge:reject_once", name: "Deny", kind: "reject_once" },
];

function req(approvalId: string | undefined, sessionId = "S1") {
  return {
    sessionId,
    toolCall: { toolCallId: `tc-${approvalId}`, title: "go test ./...", kind: "execute" },
    options: OPTIONS,
    _meta: approvalId ? { "acp-bridge": { approvalId, agent: "demo", specifier: "Bash(go test ./...)", suggestedRules: ["Bash(go test *)"] } } : undefined,
  };
}

function setup(listed: PendingApprovalWire[] = []) {
  const sent: HostMessage[] = [];
  const store = new ChatStore((m) => sent.push(m));
  const chat = store.createChat("demo", "default", { sessionId: "S1" });
  const calls = { respond: [] as any[], cancel: [] as string[], arrived: [] as string[], changed: 0 };
  let respondError: Error | undefined;
  const co = new ApprovalCoordinator({
    store,
    respond: async (p) => {
      calls.respond.push(p);
      if (respondError) throw respondError;
      return { approvalId: p["approvalId"], outcome: "ok" };
    },
    listApprovals: async () => listed,
    cancelSession: async (s) => void calls.cancel.push(s),
    changed: () => calls.changed++,
    arrived: (id) => calls.arrived.push(id),
  });
  return { store, chat, co, calls, setRespondError: (e?: Error) => (respondError = e) };
}

test("a click on a live card answers the JSON-RPC request (with rule and scope), not approvals/respond", async () => {
  const { co, store, calls } = setup();
  const answer = co.onRequest(req("A"));
  assert.deepEqual(calls.arrived, ["A"]);
  assert.equal(co.pendingCount(), 1);
  assert.equal(await co.answer("A", "acp-bridge:allow_always", { rule: "Bash(go test *)", scope: "workspace" }), undefined);
  assert.deepEqual(await answer, {
    outcome: { outcome: "selected", optionId: "acp-bridge:allow_always" },
    _meta: { "acp-bridge": { rule: "Bash(go test *)", scope: "workspace" } },
  });
  assert.deepEqual(calls.respond, []);
  assert.equal(store.approval("A")!.state, "resolved");
  assert.deepEqual(store.approval("A")!.resolution, { decision: "allow", by: "user", optionId: "acp-bridge:allow_always", rule: "Bash(go test *)", reason: undefined });
  assert.equal(co.pendingCount(), 0);
  assert.equal(await co.answer("A", "acp-bridge:reject_once"), "that approval was already answered");
});

test("notifications answer through approvals/respond; the bridge's resolved notice then releases the dangling request", async () => {
  const { co, store, calls } = setup();
  const answer = co.onRequest(req("N"));
  assert.equal(await co.answer("N", "acp-bridge:reject_once", { viaRespond: true }), undefined);
  assert.deepEqual(calls.respond, [{ approvalId: "N", optionId: "acp-bridge:reject_once" }]);
  assert.equal(store.approval("N")!.resolution!.decision, "deny");
  assert.equal(co.live.has("N"), true, "the request stays until the bridge confirms");
  co.onResolved({ approvalId: "N", sessionId: "S1", decision: "deny", by: "user", optionId: "acp-bridge:reject_once" });
  assert.deepEqual(await answer, { outcome: { outcome: "cancelled" } });
  assert.equal(co.live.size, 0);
});

test("first answer wins: a refused approvals/respond shows the bridge's error on the card, which stays open", async () => {
  const { co, store, setRespondError } = setup([{ approvalId: "L", sessionId: "S1", toolCall: {}, options: OPTIONS }]);
  await co.reconcile();
  setRespondError(new Error("approval L was already resolved by timeout at 10:00:00"));
  assert.match((await co.answer("L", "acp-bridge:allow_once"))!, /already resolved by timeout/);
  const card = store.approval("L")!;
  assert.equal(card.state, "pending");
  assert.match(card.error!, /already resolved by timeout/);
});

test("several pending approvals resolve independently, by card, by the bridge, by timeout", async () => {
  const { co, store } = setup();
  const a = co.onRequest(req("a"));
  const b = co.onRequest(req("b"));
  const c = co.onRequest(req("c"));
  await co.answer("b", "acp-bridge:reject_once");
  assert.deepEqual((await b).outcome, { outcome: "selected", optionId: "acp-bridge:reject_once" });
  co.onResolved({ approvalId: "c", decision: "deny", by: "timeout" });
  assert.deepEqual(await c, { outcome: { outcome: "cancelled" } });
  assert.equal(store.approval("c")!.resolution!.by, "timeout");
  assert.equal(store.approval("a")!.state, "pending");
  await co.answer("a", "acp-bridge:allow_once");
  assert.deepEqual((await a).outcome, { outcome: "selected", optionId: "acp-bridge:allow_once" });
});

test("cancel: session/cancel first, then cancelled for every waiting request of that chat only; cards expire", async () => {
  const { co, store, calls } = setup();
  const other = store.createChat("claude", "default", { sessionId: "S2" });
  const a = co.onRequest(req("a"));
  const b = co.onRequest(req("b"));
  const x = co.onRequest(req("x", "S2"));
  await co.cancelChat(store.chatForSession("S1")!.chatId);
  assert.deepEqual(calls.cancel, ["S1"]);
  assert.deepEqual(await a, { outcome: { outcome: "cancelled" } });
  assert.deepEqual(await b, { outcome: { outcome: "cancelled" } });
  assert.equal(store.approval("a")!.resolution!.by, "cancel");
  assert.equal(store.approval("x")!.state, "pending", `chat ${other.chatId} untouched`);
  // The bridge then reports our cancelled answer: the card keeps saying the turn was cancelled.
  co.onResolved({ approvalId: "a", decision: "cancelled", by: "user" });
  assert.equal(store.approval("a")!.resolution!.by, "cancel");
  co.live.release("x");
  await x;
});

test("the bridge withdrawing a request ($/cancel_request) closes its card", async () => {
  const { co, store } = setup();
  const ac = new AbortController();
  const p = co.onRequest(req("w"), ac.signal);
  ac.abort();
  assert.deepEqual(await p, { outcome: { outcome: "cancelled" } });
  assert.equal(store.approval("w")!.state, "resolved");
  assert.equal(co.pendingCount(), 0);
  // The bridge's word on why replaces "withdrawn" (here: it shut down for a restart).
  assert.equal(store.approval("w")!.resolution!.by, "withdrawn");
  co.onResolved({ approvalId: "w", sessionId: "S1", decision: "cancelled", by: "shutdown" });
  assert.equal(store.approval("w")!.resolution!.by, "shutdown");
});

test("reconcile: unknown listed approvals become cards; stale non-live cards are closed; live ones are kept", async () => {
  const listed: PendingApprovalWire[] = [
    { approvalId: "live", sessionId: "S1", toolCall: {}, options: OPTIONS },
    { approvalId: "new", sessionId: "S9", agent: "gemini", toolCall: { toolCallId: "t9", title: "rm -rf build" }, options: OPTIONS, meta: { specifier: "Bash(rm -rf build)" } },
  ];
  const { co, store, calls } = setup(listed);
  void co.onRequest(req("live"));
  await co.reconcile(); // "new" arrives from the list
  assert.equal(store.approval("new")!.meta.specifier, "Bash(rm -rf build)");
  assert.equal(store.chat(store.approval("new")!.chatId)!.agent, "gemini");
  assert.deepEqual(calls.arrived, ["live", "new"]);
  listed.splice(0, listed.length); // the bridge no longer lists either
  await co.reconcile();
  assert.equal(store.approval("live")!.state, "pending", "a live request is only closed by its own answer");
  assert.equal(store.approval("new")!.state, "resolved");
  assert.equal(store.approval("new")!.resolution!.by, "elsewhere");
});

test("a request without the bridge's meta still gets a card, answered through the request", async () => {
  const { co, store } = setup();
  const p = co.onRequest(req(undefined));
  const card = store.pendingApprovals()[0];
  assert.match(card.approvalId, /^local-/);
  await co.answer(card.approvalId, "acp-bridge:allow_once");
  assert.deepEqual((await p).outcome, { outcome: "selected", optionId: "acp-bridge:allow_once" });
});

test("decisionOfKind never turns an unknown kind into allow", () => {
  assert.equal(decisionOfKind("allow_once"), "allow");
  assert.equal(decisionOfKind("allow_always"), "allow");
  assert.equal(decisionOfKind("reject_always"), "deny");
  assert.equal(decisionOfKind("allow_maybe"), "cancelled");
  assert.equal(decisionOfKind(undefined), "cancelled");
});
