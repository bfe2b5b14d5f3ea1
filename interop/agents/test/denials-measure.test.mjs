// What each real agent does with the bridge's reject (docs/agents.md,
// "Denials the agent's model learns"), measured offline against its fake
// model API: after the bridge answers a permission request with the agent's
// reject option, does the agent's turn go on (the fake gets another request
// carrying the call's tool result in the same turn) or end, and what does
// the model see (the tool result text)? Three ways to refuse, one turn each,
// on one bridge and one agent process per agent:
//   rule    a deny rule Bash(rm *) denies `rm -rf build-rule` (no card);
//   reason  the card for `touch made-reason.txt` answered reject once with a
//           reason typed by the person ("Deny with a reason…");
//   cancel  the card for `touch made-cancel.txt` answered outcome cancelled
//           (the bridge then answers the agent "cancelled").
// Each is followed by a turn without a call ("next-<way>"): the bridge's
// denial block (bridge/denials.go) must reach the fake in that turn's
// request. Everything measured is printed as a diagnostic ("measured: ...")
// and the floor is asserted: nothing denied happened on disk.
//
// ACP_INTEROP_DENIAL_AGENTS=qwen,gemini limits the agents.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cellMarker } from "../lib/fake-script.mjs";
import { initialize, runTurn, withAgent } from "../lib/harness.mjs";
import { REJECT_ONCE, checkRun } from "../lib/suite.mjs";
import * as agents from "../lib/agents.mjs";

const ALL = [agents.claude, agents.gemini, agents.qwen, agents.codex, agents.opencode];
const only = process.env.ACP_INTEROP_DENIAL_AGENTS?.split(",").filter(Boolean);
const DEFS = only?.length ? ALL.filter((d) => only.includes(d.name)) : ALL;

export const REASON = "not on the build machine, use the scratch dir";

// What was measured (docs/agents.md, "What each agent's reject does"), per
// agent: whether the turn went on after the reject (and "cancelled") and the
// stop reason; the tool result text the model saw, when it went on. A change
// in an agent fails here.
const MEASURED = {
  claude: { wentOn: true, stopReason: "end_turn", result: /User refused permission to run tool/, cancelResult: /Tool use aborted/ },
  gemini: { wentOn: true, stopReason: "end_turn", result: /was canceled by the user/, cancelResult: /was canceled by the user/ },
  qwen: { wentOn: false, stopReason: "end_turn" },
  codex: { wentOn: false, stopReason: "cancelled" },
  opencode: { wentOn: false, stopReason: "end_turn" },
};

/** The tool result the fake received in bodies (from index from) for cell, as text. */
function resultsSeen(api, from) {
  return api.bodies.slice(from);
}

for (const def of DEFS) {
  const skip = def.skip?.();
  test(`${def.name}: ${def.package}@${def.version}: what a reject does to the turn and what the model sees`, { timeout: 300_000, skip: skip ? `${def.name} cannot run here: ${skip}` : false }, async (t) => {
    const measured = {};
    const prepare = (ws) => {
      mkdirSync(join(ws, "build-rule"));
      writeFileSync(join(ws, "build-rule", "keep.txt"), "must survive\n");
    };
    const script = {
      cells: {
        rule: def.shell("rm -rf build-rule"),
        reason: def.shell("touch made-reason.txt"),
        cancel: def.shell("touch made-cancel.txt"),
      },
    };
    const run = await withAgent(
      t,
      def,
      { scenario: "denials-measure", script, permissions: { deny: ["Bash(rm *)"], tellAgentDenials: true }, prepare },
      async (conn, ctx) => {
        const ws = ctx.workspace;
        await initialize(conn, def);
        const session = await conn.buildSession(ctx.workspace).start();
        for (const way of ["rule", "reason", "cancel"]) {
          const from = ctx.api.bodies.length;
          const results = ctx.api.results.length;
          const onPermission =
            way === "rule"
              ? undefined
              : async () => {
                  const perm = await ctx.permissions.next();
                  if (way === "reason") perm.resolve({ outcome: { outcome: "selected", optionId: REJECT_ONCE }, _meta: { "acp-bridge": { reason: REASON } } });
                  else perm.resolve({ outcome: { outcome: "cancelled" } });
                };
          const turn = await runTurn(session, `${cellMarker(way)} Do the ${way} step.`, onPermission);
          // The disk: the refused command did not run.
          measured[way] = { onDisk: way === "rule" ? existsSync(join(ws, "build-rule", "keep.txt")) : !existsSync(join(ws, `made-${way}.txt`)) };
          assert.equal(measured[way].onDisk, true, `${way}: the refused command ran`);
          const after = ctx.api.requests.filter((r) => r.cell === way);
          const result = ctx.api.results.length > results ? ctx.api.results[results] : undefined;
          Object.assign(measured[way], {
            stopReason: turn.stopReason,
            requestsInTurn: after.map((r) => r.kind),
            wentOn: result !== undefined,
            toolResult: result === undefined ? null : JSON.stringify(result).slice(0, 500),
            reasonInTurn: resultsSeen(ctx.api, from).some((b) => b.includes(REASON)),
          });
          const next = `next-${way}`;
          const from2 = ctx.api.bodies.length;
          const turn2 = await runTurn(session, `${cellMarker(next)} Go on.`);
          const bodies = resultsSeen(ctx.api, from2);
          measured[way].nextTurn = turn2.stopReason;
          measured[way].blockInNextPrompt = bodies.some((b) => b.includes("[acp-bridge] Since your last turn"));
          measured[way].reasonInNextPrompt = bodies.some((b) => b.includes(way === "rule" ? "Bash(rm *)" : REASON));
        }
        session.dispose();
      },
    );
    t.diagnostic(`measured: ${JSON.stringify(measured)}`);
    checkRun(t, def, run);
    // The floor: nothing refused happened.
    const denied = run.audit.filter((r) => r.agent === def.name && r.decision === "deny");
    assert.ok(denied.length >= 2, `want the rule deny and the person's deny in the audit: ${JSON.stringify(run.audit)}`);
    const want = MEASURED[def.name];
    for (const way of ["rule", "reason", "cancel"]) {
      const m = measured[way];
      assert.equal(m.wentOn, want.wentOn, `${way}: the turn ${m.wentOn ? "went on" : "ended"}, measured before: ${want.wentOn ? "went on" : "ended"}`);
      assert.equal(m.stopReason, want.stopReason, `${way}: stop reason`);
      if (want.wentOn) assert.match(m.toolResult, way === "cancel" ? want.cancelResult : want.result, `${way}: the tool result the model saw`);
      // The agent's own words carry neither the rule nor the person's reason.
      if (m.toolResult) assert.equal(m.toolResult.includes(REASON) || m.toolResult.includes("Bash(rm *)"), false, `${way}: ${m.toolResult}`);
    }
    for (const way of ["rule", "reason"]) {
      assert.equal(measured[way].blockInNextPrompt, true, `${way}: the denial block did not reach the model in the next prompt: ${JSON.stringify(measured)}`);
      assert.equal(measured[way].reasonInNextPrompt, true, `${way}: the reason did not reach the model in the next prompt: ${JSON.stringify(measured)}`);
    }
  });
}
