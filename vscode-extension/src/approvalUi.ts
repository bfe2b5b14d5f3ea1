// Approvals on the VS Code side: the second yes for bypass, the rule check
// before "Always allow/deny" is sent, notifications with Allow / Deny when the
// person is elsewhere, and focusing a card. The coordination itself (cards,
// live requests, approvals/respond, reconcile) is ApprovalCoordinator
// (coordinator.ts, no vscode). One per activation; live requests are per
// bridge run and released when it ends.

import { RequestError } from "@agentclientprotocol/sdk";
import * as vscode from "vscode";
import { quickOption } from "./approvals";
import type { BridgeConnection } from "./client";
import { ApprovalCoordinator } from "./coordinator";
import type { ChatStore } from "./model";
import { OPT, type HostMessage, type Scope } from "./protocol";

export interface ApprovalUiDeps {
  store: ChatStore;
  connection(): Promise<BridgeConnection>;
  connectionNow(): BridgeConnection | undefined;
  isRunning(): boolean;
  /** The status bar's count changed. */
  pendingChanged(n: number): void;
  chatVisible(): boolean;
  /** Shows the chat; focus: with keyboard focus in it (the status bar, the keybinding). */
  reveal(focus?: boolean): Promise<void>;
  post(m: HostMessage): void;
  log(line: string): void;
}

export class ApprovalUi {
  readonly coordinator: ApprovalCoordinator;

  constructor(private readonly d: ApprovalUiDeps) {
    this.coordinator = new ApprovalCoordinator({
      store: d.store,
      respond: async (p) => (await d.connection()).respond(p),
      listApprovals: async () => d.connectionNow()?.listApprovals() ?? [],
      cancelSession: async (sessionId) => d.connectionNow()?.cancel(sessionId),
      changed: () => d.pendingChanged(this.coordinator.pendingCount()),
      arrived: (id) => this.maybeNotify(id),
    });
  }

  /** A click on a card: bypass takes a second yes, a rule is checked by the bridge first. */
  async choose(approvalId: string, optionId: string, rule?: string, scope?: Scope, reason?: string): Promise<void> {
    if (optionId === OPT.bypass && !(await this.confirmBypass(approvalId, scope))) return;
    if ((optionId === OPT.allowAlways || optionId === OPT.rejectAlways) && !(await this.ruleIsValid(approvalId, rule, optionId === OPT.allowAlways ? "allow" : "deny"))) return;
    await this.coordinator.answer(approvalId, optionId, { rule, scope, reason });
  }

  /**
   * Bypass is the widest grant there is: it takes a second, explicit yes. A pick
   * list whose first (focused) entry is Cancel, so Enter or Escape cancel.
   */
  private async confirmBypass(approvalId: string, scope?: Scope): Promise<boolean> {
    const agent = this.d.store.approval(approvalId)?.meta.agent ?? "this agent";
    const where = scope === "workspace" ? "this workspace's settings" : "your settings (a notification says which file)";
    const yes = `$(warning) Bypass permissions for ${agent}`;
    const pick = await vscode.window.showQuickPick(
      [
        { label: "Cancel", description: "keep asking" },
        {
          label: yes,
          detail: `${agent} will run every tool call without asking, in every session, until you revoke it (ACP Bridge: Manage Permission Rules). Deny rules and circuit breakers still apply. To be stored in ${where}.`,
        },
      ],
      { title: `Bypass permissions for ${agent}?`, placeHolder: "Cancel keeps asking. Pick the bypass entry only if you mean it.", ignoreFocusOut: true },
    );
    return pick?.label === yes;
  }

  /** Checks an "Always allow/deny" rule with the bridge's engine before it is stored; a bad rule stays on the card with the error. */
  private async ruleIsValid(approvalId: string, rule: string | undefined, list: "allow" | "deny"): Promise<boolean> {
    if (!rule?.trim()) {
      this.d.store.approvalError(approvalId, "Not saved: the rule is empty. Write the rule to store, e.g. Bash(npm run test *).");
      return false;
    }
    try {
      const res = await (await this.d.connection()).checkRule(rule, list);
      if (res.ok) return true;
      this.d.store.approvalError(approvalId, `Not saved: "${rule}" is not a valid rule: ${res.error ?? "malformed"}. Fix it and choose again.`);
      return false;
    } catch (e) {
      if (e instanceof RequestError && e.code === -32601) return true; // an older bridge without policy/check: it reports bad rules itself
      this.d.store.approvalError(approvalId, `Not saved: could not check the rule: ${(e as Error).message}`);
      return false;
    }
  }

  /** Brings back cards the webview should show (reload, late open, restart): _acp-bridge/approvals/list. */
  async reconcile(): Promise<void> {
    if (!this.d.connectionNow() || !this.d.isRunning()) return;
    try {
      await this.coordinator.reconcile();
    } catch (e) {
      this.d.log(`approvals/list failed: ${(e as Error).message}`);
    }
  }

  pendingCount(): number {
    return this.coordinator.pendingCount();
  }

  /** Approvals a notification was shown for (at most one per card). */
  private notified = new Set<string>();

  /** The chat was hidden: every pending card not notified yet gets its notification. */
  notifyPending(): void {
    for (const a of this.d.store.pendingApprovals()) this.maybeNotify(a.approvalId);
  }

  /** A notification with Allow / Deny when the chat is hidden or the window is not focused. */
  private maybeNotify(approvalId: string): void {
    const a = this.d.store.approval(approvalId);
    if (!a || a.state !== "pending" || this.notified.has(approvalId)) return;
    if (this.d.chatVisible() && vscode.window.state.focused) return;
    this.notified.add(approvalId);
    const allow = quickOption(a.options, "allow");
    const deny = quickOption(a.options, "deny");
    const buttons = [allow ? "Allow" : undefined, deny ? "Deny" : undefined, "Show"].filter((x): x is string => !!x);
    const who = a.meta.agent ?? "An agent";
    const what = a.meta.specifier ?? a.tool.command ?? a.tool.title;
    void vscode.window.showWarningMessage(`${who} asks: ${what}`, ...buttons).then(async (pick) => {
      if (pick === "Allow" && allow) await this.answerFromElsewhere(approvalId, allow);
      else if (pick === "Deny" && deny) await this.answerFromElsewhere(approvalId, deny);
      else if (pick === "Show") await this.show(approvalId);
    });
  }

  /** Answers from outside the chat (notification): always through _acp-bridge/approvals/respond. */
  private async answerFromElsewhere(approvalId: string, optionId: string): Promise<void> {
    const err = await this.coordinator.answer(approvalId, optionId, { viaRespond: true });
    if (err) void vscode.window.showWarningMessage(`ACP Bridge: ${err}`);
  }

  /**
   * The keybindings (never bypass, never a stored rule): Allow once or Deny on the card that
   * waits longest, from anywhere in the window, through the same path as the card's button.
   * Returns what was answered, or why nothing was.
   */
  async answerOldest(want: "allow" | "deny"): Promise<string> {
    const a = this.d.store.oldestPending();
    if (!a) return "no approvals pending";
    const optionId = quickOption(a.options, want);
    const what = `${a.meta.agent ?? "agent"}: ${a.meta.specifier ?? a.tool.command ?? a.tool.title}`;
    if (!optionId) {
      await this.show(a.approvalId, true);
      return `the oldest card (${what}) has no ${want === "allow" ? "Allow once" : "Deny"} option; it is shown`;
    }
    await this.coordinator.answer(a.approvalId, optionId, {});
    return `${want === "allow" ? "Allowed once" : "Denied"}: ${what}`;
  }

  /** The status bar item: the chat, scrolled to the card that waits longest, with focus on it. */
  async showOldest(): Promise<boolean> {
    const a = this.d.store.oldestPending();
    if (!a) return false;
    await this.show(a.approvalId, true);
    return true;
  }

  /** The last card asked to be focused: a view that was not loaded yet gets it again once it is ready. */
  private focusWanted?: { chatId: string; approvalId: string; until: number };

  async show(approvalId: string, focus = false): Promise<void> {
    const a = this.d.store.approval(approvalId);
    if (!a) return;
    this.d.store.setActive(a.chatId);
    this.focusWanted = { chatId: a.chatId, approvalId, until: Date.now() + 10_000 };
    await this.d.reveal(focus);
    this.d.post({ type: "focusApproval", chatId: a.chatId, approvalId });
  }

  /** A webview (re)loaded and got its state: the card asked for just before is focused there too. */
  webviewReady(): void {
    const f = this.focusWanted;
    if (!f || Date.now() > f.until || this.d.store.approval(f.approvalId)?.state !== "pending") return;
    this.d.post({ type: "focusApproval", chatId: f.chatId, approvalId: f.approvalId });
  }

  /** A bridge run ended: its live requests are answered cancelled. */
  bridgeGone(): void {
    this.coordinator.live.releaseAll();
    this.d.pendingChanged(this.coordinator.pendingCount());
  }
}
