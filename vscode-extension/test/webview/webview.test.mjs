// The chat webview alone in headless Chromium (Debian chromium + playwright-core):
// the real dist/webview.js under the production CSP, with a stub
// acquireVsCodeApi that records what the webview posts. Host messages are
// injected with window.postMessage. Needs `node scripts/build.mjs` first.
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

async function open() {
  const w = await openWebview(browser, dist);
  if (w.errors.length) throw w.errors[0];
  page = w.page;
  page.on("pageerror", (e) => {
    throw e;
  });
  return page;
}

const post = (m) => page.evaluate((msg) => window.postMessage(msg, "*"), m);
const sent = () => page.evaluate(() => window.__sent);
const clearSent = () => page.evaluate(() => (window.__sent = []));

const options = [
  { optionId: "acp-bridge:allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "acp-bridge:allow_session", name: "Allow for this session", kind: "allow_always" },
  { optionId: "acp-bridge:allow_always", name: "Always allow", kind: "allow_always" },
  { optionId: "acp-bridge:reject_once", name: "Deny", kind: "reject_once" },
  { optionId: "acp-bridge:reject_and_stop", name: "Deny and stop the turn", kind: "reject_once" },
  { optionId: "acp-bridge:reject_always", name: "Always deny", kind: "reject_always" },
  { optionId: "acp-bridge:bypass", name: "Bypass permissions for demo", kind: "allow_always" },
  { optionId: "agent:plan-exit", name: "Exit plan mode", kind: "allow_once" },
];

function approval(id, extra = {}) {
  return {
    kind: "approval",
    id: `approval:${id}`,
    approvalId: id,
    tool: { toolCallId: `tc-${id}`, title: "go test ./...", kind: "execute", status: "pending", locations: [], content: [], command: "go test ./..." },
    options,
    meta: {
      approvalId: id,
      agent: "demo",
      tool: "Bash",
      specifier: "Bash(go test ./...)",
      reason: "no allow rule matches",
      matchedRule: "Bash(go *)",
      mode: "default",
      suggestedRules: ["Bash(go test *)", "Bash(go test ./...)"],
    },
    state: "pending",
    ...extra,
  };
}

const chat = { chatId: "chat-1", sessionId: "S1", agent: "demo", mode: "default", title: "demo: run tests", busy: true };
const state = (items, extra = {}) => ({
  type: "state",
  bridge: { status: "running", version: "acp-bridge test" },
  agents: [
    { id: "demo", name: "Demo", status: "running", mode: "default" },
    { id: "claude", name: "claude", status: "idle", mode: "acceptEdits" },
  ],
  defaultAgent: "demo",
  modes: ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"],
  chats: [{ chat, items }],
  activeChatId: "chat-1",
  ...extra,
});

const card = (id) => page.locator(`[data-approval-id="${id}"]`);
/** Buttons of an open compact card: Allow once, its dropdown, Deny, its dropdown, and bypass behind "More options…". */
const OPEN_BUTTONS = 5;

test("an approval card shows tool, specifier, command, why, and the options in order", async () => {
  await open();
  await post(state([{ kind: "user", id: "u1", text: "run the tests" }, approval("A1")]));
  const c = card("A1");
  await c.waitFor();
  assert.match(await c.locator(".card-head").innerText(), /demo\s+asks to use Bash/);
  assert.equal(await c.locator(".specifier code").innerText(), "Bash(go test ./...)");
  assert.equal(await c.locator("pre.command").innerText(), "$ go test ./...");
  const why = await c.locator(".why").innerText();
  assert.match(why, /no allow rule matches/);
  assert.match(why, /rule Bash\(go \*\)/);
  assert.match(why, /mode default/);
  // Compact: two primary actions, each with a dropdown; bypass last, behind "More options…".
  assert.deepEqual(await c.locator(".options.compact button.opt[data-option-id]").evaluateAll((bs) => bs.map((b) => b.textContent.trim())), ["Allow once", "Deny"]);
  assert.deepEqual(await c.locator(".options.compact .split-toggle").evaluateAll((bs) => bs.map((b) => b.dataset.menu + ":" + b.getAttribute("aria-expanded"))), ["allow:false", "deny:false"]);
  assert.equal(await c.locator(".rule-input").count(), 0, "no rule field until a dropdown that stores one is open");
  assert.deepEqual(await c.locator(".more-options button.opt").evaluateAll((bs) => bs.map((b) => b.textContent.trim())), ["Bypass permissions for demo"]);
  await c.locator('[data-menu="allow"]').click();
  assert.deepEqual(await c.locator(".split-menu button.opt").evaluateAll((bs) => bs.map((b) => b.textContent.trim())), ["Allow for this session", "Always allow", "Exit plan mode"]);
  assert.equal(await c.locator(".rule-input").inputValue(), "Bash(go test *)", "rule prefilled from suggestedRules[0]");
  assert.equal(await c.locator('[data-menu="allow"]').getAttribute("aria-expanded"), "true");
  await c.locator('[data-menu="deny"]').click();
  assert.deepEqual(await c.locator(".split-menu button.opt").evaluateAll((bs) => bs.map((b) => b.textContent.trim())), ["Deny with reason", "Deny and stop the turn", "Always deny"], "one dropdown open at a time");
  assert.equal(await page.locator(".tab .badge").innerText(), "1");
  await page.screenshot({ path: join(process.env.ARTIFACTS || join(root, "..", "test-artifacts"), "webview-card.png") }).catch(() => {});
  assert.deepEqual(await page.evaluate(() => window.__csp), [], "no CSP violations");
});

test("buttons post the right messages; the edited rule and scope go with Always allow", async () => {
  await open();
  await post(state([approval("A1"), approval("A2")]));
  await card("A2").waitFor();
  await clearSent();
  await card("A2").getByRole("button", { name: "Allow once", exact: true }).click();
  assert.deepEqual(await sent(), [{ type: "approve", approvalId: "A2", optionId: "acp-bridge:allow_once" }]);
  await clearSent();
  await card("A1").locator('[data-menu="allow"]').click();
  await card("A1").locator(".rule-input").fill("Bash(go test ./pkg/...)");
  await card("A1").locator(".scope-select").selectOption("workspace");
  await card("A1").getByRole("button", { name: "Always allow", exact: true }).click();
  assert.deepEqual(await sent(), [{ type: "approve", approvalId: "A1", optionId: "acp-bridge:allow_always", rule: "Bash(go test ./pkg/...)", scope: "workspace" }]);
  await clearSent();
  await card("A1").locator(".more-options > summary").click();
  await card("A1").getByRole("button", { name: "Bypass permissions for demo" }).click();
  await card("A1").locator('[data-menu="deny"]').click();
  await card("A1").getByRole("button", { name: "Deny and stop the turn" }).click();
  await card("A1").locator('[data-menu="allow"]').click();
  await card("A1").getByRole("button", { name: "Exit plan mode" }).click();
  assert.deepEqual(await sent(), [
    { type: "approve", approvalId: "A1", optionId: "acp-bridge:bypass", scope: "workspace" },
    { type: "approve", approvalId: "A1", optionId: "acp-bridge:reject_and_stop" },
    { type: "approve", approvalId: "A1", optionId: "agent:plan-exit" },
  ]);
});

test("buttons are reachable by keyboard: a dropdown opens with Enter, its first scope gets focus, Escape closes it", async () => {
  await open();
  await post(state([approval("K1")]));
  await card("K1").waitFor();
  await clearSent();
  await card("K1").locator("button.opt").first().focus();
  await page.keyboard.press("Tab"); // the allow dropdown's toggle
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), "Allow for this session");
  await page.keyboard.press("Escape");
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.menu), "allow", "focus back on the toggle");
  assert.equal(await card("K1").locator(".split-menu").count(), 0);
  await page.keyboard.press("Enter");
  await page.keyboard.press("Enter");
  assert.deepEqual(await sent(), [{ type: "approve", approvalId: "K1", optionId: "acp-bridge:allow_session" }]);
});

test("Deny with a reason…: the reason goes with the Deny, by keyboard alone, and the closed card records it", async () => {
  await open();
  await post(state([approval("W1")]));
  await card("W1").waitFor();
  await clearSent();
  await card("W1").locator('[data-option-id="acp-bridge:reject_once"]').focus();
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter"); // opens the deny dropdown, focus in the reason field
  assert.equal(await page.evaluate(() => document.activeElement?.className), "reason-input");
  await page.keyboard.press("Enter");
  assert.deepEqual(await sent(), [], "an empty reason sends nothing");
  await page.keyboard.type("use make test, it sets the tags");
  assert.deepEqual(await sent(), [], "letters typed in the reason field are text, not keys");
  await page.keyboard.press("Enter");
  assert.deepEqual(await sent(), [{ type: "approve", approvalId: "W1", optionId: "acp-bridge:reject_once", reason: "use make test, it sets the tags" }]);
  await post({ type: "item", chatId: "chat-1", item: approval("W1", { state: "resolved", denyReason: "use make test, it sets the tags", resolution: { decision: "deny", by: "user", optionId: "acp-bridge:reject_once" } }) });
  await card("W1").locator(".outcome").waitFor();
  assert.equal(await card("W1").count(), 1, "the card painted again with its dropdown open is the one the resolution replaces: no stale copy");
  assert.equal(await card("W1").locator(".outcome").innerText(), 'Denied by you (Deny) · your reason, sent to the agent: "use make test, it sets the tags"');
});

test("cards close when resolved, each on its own, and say how they ended", async () => {
  await open();
  await post(state([approval("R1"), approval("R2"), approval("R3")]));
  await card("R3").waitFor();
  await post({ type: "item", chatId: "chat-1", item: approval("R1", { state: "answering", chosen: "acp-bridge:allow_once" }) });
  await card("R1").locator(".answering").waitFor(); // items are painted on the next animation frame
  assert.equal(await card("R1").locator("button.opt").first().isDisabled(), true, "disabled while answering");
  await post({ type: "item", chatId: "chat-1", item: approval("R1", { state: "resolved", resolution: { decision: "allow", by: "user", optionId: "acp-bridge:allow_once" } }) });
  await post({ type: "item", chatId: "chat-1", item: approval("R2", { state: "resolved", resolution: { decision: "deny", by: "timeout" } }) });
  await card("R2").locator(".outcome").waitFor();
  assert.equal(await card("R1").locator(".outcome").innerText(), "Allowed by you (Allow once)");
  assert.equal(await card("R1").locator("button.opt").count(), 0);
  assert.equal(await card("R2").locator(".outcome").innerText(), "Denied: no answer in time (timeout)");
  assert.match(await card("R2").getAttribute("class"), /expired/);
  assert.equal(await card("R3").locator("button.opt").count(), OPEN_BUTTONS, "the third is still open");
  assert.equal(await page.locator(".tab .badge").innerText(), "1");
  await post({ type: "item", chatId: "chat-1", item: approval("R3", { state: "resolved", resolution: { decision: "cancelled", by: "cancel" } }) });
  await card("R3").locator(".outcome").waitFor();
  assert.equal(await card("R3").locator(".outcome").innerText(), "Cancelled: the turn was cancelled");
  assert.equal(await page.locator(".tab .badge").count(), 0);
  await post({ type: "item", chatId: "chat-1", item: approval("R4", { error: "approval R4 was already resolved by timeout" }) });
  assert.match(await card("R4").locator(".card-error").innerText(), /already resolved by timeout/);
});

test("after a reload the webview asks again and the cards come back from the snapshot", async () => {
  await open();
  await post(state([approval("P1")]));
  await card("P1").waitFor();
  await page.locator("#composer-input").fill("half-typed draft");
  await page.reload();
  await page.waitForFunction(() => window.__sent.some((m) => m.type === "ready"));
  assert.equal(await card("P1").count(), 0, "nothing until the host answers");
  await post(state([approval("P1"), approval("P2")]));
  await card("P2").waitFor();
  assert.equal(await card("P1").locator("button.opt").count(), OPEN_BUTTONS);
  assert.equal(await page.locator("#composer-input").inputValue(), "half-typed draft", "draft kept in webview state");
});

test("transcript: markdown is escaped, thoughts collapsed, tools and diffs, plans, quiet decision lines", async () => {
  await open();
  await post(
    state([
      { kind: "agent", id: "a1", text: "Hello **there** <script>window.pwnd=1</script> <img src=x onerror=window.pwnd=2>" },
      { kind: "thought", id: "t1", text: "secret thinking" },
      {
        kind: "tool",
        id: "tool:e1",
        tool: {
          toolCallId: "e1",
          title: "Edit main.go",
          kind: "edit",
          status: "in_progress",
          locations: [{ path: "/w/main.go", line: 3 }],
          content: [{ type: "diff", diff: { path: "/w/main.go", oldText: "package main\nfunc a() {}\n", newText: "package main\nfunc b() {}\n" } }],
        },
      },
      { kind: "tool", id: "tool:x1", tool: { toolCallId: "x1", title: "go test", kind: "execute", status: "completed", locations: [], content: [{ type: "text", text: "ok  pkg 0.1s" }] } },
      { kind: "plan", id: "plan", entries: [{ content: "write code", status: "completed", priority: "high" }, { content: "test", status: "pending", priority: "low" }] },
      { kind: "notice", id: "n1", text: "Bash(npm run build) allowed by rule Bash(npm run *)", level: "quiet" },
    ]),
  );
  await page.locator(".notice.quiet").waitFor();
  assert.equal(await page.locator(".msg.agent strong").innerText(), "there");
  assert.equal(await page.locator(".transcript script, .transcript img").count(), 0);
  assert.equal(await page.evaluate(() => window.pwnd), undefined);
  assert.equal(await page.locator("details.thought").getAttribute("open"), null, "thoughts collapsed");
  assert.deepEqual(await page.locator(".diff .del").allInnerTexts(), ["- func a() {}"]);
  assert.deepEqual(await page.locator(".diff .add").allInnerTexts(), ["+ func b() {}"]);
  assert.equal(await page.locator('[data-tool-call-id="x1"]').getAttribute("open"), null, "completed tool collapsed");
  assert.match(await page.locator(".plan").innerText(), /write code[\s\S]*test/);
  assert.match(await page.locator(".notice.quiet").innerText(), /allowed by rule Bash\(npm run \*\)/);
  await clearSent();
  await page.locator(".locations button").first().click();
  assert.deepEqual(await sent(), [{ type: "openFile", path: "/w/main.go", line: 3 }]);
});

test("composer, stop, mode dropdown, agent picker, tabs", async () => {
  await open();
  await post(state([], { chats: [{ chat: { ...chat, busy: false }, items: [] }, { chat: { chatId: "chat-2", sessionId: "S2", agent: "claude", mode: "acceptEdits", title: "claude", busy: true }, items: [] }], activeChatId: "chat-1" }));
  await page.locator(".tab").nth(1).waitFor();
  await clearSent();
  await page.locator("#composer-input").fill("only:test");
  await page.keyboard.press("Enter");
  assert.deepEqual(await sent(), [{ type: "prompt", chatId: "chat-1", text: "only:test" }]);
  assert.equal(await page.locator("#stop-btn").isHidden(), true);
  await clearSent();
  await page.locator("#mode-select").selectOption("plan");
  assert.deepEqual(await sent(), [{ type: "setMode", chatId: "chat-1", mode: "plan" }]);
  await clearSent();
  await page.locator(".tab-main").nth(1).click();
  assert.deepEqual(await sent(), [{ type: "selectChat", chatId: "chat-2" }]);
  await post({ type: "activeChat", chatId: "chat-2" });
  await page.locator("#stop-btn").waitFor({ state: "visible" });
  assert.equal(await page.locator("#mode-select").inputValue(), "acceptEdits");
  await clearSent();
  await page.locator("#stop-btn").click();
  await page.locator("#agent-select").selectOption("claude");
  await page.getByRole("button", { name: "New chat" }).click();
  assert.deepEqual(await sent(), [{ type: "cancel", chatId: "chat-2" }, { type: "newChat", agent: "claude" }]);
  await post({ type: "chat", chat: { chatId: "chat-2", sessionId: "S2", agent: "claude", mode: "bypassPermissions", title: "claude", busy: false } });
  assert.match(await page.locator(".banner").innerText(), /Bypass permissions is on/);
  await page.screenshot({ path: join(process.env.ARTIFACTS || join(root, "..", "test-artifacts"), "webview-tabs.png") }).catch(() => {});
});

test("a message typed with no chat open is sent: the host is asked to open a chat with the picked agent", async () => {
  await open();
  await post(state([], { chats: [], activeChatId: undefined }));
  await page.locator("#agent-select option").nth(1).waitFor({ state: "attached" });
  await page.locator("#agent-select").selectOption("claude");
  await clearSent();
  await page.locator("#composer-input").fill("hello there");
  await page.keyboard.press("Enter");
  assert.deepEqual(await sent(), [{ type: "prompt", chatId: "", text: "hello there", agent: "claude" }]);
  assert.equal(await page.locator("#composer-input").inputValue(), "", "the text went out, not into a void");
});

test("bypass is safe by default: danger colours, last, behind a disclosure, never the first Shift+Tab stop from the message box", async () => {
  await open();
  await post(state([approval("B1")], { chats: [{ chat: { ...chat, busy: false }, items: [approval("B1")] }] }));
  await card("B1").waitFor();
  const bypass = card("B1").locator('button[data-option-id="acp-bridge:bypass"]');
  assert.equal(await bypass.isVisible(), false, "hidden until More options… is opened");
  assert.match(await bypass.getAttribute("class"), /\bdanger\b/);
  assert.doesNotMatch(await bypass.getAttribute("class"), /\b(allow|primary)\b/);
  // Shift+Tab from the message box lands on the disclosure, not on a button that grants anything.
  await page.locator("#composer-input").focus();
  await page.keyboard.press("Shift+Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.tagName + ":" + (document.activeElement?.textContent ?? "").trim()), "SUMMARY:More options…");
  await clearSent();
  await page.keyboard.press("Enter"); // opens the disclosure; still nothing sent
  await card("B1").locator('[data-menu="allow"]').click(); // the allow scopes, for their colour below
  await card("B1").locator(".more-options > summary").click();
  assert.deepEqual(await sent(), []);
  assert.equal(await bypass.isVisible(), true);
  // Colours: VS Code's error colours, not the allow green of the other buttons.
  const colours = await page.evaluate(() => {
    // The theme's colours, as VS Code sets them on the webview.
    const root = document.documentElement.style;
    root.setProperty("--vscode-errorForeground", "rgb(241, 76, 76)");
    root.setProperty("--vscode-inputValidation-errorBorder", "rgb(190, 17, 0)");
    root.setProperty("--vscode-testing-iconPassed", "rgb(115, 201, 145)");
    const b = document.querySelector('button[data-option-id="acp-bridge:bypass"]');
    const a = document.querySelector('button[data-option-id="acp-bridge:allow_session"]');
    return { bypass: getComputedStyle(b).borderColor, allow: getComputedStyle(a).borderColor };
  });
  assert.equal(colours.allow, "rgb(115, 201, 145)");
  assert.equal(colours.bypass, "rgb(190, 17, 0)", "the error border, not the allow green");
});

test("keyboard shortcuts answer the focused card: A allows once, D denies; no key bypasses; typing in the rule field is typing", async () => {
  await open();
  await post(state([approval("S1"), approval("S2")]));
  await card("S2").waitFor();
  await clearSent();
  await card("S2").locator(".specifier").click(); // focus inside the card without pressing a button
  await card("S2").locator("button.opt").first().focus();
  await page.keyboard.press("a");
  assert.deepEqual(await sent(), [{ type: "approve", approvalId: "S2", optionId: "acp-bridge:allow_once" }], "A on S2 answers S2 only");
  await clearSent();
  await card("S1").locator('[data-menu="deny"]').focus();
  await page.keyboard.press("Shift+Tab"); // to the card's Deny
  await page.keyboard.press("d");
  assert.deepEqual(await sent(), [{ type: "approve", approvalId: "S1", optionId: "acp-bridge:reject_once" }]);
  await clearSent();
  for (const k of ["b", "B", "y", "Y", "p"]) await page.keyboard.press(k);
  assert.deepEqual(await sent(), [], "no key chooses bypass or anything else");
  await card("S1").locator('[data-menu="allow"]').click();
  await card("S1").locator(".rule-input").fill("");
  await card("S1").locator(".rule-input").type("Bash(add *)");
  assert.deepEqual(await sent(), [], "letters typed in the rule field are text");
  assert.equal(await card("S1").locator(".rule-input").inputValue(), "Bash(add *)");
  // Resolved cards ignore the keys.
  await post({ type: "item", chatId: "chat-1", item: approval("S1", { state: "resolved", resolution: { decision: "deny", by: "user", optionId: "acp-bridge:reject_once" } }) });
  await card("S1").locator(".outcome").waitFor();
  await card("S1").locator(".outcome").click();
  await page.keyboard.press("a");
  assert.deepEqual(await sent(), []);
});

test("focusApproval (the status bar, Go to oldest card) switches to the card's chat, scrolls to it and focuses Allow once, even before it is painted", async () => {
  await open();
  const other = { ...chat, chatId: "chat-2", title: "helper: lint", agent: "helper" };
  const filler = Array.from({ length: 60 }, (_, i) => ({ kind: "agent", id: `m${i}`, text: `line ${i}\n\n` + "text ".repeat(80) }));
  await post({ ...state([approval("F0")]), chats: [{ chat, items: [approval("F0")] }, { chat: other, items: [...filler, approval("F1")] }] });
  await card("F0").waitFor();
  // Posted right after a new item: the card of the other chat is not painted yet.
  await post({ type: "item", chatId: "chat-2", item: approval("F2") });
  await post({ type: "focusApproval", chatId: "chat-2", approvalId: "F2" });
  await page.waitForFunction(() => document.activeElement?.closest("[data-approval-id]")?.getAttribute("data-approval-id") === "F2", null, { timeout: 5000 });
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-option-id")), "acp-bridge:allow_once");
  assert.ok(await card("F2").isVisible(), "scrolled into view");
  await clearSent();
  await page.keyboard.press("Enter");
  assert.deepEqual(await sent(), [{ type: "approve", approvalId: "F2", optionId: "acp-bridge:allow_once" }], "Enter answers the focused card");
});

test("the outcome line and the tool card name what decided: you, rule, mode, timeout, cancel", async () => {
  await open();
  const res = (id, r) => approval(id, { state: "resolved", resolution: r });
  const tool = (id, verdict, verdictDecision, text) => ({ kind: "tool", id: `tool:${id}`, tool: { toolCallId: id, title: id, kind: "execute", status: "failed", locations: [], content: [{ type: "text", text }], verdict, verdictDecision } });
  await post(
    state([
      res("O1", { decision: "deny", by: "user", optionId: "acp-bridge:reject_once" }),
      res("O2", { decision: "deny", by: "rule", rule: "Bash(rm *)" }),
      res("O3", { decision: "deny", by: "mode", reason: "dontAsk" }),
      res("O4", { decision: "deny", by: "timeout" }),
      res("O5", { decision: "cancelled", by: "cancel" }),
      tool("T1", "Denied by rule Bash(rm *)", "deny", "Rejected by user"),
      tool("T2", "Denied by you (Deny)", "deny", "Rejected by user"),
    ]),
  );
  await card("O5").locator(".outcome").waitFor();
  const outcomes = await page.locator(".card.approval .outcome").allInnerTexts();
  assert.deepEqual(outcomes.map((t) => t.trim()), ["Denied by you (Deny)", "Denied by rule Bash(rm *)", "Denied by the mode (dontAsk)", "Denied: no answer in time (timeout)", "Cancelled: the turn was cancelled"]);
  const t1 = page.locator('[data-tool-call-id="T1"]');
  assert.match(await t1.locator(".verdict").innerText(), /Denied by rule Bash\(rm \*\)/);
  assert.doesNotMatch(await t1.innerText(), /Rejected by user/, "the agent's wrong claim is not shown");
  assert.match(await page.locator('[data-tool-call-id="T2"]').innerText(), /Denied by you/);
});

test("the chat bar shows this chat's agent, mode and bypass; the mode changes only when the host says so", async () => {
  await open();
  const c2 = { chatId: "chat-2", sessionId: "S2", agent: "claude", mode: "plan", title: "claude", busy: false };
  await post(state([], { chats: [{ chat: { ...chat, busy: false }, items: [] }, { chat: c2, items: [] }], activeChatId: "chat-2" }));
  await page.locator(".tab").nth(1).waitFor();
  assert.equal(await page.locator("#agent-select").inputValue(), "claude", "this chat's agent, not the one for new chats (demo)");
  assert.equal(await page.locator("#mode-select").inputValue(), "plan");
  await clearSent();
  await page.locator("#mode-select").selectOption("dontAsk");
  assert.deepEqual(await sent(), [{ type: "setMode", chatId: "chat-2", mode: "dontAsk" }]);
  assert.equal(await page.locator("#mode-select").inputValue(), "plan", "not until the bridge accepted it");
  await post({ type: "chat", chat: { ...c2, mode: "dontAsk" } });
  assert.equal(await page.locator("#mode-select").inputValue(), "dontAsk");
  await post({ type: "chat", chat: { ...c2, mode: "dontAsk", bypass: true } });
  assert.match(await page.locator(".banner").innerText(), /Bypass permissions is on for claude/);
  await post({ type: "activeChat", chatId: "chat-1" });
  assert.equal(await page.locator("#agent-select").inputValue(), "demo");
  assert.equal(await page.locator(".banner").isHidden(), true);
  // Picking another agent in an open chat starts a new chat with it (a chat keeps its agent).
  await clearSent();
  await page.locator("#agent-select").selectOption("claude");
  assert.deepEqual(await sent(), [{ type: "newChat", agent: "claude" }]);
});

test("streaming: deltas are appended and rendered in batches, not the whole message per chunk", async () => {
  await open();
  await post(state([{ kind: "agent", id: "a1", text: "Start " }]));
  await page.locator(".msg.agent").waitFor();
  const n = 500;
  await page.evaluate((n) => {
    window.__renders = 0;
    for (let i = 0; i < n; i++) window.postMessage({ type: "append", chatId: "chat-1", itemId: "a1", text: i === n - 1 ? "**end**" : "word " }, "*");
  }, n);
  await page.locator(".msg.agent strong").waitFor();
  const text = await page.locator(".msg.agent").innerText();
  assert.equal(text.split("word").length - 1, n - 1);
  assert.match(text, /^Start word/);
  const renders = await page.evaluate(() => window.__renders);
  assert.ok(renders >= 1 && renders < n / 10, `${renders} renders for ${n} chunks`);
});

test("a long message that arrives at once is painted over several frames, a bounded slice each, and then whole", async () => {
  await open();
  const lines = [];
  for (let i = 0; i < 6000; i++) lines.push(`Line ${i} with some *words* and \`code\` in it.`, "");
  lines.push("**the end**");
  const text = lines.join("\n"); // about 300 KB of markdown
  await page.evaluate(() => {
    window.__growth = [];
    let last = 0;
    const tick = () => {
      const el = document.querySelector(".msg.agent");
      const n = el ? el.textContent.length : 0;
      if (n !== last) window.__growth.push(n - last);
      last = n;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  await post(state([{ kind: "agent", id: "a1", text }]));
  await page.locator(".msg.agent strong", { hasText: "the end" }).waitFor({ timeout: 30_000 });
  const got = await page.locator(".msg.agent").textContent();
  assert.match(got, /Line 5999 with some words and code in it\./);
  assert.equal(got.split("Line ").length - 1, 6000, "every line, once");
  const growth = await page.evaluate(() => window.__growth);
  assert.ok(growth.length >= 8, `painted over ${growth.length} frames`);
  assert.ok(Math.max(...growth) <= 30_000, `at most a step per frame: ${Math.max(...growth)} characters`);
});

test("a burst of new items is painted a few per frame, every one of them, in order", async () => {
  await open();
  await post(state([{ kind: "agent", id: "a0", text: "Start" }]));
  await page.locator(".msg.agent").waitFor();
  const n = 40;
  await page.evaluate((n) => {
    window.__counts = [];
    const tick = () => {
      window.__counts.push(document.querySelectorAll("[data-tool-call-id]").length);
      if (window.__counts.at(-1) < n) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    for (let i = 0; i < n; i++) {
      const tool = { toolCallId: `t${i}`, title: `step ${i}`, kind: "execute", status: "completed", locations: [], content: [{ type: "text", text: `output ${i}` }] };
      window.postMessage({ type: "item", chatId: "chat-1", item: { kind: "tool", id: `tool:t${i}`, tool } }, "*");
    }
  }, n);
  await page.waitForFunction((n) => document.querySelectorAll("[data-tool-call-id]").length === n, n);
  const counts = await page.evaluate(() => window.__counts);
  const steps = counts.slice(1).map((c, i) => c - counts[i]);
  // FRAME_ITEMS (webview/main.ts): the style and layout of what a frame inserts is outside its script budget.
  assert.ok(Math.max(...steps) <= 3, `at most 3 items per frame, got steps ${steps.join(",")}`);
  const grew = steps.filter((x) => x > 0).length;
  assert.ok(counts.at(-1) >= n - 3 && grew >= Math.ceil((counts.at(-1) - counts[0]) / 3), `painted over several frames: ${counts.join(",")}`);
  const titles = await page.locator("[data-tool-call-id] .tool-title").allInnerTexts();
  assert.deepEqual(titles, Array.from({ length: n }, (_, i) => `step ${i}`));
});
