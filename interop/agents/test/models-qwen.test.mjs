// Models pass through the bridge (docs/agents.md, "What passes through"):
// Qwen Code (qwen --acp), offline against the fake Chat Completions API,
// offers its models at session/new; the editor picks another one with
// session/set_model through the bridge, and the next turn's request to the
// model API names the model picked. Inside the bridge's OS sandbox (it
// refuses to start the agent unconfined): Qwen persists the pick into its
// settings.json by renaming it, which it does in the private QWEN_HOME the
// bridge gives it there (its profile's PrivateHome; docs/agents.md), and
// the person's own settings.json is unchanged on disk.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import * as acp from "@agentclientprotocol/sdk";
import { runBridge } from "../../ts/lib/bridge.mjs";
import { initialize, isolatedEnv } from "../lib/harness.mjs";
import { qwen } from "../lib/agents.mjs";

test(`${qwen.package}@${qwen.version}: session/set_model through the bridge picks the model the agent's API requests name`, { timeout: 240_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), "acp-interop-models-"));
  const dirs = { home: join(root, "bridge-home"), agentHome: join(root, "agent-home"), workspace: join(root, "workspace") };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  const api = await qwen.startFake({ finalText: "Done." });
  const configFile = join(dirs.home, "config.yaml");
  const agent = { initTimeoutSeconds: 120, ...qwen.agentConfig({ apiUrl: api.url, agentHome: dirs.agentHome, workspace: dirs.workspace }) };
  // Two models of the same provider in Qwen's own settings (its
  // modelProviders), both served by the fake API.
  const settingsFile = join(dirs.agentHome, ".qwen", "settings.json");
  const models = ["fake-model", "fake-model-two"].map((id) => ({ id, name: id, baseUrl: `${api.url}/v1`, envKey: "OPENAI_API_KEY" }));
  writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(readFileSync(settingsFile, "utf8")), modelProviders: { openai: models } }, null, 2));
  const personSettings = readFileSync(settingsFile, "utf8");
  writeFileSync(configFile, JSON.stringify({ sandbox: { onUnavailable: "refuse" }, defaultAgent: qwen.name, agents: { [qwen.name]: agent } }, null, 2) + "\n");
  const bridge = runBridge({
    name: "qwen-models", prefix: "agents", home: dirs.home, workspace: dirs.workspace, env: isolatedEnv(dirs.home),
    args: ["--config", configFile, "--workspace", dirs.workspace, "--log-level", "debug"],
  });
  const app = acp.client({ name: "acp-bridge-interop-models" })
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: "cancelled" } }))
    .onNotification("*", () => {});
  try {
    await app.connectWith(bridge.stream, async (conn) => {
      await initialize(conn, qwen);
      const res = await conn.request(acp.methods.agent.session.new, { cwd: dirs.workspace, mcpServers: [] });
      const box = res._meta?.["acp-bridge"]?.sandbox;
      assert.ok(box?.enabled && box?.confined, `Qwen is not confined by the OS sandbox: ${JSON.stringify(box)}`);
      const models = res.models;
      assert.ok(models?.availableModels?.length > 0, `session/new offers no models through the bridge: ${JSON.stringify(res).slice(0, 1500)}`);
      const other = models.availableModels.find((m) => m.modelId !== models.currentModelId);
      assert.ok(other, `Qwen offers one model only: ${JSON.stringify(models)}`);
      await conn.request("session/set_model", { sessionId: res.sessionId, modelId: other.modelId });
      const before = api.bodies.length;
      const turn = await conn.request(acp.methods.agent.session.prompt, { sessionId: res.sessionId, prompt: [{ type: "text", text: "Say done." }] });
      assert.equal(turn.stopReason, "end_turn");
      const sent = api.bodies.slice(before).map((b) => JSON.parse(String(b)).model);
      assert.ok(sent.length > 0, "no request reached the fake model API");
      console.log(`models offered: ${models.availableModels.map((m) => m.modelId).join(", ")}; picked ${other.modelId}; the API got ${sent.join(", ")}`);
      // Qwen's model ids are "<id>(<provider>)"; the API gets the id, which is the model's name here.
      assert.ok(sent.every((m) => m === other.name), `the model API got ${sent.join(", ")}, want ${other.name} (${other.modelId})`);
      // The pick was persisted in the private copy only: the person's file is as it was.
      assert.equal(readFileSync(settingsFile, "utf8"), personSettings, "the person's ~/.qwen/settings.json changed");
      assert.ok(!existsSync(`${settingsFile}.orig`) && !existsSync(`${settingsFile}.tmp`), "Qwen's rename reached the person's ~/.qwen");
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
