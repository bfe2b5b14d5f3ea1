// "ACP Bridge: Open Rules Editor": every rule, bypass and mode in force with
// its source (rulesModel.ts), in one webview (webview/rules.ts): add a rule to
// user or workspace settings (checked first by the bridge's engine,
// policy/check), edit or remove one stored in VS Code settings, remove one from
// the bridge's own file, revoke a session grant; the managed tier is shown as
// not changeable. A field tests a command or path against the rules as they
// stand (policy/explain: nothing runs, nothing is audited) and says which rule
// decides. Listed again once every change of acpBridge.* settings has reached
// the bridge.

import * as vscode from "vscode";
import { panelHtml } from "./panelHtml";
import type { Ctx } from "./ctx";
import { buildRuleRows, explainInput, rowView, type RuleRow, type RuleRowView } from "./rulesModel";
import { listBypasses, listStoredRules, planPersist, planRevoke, planRevokeBypass, RULE_LISTS, type RuleList } from "./settings";
import type { PolicyExplainResult } from "./wire";

export type RulesHostMessage =
  | { type: "rows"; rows: RuleRowView[]; agents: string[]; bridge: boolean; error?: string }
  | { type: "tested"; text: string; result?: PolicyExplainResult; error?: string }
  | { type: "done"; op: "add" | "edit" | "remove"; ok: boolean; message: string };

export type RulesWebviewMessage =
  | { type: "ready" }
  | { type: "test"; tool: string; text: string; agent?: string }
  | { type: "add"; list: string; rule: string; scope: string; agent?: string }
  | { type: "edit"; id: string; rule: string }
  | { type: "remove"; id: string };

export class RulesEditor implements vscode.Disposable {
  private panel?: vscode.WebviewPanel;
  private rows = new Map<string, RuleRow>();
  private subs: vscode.Disposable[] = [];
  private listing = Promise.resolve();

  constructor(
    private readonly extUri: vscode.Uri,
    private readonly c: Ctx,
  ) {}

  open(): void {
    if (this.panel) {
      this.panel.reveal();
      return;
    }
    const dist = vscode.Uri.joinPath(this.extUri, "dist");
    const panel = vscode.window.createWebviewPanel("acpBridge.rules", "ACP Bridge Rules", vscode.ViewColumn.Active, { enableScripts: true, localResourceRoots: [dist], retainContextWhenHidden: true });
    panel.webview.html = rulesHtml(panel.webview, dist);
    panel.webview.onDidReceiveMessage((m: RulesWebviewMessage) => void this.onMessage(m));
    this.subs.push(
      // After the bridge has the change, so that what it lists as in force is its new state.
      this.c.onSettingsPushed(() => void this.refresh()),
    );
    panel.onDidDispose(() => {
      if (this.panel === panel) this.panel = undefined;
      for (const s of this.subs.splice(0)) s.dispose();
    });
    this.panel = panel;
  }

  private post(m: RulesHostMessage): void {
    void this.panel?.webview.postMessage(m);
  }

  /** Lists again (in order: a later listing never overtakes an earlier one). */
  refresh(): Promise<void> {
    this.listing = this.listing.then(() => this.list());
    return this.listing;
  }

  private async list(): Promise<void> {
    const raw = this.c.readRawSettings();
    const conn = this.c.connectionNow;
    let error: string | undefined;
    let inForce;
    let bridgeFile: Awaited<ReturnType<NonNullable<typeof conn>["storedGrants"]>> = [];
    if (conn) {
      try {
        inForce = await conn.inForce();
        bridgeFile = await conn.storedGrants();
      } catch (e) {
        error = `could not ask the bridge (grants/stored): ${(e as Error).message}`;
      }
    }
    const rows = buildRuleRows(inForce, listStoredRules(raw), listBypasses(raw), bridgeFile);
    this.rows = new Map(rows.map((r) => [r.id, r]));
    this.post({ type: "rows", rows: rows.map(rowView), agents: Object.keys(this.c.configuredAgents()), bridge: !!conn && !error, error });
  }

  private async onMessage(m: RulesWebviewMessage): Promise<void> {
    try {
      switch (m.type) {
        case "ready":
          await this.refresh();
          return;
        case "test":
          await this.test(m.tool, m.text, m.agent);
          return;
        case "add":
          await this.add(m.list, m.rule, m.scope, m.agent);
          return;
        case "edit":
          await this.edit(m.id, m.rule);
          return;
        case "remove":
          await this.remove(m.id);
          return;
      }
    } catch (e) {
      const op = m.type === "add" || m.type === "edit" || m.type === "remove" ? m.type : undefined;
      if (op) this.post({ type: "done", op, ok: false, message: (e as Error).message });
      else if (m.type === "test") this.post({ type: "tested", text: m.text, error: (e as Error).message });
    }
  }

  private async test(tool: string, text: string, agent?: string): Promise<void> {
    if (!text.trim()) throw new Error("type a command or a path to test");
    const conn = await this.c.connection();
    const result = await conn.explain({ tool, input: explainInput(tool, text), agent: agent || undefined });
    this.post({ type: "tested", text, result });
  }

  /** The bridge's engine compiles the rule first: a malformed one is refused with its message, nothing written. */
  private async check(rule: string, list: RuleList): Promise<void> {
    const res = await (await this.c.connection()).checkRule(rule, list);
    if (!res.ok) throw new Error(`"${rule}" is not a valid rule: ${res.error ?? "malformed"}`);
  }

  private async add(list: string, rule: string, scope: string, agent?: string): Promise<void> {
    const l = list as RuleList;
    if (!RULE_LISTS.includes(l)) throw new Error(`unknown list ${list}`);
    rule = rule.trim();
    if (!rule) throw new Error("the rule is empty: write one, e.g. Bash(npm run test *)");
    await this.check(rule, l);
    const sc = scope === "workspace" ? "workspace" : "user";
    await this.c.applyEdit(planPersist({ kind: "rule", list: l, rule, scope: sc, agent: agent || undefined }, this.c.readRawSettings(), this.c.settingsTrusted()));
    this.post({ type: "done", op: "add", ok: true, message: `Added ${l} ${rule}${agent ? ` for ${agent}` : ""} to ${sc} settings.` });
    await this.refresh();
  }

  private async edit(id: string, rule: string): Promise<void> {
    const r = this.rows.get(id);
    if (!r || r.kind !== "rule" || r.action.kind !== "settings") throw new Error("that rule cannot be edited here (list again)");
    const list = (r.list ?? "allow") as RuleList;
    rule = rule.trim();
    if (!rule) throw new Error("the rule is empty");
    if (rule === r.value) return;
    await this.check(rule, list);
    const scope = r.action.scope;
    await this.c.applyEdit(planRevoke({ scope, list, rule: r.value, agent: r.agent }, this.c.readRawSettings()));
    await this.c.applyEdit(planPersist({ kind: "rule", list, rule, scope, agent: r.agent }, this.c.readRawSettings(), this.c.settingsTrusted()));
    this.post({ type: "done", op: "edit", ok: true, message: `Changed ${list} ${r.value} to ${rule} in ${scope} settings.` });
    await this.refresh();
  }

  private async remove(id: string): Promise<void> {
    const r = this.rows.get(id);
    if (!r) throw new Error("that rule is no longer listed (list again)");
    const what = `${r.kind === "rule" ? `${r.list} ${r.value}` : r.value}${r.agent ? ` (agent ${r.agent})` : ""}`;
    const ok = await vscode.window.showWarningMessage(`Remove ${what} from ${r.source}?`, { modal: true }, "Remove");
    if (ok !== "Remove") return;
    const a = r.action;
    switch (a.kind) {
      case "settings":
        if (r.kind === "bypass") await this.c.applyEdit(planRevokeBypass({ scope: a.scope, agent: r.agent ?? "" }, this.c.readRawSettings()));
        else await this.c.applyEdit(planRevoke({ scope: a.scope, list: (r.list ?? "allow") as RuleList, rule: r.value, agent: r.agent }, this.c.readRawSettings()));
        break;
      case "bridgeFile":
        await (await this.c.connection()).removeStoredGrant(a.grant);
        break;
      case "session":
        await (await this.c.connection()).revokeGrant(a.sessionId, r.value);
        break;
      case "locked":
        throw new Error(`not changeable here: ${a.why}`);
    }
    this.post({ type: "done", op: "remove", ok: true, message: `Removed ${what}.` });
    await this.refresh();
  }

  dispose(): void {
    this.panel?.dispose();
    for (const s of this.subs.splice(0)) s.dispose();
  }
}

function rulesHtml(webview: vscode.Webview, dist: vscode.Uri): string {
  return panelHtml(webview, dist, { css: "rules.css", js: "rules.js", title: "ACP Bridge Rules", rootId: "rules", label: "ACP Bridge permission rules" });
}
