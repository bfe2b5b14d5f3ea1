// Messages between the extension host and the chat webview. This is the ONE
// module both sides import (the webview bundle and the host bundle), so a
// message shape changes in exactly one place. It holds types and tiny pure
// helpers only: no vscode, no DOM, no node imports (wire.gen.ts, generated
// from the bridge's declarations, has no imports either).

import { MODE_TABLE, POLICY_MODES, type PolicyMode } from "./wire.gen";

/** The bridge's policy modes (generated from policy/mode.go; extension-surface.md, initialize _meta). */
export { POLICY_MODES, type PolicyMode };

/** Each mode's name as the bridge gives it (policy.ModeTexts): one vocabulary. */
export const MODE_LABELS = Object.fromEntries(POLICY_MODES.map((m) => [m, MODE_TABLE[m].name])) as Record<PolicyMode, string>;

export interface AgentSummary {
  id: string;
  name: string;
  status?: string; // idle | starting | running | crashed | stopped
  mode?: string; // the agent's configured policy mode (new chats start there)
  lastError?: string;
  /** false: its program is not on PATH here (said in the picker before it is used). */
  installed?: boolean;
}

export type BridgeStatus = "starting" | "running" | "restarting" | "failed" | "stopped";

export interface BridgeState {
  status: BridgeStatus;
  version?: string;
  message?: string;
}

export interface ChatInfo {
  chatId: string;
  sessionId?: string;
  agent: string;
  mode: string;
  title: string;
  /** A prompt turn is running. */
  busy: boolean;
  /** Session could not be created, or the bridge went away. */
  error?: string;
  /** Created for a session this window did not start (approval for an unknown session). */
  external?: boolean;
  /**
   * The agent's own id of the chat's last session: after the bridge that ran it is gone,
   * the next message tries session/load with it (agents that support it).
   */
  childSessionId?: string;
  /**
   * The agent runs with bypass permissions (a card's "Bypass permissions", the agent's
   * setting, or a call the bridge allowed "by bypass"): known from the bridge, not assumed.
   */
  bypass?: boolean;
  /**
   * The person picked this chat's mode (the mode dropdown, Set Mode). Otherwise the mode is
   * the agent's as the bridge reports it, and a chat without a live session follows the
   * agent's mode in the settings (a revoked bypass does not come back from memory).
   */
  modeChosen?: boolean;
  /**
   * Reopened from history with an agent that cannot resume it (no session/load): the
   * transcript is shown, no message can be sent in it (a new chat continues).
   */
  readOnly?: boolean;
}

/** A file a turn changed (from the checkpoint diff), and what the person did with it. */
export interface FileChangeView {
  path: string;
  status: "added" | "modified" | "deleted";
  /** kept: accepted as is; undone: brought back to the checkpoint; partly: some hunks undone. */
  state?: "kept" | "undone" | "partly";
}

export interface DiffView {
  path: string;
  oldText: string | null;
  newText: string;
}

export type ToolContentView =
  | { type: "text"; text: string }
  | { type: "diff"; diff: DiffView }
  | { type: "terminal"; terminalId: string; output?: string };

export interface ToolCallView {
  toolCallId: string;
  title: string;
  kind: string;
  status: string; // pending | in_progress | completed | failed | cancelled
  locations: { path: string; line?: number | null }[];
  content: ToolContentView[];
  /** A command line found in rawInput (command / argv), when there is one. */
  command?: string;
  /** Who decided this call's permission, from _acp-bridge/approval/resolved ("Denied by rule Bash(rm *)"). */
  verdict?: string;
  /** allow | deny | cancelled, with verdict. */
  verdictDecision?: string;
}

export interface OptionView {
  optionId: string;
  name: string;
  kind: string; // allow_once | allow_always | reject_once | reject_always | other
}

/** What the bridge put in _meta["acp-bridge"] of a permission request. */
export interface ApprovalMetaView {
  approvalId: string;
  agent?: string;
  tool?: string;
  specifier?: string;
  paths?: string[];
  subCommands?: string[];
  matchedRule?: string;
  source?: string;
  reason?: string;
  mode?: string;
  suggestedRules?: string[];
  expiresAt?: string;
  /** The circuit breaker that asks (a protected file, rm -rf ~): no grant can take effect. */
  breaker?: string;
  /** fs/* and terminal/create: the method checked. */
  operation?: string;
  /** What the OS sandbox will still block if this is allowed. */
  sandbox?: string;
  /** The agent's only reject option ends its turn: Deny stops the turn too. */
  rejectEndsTurn?: boolean;
}

export interface ApprovalResolution {
  decision: string; // allow | deny | cancelled
  by: string; // user | rule | mode | timeout | cancel | agent-exit | ...
  optionId?: string;
  rule?: string;
  reason?: string;
}

export type ApprovalState = "pending" | "answering" | "resolved";

export type ChatItem =
  /** checkpoint: the workspace recorded before this message's turn (checkpoints.ts), restorable from here. */
  | { kind: "user"; id: string; text: string; checkpoint?: string }
  | { kind: "agent"; id: string; text: string }
  | { kind: "thought"; id: string; text: string }
  | { kind: "tool"; id: string; tool: ToolCallView }
  | { kind: "plan"; id: string; entries: { content: string; status: string; priority: string }[] }
  | {
      kind: "approval";
      id: string;
      approvalId: string;
      tool: ToolCallView;
      options: OptionView[];
      meta: ApprovalMetaView;
      state: ApprovalState;
      /** When the card arrived here (ms, strictly increasing): "the oldest pending card" is the smallest. */
      arrived?: number;
      /** The optionId the person clicked here, while waiting for the bridge. */
      chosen?: string;
      resolution?: ApprovalResolution;
      /** The person's own words with a deny ("Deny with a reason…"), sent to the bridge for the agent. */
      denyReason?: string;
      error?: string;
    }
  | { kind: "notice"; id: string; text: string; level: "info" | "warn" | "error" | "quiet" }
  /**
   * What a turn changed in the workspace, by any route: the checkpoint diff from (before) -> to (after).
   * scope "chat": everything since the chat's first message (ACP Bridge: Review This Chat's Changes).
   */
  | { kind: "changes"; id: string; turn: number; from: string; to: string; files: FileChangeView[]; scope?: "chat" }
  /** A checkpoint was restored; redo restores the workspace as it was just before. */
  | { kind: "restored"; id: string; text: string; redo: string };

export type ApprovalItem = Extract<ChatItem, { kind: "approval" }>;

export interface ChatSnapshot {
  chat: ChatInfo;
  items: ChatItem[];
}

/** Host -> webview. */
export type HostMessage =
  | {
      type: "state";
      bridge: BridgeState;
      agents: AgentSummary[];
      defaultAgent: string;
      modes: string[];
      chats: ChatSnapshot[];
      activeChatId?: string;
    }
  | { type: "bridge"; bridge: BridgeState }
  | { type: "agents"; agents: AgentSummary[]; defaultAgent: string }
  | { type: "chat"; chat: ChatInfo }
  | { type: "chatClosed"; chatId: string }
  | { type: "item"; chatId: string; item: ChatItem }
  /** Streamed text appended to an agent/thought item already sent (a delta, not the whole message). */
  | { type: "append"; chatId: string; itemId: string; text: string }
  | { type: "activeChat"; chatId: string }
  | { type: "focusApproval"; chatId: string; approvalId: string }
  /** Context the person picked (quick pick, selection, open editors), shown as chips until sent. */
  | { type: "contextAdded"; refs: ContextRef[] };

export type Scope = "user" | "workspace";

/** Webview -> host. */
export type WebviewMessage =
  | { type: "ready" }
  | { type: "newChat"; agent?: string }
  | { type: "selectChat"; chatId: string }
  | { type: "closeChat"; chatId: string }
  /** chatId "" (no chat open): the host opens one with `agent` (or the default) and sends the text. */
  | { type: "prompt"; chatId: string; text: string; agent?: string; context?: ContextRef[] }
  | { type: "cancel"; chatId: string }
  | { type: "setMode"; chatId: string; mode: string }
  | { type: "approve"; approvalId: string; optionId: string; rule?: string; scope?: Scope; reason?: string }
  | { type: "openFile"; path: string; line?: number }
  /** Attach context: a workspace file (quick pick), the editor's selection, or every open editor. */
  | { type: "addContext"; what: "file" | "selection" | "editors"; chatId?: string; agent?: string }
  /** Open a diff in VS Code's diff editor; with approvalId, answerable from its title bar while pending. */
  | { type: "openDiff"; diff: DiffView; approvalId?: string }
  /** Restore the workspace to a checkpoint (what it changes is shown first, and asked). */
  | { type: "restoreCheckpoint"; chatId: string; checkpoint: string }
  /** On a turn's changes: review (multi-file diff), open one file's diff, keep, undo, or pick hunks to undo; no path = every file. */
  | { type: "changeAction"; chatId: string; itemId: string; action: "review" | "open" | "keep" | "undo" | "hunks"; path?: string };

/**
 * A file or a selection attached to a prompt. The host turns it into ACP
 * content blocks (a resource_link, and an embedded resource when the agent's
 * promptCapabilities.embeddedContext allows); the webview shows it as a chip.
 */
export interface ContextRef {
  kind: "file" | "selection";
  /** file:// URI of the file (without the range fragment). */
  uri: string;
  /** Absolute file system path. */
  path: string;
  /** What the chip says: "main.go", "main.go:3-5". */
  label: string;
  /** A selection: 1-based lines and 0-based characters, end exclusive. */
  range?: { startLine: number; startCharacter: number; endLine: number; endCharacter: number };
}

/** A stable key of a context ref (one chip per file or selection). */
export function contextKey(r: ContextRef): string {
  return r.range ? `${r.uri}#L${r.range.startLine}:${r.range.startCharacter}-${r.range.endLine}:${r.range.endCharacter}` : r.uri;
}

/** The bridge's option ids (extension-surface.md). */
export const OPT = {
  allowOnce: "acp-bridge:allow_once",
  allowSession: "acp-bridge:allow_session",
  allowAlways: "acp-bridge:allow_always",
  rejectOnce: "acp-bridge:reject_once",
  rejectAndStop: "acp-bridge:reject_and_stop",
  rejectAlways: "acp-bridge:reject_always",
  bypass: "acp-bridge:bypass",
} as const;

/** Tooltips of the bridge's options. */
export const OPTION_HINTS: Record<string, string> = {
  [OPT.allowOnce]: "Allow this call, once",
  [OPT.allowSession]: "Allow calls like this one without asking until this session ends (kept in the bridge's memory)",
  [OPT.allowAlways]: "Store the rule below as an allow rule and allow this call",
  [OPT.rejectOnce]: "Refuse this call; the agent goes on",
  [OPT.rejectAndStop]: "Refuse this call and cancel the agent's turn",
  [OPT.rejectAlways]: "Store the rule below as a deny rule and refuse this call",
  [OPT.bypass]: "Let this agent run every call without asking (deny rules and circuit breakers still apply); asks you to confirm",
};

/** Options that store a rule, so the card offers an editable rule and a scope. */
export function optionTakesRule(optionId: string): boolean {
  return optionId === OPT.allowAlways || optionId === OPT.rejectAlways;
}

/** Options that persist something and so offer a user/workspace choice. */
export function optionTakesScope(optionId: string): boolean {
  return optionTakesRule(optionId) || optionId === OPT.bypass;
}

/** One line describing how an approval ended, for a closed card: what decided, always named. */
export function describeResolution(r: ApprovalResolution, options: OptionView[]): string {
  const opt = r.optionId ? options.find((o) => o.optionId === r.optionId) : undefined;
  const word = decisionWord(r.decision);
  const rule = r.rule ? ` ${r.rule}` : "";
  switch (r.by) {
    case "user":
      return `${word} by you${opt ? ` (${opt.name}${r.rule ? `: ${r.rule}` : ""})` : ""}`;
    case "timeout":
      return `${word}: no answer in time (timeout)`;
    case "cancel":
      return `${word}: the turn was cancelled`;
    case "agent-exit":
      return `${word}: the agent exited`;
    case "editor-gone":
      return `${word}: the editor disconnected`;
    case "shutdown":
      return `${word}: the bridge shut down`;
    case "withdrawn":
      return `${word}: the request was withdrawn`;
    case "bridge-gone":
      return "Expired: the bridge that asked is gone";
    case "elsewhere":
      return `${word} elsewhere`;
    case "rule":
      return `${word} by rule${rule || " (unnamed)"}`;
    case "session-grant":
      return `${word} by a session grant${rule}`;
    case "mode":
      return `${word} by the mode${r.reason ? ` (${r.reason})` : ""}`;
    case "bypass":
      return `${word} by bypass permissions`;
    case "breaker":
      return `${word} by a circuit breaker${r.reason ? ` (${r.reason})` : ""}`;
    case "read-only":
      return `${word} (read-only call)`;
    default:
      return `${word} by ${r.by}${rule}`;
  }
}

export function decisionWord(decision: string): string {
  switch (decision) {
    case "allow":
      return "Allowed";
    case "deny":
      return "Denied";
    case "cancelled":
      return "Cancelled";
    default:
      return decision;
  }
}

/** The card's options in the compact layout: the two primary actions, the rest of each side, and what goes last. */
export function splitCardOptions(options: OptionView[]): {
  allowOnce?: OptionView;
  allowMore: OptionView[];
  denyOnce?: OptionView;
  denyMore: OptionView[];
  rest: OptionView[];
} {
  const allowOnce = options.find((o) => o.optionId === OPT.allowOnce) ?? options.find((o) => o.kind === "allow_once" && o.optionId !== OPT.bypass);
  const denyOnce = options.find((o) => o.optionId === OPT.rejectOnce) ?? options.find((o) => o.kind === "reject_once");
  const allowMore = options.filter((o) => o !== allowOnce && o.optionId !== OPT.bypass && o.kind.startsWith("allow"));
  const denyMore = options.filter((o) => o !== denyOnce && o.kind.startsWith("reject"));
  // Bypass last; an option of no known side (the agent's own) beside it.
  const rest = [...options.filter((o) => o !== allowOnce && o !== denyOnce && !allowMore.includes(o) && !denyMore.includes(o) && o.optionId !== OPT.bypass), ...options.filter((o) => o.optionId === OPT.bypass)];
  return { allowOnce, allowMore, denyOnce, denyMore, rest };
}

/** The person's reason with a deny, as the chat records it (outcome line, tool verdict). */
export function denyReasonLine(reason: string): string {
  return ` · your reason, sent to the agent: "${reason}"`;
}
