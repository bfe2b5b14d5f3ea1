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
//
// A run outlives the extension host when attach is on (acpBridge.bridge.graceSeconds
// > 0): the bridge is started with --attach-dir in its own process group, and
// deactivation only detaches from it. The next activation (a window reload)
// re-attaches to it over its Unix socket with the token kept in SecretStorage
// (deps.attachRecord), instead of starting a new one; that run has no
// BridgeProcess, it ends when the socket closes. docs/vscode-extension.md,
// "Chats that last".

/** Where a bridge that outlives the extension host can be re-attached (the token lives in SecretStorage). */
export interface AttachRecord {
  socket: string;
  pid: number;
  token: string;
}

/** How a run was connected: a bridge we started, or one we re-attached to. */
export type ConnectedHow = { attached: false } | { attached: true; result: AttachResult };
import * as net from "node:net";
import { BridgeProcess, checkVersion, locateBridge, missingBridgeMessage, RestartBudget, type Candidate } from "./bootstrap";
import { BridgeConnection, stdioStream, type AttachResult, type ClientHandlers } from "./client";
import type { BridgeState } from "./protocol";
import { M, type BridgeInitMeta } from "./wire";

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
  onConnected(conn: BridgeConnection, init: BridgeInitMeta, how: ConnectedHow): Promise<void>;
  /**
   * The directory for the bridge's attach socket (0700, made by the bridge) and the
   * grace period; undefined = attach off, the bridge lives and dies with this host.
   */
  attach?(): { dir: string; graceSeconds: number } | undefined;
  /** The saved attach record of this workspace's bridge (undefined: none). */
  attachRecord?(): Promise<AttachRecord | undefined>;
  saveAttachRecord?(r: AttachRecord | undefined): Promise<void>;
  /** A run ended: drop what belonged to it. `expected` is false after a crash. */
  onGone(expected: boolean): void;
  /** Something the person must see: a missing binary, too many crashes, a restart. */
  onProblem(kind: "missing" | "crashed" | "restarting", message: string): void;
}

export class BridgeHost {
  private readonly budget = new RestartBudget(5);
  private proc?: BridgeProcess;
  /** A re-attached run: the bridge's pid (from its handover) and our socket. */
  private attached?: { pid: number; sock: net.Socket };
  private conn?: BridgeConnection;
  private bin?: Candidate & { version: string };
  private startedAt = 0;
  private generation = 0;
  private restartTimer?: NodeJS.Timeout;
  private disposed = false;
  private stoppingAttached = false;
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
    return this.proc?.child.pid ?? this.attached?.pid;
  }

  /** This run was re-attached (the bridge outlived the previous extension host). */
  get isReattached(): boolean {
    return !!this.attached;
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

  private locate() {
    return locateBridge({
      configured: this.deps.bridgePath(),
      extensionPath: this.deps.extensionPath,
      platform: process.platform,
      arch: process.arch,
      pathEnv: process.env["PATH"],
    });
  }

  private async doStart(): Promise<void> {
    if (this.proc || this.attached || this.disposed) return;
    const gen = ++this.generation;
    this.setState({ status: this.budget.restarts ? "restarting" : "starting" });
    if (await this.tryReattach(gen)) return;
    if (gen !== this.generation || this.disposed) return;
    const cand = this.locate();
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
    const att = this.deps.attach?.();
    const proc = new BridgeProcess({
      bin: cand!.path,
      args: att ? ["--attach-dir", att.dir, "--attach-grace", `${Math.max(1, Math.round(att.graceSeconds))}s`] : [],
      detached: !!att,
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
      if (att && init.meta.attach) {
        this.deps.log(`the bridge outlives this window for ${att.graceSeconds} s; attach socket ${init.meta.attach.socket}`);
        await this.deps.saveAttachRecord?.({ socket: init.meta.attach.socket, pid: init.meta.attach.pid ?? proc.pid ?? 0, token: init.meta.attach.token });
      }
      this.setState({ status: "running", version: init.meta.version ?? version });
      await this.deps.onConnected(conn, init.meta, { attached: false });
      this.settleWaiters();
    } catch (e) {
      this.deps.log(`bridge handshake failed: ${(e as Error).message}`);
      void proc.stop(500, false);
    }
  }

  /**
   * Re-attaches to this workspace's bridge if one outlived the previous extension
   * host. False (and the record is dropped) when there is none or it refuses.
   */
  private async tryReattach(gen: number): Promise<boolean> {
    if (!this.deps.attach?.() || !this.deps.attachRecord) return false;
    const rec = await this.deps.attachRecord().catch(() => undefined);
    if (!rec) return false;
    let sock: net.Socket | undefined;
    let conn: BridgeConnection | undefined;
    try {
      sock = await connectUnix(rec.socket, 3000);
      conn = BridgeConnection.connect(stdioStream(sock, sock), this.deps.handlers());
      const result = await withTimeout(conn.attach(rec.token), 10_000, M.attach);
      const init = await withTimeout(conn.initialize(this.deps.isTrusted()), 20_000, "initialize");
      if (gen !== this.generation || this.disposed) {
        conn.close();
        sock.destroy();
        return true;
      }
      this.attached = { pid: rec.pid, sock };
      this.conn = conn;
      // The binary this extension would start: "${bridge}" in agent commands (the demo agent) is
      // replaced with its path in the settings sent below, as after a start; without it a
      // re-attached window sent "${bridge}" itself and new sessions of such agents failed.
      const cand = this.locate();
      if (cand) this.bin = { ...cand, version: init.meta.version ?? "" };
      this.startedAt = Date.now();
      const s = sock;
      s.on("close", () => this.onExit(s, gen, null, null, false));
      this.deps.log(`re-attached to the bridge (pid ${rec.pid}) at ${rec.socket}: ${result.sessions.length} live session(s), ${result.pendingRequests} request(s) waiting, ${result.buffered} update(s) kept`);
      this.setState({ status: "running", version: init.meta.version });
      await this.deps.onConnected(conn, init.meta, { attached: true, result });
      this.settleWaiters();
      return true;
    } catch (e) {
      this.deps.log(`no bridge to re-attach to at ${rec.socket} (${(e as Error).message}); starting a new one`);
      conn?.close();
      sock?.destroy();
      this.attached = undefined;
      this.conn = undefined;
      await this.deps.saveAttachRecord?.(undefined);
      return false;
    }
  }

  private onExit(proc: BridgeProcess | net.Socket, gen: number, code: number | null, signal: string | null, expected: boolean): void {
    if (proc instanceof BridgeProcess ? this.proc !== proc : this.attached?.sock !== proc) return;
    if (!(proc instanceof BridgeProcess)) {
      expected = expected || this.stoppingAttached;
      this.stoppingAttached = false;
      this.deps.log(`the re-attached bridge closed its socket${expected ? "" : " unexpectedly"}`);
    } else {
      this.deps.log(`acp-bridge exited (code ${code}, signal ${signal})${expected ? "" : " unexpectedly"}`);
    }
    if (!expected || proc instanceof BridgeProcess) void this.deps.saveAttachRecord?.(undefined);
    this.proc = undefined;
    this.attached = undefined;
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
    const a = this.attached;
    if (a) {
      // Not our child: SIGTERM by the pid it handed over, and wait for its socket to close.
      this.stoppingAttached = true;
      const closed = new Promise<void>((r) => (a.sock.destroyed ? r() : a.sock.once("close", () => r())));
      try {
        process.kill(a.pid, "SIGTERM");
      } catch {
        /* gone already */
      }
      const t = await Promise.race([closed.then(() => "closed"), new Promise((r) => setTimeout(() => r("timeout"), 5000))]);
      if (t === "timeout") {
        try {
          process.kill(a.pid, "SIGKILL");
        } catch {
          /* gone */
        }
        a.sock.destroy();
      }
    }
    await this.deps.saveAttachRecord?.(undefined);
  }

  async restart(why: string, resetBudget = false): Promise<void> {
    this.deps.log(`restarting the bridge: ${why}`);
    if (resetBudget) this.budget.reset();
    await this.stop();
    this.proc = undefined;
    this.attached = undefined;
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

  /**
   * Deactivation. With attach on, the bridge is left running (it may be a window
   * reload): we only detach, and it exits by itself after its grace period unless
   * the next window re-attaches. Otherwise it is stopped.
   */
  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.deps.attach?.() && (this.proc || this.attached)) {
      this.generation++;
      if (this.restartTimer) clearTimeout(this.restartTimer);
      this.deps.log("detaching from the bridge; it keeps its sessions and approvals for the grace period");
      this.proc?.detach();
      this.attached?.sock.end();
      this.conn?.close();
      return;
    }
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

/** Connects to a Unix socket, failing after ms. */
export function connectUnix(path: string, ms: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.createConnection(path);
    const t = setTimeout(() => {
      s.destroy();
      reject(new Error(`connect ${path}: no answer within ${ms / 1000} s`));
    }, ms);
    s.once("connect", () => {
      clearTimeout(t);
      resolve(s);
    });
    s.once("error", (e) => {
      clearTimeout(t);
      reject(e);
    });
  });
}
