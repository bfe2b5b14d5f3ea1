// Editor-grade parts of the webviews in headless Chromium (the real dist/
// bundles under the production CSP, a stub acquireVsCodeApi): "Open diff" on
// cards, context chips (@, buttons, removal, sent with the message), and the
// audit log table with its filters. Needs `node scripts/build.mjs` first.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { launch, openWebview } from "./harness.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dist = join(root, "dist");
let browser;
let page;

before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

async function open(which) {
  const w = await openWebview(browser, dist, { ...which, width: 900 });
  if (w.errors.length) throw w.errors[0];
  page = w.page;
  page.on("pageerror", (e) => {
    throw e;
  });
  return page;
}
const openChat = () => open({});
const openAudit = () => open({ bundle: "audit.js", css: "audit.css", rootId: "audit" });

const post = (m) => page.evaluate((msg) => window.postMessage(msg, "*"), m);
const sent = () => page.evaluate(() => window.__sent);
const clearSent = () => page.evaluate(() => (window.__sent = []));

const diff = { path: "/ws/main.go", oldText: 'fmt.Println("helo")', newText: 'fmt.Println("hello")' };
const editTool = { toolCallId: "tc-E1", title: "Edit main.go", kind: "edit", status: "pending", locations: [{ path: "/ws/main.go" }], content: [{ type: "diff", diff }] };
const chat = { chatId: "chat-1", sessionId: "S1", agent: "demo", mode: "default", title: "demo", busy: false };
const state = (items) => ({
  type: "state",
  bridge: { status: "running" },
  agents: [{ id: "demo", name: "demo", status: "running" }],
  defaultAgent: "demo",
  modes: ["default"],
  chats: [{ chat, items }],
  activeChatId: "chat-1",
});
const approval = {
  kind: "approval",
  id: "approval:E1",
  approvalId: "E1",
  tool: editTool,
  options: [
    { optionId: "acp-bridge:allow_once", name: "Allow once", kind: "allow_once" },
    { optionId: "acp-bridge:reject_once", name: "Deny", kind: "reject_once" },
  ],
  meta: { approvalId: "E1", agent: "demo", tool: "Edit", specifier: "Edit(/ws/main.go)" },
  state: "pending",
};

test("Open diff on an approval card names the approval; on a tool card it does not", async () => {
  await openChat();
  await post(state([{ kind: "tool", id: "tool:tc-T", tool: { ...editTool, toolCallId: "tc-T", status: "completed" } }, approval]));
  const card = page.locator('[data-approval-id="E1"]');
  await card.waitFor();
  await clearSent();
  await card.getByRole("button", { name: "Open diff" }).click();
  assert.deepEqual(await sent(), [{ type: "openDiff", diff, approvalId: "E1" }]);
  await clearSent();
  const tool = page.locator('.card.tool[data-tool-call-id="tc-T"]');
  await tool.locator("summary").click();
  await tool.getByRole("button", { name: "Open diff" }).click();
  assert.deepEqual(await sent(), [{ type: "openDiff", diff }]);
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
});

test("context: buttons and @ ask the host, chips show what came back, are removable, and go with the message", async () => {
  await openChat();
  await post(state([]));
  await page.locator("#composer-input").waitFor();
  await clearSent();
  await page.locator('button.context-add[data-context="file"]').click();
  await page.locator('button.context-add[data-context="selection"]').click();
  await page.locator('button.context-add[data-context="editors"]').click();
  assert.deepEqual(await sent(), [
    { type: "addContext", what: "file", chatId: "chat-1", agent: "demo" },
    { type: "addContext", what: "selection", chatId: "chat-1", agent: "demo" },
    { type: "addContext", what: "editors", chatId: "chat-1", agent: "demo" },
  ]);
  await clearSent();
  const input = page.locator("#composer-input");
  await input.click();
  await input.pressSequentially("explain @");
  assert.deepEqual(await sent(), [{ type: "addContext", what: "file", chatId: "chat-1", agent: "demo" }], "@ at a word's start opens the picker");
  assert.equal(await input.inputValue(), "explain ", "the @ gives way to the chip");
  await clearSent();
  await input.pressSequentially("me@example");
  assert.deepEqual(await sent(), [], "an @ inside a word is just text");
  await input.fill("explain ");
  const file = { kind: "file", uri: "file:///ws/main.go", path: "/ws/main.go", label: "main.go" };
  const readme = { kind: "file", uri: "file:///ws/README.md", path: "/ws/README.md", label: "README.md" };
  const sel = { kind: "selection", uri: "file:///ws/main.go", path: "/ws/main.go", label: "main.go:3-5", range: { startLine: 3, startCharacter: 0, endLine: 5, endCharacter: 1 } };
  await post({ type: "contextAdded", refs: [file, readme] });
  await post({ type: "contextAdded", refs: [sel, file] });
  const chips = page.locator(".context-chips .chip");
  await chips.nth(2).waitFor();
  assert.deepEqual(await chips.locator(".chip-label").allInnerTexts(), ["main.go", "README.md", "main.go:3-5"], "one chip per file or selection");
  await page.getByRole("button", { name: "Remove README.md" }).click();
  assert.deepEqual(await chips.locator(".chip-label").allInnerTexts(), ["main.go", "main.go:3-5"]);
  await clearSent();
  await input.fill("explain this");
  await input.press("Enter");
  assert.deepEqual(await sent(), [{ type: "prompt", chatId: "chat-1", text: "explain this", context: [file, sel] }]);
  assert.equal(await chips.count(), 0, "chips go with the message");
  assert.equal(await page.locator(".context-chips").isHidden(), true);
  await clearSent();
  await input.fill("no context");
  await input.press("Enter");
  assert.deepEqual(await sent(), [{ type: "prompt", chatId: "chat-1", text: "no context" }]);
});

const rows = [
  { time: "2026-01-02T03:04:05Z", agent: "demo", tool: "Bash", specifier: "Bash(go test ./...)", decision: "allow", source: "user", rule: "", reason: "", line: 1 },
  { time: "2026-01-02T03:04:06Z", agent: "claude", tool: "Read", specifier: "Read(./.env)", decision: "deny", source: "rule", rule: "Read(./.env)", reason: "", line: 2 },
  { time: "2026-01-02T03:04:07Z", agent: "demo", tool: "Bash", specifier: "Bash(rm -rf build)", decision: "deny", source: "user", rule: "", reason: "", line: 3 },
];

test("audit table: newest first, filters by agent, decision and text, grows as lines arrive", async () => {
  await openAudit();
  await post({ type: "rows", reset: true, rows, path: "/h/.config/acp-bridge/audit.jsonl" });
  const trs = page.locator("table.audit tbody tr");
  await trs.nth(2).waitFor();
  const specs = () => page.locator("table.audit tbody td.specifier").allInnerTexts();
  assert.deepEqual(await specs(), ["Bash(rm -rf build)", "Read(./.env)", "Bash(go test ./...)"], "newest first");
  assert.deepEqual(await trs.nth(1).locator("td").allInnerTexts().then((t) => t.slice(1)), ["claude", "Read", "Read(./.env)", "deny", "rule: Read(./.env)"]);
  await page.locator("#filter-agent").selectOption("demo");
  assert.deepEqual(await specs(), ["Bash(rm -rf build)", "Bash(go test ./...)"]);
  await page.locator("#filter-decision").selectOption("deny");
  assert.deepEqual(await specs(), ["Bash(rm -rf build)"]);
  await page.locator("#filter-agent").selectOption("");
  assert.deepEqual(await specs(), ["Bash(rm -rf build)", "Read(./.env)"]);
  await page.locator("#filter-text").fill("ENV");
  assert.deepEqual(await specs(), ["Read(./.env)"]);
  assert.match(await page.locator(".count").innerText(), /1 of 3/);
  await page.locator("#filter-text").fill("");
  await page.locator("#filter-decision").selectOption("");
  await post({ type: "rows", reset: false, rows: [{ ...rows[0], specifier: "Bash(go vet ./...)", line: 4 }], path: "/h/.config/acp-bridge/audit.jsonl" });
  await page.locator("td.specifier", { hasText: "go vet" }).waitFor();
  assert.equal((await specs())[0], "Bash(go vet ./...)");
  await clearSent();
  await page.getByRole("button", { name: "Open raw JSON lines" }).click();
  assert.deepEqual(await sent(), [{ type: "openRaw" }]);
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
});

test("audit table: markup in a log line stays text", async () => {
  await openAudit();
  await post({ type: "rows", reset: true, rows: [{ ...rows[0], specifier: '<img src=x onerror="window.__pwned=1">' }], path: "/p" });
  await page.locator("td.specifier").waitFor();
  assert.equal(await page.locator("td.specifier img").count(), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
});
