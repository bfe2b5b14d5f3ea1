// The scenarios every real agent goes through (one test file per agent
// calls agentSuite with its definition from lib/agents.mjs):
//   answers    a fresh session answers a prompt (no tool call);
//   deny rule  with permissions.deny ["Bash(rm *)"] the agent's `rm -rf build`
//              is denied by rule: no card reaches the parent, build/ is still
//              on disk, the audit log holds {decision: deny, source: rule};
//   allow once with no rule the agent's `touch made.txt` reaches the SDK
//              parent as a card, which answers acp-bridge:allow_once:
//              made.txt is on disk, the audit log holds {allow, user}.
//
// These hold in the bridge's default mode (permissions.defaultMode unset)
// with each agent in the mode it starts in. Every other mode (each bridge
// mode, each child's bypass-like mode asked for by the editor) x the damage
// attempts (rm, .env, .git/hooks, a fetch) is the matrix: lib/matrix.mjs.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentOutputValidator, formatFailures } from "../../ts/lib/schema.mjs";
import { agentText, initialize, runTurn, withAgent } from "./harness.mjs";

export const ALLOW_ONCE = "acp-bridge:allow_once";
export const REJECT_ONCE = "acp-bridge:reject_once";
const DENY_RULE = "Bash(rm *)";
const RM = "rm -rf build";
const TOUCH = "touch made.txt";
const WRITTEN = "written.txt";
const CONTENT = "written by the scripted model\n";

const validator = new AgentOutputValidator();

/** Checks the bridge's exit, its output against the ACP v1 schema, and the fake's unknown paths. */
export function checkRun(t, def, run) {
  if (process.env.ACP_INTEROP_VERBOSE) run.diagnose();
  try {
    assert.equal(run.status.timedOut, undefined, "acp-bridge did not exit within 20s of stdin closing");
    assert.equal(run.status.code, 0, `acp-bridge exit status ${run.status.code} (signal ${run.status.signal})`);
    assert.equal(run.status.rest, "", "the bridge's last output line has no newline");
    if (!def.toleratesUnexpected) assert.deepEqual(run.api.unexpected, [], "the agent called endpoints the fake API does not know");
  } catch (err) {
    run.diagnose();
    throw err;
  }
  const report = validator.validateTranscript(run.transcript);
  const total = report.results.length;
  t.diagnostic(`validated ${total} bridge messages: ${JSON.stringify(report.counts)}`);
  assert.ok(total > 0, "the bridge wrote nothing");
  assert.equal(report.failures.length, 0, `${report.failures.length} of ${total} bridge messages violate the ACP v1 schema:\n\n${formatFailures(report.failures)}`);
  assert.deepEqual(report.unanswered, [], "client requests the bridge never answered");
}

/** The one audit record for the agent's scripted call (decisions only, not the agent's own runs). */
function decisionRecords(run, def) {
  return run.audit.filter((r) => r.agent === def.name);
}

/**
 * Registers the scenarios for def. def.skip() returning a string skips them
 * all with that reason (printed by the runner), for a cause outside the
 * project (a binary the machine cannot run).
 */
export function agentSuite(def) {
  const label = `${def.package}@${def.version}`;
  // One describe per agent: the spec reporter prints its total time.
  describe(`${def.name}: ${label} (node ${process.versions.node})`, () => scenarios(def, label));
}

function scenarios(def, label) {
  const skip = def.skip?.();
  const opts = { timeout: def.timeoutMs ?? 120_000, skip: skip ? `${def.name} cannot run here: ${skip}` : false };

  test(`${label}: a fresh session answers`, opts, async (t) => {
    const finalText = `Hello from the fake ${def.name} model.`;
    let turn;
    const run = await withAgent(t, def, { scenario: "answers", script: { finalText } }, async (conn, ctx) => {
      await initialize(conn, def);
      const session = await conn.buildSession(ctx.workspace).start();
      turn = await runTurn(session, "Say hello.");
      session.dispose();
    });
    checkRun(t, def, run);
    assert.equal(turn.stopReason, "end_turn");
    assert.ok(agentText(turn.updates).includes(finalText), `the agent did not relay the model's answer; text: ${JSON.stringify(agentText(turn.updates))}`);
    assert.deepEqual(run.audit, [], "a decision was logged for a turn without tool calls");
  });

  test(`${label}: deny rule ${DENY_RULE}: the agent's \`${RM}\` is denied, build/ stays on disk`, opts, (t) => denyRmBuild(t, def));

  test(`${label}: no rule: the card for \`${TOUCH}\` reaches the parent, allow once, made.txt is on disk`, opts, async (t) => {
    let turn;
    let card;
    const run = await withAgent(t, def, { scenario: "allow-once", script: { call: def.shell(TOUCH) } }, async (conn, ctx) => {
      await initialize(conn, def);
      const session = await conn.buildSession(ctx.workspace).start();
      turn = await runTurn(session, "Create made.txt.", async () => {
        const perm = await ctx.permissions.next();
        card = perm.params;
        assert.equal(card.sessionId, session.sessionId, "card for another session");
        assert.equal(existsSync(join(ctx.workspace, "made.txt")), false, "made.txt exists before the card was answered");
        perm.resolve({ outcome: { outcome: "selected", optionId: ALLOW_ONCE } });
      });
      session.dispose();
    });
    checkRun(t, def, run);
    const meta = card._meta?.["acp-bridge"];
    assert.equal(meta?.agent, def.name, `card _meta: ${JSON.stringify(card)}`);
    assert.equal(meta?.tool, "Bash", `card _meta: ${JSON.stringify(meta)}`);
    assert.match(meta?.specifier ?? "", /^Bash\(.*touch made\.txt.*\)$/, `card _meta: ${JSON.stringify(meta)}`);
    const ids = card.options.map((o) => o.optionId);
    for (const id of [ALLOW_ONCE, REJECT_ONCE]) assert.ok(ids.includes(id), `option ${id} not offered: ${ids}`);
    assert.equal(turn.stopReason, "end_turn");
    assert.equal(run.onDisk["made.txt"], true, "made.txt is not on disk: the allowed command did not run");
    const records = decisionRecords(run, def);
    assert.equal(records.length, 1, `want one audit record, got ${JSON.stringify(run.audit)}`);
    const [r] = records;
    assert.deepEqual([r.decision, r.source, r.approvalId], ["allow", "user", meta.approvalId], `audit: ${JSON.stringify(r)}`);
    // The audit names the agent's own option the bridge answered with.
    if (def.allowOnceOption) assert.equal(r.optionId, def.allowOnceOption, `audit: ${JSON.stringify(r)}`);
  });

  if (def.write) writeScenario(def, label, opts);
}

/**
 * File write, for agents with def.write: with no rule, the agent's write of
 * written.txt reaches the parent as an edit card, which allows once: the
 * file is on disk with the scripted content and the audit log holds
 * {allow, user} for it.
 */
function writeScenario(def, label, opts) {
  test(`${label}: no rule: the card for writing ${WRITTEN} reaches the parent, allow once, the file is on disk`, opts, async (t) => {
    let card;
    let turn;
    const script = (ws) => ({ call: def.write(join(ws, WRITTEN), CONTENT) });
    const run = await withAgent(t, def, { scenario: "write-allow-once", script }, async (conn, ctx) => {
      await initialize(conn, def);
      const session = await conn.buildSession(ctx.workspace).start();
      turn = await runTurn(session, `Write ${WRITTEN}.`, async () => {
        const perm = await ctx.permissions.next();
        card = perm.params;
        assert.equal(existsSync(join(ctx.workspace, WRITTEN)), false, `${WRITTEN} exists before the card was answered`);
        perm.resolve({ outcome: { outcome: "selected", optionId: ALLOW_ONCE } });
      });
      session.dispose();
    });
    checkRun(t, def, run);
    const meta = card._meta?.["acp-bridge"];
    assert.equal(card.toolCall.kind, "edit", `card toolCall: ${JSON.stringify(card.toolCall)}`);
    assert.ok(["Write", "Edit"].includes(meta?.tool), `card _meta: ${JSON.stringify(meta)}`);
    assert.ok((meta?.specifier ?? "").includes(WRITTEN), `card _meta: ${JSON.stringify(meta)}`);
    assert.equal(turn.stopReason, "end_turn");
    assert.equal(run.onDisk.writtenContent, CONTENT, `${WRITTEN} is not on disk with the scripted content`);
    const records = decisionRecords(run, def);
    assert.equal(records.length, 1, `want one audit record, got ${JSON.stringify(run.audit)}`);
    assert.deepEqual([records[0].decision, records[0].source, records[0].approvalId], ["allow", "user", meta.approvalId], `audit: ${JSON.stringify(records[0])}`);
  });
}

/**
 * The deny-rule scenario on its own, for agent files that run it in more
 * than one child mode: with permissions.deny [Bash(rm *)], the agent's
 * `rm -rf build` never runs, no card reaches the parent, and the audit log
 * has one {deny, rule} record.
 */
export async function denyRmBuild(t, def, scenario = "deny-rule") {
  let cards;
  const prepare = (ws) => {
    mkdirSync(join(ws, "build"));
    writeFileSync(join(ws, "build", "keep.txt"), "must survive\n");
  };
  const run = await withAgent(t, def, { scenario, script: { call: def.shell(RM) }, permissions: { deny: [DENY_RULE] }, prepare }, async (conn, ctx) => {
    await initialize(conn, def);
    const session = await conn.buildSession(ctx.workspace).start();
    await runTurn(session, "Clean the build directory.");
    cards = ctx.cards;
    session.dispose();
  });
  checkRun(t, def, run);
  assert.ok(run.api.requests.some((r) => r.kind === "call" || r.kind === "tool_use"), `the fake never proposed the call: ${JSON.stringify(run.api.requests)}`);
  assert.deepEqual(cards, [], "a card reached the parent although a deny rule matches");
  assert.equal(run.onDisk.build, true, "build/ is gone: the denied command ran");
  const records = decisionRecords(run, def);
  assert.equal(records.length, 1, `want one audit record, got ${JSON.stringify(run.audit)}`);
  const [r] = records;
  assert.deepEqual([r.decision, r.source, r.rule], ["deny", "rule", DENY_RULE], `audit: ${JSON.stringify(r)}`);
  assert.match(r.specifier, /^Bash\(.*rm -rf build.*\)$/, `audit specifier: ${JSON.stringify(r)}`);
  // The audit names the agent's own option the bridge answered with.
  if (def.denyOption) assert.equal(r.optionId, def.denyOption, `audit: ${JSON.stringify(r)}`);
}
