// Journeys of the chat in real VS Code (code-server + headless Chromium),
// against the real acp-bridge bundled in the .vsix and its demo agent: what
// the person sees says what really happened (which rule or mode decided,
// this chat's agent and mode, each turn's own plan), a mode change reaches
// the agent, and the safe defaults hold with VS Code's real theme and focus.
//   VSIX=path/to.vsix node --test test/e2e/journeys.test.mjs
// Two agents are configured (the demo agent as "demo" and as "helper"), and
// a deny rule Bash(rm *) in the user settings.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Workbench, allCards, pendingCards, send, toolCardOf, turnDone } from "./workbench.mjs";

const demo = { command: "${bridge}", args: ["demo-agent"] };
const wb = new Workbench({
  name: "journeys",
  settings: { "acpBridge.defaultAgent": "demo", "acpBridge.permissions": { deny: ["Bash(rm *)"] } },
  machineSettings: { "acpBridge.agents": { demo, helper: demo } },
});
let f; // the chat webview's frame

before(async () => {
  await wb.open();
  await wb.step("open", async () => {
    await wb.runCommand("ACP Bridge: New Chat");
    f = await wb.chatFrame();
    await wb.waitBridgeRunning(f);
    await f.locator(".tab").first().waitFor();
  });
});

after(() => wb.close());

/** Sets this chat's mode with the dropdown and waits until the bridge accepted it. */
async function setMode(mode) {
  const n = await f.locator(".notice.quiet", { hasText: `Mode: ${mode}` }).count();
  await f.locator("#mode-select").selectOption(mode);
  await f.locator(".notice.quiet", { hasText: `Mode: ${mode}` }).nth(n).waitFor({ timeout: 10_000 });
  assert.equal(await f.locator("#mode-select").inputValue(), mode);
}

/**
 * Sends text and waits for the demo agent's closing "Done." message of that
 * turn (the Stop button may still be hidden when the turn has not started).
 */
async function turn(text) {
  const done = f.locator(".msg.agent", { hasText: "Done." });
  const n = await done.count();
  await send(f, text);
  await done.nth(n).waitFor({ timeout: 30_000 });
  await turnDone(f);
}

/** The text of the last agent message of the active chat. */
async function lastAgentText() {
  return f.locator(".msg.agent").last().innerText();
}

test("a deny rule decides without a card, and the tool card names the rule, not the person", async () => {
  await wb.step("deny-rule", async () => {
    const cards = await allCards(f).count();
    await turn("only:rm");
    assert.equal(await allCards(f).count(), cards, "no approval card for a call a deny rule matches");
    const tool = f.locator(".card.tool", { hasText: "rm -rf build" }).last();
    await tool.locator(".verdict").waitFor({ timeout: 10_000 });
    assert.match(await tool.locator(".verdict").innerText(), /Denied by rule Bash\(rm \*\)/);
    assert.doesNotMatch(await tool.innerText(), /Denied by you|Rejected by user/);
    assert.match(await lastAgentText(), /Rejected: rm/);
    await wb.shot("deny-rule");
  });
});

test("keyboard: on the focused card A allows once and D denies; the outcome line names who decided", async () => {
  await wb.step("keys", async () => {
    for (const [key, outcome] of [
      ["a", /Allow once/],
      ["d", /^Denied by you \(Deny\)$/],
    ]) {
      const before = await allCards(f).count();
      await send(f, "only:test");
      const card = allCards(f).nth(before);
      await card.locator("button.opt").first().waitFor({ timeout: 30_000 });
      await card.locator("button.opt").first().focus();
      await wb.page.keyboard.press(key);
      await card.locator(".outcome").waitFor({ timeout: 15_000 });
      assert.match((await card.locator(".outcome").innerText()).trim(), outcome);
      await turnDone(f);
      const tool = await toolCardOf(f, card);
      const cls = (await tool.getAttribute("class")) ?? "";
      if (key === "a") assert.match(cls, /status-completed/, `allowed call completes (${cls})`);
      else assert.doesNotMatch(cls, /status-completed/, `denied call must not complete (${cls})`);
    }
  });
});

test("Bypass is last, behind More options…, in VS Code's error colours; Shift+Tab from the message box reaches no grant", async () => {
  await wb.step("bypass-safe", async () => {
    const before = await allCards(f).count();
    await send(f, "only:test");
    const card = allCards(f).nth(before);
    await card.locator("button.opt").first().waitFor({ timeout: 30_000 });
    const bypass = card.getByRole("button", { name: "Bypass permissions for demo" });
    assert.equal(await bypass.isVisible(), false, "hidden until More options… is opened");
    await f.locator("#composer-input").focus();
    await wb.page.keyboard.press("Shift+Tab");
    const focused = await f.evaluate(() => `${document.activeElement?.tagName}:${(document.activeElement?.textContent ?? "").trim()}`);
    assert.equal(focused, "SUMMARY:More options…", "the first Shift+Tab stop is the disclosure, not a button that grants");
    await card.locator(".more-options > summary").click();
    await bypass.waitFor();
    await card.locator('[data-menu="allow"]').click(); // the allow scopes (compact card), for their colour below
    await card.locator(".more-options > summary").click(); // a card painted again keeps no disclosure open
    await bypass.waitFor();
    const colours = await f.evaluate(() => {
      const b = document.querySelector('.card.approval.pending button[data-option-id="acp-bridge:bypass"]');
      const a = document.querySelector('.card.approval.pending button[data-option-id="acp-bridge:allow_session"]');
      const err = getComputedStyle(document.documentElement).getPropertyValue("--vscode-inputValidation-errorBorder").trim();
      return { bypass: getComputedStyle(b).borderColor, allow: getComputedStyle(a).borderColor, err };
    });
    assert.ok(colours.err, "VS Code's theme sets --vscode-inputValidation-errorBorder");
    assert.notEqual(colours.bypass, colours.allow, `bypass ${colours.bypass} must not look like allow ${colours.allow}`);
    const ids = await card.locator("button.opt").evaluateAll((bs) => bs.map((b) => b.getAttribute("data-option-id")));
    assert.equal(ids.at(-1), "acp-bridge:bypass", `bypass is the last option: ${ids}`);
    await wb.shot("bypass-safe");
    await card.getByRole("button", { name: "Deny", exact: true }).click();
    await card.locator(".outcome").waitFor({ timeout: 15_000 });
    await turnDone(f);
  });
});

test("a mode change reaches the agent: plan skips the edit; plan then Don't ask brings it back, and the mode denies it", async () => {
  await wb.step("modes", async () => {
    try {
      await setMode("plan");
      await turn("only:edit");
      assert.match(await lastAgentText(), /Skipped in plan mode: edit/, "the agent itself is in plan");
      await setMode("dontAsk");
      const cards = await allCards(f).count();
      await turn("only:edit");
      const text = await lastAgentText();
      assert.doesNotMatch(text, /Skipped in plan mode/, "the agent was left in its plan mode");
      assert.match(text, /Rejected: edit/);
      assert.equal(await allCards(f).count(), cards, "Don't ask shows no card");
      const tool = f.locator(".card.tool", { hasText: "Edit main.go" }).last();
      assert.match(await tool.locator(".verdict").innerText(), /Denied by the mode/);
      await wb.shot("modes");
    } finally {
      // the next tests expect this chat in default
      if ((await f.locator("#mode-select").inputValue()) !== "default") await setMode("default");
    }
  });
});

test("each turn keeps its own plan: a later plan never rewrites an earlier one", async () => {
  await wb.step("plans", async () => {
    const plans = f.locator(".transcript .card.plan");
    const texts = await plans.allInnerTexts();
    assert.ok(texts.length >= 4, `one plan per turn so far, got ${texts.length}`);
    // The first turn (only:rm) planned the removal, the plan and Don't ask turns the edit.
    assert.match(texts[0], /Remove the build directory/);
    assert.doesNotMatch(texts[0], /Fix the greeting|Run the tests/);
    assert.match(texts.at(-1), /Fix the greeting in main\.go/);
    assert.doesNotMatch(texts.at(-1), /Remove the build directory/);
  });
});

test("the chat bar shows this chat's agent and mode; tab titles stay readable with several chats", async () => {
  await wb.step("chat-bar", async () => {
    const tabs = f.locator(".tab-main");
    const n = await tabs.count();
    const first = await tabs.nth(n - 1).getAttribute("data-chat-id");
    await f.locator("#agent-select").selectOption("helper"); // picking another agent opens a chat with it
    await tabs.nth(n).waitFor({ timeout: 15_000 });
    const second = await tabs.nth(n).getAttribute("data-chat-id");
    await f.locator(`.tab.active .tab-main[data-chat-id="${second}"]`).waitFor({ timeout: 10_000 });
    assert.equal(await f.locator("#agent-select").inputValue(), "helper");
    await wb.until(async () => (await f.locator("#mode-select option").count()) > 0);
    await setMode("plan");
    await f.locator(`.tab-main[data-chat-id="${first}"]`).click();
    await f.locator(`.tab.active .tab-main[data-chat-id="${first}"]`).waitFor();
    assert.equal(await f.locator("#agent-select").inputValue(), "demo", "this chat's agent, not the last one picked");
    assert.equal(await f.locator("#mode-select").inputValue(), "default", "this chat's mode");
    await f.locator(`.tab-main[data-chat-id="${second}"]`).click();
    await f.locator(`.tab.active .tab-main[data-chat-id="${second}"]`).waitFor();
    assert.equal(await f.locator("#agent-select").inputValue(), "helper");
    assert.equal(await f.locator("#mode-select").inputValue(), "plan");
    // More chats than fit: the bar scrolls; no title is cut to "d…" (only a
    // title longer than 10em ends in an ellipsis, the whole one in its tooltip).
    for (let i = 0; i < 3; i++) {
      const k = await tabs.count();
      await f.getByRole("button", { name: "New chat" }).click();
      await tabs.nth(k).waitFor({ timeout: 15_000 });
    }
    const cut = await f.locator(".tab-title").evaluateAll((els) =>
      els
        .filter((e) => e.clientWidth + 1 < Math.min(e.scrollWidth, 10 * parseFloat(getComputedStyle(e).fontSize)))
        .map((e) => `${e.textContent}: ${e.clientWidth}px of ${e.scrollWidth}px`),
    );
    assert.deepEqual(cut, [], "tab titles cut short");
    const strip = await f.locator(".tabs").evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth }));
    assert.ok(strip.scroll > strip.client, `five chats overflow the side bar, and the strip scrolls: ${JSON.stringify(strip)}`);
    const active = await f.locator(".tab.active").evaluate((e) => {
      const t = e.getBoundingClientRect();
      const s = e.parentElement.getBoundingClientRect();
      return t.left >= s.left - 1 && t.right <= s.right + 1;
    });
    assert.ok(active, "the active tab is scrolled into view");
    await wb.shot("chat-bar");
  });
});

test("Bypass permissions when the settings cannot be written: an error with a choice, the bridge's file named, listed and revoked there, never a silent fallback", async () => {
  // acpBridge.agents is machine-scoped: a bypass goes to the remote machine's settings; break that file.
  const machine = join(wb.cs.root, "ud", "Machine", "settings.json");
  const original = readFileSync(machine, "utf8");
  const bridgeFile = join(wb.cs.home, ".config", "acp-bridge", "config.yaml");
  const stored = () => existsSync(bridgeFile) && /helper[\s\S]*bypassPermissions: true/.test(readFileSync(bridgeFile, "utf8"));
  try {
    await wb.step("bypass-persist-failed", async () => {
      f = await wb.chatFrame();
      if ((await f.locator("#agent-select").inputValue()) !== "helper") await f.locator("#agent-select").selectOption("helper");
      await f.locator('.tab.active .tab-main', { hasText: "helper" }).waitFor({ timeout: 15_000 });
      if ((await f.locator("#mode-select").inputValue()) !== "default") await setMode("default");
      writeFileSync(machine, original.replace("{", '{\n  "broken": ,'));
      const before = await allCards(f).count();
      await send(f, "only:test");
      const card = allCards(f).nth(before);
      await card.locator("button.opt").first().waitFor({ timeout: 30_000 });
      await card.locator(".more-options > summary").click();
      await card.getByRole("button", { name: "Bypass permissions for helper" }).click();
      await wb.page.locator(".quick-input-list .monaco-list-row", { hasText: "Bypass permissions for helper" }).click();
      const dialog = wb.page.locator(".monaco-dialog-box");
      await dialog.waitFor({ timeout: 20_000 });
      assert.match(await dialog.innerText(), /could not write Bypass permissions for helper/);
      assert.equal(stored(), false, "nothing stored while the person decides");
      await wb.shot("bypass-persist-failed");
      await dialog.getByRole("button", { name: "Store in the bridge's config file" }).click();
      await wb.page.locator(".notifications-toasts", { hasText: "config.yaml" }).first().waitFor({ timeout: 10_000 });
      assert.ok(await wb.until(stored), `bypass for helper is in ${bridgeFile}`);
      await card.locator(".outcome").waitFor({ timeout: 15_000 });
      await turnDone(f);
      await wb.runCommand("ACP Bridge: Manage Permission Rules");
      const row = wb.page.locator(".quick-input-list .monaco-list-row", { hasText: "bypass permissions: helper" }).first();
      await row.waitFor({ timeout: 10_000 });
      assert.match(await row.innerText(), /config\.yaml/, "listed with the file it is in");
      await row.click();
      const confirm = wb.page.locator(".monaco-dialog-box");
      await confirm.waitFor({ timeout: 10_000 });
      await confirm.getByRole("button", { name: "Revoke", exact: true }).click();
      assert.ok(await wb.until(async () => !stored()), "revoked from the bridge's file");
    });
  } finally {
    writeFileSync(machine, original);
  }
});

/** Sends text; the call asks (a card), and the person denies it. */
async function asksThenDeny(text) {
  const before = await allCards(f).count();
  await send(f, text);
  const card = allCards(f).nth(before);
  await card.locator("button.opt").first().waitFor({ timeout: 30_000 });
  await card.getByRole("button", { name: "Deny", exact: true }).click();
  await card.locator(".outcome").waitFor({ timeout: 15_000 });
  await turnDone(f);
}

/** Sends text; no card, and the tool card's verdict names the allow rule. */
async function allowedByRule(text, toolText, rule) {
  f = await wb.chatFrame();
  const cards = await allCards(f).count();
  await turn(text);
  assert.equal(await allCards(f).count(), cards, "the allow rule decides, no card");
  const tool = f.locator(".card.tool", { hasText: toolText }).last();
  // An allow verdict is in the card, folded away with its details: read its text, not what is painted.
  await tool.locator(".verdict.allow").waitFor({ state: "attached", timeout: 10_000 });
  assert.match(await tool.locator(".verdict.allow").textContent(), rule);
}

test("an .acp-bridge.yaml that appears in the trusted workspace (what an agent can create) waits for approval: its allow rule asks until this version is approved", async () => {
  const wsFile = join(wb.cs.ws, ".acp-bridge.yaml");
  const content = 'permissions:\n  allow: ["Bash(go test *)"]\n';
  const digest = "sha256:" + createHash("sha256").update(content).digest("hex");
  const pins = join(wb.cs.home, ".config", "acp-bridge", "approved-workspace-files.json");
  try {
    await wb.step("workspace-file-approval", async () => {
      f = await wb.chatFrame();
      if ((await f.locator("#mode-select").inputValue()) !== "default") await setMode("default");
      assert.match(readFileSync(pins, "utf8"), /"digest": "absent"/, "the first trusted start pinned that there was no file");
      writeFileSync(wsFile, content);
      const toast = wb.page.locator(".notifications-toasts .notification-toast", { hasText: "not the version approved" }).first();
      await toast.waitFor({ timeout: 20_000 });
      assert.match(await toast.innerText(), /permissions\.allow/);
      for (const name of ["Review File", "Approve This Version"]) await toast.getByRole("button", { name }).waitFor();
      await wb.shot("workspace-file-pending");
      // Not approved: the file's allow rule does not apply, the call asks.
      await asksThenDeny("only:test");
      // The command opens the file and asks in a modal; approving pins exactly this version.
      await wb.runCommand("ACP Bridge: Approve Workspace Settings");
      const dialog = wb.page.locator(".monaco-dialog-box");
      await dialog.waitFor({ timeout: 15_000 });
      assert.match(await dialog.innerText(), /Approve this version of .*\.acp-bridge\.yaml/);
      await wb.page.locator(".tab", { hasText: ".acp-bridge.yaml" }).first().waitFor({ timeout: 10_000 });
      await dialog.getByRole("button", { name: "Approve This Version" }).click();
      assert.ok(await wb.until(() => readFileSync(pins, "utf8").includes(digest)), `${digest} pinned in ${pins}`);
      await allowedByRule("only:test", "go test", /rule Bash\(go test \*\)/);
      await wb.shot("workspace-file-approved");
    });
  } finally {
    rmSync(wsFile, { force: true });
  }
});

test("acpBridge.* settings that appear in the trusted workspace's .vscode/settings.json wait for approval the same way", async () => {
  const vsDir = join(wb.cs.ws, ".vscode");
  const vsFile = join(vsDir, "settings.json");
  try {
    await wb.step("workspace-values-approval", async () => {
      f = await wb.chatFrame();
      if ((await f.locator("#mode-select").inputValue()) !== "default") await setMode("default");
      mkdirSync(vsDir, { recursive: true });
      writeFileSync(vsFile, JSON.stringify({ "acpBridge.permissions": { allow: ["Bash(go test *)"] } }, null, 2));
      const toast = wb.page.locator(".notifications-toasts .notification-toast", { hasText: "acpBridge.* settings (.vscode/settings.json) are not the version approved" }).first();
      await toast.waitFor({ timeout: 20_000 });
      for (const name of ["Review Settings", "Approve These Settings"]) await toast.getByRole("button", { name }).waitFor();
      await wb.shot("workspace-values-pending");
      await asksThenDeny("only:test");
      await wb.runCommand("ACP Bridge: Approve Workspace Settings");
      const dialog = wb.page.locator(".monaco-dialog-box");
      await dialog.waitFor({ timeout: 15_000 });
      assert.match(await dialog.innerText(), /Approve this workspace's acpBridge\.\* settings/);
      await dialog.getByRole("button", { name: "Approve These Settings" }).click();
      await allowedByRule("only:test", "go test", /rule Bash\(go test \*\)/);
    });
  } finally {
    rmSync(vsDir, { recursive: true, force: true });
  }
});

/**
 * A modal editor an earlier test left open ("Approve Workspace Settings" opens the settings file
 * in one) covers the workbench: close it.
 */
async function closeModalEditor() {
  const modal = wb.page.locator(".modal-editor-part");
  if (!(await modal.count()) || !(await modal.first().isVisible())) return;
  const close = modal.first().locator('.modal-editor-header [aria-label^="Close"], .modal-editor-header .codicon-close').first();
  if (await close.count()) await close.click().catch(() => {});
  else {
    await modal.first().click().catch(() => {});
    await wb.page.keyboard.press("Escape");
  }
  await modal.first().waitFor({ state: "hidden", timeout: 10_000 });
}

/** Focus in the editor area, not in a webview: the keys must work from anywhere in the window. */
async function focusEditorArea() {
  await wb.runCommand("View: Focus Active Editor Group");
  await wb.page.locator(".monaco-workbench").click({ position: { x: 900, y: 300 } }).catch(() => {});
  assert.notEqual(await wb.page.evaluate(() => document.activeElement?.tagName), "IFRAME", "focus is outside the chat webview");
}

/** The badge on the chat view's icon in the activity bar ("" when there is none). */
async function viewBadge() {
  const badge = wb.page.locator('.activitybar .action-item:has(a[aria-label^="ACP Bridge"]) .badge-content').first();
  if (!(await badge.count()) || !(await badge.isVisible())) return "";
  return (await badge.innerText()).trim();
}

/** Sends only:test in a new chat of agent; returns the approvalId of its card (the chat's id in chatOf). */
const chatOf = new Map();
async function cardInNewChat(agent) {
  f = await wb.chatFrame();
  const tabs = f.locator(".tab-main");
  const n = await tabs.count();
  // Picking another agent opens a chat with it; the same agent: the New chat button.
  if ((await f.locator("#agent-select").inputValue()) !== agent) await f.locator("#agent-select").selectOption(agent);
  else await f.getByRole("button", { name: "New chat" }).click();
  await tabs.nth(n).waitFor({ timeout: 15_000 });
  const id = await tabs.nth(n).getAttribute("data-chat-id");
  await f.locator(`.tab.active .tab-main[data-chat-id="${id}"]`).waitFor({ timeout: 10_000 });
  if ((await f.locator("#mode-select").inputValue()) !== "default") await setMode("default");
  const before = await allCards(f).count();
  await send(f, "only:test");
  const card = allCards(f).nth(before);
  await card.locator("button.opt").first().waitFor({ timeout: 30_000 });
  const approvalId = await card.getAttribute("data-approval-id");
  chatOf.set(approvalId, id);
  return approvalId;
}

/** The outcome line of a card, shown by switching to its chat's tab. */
async function outcomeOf(approvalId) {
  const chat = chatOf.get(approvalId);
  await f.locator(`.tab-main[data-chat-id="${chat}"]`).click();
  await f.locator(`.tab.active .tab-main[data-chat-id="${chat}"]`).waitFor({ timeout: 10_000 });
  const outcome = f.locator(`.card.approval[data-approval-id="${approvalId}"] .outcome`);
  await outcome.waitFor({ state: "attached", timeout: 15_000 });
  return (await outcome.textContent()).trim();
}

test("keys from anywhere in the window: Ctrl+Alt+Y allows the oldest card once, Ctrl+Alt+N denies the next; Ctrl+Alt+G and the status bar focus it; the view's icon counts them", async () => {
  await wb.step("keys-anywhere", async () => {
    await closeModalEditor();
    const first = await cardInNewChat("demo");
    const second = await cardInNewChat("helper");
    await wb.page.locator(".statusbar-item", { hasText: "2 approvals pending" }).waitFor({ timeout: 10_000 });
    assert.equal(await wb.until(async () => (await viewBadge()) === "2"), true, `the view's icon says 2 (got "${await viewBadge()}")`);
    await wb.shot("keys-badge");

    // Ctrl+Alt+Y with focus in the editor: the oldest card (the first chat's, not the one shown) is allowed once.
    await focusEditorArea();
    await wb.page.keyboard.press("Control+Alt+KeyY");
    await wb.page.locator(".statusbar-item", { hasText: "1 approval pending" }).waitFor({ timeout: 15_000 });
    assert.equal(await f.locator(`.card.approval.pending[data-approval-id="${second}"]`).count(), 1, "the newer card (shown) still waits");
    assert.equal(await wb.until(async () => (await viewBadge()) === "1"), true);
    assert.match(await outcomeOf(first), /^Allowed by you \(Allow once\)/);

    // The status-bar item (with the first chat shown): the second chat, scrolled to its card, with focus on its Allow once.
    await focusEditorArea();
    await wb.page.locator(".statusbar-item", { hasText: "1 approval pending" }).click();
    f = await wb.chatFrame();
    const focused = async () =>
      f.evaluate(() => {
        const a = document.activeElement;
        return `${a?.closest("[data-approval-id]")?.getAttribute("data-approval-id")} ${a?.getAttribute("data-option-id")}`;
      });
    assert.equal(await wb.until(async () => (await focused()) === `${second} acp-bridge:allow_once`), true, `focus on the card's Allow once (got ${await focused()})`);
    await wb.shot("keys-status-bar-focus");

    // Ctrl+Alt+N from the editor: denied, and nothing is pending any more.
    await focusEditorArea();
    await wb.page.keyboard.press("Control+Alt+KeyN");
    await wb.page.locator(".statusbar-item", { hasText: "approval" }).waitFor({ state: "hidden", timeout: 15_000 });
    assert.match(await outcomeOf(second), /^Denied by you \(Deny\)$/);
    assert.equal(await wb.until(async () => (await viewBadge()) === ""), true, "no badge with nothing pending");
    await turnDone(f);

    // Keyboard only: Ctrl+Alt+G goes to the card, Enter allows it once.
    const third = await cardInNewChat("demo");
    await focusEditorArea();
    await wb.page.keyboard.press("Control+Alt+KeyG");
    f = await wb.chatFrame();
    assert.equal(await wb.until(async () => (await focused()) === `${third} acp-bridge:allow_once`), true, `Ctrl+Alt+G focuses the card (got ${await focused()})`);
    await wb.page.keyboard.press("Enter");
    assert.match(await outcomeOf(third), /^Allowed by you \(Allow once\)/);
    await turnDone(f);
    // With nothing pending the keys do nothing (and never bypass: only Allow once and Deny are bound).
    await focusEditorArea();
    await wb.page.keyboard.press("Control+Alt+KeyY");
    assert.equal(await f.locator(".card.approval.pending").count(), 0);
  });
});

test("Always allow -> Workspace settings during a turn: VS Code writes .vscode/settings.json for the person, and the chat does not say the agent created it", async () => {
  const vsDir = join(wb.cs.ws, ".vscode");
  const vsFile = join(vsDir, "settings.json");
  rmSync(vsDir, { recursive: true, force: true });
  try {
    await wb.step("workspace-grant-not-agents", async () => {
      // A new chat: its session starts while .vscode/settings.json does not exist (the bridge watches it).
      const id = await cardInNewChat("demo");
      const card = f.locator(`.card.approval[data-approval-id="${id}"]`);
      await card.locator('[data-menu="allow"]').click(); // the compact card's allow scopes
      await card.locator(".scope-select").selectOption("workspace");
      await card.getByRole("button", { name: "Always allow", exact: true }).click();
      await card.locator(".outcome").waitFor({ state: "attached", timeout: 15_000 });
      await turnDone(f);
      assert.ok(await wb.until(() => existsSync(vsFile) && /acpBridge\.permissions/.test(readFileSync(vsFile, "utf8"))), `the grant is in ${vsFile}`);
      // The next turn (the rule allows it, no card) ends the watch's second chance to report it.
      const cards = await allCards(f).count();
      await turn("only:test");
      assert.equal(await allCards(f).count(), cards, "the stored rule allows it");
      const warned = f.locator(".notice", { hasText: "did not exist when this session started" });
      assert.equal(await warned.count(), 0, `no protectedCreated warning: ${await warned.allInnerTexts()}`);
      await wb.shot("workspace-grant-no-warning");
    });
  } finally {
    rmSync(vsDir, { recursive: true, force: true });
  }
});
