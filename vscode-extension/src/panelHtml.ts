// The HTML shell of the extension's own webview panels (the audit view, the
// rules editor): a strict CSP with one nonce'd script, codicons, the panel's
// stylesheet and one root element the panel's script renders into. Written
// once here; each panel names its files, title and root.
import * as crypto from "node:crypto";
import * as vscode from "vscode";

export interface PanelPage {
  /** The stylesheet and the script under dist/ (e.g. "rules.css", "rules.js"). */
  css: string;
  js: string;
  title: string;
  /** The id of the element the script renders into, and its accessible name. */
  rootId: string;
  label: string;
}

export function panelHtml(webview: vscode.Webview, dist: vscode.Uri, p: PanelPage): string {
  const nonce = crypto.randomBytes(18).toString("base64");
  const uri = (f: string) => webview.asWebviewUri(vscode.Uri.joinPath(dist, f)).toString();
  const csp = ["default-src 'none'", `script-src 'nonce-${nonce}'`, `style-src ${webview.cspSource}`, `font-src ${webview.cspSource}`].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${uri("codicons/codicon.css")}">
<link rel="stylesheet" href="${uri(p.css)}">
<title>${p.title}</title>
</head>
<body>
<div id="${p.rootId}" role="application" aria-label="${p.label}"></div>
<script nonce="${nonce}" src="${uri(p.js)}"></script>
</body>
</html>`;
}
