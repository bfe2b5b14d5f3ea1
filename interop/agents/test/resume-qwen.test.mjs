// A chat that lasts, with a real agent (docs/vscode-extension.md "Chats that
// last"): Qwen Code, which offers loadSession, behind a bridge, offline
// against the fake Chat Completions API. The first bridge runs one turn and
// stops (the editor's window closed past the grace period, or "Restart
// Bridge"); a second bridge gets `session/load` with the agent's own session
// id, as the extension sends it for a chat whose session ended with its
// bridge. The agent replays the first turn, and the next turn's request to the
// model API carries it: the agent remembers, through a new bridge process.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import * as acp from "@agentclientprotocol/sdk";
import { runBridge } from "../../ts/lib/bridge.mjs";
import { agentText, initialize, isolatedEnv, Notifications } from "../lib/harness.mjs";
import { qwen } from "../lib/agents.mjs";

/** One bridge process with the qwen agent; op(conn, notifications) runs over its stdio. */
async function withBridge(name, dirs, configFile, op) {
  const bridge = runBridge({
    name,
    prefix: "agents",
    home: dirs.home,
    workspace: dirs.workspace,
    env: isolatedEnv(dirs.home),
    args: ["--config", configFile, "--workspace", dirs.workspace, "--log-level", "debug"],
  });
  const notifications = new Notifications();
  const app = acp
    .client({ name: "acp-bridge-interop-resume" })
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: "cancelled" } }))
    .onNotification("*", ({ method, params }) => notifications.add({ method, params }));
  try {
    return await app.connectWith(bridge.stream, (conn) => op(conn, notifications));
  } catch (err) {
    console.error(`acp-bridge ${name} stderr (last 4000 chars):\n${bridge.stderr().slice(-4000)}`);
    throw err;
  } finally {
    await bridge.close();
  }
}

/** The session/update params of a session so far. */
function updatesOf(notifications, sessionId) {
  return notifications.all
    .filter((n) => n.method === "session/update" && n.params?.sessionId === sessionId)
    .map((n) => n.params.update);
}

test(`${qwen.package}@${qwen.version}: a chat resumed with session/load through a new bridge process remembers its first turn`, { timeout: 240_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), "acp-interop-resume-"));
  const dirs = { home: join(root, "bridge-home"), agentHome: join(root, "agent-home"), workspace: join(root, "workspace") };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  const word = `PELICAN-${randomBytes(4).toString("hex")}`;
  const api = await qwen.startFake({ finalText: "Noted." });
  try {
    const agent = { initTimeoutSeconds: 120, ...qwen.agentConfig({ apiUrl: api.url, agentHome: dirs.agentHome, workspace: dirs.workspace }) };
    const configFile = join(dirs.home, "config.yaml");
    // A bridge's close() removes its home and workspace (interop/ts/lib/bridge.mjs): each bridge gets
    // them afresh at the same paths; the agent's own state (agent-home, its saved sessions) stays.
    const prepare = () => {
      for (const d of [dirs.home, dirs.workspace]) mkdirSync(d, { recursive: true });
      writeFileSync(configFile, JSON.stringify({ defaultAgent: qwen.name, agents: { [qwen.name]: agent } }, null, 2) + "\n");
    };
    prepare();

    // The first bridge: a session and one turn.
    const first = await withBridge("qwen-resume-1", dirs, configFile, async (conn, notifications) => {
      await initialize(conn, qwen);
      const res = await conn.request(acp.methods.agent.session.new, { cwd: dirs.workspace, mcpServers: [] });
      const childSessionId = res._meta?.["acp-bridge"]?.childSessionId;
      assert.ok(childSessionId, `session/new _meta: ${JSON.stringify(res._meta)}`);
      const turn = await conn.request(acp.methods.agent.session.prompt, { sessionId: res.sessionId, prompt: [{ type: "text", text: `Remember the word ${word}.` }] });
      assert.equal(turn.stopReason, "end_turn");
      assert.match(agentText(updatesOf(notifications, res.sessionId)), /Noted\./);
      return { childSessionId };
    });
    const before = api.bodies.length;

    // A new bridge process: session/load with the agent's session id.
    prepare();
    await withBridge("qwen-resume-2", dirs, configFile, async (conn, notifications) => {
      const init = await initialize(conn, qwen);
      assert.equal(init.agentCapabilities?.loadSession, true, "the bridge offers session/load");
      const res = await conn.request(acp.methods.agent.session.load, {
        sessionId: first.childSessionId,
        cwd: dirs.workspace,
        mcpServers: [],
        _meta: { "acp-bridge": { agent: qwen.name } },
      });
      const sessionId = first.childSessionId;
      assert.equal(res._meta?.["acp-bridge"]?.agent, qwen.name, `session/load _meta: ${JSON.stringify(res._meta)}`);
      // The replay: the first turn's prompt comes back as user_message_chunk updates.
      const replay = updatesOf(notifications, sessionId);
      const userText = replay.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content?.text ?? "").join("");
      assert.ok(userText.includes(word), `the agent replayed no first turn: ${JSON.stringify(replay).slice(0, 2000)}`);
      const turn = await conn.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Which word did I ask you to remember?" }] });
      assert.equal(turn.stopReason, "end_turn");
    });
    const later = api.bodies.slice(before).map(String);
    assert.ok(later.some((b) => b.includes(word) && b.includes("Which word did I ask you to remember?")),
      `the resumed turn's request to the model API does not carry the first turn: ${later.map((b) => b.slice(0, 400)).join("\n")}`);
  } finally {
    await api.close();
    rmSync(root, { recursive: true, force: true });
  }
});
