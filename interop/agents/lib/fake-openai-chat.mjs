// A fake OpenAI Chat Completions API on 127.0.0.1: a scripted model for
// tests, never a real one. OpenCode (through @ai-sdk/openai-compatible) and
// Qwen Code (--auth-type openai) run whole turns against it offline, their
// base URL pointing at <url>/v1.
//
// What it fakes:
//   POST /v1/chat/completions  with stream: true (SSE of chat.completion.chunk,
//        then "data: [DONE]") or without (one chat.completion)
//   GET  /v1/models            a one-model list
// The script is at most one tool call and one closing text:
//   1. the first request that offers the scripted function (tools[].function
//      .name) and has no tool message for it is answered with that tool call
//      (arguments split over two deltas, finish_reason "tool_calls");
//   2. a request whose messages carry the tool result (role "tool",
//      tool_call_id = the scripted id) gets the closing text, "stop";
//   3. anything else (a turn without a scripted call, side queries such as a
//      title or a summary) gets the closing text too.
// What it does not fake: the legacy completions and embeddings endpoints,
// logprobs, n > 1, reasoning content, refusals, errors, rate limits. Every
// other path is answered 404 and recorded in `unexpected`.

import { halves, json, sse, startLoopbackServer } from "./fake-http.mjs";

/**
 * @typedef {object} Script
 * @property {{name: string, args: object, id?: string}} [call] the tool call
 * @property {string} [finalText] the closing text
 */

/**
 * @param {Script} script
 * @returns {Promise<{url: string, requests: object[], unexpected: object[], results: object[], close: () => Promise<void>}>}
 *   requests: {method, path, kind, model, tools}; kind is "call", "final",
 *   "side", "models" or "unexpected". results: the tool messages the agent
 *   sent back for the scripted call.
 */
export async function startFakeOpenAIChat(script = {}) {
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
    if (req.method !== "POST" || path !== "/v1/chat/completions" || !Array.isArray(body?.messages)) {
      rec.kind = "unexpected";
      unexpected.push(rec);
      return json(res, 404, { error: { message: `fake OpenAI API: no ${req.method} ${path}`, type: "invalid_request_error", code: "not_found" } });
    }
    rec.model = body.model;
    rec.tools = (body.tools ?? []).map((t) => t.function?.name ?? t.name);
    const result = body.messages.find((m) => m.role === "tool" && m.tool_call_id === callId);
    let reply;
    if (result) {
      rec.kind = "final";
      if (!results.includes(result)) results.push(result);
      reply = { text: finalText };
    } else if (script.call && !proposed && rec.tools.includes(script.call.name)) {
      rec.kind = "call";
      proposed = true;
      reply = { call: { id: callId, name: script.call.name, args: JSON.stringify(script.call.args) } };
    } else {
      rec.kind = script.call && !proposed ? "side" : "final";
      reply = { text: finalText };
    }
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
  return { url: server.url, requests, unexpected, results, close: server.close };
}
