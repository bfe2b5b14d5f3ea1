// fs/read_text_file and fs/write_text_file for the bridge's agents: the
// editor's open documents only. The bridge does every disk read and write
// itself, on exactly the path its policy judged, refusing any symbolic link
// that appeared since (docs/policy.md, "What is judged is what is done: the
// file service"); it asks the editor (with _meta["acp-bridge"].openDocumentOnly,
// and the resolved path) only whether a document of exactly that file URI is
// open. So this file never touches the disk:
//   - a read of an open document gets its text as the editor shows it
//     (unsaved edits included); otherwise the answer says notOpen;
//   - a write to an open document with unsaved changes is applied as a
//     WorkspaceEdit and not saved (the person saves; it is one undo step
//     away); a document that is not open, or open without unsaved changes,
//     gets notOpen and the bridge writes the disk (VS Code reloads a clean
//     open document by itself).
// The initialize request says openDocumentFs (client.ts): a bridge forwards
// fs/* only to an editor that says so.
//
// No runtime vscode import: the host (ctx.ts: vscodeFsHost(vscode)) is
// injected, so this is unit-tested (test/unit/fsOps.test.ts).

import type * as vscode from "vscode";
import { sliceLines } from "./text";

/** What the bridge gets for a path no open document holds (or a clean one, on a write). */
export const NOT_OPEN = { "acp-bridge": { notOpen: true } } as const;

export interface OpenDoc {
  getText(): string;
  readonly isDirty: boolean;
}

/** The editor's documents, as fsOps needs them. */
export interface FsHost {
  /** The open text document whose URI is exactly file:// + path, if any. */
  openDocument(path: string): OpenDoc | undefined;
  /** Replace the whole text of doc (open at path), unsaved; false if the editor refused. */
  replaceAll(path: string, doc: OpenDoc, content: string): Promise<boolean>;
}

export type ReadAnswer = { content: string; _meta?: typeof NOT_OPEN };
export type WriteAnswer = { _meta?: typeof NOT_OPEN };

export async function readTextFile(host: FsHost, path: string, line?: number | null, limit?: number | null): Promise<ReadAnswer> {
  const doc = host.openDocument(path);
  if (!doc) return { content: "", _meta: NOT_OPEN };
  return { content: sliceLines(doc.getText(), line, limit) };
}

export async function writeTextFile(host: FsHost, path: string, content: string): Promise<WriteAnswer> {
  const doc = host.openDocument(path);
  if (!doc || !doc.isDirty) return { _meta: NOT_OPEN };
  if (!(await host.replaceAll(path, doc, content))) throw new Error(`VS Code refused the edit of ${path}`);
  return {};
}

/** The FsHost of a running VS Code (vs is the vscode module). */
export function vscodeFsHost(vs: typeof vscode): FsHost {
  const find = (path: string) => {
    const want = vs.Uri.file(path).toString();
    return vs.workspace.textDocuments.find((d) => d.uri.scheme === "file" && d.uri.toString() === want);
  };
  return {
    openDocument: find,
    replaceAll: async (path, _doc, content) => {
      const doc = find(path);
      if (!doc) return false;
      const edit = new vs.WorkspaceEdit();
      edit.replace(doc.uri, new vs.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), content);
      return vs.workspace.applyEdit(edit);
    },
  };
}
