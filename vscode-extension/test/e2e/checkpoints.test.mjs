// Checkpoints, a turn's changes and chat history in real VS Code (code-server
// 4.139.1, headless Chromium), against the real acp-bridge, in a code-server of
// their own. The agent (changer-agent.cjs) changes the workspace with its own
// file operations, no ACP request and no card, the way most agents do:
//   - the turn's changes list every file it changed (from the checkpoint diff);
//     "Review" opens VS Code's multi-file diff; one hunk of main.go undone, the
//     other kept; added.txt kept; old.txt's deletion undone;
//   - "Restore checkpoint" on the message shows what it changes and asks, then
//     the workspace is as before the turn; "Redo" brings back what the restore undid;
//   - closing a chat whose turn runs asks first; a closed chat is in "Chat
//     History", found by what was said in it, and reopens read-only (this agent
//     has no session/load), with a note saying so.
//   VSIX=path/to.vsix node --test test/e2e/checkpoints.test.mjs
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { EXT_DIR } from "./codeserver.mjs";
import { Workbench, log, send } from "./workbench.mjs";

const MAIN = Array.from({ length: 20 }, (_, i) => (i === 0 ? "package main" : `// line ${i + 1}`)).join("\n") + "\n";

const wb = new Workbench({
  name: "checkpoints",
  settings: { "acpBridge.defaultAgent": "changer", "files.autoSave": "off" },
  machineSettings: { "acpBridge.agents": { changer: { command: "node", args: [join(EXT_DIR, "test", "e2e", "changer-agent.cjs")] } } },
  prepare(cs) {
    writeFileSync(join(cs.ws, "main.go"), MAIN);
    writeFileSync(join(cs.ws, "old.txt"), "old\n");
  },
  clickBeforeCommand: false,
});
let page;
let ws;

before(async () => {
  await wb.open();
  page = wb.page;
  ws = wb.cs.ws;
});

after(() => wb.close());

const read = (rel) => readFileSync(join(ws, rel), "utf8");

/** The modal dialog: checks its text, clicks a button. */
async function answerDialog(re, button) {
  const dialog = page.locator(".monaco-dialog-box");
  await dialog.waitFor({ timeout: 15_000 });
  assert.match(await dialog.innerText(), re);
  await dialog.getByRole("button", { name: button, exact: true }).click();
  await dialog.waitFor({ state: "hidden", timeout: 10_000 });
}

test("a turn's changes by the agent's own writes: reviewed, kept or undone per file and hunk; restore and redo; history", async () => {
  let f;
  await wb.step("changes", async () => {
    await wb.runCommand("ACP Bridge: New Chat");
    f = await wb.chatFrame();
    await wb.waitBridgeRunning(f);
    await f.locator(".tab.active .tab-main", { hasText: "changer" }).waitFor({ timeout: 15_000 });
    await send(f, "change");
    await f.locator(".msg.agent", { hasText: /changed main\.go|change failed/ }).waitFor({ timeout: 30_000 });
    assert.match(await f.locator(".msg.agent").last().innerText(), /changed main\.go/);
    assert.match(read("main.go"), /^package main \/\/ changed by the agent\n/);
    assert.equal(existsSync(join(ws, "old.txt")), false);
    const card = f.locator(".card.changes");
    await card.waitFor({ timeout: 15_000 });
    assert.match(await card.locator(".card-head").innerText(), /3 files changed in this turn/);
    assert.deepEqual((await card.locator(".change-file").evaluateAll((els) => els.map((e) => `${e.className.replace("change-file ", "")} ${e.dataset.path}`))).sort(), ["added added.txt", "deleted old.txt", "modified main.go"]);
    // The multi-file diff (vscode.changes).
    await card.locator(".review-changes").click();
    await page.locator(".tabs-container .tab", { hasText: "Turn 1: what changed" }).waitFor({ timeout: 15_000 });
    // The multi-file diff loaded (it takes the focus when it does): the steps below go back to the chat after it.
    await page.locator(".multiDiffEntry", { hasText: "main.go" }).first().waitFor({ timeout: 20_000 });
    await wb.shot("review");
  });

  await wb.step("hunks-keep-undo", async () => {
    const card = f.locator(".card.changes");
    // main.go: undo the first hunk only.
    await card.locator('.change-file[data-path="main.go"] .undo-hunks').click();
    const qi = page.locator(".quick-input-widget");
    await qi.locator(".monaco-list-row", { hasText: "Hunk 2" }).waitFor({ timeout: 10_000 });
    assert.equal(await wb.until(async () => (await qi.locator(".monaco-list-row:visible").count()) === 2), true, "two hunks offered");
    await qi.locator(".monaco-list-row", { hasText: "Hunk 1" }).click();
    await qi.getByText("1 Selected").waitFor({ timeout: 5_000 });
    await qi.getByRole("button", { name: "OK", exact: true }).click();
    await card.locator('.change-file[data-path="main.go"] .change-state', { hasText: "partly undone" }).waitFor({ timeout: 10_000 });
    assert.match(read("main.go"), /^package main\n/, "hunk 1 undone");
    assert.match(read("main.go"), /\/\/ last line changed by the agent\n$/, "hunk 2 kept");
    // added.txt kept, old.txt's deletion undone.
    await card.locator('.change-file[data-path="added.txt"] .keep-file').click();
    await card.locator('.change-file[data-path="added.txt"] .change-state', { hasText: "kept" }).waitFor({ timeout: 10_000 });
    assert.equal(read("added.txt"), "added by the agent\n");
    await card.locator('.change-file[data-path="old.txt"] .undo-file').click();
    await card.locator('.change-file[data-path="old.txt"] .change-state', { hasText: "undone" }).waitFor({ timeout: 10_000 });
    assert.equal(read("old.txt"), "old\n");
    await wb.shot("kept-undone");
  });

  await wb.step("restore-redo", async () => {
    await f.locator(".msg.user .restore-checkpoint").first().click();
    // What it changes is shown first (the multi-file diff), then asked.
    await page.locator(".tabs-container .tab", { hasText: "what changes" }).waitFor({ timeout: 15_000 });
    await answerDialog(/Restore the checkpoint before "change"\? 2 file\(s\) change\.(?=[\s\S]*\nchange main\.go\n)(?=[\s\S]*\ndelete added\.txt\n)/, "Restore");
    await f.locator(".notice.restored", { hasText: "Restored the workspace before" }).waitFor({ timeout: 10_000 });
    assert.equal(read("main.go"), MAIN);
    assert.equal(existsSync(join(ws, "added.txt")), false);
    assert.equal(read("old.txt"), "old\n");
    // Redo: the workspace as it was just before the restore.
    await f.locator(".notice.restored .redo-checkpoint").last().click();
    await answerDialog(/Restore the checkpoint as it was before the restore \(redo\)\? 2 file\(s\) change/, "Restore");
    await f.locator(".notice.restored", { hasText: "as it was before the restore" }).waitFor({ timeout: 10_000 });
    assert.match(read("main.go"), /^package main\n[\s\S]*\/\/ last line changed by the agent\n$/);
    assert.equal(read("added.txt"), "added by the agent\n");
    await wb.shot("restored");
  });

  await wb.step("chat-changes", async () => {
    // Everything this chat changed since its first message: main.go (hunk 2 kept, redone) and added.txt;
    // old.txt's deletion was undone, so it is not listed.
    await wb.runCommand("ACP Bridge: Review This Chat's Changes");
    const card = f.locator(".card.changes", { hasText: "changed in this chat since its first message" });
    await card.waitFor({ timeout: 15_000 });
    assert.match(await card.locator(".card-head").innerText(), /2 files changed in this chat/);
    assert.deepEqual((await card.locator(".change-file").evaluateAll((els) => els.map((e) => e.dataset.path))).sort(), ["added.txt", "main.go"]);
    await page.locator(".tabs-container .tab", { hasText: "This chat: what changed" }).waitFor({ timeout: 15_000 });
    await page.locator(".multiDiffEntry", { hasText: "added.txt" }).first().waitFor({ timeout: 20_000 });
    // Undo one file from the chat's card: back to before the chat's first message.
    await card.locator('.change-file[data-path="added.txt"] .undo-file').click();
    await card.locator('.change-file[data-path="added.txt"] .change-state', { hasText: "undone" }).waitFor({ timeout: 10_000 });
    assert.equal(existsSync(join(ws, "added.txt")), false, "added.txt undone on disk");
    assert.match(read("main.go"), /\/\/ last line changed by the agent\n$/, "main.go untouched");
    await wb.shot("chat-changes");
  });

  await wb.step("close-asks-and-history", async () => {
    // A second chat with a running turn: closing it asks first; Cancel keeps it.
    await f.locator("#new-chat, button[aria-label='New chat']").first().click();
    await wb.until(async () => (await f.locator(".tab").count()) === 2);
    await send(f, "wait");
    await f.locator("#stop-btn").waitFor({ state: "visible", timeout: 15_000 });
    await f.locator(".tab.active .tab-close").click();
    await answerDialog(/Close "changer: wait"\? A turn is running/, "Cancel");
    assert.equal(await f.locator(".tab").count(), 2, "Cancel keeps the chat");
    await f.locator(".tab.active .tab-close").click();
    await answerDialog(/Close "changer: wait"\?/, "Close and Stop");
    await wb.until(async () => (await f.locator(".tab").count()) === 1);
    // The first chat closes without a question (nothing runs), into the history.
    await f.locator(".tab.active .tab-close").click();
    await wb.until(async () => (await f.locator(".tab").count()) === 0);
    await wb.runCommand("ACP Bridge: Chat History");
    const qi = page.locator(".quick-input-widget");
    await qi.getByText("chat history (closed chats of this workspace)").waitFor({ timeout: 10_000 });
    await wb.until(async () => (await qi.locator(".monaco-list-row:visible", { hasText: "changer:" }).count()) === 2);
    assert.equal(await qi.locator(".monaco-list-row:visible").count(), 2, "both closed chats, nothing else");
    // Searched through what was said, not only the title.
    await qi.locator("input").fill("deleted old");
    await wb.until(async () => (await qi.locator(".monaco-list-row:visible").count()) === 1);
    const row = qi.locator(".monaco-list-row:visible").first();
    assert.match(await row.innerText(), /changer: change[\s\S]*changer ·/);
    await row.click();
    await f.locator(".tab.active .tab-main", { hasText: "changer: change" }).waitFor({ timeout: 15_000 });
    await f.locator(".msg.agent", { hasText: "changed main.go" }).waitFor({ timeout: 10_000 });
    // Read-only with the reason: known from agents/list (loadSession false), or the bridge's session/load refused.
    const note = f.locator(".notice", { hasText: /Reopened from history, read-only: (changer does not offer session\/load|session\/load failed)/ });
    await note.waitFor({ timeout: 15_000 });
    log("reopen note:", await note.innerText());
    assert.equal(await f.locator("#composer-input").isDisabled(), true);
    assert.equal(await f.locator(".card.changes").count(), 2, "its changes (the turn's and the whole chat's) came back with it");
    await wb.shot("history");
  });
});
