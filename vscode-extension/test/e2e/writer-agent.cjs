// A minimal ACP agent for the real-VS-Code test of fs/write_text_file: a
// prompt "write <path>\n<content>" makes it ask its client (the bridge, then
// the editor) to write <content> to <path>, and say "written" or why not.
// Plain Node, NDJSON on stdio, no dependencies.
const readline = require("node:readline");
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
const waiting = new Map();
let next = 1;
readline.createInterface({ input: process.stdin }).on("line", async (line) => {
  const m = JSON.parse(line);
  if (m.method === undefined && waiting.has(m.id)) {
    waiting.get(m.id)(m);
    waiting.delete(m.id);
    return;
  }
  switch (m.method) {
    case "initialize":
      return send({ id: m.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: false, promptCapabilities: {} }, authMethods: [], agentInfo: { name: "writer", version: "0" } } });
    case "session/new":
      return send({ id: m.id, result: { sessionId: `writer-${next++}` } });
    case "session/prompt": {
      const sessionId = m.params.sessionId;
      const text = (m.params.prompt.find((b) => b.type === "text") || {}).text || "";
      const match = /^write (\S+)\n([\s\S]*)$/.exec(text);
      let say = "say: write <path>, a newline, then the content";
      if (match) {
        const id = 100000 + next++;
        const answer = new Promise((r) => waiting.set(id, r));
        send({ id, method: "fs/write_text_file", params: { sessionId, path: match[1], content: match[2] } });
        const res = await answer;
        say = res.error ? `write failed: ${res.error.message}` : "written";
      }
      send({ method: "session/update", params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: say } } } });
      return send({ id: m.id, result: { stopReason: "end_turn" } });
    }
    case "session/cancel":
      return;
    default:
      if (m.id !== undefined) send({ id: m.id, error: { code: -32601, message: `${m.method} not supported` } });
  }
});
