// Edits in VS Code's diff editor. "Open diff" on a card opens `vscode.diff`
// on two read-only virtual documents of our scheme (acp-bridge-diff:), titled
// with the file. While the card's approval is pending, the diff editor's
// title bar shows Allow once / Deny (package.json menus editor/title, `when`
// on our scheme and the context key acpBridge.pendingDiffs, the paths of the
// right-hand documents whose approval still waits); they answer the approval
// exactly as the card's buttons do. Once it is answered the key drops the
// path, the actions disappear, and the card shows how it ended.

import * as path from "node:path";
import * as vscode from "vscode";
import { quickOption } from "./approvals";
import type { ChatStore } from "./model";
import type { DiffView } from "./protocol";
import { approvalOfDiffPath, diffSides } from "./diffSides";

export const DIFF_SCHEME = "acp-bridge-diff";
export const PENDING_KEY = "acpBridge.pendingDiffs";

export class DiffDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly docs = new Map<string, string>();
  /** approvalId -> paths of the right-hand documents opened for it. */
  private readonly byApproval = new Map<string, Set<string>>();
  private seq = 0;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly store: ChatStore,
    private readonly answer: (approvalId: string, optionId: string) => Promise<void>,
  ) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this),
      vscode.commands.registerCommand("acpBridge.diffAllowOnce", (uri?: vscode.Uri) => this.answerFromDiff(uri, "allow")),
      vscode.commands.registerCommand("acpBridge.diffDeny", (uri?: vscode.Uri) => this.answerFromDiff(uri, "deny")),
    );
    void this.refresh();
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.toString()) ?? "";
  }

  /** Opens the diff; with approvalId, it can be answered from the diff editor while pending. */
  async open(d: DiffView, approvalId?: string): Promise<void> {
    let current: string | undefined;
    try {
      const uri = vscode.Uri.file(d.path);
      const open = vscode.workspace.textDocuments.find((x) => x.uri.fsPath === uri.fsPath);
      current = open ? open.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    } catch {
      current = undefined; // a new file, or not readable: show the texts as sent
    }
    const sides = diffSides(d, current);
    const base = path.basename(d.path) || "file";
    const n = ++this.seq;
    const owner = approvalId ? `a:${encodeURIComponent(approvalId)}` : "t";
    const left = vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${owner}/${n}/old/${base}` });
    const right = vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${owner}/${n}/new/${base}` });
    this.docs.set(left.toString(), sides.left);
    this.docs.set(right.toString(), sides.right);
    if (approvalId) {
      const set = this.byApproval.get(approvalId) ?? new Set<string>();
      set.add(right.path);
      this.byApproval.set(approvalId, set);
    }
    await this.refresh();
    const what = d.oldText === null ? "new file" : sides.whole ? "proposed edit" : "proposed edit, excerpt";
    await vscode.commands.executeCommand("vscode.diff", left, right, `${base} (${what})`, { preview: true });
  }

  /** Recomputes the context key from the store: only approvals still waiting keep their actions. */
  async refresh(): Promise<void> {
    const pending: string[] = [];
    for (const [approvalId, paths] of this.byApproval) {
      if (this.store.approval(approvalId)?.state === "pending") pending.push(...paths);
    }
    await vscode.commands.executeCommand("setContext", PENDING_KEY, pending);
  }

  private async answerFromDiff(uri: vscode.Uri | undefined, want: "allow" | "deny"): Promise<void> {
    const target = uri?.scheme === DIFF_SCHEME ? uri : activeDiffRight();
    const approvalId = target ? approvalOfDiffPath(target.path) : undefined;
    const a = approvalId ? this.store.approval(approvalId) : undefined;
    if (!approvalId || !a) {
      void vscode.window.showInformationMessage("ACP Bridge: this diff has no pending approval.");
      return;
    }
    if (a.state !== "pending") {
      void vscode.window.showInformationMessage("ACP Bridge: that approval was already answered.");
      await this.refresh();
      return;
    }
    const optionId = quickOption(a.options, want);
    if (!optionId) {
      void vscode.window.showWarningMessage(`ACP Bridge: the card offers no ${want === "allow" ? "Allow once" : "Deny"} option; answer it on the card.`);
      return;
    }
    await this.answer(approvalId, optionId);
    await this.refresh();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function activeDiffRight(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputTextDiff && input.modified.scheme === DIFF_SCHEME ? input.modified : undefined;
}
