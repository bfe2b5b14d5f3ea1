// acpBridge.* settings: what the extension reads of VS Code's configuration
// layers for the bridge, and the settings edits that serve
// _acp-bridge/settings/persist and the "Manage Permission Rules" command.
// The bridge merges the layers, cuts an untrusted or unapproved workspace's
// values down and computes their pin (settings/editorlayers.go,
// _acp-bridge/settings/layers): none of that is computed here. Pure: the
// caller reads workspace.getConfiguration("acpBridge").inspect(...) and
// writes the result.

import { isObj, type PersistRequest } from "./wire";
import type { EditorValue } from "./wire.gen";

export const RULE_LISTS = ["allow", "ask", "deny"] as const;
export type RuleList = (typeof RULE_LISTS)[number];

export interface RuleLists {
  allow?: string[];
  ask?: string[];
  deny?: string[];
}

export interface AgentSetting {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  mode?: string;
  bypassPermissions?: boolean;
  permissions?: RuleLists;
}

export interface PermissionsSetting extends RuleLists {
  defaultMode?: string;
  additionalDirectories?: string[];
}

/** What WorkspaceConfiguration.inspect() returns, reduced to what we use. */
export interface Layers<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

export type AgentsSetting = Record<string, AgentSetting | null>;

/** The layers the settings edits start from (one scope's stored value, never a merge). */
export interface RawSettings {
  agents: Layers<AgentsSetting>;
  permissions: Layers<PermissionsSetting>;
}

/**
 * The acpBridge.* keys the bridge reads (docs/settings.md "VS Code"), as VS
 * Code names them: every layer of each goes to _acp-bridge/settings/layers.
 */
export const BRIDGE_KEYS = ["agents", "permissions", "defaultAgent", "approvals.timeoutSeconds", "approvals.timeoutOutcome", "logLevel", "audit.path"] as const;

/** The `values` of _acp-bridge/settings/layers: each key's layers as inspect() gives them, unset layers left out. */
export function editorValues(inspect: (key: string) => Layers<unknown> | undefined): Record<string, EditorValue> {
  const out: Record<string, EditorValue> = {};
  for (const k of BRIDGE_KEYS) {
    const x = inspect(k);
    const v: EditorValue = {};
    if (x?.defaultValue !== undefined) v.defaultValue = x.defaultValue;
    if (x?.globalValue !== undefined) v.globalValue = x.globalValue;
    if (x?.workspaceValue !== undefined) v.workspaceValue = x.workspaceValue;
    if (x?.workspaceFolderValue !== undefined) v.workspaceFolderValue = x.workspaceFolderValue;
    out[k] = v;
  }
  return out;
}

/** values with one key's workspace value replaced: what a settings edit is about to write (its pin is computed before the write). */
export function withWorkspaceValue(values: Record<string, EditorValue>, key: string, value: unknown): Record<string, EditorValue> {
  return { ...values, [key]: { ...(values[key] ?? {}), workspaceValue: value } };
}

function union(...lists: (string[] | undefined)[]): string[] {
  const out: string[] = [];
  for (const l of lists) for (const x of l ?? []) if (typeof x === "string" && !out.includes(x)) out.push(x);
  return out;
}

// ---- writes ------------------------------------------------------------------

export type SettingsScope = "user" | "workspace";

/** One settings write: acpBridge.<key> = value in the user or workspace settings. */
export interface SettingsEdit {
  scope: SettingsScope;
  key: "agents" | "permissions";
  value: unknown;
}

function layerOf<T>(l: Layers<T>, scope: SettingsScope): T | undefined {
  return scope === "user" ? l.globalValue : l.workspaceValue;
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/**
 * The edit that serves one _acp-bridge/settings/persist request. It starts from
 * the value stored in that scope only (never the merged value), so nothing from
 * another layer is copied into it. Throws on a request it cannot honour
 * (trusted: the bridge applies the workspace's values as a trusted
 * workspace's, _acp-bridge/settings/layers `pinned`).
 */
export function planPersist(req: PersistRequest, raw: RawSettings, trusted = false): SettingsEdit {
  const scope: SettingsScope = req.scope === "workspace" ? "workspace" : "user";
  // An untrusted workspace's allow rules are ignored: storing one there would
  // drop the grant at the next settings push.
  if (scope === "workspace" && !trusted && (req.kind === "bypass" || (req.list ?? "allow") === "allow")) {
    throw new Error("persist: the workspace is not trusted, so an allow rule or bypass in its settings would be ignored; store it in user settings, or trust the workspace");
  }
  if (req.scope !== undefined && req.scope !== "user" && req.scope !== "workspace") throw new Error(`persist: unknown scope ${JSON.stringify(req.scope)}`);
  // acpBridge.agents is machine-scoped: VS Code keeps it in user settings only.
  // The bridge then stores the grant in its own workspace file instead.
  if (scope === "workspace" && (req.kind === "bypass" || req.agent)) {
    throw new Error("persist: acpBridge.agents is machine-scoped (agent commands never come from a workspace); an agent's grant cannot go to workspace settings");
  }
  if (req.kind === "bypass") {
    if (!req.agent) throw new Error("persist: a bypass needs an agent");
    const agents = clone(layerOf(raw.agents, scope)) ?? {};
    agents[req.agent] = { ...(agents[req.agent] ?? {}), bypassPermissions: true };
    return { scope, key: "agents", value: agents };
  }
  if (req.kind !== "rule") throw new Error(`persist: unknown kind ${JSON.stringify(req.kind)}`);
  const list = req.list ?? "allow";
  if (!RULE_LISTS.includes(list)) throw new Error(`persist: unknown list ${JSON.stringify(req.list)}`);
  const rule = (req.rule ?? "").trim();
  if (!rule) throw new Error("persist: a rule request needs a rule");
  if (req.agent) {
    const agents = clone(layerOf(raw.agents, scope)) ?? {};
    const a = { ...(agents[req.agent] ?? {}) };
    const perms = { ...(a.permissions ?? {}) };
    perms[list] = union(perms[list], [rule]);
    a.permissions = perms;
    agents[req.agent] = a;
    return { scope, key: "agents", value: agents };
  }
  const perms = clone(layerOf(raw.permissions, scope)) ?? {};
  perms[list] = union(perms[list], [rule]);
  return { scope, key: "permissions", value: perms };
}

/** A rule stored in user or workspace settings, as "Manage Permission Rules" lists it. */
export interface StoredRule {
  scope: SettingsScope;
  list: RuleList;
  rule: string;
  agent?: string;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

export function listStoredRules(raw: Pick<RawSettings, "agents" | "permissions">): StoredRule[] {
  const out: StoredRule[] = [];
  for (const scope of ["user", "workspace"] as const) {
    const p = layerOf(raw.permissions, scope);
    if (isObj(p)) for (const list of RULE_LISTS) for (const rule of strings(p[list])) out.push({ scope, list, rule });
    const agents = layerOf(raw.agents, scope);
    if (isObj(agents)) {
      for (const [agent, a] of Object.entries(agents)) {
        const perms = isObj(a) ? a["permissions"] : undefined;
        if (!isObj(perms)) continue;
        for (const list of RULE_LISTS) for (const rule of strings(perms[list])) out.push({ scope, list, rule, agent });
      }
    }
  }
  return out;
}

/** The edit that removes one stored rule. */
export function planRevoke(r: StoredRule, raw: Pick<RawSettings, "agents" | "permissions">): SettingsEdit {
  if (r.agent) {
    const agents = clone(layerOf(raw.agents, r.scope)) ?? {};
    const a = agents[r.agent];
    if (a?.permissions?.[r.list]) a.permissions[r.list] = a.permissions[r.list]!.filter((x) => x !== r.rule);
    return { scope: r.scope, key: "agents", value: agents };
  }
  const perms = clone(layerOf(raw.permissions, r.scope)) ?? {};
  if (perms[r.list]) perms[r.list] = perms[r.list]!.filter((x) => x !== r.rule);
  return { scope: r.scope, key: "permissions", value: perms };
}

/** Agents bypassing permissions in a scope (listed with the rules so they can be revoked too). */
export function listBypasses(raw: Pick<RawSettings, "agents">): { scope: SettingsScope; agent: string }[] {
  const out: { scope: SettingsScope; agent: string }[] = [];
  for (const scope of ["user", "workspace"] as const) {
    const agents = layerOf(raw.agents, scope);
    if (isObj(agents)) for (const [agent, a] of Object.entries(agents)) if (isObj(a) && a.bypassPermissions === true) out.push({ scope, agent });
  }
  return out;
}

export function planRevokeBypass(b: { scope: SettingsScope; agent: string }, raw: Pick<RawSettings, "agents">): SettingsEdit {
  const agents = clone(layerOf(raw.agents, b.scope)) ?? {};
  if (agents[b.agent]) agents[b.agent] = { ...agents[b.agent], bypassPermissions: false };
  return { scope: b.scope, key: "agents", value: agents };
}
