// The fake model APIs on their own, without an agent: each must answer in
// its API's wire shape, propose the scripted call once, close after the
// result, and record paths it does not know. If a fake were wrong, a real
// agent's failure would be ours.

import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeGemini } from "../lib/fake-gemini.mjs";
import { startFakeOpenAIChat } from "../lib/fake-openai-chat.mjs";
import { startFakeOpenAIResponses } from "../lib/fake-openai-responses.mjs";
import { ScriptedModel, cellMarker, lastCell } from "../lib/fake-script.mjs";
import { startFakeAnthropic } from "../../claude/lib/fake-anthropic.mjs";

/** The data payloads of a text/event-stream body, JSON-parsed where they are JSON. */
function sseData(text) {
  return text
    .split("\n\n")
    .filter((b) => b.trim() !== "")
    .map((block) => {
      const data = block
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .join("\n");
      return data === "[DONE]" ? data : JSON.parse(data);
    });
}

const post = (url, body) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

test("fake Gemini API: functionCall once, text after the functionResponse, JSON for side checks, 404 elsewhere", async () => {
  const args = { command: "touch made.txt" };
  const api = await startFakeGemini({ call: { name: "run_shell_command", args }, finalText: "all done" });
  try {
    const url = `${api.url}/v1beta/models/m:streamGenerateContent?alt=sse`;
    const tools = [{ functionDeclarations: [{ name: "run_shell_command" }] }];
    const user = { role: "user", parts: [{ text: "go" }] };
    // A side check asking for JSON does not use the script up.
    const side = await post(`${api.url}/v1beta/models/m:generateContent`, { contents: [user], generationConfig: { responseMimeType: "application/json" } });
    assert.equal(JSON.parse((await side.json()).candidates[0].content.parts[0].text).next_speaker, "user");
    const first = await post(url, { contents: [user], tools });
    assert.match(first.headers.get("content-type"), /^text\/event-stream/);
    const chunks = sseData(await first.text());
    assert.deepEqual(chunks.at(-1).candidates[0].content.parts, [{ functionCall: { name: "run_shell_command", args } }]);
    assert.equal(chunks.at(-1).candidates[0].finishReason, "STOP");
    const result = { role: "user", parts: [{ functionResponse: { name: "run_shell_command", response: { output: "" } } }] };
    const second = await post(url, { contents: [user, { role: "model", parts: chunks.at(-1).candidates[0].content.parts }, result], tools });
    const text = sseData(await second.text()).map((c) => c.candidates[0].content.parts.map((p) => p.text).join("")).join("");
    assert.equal(text, "all done");
    assert.equal(api.results.length, 1);
    assert.equal((await post(`${api.url}/v1beta/models/m:embedContent`, {})).status, 404);
    assert.deepEqual(api.unexpected.map((r) => r.path), ["/v1beta/models/m:embedContent"]);
    assert.deepEqual(api.requests.map((r) => r.kind), ["side", "call", "final", "unexpected"]);
  } finally {
    await api.close();
  }
});

test("fake Chat Completions API: streamed tool call once, text after the tool message, [DONE], 404 elsewhere", async () => {
  const api = await startFakeOpenAIChat({ call: { name: "bash", args: { command: "rm -rf build" }, id: "call_unit" }, finalText: "all done" });
  try {
    const url = `${api.url}/v1/chat/completions`;
    const tools = [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }];
    const user = { role: "user", content: "go" };
    // A title request without tools gets text and does not use the script up.
    const title = await post(url, { model: "m", messages: [user] });
    assert.equal((await title.json()).choices[0].message.content, "all done");
    const first = await post(url, { model: "m", stream: true, messages: [user], tools });
    const events = sseData(await first.text());
    assert.equal(events.at(-1), "[DONE]");
    const deltas = events.slice(0, -1).map((e) => e.choices[0]);
    assert.equal(deltas.at(-1).finish_reason, "tool_calls");
    const call = deltas.flatMap((d) => d.delta.tool_calls ?? []);
    assert.equal(call[0].id, "call_unit");
    assert.deepEqual(JSON.parse(call.map((c) => c.function.arguments).join("")), { command: "rm -rf build" });
    const second = await post(url, { model: "m", stream: true, tools, messages: [user, { role: "assistant", tool_calls: [call[0]] }, { role: "tool", tool_call_id: "call_unit", content: "ok" }] });
    const text = sseData(await second.text())
      .slice(0, -1)
      .map((e) => e.choices[0].delta.content ?? "")
      .join("");
    assert.equal(text, "all done");
    assert.equal(api.results.length, 1);
    assert.equal((await post(`${api.url}/v1/embeddings`, {})).status, 404);
    assert.deepEqual(api.requests.map((r) => r.kind), ["side", "call", "final", "unexpected"]);
  } finally {
    await api.close();
  }
});

test("fake Responses API: function_call once, message after the function_call_output, response.completed, 404 elsewhere", async () => {
  const args = { cmd: "touch made.txt", sandbox_permissions: "require_escalated" };
  const api = await startFakeOpenAIResponses({ call: { name: "exec_command", args, id: "call_unit" }, finalText: "all done" });
  try {
    const url = `${api.url}/v1/responses`;
    const tools = [{ type: "function", name: "exec_command" }];
    const user = { type: "message", role: "user", content: [{ type: "input_text", text: "go" }] };
    const first = sseData(await (await post(url, { model: "m", stream: true, input: [user], tools })).text());
    assert.deepEqual([first[0].type, first.at(-1).type], ["response.created", "response.completed"]);
    assert.deepEqual(first.map((e) => e.sequence_number), first.map((_, i) => i));
    const item = first.at(-1).response.output[0];
    assert.deepEqual([item.type, item.call_id, item.name, JSON.parse(item.arguments)], ["function_call", "call_unit", "exec_command", args]);
    const deltas = first.filter((e) => e.type === "response.function_call_arguments.delta").map((e) => e.delta).join("");
    assert.equal(deltas, item.arguments);
    const second = sseData(await (await post(url, { model: "m", stream: true, tools, input: [user, item, { type: "function_call_output", call_id: "call_unit", output: "ok" }] })).text());
    const msg = second.at(-1).response.output[0];
    assert.deepEqual([msg.type, msg.content[0].text], ["message", "all done"]);
    assert.equal(second.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join(""), "all done");
    assert.equal(api.results.length, 1);
    assert.equal((await post(url, { model: "m", input: [user] })).status, 404, "non-streamed requests are not faked");
    assert.deepEqual(api.requests.map((r) => r.kind), ["call", "final", "unexpected"]);
  } finally {
    await api.close();
  }
});

// The matrix's scripts: one call per [[cell:NAME]] marker, shared by every
// fake (lib/fake-script.mjs).

test("cell markers: the last one in a body picks the cell; names are checked", () => {
  assert.equal(lastCell(`${cellMarker("a-rm")} then ${cellMarker("b.env")}`), "b.env");
  assert.equal(lastCell("no marker"), "");
  assert.equal(lastCell(JSON.stringify({ messages: [{ content: cellMarker("x_1") }] })), "x_1");
  assert.throws(() => cellMarker("a b"), /letters, digits/);
  assert.throws(() => cellMarker("a]]"), /letters, digits/);
});

test("ScriptedModel: one call per cell, proposed once, ids unique per cell, results kept once", () => {
  const m = new ScriptedModel({ cells: { a: { name: "sh", args: { c: 1 } }, b: { name: "sh", args: { c: 2 } } }, finalText: "fin" });
  const none = () => undefined;
  // A side query of cell a without the tool does not use the call up.
  assert.deepEqual(m.next({ raw: cellMarker("a"), offered: [], resultFor: none }), { cell: "a", kind: "side", text: "fin" });
  const a = m.next({ raw: cellMarker("a"), offered: ["sh"], resultFor: none });
  assert.deepEqual([a.kind, a.call.id, a.call.args], ["call", "call_fake_a", { c: 1 }]);
  // Proposed once: the same cell again gets text.
  assert.equal(m.next({ raw: cellMarker("a"), offered: ["sh"], resultFor: none }).kind, "final");
  // The result of a's call comes back: text, result kept once.
  const res = (id) => (call) => (call.id === id ? { out: id } : undefined);
  assert.equal(m.next({ raw: cellMarker("a"), offered: ["sh"], resultFor: res("call_fake_a") }).kind, "final");
  assert.equal(m.next({ raw: cellMarker("a"), offered: ["sh"], resultFor: res("call_fake_a") }).result.out, "call_fake_a");
  assert.deepEqual(m.results, [{ out: "call_fake_a" }]);
  // The next turn carries a's history and b's marker: b's call, its own id.
  const b = m.next({ raw: `${cellMarker("a")} ... ${cellMarker("b")}`, offered: ["sh"], resultFor: res("call_fake_a") });
  assert.deepEqual([b.cell, b.kind, b.call.id, b.call.args], ["b", "call", "call_fake_b", { c: 2 }]);
  // A cell with no call, and no marker (the one-call script's cell ""), get text.
  assert.equal(m.next({ raw: cellMarker("zzz"), offered: ["sh"], resultFor: none }).kind, "final");
  assert.equal(m.next({ raw: "plain", offered: ["sh"], resultFor: none }).kind, "final");
  assert.deepEqual([m.wasProposed("a"), m.wasProposed("b"), m.wasProposed("zzz")], [true, true, false]);
  // The one-call script is the cell "" with its own id.
  const one = new ScriptedModel({ call: { name: "sh", args: {} } }, { defaultId: "toolu_fake_1" });
  assert.equal(one.next({ raw: "go", offered: ["sh"], resultFor: none }).call.id, "toolu_fake_1");
});

/** Two turns of one session through a fake: cell a, then cell b with a's history. */
const cells = { a: { name: "sh", args: { command: "rm -rf build-a" } }, b: { name: "sh", args: { command: "cat env-b/.env" } } };

test("fake Gemini API with cells: each turn's marker picks its functionCall, once per cell; bodies recorded", async () => {
  const api = await startFakeGemini({ cells });
  try {
    const url = `${api.url}/v1beta/models/m:streamGenerateContent?alt=sse`;
    const tools = [{ functionDeclarations: [{ name: "sh" }] }];
    const call = async (contents) => sseData(await (await post(url, { contents, tools })).text()).at(-1).candidates[0].content.parts[0];
    const ua = { role: "user", parts: [{ text: `${cellMarker("a")} go` }] };
    const fa = await call([ua]);
    assert.deepEqual(fa.functionCall, { name: "sh", args: cells.a.args });
    const ra = { role: "user", parts: [{ functionResponse: { name: "sh", response: { output: "" } } }] };
    assert.ok((await call([ua, { role: "model", parts: [fa] }, ra])).text);
    const ub = { role: "user", parts: [{ text: `${cellMarker("b")} go` }] };
    const fb = await call([ua, { role: "model", parts: [fa] }, ra, { role: "model", parts: [{ text: "done" }] }, ub]);
    assert.deepEqual(fb.functionCall, { name: "sh", args: cells.b.args });
    assert.deepEqual(api.requests.map((r) => `${r.cell}:${r.kind}`), ["a:call", "a:final", "b:call"]);
    assert.equal(api.bodies.length, 3);
    assert.ok(api.bodies[2].includes("[[cell:b]]"));
  } finally {
    await api.close();
  }
});

test("fake Chat Completions API with cells: call ids unique per cell, a's result does not close b", async () => {
  const api = await startFakeOpenAIChat({ cells });
  try {
    const url = `${api.url}/v1/chat/completions`;
    const tools = [{ type: "function", function: { name: "sh" } }];
    const first = async (messages) => (await (await post(url, { model: "m", messages, tools })).json()).choices[0].message;
    const ma = await first([{ role: "user", content: `${cellMarker("a")} go` }]);
    assert.equal(ma.tool_calls[0].id, "call_fake_a");
    const hist = [{ role: "user", content: `${cellMarker("a")} go` }, ma, { role: "tool", tool_call_id: "call_fake_a", content: "ok" }];
    assert.equal((await first(hist)).content, "Done: the scripted model has nothing more to do.");
    const mb = await first([...hist, { role: "assistant", content: "done" }, { role: "user", content: `${cellMarker("b")} go` }]);
    assert.deepEqual([mb.tool_calls[0].id, JSON.parse(mb.tool_calls[0].function.arguments)], ["call_fake_b", cells.b.args]);
    assert.equal(api.results.length, 1);
    assert.deepEqual(api.requests.map((r) => `${r.cell}:${r.kind}`), ["a:call", "a:final", "b:call"]);
  } finally {
    await api.close();
  }
});

test("fake Responses API with cells: each cell's function_call has its own call_id", async () => {
  const api = await startFakeOpenAIResponses({ cells });
  try {
    const url = `${api.url}/v1/responses`;
    const tools = [{ type: "function", name: "sh" }];
    const out = async (input) => sseData(await (await post(url, { model: "m", stream: true, input, tools })).text()).at(-1).response.output[0];
    const user = (c) => ({ type: "message", role: "user", content: [{ type: "input_text", text: `${cellMarker(c)} go` }] });
    const ia = await out([user("a")]);
    assert.equal(ia.call_id, "call_fake_a");
    const hist = [user("a"), ia, { type: "function_call_output", call_id: "call_fake_a", output: "ok" }];
    assert.equal((await out(hist)).type, "message");
    const ib = await out([...hist, user("b")]);
    assert.deepEqual([ib.call_id, JSON.parse(ib.arguments)], ["call_fake_b", cells.b.args]);
    assert.deepEqual(api.requests.map((r) => `${r.cell}:${r.kind}`), ["a:call", "a:final", "b:call"]);
  } finally {
    await api.close();
  }
});

test("fake Messages API (interop/claude) with cells: tool_use per cell, toolu_fake_<cell> ids", async () => {
  const api = await startFakeAnthropic({ cells });
  try {
    const url = `${api.url}/v1/messages`;
    const tools = [{ name: "sh", input_schema: { type: "object" } }];
    const msg = async (messages) => (await (await post(url, { model: "m", messages, tools })).json()).content[0];
    const ua = { role: "user", content: [{ type: "text", text: `${cellMarker("a")} go` }] };
    const ta = await msg([ua]);
    assert.deepEqual([ta.type, ta.id, ta.input], ["tool_use", "toolu_fake_a", cells.a.args]);
    const ra = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_fake_a", content: "ok" }] };
    assert.equal((await msg([ua, { role: "assistant", content: [ta] }, ra])).type, "text");
    const tb = await msg([ua, { role: "assistant", content: [ta] }, ra, { role: "user", content: `${cellMarker("b")} go` }]);
    assert.deepEqual([tb.id, tb.input], ["toolu_fake_b", cells.b.args]);
    assert.deepEqual(api.requests.map((r) => `${r.cell}:${r.kind}`), ["a:tool_use", "a:final", "b:tool_use"]);
    assert.equal(api.toolResults.length, 1);
  } finally {
    await api.close();
  }
});
