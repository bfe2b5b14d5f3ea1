import assert from "node:assert/strict";
import { test } from "node:test";
import { autoDecisionLine, ChatStore, commandOf, listEntryToParams, mergeToolCall, PERSIST_MAX_BYTES, PERSIST_MAX_CHATS, PERSIST_MAX_ITEMS, toApprovalMeta } from "../../src/model";
import type { ChatItem, HostMessage } from "../../src/protocol";
import { describeResolution } from "../../src/protocol";

function setup() {
  const sent: HostMessage[] = [];
  const store = new ChatStore((m) => sent.push(m));
  const chat = store.createChat("demo", "default");
  store.updateChat(chat.chatId, { sessionId: "s1" });
  sent.length = 0;
  const items = () => store.items(chat.chatId);
  const lastItem = () => {
    const m = [...sent].reverse().find((x) => x.type === "item");
    return m && m.type === "item" ? m.item : undefined;
  };
  return { store, chat, sent, items, lastItem };
}

const permission = (approvalId: string, extra: Record<string, unknown> = {}) => ({
  sessionId: "s1",
  toolCall: { toolCallId: "tc1", title: "go test ./...", kind: "execute", rawInput: { command: "go test ./..." } },
  options: [
    { optionId: "acp-bridge:allow_once", name: "Allow once", kind: "allow_once" },
    { optionId: "acp-bridge:allow_always", name: "Always allow", kind: "allow_always" },
    { optionId: "acp-bridge:reject_once", name: "Deny", kind: "reject_once" },
  ],
  _meta: {
    "acp-bridge": {
      approvalId,
      agent: "demo",
      tool: "Bash",
      specifier: "Bash(go test ./...)",
      reason: "no rule allows it",
      mode: "default",
      suggestedRules: ["Bash(go test ./...)", "Bash(go test *)"],
      ...extra,
    },
  },
});

test("agent message chunks stream into one item; a tool call ends the stream", () => {
  const { store, items, sent } = setup();
  const chunk = (text: string) => store.applySessionUpdate("s1", { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  chunk("Hello ");
  chunk("**world**");
  assert.deepEqual(items(), [{ kind: "agent", id: "a1", text: "Hello **world**" }]);
  // The first chunk creates the item; later chunks send only their delta (not the whole message again).
  assert.deepEqual(sent.filter((m) => m.type === "item" || m.type === "append").map((m) => m.type), ["item", "append"]);
  assert.deepEqual(sent.at(-1), { type: "append", chatId: "chat-1", itemId: "a1", text: "**world**" });
  store.applySessionUpdate("s1", { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read README.md", kind: "read", status: "pending", locations: [{ path: "/w/README.md" }] });
  chunk("after");
  const kinds = items().map((i) => i.kind);
  assert.deepEqual(kinds, ["agent", "tool", "agent"]);
  store.applySessionUpdate("s1", { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } });
  assert.equal(items().at(-1)!.kind, "thought");
});

test("the bridge's notices (_meta[\"acp-bridge\"].notice) are notices of their own, never glued to the agent's streaming message", () => {
  const { store, items } = setup();
  const chunk = (text: string, meta?: object) =>
    store.applySessionUpdate("s1", { sessionUpdate: "agent_message_chunk", content: { type: "text", text }, ...(meta ? { _meta: meta } : {}) });
  chunk("Done.");
  chunk("acp-bridge: these files did not exist when this session started: /w/.vscode/tasks.json\n", { "acp-bridge": { notice: "protectedCreated", paths: ["/w/.vscode/tasks.json"] } });
  chunk("Next.");
  chunk("other meta is an agent's", { other: { notice: "x" } });
  assert.deepEqual(
    items().map((i) => [i.kind, "text" in i ? i.text : "", "level" in i ? i.level : ""]),
    [
      ["agent", "Done.", ""],
      ["notice", "these files did not exist when this session started: /w/.vscode/tasks.json", "warn"],
      ["agent", "Next.other meta is an agent's", ""],
    ],
  );
});

test("tool_call then tool_call_update upsert one card; fields present replace", () => {
  const { store, items } = setup();
  store.applySessionUpdate("s1", { sessionUpdate: "tool_call", toolCallId: "t1", title: "Edit main.go", kind: "edit", status: "pending" });
  store.applySessionUpdate("s1", {
    sessionUpdate: "tool_call_update",
    toolCallId: "t1",
    status: "completed",
    content: [
      { type: "diff", path: "/w/main.go", oldText: "a\n", newText: "b\n" },
      { type: "content", content: { type: "text", text: "ok" } },
      { type: "terminal", terminalId: "term1" },
      { type: "mystery" },
    ],
  });
  const it = items();
  assert.equal(it.length, 1);
  const tool = (it[0] as Extract<ChatItem, { kind: "tool" }>).tool;
  assert.equal(tool.title, "Edit main.go");
  assert.equal(tool.kind, "edit");
  assert.equal(tool.status, "completed");
  assert.deepEqual(tool.content, [
    { type: "diff", diff: { path: "/w/main.go", oldText: "a\n", newText: "b\n" } },
    { type: "text", text: "ok" },
    { type: "terminal", terminalId: "term1" },
  ]);
});

test("plan replaces itself; mode and title updates change the chat; unknown updates are ignored", () => {
  const { store, items, chat, sent } = setup();
  store.applySessionUpdate("s1", { sessionUpdate: "plan", entries: [{ content: "a", status: "pending", priority: "high" }] });
  store.applySessionUpdate("s1", { sessionUpdate: "plan", entries: [{ content: "a", status: "completed", priority: "high" }, { content: "b", status: "pending", priority: "low" }] });
  assert.equal(items().length, 1);
  assert.equal((items()[0] as any).entries.length, 2);
  store.applySessionUpdate("s1", { sessionUpdate: "current_mode_update", currentModeId: "plan" });
  assert.equal(store.chat(chat.chatId)!.mode, "plan");
  store.applySessionUpdate("s1", { sessionUpdate: "session_info_update", title: "Fix tests" });
  assert.equal(store.chat(chat.chatId)!.title, "Fix tests");
  const before = sent.length;
  store.applySessionUpdate("s1", { sessionUpdate: "compaction_update", compactionId: "c" });
  store.applySessionUpdate("s1", { sessionUpdate: "usage_update", used: 1, size: 2 });
  store.applySessionUpdate("unknown-session", { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } });
  store.applySessionUpdate("s1", "garbage");
  assert.equal(sent.length, before);
});

test("permission request -> approval card with the bridge's meta, merged with the cached tool call", () => {
  const { store, lastItem } = setup();
  store.applySessionUpdate("s1", { sessionUpdate: "tool_call", toolCallId: "tc1", title: "Run tests", kind: "execute", locations: [{ path: "/w", line: 3 }] });
  const card = store.addApproval({ ...permission("ap1"), toolCall: { toolCallId: "tc1", rawInput: { command: "go test ./..." } } })!;
  assert.equal(card.approvalId, "ap1");
  assert.equal(card.tool.title, "Run tests");
  assert.equal(card.tool.kind, "execute");
  assert.equal(card.tool.command, "go test ./...");
  assert.deepEqual(card.tool.locations, [{ path: "/w", line: 3 }]);
  assert.deepEqual(card.options.map((o) => o.optionId), ["acp-bridge:allow_once", "acp-bridge:allow_always", "acp-bridge:reject_once"]);
  assert.equal(card.meta.specifier, "Bash(go test ./...)");
  assert.deepEqual(card.meta.suggestedRules, ["Bash(go test ./...)", "Bash(go test *)"]);
  assert.equal(card.state, "pending");
  assert.deepEqual(lastItem(), JSON.parse(JSON.stringify(card)));
  // Same approval again (e.g. from approvals/list) does not duplicate.
  store.addApproval(permission("ap1"));
  assert.equal(store.pendingApprovals().length, 1);
  // No approvalId, no card.
  assert.equal(store.addApproval({ sessionId: "s1", toolCall: {}, options: [] }), undefined);
});

test("several pending approvals resolve independently, each showing how it ended", () => {
  const { store } = setup();
  for (const id of ["a", "b", "c", "d"]) store.addApproval(permission(id));
  assert.deepEqual(store.pendingApprovals().map((a) => a.approvalId), ["a", "b", "c", "d"]);
  store.markAnswering("a", "acp-bridge:allow_once");
  assert.equal(store.approval("a")!.state, "answering");
  assert.equal(store.approval("a")!.chosen, "acp-bridge:allow_once");
  store.resolveApproval({ approvalId: "a", decision: "allow", by: "user", optionId: "acp-bridge:allow_once" });
  store.resolveApproval({ approvalId: "c", decision: "deny", by: "timeout" });
  store.resolveApproval({ approvalId: "d", decision: "cancelled", by: "cancel" });
  assert.deepEqual(store.pendingApprovals().map((a) => a.approvalId), ["b"]);
  const text = (id: string) => {
    const a = store.approval(id)!;
    return describeResolution(a.resolution!, a.options);
  };
  assert.equal(text("a"), "Allowed by you (Allow once)");
  assert.equal(text("c"), "Denied: no answer in time (timeout)");
  assert.equal(text("d"), "Cancelled: the turn was cancelled");
  store.approvalError("b", "already resolved by timeout at 12:00");
  assert.equal(store.approval("b")!.state, "pending");
  assert.equal(store.approval("b")!.error, "already resolved by timeout at 12:00");
});

test("approval/resolved without a card becomes a quiet line in its chat", () => {
  const { store, items } = setup();
  store.resolveApproval({ approvalId: "zz", sessionId: "s1", decision: "allow", by: "rule", rule: "Bash(npm run *)", specifier: "Bash(npm run build)" });
  assert.deepEqual(items().at(-1), { kind: "notice", id: "n1", text: "Bash(npm run build) allowed by rule Bash(npm run *)", level: "quiet" });
  assert.equal(autoDecisionLine({ approvalId: "x", decision: "allow", by: "read-only", specifier: "Read(README.md)" }), "Read(README.md) allowed (read-only)");
  assert.equal(autoDecisionLine({ approvalId: "x", decision: "deny", by: "mode", specifier: "Bash(rm x)", reason: "plan mode is read-only" }), "Bash(rm x) denied by mode: plan mode is read-only");
});

test("an approval for a session this window does not know opens an 'other session' chat", () => {
  const { store } = setup();
  const card = store.addApproval({ ...permission("q"), sessionId: "elsewhere" })!;
  const a = store.approval(card.approvalId)!;
  const chat = store.chat(a.chatId)!;
  assert.equal(chat.external, true);
  assert.equal(chat.sessionId, "elsewhere");
  assert.equal(chat.agent, "demo");
});

test("snapshot after a reload holds every chat and card; expireAll closes open cards", () => {
  const { store, chat } = setup();
  store.addUserMessage(chat.chatId, "hi");
  store.addApproval(permission("p1"));
  const other = store.createChat("claude", "plan");
  const snap = store.snapshot();
  assert.deepEqual(snap.chats.map((c) => c.chat.chatId), [chat.chatId, other.chatId]);
  assert.equal(snap.activeChatId, other.chatId);
  assert.deepEqual(snap.chats[0].items.map((i) => i.kind), ["user", "approval"]);
  store.expireAll("shutdown");
  assert.equal(store.pendingApprovals().length, 0);
  assert.equal(store.approval("p1")!.resolution!.by, "shutdown");
});

test("approvals/list entries become request params (meta as the acp-bridge object or a whole _meta)", () => {
  const e = { approvalId: "L1", sessionId: "s1", agent: "demo", toolCall: { toolCallId: "t" }, options: [], meta: { tool: "Bash", specifier: "Bash(x)" }, expiresAt: "2026-01-01T00:00:00Z" };
  assert.deepEqual(listEntryToParams(e)._meta, { "acp-bridge": { tool: "Bash", specifier: "Bash(x)", approvalId: "L1", agent: "demo", expiresAt: "2026-01-01T00:00:00Z" } });
  const e2 = { ...e, meta: { "acp-bridge": { tool: "Read" } } };
  assert.equal((listEntryToParams(e2)._meta["acp-bridge"] as any).tool, "Read");
});

test("closing a chat forgets its session and cards", () => {
  const { store, chat, sent } = setup();
  store.addApproval(permission("c1"));
  store.closeChat(chat.chatId);
  assert.deepEqual(sent.filter((m) => m.type === "chatClosed"), [{ type: "chatClosed", chatId: chat.chatId }]);
  assert.equal(store.approval("c1"), undefined);
  assert.equal(store.chatForSession("s1"), undefined);
});

test("commandOf finds the command line in the agents' rawInput shapes", () => {
  const cases: [unknown, string | undefined][] = [
    [{ command: "npm test" }, "npm test"],
    [{ command: ["bash", "-lc", "go test ./... && echo ok"] }, "go test ./... && echo ok"],
    [{ command: ["/bin/bash", "-lc", "make"] }, "make"],
    [{ command: ["/usr/bin/zsh", "-c", "make"] }, "make"],
    [{ command: ["/ws/evil/bash", "-lc", "git status"] }, "/ws/evil/bash -lc 'git status'"],
    [{ command: ["./bash", "-c", "ls"] }, "./bash -c ls"],
    [{ command: ["git", "commit", "-m", "a b"] }, "git commit -m 'a b'"],
    [{ cmd: "ls" }, "ls"],
    [{ file_path: "/x" }, undefined],
    ["ls", undefined],
  ];
  for (const [raw, want] of cases) assert.equal(commandOf(raw), want, JSON.stringify(raw));
  assert.equal(mergeToolCall(undefined, { toolCallId: "t", rawInput: { command: "make" } }).title, "make");
});

test("streaming a long reply sends each chunk's delta once: total bytes sent grow linearly", () => {
  const { store, sent } = setup();
  const n = 2000;
  for (let i = 0; i < n; i++) store.applySessionUpdate("s1", { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "word " } });
  const bytes = sent.reduce((t, m) => t + JSON.stringify(m).length, 0);
  // Whole-message re-sends would be about n*n*5/2 = 10 MB; deltas stay near n * 80 bytes.
  assert.ok(bytes < n * 120, `sent ${bytes} bytes for ${n} chunks`);
  const first = store.items("chat-1")[0];
  assert.equal(first.kind === "agent" ? first.text.length : -1, n * 5);
});

test("a plan is per turn: a later turn's plan does not rewrite an earlier one", () => {
  const { store, items } = setup();
  const plan = (content: string, status: string) => store.applySessionUpdate("s1", { sessionUpdate: "plan", entries: [{ content, status, priority: "high" }] });
  store.addUserMessage("chat-1", "first");
  plan("step A", "pending");
  plan("step A", "completed"); // same turn: updated in place
  store.addUserMessage("chat-1", "second");
  plan("step B", "in_progress");
  const plans = items().filter((i) => i.kind === "plan");
  assert.equal(plans.length, 2);
  assert.deepEqual(plans.map((p) => p.kind === "plan" && p.entries.map((e) => `${e.content}:${e.status}`)), [["step A:completed"], ["step B:in_progress"]]);
});

test("a tool card names what decided its permission, from approval/resolved's by and rule", () => {
  const { store, items } = setup();
  const tool = (id: string) => store.applySessionUpdate("s1", { sessionUpdate: "tool_call", toolCallId: id, title: id, kind: "execute", status: "pending" });
  const cases: [string, Record<string, unknown>, string][] = [
    ["t1", { decision: "deny", by: "rule", rule: "Bash(rm *)" }, "Denied by rule Bash(rm *)"],
    ["t2", { decision: "deny", by: "mode", reason: "dontAsk mode denies what would ask" }, "Denied by the mode (dontAsk mode denies what would ask)"],
    ["t3", { decision: "deny", by: "timeout" }, "Denied: no answer in time (timeout)"],
    ["t4", { decision: "cancelled", by: "cancel" }, "Cancelled: the turn was cancelled"],
    ["t5", { decision: "deny", by: "user" }, "Denied by you"],
  ];
  for (const [id, r] of cases) {
    tool(id);
    store.resolveApproval({ approvalId: `ap-${id}`, sessionId: "s1", toolCallId: id, ...(r as { decision: string; by: string }) });
  }
  for (const [id, , want] of cases) {
    const it = items().find((i) => i.id === `tool:s1:${id}`);
    assert.equal(it?.kind === "tool" && it.tool.verdict, want, id);
  }
  // A verdict that arrives before the tool call is kept for it.
  store.resolveApproval({ approvalId: "ap-t9", sessionId: "s1", toolCallId: "t9", decision: "deny", by: "breaker", reason: "too many deletes" });
  tool("t9");
  const t9 = items().find((i) => i.id === "tool:s1:t9");
  assert.equal(t9?.kind === "tool" && t9.tool.verdict, "Denied by a circuit breaker (too many deletes)");
});

test("bypass shows on every chat of the agent as soon as the bridge says so, not before", () => {
  const { store } = setup();
  const other = store.createChat("claude", "default");
  store.addApproval(permission("bp", {}));
  assert.equal(store.chat("chat-1")!.bypass, undefined, "clicking is not enough");
  store.resolveApproval({ approvalId: "bp", sessionId: "s1", agent: "demo", decision: "allow", by: "user", optionId: "acp-bridge:bypass" });
  assert.equal(store.chat("chat-1")!.bypass, true);
  assert.equal(store.chat(other.chatId)!.bypass, undefined, "another agent's chat is untouched");
  // A call the bridge allowed by bypass (e.g. set in another window) says it too.
  store.resolveApproval({ approvalId: "x", sessionId: "s1", agent: "claude", decision: "allow", by: "bypass" });
  assert.equal(store.chat(other.chatId)!.bypass, true);
});

test("tool calls are kept per session: a new session's toolu_01 never overwrites an old card", () => {
  const { store, items, chat } = setup();
  store.applySessionUpdate("s1", { sessionUpdate: "tool_call", toolCallId: "toolu_01", title: "old", kind: "execute", status: "pending" });
  store.resolveApproval({ approvalId: "a-old", sessionId: "s1", toolCallId: "toolu_01", decision: "allow", by: "user" });
  store.applySessionUpdate("s1", { sessionUpdate: "tool_call_update", toolCallId: "toolu_01", status: "completed" });
  store.updateChat(chat.chatId, { sessionId: "s2" });
  store.applySessionUpdate("s2", { sessionUpdate: "tool_call", toolCallId: "toolu_01", title: "new", kind: "execute", status: "pending" });
  store.resolveApproval({ approvalId: "a-new", sessionId: "s2", toolCallId: "toolu_01", decision: "deny", by: "rule", rule: "Bash(rm *)" });
  const tools = items().filter((i) => i.kind === "tool");
  assert.deepEqual(
    tools.map((t) => t.kind === "tool" && [t.id, t.tool.title, t.tool.status, t.tool.verdict]),
    [
      ["tool:s1:toolu_01", "old", "completed", "Allowed by you"],
      ["tool:s2:toolu_01", "new", "pending", "Denied by rule Bash(rm *)"],
    ],
  );
});

test("serialize/restore: chats, cards and tool calls come back as they were; the bounds hold", () => {
  const { store, chat } = setup();
  store.addUserMessage(chat.chatId, "hi");
  store.applySessionUpdate("s1", { sessionUpdate: "tool_call", toolCallId: "tc1", title: "go test", kind: "execute", status: "pending" });
  store.addApproval(permission("ap1"));
  store.updateChat(chat.chatId, { busy: true, childSessionId: "child-1" });
  const kept = JSON.parse(JSON.stringify(store.serialize()));
  const back = new ChatStore(() => {});
  assert.equal(back.restore(kept), 1);
  assert.deepEqual(back.items(chat.chatId), store.items(chat.chatId));
  assert.equal(back.chat(chat.chatId)!.busy, false, "no turn runs in a new window until the bridge says so");
  assert.equal(back.chat(chat.chatId)!.childSessionId, "child-1");
  assert.equal(back.chatForSession("s1")?.chatId, chat.chatId);
  assert.equal(back.approval("ap1")?.state, "pending");
  // A later update of the same tool call merges with the kept one.
  back.applySessionUpdate("s1", { sessionUpdate: "tool_call_update", toolCallId: "tc1", status: "completed" });
  const t = back.items(chat.chatId).find((i) => i.id === "tool:s1:tc1");
  assert.equal(t?.kind === "tool" && `${t.tool.title}/${t.tool.status}`, "go test/completed");
  // New chats do not reuse a kept chat's id.
  assert.notEqual(back.createChat("demo", "default").chatId, chat.chatId);
  assert.equal(back.restore(undefined), 0);
  assert.equal(back.restore({ version: 2 } as never), 0);

  // Bounds: at most PERSIST_MAX_CHATS chats (the latest), PERSIST_MAX_ITEMS items each (the latest, with a notice).
  const big = new ChatStore(() => {});
  for (let i = 0; i < PERSIST_MAX_CHATS + 3; i++) big.createChat("demo", "default");
  const last = big.chatIds().at(-1)!;
  for (let i = 0; i < PERSIST_MAX_ITEMS + 5; i++) big.addNotice(last, `n${i}`);
  const s = big.serialize();
  assert.equal(s.chats.length, PERSIST_MAX_CHATS);
  assert.equal(s.chats[0].info.chatId, big.chatIds()[3]);
  const lastItems = s.chats.at(-1)!.items;
  assert.equal(lastItems.length, PERSIST_MAX_ITEMS + 1);
  assert.match(JSON.stringify(lastItems[0]), /5 earlier item\(s\) of this chat were not kept/);
  assert.ok(JSON.stringify(s).length <= PERSIST_MAX_BYTES);
});

test("expireSession: a card left pending by a dead bridge is expired, never pending; the chat has no session", () => {
  const { store, chat, items } = setup();
  store.applySessionUpdate("s1", { sessionUpdate: "tool_call", toolCallId: "tc1", title: "go test", kind: "execute", status: "pending" });
  store.addApproval(permission("ap1"));
  store.expireSession(chat.chatId, "bridge-gone", "The bridge that ran this chat is gone.");
  assert.equal(store.approval("ap1")?.state, "resolved");
  assert.equal(store.approval("ap1")?.resolution?.by, "bridge-gone");
  assert.equal(describeResolution(store.approval("ap1")!.resolution!, []), "Expired: the bridge that asked is gone");
  const t = items().find((i) => i.id === "tool:s1:tc1");
  assert.equal(t?.kind === "tool" && t.tool.status, "expired");
  assert.equal(store.chat(chat.chatId)!.sessionId, undefined);
  assert.equal(store.pendingApprovals().length, 0);
  assert.match(JSON.stringify(items().at(-1)), /is gone/);
  // Updates of the dead session no longer reach the chat.
  store.applySessionUpdate("s1", { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "ghost" } });
  assert.doesNotMatch(JSON.stringify(items()), /ghost/);
});

test("the oldest pending card is the one that arrived first, across chats, not one being answered", () => {
  const { store } = setup();
  const other = store.createChat("helper", "default");
  store.updateChat(other.chatId, { sessionId: "s2" });
  // The second chat is first in tab order; its card arrives later.
  store.setActive(other.chatId);
  store.addApproval(permission("first"));
  store.addApproval({ ...permission("second"), sessionId: "s2" });
  store.addApproval(permission("third"));
  assert.equal(store.oldestPending()?.approvalId, "first");
  store.markAnswering("first", "acp-bridge:allow_once");
  assert.equal(store.oldestPending()?.approvalId, "second", "a card being answered is skipped");
  store.resolveApproval({ approvalId: "second", sessionId: "s2", decision: "deny", by: "user" });
  store.resolveApproval({ approvalId: "first", sessionId: "s1", decision: "allow", by: "user" });
  assert.equal(store.oldestPending()?.approvalId, "third");
  // After a reload the cards keep their arrival (serialized with the items).
  const again = new ChatStore(() => {});
  again.restore(store.serialize());
  assert.equal(again.approval("third")?.arrived, store.approval("third")?.arrived);
});

test("toApprovalMeta carries the card's breaker, operation, sandbox note and rejectEndsTurn (sent by the bridge, shown on the card)", () => {
  const m = toApprovalMeta("A", {
    tool: "Edit",
    specifier: "/w/.env",
    breaker: "protected file",
    operation: "fs/write_text_file",
    sandbox: "the OS sandbox will block this write: /w/.env is read-only in the sandbox (a protected file)",
    rejectEndsTurn: true,
  });
  assert.equal(m.breaker, "protected file");
  assert.equal(m.operation, "fs/write_text_file");
  assert.match(m.sandbox ?? "", /OS sandbox will block/);
  assert.equal(m.rejectEndsTurn, true);
  const plain = toApprovalMeta("B", { tool: "Bash", rejectEndsTurn: "yes" });
  assert.equal(plain.rejectEndsTurn, undefined, "only a real true ends the turn on Deny");
  assert.equal(plain.sandbox, undefined);
});
