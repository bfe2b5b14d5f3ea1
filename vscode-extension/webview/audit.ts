// The audit log view: a table of the bridge's decisions (newest first) with
// filters by agent, decision and text. Rows come from the host
// (src/auditView.ts) and grow as the bridge appends to its log. All text is
// set with textContent.

import { matches, type AuditFilter, type AuditRow } from "../src/auditRows";
import type { AuditHostMessage, AuditWebviewMessage } from "../src/auditView";

declare function acquireVsCodeApi(): { postMessage(m: AuditWebviewMessage): void };
const vscode = acquireVsCodeApi();

let rows: AuditRow[] = [];
const filter: AuditFilter = {};

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

const root = document.getElementById("audit")!;
const agentSel = el("select", { id: "filter-agent", "aria-label": "Agent" });
const decisionSel = el("select", { id: "filter-decision", "aria-label": "Decision" });
const textIn = el("input", { id: "filter-text", type: "search", placeholder: "Filter: tool, command, path, rule…", "aria-label": "Text filter" });
const raw = el("button", { id: "open-raw", title: "Open the JSON lines file itself" }, "Open raw JSON lines");
const count = el("span", { class: "count", role: "status" });
const pathLine = el("div", { class: "path" });
const table = el("table", { class: "audit" });
const head = el("thead");
const hr = el("tr");
for (const c of ["Time", "Agent", "Tool", "Specifier", "Decision", "Source / rule"]) hr.append(el("th", { scope: "col" }, c));
head.append(hr);
const body = el("tbody");
table.append(head, body);
root.append(el("div", { class: "filters" }), pathLine, table);
root.firstElementChild!.append(el("label", { for: "filter-agent" }, "Agent "), agentSel, el("label", { for: "filter-decision" }, "Decision "), decisionSel, textIn, count, raw);

raw.addEventListener("click", () => vscode.postMessage({ type: "openRaw" }));
agentSel.addEventListener("change", () => {
  filter.agent = agentSel.value || undefined;
  render();
});
decisionSel.addEventListener("change", () => {
  filter.decision = decisionSel.value || undefined;
  render();
});
textIn.addEventListener("input", () => {
  filter.text = textIn.value.trim() || undefined;
  render();
});

function options(sel: HTMLSelectElement, values: string[], cur: string | undefined, all: string): void {
  sel.replaceChildren(el("option", { value: "" }, all), ...values.map((v) => el("option", { value: v }, v)));
  sel.value = cur && values.includes(cur) ? cur : "";
}

function fmtTime(t: string): string {
  const d = new Date(t);
  return isNaN(d.getTime()) ? t : d.toLocaleString();
}

function render(): void {
  const agents = [...new Set(rows.map((r) => r.agent).filter(Boolean))].sort();
  const decisions = [...new Set(rows.map((r) => r.decision.split(" ")[0]).filter(Boolean))].sort();
  options(agentSel, agents, filter.agent, "all agents");
  options(decisionSel, decisions, filter.decision, "all decisions");
  const shown = rows.filter((r) => matches(r, filter));
  body.replaceChildren(
    ...shown
      .slice()
      .reverse()
      .map((r) => {
        const tr = el("tr", { class: `decision-${r.decision.split(" ")[0]}`, "data-line": String(r.line) });
        tr.append(
          el("td", { class: "time", title: r.time }, fmtTime(r.time)),
          el("td", { class: "agent" }, r.agent),
          el("td", { class: "tool" }, r.tool),
          el("td", { class: "specifier", title: r.reason }, r.specifier),
          el("td", { class: "decision" }, r.decision),
          el("td", { class: "source" }, r.rule ? `${r.source}: ${r.rule}` : r.source),
        );
        return tr;
      }),
  );
  count.textContent = `${shown.length} of ${rows.length} decisions`;
}

window.addEventListener("message", (e: MessageEvent) => {
  const m = e.data as AuditHostMessage;
  if (!m || m.type !== "rows") return;
  if (m.reset) rows = [];
  rows.push(...m.rows);
  pathLine.textContent = m.missing ? `No audit log yet at ${m.path}.` : m.path;
  render();
});

render();
vscode.postMessage({ type: "ready" });
