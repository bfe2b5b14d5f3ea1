// Denials that teach, with each real agent offline (docs/agents.md,
// "Denials the agent's model learns"): after a rule deny and after a
// person's "Deny with a reason…", the agent's model is told why, and the
// turn goes on.
//   - Agents whose reject lets the turn go on (Claude, Gemini CLI; measured
//     by denials-measure.test.mjs): the fake model API gets the call's tool
//     result in the same turn (the turn went on), and the reason in the
//     request of the next turn (the bridge's denial block,
//     permissions.tellAgentDenials).
//   - Agents whose only reject ends the turn (Qwen Code, Codex, OpenCode;
//     their profiles' RejectAborts): with permissions.continueAfterDeny the
//     bridge sends a follow-up prompt in the same editor turn; the fake gets
//     another request in that turn carrying the reason, the editor's one
//     prompt ends with the follow-up's end_turn and shows the model's
//     closing text.
// Each case checks the disk: the refused command did not run.
//
// ACP_INTEROP_DENIAL_AGENTS=qwen,gemini limits the agents.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cellMarker } from "../lib/fake-script.mjs";
import { agentText, initialize, runTurn, withAgent } from "../lib/harness.mjs";
import { REJECT_ONCE, checkRun } from "../lib/suite.mjs";
import * as agents from "../lib/agents.mjs";

const ALL = [agents.claude, agents.gemini, agents.qwen, agents.codex, agents.opencode];
const only = process.env.ACP_INTEROP_DENIAL_AGENTS?.split(",").filter(Boolean);
const DEFS = only?.length ? ALL.filter((d) => only.includes(d.name)) : ALL;
// Measured (denials-measure.test.mjs; profiles/profile.go RejectAborts).
const ENDS_TURN = new Set(["qwen", "codex", "opencode"]);
const REASON = "not on the build machine, use the scratch dir";
const FINAL = "Done: the scripted model has nothing more to do.";

for (const def of DEFS) {
  const skip = def.skip?.();
  const endsTurn = ENDS_TURN.has(def.name);
  const how = endsTurn ? "through the bridge's follow-up prompt (continueAfterDeny)" : "the agent goes on by itself";
  test(`${def.name}: ${def.package}@${def.version}: a rule deny and a person's reason reach the model and the turn goes on (${how})`, { timeout: 300_000, skip: skip ? `${def.name} cannot run here: ${skip}` : false }, async (t) => {
    const prepare = (ws) => {
      mkdirSync(join(ws, "build-rule"));
      writeFileSync(join(ws, "build-rule", "keep.txt"), "must survive\n");
    };
    const script = { finalText: FINAL, cells: { rule: def.shell("rm -rf build-rule"), reason: def.shell("touch made-reason.txt") } };
    const permissions = { deny: ["Bash(rm *)"], ...(endsTurn ? { continueAfterDeny: true } : { tellAgentDenials: true }) };
    const seen = {};
    const run = await withAgent(t, def, { scenario: "denials-teach", script, permissions, prepare }, async (conn, ctx) => {
      const ws = ctx.workspace;
      await initialize(conn, def);
      const session = await conn.buildSession(ctx.workspace).start();
      for (const way of ["rule", "reason"]) {
        const why = way === "rule" ? "Bash(rm *)" : REASON;
        const fromBody = ctx.api.bodies.length;
        const fromResults = ctx.api.results.length;
        const onPermission =
          way === "rule"
            ? undefined
            : async () => {
                const perm = await ctx.permissions.next();
                perm.resolve({ outcome: { outcome: "selected", optionId: REJECT_ONCE }, _meta: { "acp-bridge": { reason: REASON } } });
              };
        const turn = await runTurn(session, `${cellMarker(way)} Do the ${way} step.`, onPermission);
        const bodies = ctx.api.bodies.slice(fromBody);
        const s = (seen[way] = {
          stopReason: turn.stopReason,
          requests: bodies.length,
          toolResult: ctx.api.results.length > fromResults,
          reasonInTurn: bodies.some((b) => b.includes(why)),
          followUp: bodies.some((b) => b.includes("[acp-bridge] Your last turn ended")),
          text: agentText(turn.updates),
        });
        // The disk: the refused command did not run.
        if (way === "rule") assert.ok(existsSync(join(ws, "build-rule", "keep.txt")), "build-rule/ is gone: the denied rm ran");
        else assert.equal(existsSync(join(ws, "made-reason.txt")), false, "made-reason.txt exists: the refused touch ran");
        assert.ok(bodies.some((b) => b.includes(cellMarker(way))), `${way}: no model request in the turn`);
        if (endsTurn) {
          // The follow-up: another model request in the same editor turn, carrying why.
          assert.equal(s.followUp, true, `${way}: no follow-up prompt reached the model: ${JSON.stringify(s)}`);
          assert.equal(s.reasonInTurn, true, `${way}: the reason did not reach the model in the turn: ${JSON.stringify(s)}`);
          assert.equal(s.stopReason, "end_turn", `${way}: the editor's turn did not end with the follow-up's end_turn: ${JSON.stringify(s)}`);
          assert.ok(s.text.includes(FINAL), `${way}: the editor did not see the model's answer to the follow-up: ${JSON.stringify(s)}`);
          assert.ok(s.text.includes(`acp-bridge: ${def.name}'s turn ended`) && s.text.includes(why), `${way}: the chat does not show what the agent was told: ${JSON.stringify(s)}`);
        } else {
          // The agent went on by itself: the call's tool result reached the model in the turn.
          assert.equal(s.toolResult, true, `${way}: the turn did not go on after the reject: ${JSON.stringify(s)}`);
          assert.equal(s.followUp, false, `${way}: a follow-up was sent to an agent that goes on: ${JSON.stringify(s)}`);
          assert.equal(s.stopReason, "end_turn");
          // Why reaches the model in the next turn's request (the denial block).
          const from2 = ctx.api.bodies.length;
          await runTurn(session, `${cellMarker(`next-${way}`)} Go on.`);
          const next = ctx.api.bodies.slice(from2);
          assert.ok(next.some((b) => b.includes("[acp-bridge] Since your last turn") && b.includes(why)), `${way}: the reason is in no request of the next turn`);
        }
        // A rule's deny never reads as the person's.
        if (way === "rule") {
          const told = ctx.api.bodies.slice(fromBody).find((b) => b.includes("[acp-bridge] Since your last turn")) ?? "";
          assert.match(told, /acp-bridge's policy denied it/);
          assert.doesNotMatch(told, /the person said/);
        }
      }
      session.dispose();
    });
    t.diagnostic(`seen: ${JSON.stringify(seen)}`);
    checkRun(t, def, run);
    const denies = run.audit.filter((r) => r.agent === def.name && r.decision === "deny");
    assert.deepEqual(denies.map((r) => r.source), ["rule", "user"], `audit: ${JSON.stringify(run.audit)}`);
  });
}
