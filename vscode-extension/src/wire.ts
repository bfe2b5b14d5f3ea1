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
  policyExplain: "_acp-bridge/policy/explain",
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
  workspaceApprove: "_acp-bridge/workspace/approve",
  attach: "_acp-bridge/attach",
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
  /** Trusted, but this version of .acp-bridge.yaml was never approved: it only narrows until it is (docs/settings.md). */
  pending?: { file: string; digest: string; approved: string; loosens?: string[] };
}

/** Reads a workspace trust report, or undefined when v is not one. */
export function parseWorkspaceTrust(v: unknown): WorkspaceTrustWire | undefined {
  if (!isObj(v) || typeof v["trusted"] !== "boolean") return undefined;
  const ignored = Array.isArray(v["ignored"])
    ? v["ignored"].filter((i): i is WorkspaceTrustWire["ignored"][number] => isObj(i) && typeof i["key"] === "string" && typeof i["reason"] === "string")
    : [];
  const p = v["pending"];
  const pending =
    isObj(p) && typeof p["file"] === "string" && typeof p["digest"] === "string"
      ? {
          file: p["file"],
          digest: p["digest"],
          approved: typeof p["approved"] === "string" ? p["approved"] : "",
          // What approving this version would loosen, as the bridge computed it.
          ...(Array.isArray(p["loosens"]) ? { loosens: p["loosens"].filter((l): l is string => typeof l === "string") } : {}),
        }
      : undefined;
  return pending ? { trusted: v["trusted"], ignored, pending } : { trusted: v["trusted"], ignored };
}

export interface AgentEntry {
  id: string;
  name?: string;
  command?: string;
  args?: string[];
  status?: string;
  pid?: number;
  modes?: unknown;
  /** The agent's agentCapabilities from its initialize answer, once it ran (promptCapabilities, loadSession, ...). */
  capabilities?: unknown;
  lastError?: string;
  restarts?: number;
  /** The agent runs with bypass permissions now (its settings, or a card's bypass): the bridge's state. */
  bypassPermissions?: boolean;
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

/** _acp-bridge/policy/explain params and result (docs/extension-surface.md). */
export interface PolicyExplainParams {
  tool: string;
  input?: unknown;
  agent?: string;
  mode?: string;
}
export interface PolicyExplainResult {
  decision: string; // allow | ask | deny
  source: string;
  rule?: string;
  reason: string;
  specifier: string;
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

/**
 * The _acp-bridge/* requests the extension sends, by method: params and
 * result as docs/extension-surface.md defines them. BridgeConnection's ext()
 * takes its types from here, so a method is called with its own shapes only.
 */
export interface BridgeRequests {
  [M.agentsList]: { params: Record<string, never>; result: { agents?: unknown } };
  [M.approvalsList]: { params: Record<string, never>; result: { approvals?: unknown } };
  [M.approvalsRespond]: { params: Obj; result: { approvalId: string; outcome: unknown } };
  [M.grantsList]: { params: Record<string, never>; result: { grants?: unknown } };
  [M.grantsRevoke]: { params: { sessionId: string; rule: string }; result: unknown };
  [M.policyCheck]: { params: { rule: string; list: "allow" | "ask" | "deny" }; result: { ok?: unknown; error?: unknown } };
  [M.policyExplain]: { params: PolicyExplainParams; result: PolicyExplainResult };
  [M.attach]: { params: { token: string }; result: Obj };
  [M.grantsStored]: { params: Record<string, never>; result: { rules?: unknown; bypass?: unknown } };
  [M.grantsRemoveStored]: { params: { kind: string; scope: string; agent?: string; list?: string; rule?: string }; result: unknown };
  [M.workspaceApprove]: { params: { digest: string }; result: unknown };
}

/** The _acp-bridge/* notifications the extension sends. */
export interface BridgeNotifications {
  [M.settingsDidChange]: { settings: unknown };
  [M.workspaceDidChangeTrust]: { trusted: boolean };
}
