// The rules editor (src/rulesEditor.ts): a field that tests a command or path
// against the rules as they stand, a form that adds a rule, and the table of
// every rule, bypass and mode in force with its source, each with Edit /
// Remove when it can be changed here and a lock when it cannot (managed,
// defaults). All text is set with textContent.

import type { RulesHostMessage, RulesWebviewMessage } from "../src/rulesEditor";
import type { RuleRowView } from "../src/rulesModel";

declare function acquireVsCodeApi(): { postMessage(m: RulesWebviewMessage): void };
const vscode = acquireVsCodeApi();
const send = (m: RulesWebviewMessage) => vscode.postMessage(m);

type Attrs = Record<string, string | boolean | undefined | ((e: Event) => void)>;
function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...kids: (Node | string | null | undefined | false)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    else if (k === "class") el.className = v === true ? "" : v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids) if (kid !== null && kid !== undefined && kid !== false) el.append(kid);
  return el;
}
const icon = (name: string) => h("i", { class: `codicon codicon-${name}`, "aria-hidden": "true" });
const opts = (values: [string, string][], cur?: string) => values.map(([v, label]) => h("option", { value: v, selected: v === cur }, label));

let rows: RuleRowView[] = [];
let agents: string[] = [];
let editing: string | undefined;
let lastDecidingRule: string | undefined;

const root = document.getElementById("rules")!;

// ---- test a call --------------------------------------------------------------
const testTool = h("select", { id: "test-tool", "aria-label": "Tool to test" }, ...opts([["Bash", "Bash (command)"], ["Read", "Read (path)"], ["Edit", "Edit (path)"], ["Write", "Write (path)"], ["WebFetch", "WebFetch (URL)"]], "Bash"));
const testText = h("input", { id: "test-text", type: "text", placeholder: "a command or a path, e.g. rm -rf build", "aria-label": "Command or path to test" });
const testAgent = h("select", { id: "test-agent", "aria-label": "Agent to test for" });
const testBtn = h("button", { id: "test-run", class: "primary", onclick: () => runTest() }, "Test");
const testOut = h("div", { id: "test-result", class: "result", role: "status", "aria-live": "polite" });
testText.addEventListener("keydown", (e) => {
  if (e.key === "Enter") {
    e.preventDefault();
    runTest();
  }
});
function runTest(): void {
  if (!testText.value.trim()) {
    testOut.textContent = "Type a command or a path first.";
    return;
  }
  testOut.textContent = "Asking the bridge…";
  send({ type: "test", tool: testTool.value, text: testText.value, agent: testAgent.value || undefined });
}

// ---- add a rule -------------------------------------------------------------------
const addList = h("select", { id: "add-list", "aria-label": "List" }, ...opts([["allow", "Allow"], ["ask", "Ask"], ["deny", "Deny"]], "deny"));
const addRule = h("input", { id: "add-rule", type: "text", placeholder: "Bash(rm -rf *) or Read(./.env)", "aria-label": "Rule to add" });
const addScope = h("select", { id: "add-scope", "aria-label": "Where to store it" }, ...opts([["user", "User settings"], ["workspace", "Workspace settings"]], "user"));
const addAgent = h("select", { id: "add-agent", "aria-label": "For which agent" });
const addBtn = h("button", { id: "add-run", onclick: () => runAdd() }, "Add rule");
const addOut = h("div", { id: "add-result", class: "result", role: "status", "aria-live": "polite" });
addRule.addEventListener("keydown", (e) => {
  if (e.key === "Enter") {
    e.preventDefault();
    runAdd();
  }
});
function runAdd(): void {
  addOut.textContent = "Checking the rule…";
  addOut.className = "result";
  send({ type: "add", list: addList.value, rule: addRule.value, scope: addScope.value, agent: addAgent.value || undefined });
}

const table = h("table", { class: "rules", "aria-label": "Rules and modes in force" });
const bridgeLine = h("div", { class: "bridge-line", role: "status" });
root.append(
  h("h2", {}, "Test a call"),
  h("div", { class: "row" }, testTool, testText, testAgent, testBtn),
  testOut,
  h("h2", {}, "Add a rule"),
  h("div", { class: "row" }, addList, addRule, h("label", {}, "in ", addScope), h("label", {}, "for ", addAgent), addBtn),
  addOut,
  h("h2", {}, "In force"),
  bridgeLine,
  table,
);

function agentOptions(sel: HTMLSelectElement, all: string): void {
  const cur = sel.value;
  sel.replaceChildren(...opts([["", all], ...agents.map((a): [string, string] => [a, a])], cur));
}

function render(): void {
  const head = h("tr", {}, ...["List", "Rule / value", "Agent", "Source", ""].map((c) => h("th", { scope: "col" }, c)));
  const body = h("tbody");
  for (const r of rows) body.append(renderRow(r));
  table.replaceChildren(h("thead", {}, head), body);
}

function renderRow(r: RuleRowView): HTMLTableRowElement {
  const tr = h("tr", {
    "data-row-id": r.id,
    "data-list": r.list ?? r.kind,
    class: [r.inForce ? "" : "not-in-force", r.locked ? "locked" : "", r.kind === "rule" && r.value === lastDecidingRule ? "decides" : ""].filter(Boolean).join(" "),
  });
  const listCell = h("td", { class: `list ${r.list ?? r.kind}` }, r.kind === "rule" ? (r.list ?? "allow") : r.kind);
  const valueCell = h("td", { class: "value" });
  if (editing === r.id) {
    const input = h("input", { type: "text", class: "edit-input", value: r.value, "aria-label": `New text of ${r.value}` });
    const save = () => send({ type: "edit", id: r.id, rule: input.value });
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        save();
      } else if (e.key === "Escape") {
        editing = undefined;
        render();
      }
    });
    valueCell.append(input, h("button", { class: "save", onclick: save }, "Save"), h("button", { class: "cancel", onclick: () => ((editing = undefined), render()) }, "Cancel"));
    queueMicrotask(() => input.focus());
  } else {
    valueCell.append(h("code", {}, r.value));
    if (!r.inForce) valueCell.append(h("span", { class: "note" }, " (not in force)"));
  }
  const source = h("td", { class: "source", title: r.file ?? "" }, r.source, r.file ? h("span", { class: "file" }, ` · ${r.file}`) : null);
  const actions = h("td", { class: "actions" });
  if (r.locked) actions.append(h("span", { class: "lock", title: r.locked, "aria-label": `Not changeable: ${r.locked}` }, icon("lock"), " ", r.source.startsWith("managed") ? "managed" : "fixed"));
  else {
    if (r.editable && editing !== r.id) actions.append(h("button", { class: "edit", "aria-label": `Edit ${r.value}`, onclick: () => ((editing = r.id), render()) }, "Edit"));
    if (r.removable) actions.append(h("button", { class: "remove", "aria-label": `Remove ${r.value}`, onclick: () => send({ type: "remove", id: r.id }) }, "Remove"));
  }
  tr.append(listCell, valueCell, h("td", { class: "agent" }, r.agent ?? "all agents"), source, actions);
  return tr;
}

window.addEventListener("message", (e: MessageEvent<RulesHostMessage>) => {
  const m = e.data;
  switch (m.type) {
    case "rows":
      rows = m.rows;
      agents = m.agents;
      if (editing && !rows.some((r) => r.id === editing)) editing = undefined;
      agentOptions(testAgent, "default agent");
      agentOptions(addAgent, "all agents");
      bridgeLine.textContent = m.error ? m.error : m.bridge ? "As the bridge applies them (every layer merged, the workspace narrowed, runtime grants)." : "The bridge is not running: only what VS Code settings hold is listed.";
      render();
      return;
    case "tested": {
      if (m.error || !m.result) {
        testOut.textContent = `Could not test: ${m.error ?? "no answer"}`;
        lastDecidingRule = undefined;
      } else {
        const r = m.result;
        lastDecidingRule = r.rule;
        testOut.replaceChildren(
          h("strong", { class: `decision ${r.decision}` }, r.decision),
          " ",
          h("code", {}, r.specifier),
          r.rule ? h("span", {}, " · decided by rule ", h("code", { class: "deciding-rule" }, r.rule)) : h("span", {}, ` · decided by ${r.source}`),
        );
        if (r.reason) testOut.append(h("div", { class: "reason" }, r.reason));
      }
      render();
      return;
    }
    case "done": {
      const out = m.op === "add" ? addOut : testOut;
      if (m.op === "add") {
        out.textContent = m.message;
        out.className = `result ${m.ok ? "ok" : "error"}`;
        if (m.ok) addRule.value = "";
      } else {
        bridgeLine.textContent = m.message;
        if (m.ok) editing = undefined;
      }
      return;
    }
  }
});

send({ type: "ready" });
