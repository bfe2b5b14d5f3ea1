// The bridge process and its ACP connection, across restarts. No vscode import:
// what it needs from the editor comes in through BridgeHostDeps, so it is
// unit-tested against the real acp-bridge binary.
//
// Lifecycle: one BridgeHost per extension activation. Each start makes one
// *bridge run*: a BridgeProcess and a BridgeConnection, numbered by
// `generation`. A run ends with the process (crash, stop, restart); then the
// per-run state elsewhere is dropped through deps.onGone (live permission
// requests, open cards, session ids), and after a crash a new run starts with
// backoff (RestartBudget: at most 5 in a row).

import { BridgeProcess, checkVersion, locateBridge, missingBridgeMessage, RestartBudget, type Candidate } from "./bootstrap";
import { BridgeConnection, stdioStream, type ClientHandlers } from "./client";
import type { BridgeState } from "./protocol";
import type { BridgeInitMeta } from "./wire";

export interface BridgeHostDeps {
  extensionPath: string;
  /** acpBridge.bridgePath (empty: bundled, else PATH). */
  bridgePath(): string | undefined;
  /** The bridge's cwd: the first workspace folder, else the home directory. */
  cwd(): string;
  isTrusted(): boolean;
  log(line: string): void;
  /** Handlers of the bridge's requests and notifications, for a new run. */
  handlers(): ClientHandlers;
  /** Every change of the bridge's state (for the webview). */
  onState(b: BridgeState): void;
  /** A new run is connected and initialized: send settings, list agents, reconcile approvals. */
  onConnected(conn: BridgeConnection, init: BridgeInitMeta): Promise<void>;
  /** A run ended: drop what belonged to it. `expected` is false after a crash. */
  onGone(expected: boolean): void;
  /** Something the person must see: a missing binary, too many crashes, a restart. */
  onProblem(kind: "missing" | "crashed" | "restarting", message: string): void;
}

export class BridgeHost {
  private readonly budget = new RestartBudget(5);
  private proc?: BridgeProcess;
  private conn?: BridgeConnection;
  private bin?: Candidate & { version: string };
  private startedAt = 0;
  private generation = 0;
  private restartTimer?: NodeJS.Timeout;
  private disposed = false;
  private starting?: Promise<void>;
  private state: BridgeState = { status: "stopped" };
  /** Callers of connection() waiting for a start or restart to finish. */
  private waiters: { resolve: (c: BridgeConnection) => void; reject: (e: Error) => void }[] = [];

  constructor(private readonly deps: BridgeHostDeps) {}

  get bridge(): BridgeState {
    return this.state;
  }

  get binary(): (Candidate & { version: string }) | undefined {
    return this.bin;
  }

  /** The bridge process's pid in this run (diagnostics, tests). */
  get pid(): number | undefined {
    return this.proc?.child.pid;
  }

  get isConnected(): boolean {
    return !!this.conn && this.state.status === "running";
  }

  /** The live connection, if any (for things that are useless without one). */
  get connectionNow(): BridgeConnection | undefined {
    return this.conn;
  }

  private setState(b: BridgeState): void {
    this.state = b;
    this.deps.onState(b);
  }

  /** Starts the bridge if it is not running. Resolves once it is connected (or failed). */
  start(): Promise<void> {
    if (!this.starting) this.starting = this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<void> {
    if (this.proc || this.disposed) return;
    const gen = ++this.generation;
    this.setState({ status: this.budget.restarts ? "restarting" : "starting" });
    const cand = locateBridge({
      configured: this.deps.bridgePath(),
      extensionPath: this.deps.extensionPath,
      platform: process.platform,
      arch: process.arch,
      pathEnv: process.env["PATH"],
    });
    let version: string;
    try {
      if (!cand) throw new Error("not found");
      version = await checkVersion(cand.path);
    } catch (e) {
      const msg = missingBridgeMessage(cand, cand ? (e as Error) : undefined);
      this.deps.log(msg);
      this.setState({ status: "failed", message: msg });
      this.settleWaiters(new Error(msg));
      this.deps.onProblem("missing", msg);
      return;
    }
    if (gen !== this.generation || this.disposed) return;
    this.bin = { ...cand!, version };
    const cwd = this.deps.cwd();
    this.deps.log(`starting ${cand!.path} (${cand!.source}, ${version}) in ${cwd}`);
    this.startedAt = Date.now();
    const proc = new BridgeProcess({
      bin: cand!.path,
      cwd,
      onStderrLine: (l) => this.deps.log(l),
      onExit: (code, signal, expected) => this.onExit(proc, gen, code, signal, expected),
    });
    this.proc = proc;
    const conn = BridgeConnection.connect(stdioStream(proc.child.stdin!, proc.child.stdout!), this.deps.handlers());
    this.conn = conn;
    try {
      const init = await withTimeout(conn.initialize(this.deps.isTrusted()), 20_000, "initialize");
      if (gen !== this.generation) return;
      this.deps.log(`connected: acp-bridge ${init.meta.version ?? version}`);
      this.setState({ status: "running", version: init.meta.version ?? version });
      await this.deps.onConnected(conn, init.meta);
      this.settleWaiters();
    } catch (e) {
      this.deps.log(`bridge handshake failed: ${(e as Error).message}`);
      void proc.stop(500, false);
    }
  }

  private onExit(proc: BridgeProcess, gen: number, code: number | null, signal: string | null, expected: boolean): void {
    if (this.proc !== proc) return;
    this.deps.log(`acp-bridge exited (code ${code}, signal ${signal})${expected ? "" : " unexpectedly"}`);
    this.proc = undefined;
    this.conn?.close();
    this.conn = undefined;
    this.deps.onGone(expected);
    if (expected || this.disposed || gen !== this.generation) {
      if (!this.disposed && gen === this.generation) this.setState({ status: "stopped" });
      return;
    }
    const delay = this.budget.onCrash(Date.now() - this.startedAt);
    if (delay === undefined) {
      const msg = `ACP Bridge crashed ${this.budget.max + 1} times; not restarting it again. See the "ACP Bridge" output, then run "ACP Bridge: Restart Bridge".`;
      this.setState({ status: "failed", message: msg });
      this.settleWaiters(new Error(msg));
      this.deps.onProblem("crashed", msg);
      return;
    }
    const msg = `ACP Bridge exited unexpectedly; restarting (${this.budget.restarts}/${this.budget.max}).`;
    this.setState({ status: "restarting", message: msg });
    this.deps.onProblem("restarting", msg);
    this.restartTimer = setTimeout(() => void this.start(), delay);
  }

  async stop(): Promise<void> {
    this.generation++;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const p = this.proc;
    if (p) await p.stop();
  }

  async restart(why: string, resetBudget = false): Promise<void> {
    this.deps.log(`restarting the bridge: ${why}`);
    if (resetBudget) this.budget.reset();
    await this.stop();
    this.proc = undefined;
    await this.start();
  }

  /** The connection, waiting for a start in progress; throws when the bridge is not available. */
  async connection(): Promise<BridgeConnection> {
    if (this.conn && this.state.status === "running") return this.conn;
    if (this.state.status === "failed") throw new Error(this.state.message ?? "the bridge is not running");
    const waiting = new Promise<BridgeConnection>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (!this.proc && this.state.status !== "restarting") void this.start();
    return withTimeout(waiting, 30_000, "waiting for the bridge");
  }

  private settleWaiters(err?: Error): void {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) {
      if (err || !this.conn) w.reject(err ?? new Error("the bridge is not running"));
      else w.resolve(this.conn);
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.stop();
  }
}

export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(t)),
    new Promise<T>((_, reject) => {
      t = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms);
    }),
  ]);
}
