// A turn's checkpoint and changes through Chats (real git, an agent writing the disk
// itself during the prompt), and closed chats' history: kept, searched, reopened.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { Chats } from "../../src/chats";
import { CheckpointStore } from "../../src/checkpoints";
import { ChatHistory, searchHistory, type HistoryEntry } from "../../src/history";
import { ChatStore } from "../../src/model";
import { TurnCheckpoints } from "../../src/turnCheckpoints";

function setup(onPrompt: (text: string) => void, canLoad?: boolean) {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acpb-turn-")));
  const store = new ChatStore(() => {});
  const cps = new CheckpointStore({ gitDir: path.join(ws, "..", `${path.basename(ws)}-shadow.git`), workTree: ws });
  const loads: string[] = [];
  const conn = {
    newSession: async () => ({ sessionId: "S1", childSessionId: "child-1", raw: {} }),
    prompt: async (_sid: string, text: string) => {
      onPrompt(text);
      return { stopReason: "end_turn" };
    },
    setMode: async () => ({}),
    closeSession: async () => ({}),
    loadSession: async (child: string) => {
      loads.push(child);
      return { sessionId: "S2", raw: {} };
    },
  };
  const chats = new Chats({
    store,
    connection: async () => conn as never,
    connectionNow: () => conn as never,
    cwd: () => ws,
    defaultAgent: () => "demo",
    agentMode: () => "default",
    agentBypass: () => false,
    agentCommand: () => undefined,
    canLoad: () => canLoad,
    cancelChat: async () => {},
    turns: new TurnCheckpoints(store, () => cps, () => {}),
    log: () => {},
  });
  return { ws, store, chats, cps, loads };
}

test("a turn records a checkpoint on its message and lists what the agent changed on disk", async () => {
  let ws = "";
  const s = setup((text) => {
    if (text === "edit") {
      fs.writeFileSync(path.join(ws, "main.go"), "package main // edited\n");
      fs.writeFileSync(path.join(ws, "new.txt"), "new\n");
    }
  });
  ws = s.ws;
  fs.writeFileSync(path.join(ws, "main.go"), "package main\n");
  const id = (await s.chats.send("", "edit"))!;
  const items = s.store.items(id);
  const user = items.find((i) => i.kind === "user");
  assert.ok(user && user.kind === "user" && user.checkpoint, "the message carries its checkpoint");
  const changes = items.find((i) => i.kind === "changes");
  assert.ok(changes && changes.kind === "changes");
  assert.equal(changes.from, user.checkpoint);
  assert.deepEqual(changes.files.map((f) => `${f.status} ${f.path}`).sort(), ["added new.txt", "modified main.go"]);
  assert.equal((await s.cps.read(changes.from, "main.go"))?.toString(), "package main\n");
  // A turn that changes nothing adds no changes item.
  await s.chats.send(id, "nothing");
  assert.equal(s.store.items(id).filter((i) => i.kind === "changes").length, 1);
});

test("history: closed chats are kept newest first, searched through their text, and reopened", async () => {
  let kept: HistoryEntry[] | undefined;
  const h = new ChatHistory({ get: () => kept, set: async (v) => void (kept = v) });
  const s = setup(() => {}, false);
  const a = (await s.chats.send("", "fix the flaky parser test"))!;
  s.store.addNotice(a, "the answer mentions tokenizer", "info");
  const b = (await s.chats.send("", "write the README"))!;
  const empty = s.chats.create();
  await h.add(s.store.entry(a)!, 1000);
  await h.add(s.store.entry(b)!, 2000);
  await h.add(s.store.entry(empty)!, 3000);
  assert.deepEqual(h.list().map((e) => e.closedAt), [2000, 1000], "newest first; a chat with nothing said is not kept");
  assert.deepEqual(searchHistory(h.list(), "TOKENIZER").map((r) => r.entry.closedAt), [1000]);
  assert.match(searchHistory(h.list(), "tokenizer")[0].excerpt!, /mentions tokenizer/);
  assert.deepEqual(searchHistory(h.list(), "readme write").map((r) => r.entry.closedAt), [2000], "every word, any order");
  assert.deepEqual(searchHistory(h.list(), "nowhere"), []);
  // Reopen with an agent that cannot load sessions: read-only, and a message is refused.
  const e = (await h.take(1000, a))!;
  assert.equal(h.list().length, 1, "taken out of the history");
  const re = s.store.reopen(e.chat);
  assert.notEqual(re, a);
  await s.chats.reopen(re);
  assert.equal(s.store.chat(re)!.readOnly, true);
  assert.match(s.store.items(re).at(-1)!.kind === "notice" ? (s.store.items(re).at(-1) as { text: string }).text : "", /read-only: demo does not offer session\/load/);
  assert.equal(await s.chats.send(re, "more"), undefined);
  assert.ok(s.store.items(re).some((i) => i.kind === "user" && i.text === "fix the flaky parser test"), "the transcript came back");
  assert.equal(s.loads.length, 0);
});

test("history: reopening with an agent that loads sessions resumes it with session/load", async () => {
  const s = setup(() => {}, true);
  const a = (await s.chats.send("", "hello"))!;
  const entry = s.store.entry(a)!;
  await s.chats.close(a);
  const re = s.store.reopen(entry);
  await s.chats.reopen(re);
  assert.deepEqual(s.loads, ["child-1"]);
  assert.equal(s.store.chat(re)!.sessionId, "S2");
  assert.equal(s.store.chat(re)!.readOnly, undefined);
});
