// The packaged extension in real VS Code (code-server 4.139.1), driven by
// playwright-core in Debian's headless Chromium, against the real acp-bridge
// binary bundled in the .vsix and its built-in demo agent.
//   VSIX=path/to.vsix node --test test/e2e/
// Screenshots of failures (and a few of the happy path) go to ../test-artifacts/.
// workbench.mjs starts code-server and Chromium and holds the helpers every
// e2e file shares; the names below are this file's short hands for them.
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { readSettings } from "./codeserver.mjs";
import { Workbench, allCards, log, pendingCards, send as promptAndWait, toolCardOf, turnDone } from "./workbench.mjs";

const wb = new Workbench({ name: "e2e" });
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
const chatFrame = (timeout) => wb.chatFrame(timeout);
const waitBridgeRunning = (f) => wb.waitBridgeRunning(f);
const bridgeOutput = async () => wb.bridgeOutput();

let frame;

test("open the chat and reach the bridge", async () => {
  await step("open", async () => {
    await runCommand("ACP Bridge: New Chat");
    frame = await chatFrame();
    await waitBridgeRunning(frame);
    await frame.locator(".tab").first().waitFor();
  });
});

test("Allow once: the tool call runs and completes", async () => {
  await step("allow-once", async () => {
    const before = await allCards(frame).count();
    await promptAndWait(frame, "only:test");
    const card = pendingCards(frame).first();
    await card.waitFor({ timeout: 30_000 });
    assert.equal(await allCards(frame).count(), before + 1);
    assert.match(await card.locator(".specifier").innerText(), /go test/);
    await page.locator(".statusbar-item", { hasText: "1 approval pending" }).waitFor({ timeout: 10_000 });
    await shot("card-pending");
    await card.getByRole("button", { name: "Allow once", exact: true }).click();
    const done = allCards(frame).nth(before);
    await done.locator(".outcome").waitFor({ timeout: 15_000 });
    assert.match(await done.locator(".outcome").innerText(), /Allow once/);
    const tool = await toolCardOf(frame, done);
    await frame.locator(`${await selectorOf(tool)}.status-completed`).waitFor({ timeout: 30_000 });
    await turnDone(frame);
    await page.locator(".statusbar-item", { hasText: "approval pending" }).waitFor({ state: "hidden", timeout: 10_000 });
    await shot("allowed-once");
  });
});

async function selectorOf(tool) {
  const id = await tool.getAttribute("data-tool-call-id");
  return `.card.tool[data-tool-call-id="${id}"]`;
}

test("Deny: the tool call is rejected", async () => {
  await step("deny", async () => {
    const before = await allCards(frame).count();
    await promptAndWait(frame, "only:test");
    const card = allCards(frame).nth(before);
    await card.locator("button.opt").first().waitFor({ timeout: 30_000 });
    await card.getByRole("button", { name: "Deny", exact: true }).click();
    await card.locator(".outcome").waitFor({ timeout: 15_000 });
    assert.match(await card.locator(".outcome").innerText(), /^Denied by you \(Deny\)$/);
    await turnDone(frame);
    const tool = await toolCardOf(frame, card);
    const cls = (await tool.getAttribute("class")) ?? "";
    assert.doesNotMatch(cls, /status-completed/, `denied tool call must not complete (${cls})`);
    assert.match(await tool.locator(".verdict").innerText(), /Denied by you/, "the tool card names who decided");
    await shot("denied");
  });
});

test("Always allow: the rule lands in settings.json and the next identical call needs no card", async () => {
  await step("always-allow", async () => {
    const before = await allCards(frame).count();
    await promptAndWait(frame, "only:test");
    const card = allCards(frame).nth(before);
    await card.locator("button.opt").first().waitFor({ timeout: 30_000 });
    await card.locator('[data-menu="allow"]').click(); // the compact card's allow scopes
    const rule = await card.locator(".rule-input").inputValue();
    assert.match(rule, /^Bash\(.*go test.*\)$/, `suggested rule: ${rule}`);
    await card.getByRole("button", { name: "Always allow", exact: true }).click();
    await card.locator(".outcome").waitFor({ timeout: 15_000 });
    const tool = await toolCardOf(frame, card);
    await frame.locator(`${await selectorOf(tool)}.status-completed`).waitFor({ timeout: 30_000 });
    await turnDone(frame);
    // The bridge asked us (settings/persist) to store the rule in user settings.
    const deadline = Date.now() + 15_000;
    let allow = [];
    for (;;) {
      try {
        allow = readSettings(cs.settingsPath)["acpBridge.permissions"]?.allow ?? [];
      } catch {
        /* caught VS Code mid-write: read again */
      }
      if (allow.includes(rule) || Date.now() > deadline) break;
      await page.waitForTimeout(200);
    }
    assert.ok(allow.includes(rule), `settings.json acpBridge.permissions.allow = ${JSON.stringify(allow)}, want ${rule}`);
    // The same call again: no card, a quiet "allowed by rule" line instead.
    const quietBefore = await frame.locator(".notice.quiet", { hasText: "allowed by rule" }).count();
    await promptAndWait(frame, "only:test");
    await frame.locator(".notice.quiet", { hasText: "allowed by rule" }).nth(quietBefore).waitFor({ timeout: 30_000 });
    await turnDone(frame);
    assert.equal(await allCards(frame).count(), before + 1, "no new approval card");
    await shot("always-allowed");
  });
});

test("mode dropdown: session/set_mode reaches the bridge", async () => {
  await step("set-mode", async () => {
    await frame.locator("#mode-select").selectOption("plan");
    await frame.locator(".notice.quiet", { hasText: "Mode: plan" }).waitFor({ timeout: 10_000 });
    assert.equal(await frame.locator(".notice.error").count(), 0);
    await frame.locator("#mode-select").selectOption("default");
    await frame.locator(".notice.quiet", { hasText: "Mode: default" }).waitFor({ timeout: 10_000 });
  });
});

test("commands: Manage Permission Rules lists and revokes the stored rule; Show Raw Audit Log opens the bridge's log", async () => {
  await step("commands", async () => {
    await runCommand("ACP Bridge: Manage Permission Rules");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "allow Bash(go test" }).first().waitFor({ timeout: 10_000 });
    await shot("manage-rules");
    await page.keyboard.press("Enter"); // the rule row is the first: revoke it
    const dialog = page.locator(".monaco-dialog-box");
    await dialog.waitFor({ timeout: 10_000 });
    assert.match(await dialog.innerText(), /Revoke allow Bash\(go test/);
    await dialog.getByRole("button", { name: "Revoke", exact: true }).click();
    const deadline = Date.now() + 10_000;
    let allow = ["?"];
    while (Date.now() < deadline) {
      try {
        allow = readSettings(cs.settingsPath)["acpBridge.permissions"]?.allow ?? [];
      } catch {
        /* mid-write */
      }
      if (allow.length === 0) break;
      await page.waitForTimeout(200);
    }
    assert.deepEqual(allow, [], "the rule was removed from settings.json");
    await runCommand("ACP Bridge: Show Raw Audit Log (JSON lines)");
    await page.locator(".tabs-container .tab", { hasText: "audit.jsonl" }).waitFor({ timeout: 10_000 });
    await page.locator(".view-lines", { hasText: "go test" }).first().waitFor({ timeout: 10_000 });
  });
});

test("two chats at once, each its own session, each card resolving on its own", async () => {
  await step("two-chats", async () => {
    const tabs = frame.locator(".tab-main");
    const n = await tabs.count();
    await frame.getByRole("button", { name: "New chat" }).click();
    await tabs.nth(n).waitFor({ timeout: 15_000 });
    const second = await tabs.nth(n).getAttribute("data-chat-id");
    const first = await tabs.nth(n - 1).getAttribute("data-chat-id");
    await promptAndWait(frame, "second chat: the whole demo");
    await pendingCards(frame).first().waitFor({ timeout: 30_000 });
    await frame.locator(`.tab-main[data-chat-id="${first}"]`).click();
    await frame.locator('.tab.active .tab-main[data-chat-id="' + first + '"]').waitFor();
    await promptAndWait(frame, "first chat: the whole demo");
    await pendingCards(frame).first().waitFor({ timeout: 30_000 });
    await page.locator(".statusbar-item", { hasText: "2 approvals pending" }).waitFor({ timeout: 10_000 });
    assert.equal(await frame.locator(`.tab-main[data-chat-id="${second}"] .badge`).innerText(), "1");
    await shot("two-chats");
    const card = pendingCards(frame).first();
    const id = await card.getAttribute("data-approval-id");
    await card.getByRole("button", { name: "Deny", exact: true }).click();
    await frame.locator(`.card.approval[data-approval-id="${id}"] .outcome`).waitFor({ timeout: 15_000 });
    // The other chat's card is untouched.
    assert.equal(await frame.locator(`.tab-main[data-chat-id="${second}"] .badge`).innerText(), "1");
    await frame.locator("#stop-btn").click();
    await turnDone(frame);
    await frame.locator(`.tab-main[data-chat-id="${second}"]`).click();
    await frame.locator('.tab.active .tab-main[data-chat-id="' + second + '"]').waitFor();
    assert.equal(await pendingCards(frame).count(), 1);
    await frame.locator("#stop-btn").click();
    await turnDone(frame);
    assert.equal(await pendingCards(frame).count(), 0);
    await page.locator(".statusbar-item", { hasText: "approval" }).waitFor({ state: "hidden", timeout: 10_000 });
  });
});

test("chat hidden: a notification with Allow answers through approvals/respond", async () => {
  await step("notify", async () => {
    await runCommand("ACP Bridge: Show Pending Approvals"); // brings the chat back into view
    frame = await chatFrame();
    const before = await allCards(frame).count();
    await frame.locator("#composer-input").fill("hello again, the whole demo");
    await frame.locator("#composer-input").press("Enter");
    // Another view takes the side bar before the card arrives: the chat is hidden.
    await page.locator('.activitybar .action-item a[aria-label^="Explorer"]').click();
    const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "demo asks" }).first();
    await toast.waitFor({ timeout: 30_000 });
    await shot("notification");
    await toast.getByRole("button", { name: "Allow", exact: true }).click();
    // The item, not its icon: the pending count's badge sits over the icon.
    await page.locator('.activitybar .action-item:has(a[aria-label^="ACP Bridge"])').click();
    frame = await chatFrame();
    const card = allCards(frame).nth(before);
    await card.locator(".outcome").waitFor({ timeout: 15_000 });
    assert.match(await card.locator(".outcome").innerText(), /Allow once/);
    // The demo goes on asking; stop the turn.
    await frame.locator("#stop-btn").click().catch(() => {});
    await turnDone(frame);
  });
});

test("a pending card survives the view being hidden and the webview reloaded; cancelling the turn expires it", async () => {
  await step("cancel", async () => {
    await promptAndWait(frame, "hello, please do the whole demo");
    await pendingCards(frame).first().waitFor({ timeout: 30_000 });
    const id = await pendingCards(frame).first().getAttribute("data-approval-id");
    // Hide the chat (another view takes the side bar: the webview is disposed), then bring it back.
    await runCommand("View: Show Explorer");
    await page.locator(".explorer-folders-view, .explorer-viewlet").first().waitFor({ timeout: 10_000 });
    await runCommand("ACP Bridge: Show Pending Approvals");
    frame = await chatFrame();
    let card = frame.locator(`.card.approval[data-approval-id="${id}"]`);
    await card.locator("button.opt").first().waitFor({ timeout: 20_000 });
    // Reload the webview itself.
    await runCommand("Developer: Reload Webviews");
    await page.waitForTimeout(1500); // the old frame detaches a little after the command returns
    frame = await chatFrame();
    card = frame.locator(`.card.approval[data-approval-id="${id}"]`);
    await card.locator("button.opt").first().waitFor({ timeout: 20_000 });
    await shot("after-reload");
    await frame.locator("#stop-btn").click();
    await card.locator(".outcome").waitFor({ timeout: 15_000 });
    assert.match(await card.locator(".outcome").innerText(), /Cancelled: the turn was cancelled/);
    await turnDone(frame);
    assert.equal(await pendingCards(frame).count(), 0);
    await shot("cancelled");
  });
});


test("a malformed rule is refused on the card before anything is saved", async () => {
  await step("bad-rule", async () => {
    frame = await chatFrame(); // a frame from before a webview reload may be detached
    const before = await allCards(frame).count();
    await promptAndWait(frame, "only:test");
    const card = allCards(frame).nth(before);
    await card.locator("button.opt").first().waitFor({ timeout: 30_000 });
    await card.locator('[data-menu="allow"]').click(); // the compact card's allow scopes
    await card.locator(".rule-input").fill("Bash(rm -rf build");
    await card.getByRole("button", { name: "Always allow", exact: true }).click();
    await card.locator(".card-error", { hasText: "not a valid rule" }).waitFor({ timeout: 10_000 });
    assert.equal(await card.locator(".outcome").count(), 0, "the card stays open");
    const allow = readSettings(cs.settingsPath)["acpBridge.permissions"]?.allow ?? [];
    assert.ok(!allow.includes("Bash(rm -rf build"), "nothing saved");
    await shot("bad-rule");
    await card.getByRole("button", { name: "Deny", exact: true }).click();
    await card.locator(".outcome").waitFor({ timeout: 15_000 });
    await turnDone(frame);
  });
});

test("settings.json cannot be written: an error with a choice, the bridge's file named, listed and revoked in Manage Permission Rules", async () => {
  const original = readFileSync(cs.settingsPath, "utf8");
  const bridgeFile = join(cs.home, ".config", "acp-bridge", "config.yaml");
  const rule = "Bash(go test ./nowhere/...)";
  try {
    await step("settings-broken", async () => {
    frame = await chatFrame(); // a frame from before a webview reload may be detached
      writeFileSync(cs.settingsPath, original.replace("{", '{\n  "broken": ,'));
      const before = await allCards(frame).count();
      await promptAndWait(frame, "only:test");
      const card = allCards(frame).nth(before);
      await card.locator("button.opt").first().waitFor({ timeout: 30_000 });
      await card.locator('[data-menu="allow"]').click(); // the compact card's allow scopes
      await card.locator(".rule-input").fill(rule);
      await card.getByRole("button", { name: "Always allow", exact: true }).click();
      const dialog = page.locator(".monaco-dialog-box");
      await dialog.waitFor({ timeout: 20_000 });
      assert.match(await dialog.innerText(), /could not write Always allow/);
      await shot("persist-failed");
      assert.equal(existsSync(bridgeFile) && readFileSync(bridgeFile, "utf8").includes(rule), false, "no silent fallback while the person decides");
      await dialog.getByRole("button", { name: "Store in the bridge's config file" }).click();
      await page.locator(".notifications-toasts", { hasText: "config.yaml" }).first().waitFor({ timeout: 10_000 });
      const deadline = Date.now() + 10_000;
      while (!(existsSync(bridgeFile) && readFileSync(bridgeFile, "utf8").includes(rule)) && Date.now() < deadline) await page.waitForTimeout(200);
      assert.ok(readFileSync(bridgeFile, "utf8").includes(rule), `the rule is in ${bridgeFile}`);
      await turnDone(frame);
      // Listed with its source, and revocable there.
      await runCommand("ACP Bridge: Manage Permission Rules");
      const row = page.locator(".quick-input-list .monaco-list-row", { hasText: "nowhere" }).first();
      await row.waitFor({ timeout: 10_000 });
      assert.match(await row.innerText(), /config\.yaml/);
      await shot("manage-rules-bridge-file");
      await row.click();
      const confirm = page.locator(".monaco-dialog-box");
      await confirm.waitFor({ timeout: 10_000 });
      await confirm.getByRole("button", { name: "Revoke", exact: true }).click();
      const deadline2 = Date.now() + 10_000;
      while (readFileSync(bridgeFile, "utf8").includes(rule) && Date.now() < deadline2) await page.waitForTimeout(200);
      assert.ok(!readFileSync(bridgeFile, "utf8").includes(rule), "revoked from the bridge's file");
    });
  } finally {
    writeFileSync(cs.settingsPath, original);
    // VS Code keeps a model of settings.json; after our external writes a later settings
    // write can land in that stale model only. A window reload starts from the disk again
    // (and a new extension host: no chats, which the next test wants).
    await runCommand("Developer: Reload Window");
    await page.waitForTimeout(2000);
    await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
  }
});

test("no chat open: the typed message opens a chat with the picked agent and is sent", async () => {
  await step("no-chat", async () => {
    await runCommand("ACP Bridge: Show Pending Approvals"); // reveals the view without opening a chat
    frame = await chatFrame(60_000);
    await waitBridgeRunning(frame);
    while ((await frame.locator(".tab-close").count()) > 0) {
      const n = await frame.locator(".tab-close").count();
      await frame.locator(".tab-close").first().click();
      const deadline = Date.now() + 10_000;
      while ((await frame.locator(".tab-close").count()) === n && Date.now() < deadline) await page.waitForTimeout(100);
    }
    assert.equal(await frame.locator(".tab").count(), 0);
    await frame.locator("#composer-input").fill("only:test");
    await frame.locator("#composer-input").press("Enter");
    await frame.locator(".tab").first().waitFor({ timeout: 15_000 });
    await frame.locator(".msg.user", { hasText: "only:test" }).waitFor({ timeout: 10_000 });
    const card = pendingCards(frame).first();
    await card.waitFor({ timeout: 30_000 });
    await shot("no-chat-sent");
    await card.getByRole("button", { name: "Deny", exact: true }).click();
    await turnDone(frame);
  });
});

test("a missing agent: one message with the install hint", async () => {
  await step("missing-agent", async () => {
    frame = await chatFrame(); // a frame from before a webview reload may be detached
    await frame.locator("#agent-select").selectOption("gemini");
    const notice = frame.locator(".notice.error", { hasText: "is not installed" });
    await notice.first().waitFor({ timeout: 30_000 });
    assert.match(await notice.first().innerText(), /npm install -g @google\/gemini-cli/);
    await promptAndWait(frame, "hello");
    await turnDone(frame);
    assert.equal(await notice.count(), 1, "once, not once per try");
    assert.equal(await frame.locator(".transcript", { hasText: "executable file not found" }).count(), 0);
    await shot("missing-agent");
    await frame.locator(".tab.active .tab-close").click();
    await frame.locator(".tab.active .tab-main", { hasText: "demo" }).waitFor({ timeout: 10_000 });
  });
});

test("Bypass permissions for demo: Cancel is the default, a deliberate pick stores it, the chat shows it at once, new chats start in bypass", async () => {
  await step("bypass", async () => {
    frame = await chatFrame(); // a frame from before a webview reload may be detached
    const before = await allCards(frame).count();
    await promptAndWait(frame, "the whole demo once more");
    const card = allCards(frame).nth(before);
    await card.locator("button.opt").first().waitFor({ timeout: 30_000 });
    await card.locator(".more-options > summary").click();
    await card.getByRole("button", { name: "Bypass permissions for demo" }).click();
    const picker = page.locator(".quick-input-widget");
    await picker.locator(".quick-input-title", { hasText: "Bypass permissions for demo?" }).waitFor({ timeout: 10_000 });
    await shot("bypass-confirm");
    await page.keyboard.press("Enter"); // the focused entry is Cancel
    await picker.waitFor({ state: "hidden", timeout: 10_000 });
    await page.waitForTimeout(500);
    assert.equal(await card.locator(".outcome").count(), 0, "Enter cancelled: the card is still open");
    assert.notEqual(readSettings(cs.settingsPath)["acpBridge.agents"]?.demo?.bypassPermissions, true);
    const machineFile = join(cs.root, "ud", "Machine", "settings.json");
    assert.notEqual(existsSync(machineFile) ? readSettings(machineFile)["acpBridge.agents"]?.demo?.bypassPermissions : undefined, true, "nothing stored after Cancel");
    await card.getByRole("button", { name: "Bypass permissions for demo" }).click();
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Bypass permissions for demo" }).click();
    await card.locator(".outcome").waitFor({ timeout: 15_000 });
    // This chat shows the bypass at once (from the bridge's approval/resolved), not "Default (ask)".
    // (Once the grant is in the settings the bridge reports the chat's mode as bypassPermissions: "… on for this chat".)
    await frame.locator(".banner", { hasText: /Bypass permissions is on for (demo|this chat)/ }).waitFor({ timeout: 10_000 });
    await page.locator(".notifications-toasts", { hasText: "Bypass permissions for demo is stored in the remote machine's settings" }).first().waitFor({ timeout: 10_000 });
    log(`toast: ${await page.locator(".notifications-toasts").innerText().catch(() => "")}`);
    const deadline = Date.now() + 15_000;
    let demo;
    for (;;) {
      try {
        // acpBridge.agents is machine-scoped: in code-server (a remote) VS Code writes it to the remote
        // machine's settings (ud/Machine/settings.json), not the browser's user settings.
        const machine = join(cs.root, "ud", "Machine", "settings.json");
        demo = readSettings(cs.settingsPath)["acpBridge.agents"]?.demo ?? (existsSync(machine) ? readSettings(machine)["acpBridge.agents"]?.demo : undefined);
      } catch {
        /* mid-write */
      }
      if (demo?.bypassPermissions === true || Date.now() > deadline) break;
      await page.waitForTimeout(200);
    }
    if (demo?.bypassPermissions !== true) {
      log(`settings.json:\n${readFileSync(cs.settingsPath, "utf8")}`);
      const bf = join(cs.home, ".config", "acp-bridge", "config.yaml");
      log(`${bf}:\n${existsSync(bf) ? readFileSync(bf, "utf8") : "(none)"}`);
      log(`toasts: ${await page.locator(".notifications-toasts").innerText().catch(() => "")}`);
    }
    assert.equal(demo?.bypassPermissions, true, `acpBridge.agents.demo = ${JSON.stringify(demo)}`);
    await frame.locator("#stop-btn").click().catch(() => {});
    await turnDone(frame);
    await frame.getByRole("button", { name: "New chat" }).click();
    await frame.locator("#mode-select").locator('option[value="bypassPermissions"]').waitFor({ state: "attached" });
    const deadline2 = Date.now() + 10_000;
    while ((await frame.locator("#mode-select").inputValue()) !== "bypassPermissions" && Date.now() < deadline2) await page.waitForTimeout(200);
    assert.equal(await frame.locator("#mode-select").inputValue(), "bypassPermissions");
    assert.match(await frame.locator(".banner").innerText(), /Bypass permissions is on/);
    await shot("bypass-chat");
  });
});

test("the bridge's stderr reached the ACP Bridge output channel", async () => {
  const out = await bridgeOutput();
  if (!out) log("no ACP Bridge log file found under the profile (the Output channel is not always persisted)");
  else assert.match(out, /starting .*acp-bridge/);
});

/** Every chat tab, one after the other: none shows a bypass banner or the bypassPermissions mode; back to the tab that was active. */
async function noBypassShown(why) {
  frame = await chatFrame();
  const active = await frame.locator(".tab.active .tab-main").getAttribute("data-chat-id");
  const ids = await frame.locator(".tab-main").evaluateAll((els) => els.map((e) => e.getAttribute("data-chat-id")));
  for (const id of ids) {
    await frame.locator(`.tab-main[data-chat-id="${id}"]`).click();
    await frame.locator(`.tab.active .tab-main[data-chat-id="${id}"]`).waitFor({ timeout: 10_000 });
    const banner = frame.locator(".banner", { hasText: "Bypass permissions is on" });
    await banner.waitFor({ state: "hidden", timeout: 10_000 }).catch(() => {});
    assert.equal(await banner.count(), 0, `${why}: chat ${id} still says "${await banner.allInnerTexts()}"`);
    assert.notEqual(await frame.locator("#mode-select").inputValue(), "bypassPermissions", `${why}: chat ${id} is shown in bypassPermissions`);
  }
  await frame.locator(`.tab-main[data-chat-id="${active}"]`).click();
}

test("bypass revoked in Manage Permission Rules: every banner goes at once and stays gone through a mode change, Restart Bridge and a window reload", async () => {
  await step("bypass-revoked", async () => {
    frame = await chatFrame();
    // From the test above: the chat where bypass was chosen and a new chat in bypassPermissions.
    await frame.locator(".banner", { hasText: "Bypass permissions is on" }).waitFor({ timeout: 10_000 });
    await runCommand("ACP Bridge: Manage Permission Rules");
    const row = page.locator(".quick-input-list .monaco-list-row", { hasText: "bypass permissions: demo" }).first();
    await row.waitFor({ timeout: 10_000 });
    await row.click();
    const dialog = page.locator(".monaco-dialog-box");
    await dialog.waitFor({ timeout: 10_000 });
    await dialog.getByRole("button", { name: "Revoke", exact: true }).click();
    const machine = join(cs.root, "ud", "Machine", "settings.json");
    const stored = () => {
      try {
        return [cs.settingsPath, machine].some((p) => existsSync(p) && readSettings(p)["acpBridge.agents"]?.demo?.bypassPermissions === true);
      } catch {
        return true; // mid-write
      }
    };
    assert.equal(await wb.until(async () => !stored()), true, "bypass gone from the settings");
    // At once: the banner of this chat (bypassPermissions, the agent's mode then) and of the other.
    await frame.locator(".banner", { hasText: "Bypass permissions is on" }).waitFor({ state: "hidden", timeout: 10_000 });
    await noBypassShown("after the revoke");
    // The bridge agrees: the next call asks.
    const before = await allCards(frame).count();
    await promptAndWait(frame, "only:test");
    const card = allCards(frame).nth(before);
    await card.locator("button.opt").first().waitFor({ timeout: 30_000 });
    await card.getByRole("button", { name: "Deny", exact: true }).click();
    await card.locator(".outcome").waitFor({ timeout: 15_000 });
    await turnDone(frame);
    // A mode change brings nothing back.
    for (const mode of ["acceptEdits", "default"]) {
      const n = await frame.locator(".notice.quiet", { hasText: `Mode: ${mode}` }).count();
      await frame.locator("#mode-select").selectOption(mode);
      await frame.locator(".notice.quiet", { hasText: `Mode: ${mode}` }).nth(n).waitFor({ timeout: 10_000 });
    }
    await noBypassShown("after a mode change");
    // Restart Bridge (no turn runs: no question).
    const restarted = await frame.locator(".notice", { hasText: "The bridge was restarted" }).count();
    await runCommand("ACP Bridge: Restart Bridge");
    await frame.locator(".notice", { hasText: "The bridge was restarted" }).nth(restarted).waitFor({ timeout: 30_000 });
    await waitBridgeRunning(frame);
    await noBypassShown("after Restart Bridge");
    // A window reload.
    await runCommand("Developer: Reload Window");
    await page.waitForTimeout(2000); // the old workbench goes away a little after the command
    await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
    frame = await chatFrame(90_000).catch(async () => openChatView());
    await waitBridgeRunning(frame);
    await noBypassShown("after a window reload");
    await shot("bypass-revoked");
  });
});



// ---- chats that last (issue 13, point 2) ----------------------------------------

/** Opens the chat view (activating the extension if needed) and waits for the bridge. */
async function openChatView() {
  await runCommand("ACP Bridge: Show Pending Approvals"); // reveals the view without opening a chat
  frame = await chatFrame(60_000);
  await waitBridgeRunning(frame);
  return frame;
}

/**
 * An earlier test may have stored "Bypass permissions" for demo (it wins over a chat's
 * mode): take it out of settings.json so that demo asks again.
 */
async function demoAsks() {
  // acpBridge.agents is machine-scoped: in code-server it lands in the remote machine's settings.
  for (const file of [cs.settingsPath, join(cs.root, "ud", "Machine", "settings.json")]) {
    if (!existsSync(file)) continue;
    const s = readSettings(file);
    const demo = s["acpBridge.agents"]?.demo;
    if (!demo?.bypassPermissions) continue;
    delete demo.bypassPermissions;
    writeFileSync(file, JSON.stringify(s, null, 2));
    log(`removed demo's bypassPermissions from ${file}`);
    await page.waitForTimeout(2000); // VS Code reads the file, the extension sends the settings
  }
}

/** A new chat from the view's own button; waits until its tab is the active one. */
async function newChatTab() {
  await demoAsks();
  const tabs = frame.locator(".tab-main");
  const n = await tabs.count();
  await frame.getByRole("button", { name: "New chat" }).click();
  await tabs.nth(n).waitFor({ timeout: 15_000 });
  const id = await tabs.nth(n).getAttribute("data-chat-id");
  await frame.locator(`.tab.active .tab-main[data-chat-id="${id}"]`).waitFor({ timeout: 10_000 });
  // The chat asks in mode default.
  const mode = frame.locator("#mode-select");
  if ((await mode.inputValue()) !== "default") {
    await mode.selectOption("default");
    const deadline = Date.now() + 10_000;
    while ((await mode.inputValue()) !== "default" && Date.now() < deadline) await page.waitForTimeout(100);
    assert.equal(await mode.inputValue(), "default");
  }
  await frame.locator(".banner", { hasText: "Bypass permissions is on" }).waitFor({ state: "hidden", timeout: 15_000 });
  return id;
}

async function waitFile(path, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} never appeared`);
    await page.waitForTimeout(200);
  }
}

test("a window reload keeps the chat, its history and its pending card; Allow then writes the file", async () => {
  await step("reload-window", async () => {
    await openChatView();
    await newChatTab();
    const target = join(cs.ws, "demo-write.txt");
    rmSync(target, { force: true });
    await promptAndWait(frame, "reload test only:write");
    const card = pendingCards(frame).first();
    await card.waitFor({ timeout: 30_000 });
    const id = await card.getAttribute("data-approval-id");
    assert.ok(id);
    await frame.locator(".msg.agent", { hasText: "Write demo-write.txt" }).first().waitFor({ timeout: 10_000 });
    const tabs = await frame.locator(".tab").count();
    assert.ok(!existsSync(target), "nothing is written before Allow");
    await shot("before-window-reload");

    await runCommand("Developer: Reload Window");
    await page.waitForTimeout(2000); // the old workbench goes away a little after the command
    await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
    frame = await chatFrame(90_000).catch(async () => openChatView());
    await waitBridgeRunning(frame);
    const back = frame.locator(`.card.approval[data-approval-id="${id}"]`);
    await back.getByRole("button", { name: "Allow once", exact: true }).waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator(".tab").count(), tabs, "every chat tab is back");
    await frame.locator(".msg.user", { hasText: "reload test only:write" }).waitFor({ timeout: 10_000 });
    await frame.locator(".msg.agent", { hasText: "Write demo-write.txt" }).first().waitFor({ timeout: 10_000 });
    await shot("after-window-reload");
    await back.getByRole("button", { name: "Allow once", exact: true }).click();
    await back.locator(".outcome").waitFor({ timeout: 15_000 });
    assert.match(await back.locator(".outcome").innerText(), /Allow once/);
    await waitFile(target);
    assert.equal(readFileSync(target, "utf8"), "written by the acp-bridge demo agent\n");
    await turnDone(frame);
    await shot("reload-allowed");
  });
});

test("Restart Bridge with a turn running asks first; after it the old cards keep their state and new ones do not overwrite them", async () => {
  await step("restart-asks", async () => {
    frame = await chatFrame(5000).catch(() => openChatView());
    await waitBridgeRunning(frame);
    await newChatTab();
    await promptAndWait(frame, "restart test only:write");
    const card = pendingCards(frame).first();
    await card.waitFor({ timeout: 30_000 });
    const title = (await frame.locator(".tab.active .tab-main").innerText()).trim();
    const oldId = await card.getAttribute("data-approval-id");
    const oldTool = frame.locator(".card.tool").last();
    const oldToolItem = await oldTool.evaluate((el) => el.closest("[data-item-id]")?.getAttribute("data-item-id"));
    assert.match(oldToolItem ?? "", /^tool:.+:toolu_demo_01$/, "the tool card's id names its session");

    // Asked first; Escape (and so the default) keeps the bridge and the turn.
    await runCommand("ACP Bridge: Restart Bridge");
    let dialog = page.locator(".monaco-dialog-box");
    await dialog.waitFor({ timeout: 10_000 });
    assert.match(await dialog.innerText(), /A turn is running/);
    assert.ok((await dialog.innerText()).includes(title.replace(/…$/, "")) || (await dialog.innerText()).includes("restart test"), "the dialog names the chat");
    await shot("restart-asks");
    assert.match(await dialog.innerText(), /Keep Them Running/);
    await page.keyboard.press("Enter"); // the default button restarts nothing
    await dialog.waitFor({ state: "hidden", timeout: 10_000 });
    await page.waitForTimeout(1000);
    assert.equal(await frame.locator(`.card.approval.pending[data-approval-id="${oldId}"]`).count(), 1, "Enter did not restart");
    assert.doesNotMatch(await bridgeOutput(), /restarting the bridge: restart requested/);

    await runCommand("ACP Bridge: Restart Bridge");
    dialog = page.locator(".monaco-dialog-box");
    await dialog.waitFor({ timeout: 10_000 });
    await dialog.getByRole("button", { name: "Restart and Stop Them" }).click();
    const old = frame.locator(`.card.approval[data-approval-id="${oldId}"]`);
    await old.locator(".outcome").waitFor({ timeout: 30_000 });
    // Closed, never left pending: "Stop Them" cancels the turn first, so the card may close as cancelled
    // (the turn's cancel reached the bridge before its shutdown: seen in a CI rehearsal) or as expired.
    assert.match(await old.locator(".outcome").innerText(), /bridge shut down|Expired|^Cancelled/);
    const oldToolEl = frame.locator(`[data-item-id="${oldToolItem}"]`);
    // Likewise the tool card: expired with the session, or cancelled with the turn (never pending).
    await frame
      .locator(`[data-item-id="${oldToolItem}"]:is(.status-expired, .status-cancelled), [data-item-id="${oldToolItem}"] :is(.status-expired, .status-cancelled)`)
      .first()
      .waitFor({ timeout: 15_000 });
    await frame.locator(".notice", { hasText: "The bridge was restarted" }).first().waitFor({ timeout: 10_000 });
    await waitBridgeRunning(frame);
    assert.equal(await frame.locator(".transcript", { hasText: "context canceled" }).count(), 0);

    // A new turn in a new session: its toolu_demo_01 is a new card.
    const toolsBefore = await frame.locator(".card.tool").count();
    await promptAndWait(frame, "after restart only:write");
    const fresh = pendingCards(frame).first();
    await fresh.waitFor({ timeout: 30_000 });
    await fresh.getByRole("button", { name: "Allow once", exact: true }).click();
    await turnDone(frame);
    assert.equal(await frame.locator(".card.tool").count(), toolsBefore + 1, "the new tool call is a card of its own");
    const newTool = frame.locator(".card.tool").last();
    const newItem = await newTool.evaluate((el) => el.closest("[data-item-id]")?.getAttribute("data-item-id"));
    assert.notEqual(newItem, oldToolItem);
    assert.match(newItem ?? "", /:toolu_demo_01$/);
    await frame.locator(`[data-item-id="${newItem}"].status-completed, [data-item-id="${newItem}"] .status-completed`).first().waitFor({ timeout: 15_000 });
    assert.match(await oldToolEl.innerText(), /expired|cancelled/i, "the old card keeps its state");
    assert.equal(await frame.locator(`.card.approval.pending[data-approval-id="${oldId}"]`).count(), 0);
    await shot("restart-after");
  });
});
