// fs/read_text_file and fs/write_text_file for the bridge's agents, through
// VS Code's documents: a read of an open document gets its text as the editor
// shows it (unsaved edits included); a write to an open document goes through
// a WorkspaceEdit (so unsaved content is neither clobbered on disk nor lost:
// it is one undo step away) and the document is then saved. A file no editor
// holds is read and written on disk.

import * as vscode from "vscode";
import { sliceLines } from "./text";

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === "file" && d.uri.fsPath === uri.fsPath);
}

export async function readTextFile(path: string, line?: number | null, limit?: number | null): Promise<{ content: string }> {
  const uri = vscode.Uri.file(path);
  const open = openDocument(uri);
  const text = open ? open.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  return { content: sliceLines(text, line, limit) };
}

export async function writeTextFile(path: string, content: string): Promise<void> {
  const uri = vscode.Uri.file(path);
  const doc = openDocument(uri);
  if (!doc) {
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(content));
    return;
  }
  const edit = new vscode.WorkspaceEdit();
  edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), content);
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`VS Code refused the edit of ${path}`);
  if (!(await doc.save())) throw new Error(`${path} was edited in its editor but could not be saved`);
}
