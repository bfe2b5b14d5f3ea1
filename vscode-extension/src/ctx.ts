// The extension's context: it composes the parts and routes between them.
// Commands (extension.ts) and the chat view (chatView.ts) talk to it.
//
// Lifecycle (what lives how long):
// - per extension activation (created here, disposed on deactivate): the
//   Output channel, the ChatStore (chats and transcripts survive bridge
//   restarts and webview reloads), StatusSurface (status bar, notifications),
//   ApprovalUi (and its ApprovalCoordinator), Chats, the settings listeners,
//   and BridgeHost itself;
// - per bridge run (BridgeHost: one process + one ACP connection, replaced on
//   crash or restart): the BridgeConnection, live permission requests
//   (released by ApprovalUi.bridgeGone), chats' sessionIds (cleared by
//   Chats.bridgeGone; the next message starts a new session), the agents'
//   status from agents/list;
// - per webview instance (hidden, reloaded, opened late): nothing; it asks
//   for a snapshot ("ready" -> fullState) and approvals/list fills the gaps.
//
// Activation is lazy: package.json activates on the chat view or a command,
// never at startup, so a window that never opens the chat starts no bridge.

import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { RequestError } from "@agentclientprotocol/sdk";
import { bridgeConfigPath } from "./agentHints";
import { ApprovalUi } from "./approvalUi";
import { BridgeHost } from "./bridgeHost";
import { Chats } from "./chats";
import { CheckpointUi } from "./checkpointUi";
import type { DiffDocuments } from "./diffEditor";
import { Lasting } from "./lasting";
import { ChatStore } from "./model";
import { PromptContext } from "./promptContext";
import { agentInstalled } from "./agentPresets";
import { POLICY_MODES, type AgentSummary, type HostMessage, type WebviewMessage } from "./protocol";
import { editorValues, planPersist, withWorkspaceValue, type RawSettings, type SettingsEdit } from "./settings";
import { StatusSurface } from "./status";
import { WorkspacePins } from "./pins";
import { readTextFile, vscodeFsHost, writeTextFile } from "./fsOps";
import { ERR, type AgentEntry, type PersistRequest } from "./wire";
import type { ConfiguredAgent, EditorValue, SettingsLayersResult } from "./wire.gen";

export const SECTION = "acpBridge";

/** The settings/persist answer that tells the bridge not to store the grant anywhere (bridge/policycheck.go). */
export const PERSIST_DECLINED = ERR.persistDeclined;

export interface ChatSurface {
  post(m: HostMessage): void;
  readonly visible: boolean;
  /** focus: keyboard focus goes into the chat (else it stays where it is). */
  reveal(focus?: boolean): Promise<void>;
}

export class Ctx implements vscode.Disposable {
  readonly output: vscode.OutputChannel;
  readonly store: ChatStore;
  readonly host: BridgeHost;
  readonly status: StatusSurface;
  readonly approvals: ApprovalUi;
  readonly chats: Chats;
  /** @file, selection and open editors for prompts (promptContext.ts). */
  readonly context: PromptContext;
  /** The diff editor for cards' edits (diffEditor.ts), set by extension.ts. */
  diffs?: DiffDocuments;
  readonly lasting: Lasting;
  /** Checkpoints, a turn's changes, closed chats' history (checkpointUi.ts). */
  readonly checkpoints: CheckpointUi;
  /** agentCapabilities of agents that ran (agents/list), for session/load. */
  private agentCaps = new Map<string, unknown>();
  private disposables: vscode.Disposable[] = [];
  private agents: AgentSummary[] = [];
  private defaultAgent = "demo";
  /** Agent the next "New Chat" uses (the picker / Select Agent). */
  currentAgent?: string;
  surface?: ChatSurface;
  /** The approved version of this workspace's own acpBridge.* values (pins.ts). */
  private readonly pins: WorkspacePins;
  /** The bridge's last answer to _acp-bridge/settings/layers: the agents in force and the pin state of the workspace's values. */
  private layers?: SettingsLayersResult;
  /** The workspace's acpBridge.* values when they are not the approved version (then they only narrow). */
  pendingValues?: { digest: string; approved: string };

  constructor(ext: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel("ACP Bridge");
    const log = (l: string) => this.output.appendLine(l);
    this.store = new ChatStore((m) => this.post(m));
    const wsKey = vscode.workspace.workspaceFile?.toString() ?? vscode.workspace.workspaceFolders?.[0]?.uri.toString() ?? "no-workspace";
    this.pins = new WorkspacePins(ext.globalState, `acpBridge.pinnedWorkspaceValues:${wsKey}`);
    this.lasting = new Lasting(ext, this.store, this.workspaceCwd(), log);
    this.lasting.restore();
    this.status = new StatusSurface(
      this.output,
      () => void this.restart("restart requested", true),
      async (digest) => {
        const conn = this.host.connectionNow;
        if (!conn) throw new Error("the bridge is not running");
        await conn.approveWorkspaceFile(digest);
      },
    );
    this.status.approveValues = (digest) => this.approveWorkspaceValues(digest);
    this.host = new BridgeHost({
      extensionPath: ext.extensionPath,
      bridgePath: () => vscode.workspace.getConfiguration(SECTION).get<string>("bridgePath"),
      cwd: () => this.workspaceCwd(),
      isTrusted: () => vscode.workspace.isTrusted,
      log,
      onState: (b) => this.post({ type: "bridge", bridge: b }),
      onProblem: (kind, msg) => {
        // No bridge at all: chats kept from an earlier window have no live session (their cards expire).
        if (kind === "missing") this.chats.connected(undefined);
        this.status.bridgeProblem(kind, msg);
      },
      onGone: (expected) => {
        this.approvals.bridgeGone();
        this.chats.bridgeGone(expected);
      },
      onConnected: async (_conn, init, how) => {
        if (init.workspaceTrust) this.status.workspaceTrust(init.workspaceTrust);
        if (init.managed) this.status.managed(init.managed);
        if (init.defaultAgent) this.defaultAgent = init.defaultAgent;
        // Chats kept from an earlier window: live sessions carry on, the others expire.
        this.chats.connected(how?.attached ? how.result.sessions : undefined);
        await this.pushSettings();
        await this.refreshAgents();
        await this.approvals.reconcile();
      },
      attach: () => this.lasting.attach(),
      attachRecord: () => this.lasting.record(),
      saveAttachRecord: (r) => this.lasting.saveRecord(r),
      handlers: () => ({
        readTextFile: (p) => readTextFile(vscodeFsHost(vscode), p.path, p.line, p.limit),
        writeTextFile: (p) => writeTextFile(vscodeFsHost(vscode), p.path, p.content),
        requestPermission: (p, signal) => this.approvals.coordinator.onRequest(p, signal),
        sessionUpdate: (p) => this.store.applySessionUpdate(p.sessionId, p.update),
        approvalResolved: (r) => this.approvals.coordinator.onResolved(r),
        agentStatus: (a) => this.onAgentStatus(a),
        persist: (p) => this.persist(p),
        rulesInvalid: (problems) => this.status.rulesInvalid(problems),
        workspaceTrust: (t) => this.status.workspaceTrust(t),
        settingsInvalid: (error) => this.status.settingsInvalid(error),
        turnEnded: (p) => this.chats.turnEnded(p),
      }),
    });
    this.approvals = new ApprovalUi({
      store: this.store,
      connection: () => this.host.connection(),
      connectionNow: () => this.host.connectionNow,
      isRunning: () => this.host.isConnected,
      pendingChanged: (n) => {
        this.status.pending(n);
        this.onPendingCount?.(n); // the views' badges
        void vscode.commands.executeCommand("setContext", "acpBridge.approvalsPending", n > 0); // the keybindings
        void this.diffs?.refresh(); // the diff editor's Allow/Deny only while its approval waits
      },
      chatVisible: () => !!this.surface?.visible,
      reveal: async (focus) => this.surface?.reveal(focus),
      post: (m) => this.post(m),
      log,
    });
    this.checkpoints = new CheckpointUi(ext, this.store, () => this.chats, log);
    this.chats = new Chats({
      turns: this.checkpoints.turns,
      store: this.store,
      connection: () => this.host.connection(),
      connectionNow: () => this.host.connectionNow,
      cwd: () => this.workspaceCwd(),
      defaultAgent: () => this.currentAgent ?? this.defaultAgent,
      settled: () => this.settingsSettled(),
      agentMode: (a) => this.agentModeFor(a),
      agentBypass: (a) => !!this.configuredAgents()[a]?.bypassPermissions,
      agentCommand: (a) => this.configuredAgents()[a],
      canLoad: (a) => {
        const caps = this.agentCaps.get(a) as { agentCapabilities?: { loadSession?: boolean }; loadSession?: boolean } | undefined;
        if (!caps) return undefined;
        return !!(caps.agentCapabilities?.loadSession ?? caps.loadSession);
      },
      cancelChat: (chatId) => this.approvals.coordinator.cancelChat(chatId),
      promptBlocks: (agent, text, refs) => this.context.blocks(agent, text, refs),
      log,
    });
    this.context = new PromptContext({ connection: () => this.host.connectionNow, log });
    this.disposables.push(
      this.checkpoints,
      this.output,
      this.status,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration(SECTION)) return;
        if (e.affectsConfiguration(`${SECTION}.bridgePath`)) void this.restart("acpBridge.bridgePath changed");
        // The bridge's state after the change (an agent's bypass revoked or granted) comes back with agents/list.
        else
          void this.pushSettings()
            .finally(() => this.settingsPushedEmitter.fire())
            .then(() => this.refreshAgents());
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
      bridge: this.host.bridge,
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
        this.approvals.webviewReady();
        void this.approvals.reconcile();
        return;
      case "newChat":
        await this.chats.newChat(m.agent);
        return;
      case "selectChat":
        this.store.setActive(m.chatId);
        return;
      case "closeChat":
        // Asks first while a turn runs or a card waits; the chat goes to the history.
        await this.checkpoints.closeChat(m.chatId);
        return;
      case "restoreCheckpoint":
      case "changeAction":
        try {
          if (m.type === "restoreCheckpoint") await this.checkpoints.restore(m.chatId, m.checkpoint);
          else await this.checkpoints.changeAction(m);
        } catch (e) {
          void vscode.window.showErrorMessage(`ACP Bridge: ${(e as Error).message}`);
          throw e;
        }
        return;
      case "prompt":
        // No chat open (or it was closed meanwhile): Chats opens one with the picked agent.
        await this.chats.send(m.chatId, m.text, m.agent, m.context);
        return;
      case "cancel":
        await this.chats.cancel(m.chatId);
        return;
      case "setMode":
        await this.chats.setMode(m.chatId, m.mode);
        return;
      case "approve":
        await this.approvals.choose(m.approvalId, m.optionId, m.rule, m.scope, m.reason);
        return;
      case "addContext": {
        const agent = (m.chatId ? this.store.chat(m.chatId)?.agent : undefined) ?? m.agent ?? this.currentAgent ?? this.defaultAgent;
        const refs = await this.context.pick(m.what, agent);
        if (refs.length) this.post({ type: "contextAdded", refs });
        return;
      }
      case "openDiff":
        await this.diffs?.open(m.diff, m.approvalId);
        return;
      case "openFile": {
        // A file link in a message may be relative (src/main.go:3): to the workspace folder.
        const file = path.isAbsolute(m.path) ? m.path : path.join(this.workspaceCwd(), m.path);
        const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
        const line = Math.max(0, (m.line ?? 1) - 1);
        await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0), preview: true });
        return;
      }
    }
  }

  // ---- bridge --------------------------------------------------------------------

  private workspaceCwd(): string {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
  }

  start(): Promise<void> {
    return this.host.start();
  }

  restart(why: string, resetBudget = false): Promise<void> {
    this.chats.bridgeStopping();
    return this.host.restart(why, resetBudget);
  }

  get bridgeBinary() {
    return this.host.binary;
  }

  get isConnected(): boolean {
    return this.host.isConnected;
  }

  private readonly settingsPushedEmitter = new vscode.EventEmitter<void>();
  /** A change of acpBridge.* settings reached the bridge (or could not: it is not running): what it applies now is its new state. */
  readonly onSettingsPushed = this.settingsPushedEmitter.event;

  /** The live connection, if any (commands that are useless without one). */
  get connectionNow() {
    return this.host.connectionNow;
  }

  /** The connection, once the bridge runs (started if need be). */
  connection() {
    return this.host.connection();
  }

  // ---- chats and approvals (commands) ------------------------------------------

  newChat(agent?: string): Promise<string> {
    return this.chats.newChat(agent);
  }

  setMode(chatId: string, mode: string): Promise<void> {
    return this.chats.setMode(chatId, mode);
  }

  showApproval(approvalId: string): Promise<void> {
    return this.approvals.show(approvalId, true);
  }

  /** Set by extension.ts: the pending count changed (the chat views' badges). */
  onPendingCount?: (n: number) => void;

  // ---- settings --------------------------------------------------------------------

  /** VS Code's layers of the acpBridge.* keys the bridge reads, as they are: the bridge merges, narrows and pins them. */
  private editorValues(): Record<string, EditorValue> {
    const cfg = vscode.workspace.getConfiguration(SECTION);
    return editorValues((k) => cfg.inspect(k));
  }

  /** Sends VS Code's layers, its trust and the approved digest; preview: the bridge only answers. Undefined without a bridge. */
  private async sendLayers(values: Record<string, EditorValue>, preview: boolean): Promise<SettingsLayersResult | undefined> {
    const conn = this.host.connectionNow;
    if (!conn) return undefined;
    return conn.settingsLayers({ values, trusted: vscode.workspace.isTrusted, approved: this.pins.approved(), preview });
  }

  /**
   * Whether the bridge applies the workspace's own acpBridge.* values as a
   * trusted workspace's (VS Code trusts the workspace and the values are the
   * approved version): its last answer. Otherwise they only narrow.
   */
  settingsTrusted(): boolean {
    return !!this.layers?.pinned;
  }

  /** Keeps the bridge's answer: stores a pin it asks for, and tells the person once per version of values that wait for approval. */
  private async noteLayers(res: SettingsLayersResult): Promise<void> {
    const before = this.layers;
    this.layers = res;
    if (res.pin) await this.pins.approve(res.pin);
    if (res.ignored.join("\n") !== (before?.ignored ?? []).join("\n")) for (const line of res.ignored) this.output.appendLine(`not applied: ${line}`);
    if (res.pinned || !vscode.workspace.isTrusted) {
      this.pendingValues = undefined;
      return;
    }
    const first = this.pendingValues?.digest !== res.digest;
    this.pendingValues = { digest: res.digest, approved: res.approved ?? "" };
    if (first) {
      this.output.appendLine(`this workspace's acpBridge.* settings are not the approved version (${res.digest}, approved ${res.approved}): they only narrow until approved`);
      this.status.workspaceValuesPending(res.digest);
    }
  }

  /** The person approved this version of the workspace's acpBridge.* values; a version changed since is refused. */
  async approveWorkspaceValues(digest: string): Promise<void> {
    const now = await this.sendLayers(this.editorValues(), true);
    if (!now) throw new Error("the bridge is not running");
    if (now.digest !== digest) throw new Error(`this workspace's acpBridge.* settings changed since they were shown (now ${now.digest}): review them again`);
    await this.pins.approve(digest);
    this.pendingValues = undefined;
    this.output.appendLine(`this workspace's acpBridge.* settings approved (${digest})`);
    await this.pushSettings();
  }

  /** The values stored in each layer (what settings edits start from) and the user's audit path (machine-scoped). */
  readRawSettings(): RawSettings & { auditPath?: string } {
    const cfg = vscode.workspace.getConfiguration(SECTION);
    const i = <T>(k: string) => {
      const x = cfg.inspect<T>(k);
      return { defaultValue: x?.defaultValue, globalValue: x?.globalValue, workspaceValue: x?.workspaceValue, workspaceFolderValue: x?.workspaceFolderValue };
    };
    return { agents: i("agents"), permissions: i("permissions"), auditPath: i<string>("audit.path").globalValue || undefined };
  }

  private refreshAgentsFromSettings(): void {
    const s = this.layers;
    if (!s) return; // the bridge has not answered yet: it is the one that merges the agents
    this.defaultAgent = s.defaultAgent;
    const prev = new Map(this.agents.map((a) => [a.id, a]));
    this.agents = Object.entries(s.agents).map(([id, a]) => ({
      id,
      name: prev.get(id)?.name ?? id,
      status: prev.get(id)?.status,
      // The bridge's word (the mode a new session starts in; agents/list updates it).
      mode: a.mode || prev.get(id)?.mode,
      installed: agentInstalled(a, process.env["PATH"], undefined, this.host.binary?.path),
    }));
    if (this.currentAgent && !s.agents[this.currentAgent]) this.currentAgent = undefined;
    this.post({ type: "agents", agents: this.agents, defaultAgent: this.currentAgent ?? this.defaultAgent });
  }

  /** Tells the bridge, then resends the settings: the workspace's own acpBridge.* values now count too. */
  private async workspaceTrustGranted(): Promise<void> {
    this.output.appendLine("workspace trusted: the workspace's .acp-bridge.yaml and acpBridge.* settings now apply in full");
    const conn = this.host.connectionNow;
    if (conn) await conn.workspaceTrustChanged(true);
    await this.pushSettings();
    await this.refreshAgents();
  }

  /** Resolved by the first answer (or refusal) of the bridge to the editor's settings. */
  private settledResolve!: () => void;
  private readonly settledOnce = new Promise<void>((r) => (this.settledResolve = r));

  /** The first settings answer, or 15 s: what a chat opened with no agent named waits for (Chats.settled). */
  private settingsSettled(): Promise<void> {
    return Promise.race([this.settledOnce, new Promise<void>((r) => setTimeout(r, 15_000).unref?.())]);
  }

  /** Sends VS Code's layers to the bridge and keeps its answer. A refused payload is reported by the bridge (settings/invalid); the previous settings stay. */
  async pushSettings(): Promise<void> {
    let res: SettingsLayersResult | undefined;
    try {
      res = await this.sendLayers(this.editorValues(), false);
    } catch (e) {
      this.output.appendLine(`settings not applied: ${(e as Error).message}`);
      this.settledResolve();
      return;
    }
    if (!res) return;
    await this.noteLayers(res);
    this.refreshAgentsFromSettings();
    this.settledResolve();
    this.output.appendLine(`settings sent: agents ${Object.keys(res.agents).join(", ")}; default ${res.defaultAgent}`);
  }

  async applyEdit(edit: SettingsEdit): Promise<void> {
    if (edit.scope === "workspace" && !vscode.workspace.workspaceFolders?.length) throw new Error("no workspace folder is open to store a workspace setting");
    const target = edit.scope === "workspace" ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    // The person's own grant keeps approved workspace values approved: pin the
    // values it writes (their digest is the bridge's) before the write (the
    // change event re-checks them), and put the old pin back if the write
    // fails. A grant into values that wait for approval approves nothing.
    const before = this.pins.approved();
    let repin = false;
    if (edit.scope === "workspace" && vscode.workspace.isTrusted) {
      try {
        const values = this.editorValues();
        const now = await this.sendLayers(values, true);
        const next = now?.pinned ? await this.sendLayers(withWorkspaceValue(values, edit.key, edit.value), true) : undefined;
        if (next && next.digest !== now?.digest) {
          await this.pins.approve(next.digest);
          repin = true;
        }
      } catch (e) {
        this.output.appendLine(`the edit's values could not be pinned (they wait for approval): ${(e as Error).message}`);
      }
    }
    try {
      await vscode.workspace.getConfiguration(SECTION).update(edit.key, edit.value, target);
    } catch (e) {
      if (repin && before) await this.pins.approve(before);
      throw e;
    }
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
      edit = planPersist(req, this.readRawSettings(), this.settingsTrusted());
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
        // Machine-scoped settings (acpBridge.agents) of a remote window go to the remote machine's settings.
        const where = edit.scope === "workspace" ? "this workspace's settings (.vscode/settings.json" : edit.key.startsWith("agents") && vscode.env.remoteName ? `the remote machine's settings (${vscode.env.remoteName}: Machine/settings.json` : "your user settings (settings.json";
        void vscode.window.showInformationMessage(`ACP Bridge: ${what} is stored in ${where}, acpBridge.${edit.key}). Revoke it in "ACP Bridge: Manage Permission Rules".`);
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
        if (req.kind === "bypass" && req.agent) this.store.setBypass(req.agent, false); // the bridge drops it too
        throw new RequestError(PERSIST_DECLINED, "the person declined to store the grant");
      }
    }
  }

  // ---- agents ----------------------------------------------------------------------

  async refreshAgents(): Promise<void> {
    const conn = this.host.connectionNow;
    if (!conn) return;
    try {
      const list = await conn.listAgents();
      for (const a of list) this.onAgentStatus(a, false);
      this.post({ type: "agents", agents: this.agents, defaultAgent: this.currentAgent ?? this.defaultAgent });
    } catch (e) {
      this.output.appendLine(`agents/list failed: ${(e as Error).message}`);
    }
  }

  private onAgentStatus(a: AgentEntry, post = true): void {
    if (a.capabilities) this.agentCaps.set(a.id, a.capabilities);
    // The bypass banner follows the bridge: a revoked bypass is gone at once, after a restart and a reload.
    if (typeof a.bypassPermissions === "boolean") this.store.setBypass(a.id, a.bypassPermissions);
    const cur = this.agents.find((x) => x.id === a.id);
    if (cur) {
      cur.status = a.status ?? cur.status;
      if (a.name) cur.name = a.name;
      if (a.mode) cur.mode = a.mode;
      cur.lastError = a.lastError;
    } else {
      this.agents.push({ id: a.id, name: a.name ?? a.id, status: a.status, mode: a.mode, lastError: a.lastError });
    }
    if (post) this.post({ type: "agents", agents: this.agents, defaultAgent: this.currentAgent ?? this.defaultAgent });
  }

  agentList(): AgentSummary[] {
    return this.agents;
  }

  agentModeFor(agent: string): string {
    return this.agents.find((a) => a.id === agent)?.mode ?? "default";
  }

  private disposing?: Promise<void>;

  dispose(): Promise<void> {
    this.disposing ??= this.doDispose();
    return this.disposing;
  }

  private async doDispose(): Promise<void> {
    // Kept as they are now: what the closing connection does to the cards below
    // (aborted requests) must not be saved, the next window re-attaches to them.
    await this.lasting.flush();
    this.store.onChange = undefined;
    const outlives = !!this.lasting.attach();
    // With a bridge that outlives us, pending requests are not answered "cancelled":
    // the next window answers them.
    if (!outlives) this.approvals.bridgeGone();
    await this.host.dispose();
    for (const d of this.disposables) d.dispose();
  }

  /** The agents in force, as the bridge merged every layer (its last answer). */
  configuredAgents(): Record<string, ConfiguredAgent> {
    return this.layers?.agents ?? {};
  }
}
