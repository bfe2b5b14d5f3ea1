// Editor-grade journeys in real VS Code (code-server 4.139.1, headless
// Chromium), against the real acp-bridge and its demo agent, in a code-server
// of their own (a Read deny rule in the profile's settings):
//   - an edit's card opens VS Code's diff editor (the file on disk, before and
//     after), and "Allow once" in the diff editor's title bar answers it;
//   - "@" attaches a file, and the demo agent says what it received; a file a
//     Read deny rule covers is refused;
//   - "Open Chat in Editor": the chat in an editor tab, a card answered there;
//   - "Open Audit Log": the table, filtered, growing with the file.
//   VSIX=path/to.vsix node --test test/e2e/editor.test.mjs
import assert from "node:assert/strict";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { EXT_DIR } from "./codeserver.mjs";
import { Workbench, log, send, turnDone } from "./workbench.mjs";

const wb = new Workbench({
  name: "editor",
  settings: {
    "acpBridge.permissions": { deny: ["Read(./secret.txt)"] },
    "files.autoSave": "off", // unsaved edits stay unsaved (the fs/write_text_file test)
  },
  // A tiny agent that writes files through fs/write_text_file (acceptEdits: no card for a workspace edit).
  // acpBridge.agents is machine-scoped: in a remote window (code-server) it belongs in the remote machine's
  // settings; from the user settings it was missing from the agent list in one CI rehearsal.
  machineSettings: { "acpBridge.agents": { writer: { command: "node", args: [join(EXT_DIR, "test", "e2e", "writer-agent.cjs")], mode: "acceptEdits" } } },
  prepare(cs) {
    // The demo's edit replaces fmt.Println("helo") in main.go: put it there, so the diff is the file on disk.
    writeFileSync(join(cs.ws, "main.go"), 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("helo")\n}\n');
    writeFileSync(join(cs.ws, "secret.txt"), "s3cret\n");
  },
  onFail: async (page) =>
    log("diff editors:", await page.evaluate(() => [...document.querySelectorAll(".monaco-diff-editor, .editor-instance")].map((e) => `${e.className} visible=${e.getBoundingClientRect().width}x${e.getBoundingClientRect().height} text=${JSON.stringify(e.textContent.slice(0, 200))}`).join("\n"))),
  clickBeforeCommand: false,
});
let cs;
let page;

before(async () => {
  await wb.open();
  ({ cs, page } = wb);
});

after(() => wb.close());

const shot = (name) => wb.shot(name);
const step = (name, fn) => wb.step(name, fn);
const runCommand = (title) => wb.runCommand(title);
const frameWith = (selector, timeout, not) => wb.frameWith(selector, timeout, not);
const waitBridgeRunning = (f) => wb.waitBridgeRunning(f);

/** Types into the open quick pick and clicks the row wanted (a fast Enter may take the row before the filter). */
async function pickInQuickInput(text) {
  const qi = page.locator(".quick-input-widget");
  await qi.locator("input").fill(text);
  const row = qi.locator(".monaco-list-row", { hasText: text }).first();
  await row.waitFor({ timeout: 10_000 });
  await row.click();
}

let frame;

test("an edit's card opens VS Code's diff editor; Allow once in its title bar answers the card", async () => {
  await step("diff", async () => {
    await runCommand("ACP Bridge: New Chat");
    frame = await frameWith("#composer-input");
    await waitBridgeRunning(frame);
    await send(frame, "only:edit");
    const card = frame.locator(".card.approval.pending").first();
    await card.waitFor({ timeout: 30_000 });
    const id = await card.getAttribute("data-approval-id");
    await card.getByRole("button", { name: "Open diff" }).click();
    const tab = page.locator(".tabs-container .tab", { hasText: "main.go (proposed edit)" });
    await tab.waitFor({ timeout: 15_000 });
    // The whole file from disk on the left, the edit applied on the right.
    // (side by side or inline, as the editor's width decides; Monaco renders spaces as other characters)
    const diffText = () => page.evaluate(() => [...document.querySelectorAll(".monaco-diff-editor")].map((e) => e.textContent.replace(/\s/g, " ")).join("\n"));
    const deadline = Date.now() + 10_000;
    while (!/package main/.test(await diffText()) && Date.now() < deadline) await page.waitForTimeout(200);
    const shown = await diffText();
    assert.match(shown, /package main/, "the whole file from disk");
    assert.match(shown, /fmt\.Println\("helo"\)/, "before");
    assert.match(shown, /fmt\.Println\("hello"\)/, "after the edit");
    const allow = page.locator(".editor-actions .action-label[aria-label^='Allow once']");
    const deny = page.locator(".editor-actions .action-label[aria-label^='Deny']");
    await allow.waitFor({ timeout: 10_000 });
    assert.equal(await deny.count(), 1, "Deny is there too");
    await shot("diff-pending");
    await allow.click();
    // The card closes as if its own button had been clicked, and the tool call runs.
    const done = frame.locator(`.card.approval[data-approval-id="${id}"] .outcome`);
    await done.waitFor({ timeout: 15_000 });
    assert.match(await done.innerText(), /Allowed by you \(Allow once\)/);
    await frame.locator(".card.tool.status-completed", { hasText: "Edit main.go" }).waitFor({ timeout: 30_000 });
    await allow.waitFor({ state: "detached", timeout: 10_000 });
    assert.equal(await deny.count(), 0, "no actions once answered");
    await turnDone(frame);
    await shot("diff-answered");
  });
});

test("@ attaches a workspace file: the demo agent receives it; a file a Read deny rule covers is refused", async () => {
  await step("at-file", async () => {
    await runCommand("View: Close All Editors");
    await runCommand("ACP Bridge: Show Pending Approvals"); // brings the chat back
    frame = await frameWith("#composer-input");
    const input = frame.locator("#composer-input");
    await input.click();
    await input.pressSequentially("explain @");
    const qi = page.locator(".quick-input-widget");
    await qi.locator(".quick-input-title", { hasText: "attach a file" }).waitFor({ timeout: 10_000 });
    await pickInQuickInput("README.md");
    await frame.locator(".context-chips .chip", { hasText: "README.md" }).waitFor({ timeout: 10_000 });
    assert.equal(await input.inputValue(), "explain ", "the @ gave way to the chip");
    // The refused one: no chip, a message naming the rule.
    await frame.locator('button.context-add[data-context="file"]').click();
    await qi.locator(".quick-input-title", { hasText: "attach a file" }).waitFor({ timeout: 10_000 });
    await pickInQuickInput("secret.txt");
    await page.locator(".notifications-toasts", { hasText: "Read(./secret.txt)" }).first().waitFor({ timeout: 10_000 });
    assert.equal(await frame.locator(".context-chips .chip", { hasText: "secret.txt" }).count(), 0);
    await shot("at-file");
    await input.fill("only:read explain this");
    await input.press("Enter");
    const readme = `file://${cs.ws}/README.md`;
    await frame.locator(".msg.agent", { hasText: `Context received: resource_link ${readme}` }).waitFor({ timeout: 30_000 });
    // The demo agent accepts embedded context: the text came too.
    const bytes = readFileSync(join(cs.ws, "README.md")).length;
    await frame.locator(".msg.agent", { hasText: `Context received: resource ${readme} (${bytes} bytes of text)` }).waitFor({ timeout: 10_000 });
    assert.equal(await frame.locator(".context-chips .chip").count(), 0, "chips went with the message");
    await frame.locator(".msg.user", { hasText: "Attached: README.md" }).waitFor();
    await turnDone(frame); // a read: the policy allows it without a card
  });
});

test("Open Chat in Editor: the same chats in an editor tab, a card answered there", async () => {
  await step("editor-tab", async () => {
    if (await page.locator(".part.sidebar").isVisible()) await runCommand("View: Close Primary Side Bar");
    await runCommand("ACP Bridge: Open Chat in Editor");
    await page.locator(".tabs-container .tab", { hasText: "ACP Bridge Chat" }).waitFor({ timeout: 15_000 });
    const side = page.locator(".part.sidebar");
    assert.equal(await side.isVisible(), false, "the side bar is closed: the only chat webview is the editor's");
    const f = await frameWith("#composer-input");
    await f.locator(".msg.user", { hasText: "only:read explain this" }).waitFor({ timeout: 15_000 }); // the same chat
    await send(f, "only:test");
    const card = f.locator(".card.approval.pending").first();
    await card.waitFor({ timeout: 30_000 });
    await shot("editor-tab");
    await card.getByRole("button", { name: "Allow once", exact: true }).click();
    await f.locator(".card.approval .outcome", { hasText: "Allowed by you (Allow once)" }).last().waitFor({ timeout: 15_000 });
    await turnDone(f);
    await send(f, "only:rm");
    const card2 = f.locator(".card.approval.pending").first();
    await card2.waitFor({ timeout: 30_000 });
    await card2.getByRole("button", { name: "Deny", exact: true }).click();
    await turnDone(f);
  });
});

test("Open Audit Log: a table of decisions, filtered, that grows with the file", async () => {
  await step("audit", async () => {
    await runCommand("ACP Bridge: Open Audit Log");
    await page.locator(".tabs-container .tab", { hasText: "ACP Bridge Audit Log" }).waitFor({ timeout: 15_000 });
    const f = await frameWith("table.audit");
    const rows = f.locator("table.audit tbody tr");
    await rows.first().waitFor({ timeout: 15_000 });
    const specs = () => f.locator("table.audit tbody td.specifier").allInnerTexts();
    assert.ok((await specs()).some((s) => s.includes("go test")), `rows: ${await specs()}`);
    await f.locator("#filter-decision").selectOption("deny");
    const denied = await f.locator("table.audit tbody td.decision").allInnerTexts();
    assert.ok(denied.length >= 1 && denied.every((d) => d === "deny"), `denied rows: ${denied}`);
    assert.ok((await specs()).some((s) => s.includes("rm -rf build")));
    await f.locator("#filter-decision").selectOption("");
    await f.locator("#filter-text").fill("go test");
    assert.ok((await specs()).every((s) => s.includes("go test")));
    await f.locator("#filter-text").fill("");
    await shot("audit");
    // The file grows: the table follows.
    const auditFile = join(cs.home, ".config", "acp-bridge", "audit.jsonl");
    const n = await rows.count();
    appendFileSync(auditFile, JSON.stringify({ time: new Date().toISOString(), agent: "e2e-agent", sessionId: "s", specifier: "Bash(echo appended)", decision: "allow", source: "rule", rule: "Bash(echo *)", latencyMs: 0 }) + "\n");
    await f.locator("td.specifier", { hasText: "Bash(echo appended)" }).waitFor({ timeout: 10_000 });
    assert.equal(await rows.count(), n + 1);
    await f.locator("#filter-agent").selectOption("e2e-agent");
    assert.deepEqual(await specs(), ["Bash(echo appended)"]);
    // The raw JSON lines are one click away.
    await f.getByRole("button", { name: "Open raw JSON lines" }).click();
    await page.locator(".tabs-container .tab", { hasText: "audit.jsonl" }).waitFor({ timeout: 10_000 });
  });
});

test("the chat in the panel: its own view container, the same chats, a card answered there", async () => {
  await step("panel", async () => {
    await runCommand("View: Close All Editors");
    if (await page.locator(".part.sidebar").isVisible()) await runCommand("View: Close Primary Side Bar");
    await runCommand("ACP Bridge: Open Chat in Panel");
    const panel = page.locator(".part.panel");
    await panel.waitFor({ state: "visible", timeout: 10_000 });
    const f = await frameWith("#composer-input");
    await waitBridgeRunning(f);
    const before = await f.locator(".card.approval").count();
    await send(f, "only:test");
    const card = f.locator(".card.approval").nth(before);
    await card.locator("button.opt").first().waitFor({ timeout: 30_000 });
    await shot("panel");
    await card.getByRole("button", { name: "Deny", exact: true }).click();
    await card.locator(".outcome", { hasText: "Denied by you" }).waitFor({ timeout: 15_000 });
    await turnDone(f);
  });
});

test("fs/write_text_file to a file open with unsaved edits goes into the editor, not the disk: applied unsaved, and the unsaved text one undo away", async () => {
  await step("workspace-edit", async () => {
    const file = join(cs.ws, "notes.txt");
    writeFileSync(file, "on disk\n");
    await runCommand("View: Close All Editors");
    await page.keyboard.press("Control+P");
    await pickInQuickInput("notes.txt");
    const editor = page.locator(".editor-instance .monaco-editor").first();
    await editor.locator(".view-lines", { hasText: "on disk" }).waitFor({ timeout: 10_000 });
    await editor.locator(".view-lines").click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("typed, not saved");
    await page.locator(".tabs-container .tab.dirty", { hasText: "notes.txt" }).waitFor({ timeout: 5_000 });
    await runCommand("ACP Bridge: Open Chat in Panel");
    const f = await frameWith("#composer-input");
    await waitBridgeRunning(f);
    await f.locator("#agent-select").selectOption("writer"); // a chat with it opens (or, with none open, with the message)
    // Type once that chat is the active one: the message box keeps a draft per chat, so text typed
    // while the switch lands stays with the previous chat (seen in a CI rehearsal: nothing was sent).
    await f.locator(".tab.active .tab-main", { hasText: "writer" }).waitFor({ timeout: 15_000 });
    await f.locator("#composer-input").fill(`write ${file}\nfrom the agent\n`);
    await f.locator("#composer-input").press("Enter");
    await f.locator(".msg.agent", { hasText: /^(written|write failed)/ }).waitFor({ timeout: 30_000 });
    assert.equal(await f.locator(".msg.agent", { hasText: "written" }).count(), 1, await f.locator(".msg.agent").last().innerText());
    // In the editor, unsaved: the person saves (src/fsOps.ts); the disk keeps what was saved.
    await editor.locator(".view-lines", { hasText: "from the agent" }).waitFor({ timeout: 10_000 });
    assert.equal(readFileSync(file, "utf8"), "on disk\n");
    await page.locator(".tabs-container .tab.dirty", { hasText: "notes.txt" }).waitFor({ timeout: 5_000 });
    await shot("workspace-edit");
    // The unsaved text was not lost: one undo brings it back.
    await editor.locator(".view-lines").click();
    await page.keyboard.press("Control+Z");
    await editor.locator(".view-lines", { hasText: "typed, not saved" }).waitFor({ timeout: 10_000 });
  });
});

test("a chat open in an editor tab comes back after a window reload, with its chats", async () => {
  await step("editor-tab-reload", async () => {
    // Save what the undo left unsaved, so the reload asks nothing.
    await page.keyboard.press("Control+S");
    await runCommand("ACP Bridge: Open Chat in Editor");
    const tab = page.locator(".tabs-container .tab", { hasText: "ACP Bridge Chat" });
    await tab.waitFor({ timeout: 15_000 });
    let f = await frameWith("#composer-input");
    await f.locator(".tab").first().waitFor({ timeout: 15_000 });
    const before = await f.locator(".tab-title").allInnerTexts();
    await runCommand("Developer: Reload Window");
    await page.waitForTimeout(2000);
    await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
    await tab.waitFor({ timeout: 30_000 });
    await tab.click();
    f = await frameWith("#composer-input", 60_000);
    // The restored tab is served: it shows the chats kept across the reload, and the bridge runs.
    await f.locator(".tab").first().waitFor({ timeout: 30_000 });
    await waitBridgeRunning(f);
    await wb.until(async () => (await f.locator(".tab-title").count()) >= before.length);
    assert.deepEqual(await f.locator(".tab-title").allInnerTexts(), before, "the same chats after the reload");
    await f.locator(".tab-main", { hasText: /^demo/ }).first().click(); // the demo chat of the earlier tests
    await f.locator(".msg.user", { hasText: "only:read explain this" }).first().waitFor({ timeout: 15_000 });
    await shot("editor-tab-reload");
  });
});
