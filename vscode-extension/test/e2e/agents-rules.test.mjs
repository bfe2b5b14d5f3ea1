// Agents from a list, the rules editor and a compact card answered by
// keyboard, in real VS Code (code-server + headless Chromium) against the real
// acp-bridge of the .vsix (issue 19, items 4-6 and the editor's part of 8).
//   VSIX=path/to.vsix node --test test/e2e/agents-rules.test.mjs
// A fake "qwen" program on PATH (it runs the bundled demo agent) makes the
// Qwen Code preset installed; Gemini CLI is not installed here.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Workbench, allCards, send, toolCardOf, turnDone } from "./workbench.mjs";

const demo = { command: "${bridge}", args: ["demo-agent"] };
const bin = mkdtempSync(join(os.tmpdir(), "acpb-fakebin-"));
process.env.PATH = `${bin}:${process.env.PATH}`; // code-server, its extension host and the bridge inherit it

/** The acp-bridge binary of the installed extension. */
function bundledBridge(root) {
  const walk = (d, depth) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (e === "acp-bridge" && statSync(p).isFile()) return p;
      if (depth > 0 && statSync(p).isDirectory()) {
        const r = walk(p, depth - 1);
        if (r) return r;
      }
    }
    return undefined;
  };
  return walk(join(root, "exts"), 4);
}

const wb = new Workbench({
  name: "agents-rules",
  settings: { "acpBridge.defaultAgent": "demo", "acpBridge.permissions": { deny: ["Bash(rm *)"] } },
  machineSettings: { "acpBridge.agents": { demo } },
  prepare: (cs) => {
    const bridge = bundledBridge(cs.root);
    assert.ok(bridge, "the .vsix holds the acp-bridge binary");
    // "qwen" on PATH: the demo agent (its arguments, --acp and the profile's flags, are ignored).
    writeFileSync(join(bin, "qwen"), `#!/bin/sh\nexec '${bridge}' demo-agent\n`);
    chmodSync(join(bin, "qwen"), 0o755);
    // The VS Code server starts its extension host with the environment of a login shell (HOME is the
    // profile's own, and Debian's /etc/profile sets PATH anew): the profile's ~/.profile puts bin on it.
    writeFileSync(join(cs.home, ".profile"), `PATH='${bin}':"$PATH"\nexport PATH\n`);
  },
});
let f;
const machineFile = () => join(wb.cs.root, "ud", "Machine", "settings.json");
const readJson = (p) => JSON.parse(readFileSync(p, "utf8").replace(/^\s*\/\/.*$/gm, ""));

before(async () => {
  await wb.open();
  await wb.step("open", async () => {
    await wb.runCommand("ACP Bridge: New Chat");
    f = await wb.chatFrame();
    await wb.waitBridgeRunning(f);
    await f.locator(".tab").first().waitFor();
  });
});

after(() => {
  rmSync(bin, { recursive: true, force: true });
  return wb.close();
});

const quickRow = (text) => wb.page.locator(".quick-input-list .monaco-list-row", { hasText: text }).first();

test("Add Agent…: installed presets are marked, one not installed says so before it is used, and an added agent is in the remote machine's settings and chats", async () => {
  await wb.step("add-agent", async () => {
    // Not installed: said before anything is written.
    await wb.runCommand("ACP Bridge: Add Agent…");
    await quickRow("Gemini CLI").waitFor({ timeout: 10_000 });
    assert.match(await quickRow("Gemini CLI").innerText(), /not installed: gemini is not on PATH/);
    assert.match(await quickRow("Qwen Code").innerText(), /installed: \/\S*\/qwen/);
    assert.doesNotMatch(await quickRow("Qwen Code").innerText(), /not installed/);
    await wb.page.locator(".quick-input-widget input").fill("Gemini CLI");
    await wb.page.keyboard.press("Enter");
    const dialog = wb.page.locator(".monaco-dialog-box");
    await dialog.waitFor({ timeout: 10_000 });
    assert.match(await dialog.innerText(), /Gemini CLI is not installed here[\s\S]*npm install -g @google\/gemini-cli/);
    await wb.shot("add-agent-not-installed");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    assert.equal(readJson(machineFile())["acpBridge.agents"].gemini, undefined, "nothing written");

    // Installed: picked, named, written to the machine settings (acpBridge.agents is machine-scoped).
    await wb.runCommand("ACP Bridge: Add Agent…");
    await quickRow("Qwen Code").waitFor({ timeout: 10_000 });
    await wb.page.locator(".quick-input-widget input").fill("Qwen Code");
    await wb.page.keyboard.press("Enter");
    const input = wb.page.locator(".quick-input-widget input");
    assert.equal(await wb.until(async () => (await input.inputValue()) === "qwen"), true, "the id is suggested");
    await wb.page.keyboard.press("Enter");
    assert.ok(await wb.until(() => readJson(machineFile())["acpBridge.agents"]?.qwen), "qwen is in Machine/settings.json");
    assert.deepEqual(readJson(machineFile())["acpBridge.agents"], { demo, qwen: { command: "qwen", args: ["--acp"] } });
    assert.equal(readJson(wb.cs.settingsPath)["acpBridge.agents"], undefined, "not in the browser's user settings, where a remote window ignores it");

    // The picker: qwen is there, gemini (a default preset) says it is not installed.
    f = await wb.chatFrame();
    await f.locator('#agent-select option[value="qwen"]').waitFor({ state: "attached", timeout: 15_000 });
    assert.doesNotMatch(await f.locator('#agent-select option[value="qwen"]').innerText(), /not installed/);
    assert.match(await f.locator('#agent-select option[value="gemini"]').innerText(), /\(not installed\)/);
    await wb.shot("add-agent-added");
  });
});

/** Focus in the editor area, not in a webview. */
async function focusEditorArea() {
  await wb.runCommand("View: Focus Active Editor Group");
  await wb.page.locator(".monaco-workbench").click({ position: { x: 900, y: 300 } }).catch(() => {});
}

test("a compact card of the new agent, answered by keyboard alone: Go to oldest card, the Deny dropdown, Deny with a reason", async () => {
  await wb.step("compact-card-keys", async () => {
    f = await wb.chatFrame();
    await f.locator("#agent-select").selectOption("qwen");
    await f.locator(".tab.active .tab-main", { hasText: "qwen" }).waitFor({ timeout: 15_000 });
    const before = await allCards(f).count();
    await send(f, "only:test");
    const card = allCards(f).nth(before);
    await card.locator("button.opt").first().waitFor({ timeout: 30_000 });
    // Compact: Allow once and Deny, each with its dropdown; nothing else shows.
    assert.deepEqual(await card.locator(".options.compact button.opt[data-option-id]").allInnerTexts(), ["Allow once", "Deny"]);
    assert.equal(await card.locator(".rule-input").count(), 0);
    await wb.shot("compact-card");
    const id = await card.getAttribute("data-approval-id");
    await focusEditorArea();
    await wb.page.keyboard.press("Control+Alt+KeyG");
    f = await wb.chatFrame();
    const focused = () => f.evaluate(() => `${document.activeElement?.closest("[data-approval-id]")?.getAttribute("data-approval-id")} ${document.activeElement?.getAttribute("data-option-id") ?? document.activeElement?.getAttribute("data-menu") ?? document.activeElement?.className}`);
    assert.equal(await wb.until(async () => (await focused()) === `${id} acp-bridge:allow_once`), true, `Ctrl+Alt+G focuses Allow once (got ${await focused()})`);
    for (const k of ["Tab", "Tab", "Tab"]) await wb.page.keyboard.press(k);
    assert.equal(await focused(), `${id} deny`, "Tab, Tab, Tab: the Deny dropdown");
    await wb.page.keyboard.press("Enter");
    assert.equal(await wb.until(async () => (await focused()) === `${id} reason-input`), true, `the dropdown opens with focus in the reason field (got ${await focused()})`);
    await wb.page.keyboard.type("run make test instead, it sets the build tags");
    await wb.page.keyboard.press("Enter");
    await card.locator(".outcome").waitFor({ timeout: 15_000 });
    assert.equal((await card.locator(".outcome").innerText()).trim(), 'Denied by you (Deny) · your reason, sent to the agent: "run make test instead, it sets the build tags"');
    await turnDone(f);
    const tool = await toolCardOf(f, card);
    assert.doesNotMatch((await tool.getAttribute("class")) ?? "", /status-completed/, "denied: the call did not run");
    assert.match(await tool.locator(".verdict").innerText(), /your reason, sent to the agent/);
    await wb.shot("compact-card-denied");
  });
});

test("Rules Editor: the rules in force with their sources; test a command, add a rule (a malformed one refused), test again, edit it, remove it", async () => {
  await wb.step("rules-editor", async () => {
    await wb.runCommand("ACP Bridge: Open Rules Editor");
    const rf = await wb.frameWith("#add-rule");
    const row = (text) => rf.locator("tbody tr", { hasText: text }).first();
    await row("Bash(rm *)").waitFor({ timeout: 15_000 });
    assert.match(await row("Bash(rm *)").innerText(), /deny[\s\S]*VS Code user settings/);
    assert.ok((await rf.locator("tbody tr.locked").count()) > 0, "the built-in default mode is listed, locked");

    const test = async (text) => {
      await rf.locator("#test-text").fill(text);
      await rf.locator("#test-text").press("Enter");
      await rf.locator("#test-result .decision").waitFor({ timeout: 10_000 });
      const out = await rf.locator("#test-result").innerText();
      await rf.locator("#test-text").fill("");
      return out;
    };
    assert.match(await test("rm -rf build"), /deny[\s\S]*decided by rule Bash\(rm \*\)/);
    assert.match(await row("Bash(rm *)").getAttribute("class"), /\bdecides\b/, "the deciding rule is marked in the table");
    assert.doesNotMatch(await test("curl https://example.com"), /decided by rule Bash\(curl/);

    // A malformed rule: refused by the engine, nothing written.
    await rf.locator("#add-list").selectOption("deny");
    await rf.locator("#add-rule").fill("Bash(curl *");
    await rf.locator("#add-rule").press("Enter");
    await rf.locator("#add-result.error").waitFor({ timeout: 10_000 });
    assert.match(await rf.locator("#add-result").innerText(), /not a valid rule/);
    assert.deepEqual(readJson(wb.cs.settingsPath)["acpBridge.permissions"].deny, ["Bash(rm *)"]);

    await rf.locator("#add-rule").fill("Bash(curl *)");
    await rf.locator("#add-rule").press("Enter");
    await rf.locator("#add-result.ok").waitFor({ timeout: 10_000 });
    assert.deepEqual(readJson(wb.cs.settingsPath)["acpBridge.permissions"].deny, ["Bash(rm *)", "Bash(curl *)"]);
    await row("Bash(curl *)").waitFor({ timeout: 10_000 });
    assert.ok(await wb.until(async () => /deny[\s\S]*decided by rule Bash\(curl \*\)/.test(await test("curl https://example.com"))), "the new rule decides at once");

    // Edit it in place (Enter saves). The row by its id: while edited, its text is in a field.
    const rowId = await row("Bash(curl *)").getAttribute("data-row-id");
    const edited = rf.locator(`tr[data-row-id="${rowId}"]`);
    await edited.getByRole("button", { name: "Edit Bash(curl *)" }).click();
    await edited.locator(".edit-input").fill("Bash(curl -X *)");
    await edited.locator(".edit-input").press("Enter");
    assert.ok(await wb.until(() => JSON.stringify(readJson(wb.cs.settingsPath)["acpBridge.permissions"].deny) === JSON.stringify(["Bash(rm *)", "Bash(curl -X *)"])), "edited in settings.json");
    await row("Bash(curl -X *)").waitFor({ timeout: 10_000 });
    await wb.shot("rules-editor");

    // Remove it (with VS Code's confirmation).
    await row("Bash(curl -X *)").getByRole("button", { name: "Remove Bash(curl -X *)" }).click();
    const confirm = wb.page.locator(".monaco-dialog-box");
    await confirm.waitFor({ timeout: 10_000 });
    await confirm.getByRole("button", { name: "Remove", exact: true }).click();
    assert.ok(await wb.until(() => JSON.stringify(readJson(wb.cs.settingsPath)["acpBridge.permissions"].deny) === JSON.stringify(["Bash(rm *)"])), "removed from settings.json");
    assert.equal(await wb.until(async () => (await rf.locator("tbody tr", { hasText: "curl" }).count()) === 0), true, "gone from the table");
    assert.doesNotMatch(await test("curl -X POST https://example.com"), /decided by rule Bash\(curl/);
  });
});
