// Finding, checking and running the acp-bridge binary: which binary (the
// acpBridge.bridgePath setting, else the one bundled in the .vsix under
// bin/<platform>-<arch>/, else PATH), its `--version` check, the child process
// with stderr split into lines, a graceful stop, and the restart budget after
// crashes. Node only (no vscode import), so it is unit-tested directly.

import { execFile, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

export type BridgeSource = "setting" | "bundled" | "path";

export interface Candidate {
  path: string;
  source: BridgeSource;
}

export interface LocateInput {
  configured?: string;
  extensionPath: string;
  platform: string; // process.platform
  arch: string; // process.arch
  pathEnv?: string; // process.env.PATH
  isFile?: (p: string) => boolean;
}

export function binaryName(platform: string): string {
  return platform === "win32" ? "acp-bridge.exe" : "acp-bridge";
}

export function bundledPath(extensionPath: string, platform: string, arch: string): string {
  return path.join(extensionPath, "bin", `${platform}-${arch}`, binaryName(platform));
}

function defaultIsFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * The binary to use, in order of precedence. A configured path is the only
 * candidate when set: a wrong setting must be reported, not silently replaced.
 */
export function locateBridge(inp: LocateInput): Candidate | undefined {
  const isFile = inp.isFile ?? defaultIsFile;
  const configured = inp.configured?.trim();
  if (configured) return { path: configured, source: "setting" };
  const bundled = bundledPath(inp.extensionPath, inp.platform, inp.arch);
  if (isFile(bundled)) return { path: bundled, source: "bundled" };
  const sep = inp.platform === "win32" ? ";" : ":";
  for (const dir of (inp.pathEnv ?? "").split(sep)) {
    if (!dir) continue;
    const p = path.join(dir, binaryName(inp.platform));
    if (isFile(p)) return { path: p, source: "path" };
  }
  return undefined;
}

/** Runs `<bin> --version` and returns the version line, or throws with what went wrong. */
export function checkVersion(bin: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(bin, ["--version"], { timeout: timeoutMs, windowsHide: true }, (err, stdout, stderr) => {
      if (err) {
        const e = err as NodeJS.ErrnoException & { killed?: boolean };
        const why =
          e.code === "ENOENT"
            ? "file not found"
            : e.code === "EACCES"
              ? "not executable"
              : e.killed
                ? `no answer within ${timeoutMs} ms`
                : (stderr.trim().split("\n")[0] || e.message);
        reject(new Error(`${bin} --version failed: ${why}`));
        return;
      }
      const line = stdout.trim().split("\n")[0] ?? "";
      if (!line) {
        reject(new Error(`${bin} --version printed nothing`));
        return;
      }
      resolve(line);
    });
  });
}

/** What to tell the person when no usable binary was found. */
export function missingBridgeMessage(c: Candidate | undefined, err?: Error): string {
  if (!c) {
    return "ACP Bridge: no acp-bridge binary found (none bundled for this platform, none on PATH). Build it with `make build` and set acpBridge.bridgePath to it.";
  }
  const what = err ? err.message : "unusable";
  if (c.source === "setting") return `ACP Bridge: acpBridge.bridgePath points at a binary that does not work (${what}). Fix the setting or clear it to use the bundled binary.`;
  return `ACP Bridge: the ${c.source === "bundled" ? "bundled" : "PATH"} acp-bridge binary does not work (${what}). Set acpBridge.bridgePath to a working binary.`;
}

/** Splits a byte stream into lines (for stderr to the Output channel). */
export class LineSplitter {
  private buf = "";
  constructor(private readonly onLine: (line: string) => void) {}
  push(chunk: string): void {
    this.buf += chunk;
    let i: number;
    while ((i = this.buf.indexOf("\n")) >= 0) {
      this.onLine(this.buf.slice(0, i).replace(/\r$/, ""));
      this.buf = this.buf.slice(i + 1);
    }
  }
  flush(): void {
    if (this.buf) this.onLine(this.buf);
    this.buf = "";
  }
}

export interface BridgeProcessOptions {
  bin: string;
  args?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * The bridge outlives the extension host (--attach-dir): its own process
   * group, so a reload that ends the host does not end it; closing stdin only
   * detaches it, so stop() signals first.
   */
  detached?: boolean;
  onStderrLine: (line: string) => void;
  /** Called once when the process ends; expected is true after stop(). */
  onExit: (code: number | null, signal: NodeJS.Signals | null, expected: boolean) => void;
}

/** One run of the bridge process. */
export class BridgeProcess {
  readonly child: ChildProcess;
  private readonly detached: boolean;
  private stopping = false;
  private exited: Promise<void>;

  constructor(opts: BridgeProcessOptions) {
    this.child = spawn(opts.bin, opts.args ?? [], {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
      detached: !!opts.detached,
    });
    this.detached = !!opts.detached;
    const lines = new LineSplitter(opts.onStderrLine);
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (d: string) => lines.push(d));
    this.exited = new Promise((resolve) => {
      let done = false;
      const finish = (code: number | null, signal: NodeJS.Signals | null) => {
        if (done) return;
        done = true;
        lines.flush();
        opts.onExit(code, signal, this.stopping);
        resolve();
      };
      this.child.on("exit", finish);
      this.child.on("error", (err) => {
        opts.onStderrLine(`spawn failed: ${err.message}`);
        finish(null, null);
      });
    });
    // A closed pipe must not throw into the extension host.
    this.child.stdin!.on("error", () => {});
    this.child.stdout!.on("error", () => {});
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Leaves the process running (it outlives the extension host): closes our end of stdin, which detaches it. */
  detach(): void {
    this.stopping = true;
    this.child.stdin?.end();
    this.child.unref();
  }

  /**
   * Closes stdin (the ACP way to say goodbye), then SIGTERM, then SIGKILL.
   * expected=false reports the exit as a crash (e.g. a failed handshake).
   */
  async stop(graceMs = 2000, expected = true): Promise<void> {
    this.stopping = expected;
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.exited;
    // A bridge that outlives its editor only detaches when stdin closes: signal it.
    if (this.detached) this.child.kill("SIGTERM");
    this.child.stdin?.end();
    const timer = (ms: number) => new Promise<"timeout">((r) => setTimeout(() => r("timeout"), ms).unref?.());
    if ((await Promise.race([this.exited.then(() => "exited" as const), timer(graceMs)])) === "exited") return;
    this.child.kill("SIGTERM");
    if ((await Promise.race([this.exited.then(() => "exited" as const), timer(graceMs)])) === "exited") return;
    this.child.kill("SIGKILL");
    await this.exited;
  }
}

/**
 * How many times the bridge may be restarted after crashes: at most max
 * restarts; a run that lasted stableMs or longer gives the budget back.
 */
export class RestartBudget {
  private used = 0;
  constructor(
    readonly max = 5,
    private readonly stableMs = 5 * 60_000,
  ) {}

  /** Record a crash of a run that lasted ranMs; returns the delay before restarting, or undefined when the budget is spent. */
  onCrash(ranMs: number): number | undefined {
    if (ranMs >= this.stableMs) this.used = 0;
    if (this.used >= this.max) return undefined;
    this.used++;
    return Math.min(500 * 2 ** (this.used - 1), 8000);
  }

  get restarts(): number {
    return this.used;
  }

  reset(): void {
    this.used = 0;
  }
}
