// Codex (codex-acp) in the mode the bridge keeps it in, offline against the
// fake Responses API (issue 20, items 2 and 3; docs/agents.md, Codex):
//   - its edits (apply_patch), commands and fetches (curl) each reach the
//     editor as a permission request, inside the bridge's OS sandbox and
//     without it; the card is rejected and nothing happens on disk or on
//     the loopback site;
//   - an editor asking for Codex's `auto` (which applies workspace patches
//     unasked) is refused, and the edit still asks afterwards;
//   - a command Codex runs unasked (a read it knows to be safe) runs (its
//     own sandbox does not fail it inside the bridge's) and is reported:
//     the editor sees its tool_call and the audit log records it;
//   - inside the bridge's sandbox Codex is launched with its own sandbox
//     off (sandbox_mode danger-full-access); without it, not.
// The model's calls are exec_command calls: with the fake's model Codex
// offers no freeform apply_patch tool, and an `apply_patch` heredoc through
// exec_command is Codex's patch (it asks for it as an edit).

import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { codex } from "../lib/agents.mjs";
import { initialize, runTurn, withAgent } from "../lib/harness.mjs";
import { checkRun, REJECT_ONCE } from "../lib/suite.mjs";

const skip = codex.skip?.();
const opts = { timeout: 120_000, skip: skip ? `codex cannot run here: ${skip}` : false };
const exec = (cmd) => ({ name: "exec_command", args: { cmd } });
const patch = (file, line) => exec(`apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ${file}\n+${line}\n*** End Patch\nEOF`);

async function startSite() {
  const paths = [];
  const server = createServer((req, res) => {
    paths.push(req.url);
    res.end("site page\n");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, paths, close: () => new Promise((r) => (server.closeAllConnections?.(), server.close(() => r()))) };
}

/** The bridge's "agent started" log line's arguments (the agent's argv inside bwrap, or as is). */
function startedArgs(stderr) {
  const line = stderr.split("\n").find((l) => l.includes("\tagent started\t"));
  assert.ok(line, "no `agent started` line in the bridge's log");
  return JSON.parse(line.slice(line.indexOf("{"))).args ?? [];
}

const SANDBOX_OFF = 'sandbox_mode="danger-full-access"';
const UNTRUSTED = 'approval_policy="untrusted"';

for (const confined of [true, false]) {
  const where = confined ? "inside the bridge's OS sandbox" : "control: the bridge's OS sandbox off";
  const settings = confined ? {} : { sandbox: { enabled: false } };
  const rows = [
    { row: "edit", kind: "edit", tool: "Edit", call: () => patch("written.txt", "patched by the model"), file: "written.txt" },
    { row: "command", kind: "execute", tool: "Bash", call: () => exec("touch made.txt"), file: "made.txt" },
    { row: "fetch", kind: "execute", tool: "Bash", call: (site) => exec(`curl -s ${site.url}/fetched`), fetch: true },
  ];
  for (const r of rows) {
    test(`codex ${where}: its ${r.row} asks; rejected, nothing happens`, opts, async (t) => {
      const site = await startSite();
      let card;
      let setModeError;
      try {
        const run = await withAgent(t, codex, { scenario: `asks-${r.row}`, script: { call: r.call(site) }, settings }, async (conn, ctx) => {
          await initialize(conn, codex);
          const session = await conn.buildSession(ctx.workspace).start();
          if (r.row === "edit") {
            // The editor asks for Codex's `auto`: kept from it.
            await assert.rejects(conn.request(acp.methods.agent.session.setMode, { sessionId: session.sessionId, modeId: "auto" }), (err) => {
              setModeError = err;
              return true;
            });
          }
          await runTurn(session, `Do the ${r.row}.`, async () => {
            const perm = await ctx.permissions.next();
            card = perm.params;
            if (r.file) assert.equal(existsSync(join(ctx.workspace, r.file)), false, `${r.file} exists before the card was answered`);
            assert.deepEqual(site.paths, [], "the site was fetched before the card was answered");
            perm.resolve({ outcome: { outcome: "selected", optionId: REJECT_ONCE } });
          });
          session.dispose();
        });
        checkRun(t, codex, run);
        assert.equal(card.toolCall.kind, r.kind, `card: ${JSON.stringify(card.toolCall)}`);
        assert.equal(card._meta?.["acp-bridge"]?.tool, r.tool, `card _meta: ${JSON.stringify(card._meta)}`);
        if (r.file) assert.equal(run.onDisk[r.file], false, `${r.file} is on disk: the rejected ${r.row} happened`);
        assert.deepEqual(site.paths, [], "the rejected fetch reached the site");
        const recs = run.audit.filter((a) => a.agent === "codex" && a.decision !== "child-not-asking");
        assert.deepEqual(recs.map((a) => [a.decision, a.source]), [["deny", "user"]], `audit: ${JSON.stringify(run.audit)}`);
        assert.ok(!run.audit.some((a) => a.decision === "child-not-asking"), `the bridge could not confirm that Codex asks: ${JSON.stringify(run.audit)}`);
        if (setModeError) assert.equal(setModeError.code, -32602, `session/set_mode auto: ${JSON.stringify(setModeError)}`);
        const args = startedArgs(run.stderr);
        assert.ok(args.includes(UNTRUSTED), `Codex was not launched with ${UNTRUSTED}: ${JSON.stringify(args.slice(-8))}`);
        assert.equal(args.includes(SANDBOX_OFF), confined, `${SANDBOX_OFF} in Codex's arguments: ${args.includes(SANDBOX_OFF)}, want ${confined}`);
      } finally {
        await site.close();
      }
    });
  }
}

test("codex inside the bridge's OS sandbox: a read it runs unasked is a tool call, audited, and ran", opts, async (t) => {
  const secret = `notes-${process.pid}-${Date.now()}`;
  let updates;
  const run = await withAgent(
    t,
    codex,
    { scenario: "unasked-read", script: { call: exec("cat notes.txt") }, prepare: (ws) => writeFileSync(join(ws, "notes.txt"), `${secret}\n`) },
    async (conn, ctx) => {
      await initialize(conn, codex);
      const session = await conn.buildSession(ctx.workspace).start();
      ({ updates } = await runTurn(session, "Read notes.txt."));
      session.dispose();
    },
  );
  checkRun(t, codex, run);
  const calls = updates.filter((u) => u.sessionUpdate === "tool_call" && /cat notes\.txt/.test(JSON.stringify(u)));
  assert.equal(calls.length, 1, `want one tool_call for cat notes.txt, updates: ${JSON.stringify(updates).slice(0, 3000)}`);
  const out = JSON.stringify(run.api.results);
  assert.ok(out.includes(secret), `the command did not run (its output as the model got it: ${out.slice(0, 500)})`);
  assert.ok(!out.includes("bwrap"), `Codex's own sandbox failed it: ${out.slice(0, 500)}`);
  const recs = run.audit.filter((a) => a.agent === "codex" && a.toolCallId === calls[0].toolCallId);
  assert.equal(recs.length, 1, `want one audit record for the call, audit: ${JSON.stringify(run.audit)}`);
  assert.equal(recs[0].decision, "unasked", `audit: ${JSON.stringify(recs[0])}`);
  assert.match(recs[0].specifier, /cat notes\.txt/, `audit: ${JSON.stringify(recs[0])}`);
});
