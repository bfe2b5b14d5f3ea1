// A minimal ACP agent for the checkpoint journey: it changes the workspace with
// its own file operations (node:fs, no ACP request, no card), the way most agents
// write files themselves. A prompt "change" edits main.go in two places, creates
// added.txt and deletes old.txt in the session's cwd; "wait" runs until cancelled. No session/load: a chat
// with it reopened from history is read-only. Plain Node, NDJSON on stdio.
const fs = require("node:fs");
const path = require("node:path");
const readline = require("node:readline");
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
const cwds = new Map();
/** Turns "wait" keeps running until session/cancel: sessionId -> the prompt's request id. */
const waiting = new Map();
let next = 1;
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  switch (m.method) {
    case "initialize":
      return send({ id: m.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: false, promptCapabilities: {} }, authMethods: [], agentInfo: { name: "changer", version: "0" } } });
    case "session/new": {
      const sessionId = `changer-${next++}`;
      cwds.set(sessionId, m.params.cwd);
      return send({ id: m.id, result: { sessionId } });
    }
    case "session/prompt": {
      const sessionId = m.params.sessionId;
      const cwd = cwds.get(sessionId) || process.cwd();
      const text = (m.params.prompt.find((b) => b.type === "text") || {}).text || "";
      if (text.trim() === "wait") return void waiting.set(sessionId, m.id);
      let say = "say: change or wait";
      if (text.trim() === "change") {
        try {
          const main = path.join(cwd, "main.go");
          const lines = fs.readFileSync(main, "utf8").split("\n");
          lines[0] = "package main // changed by the agent";
          lines[lines.length - 2] = "// last line changed by the agent";
          fs.writeFileSync(main, lines.join("\n"));
          fs.writeFileSync(path.join(cwd, "added.txt"), "added by the agent\n");
          fs.rmSync(path.join(cwd, "old.txt"));
          say = "changed main.go, added added.txt, deleted old.txt";
        } catch (e) {
          say = `change failed: ${e.message}`;
        }
      }
      send({ method: "session/update", params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: say } } } });
      return send({ id: m.id, result: { stopReason: "end_turn" } });
    }
    case "session/cancel": {
      const w = waiting.get(m.params.sessionId);
      waiting.delete(m.params.sessionId);
      if (w) send({ id: w, result: { stopReason: "cancelled" } });
      return;
    }
    default:
      if (m.id !== undefined) send({ id: m.id, error: { code: -32601, message: `${m.method} not supported` } });
  }
});
