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
// The script (lib/fake-script.mjs: one call, or one per [[cell:NAME]]
// marker in the prompt):
//   1. a request whose input carries the function_call_output of the cell's
//      call (same call_id) gets the closing text;
//   2. the first request that offers the cell's function (tools[].name) gets
//      that function_call {call_id, name, arguments}, once per cell;
//   3. anything else gets the closing text too.
// What it does not fake: non-streamed responses, reasoning items,
// custom (freeform) tool calls, previous_response_id chaining, the
// compaction and websocket endpoints, errors, rate limits. Every other path
// is answered 404 and recorded in `unexpected`.

import { halves, sse, startFakeAPI } from "./fake-http.mjs";
import { ScriptedModel } from "./fake-script.mjs";

/**
 * @param {import("./fake-script.mjs").Script} script
 * @returns {Promise<{url: string, requests: object[], unexpected: object[], results: object[], bodies: string[], model: ScriptedModel, close: () => Promise<void>}>}
 *   requests: {method, path, kind, cell, model, tools}; kind is "call",
 *   "final", "side", "models" or "unexpected". results: the
 *   function_call_output items Codex sent back for the scripted calls.
 */
export async function startFakeOpenAIResponses(script = {}) {
  const model = new ScriptedModel(script);
  let seq = 0;
  const errorBody = (message) => ({ error: { message, type: "invalid_request_error", code: "not_found" } });
  const api = await startFakeAPI({ models: true, errorBody }, (req, res, { path, raw, body }, rec, notFound) => {
    if (req.method !== "POST" || path !== "/v1/responses" || !Array.isArray(body?.input) || body.stream !== true) {
      return notFound(`fake OpenAI Responses API: no ${req.method} ${path} (stream only)`, { body: JSON.stringify(body ?? null).slice(0, 2000) });
    }
    rec.model = body.model;
    rec.tools = (body.tools ?? []).map((t) => t.name ?? t.type);
    const d = model.next({ raw, offered: rec.tools, resultFor: (call) => body.input.find((i) => i?.type === "function_call_output" && i.call_id === call.id) });
    rec.cell = d.cell;
    rec.kind = d.kind;
    const finalText = d.text;
    const item =
      d.kind === "call"
        ? { type: "function_call", id: `fc_fake_${++seq}`, call_id: d.call.id, name: d.call.name, arguments: JSON.stringify(d.call.args), status: "completed" }
        : { type: "message", id: `msg_fake_${++seq}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: finalText, annotations: [] }] };
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
  return { ...api, results: model.results, model };
}
