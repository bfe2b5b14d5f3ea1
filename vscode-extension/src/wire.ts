// The bridge's _acp-bridge/* extension surface (docs/extension-surface.md), as
// the extension sees it. Names, shapes, error codes and the mode table are
// generated from the bridge's Go declarations (package wire, policy/mode.go)
// into wire.gen.ts; this file re-exports them under the names the extension
// uses and holds the few helpers that read untyped JSON. No vscode import.

import type {
  AgentEntry as AgentEntryGen,
  ApprovalsRespondParams,
  ApprovalsRespondResult,
  CardMeta,
  ApprovalResolvedParams,
  AttachHandover,
  InitializeMeta,
  ModeInfo,
  PendingApproval,
  PendingApprovalEntry,
  PolicyExplainParams as PolicyExplainParamsGen,
  PolicyExplainResult as PolicyExplainResultGen,
  SessionGrant,
  SettingsPersistParams,
  TrustReport,
} from "./wire.gen";
import { META_KEY, MODE_TABLE, SETTINGS_ALIASES } from "./wire.gen";

export { ERR, M, META_KEY, MODE_TABLE, NOTICE, POLICY_MODES, SETTINGS_ALIASES } from "./wire.gen";
export type { BridgeNotifications, BridgeRequests, CardMeta, EditorMethods, InForce, ManagedReport, ModeInfo, PolicyMode } from "./wire.gen";

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Obj = Record<string, unknown>;

/** _meta["acp-bridge"] of initialize, as the extension keeps it (the attach handover read and checked). */
export type BridgeInitMeta = Partial<Pick<InitializeMeta, "version" | "agents" | "defaultAgent" | "modes" | "managed">> & {
  workspaceTrust?: WorkspaceTrustWire;
  /** The bridge outlives this window (--attach-dir): where and how to re-attach. Only on the starting editor's initialize. */
  attach?: Partial<AttachHandover> & Pick<AttachHandover, "socket" | "token">;
};

/** _meta["acp-bridge"].workspaceTrust of initialize, and _acp-bridge/workspace/trust. */
export type WorkspaceTrustWire = Omit<TrustReport, "pending"> & { pending?: Omit<PendingApproval, "loosens"> & { loosens?: string[] } };
// The extension reads what it gets defensively (an older bridge, a test's
// partial message): the views below keep the generated names and types and
// require only what the extension cannot do without.
export type AgentEntry = Partial<AgentEntryGen> & Pick<AgentEntryGen, "id">;
export type PendingApprovalWire = Pick<PendingApprovalEntry, "approvalId" | "sessionId" | "toolCall" | "options"> &
  Partial<Pick<PendingApprovalEntry, "agent" | "createdAt" | "expiresAt">> & { meta?: Partial<CardMeta> };
export type ApprovalResolvedWire = Pick<ApprovalResolvedParams, "approvalId" | "decision" | "by"> & Partial<ApprovalResolvedParams>;
export type PersistRequest = Omit<SettingsPersistParams, "scope"> & Partial<Pick<SettingsPersistParams, "scope">>;
export type PolicyExplainParams = PolicyExplainParamsGen;
export type PolicyExplainResult = PolicyExplainResultGen;
export type Grant = SessionGrant;
export type { ApprovalsRespondParams, ApprovalsRespondResult };

/** Reads a workspace trust report, or undefined when v is not one. */
export function parseWorkspaceTrust(v: unknown): WorkspaceTrustWire | undefined {
  if (!isObj(v) || typeof v["trusted"] !== "boolean") return undefined;
  const ignored = Array.isArray(v["ignored"])
    ? v["ignored"].filter((i): i is TrustReport["ignored"][number] => isObj(i) && typeof i["key"] === "string" && typeof i["reason"] === "string")
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

/** A grant in the bridge's own config files (_acp-bridge/grants/stored), rules and bypasses in one list. */
export interface StoredGrant {
  kind: "rule" | "bypass";
  scope: "user" | "workspace";
  file: string;
  agent?: string;
  list?: "allow" | "ask" | "deny";
  rule?: string;
}

/**
 * The bridge's modes: those it sent at initialize when it did (the running
 * bridge's word), else the table generated from the same Go declaration.
 */
export function modeTable(fromBridge?: ModeInfo[]): ModeInfo[] {
  return fromBridge?.length ? fromBridge : Object.values(MODE_TABLE);
}

/**
 * Whether mode w is at least as strict as mode t, as the bridge judges it
 * (policy.AtLeastAsStrict): settings aliases are read as settings read them;
 * an unknown name is never stricter.
 */
export function atLeastAsStrict(w: string, t: string, modes: ModeInfo[] = modeTable()): boolean {
  const c = (m: string): string => SETTINGS_ALIASES[m] ?? m;
  return modes.find((m) => m.id === c(w))?.atLeastAsStrictAs.includes(c(t)) ?? false;
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
