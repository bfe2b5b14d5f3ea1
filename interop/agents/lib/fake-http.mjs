// The plumbing the fake model APIs share: a loopback HTTP server that reads
// each request's JSON body and hands it to the fake, and helpers to answer
// with JSON or with server-sent events. No model logic lives here.

import { createServer } from "node:http";

/**
 * Starts an HTTP server on 127.0.0.1 (a random port) that calls
 * handle(req, res, {path, query, raw, body}) for every request; body is the
 * parsed JSON (undefined if the body is not JSON).
 * @returns {Promise<{url: string, close: () => Promise<void>}>}
 */
export async function startLoopbackServer(handle) {
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const [path, query = ""] = (req.url ?? "").split("?");
    let body;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    try {
      await handle(req, res, { path, query, raw, body });
    } catch (err) {
      if (!res.headersSent) json(res, 500, { error: { message: `fake API bug: ${err.stack ?? err}` } });
      else res.end();
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/**
 * A fake model API's server: records every request as {method, path} in
 * `requests` and its raw body in `bodies` (what reached the "model", for
 * tests that look for a leaked secret), answers GET /v1/models with a
 * one-model list when `models` is set, and passes everything else to
 * handle(req, res, info, rec, notFound): rec is the request's record (the
 * fake adds kind, model, ...), notFound(message, extra) answers 404 with
 * errorBody(message) and records the request in `unexpected`.
 * @returns {Promise<{url: string, requests: object[], unexpected: object[], bodies: string[], close: () => Promise<void>}>}
 */
export async function startFakeAPI({ models = false, errorBody }, handle) {
  const requests = [];
  const unexpected = [];
  const bodies = [];
  const server = await startLoopbackServer((req, res, info) => {
    const rec = { method: req.method, path: info.path };
    requests.push(rec);
    if (info.raw) bodies.push(info.raw);
    if (models && req.method === "GET" && info.path === "/v1/models") {
      rec.kind = "models";
      return json(res, 200, { object: "list", data: [{ id: "fake-model", object: "model", created: 0, owned_by: "fake" }] });
    }
    const notFound = (message, extra = {}) => {
      Object.assign(rec, { kind: "unexpected" }, extra);
      unexpected.push(rec);
      return json(res, 404, errorBody(message));
    };
    return handle(req, res, info, rec, notFound);
  });
  return { url: server.url, requests, unexpected, bodies, close: server.close };
}

export function json(res, status, body) {
  const s = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(s) });
  res.end(s);
}

/** Opens a text/event-stream answer; send(data, event?) writes one event. */
export function sse(res) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  return {
    send(data, event) {
      res.write(`${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
    },
    end: () => res.end(),
  };
}

/** Cuts s in two, as a real stream splits a tool call's JSON arguments. */
export function halves(s) {
  const cut = Math.floor(s.length / 2);
  return [s.slice(0, cut), s.slice(cut)];
}
