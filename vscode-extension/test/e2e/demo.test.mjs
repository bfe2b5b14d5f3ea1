// `make demo`'s Ctrl-C stops code-server, the bridge and every agent at once.
// The bridge has a process group of its own (it outlives a window for its
// grace period, 120 s by default), so stopping code-server's group alone left
// it and its agents running. First the process-tree stop on a tree of plain
// processes that leave their group and their parent, then the demo launcher
// itself (test/e2e/codeserver.mjs, what scripts/demo.sh runs) with a chat open
// in real VS Code: SIGINT, and within a bound none of its processes is left.
//   VSIX=path/to.vsix node --test test/e2e/demo.test.mjs
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { chromium } from "playwright-core";
import { EXT_DIR, freePort } from "./codeserver.mjs";
import { RUN_MARKER, alive, runProcesses, stopRun } from "./proctree.mjs";
import { Workbench, log, send } from "./workbench.mjs";

/** Resolves with the exit code (or signal) once the child exits, or undefined after ms. */
function exitWithin(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? child.signalCode);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(undefined), ms);
    child.once("exit", (code, sig) => {
      clearTimeout(t);
      resolve(code ?? sig);
    });
  });
}

/** The processes of snap that still run (same pid and start time). */
const survivors = (snap) => [...snap].filter(([pid, p]) => alive(pid, p.start)).map(([pid, p]) => `${pid} ${p.cmd}`);

test("stopRun: one stop ends a process tree whose members left its group (setsid) and its parent (reparented)", async () => {
  const id = randomUUID();
  const marker = `${RUN_MARKER}=${id}`;
  // sh -> [setsid sh -> sleep] (own session and group, like the bridge) and an orphan (its parent exits at once).
  const script = `setsid sh -c 'sleep 300 & wait' & sh -c 'sleep 301 & exit 0'; sleep 302 & wait`;
  const root = spawn("sh", ["-c", script], { detached: true, stdio: "ignore", env: { ...process.env, [RUN_MARKER]: id } });
  let snap;
  const deadline = Date.now() + 10_000;
  for (;;) {
    snap = runProcesses([root.pid], marker);
    const sleeps = [...snap.values()].filter((p) => /^sleep 30[012]$/.test(p.cmd));
    if (sleeps.length === 3) break;
    assert.ok(Date.now() < deadline, `the three sleeps did not start: ${[...snap.values()].map((p) => p.cmd)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const groups = new Set([...snap.values()].map((p) => p.pgrp));
  assert.ok(groups.size >= 2, "one member has a group of its own");
  const t0 = Date.now();
  const left = await stopRun(root.pid, marker);
  assert.deepEqual(left, []);
  assert.deepEqual(survivors(snap), [], "every process of the tree is gone");
  assert.ok(Date.now() - t0 < 5000, `stopped in ${Date.now() - t0} ms, with SIGTERM`);
});

const setupSh = join(EXT_DIR, "scripts", "setup.sh");

/** Runs `apt_wait_lock` of scripts/setup.sh with its lock list set to files of ours. */
function aptWaitLock(lockFile, wait) {
  const child = spawn("bash", ["-c", `. '${setupSh}'; apt_wait_lock`], {
    env: { ...process.env, ext: EXT_DIR, APT_LOCK_FILES: lockFile, APT_LOCK_WAIT: String(wait) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  return { child, out: () => out };
}

/** A `sleep 60` with file open (its stdin); this process keeps no descriptor of it. */
function holdOpen(file) {
  const fd = openSync(file, "r");
  try {
    return spawn("sleep", ["60"], { stdio: [fd, "ignore", "ignore"] });
  } finally {
    closeSync(fd);
  }
}

test("make demo waits for another installer's package-manager lock, says so and whose it is, and goes on when it is free", async () => {
  const dir = mkdtempSync(join(os.tmpdir(), "acpb-lock-"));
  const lock = join(dir, "lock-frontend");
  writeFileSync(lock, "");
  // The "installer": a process with the lock file open, as apt and dpkg have while they hold it.
  const holder = holdOpen(lock);
  try {
    const w = aptWaitLock(lock, 60);
    const deadline = Date.now() + 10_000;
    const named = new RegExp(`waiting for the package manager[^\\n]*\\n\\s+${holder.pid} sleep 60`);
    while (!named.test(w.out())) {
      assert.ok(Date.now() < deadline, `no waiting message: ${w.out()}`);
      assert.equal(w.child.exitCode, null, `apt_wait_lock returned while the lock was held: ${w.out()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    holder.kill();
    assert.equal(await exitWithin(w.child, 10_000), 0, w.out());
    assert.match(w.out(), /lock is free \(waited \d+s\)/);
    // Held for longer than it waits: a clear failure, not apt's own error.
    const holder2 = holdOpen(lock);
    try {
      const w2 = aptWaitLock(lock, 2);
      assert.equal(await exitWithin(w2.child, 15_000), 1, w2.out());
      assert.match(w2.out(), /still locked after \d+s/);
    } finally {
      holder2.kill();
    }
  } finally {
    holder.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

let launcher;
let browser;
after(async () => {
  await browser?.close().catch(() => {});
  if (launcher && launcher.exitCode === null) launcher.kill("SIGKILL");
});

test("make demo: Ctrl-C (SIGINT to the launcher) stops code-server, the bridge and the agent at once", async () => {
  const vsix = process.env.VSIX;
  assert.ok(vsix && existsSync(vsix), `VSIX=${vsix} must name the packaged extension`);
  const port = await freePort();
  launcher = spawn(process.execPath, [join(EXT_DIR, "test", "e2e", "codeserver.mjs"), vsix], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  launcher.stdout.on("data", (d) => (out += d));
  launcher.stderr.on("data", (d) => (out += d));
  const url = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`the demo did not start in 90 s:\n${out}`)), 90_000);
    const check = () => {
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    };
    launcher.stdout.on("data", check);
    launcher.once("exit", (code) => reject(new Error(`the demo launcher exited (${code}):\n${out}`)));
  });
  log(`demo at ${url}`);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(url);
  await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
  // The workbench helpers on this page (not a code-server of their own).
  const wb = new Workbench({ name: "demo" });
  wb.page = page;
  await wb.runCommand("ACP Bridge: New Chat");
  const f = await wb.chatFrame();
  await wb.waitBridgeRunning(f);
  // A turn waiting on a card: the agent runs.
  await send(f, "only:test");
  await f.locator(".card.approval.pending").first().waitFor({ timeout: 30_000 });
  let snap;
  const deadline = Date.now() + 20_000;
  for (;;) {
    snap = runProcesses([launcher.pid]);
    const cmds = [...snap.values()].map((p) => p.cmd);
    const bridge = cmds.some((c) => /acp-bridge/.test(c) && /--attach-dir/.test(c));
    const agent = cmds.some((c) => /demo-agent/.test(c));
    if (bridge && agent) break;
    assert.ok(Date.now() < deadline, `no bridge and agent among the demo's processes:\n${cmds.join("\n")}`);
    await page.waitForTimeout(100);
  }
  const bridgeGroup = [...snap.values()].find((p) => /--attach-dir/.test(p.cmd)).pgrp;
  const csGroup = [...snap.values()].find((p) => /code-server/.test(p.cmd) && !/codeserver\.mjs/.test(p.cmd))?.pgrp;
  assert.notEqual(bridgeGroup, csGroup, "the bridge has a process group of its own (what Ctrl-C used to miss)");
  snap.delete(launcher.pid);
  log(`demo processes: ${snap.size}`);
  const t0 = Date.now();
  launcher.kill("SIGINT");
  const code = await exitWithin(launcher, 20_000);
  const took = Date.now() - t0;
  assert.notEqual(code, undefined, `the launcher did not exit within 20 s of SIGINT:\n${out.slice(-2000)}`);
  assert.equal(code, 0, `the launcher's exit:\n${out.slice(-2000)}`);
  assert.deepEqual(survivors(snap), [], "no process of the demo (code-server, bridge, agent) is left");
  log(`stopped in ${took} ms`);
  assert.match(out, /Stopped\./);
});
