// Where the chat shows: the side bar view, the panel view and an editor tab
// ("ACP Bridge: Open Chat in Editor"), all the same webview bundle on the
// same ChatStore. Surfaces fans every host message out to each of them; the
// chat counts as visible when any of them is, and reveal() brings back the
// one the person used last.

import * as vscode from "vscode";
import { renderHtml } from "./chatView";
import type { ChatSurface, Ctx } from "./ctx";
import type { HostMessage, WebviewMessage } from "./protocol";

export const EDITOR_PANEL_TYPE = "acpBridge.chatEditor";

export class Surfaces implements ChatSurface {
  private readonly all: ChatSurface[] = [];
  private last?: ChatSurface;

  constructor(private readonly primary: ChatSurface) {
    this.all.push(primary);
  }

  add(s: ChatSurface): void {
    if (!this.all.includes(s)) this.all.push(s);
  }

  /** The surface the person used last (a webview message came from it). */
  used(s: ChatSurface): void {
    this.last = s;
  }

  post(m: HostMessage): void {
    for (const s of this.all) s.post(m);
  }

  get visible(): boolean {
    return this.all.some((s) => s.visible);
  }

  async reveal(focus = false): Promise<void> {
    const visible = this.all.filter((s) => s.visible);
    if (this.last && visible.includes(this.last)) return this.last.reveal(focus);
    if (visible.length) return visible[0].reveal(focus);
    // A closed editor tab is not brought back for a card: the side bar is.
    const last = this.last instanceof ChatEditorPanel && !this.last.isOpen ? undefined : this.last;
    return (last ?? this.primary).reveal(focus);
  }
}

/** The chat in an editor tab: one WebviewPanel, created on demand, revealed when it exists. */
export class ChatEditorPanel implements ChatSurface {
  private panel?: vscode.WebviewPanel;

  constructor(
    private readonly extUri: vscode.Uri,
    private readonly ctx: Ctx,
    private readonly onMessage: (s: ChatSurface) => void,
  ) {}

  get visible(): boolean {
    return !!this.panel?.visible;
  }

  get isOpen(): boolean {
    return !!this.panel;
  }

  post(m: HostMessage): void {
    void this.panel?.webview.postMessage(m);
  }

  async reveal(): Promise<void> {
    this.open();
  }

  open(column: vscode.ViewColumn = vscode.ViewColumn.Active): void {
    if (this.panel) {
      this.panel.reveal(undefined, false);
      return;
    }
    const dist = vscode.Uri.joinPath(this.extUri, "dist");
    const panel = vscode.window.createWebviewPanel(EDITOR_PANEL_TYPE, "ACP Bridge Chat", column, {
      enableScripts: true,
      retainContextWhenHidden: false,
      localResourceRoots: [dist],
    });
    this.adopt(panel);
  }

  /**
   * Serves the chat in panel: one this class created, or one VS Code restores
   * after a window reload (registerWebviewPanelSerializer in extension.ts). The
   * page asks the host for the chats when it loads, as after any webview reload.
   */
  adopt(panel: vscode.WebviewPanel): void {
    if (this.panel && this.panel !== panel) {
      // One chat tab: a second restored one (two were open before a reload) closes.
      panel.dispose();
      return;
    }
    const dist = vscode.Uri.joinPath(this.extUri, "dist");
    panel.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    panel.iconPath = vscode.Uri.joinPath(this.extUri, "media", "icon.svg");
    panel.webview.html = renderHtml(panel.webview, dist);
    panel.webview.onDidReceiveMessage((m: WebviewMessage) => {
      this.onMessage(this);
      this.ctx.onWebviewMessage(m).catch((e) => this.ctx.output.appendLine(`webview message ${m.type} failed: ${(e as Error).message}`));
    });
    panel.onDidChangeViewState(() => {
      if (!panel.visible) this.ctx.approvals.notifyPending();
    });
    panel.onDidDispose(() => {
      if (this.panel === panel) this.panel = undefined;
      this.ctx.approvals.notifyPending();
    });
    this.panel = panel;
  }
}
