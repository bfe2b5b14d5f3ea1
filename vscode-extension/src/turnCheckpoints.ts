// A checkpoint before each turn and a "changes" item after it (docs/vscode-extension.md,
// "Checkpoints, changes and history"). The user message of the turn carries the
// checkpoint it can be restored to; the changes item lists every file the turn
// changed by any route (the agent's own tools, the editor's fs/write, a shell
// command), read from the checkpoint diff before -> after. No vscode import.

import type { CheckpointStore } from "./checkpoints";
import type { ChatStore } from "./model";
import type { ChatItem } from "./protocol";

export class TurnCheckpoints {
  private warned = false;

  constructor(
    private readonly store: ChatStore,
    /** The checkpoint store, or undefined when checkpoints are off (no workspace folder, no git). */
    private readonly checkpoints: () => CheckpointStore | undefined,
    private readonly log: (l: string) => void,
  ) {}

  /** Records the workspace before the turn of the user message itemId; returns the checkpoint. */
  async before(chatId: string, itemId: string): Promise<string | undefined> {
    const cps = this.checkpoints();
    if (!cps) return undefined;
    try {
      const id = await cps.snapshot(`before turn ${this.store.turnOf(chatId)} of ${chatId}`);
      this.store.patchItem(chatId, itemId, "user", { checkpoint: id });
      return id;
    } catch (e) {
      this.failed(chatId, e);
      return undefined;
    }
  }

  /** Records the workspace after the turn and adds what changed since `from`, if anything did. */
  async after(chatId: string, from: string): Promise<void> {
    const cps = this.checkpoints();
    if (!cps) return;
    try {
      const to = await cps.snapshot(`after turn ${this.store.turnOf(chatId)} of ${chatId}`);
      const files = await cps.changes(from, to);
      if (files.length) this.store.addItem(chatId, { kind: "changes", turn: this.store.turnOf(chatId), from, to, files });
    } catch (e) {
      this.failed(chatId, e);
    }
  }

  private failed(chatId: string, e: unknown): void {
    this.log(`checkpoint failed: ${(e as Error).message}`);
    if (this.warned) return;
    this.warned = true;
    this.store.addNotice(chatId, `No checkpoint for this turn: ${(e as Error).message}. Restore and the changes list are not available for it (details in the ACP Bridge output).`, "warn");
  }
}

/** Every checkpoint a chat can still restore or diff: its messages', its changes' and its redo points. */
export function checkpointsOf(chats: { items: readonly ChatItem[] }[]): Set<string> {
  const ids = new Set<string>();
  for (const c of chats)
    for (const i of c.items) {
      if (i.kind === "user" && i.checkpoint) ids.add(i.checkpoint);
      else if (i.kind === "changes") ids.add(i.from).add(i.to);
      else if (i.kind === "restored") ids.add(i.redo);
    }
  return ids;
}
