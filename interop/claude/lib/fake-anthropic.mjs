// A fake Anthropic Messages API on 127.0.0.1: a scripted model for tests,
// never a real one. It lets the real Claude Code CLI (under the real ACP
// adapter) run a whole turn offline: ANTHROPIC_BASE_URL points here.
//
// The script is one tool call and one closing text, or one tool call per
// cell: a [[cell:NAME]] marker in the prompt picks it (the marker logic all
// fake model APIs share: interop/agents/lib/fake-script.mjs):
//   1. the cell's first request that offers the tool the script names and
//      carries no tool_result for it yet is answered with a streamed
//      tool_use block {id, name, input} and stop_reason "tool_use";
//   2. the follow-up request, whose last user message carries the
//      tool_result for that id, is answered with the closing text and
//      stop_reason "end_turn";
//   3. any other Messages request (side queries the CLI makes without that
//      tool, e.g. a title or a topic check) gets a short text (script.sideText, default
//      "OK"), end_turn.
// POST /v1/messages/count_tokens answers a rough count. Every other path is
// answered 404 (an Anthropic-style error) and recorded in `unexpected`.
// Every request's raw body is kept in `bodies`.

import { json, startFakeAPI } from "../../agents/lib/fake-http.mjs";
import { ScriptedModel } from "../../agents/lib/fake-script.mjs";

/**
 * @typedef {object} Script
 * @property {string} [tool]      tool name to call (default "Bash")
 * @property {object} [input]     the tool's input, e.g. {command, description}
 * @property {string} [toolUseId] id of the tool_use block (default "toolu_fake_1")
 * @property {Record<string, {name: string, args: object}>} [cells] a tool call per cell (id toolu_fake_NAME)
 * @property {string} [finalText] text after the tool result
 * @property {string} [sideText]  text for any other request (default "OK")
 */

/**
 * Starts the fake on a random loopback port.
 * @param {Script} script
 * @returns {Promise<{url: string, requests: object[], unexpected: object[], toolResults: object[], bodies: string[], close: () => Promise<void>}>}
 *   requests: every request as {method, path, kind, cell, body?}; kind is
 *   "tool_use", "final", "side", "count_tokens" or "unexpected".
 *   toolResults: the tool_result blocks the CLI sent back for the scripted ids.
 */
export async function startFakeAnthropic(script) {
  const call = script.input ? { name: script.tool ?? "Bash", args: script.input, id: script.toolUseId ?? "toolu_fake_1" } : undefined;
  const model = new ScriptedModel(
    { call, cells: script.cells, finalText: script.finalText ?? "Done: the scripted tool call finished." },
    { idPrefix: "toolu_fake_" },
  );
  const errorBody = (message) => ({ type: "error", error: { type: "not_found_error", message } });
  const api = await startFakeAPI({ errorBody }, (req, res, { path, raw, body }, rec, notFound) => {
    rec.url = req.url;
    if (req.method === "POST" && path === "/v1/messages/count_tokens") {
      rec.kind = "count_tokens";
      return json(res, 200, { input_tokens: Math.max(1, Math.ceil(raw.length / 4)) });
    }
    if (req.method !== "POST" || path !== "/v1/messages" || !body || !Array.isArray(body.messages)) {
      return notFound(`fake Anthropic API: no ${req.method} ${path}`, { body: raw.slice(0, 2000) });
    }
    rec.model = body.model;
    rec.stream = body.stream === true;
    const offered = Array.isArray(body.tools) ? body.tools.map((t) => t?.name) : [];
    const d = model.next({ raw, offered, resultFor: (c) => lastToolResult(body.messages, c.id) });
    rec.cell = d.cell;
    let reply;
    if (d.kind === "call") {
      rec.kind = "tool_use";
      reply = { kind: "tool_use", id: d.call.id, name: d.call.name, input: d.call.args };
    } else if (d.result) {
      rec.kind = "final";
      reply = { kind: "text", text: d.text };
    } else {
      rec.kind = "side";
      rec.tools = offered.length;
      rec.lastUserText = lastUserText(body.messages).slice(0, 300);
      reply = { kind: "text", text: script.sideText ?? "OK" };
    }
    return rec.stream ? stream(res, body.model, reply) : json(res, 200, message(body.model, reply));
  });
  return { ...api, toolResults: model.results, model };
}

/** The tool_result block for id in the last user message, if any. */
function lastToolResult(messages, id) {
  const last = messages[messages.length - 1];
  if (last?.role !== "user" || !Array.isArray(last.content)) return undefined;
  return last.content.find((b) => b?.type === "tool_result" && b.tool_use_id === id);
}

/** The text of the last user message (for the record of side requests). */
function lastUserText(messages) {
  const last = [...messages].reverse().find((m) => m?.role === "user");
  if (typeof last?.content === "string") return last.content;
  if (!Array.isArray(last?.content)) return "";
  return last.content
    .filter((b) => b?.type === "text")
    .map((b) => b.text)
    .join("\n");
}

let messageSeq = 0;

function usage(output) {
  return { input_tokens: 10, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

/** A non-streamed Messages API response. */
function message(model, reply) {
  const content =
    reply.kind === "tool_use"
      ? [{ type: "tool_use", id: reply.id, name: reply.name, input: reply.input }]
      : [{ type: "text", text: reply.text }];
  return {
    id: `msg_fake_${++messageSeq}`,
    type: "message",
    role: "assistant",
    model: model ?? "fake-model",
    content,
    stop_reason: reply.kind === "tool_use" ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: usage(5),
  };
}

/** The same response as Messages API server-sent events. */
function stream(res, model, reply) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send("message_start", {
    message: { id: `msg_fake_${++messageSeq}`, type: "message", role: "assistant", model: model ?? "fake-model", content: [], stop_reason: null, stop_sequence: null, usage: usage(1) },
  });
  if (reply.kind === "tool_use") {
    send("content_block_start", { index: 0, content_block: { type: "tool_use", id: reply.id, name: reply.name, input: {} } });
    const args = JSON.stringify(reply.input);
    // Two deltas, as a real stream splits the JSON.
    const cut = Math.floor(args.length / 2);
    send("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: args.slice(0, cut) } });
    send("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: args.slice(cut) } });
  } else {
    send("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    send("content_block_delta", { index: 0, delta: { type: "text_delta", text: reply.text } });
  }
  send("content_block_stop", { index: 0 });
  send("message_delta", { delta: { stop_reason: reply.kind === "tool_use" ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } });
  send("message_stop", {});
  res.end();
}
