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
