// Closed chats, kept per workspace (workspaceState), newest first, listed by the
// "Chat History" command with agent, title and time, searchable through their
// whole text, and reopened (Chats.reopen). Pure: the storage is passed in.

import type { PersistedChats } from "./model";

export type ChatEntry = PersistedChats["chats"][number];

export interface HistoryEntry {
  closedAt: number;
  chat: ChatEntry;
}

/** At most this many closed chats are kept (the newest). */
export const HISTORY_MAX = 50;
/** At most this many bytes of JSON in all (the oldest go first). */
export const HISTORY_MAX_BYTES = 8 << 20;

export interface HistoryStorage {
  get(): HistoryEntry[] | undefined;
  set(v: HistoryEntry[]): Thenable<void> | Promise<void>;
}

export class ChatHistory {
  constructor(private readonly storage: HistoryStorage) {}

  list(): HistoryEntry[] {
    const v = this.storage.get();
    return Array.isArray(v) ? v.filter((e) => e?.chat?.info?.chatId) : [];
  }

  async add(chat: ChatEntry, closedAt = Date.now()): Promise<void> {
    // Nothing said yet: nothing to keep.
    if (!chat.items.some((i) => i.kind === "user" || i.kind === "agent")) return;
    let all = [{ closedAt, chat }, ...this.list()].slice(0, HISTORY_MAX);
    while (all.length > 1 && JSON.stringify(all).length > HISTORY_MAX_BYTES) all = all.slice(0, -1);
    await this.storage.set(all);
  }

  /** Takes an entry out (it is open again). */
  async take(closedAt: number, chatId: string): Promise<HistoryEntry | undefined> {
    const all = this.list();
    const i = all.findIndex((e) => e.closedAt === closedAt && e.chat.info.chatId === chatId);
    if (i < 0) return undefined;
    const [e] = all.splice(i, 1);
    await this.storage.set(all);
    return e;
  }
}

/** The searchable text of a chat: title, agent and every message, card and notice. */
export function chatText(c: ChatEntry): string {
  const parts = [c.info.title, c.info.agent];
  for (const i of c.items) {
    if (i.kind === "user" || i.kind === "agent" || i.kind === "notice") parts.push(i.text);
    else if (i.kind === "tool") parts.push(i.tool.title, i.tool.command ?? "");
    else if (i.kind === "approval") parts.push(i.meta.specifier ?? i.tool.title);
    else if (i.kind === "changes") parts.push(...i.files.map((f) => f.path));
  }
  return parts.join("\n");
}

/** Entries whose text holds every word of the query (case-insensitive), with an excerpt around the first match. */
export function searchHistory(entries: HistoryEntry[], query: string): { entry: HistoryEntry; excerpt?: string }[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const out: { entry: HistoryEntry; excerpt?: string }[] = [];
  for (const entry of entries) {
    if (!words.length) {
      out.push({ entry });
      continue;
    }
    const text = chatText(entry.chat);
    const low = text.toLowerCase();
    if (!words.every((w) => low.includes(w))) continue;
    const at = low.indexOf(words[0]);
    const from = Math.max(0, at - 30);
    out.push({ entry, excerpt: `${from ? "…" : ""}${text.slice(from, at + 60).replace(/\s+/g, " ")}…` });
  }
  return out;
}

/** The first thing the person said, for a history row. */
export function firstMessage(c: ChatEntry): string {
  const u = c.items.find((i) => i.kind === "user");
  return u && u.kind === "user" ? u.text.split("\n")[0].slice(0, 120) : "";
}
