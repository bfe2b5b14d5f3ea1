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
