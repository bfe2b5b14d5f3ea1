// "ACP Bridge: Open Audit Log": the bridge's audit JSON lines as a table in a
// webview (time, agent, tool, specifier, decision, source/rule; filters by
// agent, decision and text, in webview/audit.ts), updated when the file
// grows (fs.watchFile: it also sees a rotation, when the file gets shorter).
// "Open raw JSON lines" (a button in the view, and a command) opens the file
// itself.

import * as fs from "node:fs";
import * as vscode from "vscode";
import { panelHtml } from "./panelHtml";
import { parseAuditLines, splitComplete, type AuditRow } from "./auditRows";

export type AuditHostMessage = { type: "rows"; reset: boolean; rows: AuditRow[]; path: string; missing?: boolean };
export type AuditWebviewMessage = { type: "ready" } | { type: "openRaw" };

export class AuditView implements vscode.Disposable {
  private panel?: vscode.WebviewPanel;
  private offset = 0;
  private lines = 0;
  private rest = "";
  private watching?: string;
  private reading = Promise.resolve();

  constructor(
    private readonly extUri: vscode.Uri,
    private readonly auditPath: () => string,
  ) {}

  open(): void {
    if (this.panel) {
      this.panel.reveal();
      return;
    }
    const dist = vscode.Uri.joinPath(this.extUri, "dist");
    const panel = vscode.window.createWebviewPanel("acpBridge.audit", "ACP Bridge Audit Log", vscode.ViewColumn.Active, { enableScripts: true, localResourceRoots: [dist] });
    panel.webview.html = auditHtml(panel.webview, dist);
    panel.webview.onDidReceiveMessage((m: AuditWebviewMessage) => {
      if (m.type === "ready") this.reload();
      else if (m.type === "openRaw") void openRawAuditLog(this.auditPath());
    });
    panel.onDidDispose(() => {
      if (this.panel === panel) this.panel = undefined;
      this.unwatch();
    });
    this.panel = panel;
  }

  /** Everything again, from the start of the file (a new view, a rotation). */
  private reload(): void {
    this.offset = 0;
    this.lines = 0;
    this.rest = "";
    this.watch();
    this.readMore(true);
  }

  private watch(): void {
    const p = this.auditPath();
    if (this.watching === p) return;
    this.unwatch();
    this.watching = p;
    fs.watchFile(p, { interval: 300 }, (cur) => {
      if (cur.size < this.offset) this.reload(); // rotated or truncated
      else if (cur.size > this.offset) this.readMore(false);
    });
  }

  private unwatch(): void {
    if (this.watching) fs.unwatchFile(this.watching);
    this.watching = undefined;
  }

  /** Reads what was appended since the last read and sends its complete lines. */
  private readMore(reset: boolean): void {
    this.reading = this.reading.then(async () => {
      const p = this.auditPath();
      let chunk = "";
      try {
        const fh = await fs.promises.open(p, "r");
        try {
          const { size } = await fh.stat();
          if (size > this.offset) {
            const buf = Buffer.alloc(size - this.offset);
            await fh.read(buf, 0, buf.length, this.offset);
            this.offset = size;
            chunk = buf.toString("utf8");
          }
        } finally {
          await fh.close();
        }
      } catch {
        void this.panel?.webview.postMessage({ type: "rows", reset, rows: [], path: p, missing: true } satisfies AuditHostMessage);
        return;
      }
      const { complete, rest } = splitComplete(this.rest + chunk);
      this.rest = rest;
      const rows = parseAuditLines(complete, this.lines + 1);
      this.lines += complete ? complete.split("\n").length - 1 : 0;
      if (reset || rows.length) void this.panel?.webview.postMessage({ type: "rows", reset, rows, path: p } satisfies AuditHostMessage);
    });
  }

  dispose(): void {
    this.unwatch();
    this.panel?.dispose();
  }
}

export async function openRawAuditLog(p: string): Promise<void> {
  if (!fs.existsSync(p)) {
    void vscode.window.showInformationMessage(`ACP Bridge: no audit log yet at ${p}.`);
    return;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(p));
  await vscode.window.showTextDocument(doc, { preview: true });
}

function auditHtml(webview: vscode.Webview, dist: vscode.Uri): string {
  return panelHtml(webview, dist, { css: "audit.css", js: "audit.js", title: "ACP Bridge Audit Log", rootId: "audit", label: "ACP Bridge audit log" });
}
