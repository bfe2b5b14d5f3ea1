// A fake OpenAI Chat Completions API on 127.0.0.1: a scripted model for
// tests, never a real one. OpenCode (through @ai-sdk/openai-compatible) and
// Qwen Code (--auth-type openai) run whole turns against it offline, their
// base URL pointing at <url>/v1.
//
// What it fakes:
//   POST /v1/chat/completions  with stream: true (SSE of chat.completion.chunk,
//        then "data: [DONE]") or without (one chat.completion)
//   GET  /v1/models            a one-model list
// The script (lib/fake-script.mjs: one call, or one per [[cell:NAME]]
// marker in the prompt):
//   1. a request whose messages carry the tool result of the cell's call
//      (role "tool", tool_call_id = its id) gets the closing text, "stop";
//   2. the first request that offers the cell's function (tools[].function
//      .name) gets that tool call (arguments split over two deltas,
//      finish_reason "tool_calls"), once per cell;
//   3. anything else (a turn without a scripted call, side queries such as a
//      title or a summary) gets the closing text too.
// What it does not fake: the legacy completions and embeddings endpoints,
// logprobs, n > 1, reasoning content, refusals, errors, rate limits. Every
// other path is answered 404 and recorded in `unexpected`.

import { halves, json, sse, startFakeAPI } from "./fake-http.mjs";
import { ScriptedModel } from "./fake-script.mjs";

/**
 * @param {import("./fake-script.mjs").Script} script
 * @returns {Promise<{url: string, requests: object[], unexpected: object[], results: object[], bodies: string[], model: ScriptedModel, close: () => Promise<void>}>}
 *   requests: {method, path, kind, cell, model, tools}; kind is "call",
 *   "final", "side", "models" or "unexpected". results: the tool messages
 *   the agent sent back for the scripted calls.
 */
export async function startFakeOpenAIChat(script = {}) {
  const model = new ScriptedModel(script);
  let seq = 0;
  const errorBody = (message) => ({ error: { message, type: "invalid_request_error", code: "not_found" } });
  const api = await startFakeAPI({ models: true, errorBody }, (req, res, { path, raw, body }, rec, notFound) => {
    if (req.method !== "POST" || path !== "/v1/chat/completions" || !Array.isArray(body?.messages)) return notFound(`fake OpenAI API: no ${req.method} ${path}`);
    rec.model = body.model;
    rec.tools = (body.tools ?? []).map((t) => t.function?.name ?? t.name);
    const d = model.next({ raw, offered: rec.tools, resultFor: (call) => body.messages.find((m) => m.role === "tool" && m.tool_call_id === call.id) });
    rec.cell = d.cell;
    rec.kind = d.kind;
    const reply = d.kind === "call" ? { call: { id: d.call.id, name: d.call.name, args: JSON.stringify(d.call.args) } } : { text: d.text };
    const id = `chatcmpl-fake-${++seq}`;
    const base = { id, created: Math.floor(Date.now() / 1000), model: body.model ?? "fake-model" };
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    const finish = reply.call ? "tool_calls" : "stop";
    if (body.stream !== true) {
      const message = reply.call
        ? { role: "assistant", content: null, tool_calls: [{ id: reply.call.id, type: "function", function: { name: reply.call.name, arguments: reply.call.args } }] }
        : { role: "assistant", content: reply.text };
      return json(res, 200, { ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: finish }], usage });
    }
    const out = sse(res);
    const chunk = (delta, finish_reason = null, extra = {}) => out.send({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }], ...extra });
    if (reply.call) {
      const [a, b] = halves(reply.call.args);
      chunk({ role: "assistant", content: null, tool_calls: [{ index: 0, id: reply.call.id, type: "function", function: { name: reply.call.name, arguments: a } }] });
      chunk({ tool_calls: [{ index: 0, function: { arguments: b } }] });
    } else {
      const [a, b] = halves(reply.text);
      chunk({ role: "assistant", content: a });
      chunk({ content: b });
    }
    chunk({}, finish);
    if (body.stream_options?.include_usage) out.send({ ...base, object: "chat.completion.chunk", choices: [], usage });
    out.send("[DONE]");
    out.end();
  });
  return { ...api, results: model.results, model };
}
