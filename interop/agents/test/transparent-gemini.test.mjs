// Each agent's own capabilities and logins through the bridge (docs/agents.md,
// "What passes through"): the real Gemini CLI, offline against the fake Gemini
// API. Its session carries its own agentCapabilities (it takes audio, which
// the bridge's fixed set used to say no to), its audio block reaches the
// model API, its own authMethods are listed as "gemini/<id>" and
// authenticate with one reaches it, and
// session/fork, which Gemini does not offer, is refused naming it.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import * as acp from "@agentclientprotocol/sdk";
import { runBridge } from "../../ts/lib/bridge.mjs";
import { initialize, isolatedEnv } from "../lib/harness.mjs";
import { gemini } from "../lib/agents.mjs";

test(`${gemini.package}@${gemini.version}: its own capabilities and logins pass through the bridge`, { timeout: 240_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), "acp-interop-transparent-"));
  const dirs = { home: join(root, "bridge-home"), agentHome: join(root, "agent-home"), workspace: join(root, "workspace") };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  const api = await gemini.startFake({ finalText: "Heard it." });
  const configFile = join(dirs.home, "config.yaml");
  const agent = { initTimeoutSeconds: 120, ...gemini.agentConfig({ apiUrl: api.url, agentHome: dirs.agentHome, workspace: dirs.workspace }) };
  writeFileSync(configFile, JSON.stringify({ defaultAgent: gemini.name, agents: { [gemini.name]: agent } }, null, 2) + "\n");
  const bridge = runBridge({
    name: "gemini-transparent", prefix: "agents", home: dirs.home, workspace: dirs.workspace, env: isolatedEnv(dirs.home),
    args: ["--config", configFile, "--workspace", dirs.workspace, "--log-level", "debug"],
  });
  const app = acp.client({ name: "acp-bridge-interop-transparent" })
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: "cancelled" } }))
    .onNotification("*", () => {});
  try {
    await app.connectWith(bridge.stream, async (conn) => {
      await initialize(conn, gemini);
      const res = await conn.request(acp.methods.agent.session.new, { cwd: dirs.workspace, mcpServers: [] });
      const caps = res._meta?.["acp-bridge"]?.capabilities;
      assert.equal(caps?.promptCapabilities?.audio, true, `Gemini's own promptCapabilities through the bridge: ${JSON.stringify(caps)}`);

      const { agents } = await conn.request("_acp-bridge/agents/list", {});
      const methods = agents.find((a) => a.id === gemini.name)?.authMethods ?? [];
      assert.ok(methods.length > 0, `Gemini's authMethods are not listed: ${JSON.stringify(agents)}`);
      for (const m of methods) {
        assert.ok(m.id.startsWith("gemini/") && m._meta?.["acp-bridge"]?.agent === "gemini" && m.id === `gemini/${m._meta["acp-bridge"].methodId}`, `auth method ${JSON.stringify(m)}`);
      }
      const again = await conn.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      assert.deepEqual(again.authMethods.map((m) => m.id), methods.map((m) => m.id), "initialize lists the running agent's logins");
      assert.equal(again.agentCapabilities.promptCapabilities.audio, true, "initialize says audio once an agent that takes it runs");

      // Its own login, by the bridge's id: Gemini gets "gemini-api-key" (its
      // key is in its environment) and answers; an id it does not offer is refused.
      await conn.request(acp.methods.agent.authenticate, { methodId: "gemini/gemini-api-key" });
      await assert.rejects(conn.request(acp.methods.agent.authenticate, { methodId: "gemini/nope" }),
        (err) => err.code === -32602 && /"gemini\/nope"/.test(err.message), "authenticate with a method Gemini does not offer");

      const before = api.bodies.length;
      const turn = await conn.request(acp.methods.agent.session.prompt, { sessionId: res.sessionId, prompt: [
        { type: "text", text: "What do you hear?" },
        { type: "audio", mimeType: "audio/wav", data: "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=" },
      ] });
      assert.equal(turn.stopReason, "end_turn");
      const sent = api.bodies.slice(before).map(String);
      assert.ok(sent.some((b) => b.includes("audio/wav")), `no request to the model API carried the audio block (${sent.length} requests)`);

      await assert.rejects(conn.request("session/fork", { sessionId: res.sessionId, cwd: dirs.workspace }),
        (err) => err.code === -32601 && /agent gemini does not offer it/.test(err.message), "session/fork to Gemini");
      console.log(`gemini logins through the bridge: ${methods.map((m) => m.id).join(", ")}; audio reached the model API`);
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
