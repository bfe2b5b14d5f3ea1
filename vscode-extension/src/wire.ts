// The bridge's _acp-bridge/* extension surface (docs/extension-surface.md), as
// the extension sees it. Names and shapes live here and nowhere else on the
// TypeScript side. No vscode import.

export const META_KEY = "acp-bridge";

export const M = {
  agentsList: "_acp-bridge/agents/list",
  approvalsList: "_acp-bridge/approvals/list",
  approvalsRespond: "_acp-bridge/approvals/respond",
  grantsList: "_acp-bridge/grants/list",
  grantsRevoke: "_acp-bridge/grants/revoke",
  policyCheck: "_acp-bridge/policy/check",
  grantsStored: "_acp-bridge/grants/stored",
  grantsRemoveStored: "_acp-bridge/grants/removeStored",
  settingsDidChange: "_acp-bridge/settings/didChange",
  settingsPersist: "_acp-bridge/settings/persist",
  settingsInvalid: "_acp-bridge/settings/invalid",
  rulesInvalid: "_acp-bridge/rules/invalid",
  approvalResolved: "_acp-bridge/approval/resolved",
  agentStatus: "_acp-bridge/agent/status",
  decision: "_acp-bridge/decision",
  workspaceDidChangeTrust: "_acp-bridge/workspace/didChangeTrust",
  workspaceTrust: "_acp-bridge/workspace/trust",
} as const;

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Obj = Record<string, unknown>;

export interface BridgeInitMeta {
  version?: string;
  agents?: { id: string; name?: string }[];
  defaultAgent?: string;
  policyModes?: string[];
  workspaceTrust?: WorkspaceTrustWire;
  /** The bridge outlives this window (--attach-dir): where and how to re-attach. Only on the starting editor's initialize. */
  attach?: { socket: string; token: string; pid?: number; graceSeconds?: number };
}

/** _meta["acp-bridge"].workspaceTrust of initialize, and _acp-bridge/workspace/trust (docs/extension-surface.md). */
export interface WorkspaceTrustWire {
  trusted: boolean;
  ignored: { key: string; file: string; line?: number; reason: string }[];
}

/** Reads a workspace trust report, or undefined when v is not one. */
export function parseWorkspaceTrust(v: unknown): WorkspaceTrustWire | undefined {
  if (!isObj(v) || typeof v["trusted"] !== "boolean") return undefined;
  const ignored = Array.isArray(v["ignored"])
    ? v["ignored"].filter((i): i is WorkspaceTrustWire["ignored"][number] => isObj(i) && typeof i["key"] === "string" && typeof i["reason"] === "string")
    : [];
  return { trusted: v["trusted"], ignored };
}

export interface AgentEntry {
  id: string;
  name?: string;
  command?: string;
  args?: string[];
  status?: string;
  pid?: number;
  modes?: unknown;
  lastError?: string;
  restarts?: number;
  /** The agent's initialize capabilities, once it ran (agentCapabilities.loadSession, ...). */
  capabilities?: unknown;
}

export interface PendingApprovalWire {
  approvalId: string;
  sessionId: string;
  agent?: string;
  toolCall: Obj;
  options: { optionId: string; name: string; kind: string }[];
  meta?: Obj;
  createdAt?: string;
  expiresAt?: string;
}

export interface ApprovalResolvedWire {
  approvalId: string;
  sessionId?: string;
  agent?: string;
  toolCallId?: string;
  decision: string;
  /** The option the person chose on the card (only when by is "user"). */
  optionId?: string;
  /** The agent's own option the bridge answered the agent with. */
  agentOptionId?: string;
  by: string;
  rule?: string;
  specifier?: string;
  reason?: string;
}

export interface PersistRequest {
  kind: "rule" | "bypass";
  scope?: "user" | "workspace";
  agent?: string;
  list?: "allow" | "ask" | "deny";
  rule?: string;
}

/** A grant in the bridge's own config files (_acp-bridge/grants/stored). */
export interface StoredGrant {
  kind: "rule" | "bypass";
  scope: "user" | "workspace";
  file: string;
  agent?: string;
  list?: string;
  rule?: string;
}

export interface Grant {
  sessionId: string;
  agent?: string;
  rule: string;
}

export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** _meta["acp-bridge"] of any params/result object, or {}. */
export function bridgeMeta(o: unknown): Obj {
  if (!isObj(o)) return {};
  const meta = o["_meta"];
  if (!isObj(meta)) return {};
  const b = meta[META_KEY];
  return isObj(b) ? b : {};
}
