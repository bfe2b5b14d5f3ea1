// The extension's one context object: it owns the bridge process and its ACP
// connection, the chat model, the live permission requests, the status-bar
// item and the settings sync, and it is what commands and the chat view talk
// to. Everything here runs on the extension host's single JS thread; the
// logic that can live without `vscode` is in bootstrap/client/model/settings/
// approvals and is unit-tested there.

import * as os from "node:os";
import * as vscode from "vscode";
import { quickOption } from "./approvals";
import { ApprovalCoordinator } from "./coordinator";
import { BridgeProcess, checkVersion, locateBridge, missingBridgeMessage, RestartBudget, type Candidate } from "./bootstrap";
import { BridgeConnection, stdioStream } from "./client";
import { ChatStore } from "./model";
import { OPT, POLICY_MODES, type AgentSummary, type BridgeState, type HostMessage, type Scope, type WebviewMessage } from "./protocol";
import { agentMode, buildBridgeSettings, mergeAgents, personValue, planPersist, type RawSettings, type SettingsEdit } from "./settings";
import { sliceLines } from "./text";
import { agentStartMessage, bridgeConfigPath } from "./agentHints";
import { RequestError } from "@agentclientprotocol/sdk";
import type { AgentEntry, PersistRequest, WorkspaceTrustWire } from "./wire";

export const SECTION = "acpBridge";

/** The settings/persist answer that tells the bridge not to store the grant anywhere (bridge/policycheck.go). */
export const PERSIST_DECLINED = -32042;

export interface ChatSurface {
  post(m: HostMessage): void;
  readonly visible: boolean;
  reveal(): Promise<void>;
}

export class Ctx implements vscode.Disposable {
  readonly output: vscode.OutputChannel;
  readonly store: ChatStore;
  readonly approvals: ApprovalCoordinator;
  private readonly budget = new RestartBudget(5);
  private readonly statusItem: vscode.StatusBarItem;
  private disposables: vscode.Disposable[] = [];
  private proc?: BridgeProcess;
  private conn?: BridgeConnection;
  private bin?: Candidate & { version: string };
  private startedAt = 0;
  private generation = 0;
  private restartTimer?: NodeJS.Timeout;
  private disposed = false;
  private bridge: BridgeState = { status: "stopped" };
  private agents: AgentSummary[] = [];
  private defaultAgent = "demo";
  /** Agent the next "New Chat" uses (the picker / Select Agent). */
  currentAgent?: string;
  surface?: ChatSurface;
  /** Callers of connection() waiting for a start or restart to finish. */
  private waiters: { resolve: (c: BridgeConnection) => void; reject: (e: Error) => void }[] = [];

  constructor(private readonly ext: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel("ACP Bridge");
    this.store = new ChatStore((m) => this.post(m));
    this.approvals = new ApprovalCoordinator({
      store: this.store,
      respond: async (p) => (await this.connection()).respond(p),
      listApprovals: async () => (this.conn ? this.conn.listApprovals() : []),
      cancelSession: async (sessionId) => this.conn?.cancel(sessionId),
      changed: () => this.updateStatusBar(),
      arrived: (id) => this.maybeNotify(id),
    });
    this.statusItem = vscode.window.createStatusBarItem("acpBridge.pending", vscode.StatusBarAlignment.Left, 100);
    this.statusItem.name = "ACP Bridge approvals";
    this.statusItem.command = "acpBridge.showPendingApprovals";
    this.disposables.push(
      this.output,
      this.statusItem,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration(SECTION)) return;
        if (e.affectsConfiguration(`${SECTION}.bridgePath`)) void this.restart("acpBridge.bridgePath changed");
        else void this.pushSettings();
      }),
      // VS Code only grants trust at run time (revoking reloads the window).
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.workspaceTrustGranted()),
    );
    this.refreshAgentsFromSettings();
  }

  // ---- webview -----------------------------------------------------------------

  post(m: HostMessage): void {
    this.surface?.post(m);
  }

  fullState(): HostMessage {
    const snap = this.store.snapshot();
    return {
      type: "state",
      bridge: this.bridge,
      agents: this.agents,
      defaultAgent: this.currentAgent ?? this.defaultAgent,
      modes: [...POLICY_MODES],
      chats: snap.chats,
      activeChatId: snap.activeChatId,
    };
  }

  async onWebviewMessage(m: WebviewMessage): Promise<void> {
    switch (m.type) {
      case "ready":
        this.post(this.fullState());
        void this.reconcileApprovals();
        return;
      case "newChat":
        await this.newChat(m.agent);
        return;
      case "selectChat":
        this.store.setActive(m.chatId);
        return;
      case "closeChat":
        await this.closeChat(m.chatId);
        return;
      case "prompt": {
        // No chat open (or it was closed meanwhile): open one with the picked agent; never drop the text.
        let chatId = m.chatId;
        if (!chatId || !this.store.chat(chatId)) {
          const agent = m.agent || this.currentAgent || this.defaultAgent;
          chatId = this.store.createChat(agent, this.agentModeFor(agent), { bypass: this.agentBypass(agent) }).chatId;
        }
        await this.prompt(chatId, m.text);
        return;
      }
      case "cancel":
        await this.cancel(m.chatId);
        return;
      case "setMode":
        await this.setMode(m.chatId, m.mode);
        return;
      case "approve":
        if (m.optionId === OPT.bypass && !(await this.confirmBypass(m.approvalId, m.scope))) return;
        if ((m.optionId === OPT.allowAlways || m.optionId === OPT.rejectAlways) && !(await this.ruleIsValid(m.approvalId, m.rule, m.optionId === OPT.allowAlways ? "allow" : "deny"))) return;
        await this.answer(m.approvalId, m.optionId, m.rule, m.scope);
        return;
      case "openFile": {
        const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(m.path));
        const line = Math.max(0, (m.line ?? 1) - 1);
        await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0), preview: true });
        return;
      }
    }
  }

  // ---- bridge lifecycle ----------------------------------------------------------

  private setBridge(b: BridgeState): void {
    this.bridge = b;
    this.post({ type: "bridge", bridge: b });
  }

  private workspaceCwd(): string {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
  }

  /** Starts the bridge if it is not running. Resolves once it is connected (or failed). */
  start(): Promise<void> {
    if (!this.starting) this.starting = this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private starting?: Promise<void>;

  private async doStart(): Promise<void> {
    if (this.proc || this.disposed) return;
    const gen = ++this.generation;
    this.setBridge({ status: this.budget.restarts ? "restarting" : "starting" });
    const cfg = vscode.workspace.getConfiguration(SECTION);
    const cand = locateBridge({
      configured: cfg.get<string>("bridgePath"),
      extensionPath: this.ext.extensionPath,
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
      this.output.appendLine(msg);
      this.setBridge({ status: "failed", message: msg });
      this.settleWaiters(new Error(msg));
      void vscode.window.showErrorMessage(msg, "Open Settings", "Show Log").then((pick) => {
        if (pick === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettings", "acpBridge.bridgePath");
        if (pick === "Show Log") this.output.show(true);
      });
      return;
    }
    if (gen !== this.generation || this.disposed) return;
    this.bin = { ...cand!, version };
    this.output.appendLine(`starting ${cand!.path} (${cand!.source}, ${version}) in ${this.workspaceCwd()}`);
    this.startedAt = Date.now();
    const proc = new BridgeProcess({
      bin: cand!.path,
      cwd: this.workspaceCwd(),
      onStderrLine: (l) => this.output.appendLine(l),
      onExit: (code, signal, expected) => this.onExit(proc, gen, code, signal, expected),
    });
    this.proc = proc;
    const conn = BridgeConnection.connect(stdioStream(proc.child.stdin!, proc.child.stdout!), {
      readTextFile: (p) => this.readTextFile(p.path, p.line, p.limit),
      writeTextFile: (p) => this.writeTextFile(p.path, p.content),
      requestPermission: (p, signal) => this.approvals.onRequest(p, signal),
      sessionUpdate: (p) => this.store.applySessionUpdate(p.sessionId, p.update),
      approvalResolved: (r) => this.approvals.onResolved(r),
      agentStatus: (a) => this.onAgentStatus(a),
      persist: (p) => this.persist(p),
      rulesInvalid: (problems) => {
        for (const p of problems) this.output.appendLine(`bad permission rule: ${p}`);
        void vscode.window.showWarningMessage(
          `ACP Bridge: ${problems.length} permission rule(s) could not be read; they never allow anything, and a bad deny/ask rule makes its tool ask. ${problems[0]}`,
          "Open Settings", "Show Log").then((pick) => {
          if (pick === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettingsJson");
          if (pick === "Show Log") this.output.show(true);
        });
      },
      workspaceTrust: (t) => this.showWorkspaceTrust(t),
      settingsInvalid: (error) => {
        this.output.appendLine(`the bridge refused the acpBridge settings: ${error}`);
        void vscode.window.showErrorMessage(`ACP Bridge refused the acpBridge.* settings (the previous ones stay in force): ${error}`, "Open Settings", "Show Log").then((pick) => {
          if (pick === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettingsJson");
          if (pick === "Show Log") this.output.show(true);
        });
      },
    });
    this.conn = conn;
    try {
      const init = await withTimeout(conn.initialize(vscode.workspace.isTrusted), 20_000, "initialize");
      if (gen !== this.generation) return;
      if (init.meta.workspaceTrust) this.showWorkspaceTrust(init.meta.workspaceTrust);
      if (init.meta.defaultAgent) this.defaultAgent = init.meta.defaultAgent;
      this.output.appendLine(`connected: acp-bridge ${init.meta.version ?? version}`);
      await this.pushSettings();
      this.setBridge({ status: "running", version: init.meta.version ?? version });
      this.settleWaiters();
      await this.refreshAgents();
      await this.reconcileApprovals();
    } catch (e) {
      this.output.appendLine(`bridge handshake failed: ${(e as Error).message}`);
      void proc.stop(500, false);
    }
  }

  private onExit(proc: BridgeProcess, gen: number, code: number | null, signal: string | null, expected: boolean): void {
    if (this.proc !== proc) return;
    this.output.appendLine(`acp-bridge exited (code ${code}, signal ${signal})${expected ? "" : " unexpectedly"}`);
    this.proc = undefined;
    this.conn?.close();
    this.conn = undefined;
    this.approvals.live.releaseAll();
    this.store.expireAll("shutdown");
    for (const id of this.store.chatIds()) {
      const chat = this.store.chat(id);
      if (chat?.sessionId) {
        this.store.updateChat(id, { sessionId: undefined, busy: false });
        if (!expected) this.store.addNotice(id, "The bridge stopped; the next message starts a new session.", "warn");
      }
    }
    this.updateStatusBar();
    if (expected || this.disposed || gen !== this.generation) {
      if (!this.disposed && gen === this.generation) this.setBridge({ status: "stopped" });
      return;
    }
    const delay = this.budget.onCrash(Date.now() - this.startedAt);
    if (delay === undefined) {
      const msg = `ACP Bridge crashed ${this.budget.max + 1} times; not restarting it again. See the "ACP Bridge" output, then run "ACP Bridge: Restart Bridge".`;
      this.setBridge({ status: "failed", message: msg });
      this.settleWaiters(new Error(msg));
      void vscode.window.showErrorMessage(msg, "Show Log", "Restart Bridge").then((pick) => {
        if (pick === "Show Log") this.output.show(true);
        if (pick === "Restart Bridge") void this.restart("restart requested", true);
      });
      return;
    }
    const msg = `ACP Bridge exited unexpectedly; restarting (${this.budget.restarts}/${this.budget.max}).`;
    this.setBridge({ status: "restarting", message: msg });
    void vscode.window.showWarningMessage(msg);
    this.restartTimer = setTimeout(() => void this.start(), delay);
  }

  async stop(): Promise<void> {
    this.generation++;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const p = this.proc;
    if (p) await p.stop();
  }

  async restart(why: string, resetBudget = false): Promise<void> {
    this.output.appendLine(`restarting the bridge: ${why}`);
    if (resetBudget) this.budget.reset();
    await this.stop();
    this.proc = undefined;
    await this.start();
  }

  /** The connection, waiting for a start in progress; throws when the bridge is not available. */
  async connection(): Promise<BridgeConnection> {
    if (this.conn && this.bridge.status === "running") return this.conn;
    if (this.bridge.status === "failed") throw new Error(this.bridge.message ?? "the bridge is not running");
    const waiting = new Promise<BridgeConnection>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (!this.proc && this.bridge.status !== "restarting") void this.start();
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

  // ---- settings --------------------------------------------------------------------

  readRawSettings(): RawSettings {
    const cfg = vscode.workspace.getConfiguration(SECTION);
    const trusted = vscode.workspace.isTrusted;
    const i = <T>(k: string) => {
      const x = cfg.inspect<T>(k);
      return { defaultValue: x?.defaultValue, globalValue: x?.globalValue, workspaceValue: x?.workspaceValue, workspaceFolderValue: x?.workspaceFolderValue };
    };
    return {
      agents: i("agents"),
      permissions: i("permissions"),
      defaultAgent: cfg.get<string>("defaultAgent"),
      // Restricted settings: an untrusted workspace's values do not count.
      timeoutSeconds: trusted ? personValue(i<number>("approvals.timeoutSeconds")) : i<number>("approvals.timeoutSeconds").globalValue,
      timeoutOutcome: trusted ? personValue(i<string>("approvals.timeoutOutcome")) : i<string>("approvals.timeoutOutcome").globalValue,
      logLevel: personValue(i<string>("logLevel")),
      // Machine scope: only the user's value, never a workspace's.
      auditPath: i<string>("audit.path").globalValue || undefined,
    };
  }

  bridgeSettings() {
    return buildBridgeSettings(this.readRawSettings(), this.bin?.path, vscode.workspace.isTrusted);
  }

  private refreshAgentsFromSettings(): void {
    const s = this.bridgeSettings();
    this.defaultAgent = s.defaultAgent;
    const prev = new Map(this.agents.map((a) => [a.id, a]));
    this.agents = Object.entries(s.agents).map(([id, a]) => ({
      id,
      name: prev.get(id)?.name ?? id,
      status: prev.get(id)?.status,
      mode: agentMode(s, id),
    }));
    if (this.currentAgent && !s.agents[this.currentAgent]) this.currentAgent = undefined;
    this.post({ type: "agents", agents: this.agents, defaultAgent: this.currentAgent ?? this.defaultAgent });
  }

  /** Tells the bridge, then resends the settings: the workspace's own acpBridge.* values now count too. */
  private async workspaceTrustGranted(): Promise<void> {
    this.output.appendLine("workspace trusted: the workspace's .acp-bridge.yaml and acpBridge.* settings now apply in full");
    if (this.conn) await this.conn.workspaceTrustChanged(true);
    await this.pushSettings();
  }

  private lastTrustReport = "";

  /** Logs and, once per distinct report, shows what of the workspace's .acp-bridge.yaml the bridge ignores. */
  private showWorkspaceTrust(t: WorkspaceTrustWire): void {
    const key = JSON.stringify(t);
    if (key === this.lastTrustReport) return;
    this.lastTrustReport = key;
    if (!t.ignored.length) return;
    for (const i of t.ignored) this.output.appendLine(`workspace setting ignored: ${i.file}${i.line ? ":" + i.line : ""}: ${i.key}: ${i.reason}`);
    const keys = t.ignored.map((i) => i.key).join(", ");
    const msg = t.trusted
      ? `ACP Bridge ignores ${keys} from the workspace's .acp-bridge.yaml (never read from a workspace file).`
      : `This workspace is not trusted: ACP Bridge ignores ${keys} from its .acp-bridge.yaml (an untrusted workspace may only narrow the policy).`;
    void vscode.window.showWarningMessage(msg, "Show Log").then((pick) => {
      if (pick === "Show Log") this.output.show(true);
    });
  }

  async pushSettings(): Promise<void> {
    this.refreshAgentsFromSettings();
    if (!this.conn) return;
    const settings = this.bridgeSettings();
    await this.conn.settingsDidChange(settings);
    this.output.appendLine(`settings sent: agents ${Object.keys(settings.agents).join(", ")}; default ${settings.defaultAgent}`);
  }

  async applyEdit(edit: SettingsEdit): Promise<void> {
    if (edit.scope === "workspace" && !vscode.workspace.workspaceFolders?.length) throw new Error("no workspace folder is open to store a workspace setting");
    const target = edit.scope === "workspace" ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await vscode.workspace.getConfiguration(SECTION).update(edit.key, edit.value, target);
  }

  /**
   * Stores a grant the bridge asks for. A failed write is an error with a choice
   * (retry, the bridge's config file, or not at all), never a silent fallback,
   * and the person is told where the grant went.
   */
  private async persist(req: PersistRequest): Promise<{ persisted: true }> {
    const what = req.kind === "bypass" ? `Bypass permissions for ${req.agent}` : `${req.list === "deny" ? "Always deny" : req.list === "ask" ? "Ask" : "Always allow"} ${req.rule}${req.agent ? ` (agent ${req.agent})` : ""}`;
    const scope = req.scope ?? "user";
    const file = bridgeConfigPath(scope, process.env, os.homedir(), vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
    let edit: SettingsEdit;
    try {
      edit = planPersist(req, this.readRawSettings(), vscode.workspace.isTrusted);
    } catch (e) {
      // By design (workspace trust): the bridge stores it in its own file. Say so.
      this.output.appendLine(`not in VS Code settings: ${what}: ${(e as Error).message}; the bridge stores it in ${file}`);
      void vscode.window.showInformationMessage(`ACP Bridge: ${what} is stored in ${file} (${(e as Error).message}).`);
      throw e;
    }
    for (;;) {
      try {
        await this.applyEdit(edit);
        this.output.appendLine(`persisted ${what} in ${edit.scope} settings`);
        void vscode.window.showInformationMessage(`ACP Bridge: ${what} is stored in your ${edit.scope} settings (settings.json, acpBridge.${edit.key}). Revoke it in "ACP Bridge: Manage Permission Rules".`);
        return { persisted: true };
      } catch (e) {
        const msg = (e as Error).message;
        this.output.appendLine(`could not write ${what} to ${edit.scope} settings: ${msg}`);
        const retry = "Retry";
        const bridgeFile = "Store in the bridge's config file";
        const pick = await vscode.window.showErrorMessage(
          `ACP Bridge could not write ${what} to your ${edit.scope} settings.`,
          { modal: true, detail: `${msg}\n\nRetry after fixing settings.json, store it in ${file} instead, or cancel: then it is not stored and no longer applies.` },
          retry,
          bridgeFile,
        );
        if (pick === retry) continue;
        if (pick === bridgeFile) {
          void vscode.window.showInformationMessage(`ACP Bridge: ${what} is stored in ${file}. Revoke it in "ACP Bridge: Manage Permission Rules".`);
          throw new RequestError(-32603, `the person chose the bridge's config file: ${msg}`);
        }
        void vscode.window.showWarningMessage(`ACP Bridge: ${what} was not stored and no longer applies.`);
        throw new RequestError(PERSIST_DECLINED, "the person declined to store the grant");
      }
    }
  }

  // ---- agents ----------------------------------------------------------------------

  async refreshAgents(): Promise<void> {
    if (!this.conn) return;
    try {
      const list = await this.conn.listAgents();
      for (const a of list) this.onAgentStatus(a, false);
      this.post({ type: "agents", agents: this.agents, defaultAgent: this.currentAgent ?? this.defaultAgent });
    } catch (e) {
      this.output.appendLine(`agents/list failed: ${(e as Error).message}`);
    }
  }

  private onAgentStatus(a: AgentEntry, post = true): void {
    const cur = this.agents.find((x) => x.id === a.id);
    if (cur) {
      cur.status = a.status ?? cur.status;
      if (a.name) cur.name = a.name;
      cur.lastError = a.lastError;
    } else {
      this.agents.push({ id: a.id, name: a.name ?? a.id, status: a.status, lastError: a.lastError });
    }
    if (post) this.post({ type: "agents", agents: this.agents, defaultAgent: this.currentAgent ?? this.defaultAgent });
  }

  agentList(): AgentSummary[] {
    return this.agents;
  }

  agentModeFor(agent: string): string {
    return this.agents.find((a) => a.id === agent)?.mode ?? "default";
  }

  // ---- chats -----------------------------------------------------------------------

  async newChat(agent?: string): Promise<string> {
    const id = agent || this.currentAgent || this.defaultAgent;
    const chat = this.store.createChat(id, this.agentModeFor(id), { bypass: this.agentBypass(id) });
    await this.ensureSession(chat.chatId);
    return chat.chatId;
  }

  private async ensureSession(chatId: string): Promise<string | undefined> {
    const chat = this.store.chat(chatId);
    if (!chat) return undefined;
    if (chat.sessionId) return chat.sessionId;
    try {
      const conn = await this.connection();
      const res = await conn.newSession(this.workspaceCwd(), chat.agent, chat.mode !== this.agentModeFor(chat.agent) ? chat.mode : undefined);
      this.store.updateChat(chatId, { sessionId: res.sessionId, mode: res.mode ?? chat.mode, error: undefined });
      return res.sessionId;
    } catch (e) {
      const cfg = this.configuredAgents()[chat.agent];
      const cmd = cfg?.command === "${bridge}" ? undefined : cfg?.command;
      const msg = agentStartMessage(chat.agent, (e as Error).message, cmd, cfg?.args ?? []);
      // One message per distinct failure: a retry that fails the same way says nothing new.
      if (chat.error !== msg) {
        this.output.appendLine(`session/new with ${chat.agent} failed: ${(e as Error).message}`);
        this.store.addNotice(chatId, msg, "error");
      }
      this.store.updateChat(chatId, { error: msg });
      return undefined;
    }
  }

  async prompt(chatId: string, text: string): Promise<void> {
    const chat = this.store.chat(chatId);
    if (!chat || !text.trim()) return;
    this.store.addUserMessage(chatId, text);
    this.store.updateChat(chatId, { busy: true, error: undefined });
    if (chat.title === chat.agent) this.store.updateChat(chatId, { title: `${chat.agent}: ${text.slice(0, 24)}` });
    try {
      const sessionId = await this.ensureSession(chatId);
      if (!sessionId) return;
      const conn = await this.connection();
      const res = await conn.prompt(sessionId, text);
      if (res.stopReason === "cancelled") {
        this.store.cancelTools(chatId);
        this.store.addNotice(chatId, "Turn cancelled.", "info");
      } else if (res.stopReason && res.stopReason !== "end_turn") {
        this.store.addNotice(chatId, `Turn ended: ${res.stopReason}.`, "info");
      }
    } catch (e) {
      this.store.addNotice(chatId, `Error: ${(e as Error).message}`, "error");
    } finally {
      this.store.updateChat(chatId, { busy: false });
    }
  }

  async cancel(chatId: string): Promise<void> {
    if (!this.conn) return;
    await this.approvals.cancelChat(chatId);
  }

  async setMode(chatId: string, mode: string): Promise<void> {
    const chat = this.store.chat(chatId);
    if (!chat) return;
    if (!chat.sessionId) {
      this.store.updateChat(chatId, { mode }); // no session yet: session/new carries it
      return;
    }
    try {
      const conn = await this.connection();
      await conn.setMode(chat.sessionId, mode);
      // Shown once the bridge accepted it (not when the dropdown changed).
      this.store.updateChat(chatId, { mode });
      this.store.addNotice(chatId, `Mode: ${mode}`, "quiet");
    } catch (e) {
      this.store.updateChat(chatId, { mode: chat.mode });
      this.store.addNotice(chatId, `Could not set mode ${mode}: ${(e as Error).message}`, "error");
    }
  }

  async closeChat(chatId: string): Promise<void> {
    const chat = this.store.chat(chatId);
    if (!chat) return;
    if (chat.sessionId && this.conn) {
      if (chat.busy) await this.cancel(chatId);
      void this.conn.closeSession(chat.sessionId).catch(() => {});
    }
    this.store.closeChat(chatId);
  }

  // ---- approvals -------------------------------------------------------------------

  /**
   * Bypass is the widest grant there is: it takes a second, explicit yes. A pick
   * list whose first (focused) entry is Cancel, so Enter or Escape cancel.
   */
  private async confirmBypass(approvalId: string, scope?: Scope): Promise<boolean> {
    const agent = this.store.approval(approvalId)?.meta.agent ?? "this agent";
    const where = scope === "workspace" ? "this workspace's settings" : "your user settings";
    const yes = `$(warning) Bypass permissions for ${agent}`;
    const pick = await vscode.window.showQuickPick(
      [
        { label: "Cancel", description: "keep asking" },
        { label: yes, detail: `${agent} will run every tool call without asking, in every session, until you revoke it (ACP Bridge: Manage Permission Rules). Deny rules and circuit breakers still apply. To be stored in ${where}.` },
      ],
      { title: `Bypass permissions for ${agent}?`, placeHolder: "Cancel keeps asking. Pick the bypass entry only if you mean it.", ignoreFocusOut: true },
    );
    return pick?.label === yes;
  }

  /** Checks an "Always allow/deny" rule with the bridge's engine before it is stored; a bad rule stays on the card with the error. */
  private async ruleIsValid(approvalId: string, rule: string | undefined, list: "allow" | "deny"): Promise<boolean> {
    if (!rule?.trim()) {
      this.store.approvalError(approvalId, "Not saved: the rule is empty. Write the rule to store, e.g. Bash(npm run test *).");
      return false;
    }
    try {
      const res = await (await this.connection()).checkRule(rule, list);
      if (res.ok) return true;
      this.store.approvalError(approvalId, `Not saved: "${rule}" is not a valid rule: ${res.error ?? "malformed"}. Fix it and choose again.`);
      return false;
    } catch (e) {
      if (e instanceof RequestError && e.code === -32601) return true; // an older bridge without policy/check: it reports bad rules itself
      this.store.approvalError(approvalId, `Not saved: could not check the rule: ${(e as Error).message}`);
      return false;
    }
  }

  /** Whether the agent's settings give it bypass permissions. */
  agentBypass(agent: string): boolean {
    return !!this.configuredAgents()[agent]?.bypassPermissions;
  }

  /** The person chose an option on a card. */
  async answer(approvalId: string, optionId: string, rule?: string, scope?: Scope): Promise<boolean> {
    return (await this.approvals.answer(approvalId, optionId, { rule, scope })) === undefined;
  }

  /** Brings back cards the webview should show (reload, late open, restart): _acp-bridge/approvals/list. */
  async reconcileApprovals(): Promise<void> {
    if (!this.conn || this.bridge.status !== "running") return;
    try {
      await this.approvals.reconcile();
    } catch (e) {
      this.output.appendLine(`approvals/list failed: ${(e as Error).message}`);
    }
  }

  pendingCount(): number {
    return this.approvals.pendingCount();
  }

  private updateStatusBar(): void {
    const n = this.pendingCount();
    if (n === 0) {
      this.statusItem.hide();
      return;
    }
    this.statusItem.text = `$(bell-dot) ${n} approval${n === 1 ? "" : "s"} pending`;
    this.statusItem.tooltip = "ACP Bridge: agents are waiting for your answer. Click to show them.";
    this.statusItem.backgroundColor = new vscode.ThemeColor("statusBarItem.warningBackground");
    this.statusItem.show();
  }

  /** A notification with Allow / Deny when the chat is hidden or the window is not focused. */
  private maybeNotify(approvalId: string): void {
    const a = this.store.approval(approvalId);
    if (!a || a.state !== "pending") return;
    if (this.surface?.visible && vscode.window.state.focused) return;
    const allow = quickOption(a.options, "allow");
    const deny = quickOption(a.options, "deny");
    const buttons = [allow ? "Allow" : undefined, deny ? "Deny" : undefined, "Show"].filter((x): x is string => !!x);
    const who = a.meta.agent ?? "An agent";
    const what = a.meta.specifier ?? a.tool.command ?? a.tool.title;
    void vscode.window.showWarningMessage(`${who} asks: ${what}`, ...buttons).then(async (pick) => {
      if (pick === "Allow" && allow) await this.answerFromElsewhere(approvalId, allow);
      else if (pick === "Deny" && deny) await this.answerFromElsewhere(approvalId, deny);
      else if (pick === "Show") await this.showApproval(approvalId);
    });
  }

  /** Answers from outside the chat (notification): always through _acp-bridge/approvals/respond. */
  private async answerFromElsewhere(approvalId: string, optionId: string): Promise<void> {
    const err = await this.approvals.answer(approvalId, optionId, { viaRespond: true });
    if (err) void vscode.window.showWarningMessage(`ACP Bridge: ${err}`);
  }

  async showApproval(approvalId: string): Promise<void> {
    const a = this.store.approval(approvalId);
    if (!a) return;
    await this.surface?.reveal();
    this.store.setActive(a.chatId);
    this.post({ type: "focusApproval", chatId: a.chatId, approvalId });
  }

  // ---- fs ---------------------------------------------------------------------------

  private async readTextFile(path: string, line?: number | null, limit?: number | null): Promise<{ content: string }> {
    const uri = vscode.Uri.file(path);
    const open = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === uri.fsPath);
    const text = open ? open.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    return { content: sliceLines(text, line, limit) };
  }

  private async writeTextFile(path: string, content: string): Promise<void> {
    await vscode.workspace.fs.writeFile(vscode.Uri.file(path), new TextEncoder().encode(content));
  }

  // ---- misc ---------------------------------------------------------------------------

  get bridgeBinary(): (Candidate & { version: string }) | undefined {
    return this.bin;
  }

  get isConnected(): boolean {
    return !!this.conn && this.bridge.status === "running";
  }

  /** The live connection, if any (commands that are useless without one). */
  get connectionNow(): BridgeConnection | undefined {
    return this.conn;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.approvals.live.releaseAll();
    await this.stop();
    for (const d of this.disposables) d.dispose();
  }

  configuredAgents() {
    return mergeAgents(this.readRawSettings().agents);
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(t)),
    new Promise<T>((_, reject) => {
      t = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms);
    }),
  ]);
}
