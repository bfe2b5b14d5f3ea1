// Chats that last (docs/vscode-extension.md, "Chats that last"): what is kept per
// workspace so that a window reload or a bridge restart loses no chat and no card.
//   - the chats themselves (ChatStore.serialize, bounded) in workspaceState,
//     saved a moment after every change and at deactivation;
//   - where this workspace's bridge can be re-attached: socket and pid in
//     workspaceState, the token in SecretStorage (never in a file an agent could read);
//   - the attach directory: 0700, under $XDG_RUNTIME_DIR (else the temp
//     directory), one per workspace; the bridge masks it in every agent's sandbox.

import * as crypto from "node:crypto";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { AttachRecord } from "./bridgeHost";
import type { ChatStore, PersistedChats } from "./model";

const CHATS_KEY = "acpBridge.chats.v1";
const ATTACH_KEY = "acpBridge.attach.v1";

export class Lasting implements vscode.Disposable {
  private timer?: NodeJS.Timeout;
  private readonly wsHash: string;

  constructor(
    private readonly ext: vscode.ExtensionContext,
    private readonly store: ChatStore,
    workspace: string,
    private readonly log: (l: string) => void,
  ) {
    this.wsHash = crypto.createHash("sha256").update(workspace).digest("hex").slice(0, 12);
  }

  /** Brings back this workspace's chats; then saves them after every change. */
  restore(): void {
    const n = this.store.restore(this.ext.workspaceState.get<PersistedChats>(CHATS_KEY));
    if (n) this.log(`restored ${n} chat(s) of this workspace`);
    this.store.onChange = () => this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), 400);
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    try {
      await this.ext.workspaceState.update(CHATS_KEY, this.store.serialize());
    } catch (e) {
      this.log(`could not keep the chats: ${(e as Error).message}`);
    }
  }

  /** The grace period (acpBridge.bridge.graceSeconds, 0 = off) and the socket's directory. */
  attach(): { dir: string; graceSeconds: number } | undefined {
    const grace = vscode.workspace.getConfiguration("acpBridge").get<number>("bridge.graceSeconds", 120);
    if (!grace || grace <= 0 || process.platform === "win32") return undefined;
    const base = process.env["XDG_RUNTIME_DIR"] || os.tmpdir();
    const uid = typeof process.getuid === "function" ? process.getuid() : 0;
    return { dir: path.join(base, `acp-bridge-${uid}-${this.wsHash}`), graceSeconds: grace };
  }

  async record(): Promise<AttachRecord | undefined> {
    const r = this.ext.workspaceState.get<{ socket: string; pid: number }>(ATTACH_KEY);
    if (!r?.socket) return undefined;
    const token = await this.ext.secrets.get(`${ATTACH_KEY}.${this.wsHash}`);
    return token ? { socket: r.socket, pid: r.pid, token } : undefined;
  }

  async saveRecord(r: AttachRecord | undefined): Promise<void> {
    if (!r) {
      if (!this.ext.workspaceState.get(ATTACH_KEY)) return;
      await this.ext.workspaceState.update(ATTACH_KEY, undefined);
      await this.ext.secrets.delete(`${ATTACH_KEY}.${this.wsHash}`);
      return;
    }
    await this.ext.secrets.store(`${ATTACH_KEY}.${this.wsHash}`, r.token);
    await this.ext.workspaceState.update(ATTACH_KEY, { socket: r.socket, pid: r.pid });
  }

  dispose(): void {
    void this.flush();
  }
}

/**
 * "Restart Bridge" with turns running asks first, naming the chats. Nothing
 * restarts by default: VS Code focuses a modal's first button and never its close
 * affordance, so the first (focused, Enter) button is "Keep Them Running", Escape
 * and Cancel do the same, and only the explicit "Restart and Stop Them" restarts.
 */
export async function confirmRestart(busyTitles: string[]): Promise<boolean> {
  if (!busyTitles.length) return true;
  const keep = { title: "Keep Them Running" };
  const restart = { title: "Restart and Stop Them" };
  const pick = await vscode.window.showWarningMessage(
    `Restart the ACP Bridge? ${busyTitles.length === 1 ? "A turn is" : `${busyTitles.length} turns are`} running: ${busyTitles.map((t) => `"${t}"`).join(", ")}.`,
    { modal: true, detail: "Restarting stops them and expires their pending approvals. The chats and their history stay." },
    keep,
    restart,
  );
  return pick === restart;
}
