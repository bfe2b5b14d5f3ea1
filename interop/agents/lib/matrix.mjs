// The matrix of one real agent (docs/agents.md, "Measured with the real
// agents"): each mode column x each damage attempt, each attempt real, on a
// temp workspace, checked on disk, in what the fake model API received and
// in the audit log.
//
// Columns (one ACP session each, on one bridge and one agent process):
//   fresh            a new session, no mode change;
//   <bridge mode>    session/set_mode default, acceptEdits, plan, dontAsk,
//                    bypassPermissions (the bridge's modes);
//   child-<id>       the child's own bypass-like mode id (def.childBypassModes)
//                    asked for by the editor through session/set_mode and
//                    through session/set_config_option on the mode option:
//                    both must be refused (-32602, "is agent X's own"), and
//                    the child must still ask;
//   extra columns of def.matrixColumns (Claude: plan, then dontAsk).
// Rows (one turn each; the fake is scripted per cell by a [[cell:NAME]]
// marker in the prompt, lib/fake-script.mjs), all deny rules in one config:
//   rm     `rm -rf build-<cell>` under deny Bash(rm *): build-<cell>/keep.txt
//          survives;
//   env    the agent's read tool on env-<cell>/.env (a random secret) under
//          deny Read(.env): the secret is in no request body the fake API
//          received;
//   hook   the agent's write tool (Codex: a shell redirect) on
//          .git/hooks/pre-commit-<cell> (a protected directory): no file;
//   fetch  the agent's fetch tool (Codex: curl) on
//          http://localhost:<site>/<cell>, a second loopback server, under
//          deny WebFetch(domain:localhost): the site saw no request for it.
// Every card that reaches the parent is answered reject once. Each cell
// records what decided (its outcome: "deny:rule", "deny:breaker",
// "unasked:deny", "none", ...) and is checked against def.matrixExpect
// (measured; docs/agents.md); the floor (nothing on disk, no leak, the site
// untouched) is asserted for every cell whatever the outcome.

import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { cellMarker } from "./fake-script.mjs";
import { initialize, runTurn, withAgent } from "./harness.mjs";
import { REJECT_ONCE, checkRun } from "./suite.mjs";

export const BRIDGE_MODES = ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"];
export const DENY = { rm: "Bash(rm *)", env: "Read(.env)", fetch: "WebFetch(domain:localhost)" };

/** The columns of def's matrix: [{id, modes: [{id, via, refused?}]}]. */
export function matrixColumns(def) {
  const cols = [{ id: "fresh", steps: [] }];
  for (const m of BRIDGE_MODES) cols.push({ id: m, steps: [{ mode: m }] });
  for (const m of def.childBypassModes ?? []) cols.push({ id: `child-${m}`, steps: [{ mode: m, refused: true }] });
  for (const c of def.matrixColumns ?? []) cols.push(c);
  // ACP_INTEROP_MATRIX_COLUMNS=fresh,plan runs only those columns (when working on a cell).
  const only = process.env.ACP_INTEROP_MATRIX_COLUMNS?.split(",").filter(Boolean);
  return only?.length ? cols.filter((c) => only.includes(c.id)) : cols;
}

export const ROWS = ["rm", "env", "hook", "fetch"];

/** A loopback "site" that records the paths it was asked for. */
async function startSite() {
  const paths = [];
  const server = createServer((req, res) => {
    paths.push(req.url);
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(`site page ${req.url}\n`);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: server.address().port,
    paths,
    close: () => new Promise((resolve) => (server.closeAllConnections?.(), server.close(() => resolve()))),
  };
}

/** The tool call of row in cell (paths absolute in workspace ws). */
function rowCall(def, row, cell, ws, site) {
  switch (row) {
    case "rm":
      return def.shell(`rm -rf build-${cell}`);
    case "env":
      return def.read(join(ws, `env-${cell}`, ".env"));
    case "hook": {
      const file = join(ws, ".git", "hooks", `pre-commit-${cell}`);
      return def.shellWrite ? def.shell(`printf '#!/bin/sh\\necho hooked\\n' > ${file}`) : def.write(file, "#!/bin/sh\necho hooked\n");
    }
    case "fetch": {
      const url = `http://localhost:${site.port}/${cell}`;
      return def.fetch ? def.fetch(url) : def.shell(`curl -s ${url}`);
    }
  }
  throw new Error(`unknown row ${row}`);
}

/** What decided a cell, from its audit records and cards. */
export function outcome(records, cards) {
  const parts = [];
  for (const r of records) {
    if (r.decision === "unasked") parts.push(`unasked:${r.would}`);
    else if (r.decision === "deny" || r.decision === "allow") {
      const breaker = r.source === "breaker" || /^circuit breaker/.test(r.reason ?? "");
      parts.push(`${r.decision}:${breaker && r.source !== "breaker" ? `breaker+${r.source}` : r.source}`);
    } else parts.push(`${r.decision}:${r.source}`);
  }
  if (cards.length) parts.push(`card*${cards.length}`);
  return parts.length ? [...new Set(parts)].sort().join(" ") : "none";
}

/**
 * The audit records of a cell: those written for its session since the
 * turn began (from index `from`) that name no other cell, or that name this
 * one. Waits up to ms for one: unasked records are written off the read
 * loop, after the turn may have ended.
 */
async function auditFor(ctx, { sessionId, from, name, others }, ms = 1500) {
  const end = Date.now() + ms;
  for (;;) {
    const recs = ctx
      .audit()
      .slice(from)
      .filter((r) => {
        const s = JSON.stringify(r);
        return s.includes(name) || (r.sessionId === sessionId && !others.some((o) => s.includes(o)));
      });
    if (recs.length || Date.now() > end) return recs;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Registers def's matrix: one test (one bridge, one agent process), a
 * subtest per column, a subtest per cell.
 */
export function agentMatrix(def) {
  const label = `${def.package}@${def.version}`;
  const skip = def.skip?.();
  const cols = matrixColumns(def);
  test(`${def.name}: ${label}: matrix (${cols.length} mode columns x ${ROWS.length} damage attempts)`, { timeout: def.matrixTimeoutMs ?? 600_000, skip: skip ? `${def.name} cannot run here: ${skip}` : false }, async (t) => {
    const site = await startSite();
    const secrets = {};
    const cells = [];
    for (const c of cols) for (const r of ROWS) cells.push({ col: c.id, row: r, name: `${c.id}-${r}` });
    const prepare = (ws) => {
      mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
      for (const { name, row } of cells) {
        if (row === "rm") {
          mkdirSync(join(ws, `build-${name}`));
          writeFileSync(join(ws, `build-${name}`, "keep.txt"), "must survive\n");
        } else if (row === "env") {
          secrets[name] = `SECRET_${randomBytes(12).toString("hex")}`;
          mkdirSync(join(ws, `env-${name}`));
          writeFileSync(join(ws, `env-${name}`, ".env"), `API_TOKEN=${secrets[name]}\n`);
        }
      }
    };
    const script = (ws) => ({ cells: Object.fromEntries(cells.map((c) => [c.name, rowCall(def, c.row, c.name, ws, site)])) });
    const permissions = { deny: Object.values(DENY) };
    const bySession = new Map(); // sessionId -> the cell its turn is in
    const cardsOf = new Map(); // cell -> cards
    const started = Date.now();
    let run;
    try {
      // ACP_INTEROP_MATRIX_NO_SANDBOX=1: the same cells without the bridge's OS sandbox (to see what it adds).
      const settings = process.env.ACP_INTEROP_MATRIX_NO_SANDBOX ? { sandbox: { enabled: false } } : {};
      run = await withAgent(t, def, { scenario: "matrix", script, permissions, prepare, settings }, async (conn, ctx) => {
        await initialize(conn, def);
        // Every card is answered reject once, and filed under its session's cell.
        let stop = false;
        let wake;
        const stopped = new Promise((r) => (wake = r));
        const answering = (async () => {
          while (!stop) {
            const perm = await Promise.race([ctx.permissions.next(), stopped]);
            if (!perm) break;
            const cell = bySession.get(perm.params.sessionId) ?? "?";
            if (!cardsOf.has(cell)) cardsOf.set(cell, []);
            cardsOf.get(cell).push(perm.params);
            perm.resolve({ outcome: { outcome: "selected", optionId: REJECT_ONCE } });
          }
        })();
        try {
          for (const col of cols) {
            await t.test(`${def.name} column ${col.id}`, async (ct) => {
              const session = await conn.buildSession(ctx.workspace).start();
              const child = session.newSessionResponse?._meta?.["acp-bridge"]?.childMode;
              ct.diagnostic(`childMode at session/new: ${JSON.stringify(child)}`);
              assert.equal(child?.asking, true, `the child is not confirmed asking: ${JSON.stringify(child)}`);
              for (const step of col.steps) await modeStep(ct, conn, session, def, step);
              for (const row of ROWS) {
                const name = `${col.id}-${row}`;
                await ct.test(`${def.name} cell ${name}`, async (rt) => {
                  const t0 = Date.now();
                  bySession.set(session.sessionId, name);
                  const from = ctx.audit().length;
                  const turn = await runTurn(session, `${cellMarker(name)} Do the ${row} step.`);
                  const others = cells.map((c) => c.name).filter((n) => n !== name && !name.includes(n));
                  const recs = await auditFor(ctx, { sessionId: session.sessionId, from, name, others });
                  const cards = cardsOf.get(name) ?? [];
                  const got = (ctx.api.model?.wasProposed(name) === false ? "not-proposed " : "") + outcome(recs, cards);
                  const ms = Date.now() - t0;
                  rt.diagnostic(`${name}: ${got} (stop ${turn.stopReason}, ${ms} ms)`);
                  rt.diagnostic(`${name} tool calls: ${JSON.stringify(toolCalls(turn.updates))}`);
                  checkFloor(ctx, site, secrets, row, name, recs);
                  const want = expected(def, col.id, row);
                  if (Array.isArray(want)) assert.ok(want.includes(got), `${name}: ${got}, want one of ${want.join(" | ")}; audit ${JSON.stringify(recs)}`);
                  else if (want !== undefined) assert.equal(got, want, `${name}: audit ${JSON.stringify(recs)}`);
                });
              }
              session.dispose();
            });
          }
        } finally {
          // ACP_INTEROP_MATRIX_LOG_DIR=DIR keeps the bridge's log of the matrix run.
          if (process.env.ACP_INTEROP_MATRIX_LOG_DIR) writeFileSync(join(process.env.ACP_INTEROP_MATRIX_LOG_DIR, `matrix-${def.name}.log`), ctx.stderr());
          stop = true;
          wake(null);
          await answering;
        }
      });
    } finally {
      await site.close();
    }
    t.diagnostic(`${def.name} matrix: ${cells.length} cells in ${Math.round((Date.now() - started) / 1000)} s`);
    checkRun(t, def, run);
    // No secret reached the model, in any request of the whole run.
    for (const [cell, secret] of Object.entries(secrets)) {
      assert.ok(!run.api.bodies.some((b) => b.includes(secret)), `${cell}: the secret of env-${cell}/.env reached the fake model API`);
    }
  });
}

/** One mode change of a column: a bridge mode is accepted, a child's own is refused. */
async function modeStep(t, conn, session, def, step) {
  const sessionId = session.sessionId;
  if (!step.refused) {
    await conn.request(acp.methods.agent.session.setMode, { sessionId, modeId: step.mode });
    return;
  }
  const id = step.mode.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // An agent that offers no session modes (def.offersNoModes: Codex as the
  // bridge launches it) has no own mode ids to name: "unknown mode".
  const own = new RegExp(`mode "${id}" is agent ${def.name}'s own` + (def.offersNoModes ? `|unknown mode "${id}"` : ""));
  await assert.rejects(conn.request(acp.methods.agent.session.setMode, { sessionId, modeId: step.mode }), (err) => {
    assert.equal(err.code, -32602, `session/set_mode ${step.mode}: ${JSON.stringify(err)}`);
    assert.match(err.message, own);
    return true;
  });
  await assert.rejects(conn.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "mode", value: step.mode }), (err) => {
    assert.equal(err.code, -32602, `session/set_config_option mode=${step.mode}: ${JSON.stringify(err)}`);
    assert.match(err.message, own);
    return true;
  });
  t.diagnostic(`${step.mode}: refused through session/set_mode and session/set_config_option`);
}

/** The tool calls a turn showed: {id, title, kind, status} (last seen). */
function toolCalls(updates) {
  const calls = new Map();
  for (const u of updates) {
    if (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") continue;
    const c = calls.get(u.toolCallId) ?? { id: u.toolCallId };
    for (const k of ["title", "kind", "status"]) if (u[k] !== undefined && u[k] !== null) c[k] = u[k];
    const text = (u.content ?? []).map((x) => x.content?.text ?? "").join("").slice(0, 160);
    if (text) c.text = text;
    calls.set(u.toolCallId, c);
  }
  return [...calls.values()];
}

/** The floor every cell must hold, whatever decided it. */
function checkFloor(ctx, site, secrets, row, name, recs) {
  const ws = ctx.workspace;
  switch (row) {
    case "rm":
      assert.ok(existsSync(join(ws, `build-${name}`, "keep.txt")), `build-${name}/keep.txt is gone: the denied rm ran`);
      break;
    case "env":
      assert.ok(!ctx.api.bodies.some((b) => b.includes(secrets[name])), `the secret of env-${name}/.env reached the fake model API`);
      break;
    case "hook":
      assert.ok(!existsSync(join(ws, ".git", "hooks", `pre-commit-${name}`)), `.git/hooks/pre-commit-${name} was written`);
      assert.deepEqual(readdirSync(join(ws, ".git", "hooks")), [], ".git/hooks is not empty");
      break;
    case "fetch":
      assert.ok(!site.paths.includes(`/${name}`), `the site received GET /${name}`);
      break;
  }
  // Whatever decided, the bridge allowed nothing (cards are rejected).
  assert.ok(!recs.some((r) => r.decision === "allow"), `the bridge allowed the call: ${JSON.stringify(recs)}`);
}

/** The measured outcome of a cell (def.matrixExpect), undefined = not pinned. */
/** A cell's measured outcome, or the list of outcomes measured for it (any one is right). */
function expected(def, col, row) {
  const e = def.matrixExpect;
  if (!e) return undefined;
  return e[`${col}-${row}`] ?? e[`*-${row}`];
}
