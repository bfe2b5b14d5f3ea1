// BridgeHost against the real acp-bridge binary: a run starts and connects,
// a crash ends the run (onGone, not expected) and a new run connects, a
// missing binary is one problem report. ACP_BRIDGE_BIN names the binary;
// else it is built with `go build` from the repository.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { BridgeHost, type BridgeHostDeps } from "../../src/bridgeHost";
import type { BridgeState } from "../../src/protocol";

function bridgeBin(): string | undefined {
  if (process.env["ACP_BRIDGE_BIN"]) return process.env["ACP_BRIDGE_BIN"];
  const repo = path.resolve(__dirname, "..", "..", "..");
  const out = path.join(os.tmpdir(), `acpb-host-test-${process.pid}`, "acp-bridge");
  try {
    execFileSync("go", ["build", "-o", out, "./cmd/acp-bridge"], { cwd: repo, stdio: "ignore", env: { ...process.env, CGO_ENABLED: "0" } });
    return out;
  } catch {
    return undefined;
  }
}

function deps(bin: string, over: Partial<BridgeHostDeps> = {}) {
  const states: BridgeState[] = [];
  const gone: boolean[] = [];
  const problems: string[] = [];
  const connected: number[] = [];
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "acpb-home-"));
  const d: BridgeHostDeps = {
    extensionPath: "/nonexistent",
    bridgePath: () => bin,
    cwd: () => home,
    isTrusted: () => true,
    log: () => {},
    handlers: () => ({
      readTextFile: async () => ({ content: "" }),
      writeTextFile: async () => {},
      requestPermission: async () => ({ outcome: { outcome: "cancelled" } }),
      sessionUpdate: () => {},
      approvalResolved: () => {},
      agentStatus: () => {},
      persist: async () => ({ persisted: true as const }),
      settingsInvalid: () => {},
    }),
    onState: (b) => states.push(b),
    onConnected: async () => void connected.push(Date.now()),
    onGone: (expected) => gone.push(expected),
    onProblem: (kind, msg) => problems.push(`${kind}: ${msg}`),
    ...over,
  };
  return { d, states, gone, problems, connected, home };
}

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const bin = bridgeBin();

test("BridgeHost: a run connects; a crash ends it (onGone, unexpected) and a new run connects", { skip: bin ? false : "no acp-bridge binary (go build failed)" }, async () => {
  const saved = process.env["XDG_CONFIG_HOME"];
  const t = deps(bin!);
  process.env["XDG_CONFIG_HOME"] = t.home; // the bridge's own config and audit log go to a temp dir
  const host = new BridgeHost(t.d);
  try {
    await host.start();
    assert.equal(host.bridge.status, "running");
    assert.ok(host.isConnected);
    const conn = await host.connection();
    assert.ok((await conn.listAgents()).length >= 0);
    const pid1 = host.pid!;
    process.kill(pid1, "SIGKILL");
    await until("a second run", () => t.connected.length === 2);
    assert.deepEqual(t.gone, [false], "the crashed run ended once, as unexpected");
    assert.notEqual(host.pid, pid1);
    assert.ok(t.states.some((s) => s.status === "restarting"));
    assert.deepEqual(t.problems.map((p) => p.split(":")[0]), ["restarting"]);
    // A restart asked for is expected.
    await host.restart("test", true);
    assert.deepEqual(t.gone, [false, true]);
    assert.equal(host.bridge.status, "running");
  } finally {
    await host.dispose();
    if (saved === undefined) delete process.env["XDG_CONFIG_HOME"];
    else process.env["XDG_CONFIG_HOME"] = saved;
  }
});

test("BridgeHost: a missing binary is one problem and callers get its message", async () => {
  const t = deps("/nonexistent/acp-bridge");
  const host = new BridgeHost(t.d);
  await host.start();
  assert.equal(host.bridge.status, "failed");
  assert.equal(t.problems.length, 1);
  assert.match(t.problems[0], /^missing: .*acpBridge\.bridgePath/);
  await assert.rejects(host.connection(), /acpBridge\.bridgePath/);
  await host.dispose();
});

test("BridgeHost with attach: a new host re-attaches to the bridge that outlived the old one and answers its pending approval", { skip: bin ? false : "no acp-bridge binary (go build failed)" }, async () => {
  const saved = process.env["XDG_CONFIG_HOME"];
  let record: import("../../src/bridgeHost").AttachRecord | undefined;
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "acpb-att-")), "attach");
  const attachDeps = {
    attach: () => ({ dir, graceSeconds: 30 }),
    attachRecord: async () => record,
    saveAttachRecord: async (r: typeof record) => void (record = r),
  };
  const perms1: unknown[] = [];
  const t1 = deps(bin!, attachDeps);
  const h1 = t1.d.handlers();
  t1.d.handlers = () => ({ ...h1, requestPermission: (p) => (perms1.push(p), new Promise(() => {})) });
  process.env["XDG_CONFIG_HOME"] = t1.home;
  const host1 = new BridgeHost(t1.d);
  let host2: BridgeHost | undefined;
  try {
    await host1.start();
    assert.ok(record?.socket && record.token.length >= 32, "the handover was kept");
    const pid = host1.pid!;
    const conn1 = await host1.connection();
    const s = await conn1.newSession(t1.home, "demo");
    void conn1.prompt(s.sessionId, "only:write").catch(() => {});
    await until("the card", () => perms1.length === 1);
    await host1.dispose(); // a window reload: detach only
    await new Promise((r) => setTimeout(r, 200));
    process.kill(pid, 0); // still running

    let how: unknown;
    const ended: unknown[] = [];
    const t2 = deps(bin!, { ...attachDeps, cwd: () => t1.home, onConnected: async (_c, _i, h) => void (how = h) });
    const h2 = t2.d.handlers();
    t2.d.handlers = () => ({
      ...h2,
      requestPermission: async (p) => {
        assert.equal((p._meta?.["acp-bridge"] as { approvalId?: string }).approvalId, ((perms1[0] as { _meta: Record<string, { approvalId: string }> })._meta["acp-bridge"]).approvalId);
        return { outcome: { outcome: "selected", optionId: "acp-bridge:allow_once" } };
      },
      turnEnded: (p) => ended.push(p),
    });
    host2 = new BridgeHost(t2.d);
    await host2.start();
    assert.ok(host2.isReattached);
    assert.equal(host2.pid, pid);
    // The binary is known after a re-attach too: "${bridge}" in agent commands is replaced with its path.
    assert.equal(host2.binary?.path, host1.binary?.path);
    const res = (how as { attached: boolean; result: { sessions: { sessionId: string; turnRunning: boolean }[] } });
    assert.equal(res.attached, true);
    assert.deepEqual(res.result.sessions.map((x) => [x.sessionId, x.turnRunning]), [[s.sessionId, true]]);
    const file = path.join(t1.home, "demo-write.txt");
    await until("the file the demo agent writes once allowed", () => fs.existsSync(file));
    await until("turn/ended", () => ended.length === 1);
    assert.deepEqual(ended[0], { sessionId: s.sessionId, stopReason: "end_turn", error: undefined });
    // Restart: the re-attached bridge is stopped by its pid; the record goes.
    await host2.stop();
    await until("the bridge exited", () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    }, 5000);
    assert.equal(record, undefined);
  } finally {
    await host2?.dispose();
    if (saved === undefined) delete process.env["XDG_CONFIG_HOME"];
    else process.env["XDG_CONFIG_HOME"] = saved;
  }
});
