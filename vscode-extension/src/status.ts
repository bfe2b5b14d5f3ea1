// Status and notifications: the status-bar item "N approvals pending" and the
// messages the person must see outside the chat (bridge problems, refused
// settings, malformed rules, ignored workspace settings). One per activation.

import * as vscode from "vscode";
import type { ManagedReport, WorkspaceTrustWire } from "./wire";

export class StatusSurface implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private lastTrustReport = "";
  private lastManaged = "";
  /** The workspace file version waiting for the person's approval (the last trust report's). */
  pendingApproval: WorkspaceTrustWire["pending"];

  constructor(
    private readonly output: vscode.OutputChannel,
    private readonly restart: () => void,
    private readonly approve: (digest: string) => Promise<void> = async () => {},
  ) {
    this.item = vscode.window.createStatusBarItem("acpBridge.pending", vscode.StatusBarAlignment.Left, 100);
    this.item.name = "ACP Bridge approvals";
    this.item.command = "acpBridge.focusOldestApproval";
  }

  /** The default keys (package.json keybindings; the person may rebind them, hence "by default"). */
  private readonly keys = process.platform === "darwin" ? "Cmd+Alt+G" : "Ctrl+Alt+G";
  private readonly keysAnswer =
    process.platform === "darwin" ? "by default Cmd+Alt+Y allows it once, Cmd+Alt+N denies it" : "by default Ctrl+Alt+Y allows it once, Ctrl+Alt+N denies it";

  pending(n: number): void {
    if (n === 0) {
      this.item.hide();
      return;
    }
    this.item.text = `$(bell-dot) ${n} approval${n === 1 ? "" : "s"} pending`;
    this.item.tooltip = `ACP Bridge: agents are waiting for your answer. Click to go to the oldest card (${this.keys}); ${this.keysAnswer}.`;
    this.item.backgroundColor = new vscode.ThemeColor("statusBarItem.warningBackground");
    this.item.show();
  }

  private showLogOr(pick: string | undefined): void {
    if (pick === "Show Log") this.output.show(true);
  }

  bridgeProblem(kind: "missing" | "crashed" | "restarting", msg: string): void {
    if (kind === "missing") {
      void vscode.window.showErrorMessage(msg, "Open Settings", "Show Log").then((pick) => {
        if (pick === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettings", "acpBridge.bridgePath");
        this.showLogOr(pick);
      });
    } else if (kind === "crashed") {
      void vscode.window.showErrorMessage(msg, "Show Log", "Restart Bridge").then((pick) => {
        this.showLogOr(pick);
        if (pick === "Restart Bridge") this.restart();
      });
    } else {
      void vscode.window.showWarningMessage(msg);
    }
  }

  rulesInvalid(problems: string[]): void {
    for (const p of problems) this.output.appendLine(`bad permission rule: ${p}`);
    void vscode.window
      .showWarningMessage(
        `ACP Bridge: ${problems.length} permission rule(s) could not be read; they never allow anything, and a bad deny/ask rule makes its tool ask. ${problems[0]}`,
        "Open Settings",
        "Show Log",
      )
      .then((pick) => {
        if (pick === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettingsJson");
        this.showLogOr(pick);
      });
  }

  settingsInvalid(error: string): void {
    this.output.appendLine(`the bridge refused the acpBridge settings: ${error}`);
    void vscode.window.showErrorMessage(`ACP Bridge refused the acpBridge.* settings (the previous ones stay in force): ${error}`, "Open Settings", "Show Log").then((pick) => {
      if (pick === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettingsJson");
      this.showLogOr(pick);
    });
  }

  /** Logs and, once per distinct report, shows what of the workspace's .acp-bridge.yaml the bridge ignores. */
  /** The organisation's managed tier (docs/org.md): named in the log, and in a message when it stops every agent. */
  managed(m: ManagedReport): void {
    const key = JSON.stringify(m);
    if (key === this.lastManaged) return;
    this.lastManaged = key;
    this.output.appendLine(`managed settings (set by your organisation; not changeable here): ${m.files.join(", ")}`);
    if (m.disableBypassPermissionsMode) this.output.appendLine("  bypassPermissions is disabled");
    if (m.allowManagedPermissionRulesOnly) this.output.appendLine("  only the managed allow rules count");
    if (m.modeFloor) this.output.appendLine(`  no mode looser than ${m.modeFloor}`);
    if (m.allowedAgents) this.output.appendLine(`  allowed agents: ${m.allowedAgents.join(", ")}`);
    for (const i of m.ignored ?? []) this.output.appendLine(`  overrides ${i.key}: ${i.reason}`);
    for (const n of m.notes ?? []) this.output.appendLine(`  note: ${n}`);
    if (m.problems?.length) {
      for (const p of m.problems) this.output.appendLine(`  invalid: ${p}`);
      void vscode.window
        .showErrorMessage(`Your organisation's managed settings are invalid, so no agent starts: ${m.problems[0]}`, "Show Log")
        .then((pick) => this.showLogOr(pick));
    }
  }

  workspaceTrust(t: WorkspaceTrustWire): void {
    const key = JSON.stringify(t);
    if (key === this.lastTrustReport) return;
    this.lastTrustReport = key;
    this.pendingApproval = t.pending;
    if (t.pending) {
      this.askApproval(t);
      return;
    }
    if (!t.ignored.length) return;
    for (const i of t.ignored) this.output.appendLine(`workspace setting ignored: ${i.file}${i.line ? ":" + i.line : ""}: ${i.key}: ${i.reason}`);
    const keys = t.ignored.map((i) => i.key).join(", ");
    const msg = t.trusted
      ? `ACP Bridge ignores ${keys} from the workspace's .acp-bridge.yaml (never read from a workspace file).`
      : `This workspace is not trusted: ACP Bridge ignores ${keys} from its .acp-bridge.yaml (an untrusted workspace may only narrow the policy).`;
    void vscode.window.showWarningMessage(msg, "Show Log").then((pick) => this.showLogOr(pick));
  }

  /**
   * A trusted workspace's .acp-bridge.yaml that is not the approved version
   * (an agent, a git pull or someone created or changed it): it only narrows
   * until the person reviews it and approves exactly that version.
   */
  private askApproval(t: WorkspaceTrustWire): void {
    const p = t.pending!;
    for (const i of t.ignored) this.output.appendLine(`workspace setting waiting for approval: ${i.file}${i.line ? ":" + i.line : ""}: ${i.key}: ${i.reason}`);
    const keys = p.loosens?.length ? p.loosens.join("; ") : t.ignored.map((i) => i.key).join(", ") || "nothing that loosens the policy";
    for (const l of p.loosens ?? []) this.output.appendLine(`approving this version would loosen: ${l}`);
    const msg =
      p.approved === "none"
        ? `ACP Bridge: this workspace is trusted, but trusting it does not approve what its .acp-bridge.yaml loosens. ` +
          `Until you approve this version it may only narrow the policy; it would loosen: ${keys}.`
        : `ACP Bridge: the workspace's .acp-bridge.yaml is not the version approved when you trusted this workspace ` +
          `(an agent, a git pull or someone created or changed it). Until you approve this version it may only narrow the policy; ` +
          `${p.loosens?.length ? "it would loosen" : "ignored"}: ${keys}.`;
    void vscode.window.showWarningMessage(msg, "Review File", "Approve This Version", "Show Log").then((pick) => {
      if (pick === "Review File") void vscode.window.showTextDocument(vscode.Uri.file(p.file));
      if (pick === "Approve This Version") void this.approveVersion(p.digest);
      this.showLogOr(pick);
    });
  }

  /** Set by Ctx: approves this version of the workspace's acpBridge.* values. */
  approveValues: (digest: string) => Promise<void> = async () => {};

  /** The workspace's acpBridge.* values are not the approved version (Ctx.settingsTrusted): they only narrow until approved. */
  workspaceValuesPending(digest: string): void {
    const msg =
      "ACP Bridge: this workspace's acpBridge.* settings (.vscode/settings.json) are not the version approved when you trusted it " +
      "(an agent, a git pull or someone created or changed them). Until you approve them they may only narrow the policy: their allow rules and looser modes are ignored.";
    void vscode.window.showWarningMessage(msg, "Review Settings", "Approve These Settings").then(async (pick) => {
      if (pick === "Review Settings") void vscode.commands.executeCommand("workbench.action.openWorkspaceSettingsFile");
      if (pick === "Approve These Settings") {
        try {
          await this.approveValues(digest);
        } catch (e) {
          void vscode.window.showErrorMessage(`ACP Bridge: not approved: ${(e as Error).message}`);
        }
      }
    });
  }

  /** Approves the version with this digest; a file changed since is refused by the bridge (and reported again). */
  async approveVersion(digest: string): Promise<void> {
    try {
      await this.approve(digest);
      this.output.appendLine(`workspace .acp-bridge.yaml approved (${digest})`);
    } catch (e) {
      this.output.appendLine(`approving the workspace .acp-bridge.yaml failed: ${(e as Error).message}`);
      void vscode.window.showErrorMessage(`ACP Bridge: not approved: ${(e as Error).message}`);
    }
  }

  dispose(): void {
    this.item.dispose();
  }
}
