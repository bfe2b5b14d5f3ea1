// The rules editor's webview (dist/rules.js) in headless Chromium under the
// production CSP: rows with their sources, a lock on what cannot be changed,
// Add / Edit / Remove / Test post what they should, by keyboard too, and the
// tested call's deciding rule is marked. Needs `node scripts/build.mjs` first.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { launch, openWebview } from "./harness.mjs";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "dist");
let browser;
let page;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const post = (m) => page.evaluate((msg) => window.postMessage(msg, "*"), m);
const sent = () => page.evaluate(() => window.__sent.filter((m) => m.type !== "ready"));
const clearSent = () => page.evaluate(() => (window.__sent = []));

const rows = [
  { id: "r1", kind: "mode", value: "default", source: "default", inForce: true, editable: false, removable: false, locked: "the built-in default" },
  { id: "r2", kind: "rule", list: "deny", value: "Bash(rm *)", source: "VS Code user settings", inForce: true, editable: true, removable: true },
  { id: "r3", kind: "rule", list: "deny", value: "Read(./.env)", source: "managed (your organisation)", file: "/etc/acp-bridge/managed-settings.yaml", inForce: true, editable: false, removable: false, locked: "set by your organisation's managed settings: not changeable here" },
  { id: "r4", kind: "rule", list: "allow", value: "Bash(make *)", source: "the bridge's user file", inForce: true, editable: false, removable: true },
  { id: "r5", kind: "rule", list: "allow", value: "Bash(curl *)", source: "VS Code workspace settings", inForce: false, editable: true, removable: true },
];

async function open() {
  const w = await openWebview(browser, dist, { bundle: "rules.js", css: "rules.css", rootId: "rules", width: 900 });
  page = w.page;
  if (w.errors.length) throw w.errors[0];
  await post({ type: "rows", rows, agents: ["demo", "helper"], bridge: true });
  await page.locator('tr[data-row-id="r5"]').waitFor();
}

const row = (id) => page.locator(`tr[data-row-id="${id}"]`);

test("every rule and mode in force is listed with its source; managed and defaults are locked, the rest has its buttons", async () => {
  await open();
  assert.deepEqual(await page.locator("tbody tr").evaluateAll((trs) => trs.map((t) => t.dataset.rowId)), ["r1", "r2", "r3", "r4", "r5"]);
  assert.match(await row("r3").innerText(), /Read\(\.\/\.env\)[\s\S]*managed \(your organisation\)/);
  assert.equal(await row("r3").locator("button").count(), 0, "managed: no button");
  assert.match(await row("r3").locator(".lock").getAttribute("aria-label"), /Not changeable: set by your organisation/);
  assert.equal(await row("r1").locator("button").count(), 0);
  assert.deepEqual(await row("r2").locator("button").allInnerTexts(), ["Edit", "Remove"]);
  assert.deepEqual(await row("r4").locator("button").allInnerTexts(), ["Remove"], "the bridge's file: removable, not editable here");
  assert.match(await row("r5").innerText(), /not in force/);
  assert.deepEqual(await page.locator("#add-agent option").allInnerTexts(), ["all agents", "demo", "helper"]);
  assert.deepEqual(await page.evaluate(() => window.__csp), [], "no CSP violations");
});

test("add, edit, remove and test post what they should, by keyboard", async () => {
  await open();
  await clearSent();
  // Add: list, rule, scope, agent; Enter in the rule field adds.
  await page.locator("#add-list").selectOption("ask");
  await page.locator("#add-scope").selectOption("workspace");
  await page.locator("#add-agent").selectOption("helper");
  await page.locator("#add-rule").fill("Bash(git push *)");
  await page.locator("#add-rule").press("Enter");
  assert.deepEqual(await sent(), [{ type: "add", list: "ask", rule: "Bash(git push *)", scope: "workspace", agent: "helper" }]);
  await post({ type: "done", op: "add", ok: false, message: '"Bash(git push *" is not a valid rule: unclosed' });
  // postMessage is delivered later: wait for the result to be marked (fails after 5 s if it never is).
  await page.locator("#add-result.error").waitFor({ timeout: 5000 });
  await clearSent();
  // Edit: the rule becomes a field; Enter saves, Escape cancels.
  await row("r2").getByRole("button", { name: "Edit Bash(rm *)" }).click();
  const input = row("r2").locator(".edit-input");
  await input.waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.className), "edit-input", "focus in the field");
  await input.press("Escape");
  assert.equal(await row("r2").locator(".edit-input").count(), 0);
  await row("r2").getByRole("button", { name: "Edit Bash(rm *)" }).focus();
  await page.keyboard.press("Enter");
  await row("r2").locator(".edit-input").fill("Bash(rm -rf *)");
  await page.keyboard.press("Enter");
  assert.deepEqual(await sent(), [{ type: "edit", id: "r2", rule: "Bash(rm -rf *)" }]);
  await clearSent();
  await row("r4").getByRole("button", { name: "Remove Bash(make *)" }).focus();
  await page.keyboard.press("Enter");
  assert.deepEqual(await sent(), [{ type: "remove", id: "r4" }]);
  await clearSent();
  // Test: Enter in the field asks the bridge; the answer names and marks the deciding rule.
  await page.locator("#test-text").fill("rm -rf build");
  await page.locator("#test-text").press("Enter");
  assert.deepEqual(await sent(), [{ type: "test", tool: "Bash", text: "rm -rf build" }]);
  await post({ type: "tested", text: "rm -rf build", result: { decision: "deny", source: "rule", rule: "Bash(rm *)", reason: "denied by rule Bash(rm *) (user settings)", specifier: "Bash(rm -rf build)" } });
  await page.locator("#test-result .deciding-rule").waitFor();
  assert.match(await page.locator("#test-result").innerText(), /deny Bash\(rm -rf build\) · decided by rule Bash\(rm \*\)/);
  assert.match(await row("r2").getAttribute("class"), /\bdecides\b/);
  assert.doesNotMatch((await row("r4").getAttribute("class")) ?? "", /\bdecides\b/);
  await clearSent();
  await page.locator("#test-tool").selectOption("Read");
  await page.locator("#test-agent").selectOption("demo");
  await page.locator("#test-text").fill("./.env");
  await page.getByRole("button", { name: "Test" }).click();
  assert.deepEqual(await sent(), [{ type: "test", tool: "Read", text: "./.env", agent: "demo" }]);
});
