// The rules editor's rows (src/rulesEditor.ts, webview/rules.ts): every rule,
// bypass and mode in force as the bridge merged them (grants/stored inForce:
// its word, not ours), each with its source and what the editor may do with
// it: a rule or bypass in VS Code settings can be edited and removed there, one
// in the bridge's own file removed from it, a session grant revoked; the
// managed tier, defaults and the environment are shown as not changeable.
// What VS Code settings hold that is not in force (an untrusted workspace's
// allow rule) is listed too, marked so. Pure: no vscode.

import type { StoredRule } from "./settings";
import type { InForce, StoredGrant } from "./wire";

export type RowAction =
  /** In acpBridge.* of user or workspace settings: edit and remove. */
  | { kind: "settings"; scope: "user" | "workspace" }
  /** In the bridge's own config file: remove (grants/removeStored). */
  | { kind: "bridgeFile"; grant: StoredGrant }
  /** An "Allow for this session" grant: revoke (grants/revoke). */
  | { kind: "session"; sessionId: string }
  /** Not changeable here; why. */
  | { kind: "locked"; why: string };

export interface RuleRow {
  /** Stable within one listing: the webview names rows by it. */
  id: string;
  kind: "rule" | "bypass" | "mode";
  list?: "allow" | "ask" | "deny";
  value: string;
  agent?: string;
  /** Where it comes from, in words ("VS Code user settings", "managed (your organisation)"). */
  source: string;
  file?: string;
  inForce: boolean;
  action: RowAction;
}

/** A view of a row for the webview: what it shows and which buttons it gets. */
export interface RuleRowView {
  id: string;
  kind: RuleRow["kind"];
  list?: string;
  value: string;
  agent?: string;
  source: string;
  file?: string;
  inForce: boolean;
  editable: boolean;
  removable: boolean;
  locked?: string;
}

export function rowView(r: RuleRow): RuleRowView {
  return {
    id: r.id,
    kind: r.kind,
    list: r.list,
    value: r.value,
    agent: r.agent,
    source: r.source,
    file: r.file,
    inForce: r.inForce,
    editable: r.action.kind === "settings" && r.kind === "rule",
    removable: r.action.kind !== "locked",
    locked: r.action.kind === "locked" ? r.action.why : undefined,
  };
}

function sameRule(a: { list?: string; rule?: string; agent?: string }, list: string | undefined, value: string, agent: string | undefined): boolean {
  return (a.list ?? "allow") === (list ?? "allow") && a.rule === value && (a.agent ?? "") === (agent ?? "");
}

const LOCKED: Record<string, string> = {
  managed: "set by your organisation's managed settings: not changeable here",
  default: "the built-in default",
  env: "set by the environment (ACP_BRIDGE_*)",
};

/**
 * The rows: inForce first (in the bridge's order), then stored settings rules
 * and bypasses that are not in force. settingsRules/settingsBypasses are
 * VS Code's user and workspace layers; bridgeFile the bridge's stored grants.
 */
export function buildRuleRows(
  inForce: InForce[] | undefined,
  settingsRules: StoredRule[],
  settingsBypasses: { scope: "user" | "workspace"; agent: string }[],
  bridgeFile: StoredGrant[],
): RuleRow[] {
  const rows: RuleRow[] = [];
  const usedRules = new Set<StoredRule>();
  const usedBypass = new Set<(typeof settingsBypasses)[number]>();
  let n = 0;
  const id = () => `r${++n}`;
  for (const f of inForce ?? []) {
    const kind: RuleRow["kind"] | undefined = f.kind === "rule" || f.kind === "bypass" || f.kind === "mode" ? f.kind : undefined;
    if (!kind) continue;
    const list = kind === "rule" ? ((f.list ?? "allow") as RuleRow["list"]) : undefined;
    const base: Omit<RuleRow, "source" | "action"> = { id: id(), kind, list, value: kind === "bypass" ? "bypass permissions" : f.value, agent: f.agent || undefined, file: f.file || undefined, inForce: true };
    const src = f.source ?? "";
    if (src === "editor") {
      if (kind === "rule") {
        // The editor layer merges user and workspace settings: the stored rule says which (workspace first: it is the one that may narrow).
        const m = [...settingsRules].sort((a, b) => (a.scope === b.scope ? 0 : a.scope === "workspace" ? -1 : 1)).find((s) => !usedRules.has(s) && sameRule(s, list, f.value, base.agent));
        if (m) {
          usedRules.add(m);
          rows.push({ ...base, source: `VS Code ${m.scope} settings`, action: { kind: "settings", scope: m.scope } });
          continue;
        }
      } else if (kind === "bypass") {
        const m = settingsBypasses.find((b) => !usedBypass.has(b) && b.agent === base.agent);
        if (m) {
          usedBypass.add(m);
          rows.push({ ...base, source: `VS Code ${m.scope} settings`, action: { kind: "settings", scope: m.scope } });
          continue;
        }
      }
      rows.push({ ...base, source: "VS Code settings", action: { kind: "locked", why: kind === "mode" ? "a mode: change it in the acpBridge settings (permissions.defaultMode, or the agent's mode)" : "not found in your user or workspace settings" } });
      continue;
    }
    if (src === "user" || src === "workspace") {
      const g = bridgeFile.find((s) => s.scope === src && s.kind === kind && (kind === "bypass" ? (s.agent ?? "") === (base.agent ?? "") : sameRule(s, list, f.value, base.agent)));
      const source = src === "user" ? "the bridge's user file" : "the workspace's .acp-bridge.yaml";
      rows.push({ ...base, source, file: base.file ?? g?.file, action: g ? { kind: "bridgeFile", grant: g } : { kind: "locked", why: kind === "mode" ? "a mode: change it in that file" : "edit that file to change it" } });
      continue;
    }
    if (src.startsWith("session ")) {
      const sessionId = src.slice("session ".length);
      rows.push({ ...base, source: `this session's grant (${sessionId.slice(0, 8)})`, action: kind === "rule" ? { kind: "session", sessionId } : { kind: "locked", why: "the session's own state" } });
      continue;
    }
    rows.push({ ...base, source: src === "managed" ? "managed (your organisation)" : src || "unknown", action: { kind: "locked", why: LOCKED[src] ?? `from ${src || "an unknown layer"}` } });
  }
  for (const s of settingsRules) {
    if (usedRules.has(s)) continue;
    rows.push({ id: id(), kind: "rule", list: s.list, value: s.rule, agent: s.agent, source: `VS Code ${s.scope} settings`, inForce: inForce === undefined, action: { kind: "settings", scope: s.scope } });
  }
  for (const b of settingsBypasses) {
    if (usedBypass.has(b)) continue;
    rows.push({ id: id(), kind: "bypass", value: "bypass permissions", agent: b.agent, source: `VS Code ${b.scope} settings`, inForce: inForce === undefined, action: { kind: "settings", scope: b.scope } });
  }
  return rows;
}

/** The tool input policy/explain takes for what the person typed in the test field. */
export function explainInput(tool: string, text: string): Record<string, string> {
  const t = text.trim();
  switch (tool) {
    case "Bash":
      return { command: t };
    case "WebFetch":
      return { url: t };
    default:
      return { file_path: t };
  }
}
