// Questions to the person pass through the bridge (docs/agents.md, "What
// passes through"): the real Claude Agent ACP adapter, offline against the
// fake Messages API, inside the bridge's OS sandbox. The fake model calls
// AskUserQuestion; an editor that offers elicitation (form) gets Claude's
// question as elicitation/create through the bridge, with the bridge's
// session id, and answers it; the request that carries the tool result to
// the model API carries the answer. The control: an editor that does not
// offer elicitation gets no question, and Claude does not offer the model
// the tool at all (it disables AskUserQuestion for such a client).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import * as acp from "@agentclientprotocol/sdk";
import { runBridge } from "../../ts/lib/bridge.mjs";
import { isolatedEnv } from "../lib/harness.mjs";
import { claude } from "../lib/agents.mjs";

const QUESTION = "Which colour should the banner be?";
const ANSWER = "Mauve";
const ask = {
  name: "AskUserQuestion",
  args: {
    questions: [
      {
        question: QUESTION,
        header: "Colour",
        multiSelect: false,
        options: [
          { label: "Teal", description: "A blue-green." },
          { label: ANSWER, description: "A pale purple." },
        ],
      },
    ],
  },
};

/** The tool names each request to the model API offered. */
const offeredTools = (bodies) =>
  bodies.map((b) => {
    try {
      return (JSON.parse(String(b)).tools ?? []).map((t) => t?.name);
    } catch {
      return [];
    }
  });

const cases = [
  { offersElicitation: true, mode: "default" },
  // Plan is when Claude asks most: its question is no action, so the
  // bridge's plan (and dontAsk) must not refuse it as an unasked call.
  { offersElicitation: true, mode: "plan" },
  { offersElicitation: true, mode: "dontAsk" },
  { offersElicitation: false, mode: "default" },
];
for (const { offersElicitation, mode } of cases) {
  const what = offersElicitation ? `an editor that offers elicitation gets Claude's question and its answer reaches the model (mode ${mode})` : "control: an editor without elicitation is not asked";
  test(`${claude.package}@${claude.version}: ${what}`, { timeout: 300_000 }, async () => {
    const root = mkdtempSync(join(tmpdir(), "acp-interop-elicit-"));
    const dirs = { home: join(root, "bridge-home"), agentHome: join(root, "agent-home"), workspace: join(root, "workspace") };
    for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
    const api = await claude.startFake({ call: ask, finalText: "Noted." });
    const configFile = join(dirs.home, "config.yaml");
    const agent = { initTimeoutSeconds: 120, ...claude.agentConfig({ apiUrl: api.url, agentHome: dirs.agentHome, workspace: dirs.workspace }) };
    writeFileSync(configFile, JSON.stringify({ sandbox: { onUnavailable: "refuse" }, defaultAgent: claude.name, agents: { [claude.name]: agent } }, null, 2) + "\n");
    const bridge = runBridge({
      name: `claude-elicit-${offersElicitation}-${mode}`, prefix: "agents", home: dirs.home, workspace: dirs.workspace, env: isolatedEnv(dirs.home),
      args: ["--config", configFile, "--workspace", dirs.workspace, "--log-level", "debug"],
    });
    const asked = [];
    const permissions = [];
    const app = acp.client({ name: "acp-bridge-interop-elicitation" })
      .onRequest(acp.methods.client.session.requestPermission, ({ params: p }) => {
        permissions.push(p);
        return { outcome: { outcome: "cancelled" } };
      })
      .onRequest("elicitation/create", ({ params: p }) => {
        asked.push(p);
        return { action: "accept", content: { question_0: ANSWER } };
      })
      .onNotification("*", () => {});
    try {
      await app.connectWith(bridge.stream, async (conn) => {
        const clientCapabilities = { fs: { readTextFile: false, writeTextFile: false }, terminal: false };
        if (offersElicitation) clientCapabilities.elicitation = { form: {} };
        const init = await conn.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities, clientInfo: { name: "acp-bridge-interop-elicitation", version: "1.0.0" },
        });
        assert.equal(init._meta?.["acp-bridge"]?.defaultAgent, claude.name);
        const res = await conn.request(acp.methods.agent.session.new, { cwd: dirs.workspace, mcpServers: [] });
        const box = res._meta?.["acp-bridge"]?.sandbox;
        assert.ok(box?.enabled && box?.confined, `Claude is not confined by the OS sandbox: ${JSON.stringify(box)}`);
        if (mode !== "default") await conn.request(acp.methods.agent.session.setMode, { sessionId: res.sessionId, modeId: mode });
        const turn = await conn.request(acp.methods.agent.session.prompt, { sessionId: res.sessionId, prompt: [{ type: "text", text: "Ask me which colour the banner should be." }] });
        assert.equal(turn.stopReason, "end_turn");
        const offered = offeredTools(api.bodies).filter((t) => t.length > 0);
        const offeredAsk = offered.some((t) => t.includes(ask.name));
        console.log(`elicitation offered: ${offersElicitation}; ${offered.length} requests with tools, AskUserQuestion among them: ${offeredAsk}; questions the editor got: ${asked.length}; permission requests: ${permissions.length}`);
        if (!offersElicitation) {
          assert.equal(asked.length, 0, "the editor was asked though it does not offer elicitation");
          assert.equal(offeredAsk, false, "Claude offered AskUserQuestion to the model though the editor cannot answer it");
          assert.equal(api.model.wasProposed(), false);
          return;
        }
        assert.ok(offeredAsk, "Claude did not offer AskUserQuestion to the model though the editor offers elicitation");
        assert.ok(api.model.wasProposed(), "the fake model API never proposed AskUserQuestion");
        assert.equal(asked.length, 1, `the editor got ${asked.length} questions: ${JSON.stringify(asked).slice(0, 1500)}`);
        const q = asked[0];
        assert.equal(q.sessionId, res.sessionId, "the question names the bridge's session");
        assert.equal(q.message, QUESTION);
        assert.equal(q._meta?.["acp-bridge"]?.agent, claude.name);
        const field = q.requestedSchema?.properties?.question_0;
        assert.deepEqual(field?.oneOf?.map((o) => o.const), ["Teal", ANSWER], `the question's field: ${JSON.stringify(q.requestedSchema)}`);
        assert.equal(permissions.length, 0, `a question is not a permission request: ${JSON.stringify(permissions).slice(0, 800)}`);
        // The answer reaches the model: the tool result of the call carries it.
        assert.equal(api.results.length, 1, "no tool result for AskUserQuestion reached the model API");
        const result = JSON.stringify(api.results[0]);
        console.log(`the tool result the model got: ${result.slice(0, 400)}`);
        assert.ok(result.includes(ANSWER) && result.includes(QUESTION), `the tool result does not carry the answer: ${result}`);
        assert.ok(!JSON.stringify(api.results[0]).includes("is_error\":true"), `the tool failed: ${result}`);
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
}
