// The scripted fake Messages API on its own: the SSE it streams must be a
// well-formed Messages API stream, or the real CLI's failures would be ours.

import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "../lib/fake-anthropic.mjs";

/** Parses a text/event-stream body into [{event, data}]. */
function parseSSE(text) {
  return text
    .split("\n\n")
    .filter((b) => b.trim() !== "")
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((l) => l.startsWith("event: "))?.slice(7);
      const data = JSON.parse(lines.find((l) => l.startsWith("data: ")).slice(6));
      assert.equal(data.type, event, `event ${event} carries type ${data.type}`);
      return { event, data };
    });
}

const post = (url, path, body) =>
  fetch(url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const bash = { name: "Bash", description: "run", input_schema: { type: "object" } };

test("fake Messages API: tool_use, then the closing text after the tool_result, side requests and other paths", async () => {
  const input = { command: "echo scripted-by-test", description: "say it" };
  const api = await startFakeAnthropic({ tool: "Bash", toolUseId: "toolu_unit", input, finalText: "all done" });
  try {
    // A side request without the tool (a title query) does not use the script up.
    const side = await post(api.url, "/v1/messages?beta=true", { model: "m", stream: false, messages: [{ role: "user", content: "title?" }] });
    assert.equal(side.status, 200);
    const sideMsg = await side.json();
    assert.deepEqual([sideMsg.stop_reason, sideMsg.content[0].type], ["end_turn", "text"]);

    const first = await post(api.url, "/v1/messages?beta=true", { model: "m", stream: true, tools: [bash], messages: [{ role: "user", content: [{ type: "text", text: "go" }] }] });
    assert.equal(first.status, 200);
    assert.match(first.headers.get("content-type"), /^text\/event-stream/);
    const events = parseSSE(await first.text());
    assert.deepEqual(
      events.map((e) => e.event),
      ["message_start", "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop"],
    );
    assert.deepEqual(events[1].data.content_block, { type: "tool_use", id: "toolu_unit", name: "Bash", input: {} });
    const json = events.filter((e) => e.event === "content_block_delta").map((e) => e.data.delta.partial_json).join("");
    assert.deepEqual(JSON.parse(json), input, "the input_json_delta pieces do not rebuild the scripted input");
    assert.equal(events[5].data.delta.stop_reason, "tool_use");

    const follow = await post(api.url, "/v1/messages", {
      model: "m",
      stream: true,
      tools: [bash],
      messages: [
        { role: "user", content: [{ type: "text", text: "go" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_unit", name: "Bash", input }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_unit", content: "scripted-by-test", is_error: false }] },
      ],
    });
    const closing = parseSSE(await follow.text());
    assert.deepEqual(closing[1].data.content_block, { type: "text", text: "" });
    assert.equal(closing[2].data.delta.text, "all done");
    assert.equal(closing.find((e) => e.event === "message_delta").data.delta.stop_reason, "end_turn");
    assert.deepEqual(api.toolResults.map((r) => r.content), ["scripted-by-test"]);

    const count = await post(api.url, "/v1/messages/count_tokens", { model: "m", messages: [] });
    assert.equal(count.status, 200);
    assert.ok(Number.isInteger((await count.json()).input_tokens));

    const other = await fetch(api.url + "/v1/models");
    assert.equal(other.status, 404);
    assert.equal((await other.json()).type, "error");
    assert.deepEqual(api.unexpected.map((r) => `${r.method} ${r.path}`), ["GET /v1/models"]);
    assert.deepEqual(api.requests.map((r) => r.kind), ["side", "tool_use", "final", "count_tokens", "unexpected"]);
  } finally {
    await api.close();
  }
});
