// Editor-grade features, their pure parts: prompt context blocks, the diff
// editor's sides, the audit table's rows and filters, and Chats sending a
// prompt with context.
import assert from "node:assert/strict";
import { test } from "node:test";
import { matches, parseAuditLines, splitComplete } from "../../src/auditRows";
import { Chats } from "../../src/chats";
import { approvalOfDiffPath, diffSides } from "../../src/diffSides";
import { ChatStore } from "../../src/model";
import { agentPromptCaps, MAX_EMBED_BYTES, promptBlocks, refUri, sliceRange } from "../../src/promptBlocks";
import type { ContextRef } from "../../src/protocol";

const file: ContextRef = { kind: "file", uri: "file:///ws/main.go", path: "/ws/main.go", label: "main.go" };
const sel: ContextRef = {
  kind: "selection",
  uri: "file:///ws/main.go",
  path: "/ws/main.go",
  label: "main.go:3-5",
  range: { startLine: 3, startCharacter: 1, endLine: 5, endCharacter: 2 },
};

test("prompt blocks follow the agent's promptCapabilities", () => {
  const cases: { name: string; caps: Parameters<typeof promptBlocks>[2]; text?: string; want: string[] }[] = [
    { name: "unknown capabilities: links only", caps: undefined, text: "x", want: ["text", "resource_link"] },
    { name: "no embeddedContext: links only", caps: { embeddedContext: false }, text: "x", want: ["text", "resource_link"] },
    { name: "embeddedContext: link and resource", caps: { embeddedContext: true }, text: "x", want: ["text", "resource_link", "resource"] },
    { name: "embeddedContext, no text known: link only", caps: { embeddedContext: true }, text: undefined, want: ["text", "resource_link"] },
    { name: "too large to embed: link only", caps: { embeddedContext: true }, text: "a".repeat(MAX_EMBED_BYTES + 1), want: ["text", "resource_link"] },
  ];
  for (const c of cases) {
    const blocks = promptBlocks("look at this", [{ ref: file, text: c.text }], c.caps);
    assert.deepEqual(blocks.map((b) => b.type), c.want, c.name);
    assert.deepEqual(blocks[0], { type: "text", text: "look at this" }, c.name);
    assert.deepEqual(blocks[1], { type: "resource_link", uri: "file:///ws/main.go", name: "main.go", mimeType: "text/x-go" }, c.name);
  }
  const emb = promptBlocks("x", [{ ref: file, text: "package main\n" }], { embeddedContext: true })[2];
  assert.deepEqual(emb, { type: "resource", resource: { uri: "file:///ws/main.go", text: "package main\n", mimeType: "text/x-go" } });
});

test("a selection carries its range in the URI fragment and in _meta", () => {
  assert.equal(refUri(sel), "file:///ws/main.go#L3-5");
  assert.equal(refUri({ ...sel, range: { startLine: 7, startCharacter: 0, endLine: 7, endCharacter: 4 } }), "file:///ws/main.go#L7");
  const [, link, res] = promptBlocks("x", [{ ref: sel, text: "sel" }], { embeddedContext: true });
  assert.equal(link.type === "resource_link" && link.uri, "file:///ws/main.go#L3-5");
  assert.deepEqual(link.type === "resource_link" && link._meta, { "acp-bridge": { range: sel.range } });
  assert.equal(res.type === "resource" && res.resource.uri, "file:///ws/main.go#L3-5");
  assert.equal(sliceRange("l1\nl2\nabcd\nl4\nxyz\nl6", sel.range!), "bcd\nl4\nxy");
  assert.equal(sliceRange("abcdef", { startLine: 1, startCharacter: 2, endLine: 1, endCharacter: 4 }), "cd");
});

test("agentPromptCaps reads an agents/list entry", () => {
  assert.equal(agentPromptCaps(undefined), undefined);
  assert.equal(agentPromptCaps({}), undefined, "not started yet: unknown");
  assert.deepEqual(agentPromptCaps({ capabilities: {} }), {}, "no promptCapabilities: only the baseline");
  assert.deepEqual(agentPromptCaps({ capabilities: { promptCapabilities: { embeddedContext: true, image: "yes" } } }), { image: false, audio: false, embeddedContext: true });
});

test("diff sides: a snippet found once in the file shows the whole file before and after", () => {
  const cur = 'package main\n\nfunc main() {\n\tfmt.Println("helo")\n}\n';
  const d = { path: "/ws/main.go", oldText: 'fmt.Println("helo")', newText: 'fmt.Println("hello")' };
  assert.deepEqual(diffSides(d, cur), { left: cur, right: cur.replace("helo", "hello"), whole: true });
  assert.deepEqual(diffSides(d, undefined), { left: d.oldText, right: d.newText, whole: false }, "file unknown: the texts as sent");
  assert.deepEqual(diffSides(d, cur + cur), { left: d.oldText, right: d.newText, whole: false }, "found twice: ambiguous, as sent");
  assert.deepEqual(diffSides(d, "other"), { left: d.oldText, right: d.newText, whole: false });
  assert.deepEqual(diffSides({ ...d, oldText: null }, cur), { left: "", right: d.newText, whole: false }, "a new file");
  assert.deepEqual(diffSides({ ...d, oldText: cur, newText: "x" }, cur), { left: cur, right: "x", whole: false }, "whole file sent");
});

test("a diff document's path names its approval", () => {
  assert.equal(approvalOfDiffPath("/a:ap%2F1/3/new/main.go"), "ap/1");
  assert.equal(approvalOfDiffPath("/a:ap1/3/old/main.go"), undefined, "the left side answers nothing");
  assert.equal(approvalOfDiffPath("/t/3/new/main.go"), undefined, "a tool card's diff has no approval");
});

test("audit lines become rows; a bad line is a row that says so", () => {
  const text = [
    JSON.stringify({ time: "2026-01-02T03:04:05Z", agent: "demo", sessionId: "s", call: { tool: "Bash", command: "go test ./..." }, specifier: "Bash(go test ./...)", decision: "allow", source: "user", optionId: "x", latencyMs: 3 }),
    JSON.stringify({ time: "2026-01-02T03:04:06Z", agent: "claude", sessionId: "s", specifier: "Read(./.env)", decision: "deny", source: "rule", rule: "Read(./.env)", reason: "deny rule", latencyMs: 0 }),
    "{not json",
    JSON.stringify({ time: "t", agent: "demo", decision: "unasked", would: "deny", source: "unasked", specifier: "Bash(rm x)" }),
    "",
  ].join("\n");
  const rows = parseAuditLines(text, 10);
  assert.equal(rows.length, 4);
  assert.deepEqual(rows[0], { time: "2026-01-02T03:04:05Z", agent: "demo", tool: "Bash", specifier: "Bash(go test ./...)", decision: "allow", source: "user", rule: "", reason: "", line: 10 });
  assert.equal(rows[1].tool, "Read", "tool from the specifier when the call is absent");
  assert.equal(rows[1].rule, "Read(./.env)");
  assert.equal(rows[2].decision, "unreadable");
  assert.equal(rows[2].line, 12);
  assert.equal(rows[3].decision, "unasked (would deny)");
  assert.equal(rows.filter((r) => matches(r, { agent: "demo" })).length, 2);
  assert.equal(rows.filter((r) => matches(r, { decision: "deny" })).length, 1);
  assert.equal(rows.filter((r) => matches(r, { decision: "unasked" })).length, 1);
  assert.equal(rows.filter((r) => matches(r, { text: "ENV" })).length, 1, "text filter, any case");
  assert.equal(rows.filter((r) => matches(r, { agent: "demo", text: "go test" })).length, 1);
  assert.deepEqual(splitComplete('{"a":1}\n{"b"'), { complete: '{"a":1}\n', rest: '{"b"' });
  assert.deepEqual(splitComplete('{"b"'), { complete: "", rest: '{"b"' });
});

test("a prompt with context sends the blocks; a refused file is named in the chat, never sent", async () => {
  const store = new ChatStore(() => {});
  const sent: unknown[] = [];
  const conn = {
    newSession: async () => ({ sessionId: "S1", raw: {} }),
    prompt: async (sid: string, text: string, blocks?: unknown[]) => {
      sent.push({ sid, text, blocks });
      return { stopReason: "end_turn" };
    },
    setMode: async () => ({}),
    closeSession: async () => ({}),
  };
  const secret: ContextRef = { kind: "file", uri: "file:///ws/.env", path: "/ws/.env", label: ".env" };
  const chats = new Chats({
    store,
    connection: async () => conn as never,
    connectionNow: () => conn as never,
    cwd: () => "/ws",
    defaultAgent: () => "demo",
    agentMode: () => "default",
    agentBypass: () => false,
    agentCommand: () => undefined,
    cancelChat: async () => {},
    promptBlocks: async (agent, text, refs) => {
      assert.equal(agent, "demo");
      const ok = refs.filter((r) => r.label !== ".env");
      return { blocks: promptBlocks(text, ok.map((ref) => ({ ref })), {}), refused: refs.filter((r) => r.label === ".env").map((r) => `${r.label}: the policy denies demo reading it (rule Read(./.env))`) };
    },
    log: () => {},
  });
  const id = await chats.send("", "explain", undefined, [file, secret]);
  assert.deepEqual(sent, [{ sid: "S1", text: "explain", blocks: [{ type: "text", text: "explain" }, { type: "resource_link", uri: "file:///ws/main.go", name: "main.go", mimeType: "text/x-go" }] }]);
  const items = store.items(id!);
  assert.equal(items[0].kind === "user" && items[0].text, "explain\n\nAttached: main.go, .env");
  assert.ok(items.some((i) => i.kind === "notice" && i.level === "error" && /Not attached: \.env: the policy denies demo reading it \(rule Read\(\.\/\.env\)\)/.test(i.text)));
  // Without context: the plain text prompt, as before.
  await chats.send(id!, "again");
  assert.deepEqual(sent[1], { sid: "S1", text: "again", blocks: undefined });
});
