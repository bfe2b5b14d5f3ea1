// The chat model the host keeps for the webview: chats (one ACP session each),
// their transcript items, and the mapping from ACP messages (session/update,
// session/request_permission, _acp-bridge/approval/resolved) to webview
// messages. The webview can be hidden, reloaded or opened late; it then asks
// for a snapshot of this model. Pure: no vscode, no node, no DOM. Everything
// runs on the extension host's single thread.

import type {
  ApprovalItem,
  ApprovalMetaView,
  ChatInfo,
  ChatItem,
  ChatSnapshot,
  HostMessage,
  OptionView,
  ToolCallView,
  ToolContentView,
} from "./protocol";
import { decisionWord, denyReasonLine, describeResolution, OPT } from "./protocol";
import { bridgeMeta, isObj, str, type ApprovalResolvedWire, type Obj } from "./wire";

interface Chat {
  info: ChatInfo;
  items: ChatItem[];
  byId: Map<string, ChatItem>;
  /**
   * Tool calls by toolKey(sessionId, toolCallId): agents reuse tool-call ids across
   * sessions (toolu_demo_01 in every one), so a new session never overwrites an old card.
   */
  tools: Map<string, ToolCallView>;
  /** id of the agent/thought item that chunks append to, cleared by any other item. */
  streaming?: { kind: "agent" | "thought"; id: string; messageId?: string };
  seq: number;
  /** Prompt turns so far: each turn has its own plan item. */
  turn: number;
}

/** The key of a tool call: its session and its id (the item's id is "tool:" + key). */
export function toolKey(sessionId: string | undefined, toolCallId: string): string {
  return `${sessionId ?? ""}:${toolCallId}`;
}

/** What is kept of the chats per workspace (workspaceState), and its bounds. */
export interface PersistedChats {
  version: 1;
  nextChat: number;
  activeChatId?: string;
  chats: { info: ChatInfo; items: ChatItem[]; tools: [string, ToolCallView][]; seq: number; turn: number }[];
}

/** At most this many chats are kept (the most recent ones). */
export const PERSIST_MAX_CHATS = 20;
/** At most this many items per chat (the latest; a notice says how many earlier ones were not kept). */
export const PERSIST_MAX_ITEMS = 1000;
/** At most this many bytes of JSON in all (oldest chats go first). */
export const PERSIST_MAX_BYTES = 4 << 20;

/** Decisions the bridge took without asking, shown as one quiet line. */
const AUTO_BY = new Set(["rule", "mode", "read-only", "breaker", "bypass", "session-grant"]);

export class ChatStore {
  private chats = new Map<string, Chat>();
  private order: string[] = [];
  private bySession = new Map<string, string>();
  private approvals = new Map<string, string>(); // approvalId -> chatId
  private nextChat = 1;
  activeChatId?: string;
  /** Called after every change (for persistence). */
  onChange?: () => void;

  constructor(private readonly emit0: (m: HostMessage) => void) {}

  private emit(m: HostMessage): void {
    this.emit0(m);
    this.onChange?.();
  }

  // ---- persistence -----------------------------------------------------------

  /** The chats as kept per workspace, within the PERSIST_* bounds. */
  serialize(): PersistedChats {
    let chats = this.order.slice(-PERSIST_MAX_CHATS).map((id) => {
      const c = this.chats.get(id)!;
      let items = c.items;
      if (items.length > PERSIST_MAX_ITEMS) {
        const cut = items.length - PERSIST_MAX_ITEMS;
        items = [{ kind: "notice", id: "n-trimmed", text: `${cut} earlier item(s) of this chat were not kept.`, level: "quiet" }, ...items.slice(cut)];
      }
      const keep = new Set(items.filter((i) => i.kind === "tool").map((i) => i.id.slice("tool:".length)));
      return { info: { ...c.info, busy: false }, items, tools: [...c.tools].filter(([k]) => keep.has(k)), seq: c.seq, turn: c.turn };
    });
    const out = (): PersistedChats => ({ version: 1, nextChat: this.nextChat, activeChatId: this.activeChatId, chats });
    while (chats.length > 1 && JSON.stringify(out()).length > PERSIST_MAX_BYTES) chats = chats.slice(1);
    return out();
  }

  /** Brings back kept chats (at activation, before any bridge run). Nothing is emitted: the webview asks for a snapshot. */
  restore(p: PersistedChats | undefined): number {
    if (!p || p.version !== 1 || !Array.isArray(p.chats)) return 0;
    for (const pc of p.chats) {
      if (!pc?.info?.chatId || this.chats.has(pc.info.chatId)) continue;
      const c: Chat = { info: { ...pc.info, busy: false }, items: [...pc.items], byId: new Map(), tools: new Map(pc.tools), seq: pc.seq, turn: pc.turn };
      for (const it of c.items) {
        c.byId.set(it.id, it);
        if (it.kind === "approval") this.approvals.set(it.approvalId, c.info.chatId);
      }
      this.chats.set(c.info.chatId, c);
      this.order.push(c.info.chatId);
      if (c.info.sessionId) this.bySession.set(c.info.sessionId, c.info.chatId);
      const n = Number(/^chat-(\d+)$/.exec(c.info.chatId)?.[1] ?? 0);
      if (n >= this.nextChat) this.nextChat = n + 1;
    }
    if (typeof p.nextChat === "number" && p.nextChat > this.nextChat) this.nextChat = p.nextChat;
    this.activeChatId = p.activeChatId && this.chats.has(p.activeChatId) ? p.activeChatId : this.order[this.order.length - 1];
    return p.chats.length;
  }

  /**
   * The chat's session is gone (its bridge stopped, or it was not among the live
   * sessions of a re-attached bridge): its open approval cards and unfinished tool
   * calls are expired, never left "pending", and the chat has no session any more.
   */
  expireSession(chatId: string, by: string, line?: string): void {
    const c = this.chats.get(chatId);
    if (!c) return;
    for (const it of [...c.items]) {
      if (it.kind === "approval" && (it.state !== "resolved" || it.resolution?.by === "withdrawn")) this.put(c, { ...it, state: "resolved", resolution: { decision: "cancelled", by }, error: undefined }, true);
    }
    for (const [k, t] of c.tools) {
      if (t.status === "pending" || t.status === "in_progress") {
        const tool = { ...t, status: "expired", verdict: t.verdict ?? describeResolution({ decision: "cancelled", by }, []), verdictDecision: t.verdictDecision ?? "cancelled" };
        c.tools.set(k, tool);
        if (c.byId.has(`tool:${k}`)) this.put(c, { kind: "tool", id: `tool:${k}`, tool }, true);
      }
    }
    if (c.info.sessionId) this.bySession.delete(c.info.sessionId);
    this.updateChat(chatId, { sessionId: undefined, busy: false });
    if (line) this.addNotice(chatId, line, "warn");
  }


  // ---- chats -------------------------------------------------------------

  createChat(agent: string, mode: string, opts: { title?: string; external?: boolean; sessionId?: string; bypass?: boolean } = {}): ChatInfo {
    const chatId = `chat-${this.nextChat++}`;
    const info: ChatInfo = {
      chatId,
      agent,
      mode,
      title: opts.title ?? agent,
      busy: false,
      external: opts.external,
      sessionId: opts.sessionId,
      bypass: opts.bypass || undefined,
    };
    this.chats.set(chatId, { info, items: [], byId: new Map(), tools: new Map(), seq: 0, turn: 0 });
    this.order.push(chatId);
    if (opts.sessionId) this.bySession.set(opts.sessionId, chatId);
    this.emit({ type: "chat", chat: { ...info } });
    this.setActive(chatId);
    return { ...info };
  }

  chat(chatId: string): ChatInfo | undefined {
    const c = this.chats.get(chatId);
    return c ? { ...c.info } : undefined;
  }

  chatForSession(sessionId: string): ChatInfo | undefined {
    const id = this.bySession.get(sessionId);
    return id ? this.chat(id) : undefined;
  }

  chatIds(): string[] {
    return [...this.order];
  }

  updateChat(chatId: string, patch: Partial<Omit<ChatInfo, "chatId">>): void {
    const c = this.chats.get(chatId);
    if (!c) return;
    if (patch.sessionId && patch.sessionId !== c.info.sessionId) {
      if (c.info.sessionId) this.bySession.delete(c.info.sessionId);
      this.bySession.set(patch.sessionId, chatId);
    }
    Object.assign(c.info, patch);
    this.emit({ type: "chat", chat: { ...c.info } });
  }

  closeChat(chatId: string): void {
    const c = this.chats.get(chatId);
    if (!c) return;
    if (c.info.sessionId) this.bySession.delete(c.info.sessionId);
    for (const [aid, cid] of this.approvals) if (cid === chatId) this.approvals.delete(aid);
    this.chats.delete(chatId);
    this.order = this.order.filter((id) => id !== chatId);
    this.emit({ type: "chatClosed", chatId });
    if (this.activeChatId === chatId) {
      this.activeChatId = undefined;
      const last = this.order[this.order.length - 1];
      if (last) this.setActive(last);
    }
  }

  setActive(chatId: string): void {
    if (!this.chats.has(chatId)) return;
    this.activeChatId = chatId;
    this.emit({ type: "activeChat", chatId });
  }

  snapshot(): { chats: ChatSnapshot[]; activeChatId?: string } {
    return {
      chats: this.order.map((id) => {
        const c = this.chats.get(id)!;
        return { chat: { ...c.info }, items: c.items.map((i) => structuredCloneItem(i)) };
      }),
      activeChatId: this.activeChatId,
    };
  }

  items(chatId: string): ChatItem[] {
    return this.chats.get(chatId)?.items.map((i) => structuredCloneItem(i)) ?? [];
  }

  // ---- transcript ----------------------------------------------------------

  /** A message of the person: a new turn. Returns the item's id. */
  addUserMessage(chatId: string, text: string): string | undefined {
    const c = this.chats.get(chatId);
    if (!c) return undefined;
    c.turn++;
    const id = this.newId(c, "u");
    this.put(c, { kind: "user", id, text });
    return id;
  }

  /** The chat's turn count (the turn the last user message started). */
  turnOf(chatId: string): number {
    return this.chats.get(chatId)?.turn ?? 0;
  }

  /** One item of a chat, by id (a copy). */
  item(chatId: string, itemId: string): ChatItem | undefined {
    const it = this.chats.get(chatId)?.byId.get(itemId);
    return it ? structuredCloneItem(it) : undefined;
  }

  /** Replaces an item's fields (same kind), keeping the item where it is. */
  patchItem<K extends ChatItem["kind"]>(chatId: string, itemId: string, kind: K, patch: Partial<Extract<ChatItem, { kind: K }>>): void {
    const c = this.chats.get(chatId);
    const cur = c?.byId.get(itemId);
    if (!c || !cur || cur.kind !== kind) return;
    this.put(c, { ...cur, ...patch } as ChatItem, true);
  }

  /** Adds a turn's changes or a restore line (items with an id of their own). */
  addItem(chatId: string, item: Omit<Extract<ChatItem, { kind: "changes" }>, "id"> | Omit<Extract<ChatItem, { kind: "restored" }>, "id">): string | undefined {
    const c = this.chats.get(chatId);
    if (!c) return undefined;
    const id = this.newId(c, item.kind === "changes" ? "c" : "r");
    this.put(c, { ...item, id } as ChatItem);
    return id;
  }

  // ---- history ---------------------------------------------------------------

  /** A chat as history keeps it (history.ts): its info without a live session, its items and tool calls. */
  entry(chatId: string): PersistedChats["chats"][number] | undefined {
    const c = this.chats.get(chatId);
    if (!c) return undefined;
    const items = c.items.slice(-PERSIST_MAX_ITEMS).map((i) => structuredCloneItem(i));
    const keep = new Set(items.filter((i) => i.kind === "tool").map((i) => i.id.slice("tool:".length)));
    const { sessionId: _s, busy: _b, error: _e, ...info } = c.info;
    return { info: { ...info, busy: false }, items, tools: [...c.tools].filter(([k]) => keep.has(k)), seq: c.seq, turn: c.turn };
  }

  /** Opens a chat from history under a new id; its cards are closed (their approvals are long gone). */
  reopen(e: PersistedChats["chats"][number]): string {
    const chatId = `chat-${this.nextChat++}`;
    const info: ChatInfo = { ...e.info, chatId, sessionId: undefined, busy: false, error: undefined, readOnly: undefined, external: undefined };
    const items = e.items.map((i) => (i.kind === "approval" && i.state !== "resolved" ? { ...i, state: "resolved" as const, resolution: { decision: "cancelled", by: "bridge-gone" } } : i));
    const c: Chat = { info, items, byId: new Map(items.map((i) => [i.id, i])), tools: new Map(e.tools), seq: e.seq, turn: e.turn };
    this.chats.set(chatId, c);
    this.order.push(chatId);
    this.emit({ type: "chat", chat: { ...info } });
    for (const it of items) this.emit({ type: "item", chatId, item: structuredCloneItem(it) });
    this.setActive(chatId);
    return chatId;
  }

  addNotice(chatId: string, text: string, level: "info" | "warn" | "error" | "quiet" = "info"): void {
    const c = this.chats.get(chatId);
    if (!c) return;
    this.put(c, { kind: "notice", id: this.newId(c, "n"), text, level });
  }

  /** Applies one session/update notification. Unknown variants are ignored. */
  applySessionUpdate(sessionId: string, update: unknown): void {
    const chatId = this.bySession.get(sessionId);
    const c = chatId ? this.chats.get(chatId) : undefined;
    if (!c || !isObj(update)) return;
    const kind = str(update["sessionUpdate"]);
    switch (kind) {
      case "agent_message_chunk":
      case "agent_thought_chunk": {
        const text = contentText(update["content"]);
        if (!text) return;
        // The bridge's own word (_meta["acp-bridge"].notice: workspaceTrust, unaskedDenied,
        // protectedCreated, ...): a notice of its own, never glued to the agent's message.
        const notice = str(bridgeMeta(update)["notice"]);
        if (kind === "agent_message_chunk" && notice) {
          this.put(c, { kind: "notice", id: this.newId(c, "n"), text: text.replace(/^acp-bridge: /, "").trim(), level: notice === "childMode" ? "info" : "warn" });
          c.streaming = undefined;
          return;
        }
        const k = kind === "agent_message_chunk" ? "agent" : "thought";
        const messageId = str(update["messageId"]);
        const s = c.streaming;
        const cur = s && s.kind === k && (!messageId || !s.messageId || s.messageId === messageId) ? c.byId.get(s.id) : undefined;
        if (cur && (cur.kind === "agent" || cur.kind === "thought")) {
          // Only the delta goes to the webview: re-sending the whole message per
          // chunk is quadratic in the reply's length.
          const next = { ...cur, text: cur.text + text };
          c.byId.set(next.id, next);
          c.items[c.items.lastIndexOf(cur)] = next;
          this.emit({ type: "append", chatId: c.info.chatId, itemId: next.id, text });
        } else {
          const id = this.newId(c, k === "agent" ? "a" : "t");
          this.put(c, { kind: k, id, text });
          c.streaming = { kind: k, id, messageId };
        }
        return;
      }
      case "user_message_chunk": {
        const text = contentText(update["content"]);
        if (text) this.put(c, { kind: "user", id: this.newId(c, "u"), text });
        return;
      }
      case "tool_call":
      case "tool_call_update": {
        const id = str(update["toolCallId"]);
        if (!id) return;
        const key = toolKey(sessionId, id);
        const tool = mergeToolCall(c.tools.get(key), update);
        c.tools.set(key, tool);
        this.put(c, { kind: "tool", id: `tool:${key}`, tool });
        return;
      }
      case "plan": {
        const entries = Array.isArray(update["entries"]) ? update["entries"] : [];
        // One plan per turn: a later turn's plan never rewrites an earlier one.
        this.put(c, {
          kind: "plan",
          id: `plan-${c.turn}`,
          entries: entries.filter(isObj).map((e) => ({
            content: str(e["content"]) ?? "",
            status: str(e["status"]) ?? "pending",
            priority: str(e["priority"]) ?? "medium",
          })),
        });
        return;
      }
      case "current_mode_update": {
        const mode = str(update["currentModeId"]) ?? str(update["modeId"]);
        if (mode) this.updateChat(c.info.chatId, { mode });
        return;
      }
      case "session_info_update": {
        const title = str(update["title"]);
        if (title) this.updateChat(c.info.chatId, { title });
        return;
      }
      case "notice": {
        const title = str(update["title"]) ?? "";
        const desc = str(update["description"]);
        const sev = str(update["severity"]);
        this.addNotice(c.info.chatId, desc ? `${title}: ${desc}` : title, sev === "error" ? "error" : sev === "warning" ? "warn" : "info");
        return;
      }
      default:
        return; // available_commands_update, usage_update, unknown: nothing to show
    }
  }

  /** Marks unfinished tool calls of a chat as cancelled (after session/cancel). */
  cancelTools(chatId: string): void {
    const c = this.chats.get(chatId);
    if (!c) return;
    for (const [key, t] of c.tools) {
      if (t.status === "pending" || t.status === "in_progress") {
        const tool = { ...t, status: "cancelled" };
        c.tools.set(key, tool);
        this.put(c, { kind: "tool", id: `tool:${key}`, tool });
      }
    }
  }

  // ---- approvals -----------------------------------------------------------

  /**
   * Adds (or refreshes) the approval card of a permission request. Params are
   * session/request_permission params, or an entry of _acp-bridge/approvals/list
   * turned into that shape. Returns the card, or undefined without an approvalId.
   */
  addApproval(params: { sessionId: string; toolCall: unknown; options: unknown; _meta?: unknown }, agentHint?: string): ApprovalItem | undefined {
    const meta = bridgeMeta(params);
    const approvalId = str(meta["approvalId"]);
    if (!approvalId) return undefined;
    let chatId = this.bySession.get(params.sessionId);
    if (!chatId) {
      const agent = str(meta["agent"]) ?? agentHint ?? "agent";
      chatId = this.createChat(agent, str(meta["mode"]) ?? "default", {
        title: `${agent} (other session)`,
        external: true,
        sessionId: params.sessionId,
      }).chatId;
    }
    const c = this.chats.get(chatId)!;
    const existing = c.byId.get(`approval:${approvalId}`);
    if (existing && existing.kind === "approval") return existing;
    const tc = isObj(params.toolCall) ? params.toolCall : {};
    const tcId = str(tc["toolCallId"]);
    const tool = mergeToolCall(tcId ? c.tools.get(toolKey(params.sessionId, tcId)) : undefined, tc);
    const item: ApprovalItem = {
      kind: "approval",
      id: `approval:${approvalId}`,
      approvalId,
      tool,
      options: toOptions(params.options),
      meta: toApprovalMeta(approvalId, meta),
      state: "pending",
      arrived: (this.lastArrived = Math.max(Date.now(), this.lastArrived + 1)),
    };
    this.approvals.set(approvalId, chatId);
    this.put(c, item);
    return item;
  }

  approval(approvalId: string): (ApprovalItem & { chatId: string }) | undefined {
    const chatId = this.approvals.get(approvalId);
    const item = chatId ? this.chats.get(chatId)?.byId.get(`approval:${approvalId}`) : undefined;
    return item && item.kind === "approval" && chatId ? { ...item, chatId } : undefined;
  }

  private lastArrived = 0;

  /**
   * The card the keybindings answer and the status bar shows: the one waiting longest (by
   * arrival, across chats), not one already being answered. Cards kept from before a reload
   * without an arrival time come first, in chat order.
   */
  oldestPending(): (ApprovalItem & { chatId: string }) | undefined {
    let best: (ApprovalItem & { chatId: string }) | undefined;
    for (const a of this.pendingApprovals()) {
      if (a.state !== "pending") continue;
      if (!best || (a.arrived ?? 0) < (best.arrived ?? 0)) best = a;
    }
    return best;
  }

  /** Pending (unanswered) approvals, oldest first. */
  pendingApprovals(): (ApprovalItem & { chatId: string })[] {
    const out: (ApprovalItem & { chatId: string })[] = [];
    for (const chatId of this.order) {
      for (const it of this.chats.get(chatId)!.items) {
        if (it.kind === "approval" && it.state !== "resolved") out.push({ ...it, chatId });
      }
    }
    return out;
  }

  /** The person clicked an option here: disable the card until the bridge confirms. */
  markAnswering(approvalId: string, optionId: string, denyReason?: string): void {
    this.patchApproval(approvalId, { state: "answering", chosen: optionId, error: undefined, ...(denyReason ? { denyReason } : {}) });
  }

  /** Answering failed (e.g. someone else answered first): show why. */
  approvalError(approvalId: string, message: string): void {
    const a = this.approval(approvalId);
    if (!a) return;
    this.patchApproval(approvalId, { state: a.resolution ? "resolved" : "pending", chosen: undefined, error: message });
  }

  /**
   * Applies _acp-bridge/approval/resolved. A card closes and shows how it ended;
   * a decision made without a card becomes a quiet line in its chat.
   */
  resolveApproval(r: ApprovalResolvedWire): void {
    const resolution = { decision: r.decision, by: r.by, optionId: r.optionId, rule: r.rule, reason: r.reason };
    // Bypass is on for this agent once the bridge says so: the person chose it on a
    // card and the bridge accepted, or the bridge allowed a call "by bypass".
    if (r.decision === "allow" && (r.by === "bypass" || (r.by === "user" && r.optionId === OPT.bypass))) {
      const agent = r.agent ?? (r.sessionId ? this.chatForSession(r.sessionId)?.agent : undefined);
      if (agent) this.setBypass(agent, true);
    }
    const chatId = this.approvals.get(r.approvalId) ?? (r.sessionId ? this.bySession.get(r.sessionId) : this.activeChatId);
    const c = chatId ? this.chats.get(chatId) : undefined;
    const card = c?.byId.get(`approval:${r.approvalId}`);
    const options = card && card.kind === "approval" ? card.options : [];
    // The tool card names what decided, whatever text the agent puts on it.
    const said = card && card.kind === "approval" && card.denyReason && r.decision === "deny" ? denyReasonLine(card.denyReason) : "";
    if (c && r.toolCallId) this.setVerdict(c, toolKey(r.sessionId ?? c.info.sessionId, r.toolCallId), describeResolution(resolution, options) + said, r.decision);
    if (this.approvals.has(r.approvalId)) {
      this.patchApproval(r.approvalId, { state: "resolved", resolution, error: undefined });
      return;
    }
    if (!chatId) return;
    this.addNotice(chatId, autoDecisionLine(r), AUTO_BY.has(r.by) ? "quiet" : "info");
  }

  /** Marks every chat of an agent as running with (or without) bypass permissions. */
  setBypass(agent: string, on: boolean): void {
    for (const c of this.chats.values()) {
      if (c.info.agent === agent && !!c.info.bypass !== on) this.updateChat(c.info.chatId, { bypass: on });
    }
  }

  private setVerdict(c: Chat, key: string, verdict: string, decision: string): void {
    const t = c.tools.get(key) ?? mergeToolCall(undefined, { toolCallId: key.slice(key.indexOf(":") + 1) });
    const tool = { ...t, verdict, verdictDecision: decision };
    c.tools.set(key, tool);
    if (c.byId.has(`tool:${key}`)) this.put(c, { kind: "tool", id: `tool:${key}`, tool }, true);
  }

  /** Closes every still-open card locally (the bridge went away). */
  expireAll(by: string): void {
    for (const a of this.pendingApprovals()) {
      this.patchApproval(a.approvalId, { state: "resolved", resolution: { decision: "cancelled", by } });
    }
  }

  private patchApproval(approvalId: string, patch: Partial<ApprovalItem>): void {
    const chatId = this.approvals.get(approvalId);
    const c = chatId ? this.chats.get(chatId) : undefined;
    const cur = c?.byId.get(`approval:${approvalId}`);
    if (!c || !cur || cur.kind !== "approval") return;
    this.put(c, { ...cur, ...patch }, true);
  }

  // ---- internals -----------------------------------------------------------

  private newId(c: Chat, prefix: string): string {
    c.seq++;
    return `${prefix}${c.seq}`;
  }

  /** Inserts or replaces an item by id and tells the webview. */
  private put(c: Chat, item: ChatItem, keepStreaming = false): void {
    const had = c.byId.has(item.id);
    c.byId.set(item.id, item);
    if (had) {
      const i = c.items.findIndex((x) => x.id === item.id);
      c.items[i] = item;
    } else {
      c.items.push(item);
    }
    if (!keepStreaming && !(c.streaming && c.streaming.id === item.id)) c.streaming = undefined;
    this.emit({ type: "item", chatId: c.info.chatId, item: structuredCloneItem(item) });
  }
}

function structuredCloneItem<T extends ChatItem>(i: T): T {
  return JSON.parse(JSON.stringify(i)) as T;
}

/** Text of an ACP ContentBlock (non-text blocks get a short placeholder). */
export function contentText(block: unknown): string {
  if (!isObj(block)) return "";
  switch (block["type"]) {
    case "text":
      return str(block["text"]) ?? "";
    case "resource_link":
      return `[${str(block["name"]) ?? str(block["uri"]) ?? "link"}](${str(block["uri"]) ?? ""})`;
    case "resource": {
      const r = block["resource"];
      if (isObj(r) && typeof r["text"] === "string") return "```\n" + r["text"] + "\n```";
      return `[resource ${isObj(r) ? (str(r["uri"]) ?? "") : ""}]`;
    }
    case "image":
      return "[image]";
    case "audio":
      return "[audio]";
    default:
      return "";
  }
}

/** Merges a ToolCall / ToolCallUpdate into the tool call seen so far (fields present replace). */
export function mergeToolCall(prev: ToolCallView | undefined, u: Obj): ToolCallView {
  const t: ToolCallView = prev
    ? { ...prev, locations: [...prev.locations], content: [...prev.content] }
    : { toolCallId: str(u["toolCallId"]) ?? "", title: "", kind: "other", status: "pending", locations: [], content: [] };
  const title = str(u["title"]);
  if (title !== undefined) t.title = title;
  const kind = str(u["kind"]);
  if (kind) t.kind = kind;
  const status = str(u["status"]);
  if (status) t.status = status;
  if (Array.isArray(u["locations"])) {
    t.locations = u["locations"].filter(isObj).map((l) => ({ path: str(l["path"]) ?? "", line: typeof l["line"] === "number" ? l["line"] : undefined }));
  }
  if (Array.isArray(u["content"])) t.content = u["content"].map(toToolContent).filter((x): x is ToolContentView => !!x);
  if ("rawInput" in u) {
    const cmd = commandOf(u["rawInput"]);
    if (cmd) t.command = cmd;
  }
  if (!t.title) t.title = t.command ?? t.toolCallId;
  return t;
}

function toToolContent(c: unknown): ToolContentView | undefined {
  if (!isObj(c)) return undefined;
  switch (c["type"]) {
    case "content": {
      const text = contentText(c["content"]);
      return text ? { type: "text", text } : undefined;
    }
    case "diff":
      return {
        type: "diff",
        diff: { path: str(c["path"]) ?? "", oldText: typeof c["oldText"] === "string" ? c["oldText"] : null, newText: str(c["newText"]) ?? "" },
      };
    case "terminal":
      return str(c["output"]) === undefined
        ? { type: "terminal", terminalId: str(c["terminalId"]) ?? "" }
        : { type: "terminal", terminalId: str(c["terminalId"]) ?? "", output: str(c["output"]) };
    default:
      return undefined;
  }
}

/** A shell command line in rawInput: {command: "..."}, {command: [argv]}, {cmd}, Codex {command:[...]}. */
export function commandOf(raw: unknown): string | undefined {
  if (!isObj(raw)) return undefined;
  for (const key of ["command", "cmd"]) {
    const v = raw[key];
    if (typeof v === "string" && v.trim()) return v;
    if (Array.isArray(v) && v.every((x) => typeof x === "string")) {
      const argv = v as string[];
      // bash -lc "S" (Codex) shows S, only for the system's shells: a shell
      // named by another path (the agent's own ./evil/bash) is what runs,
      // and is shown (red team 16).
      if (argv.length === 3 && /^((\/usr)?\/bin\/)?(ba|z)?sh$/.test(argv[0]) && /^-l?c$/.test(argv[1])) return argv[2];
      return argv.map(shellQuote).join(" ");
    }
  }
  return undefined;
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function toOptions(options: unknown): OptionView[] {
  if (!Array.isArray(options)) return [];
  return options
    .filter(isObj)
    .map((o) => ({ optionId: str(o["optionId"]) ?? "", name: str(o["name"]) ?? str(o["optionId"]) ?? "", kind: str(o["kind"]) ?? "other" }))
    .filter((o) => o.optionId);
}

export function toApprovalMeta(approvalId: string, m: Obj): ApprovalMetaView {
  const strs = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined);
  return {
    approvalId,
    agent: str(m["agent"]),
    tool: str(m["tool"]),
    specifier: str(m["specifier"]),
    paths: strs(m["paths"]),
    subCommands: strs(m["subCommands"]),
    matchedRule: str(m["matchedRule"]),
    source: str(m["source"]),
    reason: str(m["reason"]),
    mode: str(m["mode"]),
    suggestedRules: strs(m["suggestedRules"]),
    expiresAt: str(m["expiresAt"]),
    breaker: str(m["breaker"]),
    operation: str(m["operation"]),
    sandbox: str(m["sandbox"]),
    rejectEndsTurn: m["rejectEndsTurn"] === true ? true : undefined,
  };
}

/** "allowed by rule Bash(npm run *): Bash(npm run build)" and friends. */
export function autoDecisionLine(r: ApprovalResolvedWire): string {
  const what = r.specifier ? `${r.specifier} ` : "";
  const word = decisionWord(r.decision).toLowerCase();
  let why: string;
  switch (r.by) {
    case "rule":
      why = r.rule ? `by rule ${r.rule}` : "by a rule";
      break;
    case "session-grant":
      why = r.rule ? `by session grant ${r.rule}` : "by a session grant";
      break;
    case "mode":
      why = "by mode";
      break;
    case "read-only":
      why = "(read-only)";
      break;
    case "breaker":
      why = "by a circuit breaker";
      break;
    case "bypass":
      why = "(bypass permissions)";
      break;
    case "timeout":
      why = "after a timeout";
      break;
    case "cancel":
      why = "(turn cancelled)";
      break;
    default:
      why = `by ${r.by}`;
  }
  const reason = r.reason && r.by !== "rule" ? `: ${r.reason}` : "";
  return `${what}${word} ${why}${reason}`.trim();
}

/** Turns an _acp-bridge/approvals/list entry into request_permission params. */
export function listEntryToParams(e: {
  approvalId: string;
  sessionId: string;
  toolCall: unknown;
  options: unknown;
  meta?: unknown;
  agent?: string;
  expiresAt?: string;
}): { sessionId: string; toolCall: unknown; options: unknown; _meta: Obj } {
  // meta is the _meta["acp-bridge"] object; accept a whole _meta too.
  const src = isObj(e.meta) && isObj(e.meta["acp-bridge"]) ? e.meta["acp-bridge"] : e.meta;
  const meta: Obj = isObj(src) ? { ...src } : {};
  meta["approvalId"] = e.approvalId;
  if (e.agent && !meta["agent"]) meta["agent"] = e.agent;
  if (e.expiresAt && !meta["expiresAt"]) meta["expiresAt"] = e.expiresAt;
  return { sessionId: e.sessionId, toolCall: e.toolCall, options: e.options, _meta: { "acp-bridge": meta } };
}

