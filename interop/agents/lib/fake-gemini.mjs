// A fake Gemini API (generativelanguage v1beta) on 127.0.0.1: a scripted
// model for tests, never a real one. Gemini CLI and its ACP mode run whole
// turns against it offline (GOOGLE_GEMINI_BASE_URL points here).
//
// What it fakes:
//   POST /v1beta/models/{model}:streamGenerateContent?alt=sse  (SSE of
//        GenerateContentResponse chunks)
//   POST /v1beta/models/{model}:generateContent                (one response)
//   POST /v1beta/models/{model}:countTokens                    (a rough count)
// The script is at most one function call and one closing text:
//   1. the first request that declares the scripted function (in
//      tools[].functionDeclarations) and carries no functionResponse for it
//      is answered with that functionCall (finishReason STOP, as Gemini does);
//   2. a request whose last content carries the functionResponse gets the
//      closing text;
//   3. anything else (a turn without a scripted call, the CLI's side queries
//      such as its next-speaker check) gets the closing text, or, when the
//      request asks for JSON (responseMimeType application/json), the JSON
//      {"next_speaker": "user", "reasoning": ...}, so the CLI ends the turn.
// What it does not fake: embeddings, caching, files, thinking parts, safety
// ratings, grounding, errors and quotas, any model listing. Every other path
// is answered 404 and recorded in `unexpected`.

import { halves, json, sse, startLoopbackServer } from "./fake-http.mjs";

/**
 * @typedef {object} Script
 * @property {{name: string, args: object}} [call] the function call to make
 * @property {string} [finalText] the closing text
 */

/**
 * @param {Script} script
 * @returns {Promise<{url: string, requests: object[], unexpected: object[], results: object[], close: () => Promise<void>}>}
 *   requests: {method, path, kind, model, functions}; kind is "call",
 *   "final", "side", "count_tokens" or "unexpected". results: the
 *   functionResponse parts the CLI sent back for the scripted call.
 */
export async function startFakeGemini(script = {}) {
  const finalText = script.finalText ?? "Done: the scripted model has nothing more to do.";
  const requests = [];
  const unexpected = [];
  const results = [];
  let proposed = false;
  const server = await startLoopbackServer((req, res, { path, query, body }) => {
    const rec = { method: req.method, path };
    requests.push(rec);
    const m = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(path);
    if (req.method !== "POST" || !m || !body) {
      rec.kind = "unexpected";
      unexpected.push(rec);
      return json(res, 404, { error: { code: 404, status: "NOT_FOUND", message: `fake Gemini API: no ${req.method} ${path}` } });
    }
    const [, model, op] = m;
    rec.model = model;
    if (op === "countTokens") {
      rec.kind = "count_tokens";
      return json(res, 200, { totalTokens: Math.max(1, Math.ceil(JSON.stringify(body).length / 4)) });
    }
    const contents = body.contents ?? body.request?.contents ?? [];
    const tools = body.tools ?? body.request?.tools ?? [];
    const config = body.generationConfig ?? body.request?.generationConfig ?? {};
    rec.functions = tools.flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
    const result = script.call && lastFunctionResponse(contents, script.call.name);
    let parts;
    if (result) {
      rec.kind = "final";
      results.push(result);
      parts = [{ text: finalText }];
    } else if (script.call && !proposed && rec.functions.includes(script.call.name)) {
      rec.kind = "call";
      proposed = true;
      parts = [{ functionCall: { name: script.call.name, args: script.call.args } }];
    } else if (config.responseMimeType === "application/json") {
      rec.kind = "side";
      parts = [{ text: JSON.stringify({ reasoning: "The fake model has finished its turn.", next_speaker: "user" }) }];
    } else {
      rec.kind = proposed || !script.call ? "final" : "side";
      parts = [{ text: finalText }];
    }
    const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
    const done = (p) => ({ candidates: [{ content: { role: "model", parts: p }, finishReason: "STOP", index: 0 }], usageMetadata, modelVersion: model });
    if (op === "generateContent") return json(res, 200, done(parts));
    if (!/(^|&)alt=sse(&|$)/.test(query)) {
      // Without alt=sse the API streams a JSON array; the CLI always asks for SSE.
      return json(res, 200, [done(parts)]);
    }
    const out = sse(res);
    if (parts[0].text !== undefined) {
      // Text arrives in two chunks, the last one with the finish reason.
      const [a, b] = halves(parts[0].text);
      out.send({ candidates: [{ content: { role: "model", parts: [{ text: a }] }, index: 0 }], modelVersion: model });
      out.send(done([{ text: b }]));
    } else {
      out.send(done(parts));
    }
    out.end();
  });
  return { url: server.url, requests, unexpected, results, close: server.close };
}

/** The functionResponse part for name in the last content, if any. */
function lastFunctionResponse(contents, name) {
  const last = contents[contents.length - 1];
  return (last?.parts ?? []).find((p) => p?.functionResponse?.name === name)?.functionResponse;
}
