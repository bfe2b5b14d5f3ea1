// acpBridge.* settings as the bridge wants them: the payload of
// _acp-bridge/settings/didChange, built from VS Code's configuration layers;
// and the settings edits that serve _acp-bridge/settings/persist and the
// "Manage Permission Rules" command. Pure: the caller reads
// workspace.getConfiguration("acpBridge").inspect(...) and writes the result.

import { atLeastAsStrict, isObj, type PersistRequest } from "./wire";

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

export interface RawSettings {
  agents: Layers<AgentsSetting>;
  permissions: Layers<PermissionsSetting>;
  defaultAgent?: string;
  /** The values below are undefined unless the person set them (user or workspace): the bridge's own config then decides. */
  timeoutSeconds?: number;
  timeoutOutcome?: string;
  logLevel?: string;
  auditPath?: string;
}

/** The `settings` object of _acp-bridge/settings/didChange (docs/settings.md, prefix removed). */
export interface BridgeSettings {
  agents: Record<string, AgentSetting>;
  defaultAgent: string;
  permissions: Required<Pick<PermissionsSetting, "allow" | "ask" | "deny" | "additionalDirectories">> & { defaultMode?: string };
  approvals?: { timeoutSeconds?: number; timeoutOutcome?: string };
  log?: { level: string };
  audit?: { path: string };
}

/** The heaviest value the person set (workspace folder, workspace, user), ignoring the default. */
export function personValue<T>(l: Layers<T> | undefined): T | undefined {
  if (!l) return undefined;
  return l.workspaceFolderValue ?? l.workspaceValue ?? l.globalValue;
}

export const BRIDGE_PLACEHOLDER = "${bridge}";

function layersInOrder<T>(l: Layers<T>): (T | undefined)[] {
  return [l.defaultValue, l.globalValue, l.workspaceValue, l.workspaceFolderValue];
}

function union(...lists: (string[] | undefined)[]): string[] {
  const out: string[] = [];
  for (const l of lists) for (const x of l ?? []) if (typeof x === "string" && !out.includes(x)) out.push(x);
  return out;
}

function mergeAgent(base: AgentSetting | undefined, over: AgentSetting): AgentSetting {
  const out: AgentSetting = { ...(base ?? {}) };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    if (k === "env" && isObj(v)) out.env = { ...(out.env ?? {}), ...(v as Record<string, string>) };
    else if (k === "permissions" && isObj(v)) {
      const p = v as RuleLists;
      const b = out.permissions ?? {};
      out.permissions = { allow: union(b.allow, p.allow), ask: union(b.ask, p.ask), deny: union(b.deny, p.deny) };
    } else (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

/**
 * Merges the agents of every layer (lightest first). An agent's fields
 * override, its env merges, its permission lists union; a null entry in a
 * heavier layer removes the agent.
 */
export function mergeAgents(l: Layers<AgentsSetting>): Record<string, AgentSetting> {
  const out: Record<string, AgentSetting> = {};
  for (const layer of layersInOrder(l)) {
    if (!isObj(layer)) continue;
    for (const [id, a] of Object.entries(layer)) {
      if (a === null) delete out[id];
      else if (isObj(a)) out[id] = mergeAgent(out[id], a as AgentSetting);
    }
  }
  return out;
}

/**
 * Lists union across layers (a deny anywhere stays a deny); defaultMode from
 * the heaviest layer the person set, and absent when only the default has it,
 * so the bridge's own config decides.
 */
export function mergePermissions(l: Layers<PermissionsSetting>): BridgeSettings["permissions"] {
  const ls = layersInOrder(l).filter(isObj) as PermissionsSetting[];
  let defaultMode: string | undefined;
  for (const p of [l.globalValue, l.workspaceValue, l.workspaceFolderValue]) {
    if (isObj(p) && typeof p.defaultMode === "string" && p.defaultMode) defaultMode = p.defaultMode;
  }
  const out: BridgeSettings["permissions"] = {
    allow: union(...ls.map((p) => p.allow)),
    ask: union(...ls.map((p) => p.ask)),
    deny: union(...ls.map((p) => p.deny)),
    additionalDirectories: union(...ls.map((p) => p.additionalDirectories)),
  };
  if (defaultMode) out.defaultMode = defaultMode;
  return out;
}

/** Replaces "${bridge}" in an agent's command and args with the bridge binary's path. */
export function resolveBridgePlaceholder(a: AgentSetting, bridgePath: string | undefined): AgentSetting {
  if (!bridgePath) return a;
  const sub = (s: string) => s.split(BRIDGE_PLACEHOLDER).join(bridgePath);
  return {
    ...a,
    command: typeof a.command === "string" ? sub(a.command) : a.command,
    args: Array.isArray(a.args) ? a.args.map((x) => (typeof x === "string" ? sub(x) : x)) : a.args,
  };
}

// ---- workspace trust (docs/settings.md "Workspace trust") -------------------------

/**
 * Whether mode w is at least as strict as mode t (settings aliases accepted),
 * as the bridge judges it: the table is the bridge's (wire.gen.ts, generated
 * from policy/mode.go), not a copy kept here.
 */
export function stricterOrEqualMode(w: string, t: string): boolean {
  return atLeastAsStrict(w, t);
}

/**
 * Cuts the workspace layers (workspace, workspace folder: what a repository's
 * .vscode/settings.json holds) down to what they may set. acpBridge.agents is
 * machine-scoped: a workspace value never counts, trusted or not (agent
 * commands). Untrusted, acpBridge.permissions from the workspace keeps only
 * deny and ask rules and a stricter-or-equal defaultMode.
 */
export function restrictWorkspaceLayers(raw: RawSettings, trusted: boolean): RawSettings {
  const agents: Layers<AgentsSetting> = { defaultValue: raw.agents.defaultValue, globalValue: raw.agents.globalValue };
  if (trusted) return { ...raw, agents };
  const p = raw.permissions;
  const trustedMode = [p.globalValue?.defaultMode, p.defaultValue?.defaultMode].find((m) => typeof m === "string" && m) ?? "default";
  const narrow = (v: PermissionsSetting | undefined): PermissionsSetting | undefined => {
    if (!isObj(v)) return undefined;
    const l = v as PermissionsSetting;
    const out: PermissionsSetting = { deny: l.deny, ask: l.ask };
    if (typeof l.defaultMode === "string" && stricterOrEqualMode(l.defaultMode, trustedMode)) out.defaultMode = l.defaultMode;
    return out;
  };
  return {
    ...raw,
    agents,
    permissions: { defaultValue: p.defaultValue, globalValue: p.globalValue, workspaceValue: narrow(p.workspaceValue), workspaceFolderValue: narrow(p.workspaceFolderValue) },
  };
}

/**
 * The `settings` object of _acp-bridge/settings/didChange. trusted is
 * vscode.workspace.isTrusted: untrusted, the workspace's own acpBridge.*
 * values may only narrow (restrictWorkspaceLayers).
 */
export function buildBridgeSettings(rawIn: RawSettings, bridgePath: string | undefined, trusted = false): BridgeSettings {
  const raw = restrictWorkspaceLayers(rawIn, trusted);
  const agents: Record<string, AgentSetting> = {};
  for (const [id, a] of Object.entries(mergeAgents(raw.agents))) agents[id] = resolveBridgePlaceholder(a, bridgePath);
  const ids = Object.keys(agents);
  const defaultAgent = raw.defaultAgent && agents[raw.defaultAgent] ? raw.defaultAgent : ids.includes("demo") ? "demo" : (ids[0] ?? "");
  const out: BridgeSettings = { agents, defaultAgent, permissions: mergePermissions(raw.permissions) };
  const approvals: NonNullable<BridgeSettings["approvals"]> = {};
  if (typeof raw.timeoutSeconds === "number" && raw.timeoutSeconds > 0) approvals.timeoutSeconds = Math.floor(raw.timeoutSeconds);
  if (raw.timeoutOutcome) approvals.timeoutOutcome = raw.timeoutOutcome;
  if (Object.keys(approvals).length) out.approvals = approvals;
  if (raw.logLevel) out.log = { level: raw.logLevel };
  if (raw.auditPath) out.audit = { path: raw.auditPath };
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
 * (trusted is vscode.workspace.isTrusted).
 */
export function planPersist(req: PersistRequest, raw: Pick<RawSettings, "agents" | "permissions">, trusted = false): SettingsEdit {
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
