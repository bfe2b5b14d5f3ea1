// The chat WebviewView in the ACP Bridge activity-bar container: its HTML
// shell (strict CSP with a nonce, local scripts, styles and codicons only) and
// the message pipe to Ctx. The view may be disposed when hidden; on every
// (re)load the webview says "ready" and gets a full snapshot back.

import * as crypto from "node:crypto";
import * as vscode from "vscode";
import type { Ctx, ChatSurface } from "./ctx";
import type { HostMessage, WebviewMessage } from "./protocol";

export const VIEW_ID = "acpBridge.chat";
/** The same chat in the panel's own view container (package.json viewsContainers.panel). */
export const PANEL_VIEW_ID = "acpBridge.chatPanel";

export class ChatViewProvider implements vscode.WebviewViewProvider, ChatSurface {
  private view?: vscode.WebviewView;
  /** Told when a message comes from this view (Surfaces reveals the one used last). */
  onUsed?: (s: ChatSurface) => void;

  constructor(
    private readonly extUri: vscode.Uri,
    private readonly ctx: Ctx,
    readonly viewId: string = VIEW_ID,
  ) {}

  get visible(): boolean {
    return !!this.view?.visible;
  }

  post(m: HostMessage): void {
    void this.view?.webview.postMessage(m);
  }

  async reveal(focus = false): Promise<void> {
    if (this.view) {
      this.view.show(!focus); // show(preserveFocus)
      return;
    }
    await vscode.commands.executeCommand(`${this.viewId}.focus`);
  }

  private badgeCount = 0;

  /** The view's icon carries the number of pending approvals (WebviewView.badge). */
  setBadge(n: number): void {
    this.badgeCount = n;
    if (this.view) this.view.badge = badgeFor(n);
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.badge = badgeFor(this.badgeCount);
    const dist = vscode.Uri.joinPath(this.extUri, "dist");
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    view.webview.html = renderHtml(view.webview, dist);
    view.webview.onDidReceiveMessage((m: WebviewMessage) => {
      this.onUsed?.(this);
      this.ctx.onWebviewMessage(m).catch((e) => this.ctx.output.appendLine(`webview message ${m.type} failed: ${(e as Error).message}`));
    });
    // Hidden while a card waits: the notification takes over (once per card).
    view.onDidChangeVisibility(() => {
      if (!view.visible) this.ctx.approvals.notifyPending();
    });
    view.onDidDispose(() => {
      if (this.view === view) this.view = undefined;
      this.ctx.approvals.notifyPending();
    });
  }
}

function badgeFor(n: number): vscode.ViewBadge | undefined {
  return n > 0 ? { value: n, tooltip: `${n} approval${n === 1 ? "" : "s"} pending` } : undefined;
}

export function renderHtml(webview: vscode.Webview, dist: vscode.Uri): string {
  const nonce = crypto.randomBytes(18).toString("base64");
  const uri = (p: string) => webview.asWebviewUri(vscode.Uri.joinPath(dist, p)).toString();
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${uri("codicons/codicon.css")}">
<link rel="stylesheet" href="${uri("webview.css")}">
<title>ACP Bridge</title>
</head>
<body>
<div id="app" role="application" aria-label="ACP Bridge chat"></div>
<script nonce="${nonce}" src="${uri("webview.js")}"></script>
</body>
</html>`;
}
