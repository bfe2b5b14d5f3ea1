// The chat webview: tabs (one per chat/ACP session), agent picker, mode
// dropdown, transcript (markdown messages, collapsed thoughts, tool-call cards,
// plans, approval cards, quiet decision lines) and the composer. It holds a
// copy of the host's model, rebuilt from the "state" snapshot after every
// (re)load and kept current by "item"/"chat" messages. Plain DOM; all text is
// set with textContent except markdown, which markdown-it renders with HTML off.
// Items and streamed text are painted at most once per animation frame (see
// "streaming" below).

import { addContextMessage, createContextBar } from "./contextBar";
import { lineDiff, withContext } from "./diff";
import { IncrementalMarkdown, renderInline } from "./markdown";
import {
  OPT,
  describeResolution,
  denyReasonLine,
  MODE_LABELS,
  OPTION_HINTS,
  optionTakesRule,
  optionTakesScope,
  splitCardOptions,
  type AgentSummary,
  type ApprovalItem,
  type BridgeState,
  type ChatInfo,
  type ChatItem,
  type DiffView,
  type HostMessage,
  type PolicyMode,
  type Scope,
  type ToolCallView,
  type WebviewMessage,
} from "../src/protocol";

interface VsCodeApi {
  postMessage(m: WebviewMessage): void;
  getState(): unknown;
  setState(s: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const send = (m: WebviewMessage) => vscode.postMessage(m);

interface ChatView {
  chat: ChatInfo;
  items: Map<string, ChatItem>;
  order: string[];
}

interface Persisted {
  agent?: string;
  drafts?: Record<string, string>;
}

const st = {
  bridge: { status: "starting" } as BridgeState,
  agents: [] as AgentSummary[],
  defaultAgent: "",
  modes: [] as string[],
  chats: new Map<string, ChatView>(),
  order: [] as string[],
  active: undefined as string | undefined,
  received: false,
};
const saved = (vscode.getState() as Persisted | undefined) ?? {};
const drafts: Record<string, string> = saved.drafts ?? {};
let pickedAgent: string | undefined = saved.agent;
/** Rule text and scope the person edited on a card, kept across re-renders. */
const ruleEdits = new Map<string, string>();
const scopeEdits = new Map<string, Scope>();

function persist(): void {
  vscode.setState({ agent: pickedAgent, drafts } satisfies Persisted);
}

// ---- DOM helpers --------------------------------------------------------------

type Attrs = Record<string, string | boolean | number | undefined | ((e: Event) => void)>;
function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...kids: (Node | string | null | undefined | false)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    else if (k === "class") el.className = String(v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  for (const kid of kids) if (kid !== null && kid !== undefined && kid !== false) el.append(kid);
  return el;
}
/** An element whose content is inline markdown (renderInline escapes everything first). */
function inlineMd<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, text: string): HTMLElementTagNameMap[K] {
  const el = h(tag, cls ? { class: cls } : {});
  el.innerHTML = renderInline(text);
  return el;
}
const icon = (name: string, extra = "") => h("i", { class: `codicon codicon-${name} ${extra}`.trim(), "aria-hidden": "true" });

// ---- layout ---------------------------------------------------------------------

const app = document.getElementById("app")!;
const tabs = h("div", { class: "tabs", role: "tablist", "aria-label": "Chats" });
const newChatBtn = h("button", { class: "icon-btn", title: "New chat", "aria-label": "New chat", onclick: () => send({ type: "newChat", agent: agentSelect.value || undefined }) }, icon("add"));
const agentSelect = h("select", { id: "agent-select", title: "Agent of this chat (pick another to start a new chat with it)", "aria-label": "Agent" });
const modeSelect = h("select", { id: "mode-select", title: "Permission mode of this chat", "aria-label": "Permission mode of this chat" });
const bridgeLine = h("div", { class: "bridge-status", role: "status" });
const banner = h("div", { class: "banner", hidden: true, role: "alert" });
const transcript = h("div", { class: "transcript", role: "log", "aria-live": "polite", "aria-label": "Transcript" });
const empty = h(
  "div",
  { class: "empty" },
  h("p", {}, "Start a chat with an agent. Every permission request goes through the bridge's rules; what they leave open shows up here as a card."),
);
const input = h("textarea", { id: "composer-input", rows: 3, placeholder: "Ask the agent… (Enter to send, Shift+Enter for a new line)", "aria-label": "Message" });
// @file, selection and open editors, as chips above the message box (contextBar.ts).
const ctxBar = createContextBar(input, (what) => send(addContextMessage(what, st.active, agentSelect.value || undefined)));
const sendBtn = h("button", { class: "primary", id: "send-btn", title: "Send (Enter)", onclick: () => submit() }, icon("send"), " Send");
const stopBtn = h("button", { class: "secondary", id: "stop-btn", title: "Stop the turn (session/cancel)", hidden: true, onclick: () => st.active && send({ type: "cancel", chatId: st.active }) }, icon("debug-stop"), " Stop");

app.append(
  h("div", { class: "topbar" }, tabs, newChatBtn),
  h("div", { class: "chatbar" }, h("label", { for: "agent-select" }, icon("hubot"), " "), agentSelect, h("label", { for: "mode-select" }, icon("shield"), " "), modeSelect, bridgeLine),
  banner,
  transcript,
  h("div", { class: "composer" }, ctxBar.chips, input, h("div", { class: "composer-actions" }, ctxBar.buttons, stopBtn, sendBtn)),
);

agentSelect.addEventListener("change", () => {
  pickedAgent = agentSelect.value;
  persist();
  // A chat is bound to its agent: picking another one opens a new chat with it.
  const chat = st.active ? st.chats.get(st.active)?.chat : undefined;
  if (chat && chat.agent !== agentSelect.value) send({ type: "newChat", agent: agentSelect.value });
});
modeSelect.addEventListener("change", () => {
  if (!st.active) return;
  const chosen = modeSelect.value;
  send({ type: "setMode", chatId: st.active, mode: chosen });
  // Show the chat's mode until the bridge confirms the change (a "chat" message then shows the new one).
  const chat = st.chats.get(st.active)?.chat;
  if (chat) modeSelect.value = chat.mode;
});
input.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit();
  }
});
input.addEventListener("input", () => {
  drafts[st.active ?? ""] = input.value;
  persist();
});

function submit(): void {
  const text = input.value.trim();
  if (!text) return;
  const chat = st.active ? st.chats.get(st.active)?.chat : undefined;
  if (chat?.busy) return;
  // With no chat open the host opens one with the picked agent: the message is never dropped.
  const refs = ctxBar.refs();
  const context = refs.length ? refs : undefined;
  send(chat ? { type: "prompt", chatId: chat.chatId, text, context } : { type: "prompt", chatId: "", text, agent: agentSelect.value || undefined, context });
  ctxBar.clear();
  input.value = "";
  drafts[st.active ?? ""] = "";
  persist();
}

// ---- rendering --------------------------------------------------------------------

function pendingIn(cv: ChatView): number {
  let n = 0;
  for (const it of cv.items.values()) if (it.kind === "approval" && it.state !== "resolved") n++;
  return n;
}

function renderTabs(): void {
  tabs.replaceChildren(
    ...st.order.map((id) => {
      const cv = st.chats.get(id)!;
      const n = pendingIn(cv);
      const selected = id === st.active;
      return h(
        "div",
        { class: `tab${selected ? " active" : ""}${cv.chat.error ? " error" : ""}` },
        h(
          "button",
          {
            class: "tab-main",
            role: "tab",
            "aria-selected": selected ? "true" : "false",
            title: `${cv.chat.title} (${cv.chat.agent}, mode ${cv.chat.mode})`,
            "data-chat-id": id,
            onclick: () => send({ type: "selectChat", chatId: id }),
          },
          cv.chat.busy ? icon("loading", "codicon-modifier-spin") : icon("comment-discussion"),
          h("span", { class: "tab-title" }, cv.chat.title),
          n ? h("span", { class: "badge", title: `${n} approval${n === 1 ? "" : "s"} pending` }, String(n)) : null,
        ),
        h("button", { class: "tab-close", title: "Close chat", "aria-label": `Close ${cv.chat.title}`, onclick: () => send({ type: "closeChat", chatId: id }) }, icon("close")),
      );
    }),
  );
}

function scrollActiveTab(): void {
  tabs.querySelector(".tab.active")?.scrollIntoView({ block: "nearest", inline: "nearest" });
}

function renderChatbar(): void {
  const chat = st.active ? st.chats.get(st.active)?.chat : undefined;
  // This chat's agent when a chat is open; else the one new chats use.
  const forNew = pickedAgent && st.agents.some((a) => a.id === pickedAgent) ? pickedAgent : st.defaultAgent;
  const cur = chat?.agent ?? forNew;
  const agents = st.agents.some((a) => a.id === cur) || !cur ? st.agents : [...st.agents, { id: cur, name: cur }];
  agentSelect.replaceChildren(
    ...agents.map((a) =>
      h("option", { value: a.id, selected: a.id === cur }, `${a.name && a.name !== a.id ? `${a.id} (${a.name})` : a.id}${a.status === "crashed" ? " ⚠" : ""}${a.installed === false ? " (not installed)" : ""}`),
    ),
  );
  agentSelect.value = cur;
  const modes = st.modes.length ? st.modes : Object.keys(MODE_LABELS);
  const current = chat?.mode ?? "default";
  const list = modes.includes(current) ? modes : [...modes, current];
  modeSelect.replaceChildren(...list.map((m) => h("option", { value: m, selected: m === current }, MODE_LABELS[m as PolicyMode] ?? m)));
  modeSelect.disabled = !chat;
  const b = st.bridge;
  bridgeLine.className = `bridge-status ${b.status}`;
  bridgeLine.textContent = b.status === "running" ? "" : b.status === "failed" ? "bridge failed" : `bridge ${b.status}…`;
  bridgeLine.title = b.message ?? (b.version ? `acp-bridge ${b.version}` : "");
  const msgs: string[] = [];
  if (b.status === "failed" && b.message) msgs.push(b.message);
  else if (b.status === "restarting" && b.message) msgs.push(b.message);
  if (chat?.mode === "bypassPermissions") msgs.push(`Bypass permissions is on for this chat: ${chat.agent} runs everything except what deny rules and circuit breakers stop.`);
  else if (chat?.bypass) msgs.push(`Bypass permissions is on for ${chat.agent}: its calls run without asking (mode ${MODE_LABELS[chat.mode as PolicyMode] ?? chat.mode} applies to nothing else); deny rules and circuit breakers still apply. Revoke it in "ACP Bridge: Manage Permission Rules".`);
  modeSelect.classList.toggle("bypass", !!chat?.bypass || chat?.mode === "bypassPermissions");
  // A chat's error is already one notice in its transcript (and a red tab): not repeated here.
  banner.hidden = msgs.length === 0;
  banner.className = `banner ${b.status === "failed" ? "error" : "warn"}`;
  banner.replaceChildren(...msgs.map((m) => h("div", {}, m)));
  stopBtn.hidden = !chat?.busy;
  sendBtn.disabled = !!chat?.busy || !!chat?.readOnly;
  // A chat reopened from history that its agent cannot resume: read-only (its notice says why).
  input.disabled = !!chat?.readOnly;
  input.placeholder = chat?.readOnly ? "Read-only: reopened from history; start a new chat to go on" : "Ask the agent… (Enter to send, Shift+Enter for a new line)";
}

function renderTranscript(): void {
  const cv = st.active ? st.chats.get(st.active) : undefined;
  if (!cv) {
    transcript.replaceChildren(empty);
    return;
  }
  itemEls.clear();
  for (const [id, d] of dirty) if (d.chatId === cv.chat.chatId) dirty.delete(id);
  const pages: HTMLElement[] = [];
  cv.order.forEach((id, i) => {
    if (i % PAGE_ITEMS === 0) pages.push(h("div", { class: "page" }));
    pages[pages.length - 1].append(renderItem(cv.items.get(id)!));
  });
  transcript.replaceChildren(...pages);
  transcript.scrollTop = transcript.scrollHeight;
}

/**
 * Items sit in pages of PAGE_ITEMS (div.page, content-visibility: auto): a page out
 * of view is skipped by style, layout and paint, so a transcript of thousands of
 * items costs per frame about what is on screen.
 */
const PAGE_ITEMS = 40;

function appendItemEl(el: HTMLElement): void {
  let page = transcript.lastElementChild as HTMLElement | null;
  if (!page?.classList.contains("page") || page.childElementCount >= PAGE_ITEMS) {
    page = h("div", { class: "page" });
    transcript.append(page);
  }
  page.append(el);
}

/** Rendered items of the active chat by id (a querySelector per item would walk the whole transcript). */
const itemEls = new Map<string, HTMLElement>();

function renderItem(item: ChatItem): HTMLElement {
  const el = renderItemInner(item);
  el.dataset["itemId"] = item.id;
  itemEls.set(item.id, el);
  return el;
}

function itemEl(id: string): HTMLElement | undefined {
  const el = itemEls.get(id);
  return el?.isConnected ? el : undefined;
}

/**
 * Incremental markdown state of a message body. Finished blocks go into parts
 * (div.md-part, about PART_CHARS of HTML each, skipped by layout and paint while
 * off screen); the unfinished tail follows the parts and is redrawn per frame.
 */
const liveMd = new WeakMap<HTMLElement, { md: IncrementalMarkdown; parts: number; part?: HTMLElement; partSize: number; shown: number; paints: number }>();
const PART_CHARS = 16_000;
/**
 * At most this much more of a message's source is painted per frame: the browser's
 * style, layout and HTML parsing of what a paint inserts are outside the frame's
 * script budget, so a message that arrived faster than it was painted (the start
 * of a fast stream, a long message on reload) is shown over a few frames instead
 * of in one long task. 24 KB per frame is over a megabyte a second.
 */
const STEP_CHARS = 24_000;

/**
 * Paints markdown into body; called again with the grown text, it appends finished
 * blocks and redraws only the tail. It paints at most STEP_CHARS more of the text
 * (cut after a line where it can) and returns true when more is left for a later frame.
 */
function paintMarkdown(body: HTMLElement, text: string): boolean {
  let s = liveMd.get(body);
  if (!s) {
    s = { md: new IncrementalMarkdown(), parts: 0, partSize: 0, shown: 0, paints: 0 };
    liveMd.set(body, s);
  }
  let upto = text.length;
  // The first paints of a message are smaller (2 KB, doubling): its first layout and the
  // first style of its kinds of blocks cost most.
  const step = Math.min(STEP_CHARS, 2000 * 2 ** s.paints);
  s.paints++;
  if (upto - s.shown > step) {
    const nl = text.lastIndexOf("\n", s.shown + step);
    upto = nl > s.shown ? nl + 1 : s.shown + step;
    if (/[\uD800-\uDBFF]/.test(text[upto - 1])) upto++; // never split a surrogate pair
  }
  s.shown = upto;
  const { commit, tail } = s.md.update(upto === text.length ? text : text.slice(0, upto)); // HTML from markdown-it with html: false
  while (body.childNodes.length > s.parts) body.lastChild!.remove();
  if (commit) {
    if (!s.part || s.partSize > PART_CHARS) {
      s.part = h("div", { class: "md-part" });
      body.append(s.part);
      s.parts++;
      s.partSize = 0;
    }
    s.part.insertAdjacentHTML("beforeend", commit);
    s.partSize += commit.length;
  }
  if (tail) body.insertAdjacentHTML("beforeend", tail);
  return upto < text.length;
}

/** A message painted only in part (paintMarkdown): the rest is painted in the next frames. */
function paintRestLater(itemId: string): void {
  if (st.active) markDirty(st.active, itemId, false);
}

function renderItemInner(item: ChatItem): HTMLElement {
  switch (item.kind) {
    case "user": {
      const chatId = st.active;
      const cp = item.checkpoint;
      const restore =
        cp && chatId
          ? h(
              "button",
              { class: "link restore-checkpoint", title: "Restore the workspace's files to how they were before this message (what changes is shown first)", onclick: () => send({ type: "restoreCheckpoint", chatId, checkpoint: cp }) },
              icon("discard"),
              " Restore checkpoint",
            )
          : null;
      return h("div", { class: "msg user" }, h("div", { class: "who" }, icon("account"), " You", restore ? " " : "", restore), h("div", { class: "text" }, item.text));
    }
    case "changes":
      return renderChanges(item);
    case "restored": {
      const chatId = st.active;
      return h(
        "div",
        { class: "notice info restored" },
        icon("history"),
        " ",
        item.text,
        " ",
        chatId ? h("button", { class: "link redo-checkpoint", title: "Bring the files back to how they were just before this restore", onclick: () => send({ type: "restoreCheckpoint", chatId, checkpoint: item.redo }) }, icon("redo"), " Redo") : null,
      );
    }
    case "agent": {
      const body = h("div", { class: "markdown" });
      if (paintMarkdown(body, item.text)) paintRestLater(item.id);
      return h("div", { class: "msg agent" }, body);
    }
    case "thought": {
      const body = h("div", { class: "markdown" });
      if (paintMarkdown(body, item.text)) paintRestLater(item.id);
      return h("details", { class: "thought" }, h("summary", {}, icon("lightbulb"), " Thinking"), body);
    }
    case "tool":
      return renderTool(item.tool);
    case "plan":
      return h(
        "div",
        { class: "card plan" },
        h("div", { class: "card-head" }, icon("checklist"), " Plan"),
        h(
          "ul",
          {},
          ...item.entries.map((e) =>
            h("li", { class: `plan-${e.status}` }, icon(e.status === "completed" ? "pass-filled" : e.status === "in_progress" ? "circle-large-outline" : "circle-large"), " ", e.content),
          ),
        ),
      );
    case "approval":
      return renderApproval(item);
    case "notice":
      return h("div", { class: `notice ${item.level}` }, icon(item.level === "error" ? "error" : item.level === "warn" ? "warning" : item.level === "quiet" ? "shield" : "info"), " ", item.text);
  }
}

const CHANGE_ICONS: Record<string, string> = { added: "diff-added", modified: "diff-modified", deleted: "diff-removed" };
const STATE_WORDS: Record<string, string> = { kept: "kept", undone: "undone", partly: "partly undone" };

/** A turn's changes (from the checkpoint diff): review them all, or open, keep, undo each file or some of its hunks. */
function renderChanges(item: Extract<ChatItem, { kind: "changes" }>): HTMLElement {
  const chatId = st.active ?? "";
  const act = (action: "review" | "open" | "keep" | "undo" | "hunks", path?: string) => () => send({ type: "changeAction", chatId, itemId: item.id, action, path });
  const open = item.files.filter((f) => !f.state).length;
  return h(
    "div",
    { class: "card changes" },
    h(
      "div",
      { class: "card-head" },
      icon("files"),
      ` ${item.files.length} file${item.files.length === 1 ? "" : "s"} changed in this ${item.scope === "chat" ? "chat since its first message" : "turn"} `,
      h("button", { class: "link review-changes", title: "Open every change in VS Code's multi-file diff", onclick: act("review") }, icon("diff-multiple"), " Review"),
      open ? h("button", { class: "link keep-all", title: "Keep every change not yet kept or undone", onclick: act("keep") }, icon("check-all"), " Keep all") : null,
      open ? h("button", { class: "link undo-all", title: "Undo every change not yet kept or undone (shown and asked first)", onclick: act("undo") }, icon("discard"), " Undo all") : null,
    ),
    h(
      "ul",
      { class: "change-files" },
      ...item.files.map((f) =>
        h(
          "li",
          { class: `change-file ${f.status}${f.state ? ` ${f.state}` : ""}`, "data-path": f.path },
          h("button", { class: "link open-change", title: `Open ${f.path}: before the turn ↔ now`, onclick: act("open", f.path) }, icon(CHANGE_ICONS[f.status] ?? "diff"), ` ${f.path}`),
          f.state
            ? h("span", { class: "change-state" }, ` ${STATE_WORDS[f.state] ?? f.state}`)
            : h(
                "span",
                { class: "change-actions" },
                " ",
                h("button", { class: "link keep-file", title: `Keep the change to ${f.path}`, onclick: act("keep", f.path) }, icon("check"), " Keep"),
                " ",
                h("button", { class: "link undo-file", title: `Undo the change to ${f.path} (back to before the turn)`, onclick: act("undo", f.path) }, icon("discard"), " Undo"),
                f.status === "modified" ? " " : null,
                f.status === "modified" ? h("button", { class: "link undo-hunks", title: `Pick which changes of ${f.path} to undo`, onclick: act("hunks", f.path) }, icon("list-selection"), " Hunks…") : null,
              ),
        ),
      ),
    ),
  );
}

const KIND_ICONS: Record<string, string> = {
  read: "file",
  edit: "edit",
  delete: "trash",
  move: "arrow-swap",
  search: "search",
  execute: "terminal",
  think: "lightbulb",
  fetch: "globe",
  switch_mode: "settings",
  other: "tools",
};

function statusIcon(status: string): HTMLElement {
  switch (status) {
    case "completed":
      return icon("pass", "ok");
    case "failed":
      return icon("error", "bad");
    case "cancelled":
      return icon("circle-slash", "bad");
    case "in_progress":
      return icon("loading", "codicon-modifier-spin");
    default:
      return icon("clock");
  }
}

function renderLocations(t: ToolCallView): HTMLElement | null {
  if (!t.locations.length) return null;
  return h(
    "div",
    { class: "locations" },
    ...t.locations.map((l) =>
      h(
        "button",
        { class: "link", title: `Open ${l.path}`, onclick: () => send({ type: "openFile", path: l.path, line: l.line ?? undefined }) },
        icon("file"),
        ` ${l.path}${l.line ? `:${l.line}` : ""}`,
      ),
    ),
  );
}

function renderDiff(d: DiffView): HTMLElement {
  const lines = withContext(lineDiff(d.oldText, d.newText));
  return h(
    "div",
    { class: "diff" },
    h("div", { class: "diff-path" }, icon(d.oldText === null ? "new-file" : "diff"), ` ${d.path}${d.oldText === null ? " (new file)" : ""}`),
    h(
      "pre",
      {},
      ...lines.map((l) =>
        h("div", { class: l.op === "+" ? "add" : l.op === "-" ? "del" : l.op === "…" ? "gap" : "ctx" }, l.op === "…" ? `… ${l.text}` : `${l.op} ${l.text}`),
      ),
    ),
  );
}

/** Adds "Open diff" (VS Code's diff editor; with approvalId, answerable from its title bar) to a rendered diff. */
function withOpenDiff(el: HTMLElement, d: DiffView, approvalId?: string): HTMLElement {
  const b = h("button", { class: "link open-diff", title: `Open ${d.path} in VS Code's diff editor${approvalId ? " (Allow once / Deny in its title bar)" : ""}`, onclick: () => send({ type: "openDiff", diff: d, approvalId }) }, icon("diff"), " Open diff");
  (el.querySelector(".diff-path") ?? el).append(" ", b);
  return el;
}

function renderToolContent(t: ToolCallView, approvalId?: string): HTMLElement[] {
  return t.content.map((c) => {
    switch (c.type) {
      case "text":
        return h("pre", { class: "tool-output" }, c.text);
      case "diff":
        return withOpenDiff(renderDiff(c.diff), c.diff, approvalId);
      case "terminal":
        return h("pre", { class: "tool-output terminal" }, c.output ?? `(terminal ${c.terminalId})`);
    }
  });
}

/** Agents write their own "Rejected by user" on a denied call; the bridge knows who decided. */
const AGENT_DENIAL_TEXT = /^\s*(the )?(user|permission) (rejected|refused|denied)|rejected by (the )?user|user (rejected|refused|denied)|permission denied by user/i;

function renderTool(t: ToolCallView): HTMLElement {
  const content = t.verdict && !/by you/.test(t.verdict) ? { ...t, content: t.content.filter((c) => !(c.type === "text" && AGENT_DENIAL_TEXT.test(c.text))) } : t;
  const verdict = t.verdict ? h("div", { class: `verdict ${t.verdictDecision ?? ""}` }, icon(t.verdictDecision === "allow" ? "pass" : t.verdictDecision === "deny" ? "circle-slash" : "history"), " ", t.verdict) : null;
  const body = [verdict, t.command ? h("pre", { class: "command" }, `$ ${t.command}`) : null, renderLocations(t), ...renderToolContent(content)];
  const hasBody = body.some(Boolean);
  const head = h("span", { class: "tool-head" }, icon(KIND_ICONS[t.kind] ?? "tools"), " ", inlineMd("span", "tool-title", t.title), " ", h("span", { class: `status status-${t.status}` }, statusIcon(t.status), ` ${t.status.replace("_", " ")}`));
  if (!hasBody) return h("div", { class: `card tool status-${t.status}`, "data-tool-call-id": t.toolCallId }, h("div", { class: "card-head" }, head));
  return h(
    "details",
    { class: `card tool status-${t.status}`, "data-tool-call-id": t.toolCallId, open: t.status !== "completed" },
    h("summary", { class: "card-head" }, head),
    ...body,
  );
}

function decisionClass(a: ApprovalItem): string {
  if (a.state !== "resolved") return a.state;
  const r = a.resolution!;
  if (["timeout", "cancel", "agent-exit", "editor-gone", "shutdown", "elsewhere"].includes(r.by)) return "resolved expired";
  return `resolved ${r.decision === "allow" ? "allowed" : r.decision === "deny" ? "denied" : "expired"}`;
}

function renderApproval(a: ApprovalItem): HTMLElement {
  const m = a.meta;
  const tool = m.tool ?? a.tool.kind;
  const agent = m.agent ?? st.chats.get(st.active ?? "")?.chat.agent ?? "The agent";
  const takesRule = a.options.some((o) => optionTakesRule(o.optionId));
  const suggested = m.suggestedRules ?? [];
  const ruleValue = ruleEdits.get(a.approvalId) ?? suggested[0] ?? m.specifier ?? "";
  const scope = scopeEdits.get(a.approvalId) ?? "user";
  const open = a.state !== "resolved";
  const card = h("div", {
    class: `card approval ${decisionClass(a)}`,
    "data-approval-id": a.approvalId,
    "data-tool-call-id": a.tool.toolCallId || undefined,
    role: "group",
    "aria-label": `Approval: ${m.specifier ?? a.tool.title}`,
  });
  card.append(
    h("div", { class: "card-head" }, icon(open ? "shield" : "shield"), " ", h("strong", {}, agent), ` asks to use ${tool}`, m.mode ? h("span", { class: "pill", title: "policy mode" }, m.mode) : null),
    h("div", { class: "specifier" }, h("code", {}, m.specifier ?? a.tool.title)),
  );
  if (open) {
    const cmd = a.tool.command;
    if (cmd) card.append(h("pre", { class: "command" }, `$ ${cmd}`));
    if (m.subCommands && m.subCommands.length > 1) card.append(h("div", { class: "subcommands" }, "Sub-commands: ", ...m.subCommands.map((s) => h("code", {}, s))));
    const loc = renderLocations(a.tool);
    if (loc) card.append(loc);
    else if (m.paths?.length) card.append(h("div", { class: "locations" }, ...m.paths.map((p) => h("span", {}, icon("file"), ` ${p} `))));
    for (const c of renderToolContent(a.tool, a.approvalId)) card.append(c);
    const why: (Node | string)[] = [];
    if (m.reason) why.push(inlineMd("span", "", m.reason));
    if (m.matchedRule) why.push(h("span", {}, " · rule ", h("code", {}, m.matchedRule)));
    if (m.mode) why.push(h("span", {}, ` · mode ${m.mode}`));
    if (m.breaker) why.push(h("span", {}, " · circuit breaker ", h("code", {}, m.breaker)));
    if (m.operation) why.push(h("span", {}, " · ", h("code", {}, m.operation)));
    if (why.length) card.append(h("div", { class: "why" }, icon("question"), " Why: ", ...why));
    if (m.sandbox) card.append(h("div", { class: "sandbox-note" }, icon("lock"), ` ${m.sandbox}`));
    if (m.rejectEndsTurn) card.append(h("div", { class: "reject-ends-turn" }, icon("warning"), " Deny also stops the agent's turn (its only reject option ends it)."));
    if (m.expiresAt) {
      const t = new Date(m.expiresAt);
      if (!isNaN(t.getTime())) card.append(h("div", { class: "expires" }, icon("watch"), ` Expires at ${t.toLocaleTimeString()}`));
    }
    const busy = a.state === "answering";
    const button = (o: (typeof a.options)[number], label = o.name) =>
      h(
        "button",
        {
          class: `opt ${o.optionId === OPT.bypass ? "danger" : o.kind.startsWith("allow") ? (o.kind === "allow_once" ? "primary" : "allow") : o.kind.startsWith("reject") ? "reject" : "secondary"}${a.chosen === o.optionId ? " chosen" : ""}`,
          "data-option-id": o.optionId,
          disabled: busy,
          "aria-keyshortcuts": o.optionId === OPT.allowOnce ? "A" : o.optionId === OPT.rejectOnce ? "D" : undefined,
          title: (OPTION_HINTS[o.optionId] ?? `${o.name} (${o.kind.replace("_", " ")}, offered by the agent)`) + (o.optionId === OPT.allowOnce ? " [A]" : o.optionId === OPT.rejectOnce ? " [D]" : ""),
          onclick: (e: Event) => choose(a, o.optionId, ruleValue, scope, e.currentTarget as HTMLElement),
        },
        o.optionId === OPT.bypass ? icon("warning") : null,
        o.optionId === OPT.bypass ? " " : null,
        label,
      );
    // Compact: two primary actions (Allow once, Deny), each with a dropdown of
    // its other scopes; bypass and options of no side last, behind "More options…".
    const groups = splitCardOptions(a.options);
    const ruleRow = (): HTMLElement => {
      const listId = `sugg-${a.approvalId}`;
      const ruleInput = h("input", {
        class: "rule-input",
        type: "text",
        value: ruleValue,
        list: listId,
        "aria-label": "Rule to store with Always allow / Always deny",
        title: "The rule stored by Always allow / Always deny; edit it before choosing",
      });
      ruleInput.addEventListener("input", () => ruleEdits.set(a.approvalId, ruleInput.value));
      const scopeSel = h(
        "select",
        { class: "scope-select", "aria-label": "Where to store it" },
        h("option", { value: "user", selected: scope === "user" }, "User settings"),
        h("option", { value: "workspace", selected: scope === "workspace" }, "Workspace settings"),
      );
      scopeSel.addEventListener("change", () => scopeEdits.set(a.approvalId, scopeSel.value as Scope));
      return h(
        "div",
        { class: "rule-row" },
        takesRule ? h("label", { class: "rule-label" }, "Rule ", ruleInput) : null,
        takesRule ? h("datalist", { id: listId }, ...suggested.map((s) => h("option", { value: s }))) : null,
        h("label", {}, "in ", scopeSel),
      );
    };
    const openMenu = menuOpen.get(a.approvalId);
    const toggle = (side: "allow" | "deny", label: string) =>
      h(
        "button",
        {
          class: `opt split-toggle ${side === "allow" ? "allow" : "reject"}`,
          "data-menu": side,
          "aria-haspopup": "true",
          "aria-expanded": openMenu === side ? "true" : "false",
          "aria-label": label,
          title: label,
          disabled: busy,
          onclick: () => {
            menuOpen.set(a.approvalId, openMenu === side ? undefined : side);
            rerenderCard(a.approvalId, openMenu === side ? `[data-menu="${side}"]` : side === "deny" ? ".split-menu .reason-input, .split-menu button" : ".split-menu button");
          },
        },
        icon("chevron-down"),
      );
    const row = h("div", { class: "options compact" });
    if (groups.allowOnce) row.append(h("span", { class: "split" }, button(groups.allowOnce), groups.allowMore.length ? toggle("allow", "More ways to allow: this session, always") : null));
    if (groups.denyOnce || groups.denyMore.length) {
      row.append(h("span", { class: "split" }, groups.denyOnce ? button(groups.denyOnce) : null, toggle("deny", "More ways to deny: with a reason, deny and stop, always")));
    }
    card.append(row);
    if (openMenu === "allow" && groups.allowMore.length) {
      const takesHere = groups.allowMore.some((o) => optionTakesRule(o.optionId) || optionTakesScope(o.optionId));
      card.append(h("div", { class: "split-menu", role: "group", "aria-label": "More ways to allow" }, h("div", { class: "options" }, ...groups.allowMore.map((o) => button(o))), takesHere ? ruleRow() : null));
    }
    if (openMenu === "deny") {
      const menu = h("div", { class: "split-menu", role: "group", "aria-label": "More ways to deny" });
      if (groups.denyOnce) {
        const reasonIn = h("input", {
          class: "reason-input",
          type: "text",
          value: reasonEdits.get(a.approvalId) ?? "",
          placeholder: "Why (the agent is told)…",
          "aria-label": "Reason for the agent, sent with Deny",
        });
        reasonIn.addEventListener("input", () => reasonEdits.set(a.approvalId, reasonIn.value));
        const sendReason = () => {
          const reason = reasonIn.value.trim();
          if (!reason) {
            reasonIn.focus();
            return;
          }
          send({ type: "approve", approvalId: a.approvalId, optionId: groups.denyOnce!.optionId, reason });
        };
        reasonIn.addEventListener("keydown", (e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            sendReason();
          }
        });
        menu.append(
          h(
            "div",
            { class: "reason-row" },
            h("label", { class: "rule-label" }, "Deny with a reason… ", reasonIn),
            h("button", { class: "opt reject deny-reason", disabled: busy, title: "Deny, and tell the agent why (its model sees the text)", onclick: sendReason }, "Deny with reason"),
          ),
        );
      }
      if (groups.denyMore.length) menu.append(h("div", { class: "options" }, ...groups.denyMore.map((o) => button(o))));
      if (groups.denyMore.some((o) => optionTakesRule(o.optionId) || optionTakesScope(o.optionId))) menu.append(ruleRow());
      card.append(menu);
    }
    // Bypass is the widest grant: it sits last, behind a disclosure, in the
    // danger colours, so it is never the first Shift+Tab stop from the message box.
    if (groups.rest.length) {
      card.append(h("details", { class: "more-options" }, h("summary", {}, "More options…"), h("div", { class: "options danger-zone" }, ...groups.rest.map((o) => button(o)))));
    }
    if (busy) card.append(h("div", { class: "answering" }, icon("loading", "codicon-modifier-spin"), " Answering…"));
  } else {
    const r = a.resolution!;
    card.append(h("div", { class: "outcome" }, icon(r.decision === "allow" ? "pass" : r.decision === "deny" ? "circle-slash" : "history"), h("span", { class: "gap-left" }, describeResolution(r, a.options) + (a.denyReason && r.decision === "deny" ? denyReasonLine(a.denyReason) : ""))));
  }
  if (a.error) card.append(h("div", { class: "card-error", role: "alert" }, icon("warning"), " ", a.error));
  return card;
}

/** Which dropdown of a card is open, and the reason typed for "Deny with a reason…", kept across re-renders. */
const menuOpen = new Map<string, "allow" | "deny" | undefined>();
const reasonEdits = new Map<string, string>();

/** Paints one card again at once (a dropdown opened or closed) and focuses what sel names in it. */
function rerenderCard(approvalId: string, sel: string): void {
  const cv = st.active ? st.chats.get(st.active) : undefined;
  const item = cv?.items.get(`approval:${approvalId}`);
  const old = itemEl(`approval:${approvalId}`);
  if (!item || item.kind !== "approval" || !old) return;
  const fresh = renderItem(item); // registered as the item's element: the next paint replaces this one
  old.replaceWith(fresh);
  fresh.querySelector<HTMLElement>(sel)?.focus();
}

// Escape in a card's dropdown closes it and gives focus back to its toggle.
transcript.addEventListener("keydown", (e) => {
  if (e.key !== "Escape") return;
  const menu = (e.target as HTMLElement).closest(".split-menu");
  const cardEl = menu?.closest<HTMLElement>(".card.approval");
  const id = cardEl?.dataset["approvalId"];
  if (!id) return;
  const side = menuOpen.get(id);
  if (!side) return;
  e.preventDefault();
  menuOpen.set(id, undefined);
  rerenderCard(id, `[data-menu="${side}"]`);
});

function choose(a: ApprovalItem, optionId: string, ruleValue: string, scope: Scope, from?: HTMLElement): void {
  // The rule field of the dropdown the button is in (only an open dropdown has one).
  const cardEl = from?.closest<HTMLElement>(".split-menu") ?? transcript.querySelector<HTMLElement>(`[data-approval-id="${CSS.escape(a.approvalId)}"]`);
  const rule = optionTakesRule(optionId) ? (cardEl?.querySelector<HTMLInputElement>(".rule-input")?.value ?? ruleValue) : undefined;
  const sc = optionTakesScope(optionId) ? ((cardEl?.querySelector<HTMLSelectElement>(".scope-select")?.value as Scope) ?? scope) : undefined;
  send({ type: "approve", approvalId: a.approvalId, optionId, rule, scope: sc });
}

// Keyboard: with focus inside an open card (not in its rule field), A allows
// once and D denies. No key ever chooses bypass or a stored rule.
const CARD_KEYS: Record<string, string> = { a: OPT.allowOnce, d: OPT.rejectOnce };
transcript.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
  const target = e.target as HTMLElement;
  if (target.closest("input, textarea, select")) return;
  const optionId = CARD_KEYS[e.key.toLowerCase()];
  const cardEl = target.closest<HTMLElement>(".card.approval");
  if (!optionId || !cardEl) return;
  const id = cardEl.dataset["approvalId"];
  const cv = st.active ? st.chats.get(st.active) : undefined;
  const item = id ? cv?.items.get(`approval:${id}`) : undefined;
  if (!item || item.kind !== "approval" || item.state !== "pending") return;
  if (!item.options.some((o) => o.optionId === optionId)) return;
  e.preventDefault();
  send({ type: "approve", approvalId: item.approvalId, optionId });
});

// ---- streaming --------------------------------------------------------------------

/**
 * Items changed since the last frame, in the order they changed; painted once per
 * animation frame, however many messages arrived: "append" (streamed text) paints
 * only the message's new blocks, "item" (a new or replaced item: tool calls,
 * cards) re-renders that item. A busy stream of chunks and tool-call updates thus
 * costs one layout per frame and work linear in the reply's length.
 */
const dirty = new Map<string, { chatId: string; full: boolean }>();
let frameQueued = false;

function markDirty(chatId: string, itemId: string, full: boolean): void {
  const d = dirty.get(itemId);
  if (d) d.full ||= full;
  else dirty.set(itemId, { chatId, full });
  if (!frameQueued) {
    frameQueued = true;
    requestAnimationFrame(flushStreaming);
  }
}

/** Milliseconds of painting per frame; what is left waits for the next frame, so a burst never makes one long task. */
const FRAME_BUDGET_MS = 8;
/**
 * At most this many items painted per frame. The script budget above does not see
 * the style, layout and paint of what a frame inserted, which cost 3-5 times the
 * script: measured with the 300-tool-call workload (`make bench-webview`; CPU time
 * of the page's main-thread tasks), frames of 4 or more items reached 35-57 ms of
 * CPU, frames of at most 3 stayed under 25 ms, and the stream ends on screen about
 * as early (docs/benchmarks.md, section 7).
 */
const FRAME_ITEMS = 3;

function flushStreaming(): void {
  frameQueued = false;
  if (!dirty.size) return;
  const start = performance.now();
  const atBottom = transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 40;
  let added = false;
  // A copy: what is marked dirty while painting (the rest of a long message) waits for the next frame.
  let painted = 0;
  for (const [itemId, d] of [...dirty]) {
    if (performance.now() - start > FRAME_BUDGET_MS || painted >= FRAME_ITEMS) break;
    dirty.delete(itemId);
    if (d.chatId !== st.active) continue;
    const item = st.chats.get(d.chatId)?.items.get(itemId);
    if (!item) continue;
    painted++;
    const old = itemEl(itemId);
    const body = old?.querySelector<HTMLElement>(".markdown");
    if (old && !d.full && body && liveMd.has(body) && (item.kind === "agent" || item.kind === "thought")) {
      if (paintMarkdown(body, item.text)) paintRestLater(itemId);
      continue;
    }
    const fresh = renderItem(item);
    if (old) {
      // Keep a <details> the person opened or closed as it was.
      if (old instanceof HTMLDetailsElement && fresh instanceof HTMLDetailsElement && old.dataset["touched"]) {
        fresh.open = old.open;
        fresh.dataset["touched"] = "1";
      }
      old.replaceWith(fresh);
    } else {
      if (empty.isConnected) transcript.replaceChildren();
      appendItemEl(fresh);
      added = true;
    }
  }
  if (dirty.size && !frameQueued) {
    frameQueued = true;
    requestAnimationFrame(flushStreaming);
  }
  if (atBottom || added) transcript.scrollTop = transcript.scrollHeight;
  // Count of frames that painted, read by the webview tests (a paint per frame, not per message).
  (window as unknown as { __renders?: number }).__renders = ((window as unknown as { __renders?: number }).__renders ?? 0) + 1;
}

// ---- messages from the host ----------------------------------------------------------

function upsertChat(chat: ChatInfo): ChatView {
  let cv = st.chats.get(chat.chatId);
  if (!cv) {
    cv = { chat, items: new Map(), order: [] };
    st.chats.set(chat.chatId, cv);
    st.order.push(chat.chatId);
  } else cv.chat = chat;
  return cv;
}

function setActive(chatId: string | undefined): void {
  const prev = st.active;
  if (prev !== undefined) drafts[prev] = input.value;
  st.active = chatId && st.chats.has(chatId) ? chatId : st.order[st.order.length - 1];
  if (st.active !== prev) input.value = drafts[st.active ?? ""] ?? "";
  renderTabs();
  scrollActiveTab();
  renderChatbar();
  renderTranscript();
}

function onMessage(m: HostMessage): void {
  switch (m.type) {
    case "state": {
      st.received = true;
      st.bridge = m.bridge;
      st.agents = m.agents;
      st.defaultAgent = m.defaultAgent;
      st.modes = m.modes;
      st.chats.clear();
      st.order = [];
      for (const s of m.chats) {
        const cv = upsertChat(s.chat);
        for (const it of s.items) {
          cv.items.set(it.id, it);
          cv.order.push(it.id);
        }
      }
      st.active = undefined;
      setActive(m.activeChatId);
      return;
    }
    case "bridge":
      st.bridge = m.bridge;
      renderChatbar();
      return;
    case "agents":
      st.agents = m.agents;
      st.defaultAgent = m.defaultAgent;
      renderChatbar();
      return;
    case "chat":
      upsertChat(m.chat);
      renderTabs();
      if (m.chat.chatId === st.active) renderChatbar();
      return;
    case "chatClosed":
      st.chats.delete(m.chatId);
      st.order = st.order.filter((x) => x !== m.chatId);
      delete drafts[m.chatId];
      if (st.active === m.chatId) setActive(undefined);
      else renderTabs();
      return;
    case "activeChat":
      setActive(m.chatId);
      return;
    case "item": {
      const cv = st.chats.get(m.chatId);
      if (!cv) return;
      const had = cv.items.has(m.item.id);
      cv.items.set(m.item.id, m.item);
      if (!had) cv.order.push(m.item.id);
      if (m.item.kind === "approval") renderTabs();
      if (m.chatId === st.active) markDirty(m.chatId, m.item.id, true);
      return;
    }
    case "append": {
      const cv = st.chats.get(m.chatId);
      const cur = cv?.items.get(m.itemId);
      if (!cv || !cur || (cur.kind !== "agent" && cur.kind !== "thought")) return;
      cur.text += m.text; // in place: a copy per chunk would be quadratic too
      if (m.chatId === st.active) markDirty(m.chatId, m.itemId, false);
      return;
    }
    case "contextAdded":
      ctxBar.add(m.refs);
      input.focus();
      return;
    case "focusApproval": {
      setActive(m.chatId);
      focusCard(m.approvalId, 120);
      return;
    }
  }
}

/**
 * Scrolls to a card and focuses its first answer (Allow once). The card may not be painted
 * yet (a chat just switched to, a view just loaded: items paint on animation frames), so it
 * is looked for again on the next frames, at most `frames` times.
 */
function focusCard(approvalId: string, frames: number): void {
  const el = transcript.querySelector<HTMLElement>(`[data-approval-id="${CSS.escape(approvalId)}"]`);
  const button = el?.querySelector<HTMLButtonElement>("button.opt:not([disabled])");
  if (!el || !button) {
    if (frames > 0) requestAnimationFrame(() => focusCard(approvalId, frames - 1));
    return;
  }
  el.scrollIntoView({ block: "center" });
  el.classList.add("flash");
  setTimeout(() => el.classList.remove("flash"), 1500);
  button.focus();
}

// A <details> the person opened or closed keeps that state across re-renders
// (toggle events also fire for the initial open attribute, clicks do not).
transcript.addEventListener("click", (e) => {
  const summary = (e.target as HTMLElement).closest("summary");
  const d = summary?.parentElement;
  if (d instanceof HTMLDetailsElement) d.dataset["touched"] = "1";
  // A file link in a message (data-file, set by the markdown renderer) opens in the editor.
  const a = (e.target as HTMLElement).closest<HTMLAnchorElement>("a[data-file]");
  if (a) {
    e.preventDefault();
    const line = Number(a.dataset["line"]);
    send({ type: "openFile", path: a.dataset["file"]!, line: line > 0 ? line : undefined });
  }
});

window.addEventListener("message", (e: MessageEvent) => {
  const m = e.data as HostMessage;
  if (m && typeof m === "object" && typeof m.type === "string") onMessage(m);
});

renderChatbar();
renderTranscript();
send({ type: "ready" });
