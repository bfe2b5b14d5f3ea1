// A fake Gemini API (generativelanguage v1beta) on 127.0.0.1: a scripted
// model for tests, never a real one. Gemini CLI and its ACP mode run whole
// turns against it offline (GOOGLE_GEMINI_BASE_URL points here).
//
// What it fakes:
//   POST /v1beta/models/{model}:streamGenerateContent?alt=sse  (SSE of
//        GenerateContentResponse chunks)
//   POST /v1beta/models/{model}:generateContent                (one response)
//   POST /v1beta/models/{model}:countTokens                    (a rough count)
// The script (lib/fake-script.mjs: one call, or one per [[cell:NAME]]
// marker in the prompt):
//   1. a request whose last content carries the functionResponse of the
//      cell's call gets the closing text;
//   2. the first request that declares the cell's function (in
//      tools[].functionDeclarations) gets that functionCall (finishReason
//      STOP, as Gemini does), once per cell;
//   3. anything else (a turn without a scripted call, the CLI's side queries
//      such as its next-speaker check) gets the closing text, or, when the
//      request asks for JSON (responseMimeType application/json), the JSON
//      {"next_speaker": "user", "reasoning": ...}, so the CLI ends the turn.
// What it does not fake: embeddings, caching, files, thinking parts, safety
// ratings, grounding, errors and quotas, any model listing. Every other path
// is answered 404 and recorded in `unexpected`.

import { halves, json, sse, startFakeAPI } from "./fake-http.mjs";
import { ScriptedModel } from "./fake-script.mjs";

/**
 * @param {import("./fake-script.mjs").Script} script
 * @returns {Promise<{url: string, requests: object[], unexpected: object[], results: object[], bodies: string[], model: ScriptedModel, close: () => Promise<void>}>}
 *   requests: {method, path, kind, cell, model, functions}; kind is "call",
 *   "final", "side", "count_tokens" or "unexpected". results: the
 *   functionResponse parts the CLI sent back for the scripted calls.
 */
export async function startFakeGemini(script = {}) {
  const model = new ScriptedModel(script);
  const api = await startFakeAPI({ errorBody: (message) => ({ error: { code: 404, status: "NOT_FOUND", message } }) }, (req, res, { path, query, raw, body }, rec, notFound) => {
    const m = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(path);
    if (req.method !== "POST" || !m || !body) return notFound(`fake Gemini API: no ${req.method} ${path}`);
    const [, modelName, op] = m;
    rec.model = modelName;
    if (op === "countTokens") {
      rec.kind = "count_tokens";
      return json(res, 200, { totalTokens: Math.max(1, Math.ceil(raw.length / 4)) });
    }
    const contents = body.contents ?? body.request?.contents ?? [];
    const tools = body.tools ?? body.request?.tools ?? [];
    const config = body.generationConfig ?? body.request?.generationConfig ?? {};
    rec.functions = tools.flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
    const d = model.next({ raw, offered: rec.functions, resultFor: (call) => lastFunctionResponse(contents, call.name) });
    rec.cell = d.cell;
    rec.kind = d.kind;
    let parts;
    if (d.kind === "call") {
      parts = [{ functionCall: { name: d.call.name, args: d.call.args } }];
    } else if (!d.result && config.responseMimeType === "application/json") {
      rec.kind = "side";
      parts = [{ text: JSON.stringify({ reasoning: "The fake model has finished its turn.", next_speaker: "user" }) }];
    } else {
      parts = [{ text: d.text }];
    }
    const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
    const done = (p) => ({ candidates: [{ content: { role: "model", parts: p }, finishReason: "STOP", index: 0 }], usageMetadata, modelVersion: modelName });
    if (op === "generateContent") return json(res, 200, done(parts));
    if (!/(^|&)alt=sse(&|$)/.test(query)) {
      // Without alt=sse the API streams a JSON array; the CLI always asks for SSE.
      return json(res, 200, [done(parts)]);
    }
    const out = sse(res);
    if (parts[0].text !== undefined) {
      // Text arrives in two chunks, the last one with the finish reason.
      const [a, b] = halves(parts[0].text);
      out.send({ candidates: [{ content: { role: "model", parts: [{ text: a }] }, index: 0 }], modelVersion: modelName });
      out.send(done([{ text: b }]));
    } else {
      out.send(done(parts));
    }
    out.end();
  });
  return { ...api, results: model.results, model };
}

/** The functionResponse part for name in the last content, if any. */
function lastFunctionResponse(contents, name) {
  const last = contents[contents.length - 1];
  return (last?.parts ?? []).find((p) => p?.functionResponse?.name === name)?.functionResponse;
}
