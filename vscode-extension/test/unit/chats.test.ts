import assert from "node:assert/strict";
import { test } from "node:test";
import { Chats, type ChatsDeps } from "../../src/chats";
import { ChatStore } from "../../src/model";
import type { HostMessage } from "../../src/protocol";

function setup(over: Partial<ChatsDeps> = {}, conn: Record<string, unknown> = {}) {
  const sent: HostMessage[] = [];
  const store = new ChatStore((m) => sent.push(m));
  const calls: [string, ...unknown[]][] = [];
  let n = 0;
  const c = {
    newSession: async (cwd: string, agent?: string, mode?: string) => {
      calls.push(["newSession", agent, mode]);
      return { sessionId: `S${++n}`, raw: {} };
    },
    prompt: async (sid: string, text: string) => {
      calls.push(["prompt", sid, text]);
      return { stopReason: "end_turn" };
    },
    setMode: async (sid: string, mode: string) => {
      calls.push(["setMode", sid, mode]);
      return {};
    },
    closeSession: async () => ({}),
    ...conn,
  };
  const chats = new Chats({
    store,
    connection: async () => c as never,
    connectionNow: () => c as never,
    cwd: () => "/w",
    defaultAgent: () => "demo",
    agentMode: (a) => (a === "claude" ? "acceptEdits" : "default"),
    agentBypass: (a) => a === "yolo",
    agentCommand: (a) => (a === "gemini" ? { command: "gemini", args: ["--acp"] } : undefined),
    cancelChat: async () => {},
    log: () => {},
    ...over,
  });
  return { chats, store, calls, sent };
}

test("a message with no chat open opens one with the picked agent and is sent", async () => {
  const { chats, store, calls } = setup();
  const id = await chats.send("", "hello", "claude");
  assert.ok(id);
  assert.equal(store.chat(id!)!.agent, "claude");
  assert.equal(store.chat(id!)!.mode, "acceptEdits");
  assert.deepEqual(calls, [["newSession", "claude", undefined], ["prompt", "S1", "hello"]]);
  assert.deepEqual(store.items(id!).map((i) => i.kind), ["user"]);
  // A chat closed meanwhile: the same, with the default agent.
  const id2 = await chats.send("chat-99", "again");
  assert.equal(store.chat(id2!)!.agent, "demo");
  assert.equal(await chats.send("", "   "), undefined, "blank text sends nothing");
});

test("a new chat with an agent that has bypass shows it from the start", async () => {
  const { chats, store } = setup();
  const id = chats.create("yolo");
  assert.equal(store.chat(id)!.bypass, true);
  assert.equal(store.chat(chats.create("demo"))!.bypass, undefined);
});

test("set_mode: the chat shows the new mode only after the bridge accepted it", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { chats, store } = setup({}, {
    setMode: async (_sid: string, mode: string) => {
      await gate;
      if (mode === "nonsense") throw new Error("unknown mode");
      return {};
    },
  });
  const id = await chats.newChat("demo");
  const p = chats.setMode(id, "plan");
  await new Promise((r) => setImmediate(r));
  assert.equal(store.chat(id)!.mode, "default", "not before the answer");
  release();
  await p;
  assert.equal(store.chat(id)!.mode, "plan");
  await chats.setMode(id, "nonsense");
  assert.equal(store.chat(id)!.mode, "plan", "a refused mode leaves the chat as it was");
  assert.match(JSON.stringify(store.items(id).at(-1)), /Could not set mode nonsense/);
});

test("set_mode while session/new is in flight: the mode reaches the new session, never only the chat", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { chats, store, calls } = setup({}, {
    newSession: async (_cwd: string, agent?: string, mode?: string) => {
      calls.push(["newSession", agent, mode]);
      await gate;
      return { sessionId: "S1", mode: "default", raw: {} };
    },
  });
  const opening = chats.newChat("demo");
  await new Promise((r) => setImmediate(r));
  const id = store.chatIds().at(-1)!;
  const p = chats.setMode(id, "plan");
  await new Promise((r) => setImmediate(r));
  assert.equal(store.chat(id)!.mode, "default", "not before the session exists and the bridge accepted it");
  release();
  await opening;
  await p;
  assert.deepEqual(calls, [["newSession", "demo", undefined], ["setMode", "S1", "plan"]]);
  assert.equal(store.chat(id)!.mode, "plan");
  assert.match(JSON.stringify(store.items(id).at(-1)), /Mode: plan/);
});

test("a missing agent: one message with the install hint, not one per retry", async () => {
  const { chats, store } = setup({}, {
    newSession: async () => {
      throw new Error('start agent gemini: exec: "gemini": executable file not found in $PATH');
    },
  });
  const id = chats.create("gemini");
  await chats.prompt(id, "one");
  await chats.prompt(id, "two");
  await chats.ensureSession(id);
  const notices = store.items(id).filter((i) => i.kind === "notice");
  assert.equal(notices.length, 1, JSON.stringify(notices));
  const text = notices[0].kind === "notice" ? notices[0].text : "";
  assert.match(text, /gemini is not installed/);
  assert.match(text, /npm install -g @google\/gemini-cli/);
  assert.doesNotMatch(text, /executable file not found/);
});

test("bridgeGone: sessions are cleared; a crash says the next message starts a new one", async () => {
  const { chats, store } = setup();
  const id = await chats.newChat("demo");
  chats.bridgeGone(false);
  assert.equal(store.chat(id)!.sessionId, undefined);
  assert.match(JSON.stringify(store.items(id).at(-1)), /The bridge stopped/);
});

test("bridgeGone expires the open cards and unfinished tools; a prompt cut by the restart shows no raw error", async () => {
  let release!: (e: Error) => void;
  const { chats, store } = setup({}, { prompt: () => new Promise((_, rej) => (release = rej)) });
  const id = chats.create("demo");
  const sending = chats.prompt(id, "go");
  await new Promise((r) => setImmediate(r));
  const sid = store.chat(id)!.sessionId!;
  store.applySessionUpdate(sid, { sessionUpdate: "tool_call", toolCallId: "t1", title: "x", kind: "execute", status: "pending" });
  // The bridge answers the prompt with an error while it stops, before its process has exited.
  chats.bridgeStopping();
  release(new Error("context canceled"));
  await sending;
  chats.bridgeGone(true);
  const text = JSON.stringify(store.items(id));
  assert.doesNotMatch(text, /context canceled/);
  assert.match(text, /The bridge was restarted/);
  assert.match(text, /"status":"expired"/);
  assert.equal(store.chat(id)!.busy, false);
});

test("after the bridge that ran it is gone, the next message resumes with session/load where the agent can", async () => {
  const loads: unknown[] = [];
  const { chats, store, calls } = setup(
    { canLoad: (a) => (a === "claude" ? true : a === "demo" ? false : undefined) },
    {
      loadSession: async (sid: string, cwd: string, agent: string) => {
        loads.push([sid, cwd, agent]);
        return { sessionId: sid, childSessionId: sid, mode: "default", raw: {} };
      },
      newSession: async (_cwd: string, agent?: string) => {
        calls.push(["newSession", agent]);
        return { sessionId: `new-${agent}`, childSessionId: `child-${agent}`, raw: {} };
      },
    },
  );
  const c1 = chats.create("claude");
  await chats.prompt(c1, "one");
  const c2 = chats.create("demo");
  await chats.prompt(c2, "two");
  assert.equal(store.chat(c1)!.childSessionId, "child-claude");
  chats.bridgeGone(true);
  calls.length = 0;
  await chats.prompt(c1, "again");
  assert.deepEqual(loads, [["child-claude", "/w", "claude"]]);
  assert.equal(store.chat(c1)!.sessionId, "child-claude");
  assert.match(JSON.stringify(store.items(c1)), /Session resumed \(session\/load\)/);
  await chats.prompt(c2, "again");
  assert.equal(loads.length, 1, "no session/load for an agent without loadSession");
  assert.match(JSON.stringify(store.items(c2)), /New session: demo cannot load the earlier one/);
  assert.deepEqual(calls.filter((c) => c[0] === "newSession"), [["newSession", "demo"]]);
});

test("session/load refused: a new session and the read-only line", async () => {
  const { chats, store } = setup({}, {
    loadSession: async () => {
      throw new Error("Method not found");
    },
    newSession: async () => ({ sessionId: "S-new", childSessionId: "c-new", raw: {} }),
  });
  const id = chats.create("gemini");
  store.updateChat(id, { childSessionId: "c-old" });
  await chats.prompt(id, "hello");
  assert.equal(store.chat(id)!.sessionId, "S-new");
  assert.match(JSON.stringify(store.items(id)), /does not remember the messages above/);
});

test("connected: on a re-attached bridge live chats carry on (busy while their turn runs), the others expire", () => {
  const { chats, store } = setup();
  const live = chats.create("demo");
  store.updateChat(live, { sessionId: "L1" });
  store.addApproval({ sessionId: "L1", toolCall: { toolCallId: "t1" }, options: [], _meta: { "acp-bridge": { approvalId: "ap-live" } } });
  const dead = chats.create("demo");
  store.updateChat(dead, { sessionId: "D1" });
  store.addApproval({ sessionId: "D1", toolCall: { toolCallId: "t1" }, options: [], _meta: { "acp-bridge": { approvalId: "ap-dead" } } });
  const ended = chats.create("demo");
  store.updateChat(ended, { sessionId: "E1" });
  chats.turnEnded({ sessionId: "E1", stopReason: "end_turn" });
  chats.connected([
    { sessionId: "L1", agent: "demo", turnRunning: true, pendingApprovals: 1, mode: "plan" },
    { sessionId: "E1", agent: "demo", turnRunning: true, pendingApprovals: 0 },
  ]);
  assert.equal(store.chat(live)!.busy, true);
  assert.equal(store.chat(live)!.mode, "plan");
  assert.equal(store.approval("ap-live")?.state, "pending");
  assert.equal(store.chat(dead)!.sessionId, undefined);
  assert.equal(store.approval("ap-dead")?.state, "resolved");
  assert.equal(store.chat(ended)!.busy, false, "a turn/ended that came first wins over the attach answer");
  assert.match(JSON.stringify(store.items(ended)), /ended while the window was away/);
  // A fresh bridge: every kept session is gone.
  chats.connected(undefined);
  assert.equal(store.chat(live)!.sessionId, undefined);
  assert.equal(store.approval("ap-live")?.state, "resolved");
});

test("a message sent while the chat's session is still being opened uses that session (one session/new)", async () => {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  let n = 0;
  const { chats, store, calls } = setup({}, {
    newSession: async () => {
      calls.push(["newSession"]);
      await gate;
      return { sessionId: `S${++n}`, raw: {} };
    },
  });
  const creating = chats.newChat("demo");
  const id = store.chatIds()[0];
  const sending = chats.send(id, "right away");
  open();
  await creating;
  await sending;
  assert.deepEqual(calls, [["newSession"], ["prompt", "S1", "right away"]]);
  assert.equal(store.chatForSession("S1")?.chatId, id);
});

test("a revoked bypass does not come back from memory: after a restart or a reload a chat follows the agent's settings, a mode the person picked stays", async () => {
  let bypass = true;
  const { chats, store, calls } = setup({
    agentMode: (a) => (a === "yolo" && bypass ? "bypassPermissions" : "default"),
    agentBypass: (a) => a === "yolo" && bypass,
  }, {
    newSession: async (_cwd: string, agent?: string, mode?: string) => {
      calls.push(["newSession", agent, mode]);
      return { sessionId: `S${calls.length}`, raw: {}, mode: mode ?? (bypass ? "bypassPermissions" : "default") };
    },
  });
  const inherited = await chats.newChat("yolo");
  const chosen = await chats.newChat("yolo");
  await chats.setMode(chosen, "plan");
  assert.equal(store.chat(inherited)!.mode, "bypassPermissions");
  assert.equal(store.chat(inherited)!.bypass, true);
  // The person revokes the bypass; the bridge restarts before it said anything.
  bypass = false;
  chats.bridgeGone(true);
  assert.equal(store.chat(inherited)!.mode, "default", "the agent's mode now, not the remembered bypassPermissions");
  assert.equal(store.chat(inherited)!.bypass, false);
  assert.equal(store.chat(chosen)!.mode, "plan", "a mode the person picked stays");
  assert.equal(store.chat(chosen)!.bypass, false);
  // The next session is not asked for bypassPermissions.
  calls.length = 0;
  await chats.send(inherited, "hi");
  assert.deepEqual(calls[0], ["newSession", "yolo", undefined]);
  // A reload (connected with no live session) does the same for a chat restored with a stale mode.
  store.updateChat(inherited, { sessionId: undefined, mode: "bypassPermissions", bypass: true });
  chats.connected(undefined);
  assert.equal(store.chat(inherited)!.mode, "default");
  assert.equal(store.chat(inherited)!.bypass, false);
});
