// A fake OpenAI Responses API on 127.0.0.1: a scripted model for tests,
// never a real one. Codex (under codex-acp) runs whole turns against it
// offline through a custom model provider whose base_url is <url>/v1 and
// whose wire_api is "responses".
//
// What it fakes:
//   POST /v1/responses  with stream: true: the SSE events response.created,
//        response.output_item.added / .done for each output item
//        (a function_call or an assistant message), the text deltas, and
//        response.completed with usage
//   GET  /v1/models     a one-model list
// The script is at most one function call and one closing text:
//   1. the first request that offers the scripted function (tools[].name)
//      and carries no function_call_output for it is answered with that
//      function_call {call_id, name, arguments};
//   2. a request whose input carries the function_call_output (same
//      call_id) gets the closing text;
//   3. anything else gets the closing text too.
// What it does not fake: non-streamed responses, reasoning items,
// custom (freeform) tool calls, previous_response_id chaining, the
// compaction and websocket endpoints, errors, rate limits. Every other path
// is answered 404 and recorded in `unexpected`.

import { halves, json, sse, startLoopbackServer } from "./fake-http.mjs";

/**
 * @typedef {object} Script
 * @property {{name: string, args: object, id?: string}} [call] the function call
 * @property {string} [finalText] the closing text
 */

/**
 * @param {Script} script
 * @returns {Promise<{url: string, requests: object[], unexpected: object[], results: object[], close: () => Promise<void>}>}
 *   requests: {method, path, kind, model, tools}; kind is "call", "final",
 *   "side", "models" or "unexpected". results: the function_call_output
 *   items Codex sent back for the scripted call.
 */
export async function startFakeOpenAIResponses(script = {}) {
  const finalText = script.finalText ?? "Done: the scripted model has nothing more to do.";
  const callId = script.call?.id ?? "call_fake_1";
  const requests = [];
  const unexpected = [];
  const results = [];
  let proposed = false;
  let seq = 0;
  const server = await startLoopbackServer((req, res, { path, body }) => {
    const rec = { method: req.method, path };
    requests.push(rec);
    if (req.method === "GET" && path === "/v1/models") {
      rec.kind = "models";
      return json(res, 200, { object: "list", data: [{ id: "fake-model", object: "model", created: 0, owned_by: "fake" }] });
    }
    if (req.method !== "POST" || path !== "/v1/responses" || !Array.isArray(body?.input) || body.stream !== true) {
      rec.kind = "unexpected";
      rec.body = JSON.stringify(body ?? null).slice(0, 2000);
      unexpected.push(rec);
      return json(res, 404, { error: { message: `fake OpenAI Responses API: no ${req.method} ${path} (stream only)`, type: "invalid_request_error", code: "not_found" } });
    }
    rec.model = body.model;
    rec.tools = (body.tools ?? []).map((t) => t.name ?? t.type);
    const result = body.input.find((i) => i?.type === "function_call_output" && i.call_id === callId);
    let item;
    if (result) {
      rec.kind = "final";
      results.push(result);
    } else if (script.call && !proposed && rec.tools.includes(script.call.name)) {
      rec.kind = "call";
      proposed = true;
      item = { type: "function_call", id: `fc_fake_${++seq}`, call_id: callId, name: script.call.name, arguments: JSON.stringify(script.call.args), status: "completed" };
    } else {
      rec.kind = script.call && !proposed ? "side" : "final";
    }
    item ??= { type: "message", id: `msg_fake_${++seq}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: finalText, annotations: [] }] };
    const response = { id: `resp_fake_${++seq}`, object: "response", created_at: Math.floor(Date.now() / 1000), model: body.model ?? "fake-model", status: "in_progress", output: [] };
    const out = sse(res);
    let n = 0;
    const send = (type, data) => out.send({ type, sequence_number: n++, ...data }, type);
    send("response.created", { response });
    send("response.in_progress", { response });
    if (item.type === "function_call") {
      send("response.output_item.added", { output_index: 0, item: { ...item, arguments: "", status: "in_progress" } });
      const [a, b] = halves(item.arguments);
      for (const delta of [a, b]) send("response.function_call_arguments.delta", { output_index: 0, item_id: item.id, delta });
      send("response.function_call_arguments.done", { output_index: 0, item_id: item.id, arguments: item.arguments });
    } else {
      send("response.output_item.added", { output_index: 0, item: { ...item, content: [], status: "in_progress" } });
      send("response.content_part.added", { output_index: 0, item_id: item.id, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
      for (const delta of halves(finalText)) send("response.output_text.delta", { output_index: 0, item_id: item.id, content_index: 0, delta });
      send("response.output_text.done", { output_index: 0, item_id: item.id, content_index: 0, text: finalText });
      send("response.content_part.done", { output_index: 0, item_id: item.id, content_index: 0, part: item.content[0] });
    }
    send("response.output_item.done", { output_index: 0, item });
    send("response.completed", {
      response: { ...response, status: "completed", output: [item], usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 } },
    });
    out.end();
  });
  return { url: server.url, requests, unexpected, results, close: server.close };
}
