// OpenCode's own agents through the bridge (docs/agents.md, OpenCode's
// section): its session modes are its agents (build, plan), which the
// bridge passes through as the config option "acp-bridge/agent", while the
// bridge's modes stay its own. Offline against the fake Chat Completions
// API, inside the bridge's OS sandbox. The agent picked is the one whose
// instructions reach the model API: OpenCode's plan agent tells the model
// it is planning; its build agent does not. In the plan agent OpenCode
// still asks: its shell call reaches the editor as a card, and the file it
// would make is not made.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import * as acp from "@agentclientprotocol/sdk";
import { runBridge } from "../../ts/lib/bridge.mjs";
import { initialize, isolatedEnv } from "../lib/harness.mjs";
import { opencode } from "../lib/agents.mjs";

const optionID = "acp-bridge/agent";
// OpenCode's plan agent's reminder to the model (its words, case aside).
const planMarker = /plan mode/i;

test(`${opencode.package}@${opencode.version}: its build and plan agents pass through the bridge`, { skip: opencode.skip(), timeout: 300_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), "acp-interop-modes-opencode-"));
  const dirs = { home: join(root, "bridge-home"), agentHome: join(root, "agent-home"), workspace: join(root, "workspace") };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  const made = join(dirs.workspace, "made-in-plan.txt");
  const api = await opencode.startFake({ finalText: "Noted.", cells: { planshell: opencode.shell(`touch ${made}`) } });
  const configFile = join(dirs.home, "config.yaml");
  const agent = { initTimeoutSeconds: 120, ...opencode.agentConfig({ apiUrl: api.url, agentHome: dirs.agentHome, workspace: dirs.workspace }) };
  writeFileSync(configFile, JSON.stringify({ defaultAgent: opencode.name, agents: { [opencode.name]: agent } }, null, 2) + "\n");
  const bridge = runBridge({
    name: "opencode-modes", prefix: "agents", home: dirs.home, workspace: dirs.workspace, env: isolatedEnv(dirs.home),
    args: ["--config", configFile, "--workspace", dirs.workspace, "--log-level", "debug"],
  });
  const asked = [];
  const app = acp.client({ name: "acp-bridge-interop-modes" })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      asked.push(params);
      return { outcome: { outcome: "cancelled" } };
    })
    .onNotification("*", () => {});
  /** One turn; the request bodies it sent to the model API (title requests aside, all of them). */
  const turn = async (conn, sessionId, text) => {
    const before = api.bodies.length;
    const r = await conn.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    assert.equal(r.stopReason, "end_turn", `turn "${text}"`);
    return api.bodies.slice(before).map(String);
  };
  const agentOption = (opts) => (opts ?? []).find((o) => o.id === optionID);
  try {
    await app.connectWith(bridge.stream, async (conn) => {
      await initialize(conn, opencode);
      const s = await conn.request(acp.methods.agent.session.new, { cwd: dirs.workspace, mcpServers: [] });
      const meta = s._meta?.["acp-bridge"];
      assert.equal(meta?.childMode?.asking, true, `childMode ${JSON.stringify(meta?.childMode)}`);
      assert.equal(s.modes?.currentModeId, "default", "the editor's modes are the bridge's");
      const opt = agentOption(s.configOptions);
      assert.ok(opt, `OpenCode's agents are offered: ${JSON.stringify(s.configOptions)}`);
      assert.deepEqual(opt.options.map((o) => o.value), ["build", "plan"]);
      assert.equal(opt.currentValue, "build");

      const built = await turn(conn, s.sessionId, "Say hello.");
      assert.ok(built.length > 0 && !built.some((b) => planMarker.test(b)), "the build agent's request already says plan mode");

      const set = await conn.request("session/set_config_option", { sessionId: s.sessionId, configId: optionID, value: "plan" });
      assert.equal(agentOption(set.configOptions)?.currentValue, "plan");
      const planned = await turn(conn, s.sessionId, "[[cell:planshell]] Run the command.");
      assert.ok(planned.some((b) => planMarker.test(b)), `OpenCode's plan agent never reached the model API:\n${planned.join("\n").slice(0, 3000)}`);
      assert.ok(asked.some((p) => p.sessionId === s.sessionId && JSON.stringify(p.toolCall).includes("made-in-plan")),
        `OpenCode's plan agent ran its shell call without asking: cards ${JSON.stringify(asked).slice(0, 2000)}`);
      assert.equal(existsSync(made), false, "the shell call refused in the plan agent made its file");

      // The bridge's plan given at session/new reaches OpenCode's plan agent too.
      const p = await conn.request(acp.methods.agent.session.new, { cwd: dirs.workspace, mcpServers: [], _meta: { "acp-bridge": { mode: "plan" } } });
      assert.equal(p.modes?.currentModeId, "plan");
      assert.equal(agentOption(p.configOptions)?.currentValue, "plan");
      assert.equal(p._meta?.["acp-bridge"]?.childMode?.asking, true);
      const startedInPlan = await turn(conn, p.sessionId, "Say hello.");
      assert.ok(startedInPlan.some((b) => planMarker.test(b)), "session/new in the bridge's plan did not reach OpenCode's plan agent");
      console.log(`OpenCode's plan agent reached the model API after the pick and at session/new in plan`);
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
