// Context for prompts on the VS Code side: picking @file (a quick pick of
// workspace files), the editor's selection and the open editors; checking
// each file against the bridge's policy (a Read the policy denies is refused
// with a message, never embedded silently); and, when a prompt is sent, the
// ACP blocks for the agent's promptCapabilities (promptBlocks.ts).

import * as path from "node:path";
import * as vscode from "vscode";
import type { BridgeConnection } from "./client";
import { agentPromptCaps, promptBlocks, sliceRange, type ContentBlock } from "./promptBlocks";
import type { ContextRef } from "./protocol";

export interface PromptContextDeps {
  connection(): BridgeConnection | undefined;
  log(line: string): void;
}

const MAX_FILES = 5000;

export class PromptContext {
  constructor(private readonly d: PromptContextDeps) {}

  /** Refs the person picks; the ones the policy denies are refused with a message. */
  async pick(what: "file" | "selection" | "editors", agent: string): Promise<ContextRef[]> {
    const refs = what === "file" ? await this.pickFiles() : what === "selection" ? this.selection() : this.openEditors();
    if (what === "selection" && refs.length === 0) {
      void vscode.window.showInformationMessage("ACP Bridge: select some text in an editor first.");
      return [];
    }
    if (what === "editors" && refs.length === 0) {
      void vscode.window.showInformationMessage("ACP Bridge: no file is open in an editor.");
      return [];
    }
    const { allowed, refused } = await this.check(refs, agent);
    if (refused.length) {
      void vscode.window.showWarningMessage(`ACP Bridge: not attached: ${refused.join("; ")}.`);
    }
    return allowed;
  }

  private async pickFiles(): Promise<ContextRef[]> {
    const files = await vscode.workspace.findFiles("**/*", "**/{node_modules,.git}/**", MAX_FILES);
    const items = files
      .map((uri) => ({ label: path.basename(uri.fsPath), description: vscode.workspace.asRelativePath(uri, false), uri }))
      .sort((a, b) => a.description.localeCompare(b.description));
    const pick = await vscode.window.showQuickPick(items, {
      title: "ACP Bridge: attach a file to the message",
      placeHolder: "Type to find a file (the agent gets a link to it, and its text when the agent accepts embedded context)",
      matchOnDescription: true,
    });
    return pick ? [fileRef(pick.uri)] : [];
  }

  /** The selection of the active editor, else of the first visible editor that has one. */
  private selection(): ContextRef[] {
    const eds = [vscode.window.activeTextEditor, ...vscode.window.visibleTextEditors].filter((e): e is vscode.TextEditor => !!e && e.document.uri.scheme === "file");
    const ed = eds.find((e) => !e.selection.isEmpty);
    if (!ed) return [];
    const s = ed.selection;
    const range = { startLine: s.start.line + 1, startCharacter: s.start.character, endLine: s.end.line + 1, endCharacter: s.end.character };
    const base = path.basename(ed.document.uri.fsPath);
    return [{ ...fileRef(ed.document.uri), kind: "selection", label: `${base}:${range.startLine}${range.endLine !== range.startLine ? `-${range.endLine}` : ""}`, range }];
  }

  private openEditors(): ContextRef[] {
    const seen = new Set<string>();
    const out: ContextRef[] = [];
    for (const g of vscode.window.tabGroups.all) {
      for (const t of g.tabs) {
        const uri = t.input instanceof vscode.TabInputText ? t.input.uri : undefined;
        if (!uri || uri.scheme !== "file" || seen.has(uri.toString())) continue;
        seen.add(uri.toString());
        out.push(fileRef(uri));
      }
    }
    return out;
  }

  /** Asks the bridge's policy whether the agent may read each file (_acp-bridge/policy/explain). */
  async check(refs: ContextRef[], agent: string): Promise<{ allowed: ContextRef[]; refused: string[] }> {
    const allowed: ContextRef[] = [];
    const refused: string[] = [];
    const conn = this.d.connection();
    for (const r of refs) {
      if (!conn) {
        refused.push(`${r.label} (the bridge is not running, so its policy cannot be checked)`);
        continue;
      }
      try {
        const v = await conn.explain({ tool: "Read", input: { file_path: r.path }, agent });
        if (v.decision === "deny") refused.push(`${r.label}: the policy denies ${agent} reading it${v.rule ? ` (rule ${v.rule})` : ""}${v.reason ? `: ${v.reason}` : ""}`);
        else allowed.push(r);
      } catch (e) {
        refused.push(`${r.label} (could not check it with the bridge's policy: ${(e as Error).message})`);
      }
    }
    return { allowed, refused };
  }

  /**
   * The prompt's blocks for `agent`: checked again (rules may have changed
   * since the chip was added), texts read from open documents or disk.
   */
  async blocks(agent: string, text: string, refs: ContextRef[]): Promise<{ blocks: ContentBlock[]; refused: string[] }> {
    const { allowed, refused } = await this.check(refs, agent);
    let caps;
    try {
      const list = (await this.d.connection()?.listAgents()) ?? [];
      caps = agentPromptCaps(list.find((a) => a.id === agent));
    } catch (e) {
      this.d.log(`agents/list failed: ${(e as Error).message}`);
    }
    const withText: { ref: ContextRef; text?: string }[] = [];
    for (const ref of allowed) {
      let body: string | undefined;
      if (caps?.embeddedContext) {
        try {
          const whole = await readText(ref.path);
          body = ref.range ? sliceRange(whole, ref.range) : whole;
        } catch (e) {
          this.d.log(`context ${ref.path}: ${(e as Error).message}`);
        }
      }
      withText.push({ ref, text: body });
    }
    return { blocks: promptBlocks(text, withText, caps), refused };
  }
}

function fileRef(uri: vscode.Uri): ContextRef {
  return { kind: "file", uri: uri.toString(), path: uri.fsPath, label: path.basename(uri.fsPath) };
}

/** The open document's text (unsaved edits included), else the file on disk. */
async function readText(p: string): Promise<string> {
  const uri = vscode.Uri.file(p);
  const open = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === uri.fsPath);
  if (open) return open.getText();
  return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
}
