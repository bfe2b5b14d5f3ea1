// session/fork, session/close, session/resume and session/delete through the bridge
// (docs/agents.md, "What passes through"), with the real Claude Agent ACP
// adapter, which offers all three, offline against the fake Messages API,
// inside the bridge's OS sandbox. A fork is a new bridge session of Claude
// that remembers the source's turn (the next request to the model API
// carries it); a closed session is gone from the bridge; a resumed one
// (by Claude's own id) remembers too.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import * as acp from "@agentclientprotocol/sdk";
import { runBridge } from "../../ts/lib/bridge.mjs";
import { initialize, isolatedEnv } from "../lib/harness.mjs";
import { claude } from "../lib/agents.mjs";

test(`${claude.package}@${claude.version}: session/fork, close, resume and delete through the bridge`, { timeout: 300_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), "acp-interop-sessionops-"));
  const dirs = { home: join(root, "bridge-home"), agentHome: join(root, "agent-home"), workspace: join(root, "workspace") };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  const word = `HERON-${randomBytes(4).toString("hex")}`;
  const api = await claude.startFake({ finalText: "Noted." });
  const configFile = join(dirs.home, "config.yaml");
  const agent = { initTimeoutSeconds: 120, ...claude.agentConfig({ apiUrl: api.url, agentHome: dirs.agentHome, workspace: dirs.workspace }) };
  writeFileSync(configFile, JSON.stringify({ defaultAgent: claude.name, agents: { [claude.name]: agent } }, null, 2) + "\n");
  const bridge = runBridge({
    name: "claude-sessionops", prefix: "agents", home: dirs.home, workspace: dirs.workspace, env: isolatedEnv(dirs.home),
    args: ["--config", configFile, "--workspace", dirs.workspace, "--log-level", "debug"],
  });
  const app = acp.client({ name: "acp-bridge-interop-sessionops" })
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: "cancelled" } }))
    .onNotification("*", () => {});
  /** One turn; the request bodies it sent to the model API. */
  const turn = async (conn, sessionId, text) => {
    const before = api.bodies.length;
    const r = await conn.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    assert.equal(r.stopReason, "end_turn", `turn "${text}"`);
    return api.bodies.slice(before).map(String);
  };
  try {
    await app.connectWith(bridge.stream, async (conn) => {
      await initialize(conn, claude);
      const src = await conn.request(acp.methods.agent.session.new, { cwd: dirs.workspace, mcpServers: [] });
      const caps = src._meta?.["acp-bridge"]?.capabilities?.sessionCapabilities ?? {};
      for (const k of ["fork", "close", "resume"]) assert.ok(caps[k], `Claude offers session/${k}: ${JSON.stringify(caps)}`);
      await turn(conn, src.sessionId, `Remember the word ${word}.`);

      const fork = await conn.request("session/fork", { sessionId: src.sessionId, cwd: dirs.workspace, mcpServers: [] });
      const fm = fork._meta?.["acp-bridge"];
      assert.ok(fork.sessionId && fork.sessionId !== src.sessionId, `fork id ${fork.sessionId}`);
      assert.equal(fm?.forkedFrom, src.sessionId);
      assert.equal(fm?.agent, claude.name);
      assert.equal(fm?.childMode?.asking, true, `the fork's child mode: ${JSON.stringify(fm?.childMode)}`);
      const forked = await turn(conn, fork.sessionId, "Which word?");
      assert.ok(forked.some((b) => b.includes(word)), "the fork's request to the model API does not carry the source's turn");

      const childId = src._meta?.["acp-bridge"]?.childSessionId;
      await conn.request("session/close", { sessionId: src.sessionId });
      await assert.rejects(conn.request(acp.methods.agent.session.prompt, { sessionId: src.sessionId, prompt: [{ type: "text", text: "hi" }] }),
        (err) => err.code === -32002, "a prompt to the closed session");

      await conn.request("session/resume", { sessionId: childId, cwd: dirs.workspace, mcpServers: [], _meta: { "acp-bridge": { agent: claude.name } } });
      const resumed = await turn(conn, childId, "Which word, again?");
      assert.ok(resumed.some((b) => b.includes(word)), "the resumed session's request to the model API does not carry its first turn");
      console.log(`fork ${fork.sessionId} (child ${fm.childSessionId}) and resumed ${childId} both remembered ${word}`);

      // session/delete: the fork's own id, as the merged session/list names
      // it, reaches Claude (no agent named: the list said whose it is); the
      // next list no longer has it, and the other sessions stay.
      assert.ok(caps.delete, `Claude offers session/delete: ${JSON.stringify(caps)}`);
      const listed = async () => (await conn.request("session/list", {})).sessions ?? [];
      const before = await listed();
      const forkEntry = before.find((e) => e.sessionId === fork.sessionId);
      assert.ok(forkEntry, `the fork is listed: ${JSON.stringify(before.map((e) => e.sessionId))}`);
      assert.equal(forkEntry._meta?.["acp-bridge"]?.agent, claude.name);
      assert.ok(before.some((e) => e.sessionId === childId), "the resumed session is listed");
      await conn.request("session/delete", { sessionId: fork.sessionId });
      const after = await listed();
      assert.ok(!after.some((e) => e.sessionId === fork.sessionId), `the deleted fork is still listed: ${JSON.stringify(after.map((e) => e.sessionId))}`);
      assert.ok(after.some((e) => e.sessionId === childId), "the delete took the resumed session too");
      await assert.rejects(conn.request(acp.methods.agent.session.prompt, { sessionId: fork.sessionId, prompt: [{ type: "text", text: "hi" }] }),
        (err) => err.code === -32002, "a prompt to the deleted session");
    });
  } catch (err) {
    console.error(`acp-bridge stderr (last 4000 chars):\n${bridge.stderr().slice(-4000)}`);
    throw err;
  } finally {
    await bridge.close();
    await api.close();
    rmSync(root, { recursive: true, force: true });
  }
});
