// Runs one real agent behind the real acp-bridge binary, offline: a fake
// model API on 127.0.0.1 (started by the agent's definition), a bridge
// config file naming the agent's command as a user would write it (with
// permissions and audit.path), the official TypeScript SDK as the bridge's
// parent, and a scratch HOME for the agent. Used by lib/suite.mjs.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { AsyncQueue, runBridge } from "../../ts/lib/bridge.mjs";

/**
 * process.env without the bridge's settings, HOME, XDG dirs, and anything
 * that could point an agent at a real account, key or endpoint.
 */
export function isolatedEnv(home) {
  const env = {};
  const drop = /^(ACP_BRIDGE_|XDG_|ANTHROPIC_|CLAUDE_|AWS_|GOOGLE_|GEMINI_|VERTEX_|OPENAI_|AZURE_|CODEX_|OPENCODE_|QWEN_|DASHSCOPE_|OPENROUTER_)/;
  for (const [k, v] of Object.entries(process.env)) {
    if (drop.test(k) || k === "HOME") continue;
    env[k] = v;
  }
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_DATA_HOME: join(home, ".local", "share"),
  };
}

/** Notifications the SDK routes to no helper (e.g. _acp-bridge/approval/resolved). */
export class Notifications {
  all = [];
  #waiters = new Set();
  add(n) {
    this.all.push(n);
    for (const w of this.#waiters) w();
  }
  /** Resolves with the first notification matching pred, or null after ms. */
  wait(pred, ms = 10_000) {
    return new Promise((resolve) => {
      let timer;
      const check = () => {
        const n = this.all.find(pred);
        if (n) {
          this.#waiters.delete(check);
          clearTimeout(timer);
          resolve(n);
        }
        return n;
      };
      if (!check()) {
        this.#waiters.add(check);
        timer = setTimeout(() => {
          this.#waiters.delete(check);
          resolve(null);
        }, ms);
      }
    });
  }
  resolved() {
    return this.all.filter((n) => n.method === "_acp-bridge/approval/resolved").map((n) => n.params);
  }
}

/**
 * The audit log's records (JSON lines), in time order, [] if there is none.
 * The log is several files (docs/settings.md, "Audit log"): the decisions
 * (P, which also holds a copy of every deny and of every person's
 * decision) and the calls run unasked that the policy would not deny
 * (P.unasked); P.denies and P.person are the kept originals of what P
 * copies, so P and P.unasked hold each record once.
 */
export function readAudit(path) {
  const records = [];
  for (const p of [path, `${path}.unasked`]) {
    if (!existsSync(p)) continue;
    for (const l of readFileSync(p, "utf8").split("\n")) {
      if (l.trim() !== "") records.push(JSON.parse(l));
    }
  }
  return records.sort((a, b) => String(a.time ?? "").localeCompare(String(b.time ?? "")));
}

/**
 * Runs op(agent, ctx) with an SDK client connected to a bridge whose only
 * agent is def's, against def's fake model API scripted with `script`.
 * `prepare(workspace)` runs before the bridge starts (e.g. makes build/);
 * `script` is the fake's script, or a function of the workspace giving it;
 * `settings` are further top-level settings of the bridge's config file.
 * op's ctx can read the audit log (ctx.audit()) and the bridge's log
 * (ctx.stderr()) while the bridge runs.
 * Returns {status, audit, api, stderr, transcript}; op's failure is thrown
 * after the diagnostics are printed.
 * @param {import("node:test").TestContext} t
 */
export async function withAgent(t, def, { scenario, script, permissions, prepare, settings }, op) {
  const root = mkdtempSync(join(tmpdir(), `acp-interop-${def.name}-`));
  const home = join(root, "bridge-home");
  const agentHome = join(root, "agent-home");
  const workspace = join(root, "workspace");
  const auditPath = join(root, "audit", "audit.jsonl");
  for (const d of [home, agentHome, workspace]) mkdirSync(d, { recursive: true });
  prepare?.(workspace);
  // A script may depend on the workspace (an absolute path to write).
  const api = await def.startFake(typeof script === "function" ? script(workspace) : script);
  // initialize may take long on a loaded machine: measured, OpenCode took
  // over the default 30 s at load average 22 (two cores, other builds).
  const agent = { initTimeoutSeconds: 120, ...def.agentConfig({ apiUrl: api.url, agentHome, workspace }) };
  const config = {
    defaultAgent: def.name,
    agents: { [def.name]: agent },
    audit: { path: auditPath },
  };
  if (permissions) config.permissions = permissions;
  // More settings of the bridge's config file (merged at the top level).
  Object.assign(config, settings);
  const configFile = join(home, "config.yaml");
  // JSON is YAML: no quoting questions for paths and rules.
  writeFileSync(configFile, JSON.stringify(config, null, 2) + "\n");
  const bridge = runBridge({
    name: `${def.name}-${scenario}`,
    prefix: "agents",
    home,
    workspace,
    env: isolatedEnv(home),
    args: ["--config", configFile, "--workspace", workspace, "--log-level", "debug"],
  });
  const permissionsQ = new AsyncQueue();
  const notifications = new Notifications();
  const cards = [];
  const app = acp
    .client({ name: "acp-bridge-interop-agents" })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => {
      cards.push(params);
      return new Promise((resolve) => {
        permissionsQ.push({ params, resolve });
        signal.addEventListener("abort", () => resolve({ outcome: { outcome: "cancelled" } }));
      });
    })
    .onNotification("*", ({ method, params }) => notifications.add({ method, params }));
  let failure;
  let onDisk = {};
  try {
    await app.connectWith(bridge.stream, (conn) =>
      op(conn, { permissions: permissionsQ, notifications, cards, api, workspace, agentHome, audit: () => readAudit(auditPath), stderr: bridge.stderr }),
    );
  } catch (err) {
    failure = err;
  }
  // What the test checks on disk is read here, before close() removes the workspace.
  onDisk = snapshot(workspace);
  const transcript = bridge.transcript;
  const status = await bridge.close();
  await api.close();
  const audit = readAudit(auditPath);
  const diagnose = () => {
    t.diagnostic(`fake API requests: ${JSON.stringify(api.requests)}`);
    t.diagnostic(`audit: ${JSON.stringify(audit)}`);
    t.diagnostic(`on disk: ${JSON.stringify(onDisk)}`);
    t.diagnostic(`acp-bridge stderr (last 6000 chars):\n${bridge.stderr().slice(-6000)}`);
  };
  rmSync(root, { recursive: true, force: true });
  if (failure) {
    diagnose();
    throw failure;
  }
  return { status, audit, api, stderr: bridge.stderr(), transcript, onDisk, diagnose };
}

/** The workspace's top-level names (a file or directory the test looks for). */
function snapshot(dir) {
  const out = {};
  try {
    for (const name of ["build", "made.txt", "written.txt"]) out[name] = existsSync(join(dir, name));
    if (out["written.txt"]) out.writtenContent = readFileSync(join(dir, "written.txt"), "utf8");
  } catch {
    // the workspace is gone: nothing on disk
  }
  return out;
}

/** initialize, as an editor without fs or terminal (agents keep their own tools). */
export async function initialize(conn, def) {
  const init = await conn.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "acp-bridge-interop-agents", version: "1.0.0" },
  });
  if (init.protocolVersion !== 1) throw new Error(`initialize: protocolVersion ${init.protocolVersion}`);
  const meta = init._meta?.["acp-bridge"];
  if (meta?.defaultAgent !== def.name) throw new Error(`initialize _meta["acp-bridge"]: ${JSON.stringify(meta)}`);
  return init;
}

/**
 * One prompt; returns the stop reason and every update the turn sent.
 * onPermission runs while the turn is in flight (to answer a card).
 */
export async function runTurn(session, text, onPermission) {
  const turn = session.prompt(text);
  const updates = [];
  const drain = (async () => {
    for (;;) {
      const m = await session.nextUpdate();
      if (m.kind === "stop") return m.stopReason;
      updates.push(m.update);
    }
  })();
  if (onPermission) {
    // A turn that ends without a card fails here, instead of waiting for a
    // card until the test's timeout (and leaving the bridge running).
    const ended = drain.then((r) => {
      throw new Error(`the turn ended (${r}) without a permission request reaching the parent`);
    });
    ended.catch(() => {});
    await Promise.race([onPermission(), ended]);
  }
  const stopReason = await drain;
  const res = await turn;
  if (res.stopReason !== stopReason) throw new Error(`prompt answered ${res.stopReason}, the update stream said ${stopReason}`);
  return { stopReason, updates };
}

/** The text of the agent's message chunks in updates. */
export function agentText(updates) {
  return updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content?.type === "text")
    .map((u) => u.content.text)
    .join("");
}
