// The editor's side of checkpoints, changes and history (docs/vscode-extension.md,
// "Checkpoints, changes and history"):
//   - checkpoint documents (scheme acp-bridge-checkpoint:, read-only) for the diff editors;
//   - "Restore checkpoint" on a user message: opens what it changes in the multi-file
//     diff (vscode.changes), asks, restores, and offers a redo;
//   - a turn's changes: the multi-file diff, one file's diff, keep or undo a file, undo hunks;
//   - closing a chat (asks first while a turn runs or a card waits) keeps it in the
//     history; "Chat History" lists, searches and reopens closed chats.

import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { Chats } from "./chats";
import { CheckpointStore, DEFAULT_MAX_FILE_BYTES, type RestorePlan } from "./checkpoints";
import { ChatHistory, firstMessage, searchHistory, type HistoryEntry } from "./history";
import type { ChatStore } from "./model";
import type { ChatItem, FileChangeView, WebviewMessage } from "./protocol";
import { hunks, undoHunks } from "./review";
import { TurnCheckpoints, checkpointsOf } from "./turnCheckpoints";

export const CHECKPOINT_SCHEME = "acp-bridge-checkpoint";
const HISTORY_KEY = "acpBridge.history.v1";

type ChangesItem = Extract<ChatItem, { kind: "changes" }>;

export class CheckpointUi implements vscode.TextDocumentContentProvider, vscode.Disposable {
  readonly turns: TurnCheckpoints;
  readonly history: ChatHistory;
  private cps?: CheckpointStore;
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly ext: vscode.ExtensionContext,
    private readonly store: ChatStore,
    private readonly chats: () => Chats,
    log: (l: string) => void,
  ) {
    this.turns = new TurnCheckpoints(store, () => this.store0(), log);
    this.history = new ChatHistory({ get: () => ext.workspaceState.get<HistoryEntry[]>(HISTORY_KEY), set: (v) => ext.workspaceState.update(HISTORY_KEY, v) });
    this.subs.push(vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, this));
    this.log = log;
    // The shadow repository is pruned a while after the window starts (not on its way up) and after
    // a chat closes, at most once an hour: checkpoints no open or kept chat refers to are forgotten.
    const t = setTimeout(() => void this.pruneCheckpoints(), 30_000);
    this.subs.push({ dispose: () => clearTimeout(t) });
  }

  private readonly log: (l: string) => void;
  private lastPrune = 0;

  /** Forgets the checkpoints that no open chat and no chat in the history can restore or diff any more. */
  async pruneCheckpoints(): Promise<number> {
    const cps = this.store0();
    if (!cps || Date.now() - this.lastPrune < 60 * 60_000) return 0;
    this.lastPrune = Date.now();
    const open = this.store.chatIds().map((id) => ({ items: this.store.items(id) }));
    const keep = checkpointsOf([...open, ...this.history.list().map((e) => e.chat)]);
    try {
      const n = await cps.prune(keep);
      if (n) this.log(`checkpoints: forgot ${n} that no chat refers to any more`);
      return n;
    } catch (e) {
      this.log(`checkpoints: pruning failed: ${(e as Error).message}`);
      return 0;
    }
  }

  /** The checkpoint store of the first workspace folder, in this workspace's extension storage; none without either. */
  private store0(): CheckpointStore | undefined {
    // User settings only: a workspace's settings file (which an agent could write) cannot turn checkpoints off.
    const cfg = vscode.workspace.getConfiguration("acpBridge");
    const user = <T>(k: string, d: T): T => cfg.inspect<T>(k)?.globalValue ?? d;
    if (!user("checkpoints.enabled", true)) return undefined;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const storage = this.ext.storageUri;
    if (!folder || folder.scheme !== "file" || !storage || storage.scheme !== "file") return undefined;
    const max = Math.max(1, user<number>("checkpoints.maxFileSizeKB", DEFAULT_MAX_FILE_BYTES / 1024)) * 1024;
    if (!this.cps || this.cps.maxFileBytes !== max) {
      this.cps = new CheckpointStore({ gitDir: path.join(storage.fsPath, "checkpoints.git"), workTree: folder.fsPath, maxFileBytes: max });
    }
    return this.cps;
  }

  private need(): CheckpointStore {
    const c = this.store0();
    if (!c) throw new Error("checkpoints are off (acpBridge.checkpoints.enabled, or no workspace folder)");
    return c;
  }

  uri(checkpoint: string, rel: string): vscode.Uri {
    return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${rel}`, query: checkpoint });
  }

  private fileUri(rel: string): vscode.Uri {
    return vscode.Uri.file(path.join(this.need().workTree, rel));
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const data = await this.need().read(uri.query, uri.path.slice(1));
    return data?.toString("utf8") ?? "";
  }

  // ---- restore ------------------------------------------------------------------

  async restore(chatId: string, checkpoint: string): Promise<void> {
    const busy = this.store.chatIds().map((id) => this.store.chat(id)).filter((c) => c?.busy);
    if (busy.length) {
      void vscode.window.showWarningMessage(`ACP Bridge: stop the running turn first (${busy.map((c) => `"${c!.title}"`).join(", ")}): an agent writing during a restore would mix both.`);
      return;
    }
    const cps = this.need();
    const plan = await cps.plan(checkpoint);
    const what = this.describe(chatId, checkpoint);
    if (!plan.changes.length) {
      void vscode.window.showInformationMessage(`ACP Bridge: the workspace already matches the checkpoint ${what}.${skippedLine(plan)}`);
      return;
    }
    if (!(await this.confirm(plan, `Restore the checkpoint ${what}?`, "Restore"))) return;
    await this.applyPlan(chatId, plan, `Restored the workspace ${what}`);
  }

  /** "before "fix the test"" for a user message's checkpoint, "as it was before the restore" for a redo. */
  private describe(chatId: string, checkpoint: string): string {
    for (const it of this.store.items(chatId)) {
      if (it.kind === "user" && it.checkpoint === checkpoint) return `before "${it.text.split("\n")[0].slice(0, 40)}"`;
      if (it.kind === "restored" && it.redo === checkpoint) return "as it was before the restore (redo)";
    }
    return checkpoint.slice(0, 12);
  }

  /** Shows what the plan changes (the multi-file diff, now -> checkpoint) and asks; Cancel is the default. */
  private async confirm(plan: RestorePlan, question: string, yes: string): Promise<boolean> {
    const dirty = vscode.workspace.textDocuments.filter((d) => d.isDirty && plan.changes.some((c) => d.uri.fsPath === path.join(this.need().workTree, c.path)));
    if (dirty.length) {
      void vscode.window.showWarningMessage(`ACP Bridge: save or revert ${dirty.map((d) => vscode.workspace.asRelativePath(d.uri)).join(", ")} first: the restore would overwrite unsaved edits.`);
      return false;
    }
    await vscode.commands.executeCommand(
      "vscode.changes",
      `${question.replace(/\?$/, "")}: what changes`,
      plan.changes.map((c) => [this.fileUri(c.path), this.uri(plan.from, c.path), this.uri(plan.to, c.path)]),
    );
    const lines = plan.changes.map((c) => `${c.action === "delete" ? "delete" : c.action === "create" ? "create" : "change"} ${c.path}`);
    const pick = await vscode.window.showWarningMessage(
      `${question} ${plan.changes.length} file(s) change.`,
      { modal: true, detail: `${lines.slice(0, 30).join("\n")}${lines.length > 30 ? `\n… and ${lines.length - 30} more` : ""}${skippedLine(plan)}\n\nFiles outside the workspace, ignored files and files over the size limit are not touched. The workspace as it is now is kept as a checkpoint: "Redo" brings it back.` },
      yes,
    );
    return pick === yes;
  }

  private async applyPlan(chatId: string, plan: RestorePlan, text: string): Promise<void> {
    await this.need().apply(plan);
    const n = (a: string) => plan.changes.filter((c) => c.action === a).length;
    const summary = [n("write") && `${n("write")} changed`, n("create") && `${n("create")} created`, n("delete") && `${n("delete")} deleted`].filter(Boolean).join(", ");
    this.store.addItem(chatId, { kind: "restored", text: `${text}: ${summary}.${skippedLine(plan)}`, redo: plan.from });
  }

  // ---- a turn's changes ---------------------------------------------------------

  async changeAction(m: Extract<WebviewMessage, { type: "changeAction" }>): Promise<void> {
    const item = this.store.item(m.chatId, m.itemId);
    if (!item || item.kind !== "changes") return;
    const files = m.path ? item.files.filter((f) => f.path === m.path) : item.files.filter((f) => !f.state);
    const title = item.scope === "chat" ? "This chat: what changed" : `Turn ${item.turn}: what changed`;
    switch (m.action) {
      case "review":
        await vscode.commands.executeCommand("vscode.changes", `${title} (${this.store.chat(m.chatId)?.title ?? ""})`, item.files.map((f) => this.changeTriple(item, f)));
        return;
      case "open": {
        const [, left, right] = this.changeTriple(item, files[0]);
        await vscode.commands.executeCommand("vscode.diff", left, right, `${files[0].path} (turn ${item.turn}: before ↔ now)`);
        return;
      }
      case "keep":
        this.mark(m.chatId, item, files.map((f) => f.path), "kept");
        return;
      case "undo": {
        if (!files.length) return;
        const plan = await this.need().plan(item.from, files.map((f) => f.path));
        if (!plan.changes.length) {
          this.mark(m.chatId, item, files.map((f) => f.path), "undone");
          return;
        }
        // One file: undone at once (a redo line comes with it); several: shown and asked first.
        if (files.length > 1 && !(await this.confirm(plan, `Undo turn ${item.turn}'s changes to ${files.length} files?`, "Undo"))) return;
        await this.applyPlan(m.chatId, plan, `Undid turn ${item.turn}'s changes to ${files.map((f) => f.path).join(", ")}`);
        this.mark(m.chatId, item, files.map((f) => f.path), "undone");
        return;
      }
      case "hunks":
        await this.undoHunks(m.chatId, item, files[0]);
        return;
    }
  }

  /**
   * Everything the chat changed since its first message, by any route: the diff from the checkpoint
   * before its first turn to the workspace now, as a changes card in the chat (keep or undo each file
   * or hunk there) and in VS Code's multi-file diff.
   */
  async reviewChat(chatId: string): Promise<void> {
    const first = this.store.items(chatId).find((i) => i.kind === "user" && i.checkpoint);
    const from = first?.kind === "user" ? first.checkpoint : undefined;
    if (!from) {
      void vscode.window.showInformationMessage("ACP Bridge: this chat has no checkpoint yet (no turn ran with checkpoints on).");
      return;
    }
    const cps = this.need();
    const to = await cps.snapshot(`review of ${chatId}`);
    const files = await cps.changes(from, to);
    if (!files.length) {
      this.store.addNotice(chatId, "No file differs from the workspace as it was before this chat's first message.", "info");
      return;
    }
    const itemId = this.store.addItem(chatId, { kind: "changes", scope: "chat", turn: this.store.turnOf(chatId), from, to, files });
    if (itemId) await this.changeAction({ type: "changeAction", chatId, itemId, action: "review" });
  }

  private changeTriple(item: ChangesItem, f: FileChangeView): [vscode.Uri, vscode.Uri, vscode.Uri] {
    const onDisk = fs.existsSync(path.join(this.need().workTree, f.path));
    return [this.fileUri(f.path), this.uri(item.from, f.path), onDisk ? this.fileUri(f.path) : this.uri(item.to, f.path)];
  }

  private async undoHunks(chatId: string, item: ChangesItem, f: FileChangeView | undefined): Promise<void> {
    if (!f) return;
    const cps = this.need();
    const before = (await cps.read(item.from, f.path))?.toString("utf8") ?? "";
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === path.join(cps.workTree, f.path));
    if (doc?.isDirty) throw new Error(`save or revert ${f.path} first`);
    const abs = cps.inside(f.path);
    const now = fs.existsSync(abs) ? fs.readFileSync(abs, "utf8") : "";
    const hs = hunks(f.path, before, now);
    if (!hs.length) {
      this.mark(chatId, item, [f.path], "undone");
      return;
    }
    const picks = await vscode.window.showQuickPick(
      hs.map((h) => ({ label: `Hunk ${h.index + 1}: ${h.first || "(blank line)"}`, description: `${h.header}  −${h.removed} +${h.added}`, index: h.index })),
      // ignoreFocusOut: the diff the person opened to decide can take the focus while it loads.
      { title: `Undo which changes of ${f.path}? (${item.scope === "chat" ? "this chat" : `turn ${item.turn}`}; the others are kept)`, canPickMany: true, ignoreFocusOut: true },
    );
    if (!picks?.length) return;
    cps.write(f.path, undoHunks(f.path, before, now, picks.map((p) => p.index)));
    this.mark(chatId, item, [f.path], picks.length === hs.length ? "undone" : "partly");
    this.store.addNotice(chatId, `Undid ${picks.length} of ${hs.length} change(s) in ${f.path}.`, "info");
  }

  private mark(chatId: string, item: ChangesItem, paths: string[], state: FileChangeView["state"]): void {
    const set = new Set(paths);
    this.store.patchItem(chatId, item.id, "changes", { files: item.files.map((f) => (set.has(f.path) ? { ...f, state } : f)) });
  }

  // ---- closing and history ------------------------------------------------------

  /** Closes a chat, asking first while its turn runs or a card waits; the chat goes to the history. */
  async closeChat(chatId: string): Promise<void> {
    const chat = this.store.chat(chatId);
    if (!chat) return;
    const pending = this.store.pendingApprovals().filter((a) => a.chatId === chatId).length;
    if (chat.busy || pending) {
      const what = [chat.busy && "a turn is running", pending && `${pending} approval${pending === 1 ? "" : "s"} wait${pending === 1 ? "s" : ""}`].filter(Boolean).join(" and ");
      const close = "Close and Stop";
      const pick = await vscode.window.showWarningMessage(
        `Close "${chat.title}"? ${what[0].toUpperCase()}${what.slice(1)}.`,
        { modal: true, detail: "Closing stops the turn and cancels its approvals. The chat stays in the history (ACP Bridge: Chat History)." },
        close,
      );
      if (pick !== close) return;
    }
    const entry = this.store.entry(chatId);
    await this.chats().close(chatId);
    if (entry) await this.history.add(entry);
    void this.pruneCheckpoints();
  }

  async showHistory(): Promise<string | undefined> {
    const all = this.history.list();
    if (!all.length) {
      void vscode.window.showInformationMessage("ACP Bridge: no closed chats in this workspace yet.");
      return undefined;
    }
    type Item = vscode.QuickPickItem & { entry: HistoryEntry };
    const qp = vscode.window.createQuickPick<Item>();
    qp.title = "ACP Bridge: chat history (closed chats of this workspace)";
    qp.placeholder = "Search titles, agents and everything said";
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    const show = (q: string) => {
      qp.items = searchHistory(all, q).map(({ entry, excerpt }) => ({
        label: `$(comment-discussion) ${entry.chat.info.title}`,
        description: `${entry.chat.info.agent} · ${new Date(entry.closedAt).toLocaleString()}`,
        detail: excerpt ?? firstMessage(entry.chat),
        alwaysShow: true, // our own search over the whole text decides what is listed
        entry,
      }));
    };
    show("");
    qp.onDidChangeValue(show);
    const picked = await new Promise<Item | undefined>((resolve) => {
      qp.onDidAccept(() => resolve(qp.selectedItems[0]));
      qp.onDidHide(() => resolve(undefined));
      qp.show();
    });
    qp.dispose();
    if (!picked) return undefined;
    const e = await this.history.take(picked.entry.closedAt, picked.entry.chat.info.chatId);
    if (!e) return undefined;
    const chatId = this.store.reopen(e.chat);
    await this.chats().reopen(chatId);
    return chatId;
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}

function skippedLine(plan: RestorePlan): string {
  return plan.skipped.length ? ` Left as they are: ${plan.skipped.map((s) => `${s.path} (${s.why})`).join("; ")}.` : "";
}
