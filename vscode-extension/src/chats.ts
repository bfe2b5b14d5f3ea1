// Chats: one ACP session each, created on demand, possibly with different
// agents. What a chat does with the bridge (session/new, prompt, set_mode,
// cancel, close) lives here; the transcript itself is the ChatStore (model.ts).
// No vscode import: unit-tested with a fake connection.

import { agentStartMessage } from "./agentHints";
import type { BridgeConnection, LiveSession } from "./client";
import type { ChatStore } from "./model";
import type { ContentBlock } from "./promptBlocks";
import type { ChatInfo, ContextRef } from "./protocol";

export interface ChatsDeps {
  store: ChatStore;
  connection(): Promise<Pick<BridgeConnection, "newSession" | "prompt" | "setMode" | "closeSession"> & Partial<Pick<BridgeConnection, "loadSession">>>;
  /** The connection if the bridge is up now (no waiting). */
  connectionNow(): Pick<BridgeConnection, "closeSession"> | undefined;
  cwd(): string;
  /** The agent of new chats when none is named. */
  defaultAgent(): string;
  /**
   * Resolves once the bridge has answered the editor's settings (it merges
   * them and names the default agent), or after a bound: a chat opened
   * before that names no agent of its own waits for it, so that it is not
   * opened with a default the settings do not name. Absent: no wait.
   */
  settled?(): Promise<void>;
  /** The policy mode a new chat with this agent starts in. */
  agentMode(agent: string): string;
  /** The agent's settings give it bypass permissions. */
  agentBypass(agent: string): boolean;
  /** The agent's configured command, for the install hint. */
  agentCommand(agent: string): { command?: string; args?: string[] } | undefined;
  /** Whether the agent can load sessions (agentCapabilities.loadSession); undefined = not known yet (then it is tried). */
  canLoad?(agent: string): boolean | undefined;
  /** session/cancel of a chat, expiring its cards. */
  cancelChat(chatId: string): Promise<void>;
  /** The blocks of a prompt with attached context, and the refs the policy refused (promptContext.ts). */
  promptBlocks?(agent: string, text: string, refs: ContextRef[]): Promise<{ blocks: ContentBlock[]; refused: string[] }>;
  /** Checkpoints before and after each turn (turnCheckpoints.ts); absent = none. */
  turns?: { before(chatId: string, userItemId: string): Promise<string | undefined>; after(chatId: string, from: string): Promise<void> };
  log(line: string): void;
}

export class Chats {
  constructor(private readonly d: ChatsDeps) {}

  /** A new chat (and its session) with the agent, else the default one. */
  async newChat(agent?: string): Promise<string> {
    if (!agent) await this.d.settled?.();
    const chatId = this.create(agent);
    await this.ensureSession(chatId);
    return chatId;
  }

  /** Creates the chat only; its session starts with the first message. */
  create(agent?: string): string {
    const id = agent || this.d.defaultAgent();
    return this.d.store.createChat(id, this.d.agentMode(id), { bypass: this.d.agentBypass(id) }).chatId;
  }

  /**
   * Sends a message. With no chat (chatId "" or a chat closed meanwhile) it
   * opens one with `agent` first: a message is never dropped.
   */
  async send(chatId: string, text: string, agent?: string, context?: ContextRef[]): Promise<string | undefined> {
    if (!text.trim()) return undefined;
    const open = chatId ? this.d.store.chat(chatId) : undefined;
    if (open?.readOnly) {
      this.d.store.addNotice(chatId, `This chat is read-only (reopened from history; ${open.agent} cannot resume its session). Start a new chat to go on.`, "warn");
      return undefined;
    }
    if (!open && !agent) await this.d.settled?.();
    const id = open ? chatId : this.create(agent);
    await this.prompt(id, text, context);
    return id;
  }

  /** session/new (or load) in flight per chat: a message sent right after "New chat" waits for the same one. */
  private opening = new Map<string, Promise<string | undefined>>();

  ensureSession(chatId: string): Promise<string | undefined> {
    const chat = this.d.store.chat(chatId);
    if (!chat) return Promise.resolve(undefined);
    if (chat.sessionId) return Promise.resolve(chat.sessionId);
    let p = this.opening.get(chatId);
    if (!p) {
      p = this.openSession(chatId).finally(() => this.opening.delete(chatId));
      this.opening.set(chatId, p);
    }
    return p;
  }

  private async openSession(chatId: string): Promise<string | undefined> {
    const chat = this.d.store.chat(chatId);
    if (!chat) return undefined;
    try {
      const conn = await this.d.connection();
      // A chat whose session ended with its bridge: resume it where the agent can load sessions.
      if (chat.childSessionId && conn.loadSession && this.d.canLoad?.(chat.agent) !== false) {
        try {
          // Until the answer the chat has no session id, so the agent's replay of what we already show is not added again.
          const res = await conn.loadSession(chat.childSessionId, this.d.cwd(), chat.agent);
          this.d.store.updateChat(chatId, { sessionId: res.sessionId, childSessionId: res.childSessionId ?? chat.childSessionId, mode: res.mode ?? chat.mode, error: undefined });
          this.d.store.addNotice(chatId, `Session resumed (session/load): ${chat.agent} has this chat's history.`, "info");
          return res.sessionId;
        } catch (e) {
          this.d.log(`session/load of ${chat.childSessionId} with ${chat.agent} failed: ${(e as Error).message}`);
        }
      }
      const res = await conn.newSession(this.d.cwd(), chat.agent, chat.mode !== this.d.agentMode(chat.agent) ? chat.mode : undefined);
      const resumed = !!chat.childSessionId;
      this.d.store.updateChat(chatId, { sessionId: res.sessionId, childSessionId: res.childSessionId, mode: res.mode ?? chat.mode, error: undefined });
      if (resumed) this.d.store.addNotice(chatId, `New session: ${chat.agent} cannot load the earlier one, so it does not remember the messages above (kept here read-only).`, "warn");
      return res.sessionId;
    } catch (e) {
      const cfg = this.d.agentCommand(chat.agent);
      const cmd = cfg?.command === "${bridge}" ? undefined : cfg?.command;
      const msg = agentStartMessage(chat.agent, (e as Error).message, cmd, cfg?.args ?? []);
      // One message per distinct failure: a retry that fails the same way says nothing new.
      if (chat.error !== msg) {
        this.d.log(`session/new with ${chat.agent} failed: ${(e as Error).message}`);
        this.d.store.addNotice(chatId, msg, "error");
      }
      this.d.store.updateChat(chatId, { error: msg });
      return undefined;
    }
  }

  async prompt(chatId: string, text: string, context?: ContextRef[]): Promise<void> {
    const chat = this.d.store.chat(chatId);
    if (!chat || !text.trim()) return;
    const userItem = this.d.store.addUserMessage(chatId, context?.length ? `${text}\n\nAttached: ${context.map((r) => r.label).join(", ")}` : text);
    this.d.store.updateChat(chatId, { busy: true });
    if (chat.title === chat.agent) this.d.store.updateChat(chatId, { title: `${chat.agent}: ${text.slice(0, 24)}` });
    let sessionId: string | undefined;
    let checkpoint: string | undefined;
    try {
      sessionId = await this.ensureSession(chatId);
      if (!sessionId) return;
      const conn = await this.d.connection();
      // The workspace as it is before the turn: restorable from the message, and the base of the turn's changes.
      if (userItem && this.d.turns) checkpoint = await this.d.turns.before(chatId, userItem);
      let blocks: ContentBlock[] | undefined;
      if (context?.length && this.d.promptBlocks) {
        const b = await this.d.promptBlocks(chat.agent, text, context);
        blocks = b.blocks;
        if (b.refused.length) this.d.store.addNotice(chatId, `Not attached: ${b.refused.join("; ")}.`, "error");
      }
      const res = await conn.prompt(sessionId, text, blocks);
      if (res.stopReason === "cancelled") {
        this.d.store.cancelTools(chatId);
        this.d.store.addNotice(chatId, "Turn cancelled.", "info");
      } else if (res.stopReason && res.stopReason !== "end_turn") {
        this.d.store.addNotice(chatId, `Turn ended: ${res.stopReason}.`, "info");
      }
    } catch (e) {
      // The session ended with its bridge (restart, crash): bridgeGone says so; no raw "context canceled".
      if (this.stopping || (sessionId && this.d.store.chat(chatId)?.sessionId !== sessionId)) return;
      this.d.store.addNotice(chatId, `Error: ${(e as Error).message}`, "error");
    } finally {
      if (checkpoint && this.d.turns) await this.d.turns.after(chatId, checkpoint);
      this.d.store.updateChat(chatId, { busy: false });
    }
  }

  /**
   * A chat reopened from history (ChatStore.reopen): resumed with session/load where the
   * agent offers it, else read-only with a note saying why.
   */
  async reopen(chatId: string): Promise<void> {
    const chat = this.d.store.chat(chatId);
    if (!chat) return;
    const why = !chat.childSessionId ? "it has no session to resume" : this.d.canLoad?.(chat.agent) === false ? `${chat.agent} does not offer session/load` : "";
    if (!why) {
      try {
        const conn = await this.d.connection();
        if (conn.loadSession) {
          const res = await conn.loadSession(chat.childSessionId!, this.d.cwd(), chat.agent);
          this.d.store.updateChat(chatId, { sessionId: res.sessionId, childSessionId: res.childSessionId ?? chat.childSessionId, mode: res.mode ?? chat.mode, error: undefined });
          this.d.store.addNotice(chatId, `Reopened from history and resumed (session/load): ${chat.agent} has this chat's history.`, "info");
          return;
        }
      } catch (e) {
        this.d.log(`session/load of ${chat.childSessionId} with ${chat.agent} failed: ${(e as Error).message}`);
        return this.readOnly(chatId, `session/load failed: ${(e as Error).message}`);
      }
    }
    this.readOnly(chatId, why || "the bridge cannot load sessions");
  }

  private readOnly(chatId: string, why: string): void {
    this.d.store.updateChat(chatId, { readOnly: true });
    this.d.store.addNotice(chatId, `Reopened from history, read-only: ${why}, so the agent would not know the messages above. Checkpoints and changes here still work; start a new chat to go on.`, "warn");
  }

  /** The mode shows once the bridge accepted it, never on the dropdown's say-so. */
  async setMode(chatId: string, mode: string): Promise<void> {
    // A session/new in flight was sent with the old mode: wait for it and set
    // the mode on the session, or the chat would show a mode the agent never got.
    const opening = this.opening.get(chatId);
    if (opening) await opening;
    const chat = this.d.store.chat(chatId);
    if (!chat) return;
    if (!chat.sessionId) {
      this.d.store.updateChat(chatId, { mode, modeChosen: true }); // no session yet: session/new carries it
      return;
    }
    try {
      const conn = await this.d.connection();
      await conn.setMode(chat.sessionId, mode);
      this.d.store.updateChat(chatId, { mode, modeChosen: true });
      this.d.store.addNotice(chatId, `Mode: ${mode}`, "quiet");
    } catch (e) {
      this.d.store.updateChat(chatId, { mode: chat.mode });
      this.d.store.addNotice(chatId, `Could not set mode ${mode}: ${(e as Error).message}`, "error");
    }
  }

  async cancel(chatId: string): Promise<void> {
    if (!this.d.connectionNow()) return;
    await this.d.cancelChat(chatId);
  }

  async close(chatId: string): Promise<void> {
    const chat = this.d.store.chat(chatId);
    if (!chat) return;
    const conn = this.d.connectionNow();
    if (chat.sessionId && conn) {
      if (chat.busy) await this.cancel(chatId);
      void conn.closeSession(chat.sessionId).catch(() => {});
    }
    this.d.store.closeChat(chatId);
  }

  /**
   * A bridge run ended: its sessions are gone. Their open cards and unfinished tool
   * calls are expired (never left pending); the next message resumes the session
   * (session/load) or starts a new one.
   */
  bridgeGone(expected: boolean): void {
    const store = this.d.store;
    for (const id of store.chatIds()) {
      const chat = store.chat(id);
      if (chat?.sessionId) store.expireSession(id, "shutdown", expected ? "The bridge was restarted: this chat's session ended. Your next message continues in a new session." : "The bridge stopped: this chat's session ended. Your next message continues in a new session.");
      this.followAgent(id);
    }
    store.expireAll("shutdown");
    this.endedWhileAway.clear();
  }

  /** A restart was asked for: prompts failing from now on fail because of it. */
  private stopping = false;

  /** The bridge is about to be stopped on purpose (Restart Bridge): bridgeGone will say what happened to the turns. */
  bridgeStopping(): void {
    this.stopping = true;
  }

  /** Sessions whose turn ended (turn/ended) since the last connection: not busy, whatever the attach answer said. */
  private endedWhileAway = new Set<string>();

  /** _acp-bridge/turn/ended: a turn whose window went away ended. */
  turnEnded(p: { sessionId: string; stopReason?: string; error?: unknown }): void {
    const chat = this.d.store.chatForSession(p.sessionId);
    this.endedWhileAway.add(p.sessionId);
    if (!chat) return;
    this.d.store.updateChat(chat.chatId, { busy: false });
    if (p.stopReason === "cancelled") this.d.store.cancelTools(chat.chatId);
    const how = p.error ? "with an error" : p.stopReason && p.stopReason !== "end_turn" ? `(${p.stopReason})` : "";
    this.d.store.addNotice(chat.chatId, `The turn ended while the window was away${how ? ` ${how}` : ""}.`, "info");
  }

  /**
   * A bridge run is connected. Chats kept from an earlier window whose session is
   * not live here are expired; with a re-attached bridge, the live ones carry on
   * (busy while their turn runs).
   */
  /**
   * A chat with no live session shows what its next session will get: the agent's mode and
   * bypass from the settings (agents/list corrects the bypass once the bridge answers), unless
   * the person picked the mode. A mode remembered from a session that is gone (bypassPermissions
   * from a bypass since revoked) would otherwise be shown, and even sent with session/new.
   */
  private followAgent(chatId: string): void {
    const chat = this.d.store.chat(chatId);
    if (!chat || chat.sessionId || chat.external) return;
    const patch: Partial<ChatInfo> = {};
    if (!chat.modeChosen && chat.mode !== this.d.agentMode(chat.agent)) patch.mode = this.d.agentMode(chat.agent);
    if (!!chat.bypass !== this.d.agentBypass(chat.agent)) patch.bypass = this.d.agentBypass(chat.agent);
    if (Object.keys(patch).length) this.d.store.updateChat(chatId, patch);
  }

  connected(live: LiveSession[] | undefined): void {
    const store = this.d.store;
    this.stopping = false;
    const byId = new Map((live ?? []).map((s) => [s.sessionId, s]));
    for (const id of store.chatIds()) {
      const chat = store.chat(id);
      if (!chat) continue;
      if (!chat.sessionId) {
        this.followAgent(id);
        continue;
      }
      const s = byId.get(chat.sessionId);
      if (!s) {
        store.expireSession(id, "bridge-gone", "The bridge that ran this chat is gone (window reloaded after it stopped). Your next message continues in a new session.");
        this.followAgent(id);
        continue;
      }
      store.updateChat(id, {
        busy: s.turnRunning && !this.endedWhileAway.has(s.sessionId),
        childSessionId: s.childSessionId ?? chat.childSessionId,
        mode: s.mode ?? chat.mode,
      });
    }
    this.endedWhileAway.clear();
  }
}
