// The fake model APIs on their own, without an agent: each must answer in
// its API's wire shape, propose the scripted call once, close after the
// result, and record paths it does not know. If a fake were wrong, a real
// agent's failure would be ours.

import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeGemini } from "../lib/fake-gemini.mjs";
import { startFakeOpenAIChat } from "../lib/fake-openai-chat.mjs";
import { startFakeOpenAIResponses } from "../lib/fake-openai-responses.mjs";

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
