// Activation: creates the Ctx, the chat view and the palette commands, starts
// the bridge, and stops it on deactivate.

import * as os from "node:os";
import * as vscode from "vscode";
import { addAgent } from "./addAgent";
import { AuditView, openRawAuditLog } from "./auditView";
import { ChatViewProvider, PANEL_VIEW_ID, VIEW_ID } from "./chatView";
import { Ctx } from "./ctx";
import { DiffDocuments } from "./diffEditor";
import { ChatEditorPanel, EDITOR_PANEL_TYPE, Surfaces } from "./surfaces";
import { confirmRestart } from "./lasting";
import { RulesEditor } from "./rulesEditor";
import { MODE_LABELS, POLICY_MODES, type PolicyMode } from "./protocol";
import { listBypasses, listStoredRules, planRevoke, planRevokeBypass } from "./settings";
import { defaultAuditPath } from "./text";

let ctx: Ctx | undefined;

export async function activate(ext: vscode.ExtensionContext): Promise<{ ctx: Ctx }> {
  const c = new Ctx(ext);
  ctx = c;
  const sideBar = new ChatViewProvider(ext.extensionUri, c);
  const panelView = new ChatViewProvider(ext.extensionUri, c, PANEL_VIEW_ID);
  const surfaces = new Surfaces(sideBar);
  const editorChat = new ChatEditorPanel(ext.extensionUri, c, (s) => surfaces.used(s));
  for (const s of [panelView, editorChat]) surfaces.add(s);
  for (const v of [sideBar, panelView]) v.onUsed = (s) => surfaces.used(s);
  // The same chats in the side bar, the panel and an editor tab.
  c.surface = surfaces;
  c.onPendingCount = (n) => {
    for (const v of [sideBar, panelView]) v.setBadge(n);
  };
  for (const v of [sideBar, panelView]) v.setBadge(c.approvals.pendingCount());
  const view = surfaces;
  c.diffs = new DiffDocuments(c.store, (approvalId, optionId) => c.onWebviewMessage({ type: "approve", approvalId, optionId }));
  ext.subscriptions.push(c.diffs);
  const auditPath = () => c.readRawSettings().auditPath || defaultAuditPath(process.env, os.homedir());
  const audit = new AuditView(ext.extensionUri, auditPath);
  ext.subscriptions.push(audit);
  const cmd = (id: string, fn: (...args: unknown[]) => unknown) =>
    ext.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          await fn(...args);
        } catch (e) {
          void vscode.window.showErrorMessage(`ACP Bridge: ${(e as Error).message}`);
        }
      }),
    );

  ext.subscriptions.push(vscode.window.registerWebviewViewProvider(VIEW_ID, sideBar), vscode.window.registerWebviewViewProvider(PANEL_VIEW_ID, panelView));

  cmd("acpBridge.openChatInEditor", () => editorChat.open());
  // A chat open in an editor tab comes back after a window reload.
  ext.subscriptions.push(
    vscode.window.registerWebviewPanelSerializer(EDITOR_PANEL_TYPE, {
      deserializeWebviewPanel: async (panel) => editorChat.adopt(panel),
    }),
  );
  cmd("acpBridge.approveWorkspaceSettings", async () => {
    const v = c.pendingValues;
    if (v) {
      // The workspace's acpBridge.* values in .vscode/settings.json (pins.ts).
      await vscode.commands.executeCommand("workbench.action.openWorkspaceSettingsFile");
      const pick = await vscode.window.showWarningMessage(
        "Approve this workspace's acpBridge.* settings as they are now? Their allow rules and looser modes will apply.",
        { modal: true },
        "Approve These Settings",
      );
      if (pick === "Approve These Settings") await c.approveWorkspaceValues(v.digest);
    }
    const p = c.status.pendingApproval;
    if (!p) {
      if (v) return;
      void vscode.window.showInformationMessage("ACP Bridge: the workspace's .acp-bridge.yaml is the approved version (or there is none); nothing waits for approval.");
      return;
    }
    await vscode.window.showTextDocument(vscode.Uri.file(p.file));
    const pick = await vscode.window.showWarningMessage(
      p.loosens?.length
        ? `Approve this version of ${p.file}? It loosens: ${p.loosens.join("; ")}.`
        : `Approve this version of ${p.file}? Its allow rules, agents and looser settings will apply.`,
      { modal: true },
      "Approve This Version",
    );
    if (pick === "Approve This Version") await c.status.approveVersion(p.digest);
  });
  cmd("acpBridge.openChatInPanel", () => panelView.reveal());

  cmd("acpBridge.newChat", async (agent?: unknown) => {
    await view.reveal();
    await c.newChat(typeof agent === "string" ? agent : undefined);
  });

  cmd("acpBridge.addAgent", () => addAgent(c));

  cmd("acpBridge.selectAgent", async () => {
    const picks = c.agentList().map((a) => ({
      label: a.id,
      description: [a.installed === false ? "$(warning) not installed" : "", a.name !== a.id ? a.name : "", a.status ?? "", a.mode ? `mode ${a.mode}` : ""].filter(Boolean).join(" · "),
      detail: a.lastError,
    }));
    const pick = await vscode.window.showQuickPick(picks, { title: "ACP Bridge: agent for new chats", placeHolder: "Pick an agent" });
    if (!pick) return;
    c.currentAgent = pick.label;
    c.post({ type: "agents", agents: c.agentList(), defaultAgent: pick.label });
    await view.reveal();
    await c.newChat(pick.label);
  });

  cmd("acpBridge.setMode", async () => {
    const chatId = c.store.activeChatId;
    const chat = chatId ? c.store.chat(chatId) : undefined;
    if (!chat) {
      void vscode.window.showInformationMessage("ACP Bridge: open a chat first.");
      return;
    }
    const pick = await vscode.window.showQuickPick(
      POLICY_MODES.map((m) => ({ label: m, description: MODE_LABELS[m as PolicyMode], picked: m === chat.mode })),
      { title: `Mode for ${chat.title}`, placeHolder: `current: ${chat.mode}` },
    );
    if (pick) await c.setMode(chat.chatId, pick.label);
  });

  // Keys that answer the card waiting longest from anywhere in the window (package.json
  // keybindings, rebindable; never bypass, never a stored rule), and the status-bar item.
  const answerOldest = async (want: "allow" | "deny") => {
    const said = await c.approvals.answerOldest(want);
    vscode.window.setStatusBarMessage(`ACP Bridge: ${said}`, 4000);
  };
  cmd("acpBridge.allowOldestApproval", () => answerOldest("allow"));
  cmd("acpBridge.denyOldestApproval", () => answerOldest("deny"));
  cmd("acpBridge.focusOldestApproval", async () => {
    if (!(await c.approvals.showOldest())) {
      await view.reveal(true);
      vscode.window.setStatusBarMessage("ACP Bridge: no approvals pending", 4000);
    }
  });

  cmd("acpBridge.showPendingApprovals", async () => {
    const pending = c.store.pendingApprovals();
    if (pending.length === 0) {
      await view.reveal();
      void vscode.window.showInformationMessage("ACP Bridge: no approvals pending.");
      return;
    }
    if (pending.length === 1) {
      await c.showApproval(pending[0].approvalId);
      return;
    }
    const pick = await vscode.window.showQuickPick(
      pending.map((a) => ({
        label: a.meta.specifier ?? a.tool.title,
        description: a.meta.agent,
        detail: a.meta.reason,
        approvalId: a.approvalId,
      })),
      { title: "ACP Bridge: pending approvals" },
    );
    if (pick) await c.showApproval(pick.approvalId);
  });

  cmd("acpBridge.manageRules", async () => {
    type Item = vscode.QuickPickItem & { revoke?: () => Promise<void> };
    const raw = c.readRawSettings();
    const items: Item[] = [];
    const rules = listStoredRules(raw);
    items.push({ label: "In VS Code settings", kind: vscode.QuickPickItemKind.Separator });
    for (const r of rules) {
      items.push({
        label: `$(${r.list === "allow" ? "check" : r.list === "deny" ? "circle-slash" : "question"}) ${r.list} ${r.rule}`,
        description: `${r.scope} settings${r.agent ? ` · agent ${r.agent}` : ""}`,
        revoke: () => c.applyEdit(planRevoke(r, c.readRawSettings())),
      });
    }
    for (const b of listBypasses(raw)) {
      items.push({
        label: `$(warning) bypass permissions: ${b.agent}`,
        description: `${b.scope} settings`,
        revoke: () => c.applyEdit(planRevokeBypass(b, c.readRawSettings())),
      });
    }
    if (rules.length === 0 && listBypasses(raw).length === 0) items.push({ label: "(no rules stored in user or workspace settings)" });
    const conn = c.connectionNow;
    items.push({ label: "In the bridge's config files", kind: vscode.QuickPickItemKind.Separator });
    if (conn) {
      try {
        const stored = await conn.storedGrants();
        for (const g of stored) {
          items.push({
            label: g.kind === "bypass" ? `$(warning) bypass permissions: ${g.agent}` : `$(${g.list === "allow" ? "check" : g.list === "deny" ? "circle-slash" : "question"}) ${g.list} ${g.rule}`,
            description: `${g.file}${g.kind === "rule" && g.agent ? ` · agent ${g.agent}` : ""}`,
            revoke: async () => {
              await conn.removeStoredGrant(g);
            },
          });
        }
        if (stored.length === 0) items.push({ label: "(none)" });
      } catch (e) {
        items.push({ label: `(grants/stored failed: ${(e as Error).message})` });
      }
    } else {
      items.push({ label: "(the bridge is not running)" });
    }
    items.push({ label: "Session grants (this bridge run)", kind: vscode.QuickPickItemKind.Separator });
    if (conn) {
      try {
        const grants = await conn.listGrants();
        for (const g of grants) {
          items.push({
            label: `$(history) allow ${g.rule}`,
            description: `session ${g.sessionId.slice(0, 8)}${g.agent ? ` · agent ${g.agent}` : ""}`,
            revoke: async () => {
              await conn.revokeGrant(g.sessionId, g.rule);
            },
          });
        }
        if (grants.length === 0) items.push({ label: "(no session grants)" });
      } catch (e) {
        items.push({ label: `(grants/list failed: ${(e as Error).message})` });
      }
    } else {
      items.push({ label: "(the bridge is not running)" });
    }
    // What applies, as the bridge merged it (every layer, the workspace narrowed and pinned, runtime grants): its word, not ours.
    items.push({ label: "In force (as the bridge applies them)", kind: vscode.QuickPickItemKind.Separator });
    if (conn) {
      try {
        for (const f of await conn.inForce()) {
          const what = f.kind === "rule" ? `${f.list} ${f.value}` : f.kind === "bypass" ? "bypass permissions" : `mode ${f.value}`;
          items.push({ label: `$(pass) ${what}`, description: `${f.source}${f.agent ? ` · agent ${f.agent}` : ""}${f.file ? ` · ${f.file}` : ""}` });
        }
      } catch (e) {
        items.push({ label: `(grants/stored failed: ${(e as Error).message})` });
      }
    }
    items.push({ label: "", kind: vscode.QuickPickItemKind.Separator });
    items.push({ label: "$(settings-gear) Open acpBridge settings", revoke: async () => void (await vscode.commands.executeCommand("workbench.action.openSettings", "acpBridge")) });
    const pick = await vscode.window.showQuickPick(items, { title: "ACP Bridge: permission rules (pick one to revoke it)", matchOnDescription: true });
    if (!pick?.revoke) return;
    if (pick.label.includes("Open acpBridge settings")) {
      await pick.revoke();
      return;
    }
    const ok = await vscode.window.showWarningMessage(`Revoke ${pick.label.replace(/^\$\([^)]*\) /, "")} (${pick.description})?`, { modal: true }, "Revoke");
    if (ok === "Revoke") {
      await pick.revoke();
      void vscode.window.showInformationMessage("ACP Bridge: revoked.");
    }
  });

  cmd("acpBridge.reviewChatChanges", async () => {
    const chatId = c.store.snapshot().activeChatId;
    if (!chatId) {
      void vscode.window.showInformationMessage("ACP Bridge: no chat open.");
      return;
    }
    await view.reveal();
    await c.checkpoints.reviewChat(chatId);
  });

  cmd("acpBridge.showHistory", async () => {
    const chatId = await c.checkpoints.showHistory();
    if (chatId) await view.reveal();
  });
  const rulesEditor = new RulesEditor(ext.extensionUri, c);
  ext.subscriptions.push(rulesEditor);
  cmd("acpBridge.openRulesEditor", () => rulesEditor.open());

  cmd("acpBridge.openAuditLog", () => audit.open());
  cmd("acpBridge.openAuditLogRaw", () => openRawAuditLog(auditPath()));

  cmd("acpBridge.restartBridge", async () => {
    // Turns running: ask first, naming the chats (Cancel is the default).
    const busy = c.store.chatIds().map((id) => c.store.chat(id)).filter((x) => x?.busy).map((x) => x!.title);
    if (!(await confirmRestart(busy))) return;
    await c.restart("restart requested", true);
    if (c.isConnected) void vscode.window.showInformationMessage(`ACP Bridge restarted (${c.bridgeBinary?.version ?? "?"}).`);
  });

  cmd("acpBridge.showLog", () => c.output.show(true));

  ext.subscriptions.push({ dispose: () => void c.dispose() });

  void c.start();
  return { ctx: c };
}

export async function deactivate(): Promise<void> {
  const c = ctx;
  ctx = undefined;
  await c?.dispose();
}
