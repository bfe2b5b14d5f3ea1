// Spawns the acp-bridge binary over real stdio and records every line either
// side writes (a transcript), while handing the SDK an ndJsonStream.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";

/** The bridge binary: $ACP_BRIDGE_BIN (interop/run.sh sets it). */
export function bridgeBin() {
  const bin = process.env.ACP_BRIDGE_BIN;
  if (!bin) throw new Error("ACP_BRIDGE_BIN is not set: build acp-bridge and point it at the binary (interop/run.sh does)");
  return bin;
}

/** process.env without ACP_BRIDGE_* settings, HOME and XDG dirs under home. */
function isolatedEnv(home) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith("ACP_BRIDGE_") || k === "HOME" || k.startsWith("XDG_")) continue;
    env[k] = v;
  }
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CACHE_HOME: join(home, ".cache"),
  };
}

/**
 * Splits a byte stream into lines (without "\n"), calling onLine for each
 * non-blank one. rest() returns the bytes after the last newline.
 */
export function lineSplitter(onLine) {
  let pending = Buffer.alloc(0);
  return {
    push(chunk) {
      pending = Buffer.concat([pending, chunk]);
      let i;
      while ((i = pending.indexOf(0x0a)) >= 0) {
        const line = pending.subarray(0, i).toString("utf8");
        pending = pending.subarray(i + 1);
        if (line.trim() !== "") onLine(line);
      }
    },
    rest: () => pending.toString("utf8"),
  };
}

/**
 * Starts acp-bridge with an optional YAML config ("" = none: the shipped
 * defaults, whose default agent is the built-in demo agent).
 * @returns {{stream: acp.Stream, transcript: {dir: string, line: string}[], workspace: string, stderr: () => string, close: () => Promise<{code: number|null, signal: string|null, rest: string}>}}
 */
export function spawnBridge({ name, config = "" }) {
  const home = mkdtempSync(join(tmpdir(), "acp-interop-home-"));
  const workspace = mkdtempSync(join(tmpdir(), "acp-interop-ws-"));
  const args = ["--workspace", workspace, "--log-level", "debug"];
  if (config) {
    const file = join(home, "config.yaml");
    writeFileSync(file, config);
    args.push("--config", file);
  }
  return runBridge({ name, prefix: "ts", home, workspace, args, env: isolatedEnv(home) });
}

/**
 * Runs the bridge binary with args in workspace, tapping its stdio into a
 * transcript (written as <prefix>-<name>.jsonl on close) and exposing it as
 * an SDK stream. close() removes home and workspace.
 */
export function runBridge({ name, prefix, home, workspace, args, env }) {
  const child = spawn(bridgeBin(), args, {
    cwd: workspace,
    env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true, // own process group, so cleanup can reach the agents it started
  });
  const transcript = [];
  const out = lineSplitter((line) => transcript.push({ dir: "out", line }));
  const inn = lineSplitter((line) => transcript.push({ dir: "in", line }));
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (s) => (stderr += s));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));

  // The transcript keeps recording after the SDK stops reading (it cancels
  // its input when the connection closes): the bridge's last words count too.
  let reading = true;
  const input = new ReadableStream({
    start(controller) {
      child.stdout.on("data", (chunk) => {
        out.push(chunk);
        if (reading) controller.enqueue(new Uint8Array(chunk));
      });
      child.stdout.on("end", () => {
        if (reading) controller.close();
        reading = false;
      });
      child.stdout.on("error", (err) => {
        if (reading) controller.error(err);
        reading = false;
      });
    },
    cancel() {
      reading = false;
    },
  });
  const output = new WritableStream({
    write(chunk) {
      inn.push(Buffer.from(chunk));
      return new Promise((resolve, reject) => child.stdin.write(chunk, (err) => (err ? reject(err) : resolve())));
    },
    close() {
      child.stdin.end();
    },
    abort() {
      child.stdin.destroy();
    },
  });

  return {
    stream: acp.ndJsonStream(output, input),
    transcript,
    workspace,
    stderr: () => stderr,
    /** Closes stdin, waits up to 20 s for the bridge to exit, writes the transcript file. */
    async close() {
      child.stdin.end();
      let timer;
      const timeout = new Promise((resolve) => {
        timer = setTimeout(() => resolve(null), 20_000);
      });
      let status = await Promise.race([exited, timeout]);
      clearTimeout(timer);
      if (status === null) {
        process.kill(-child.pid, "SIGKILL");
        status = { ...(await exited), timedOut: true };
      }
      try {
        process.kill(-child.pid, "SIGKILL"); // agents left in the group, if any
      } catch {
        // the group is gone: nothing left behind
      }
      writeTranscript(prefix, name, transcript);
      rmSync(home, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
      return { ...status, rest: out.rest() };
    },
  };
}

/** Writes <prefix>-<name>.jsonl under $ACP_INTEROP_TRANSCRIPT_DIR, if set. */
function writeTranscript(prefix, name, transcript) {
  const dir = process.env.ACP_INTEROP_TRANSCRIPT_DIR;
  if (!dir || !name) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${prefix}-${name}.jsonl`), transcript.map((e) => JSON.stringify(e) + "\n").join(""));
}

/** Reads a transcript file written by interop/go or by writeTranscript. */
export function readTranscript(file) {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l, i) => {
      const e = JSON.parse(l);
      if ((e.dir !== "in" && e.dir !== "out") || typeof e.line !== "string") {
        throw new Error(`${file}:${i + 1}: not a transcript entry {dir, line}`);
      }
      return e;
    });
}

/** The transcript files of the Go interop tests in dir. */
export function goTranscripts(dir) {
  return readdirSync(dir)
    .filter((f) => f.startsWith("go-") && f.endsWith(".jsonl"))
    .sort()
    .map((f) => join(dir, f));
}

/** A queue whose next() waits for the next push(). */
export class AsyncQueue {
  #items = [];
  #waiters = [];
  push(x) {
    const w = this.#waiters.shift();
    if (w) w(x);
    else this.#items.push(x);
  }
  next() {
    if (this.#items.length) return Promise.resolve(this.#items.shift());
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
