// The real VS Code workbench for one e2e test file: code-server with the
// packaged extension (codeserver.mjs), Debian's headless Chromium driven by
// playwright-core, and the helpers every journey uses to reach the chat
// webview, run commands and wait for the bridge. One Workbench per test
// file; each file gets its own fresh profile, workspace and bridge.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import * as os from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { EXT_DIR, startCodeServer } from "./codeserver.mjs";

export const ARTIFACTS = process.env.ARTIFACTS || join(EXT_DIR, "..", "test-artifacts");
export const log = (...a) => console.log("#", ...a);

export class Workbench {
  /**
   * @param {{name: string, settings?: object, machineSettings?: object, prepare?: (cs) => void, onFail?: (page) => Promise<void>}} opts
   *   name prefixes this file's screenshots; settings and machineSettings as
   *   startCodeServer takes them; prepare(cs) runs once code-server is up,
   *   before the workspace opens (files the tests need); onFail(page) adds
   *   diagnostics of its own to a failed step; clickBeforeCommand: click the
   *   workbench before F1 (takes the focus out of a webview; off where a click
   *   could move an editor's selection).
   */
  constructor({ name, settings = {}, machineSettings, prepare, onFail, clickBeforeCommand = true }) {
    this.name = name;
    this.clickBeforeCommand = clickBeforeCommand;
    this.settings = settings;
    this.machineSettings = machineSettings;
    this.prepare = prepare;
    this.onFail = onFail;
  }

  /** Starts code-server with the VSIX and opens the workspace in Chromium. */
  async open() {
    const vsix = process.env.VSIX;
    assert.ok(vsix && existsSync(vsix), `VSIX=${vsix} must name the packaged extension`);
    mkdirSync(ARTIFACTS, { recursive: true });
    const own = new RegExp(`^${this.name}-.*\\.png$`);
    for (const f of readdirSync(ARTIFACTS)) if (own.test(f)) rmSync(join(ARTIFACTS, f)); // this run's pictures only
    this.cs = await startCodeServer({ vsix, settings: this.settings, machineSettings: this.machineSettings, log });
    this.prepare?.(this.cs);
    this.chromeDir = mkdtempSync(join(os.tmpdir(), "acpb-chrome-"));
    this.ctx = await chromium.launchPersistentContext(this.chromeDir, {
      executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
      headless: true,
      viewport: { width: 1400, height: 900 },
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    this.page = this.ctx.pages()[0] ?? (await this.ctx.newPage());
    const t0 = Date.now();
    // A loaded machine (CI, several suites at once) can take longer than playwright's 30 s default.
    await this.page.goto(`${this.cs.url}/?folder=${encodeURIComponent(this.cs.ws)}`, { timeout: 120_000 });
    await this.page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
    log(`workbench in ${Date.now() - t0} ms`);
  }

  async close() {
    await this.ctx?.close().catch(() => {});
    await this.cs?.stop();
    if (this.cs && process.env.KEEP_E2E !== "1") rmSync(this.cs.root, { recursive: true, force: true });
    if (this.chromeDir) rmSync(this.chromeDir, { recursive: true, force: true });
  }

  async shot(name) {
    await this.page.screenshot({ path: join(ARTIFACTS, `${this.name}-${name}.png`) }).catch(() => {});
  }

  /** Runs fn; on failure saves a screenshot and the logs before rethrowing. */
  async step(name, fn) {
    try {
      await fn();
    } catch (e) {
      await this.shot(`FAIL-${name}`);
      await this.onFail?.(this.page).catch(() => {});
      log(`FAILED step ${name}: ${e?.message?.split("\n")[0]}`);
      log(`what the page showed:\n${await this.pageState().catch((err) => `(unreadable: ${err.message})`)}`);
      log(`code-server output tail:\n${this.cs.output().slice(-4000)}`);
      const bridgeLog = this.bridgeOutput();
      if (bridgeLog) log(`ACP Bridge output:\n${bridgeLog}`);
      await this.reset().catch((err) => log(`reset after the failure failed: ${err.message}`));
      throw e;
    }
  }

  /**
   * What a failed step leaves on screen, as text for the CI log (screenshots
   * stay on the machine that ran): notifications, dialogs, quick input, and the
   * chat's tabs, busy state and last transcript lines.
   */
  async pageState() {
    const page = this.page;
    const texts = async (loc) => (await loc.allInnerTexts().catch(() => [])).map((t) => t.replace(/\s+/g, " ").slice(0, 300));
    const parts = [
      `toasts: ${JSON.stringify(await texts(page.locator(".notifications-toasts .notification-toast")))}`,
      `dialog: ${JSON.stringify(await texts(page.locator(".monaco-dialog-box:visible")))}`,
      `quick input: ${JSON.stringify(await texts(page.locator(".quick-input-widget:visible")))}`,
      `editor tabs: ${JSON.stringify(await texts(page.locator(".tabs-container .tab")))}`,
      `focused: ${await page.evaluate(() => `${document.hasFocus()} ${document.activeElement?.className ?? ""}`).catch(() => "?")}`,
    ];
    const f = await this.frameWith("#composer-input", 2000).catch(() => undefined);
    if (f) {
      parts.push(`chat tabs: ${JSON.stringify(await texts(f.locator(".tab")))}`);
      parts.push(`stop button visible: ${await f.locator("#stop-btn").isVisible().catch(() => "?")}`);
      parts.push(`pending cards: ${await f.locator(".card.approval.pending").count().catch(() => "?")}`);
      const items = await texts(f.locator(".transcript > *"));
      parts.push(`transcript (last 12):\n  ${items.slice(-12).join("\n  ")}`);
    } else parts.push("chat webview: not found");
    return parts.join("\n");
  }

  /**
   * After a failed step: closes what it left open and stops every running turn
   * (Restart Bridge, "Restart and Stop Them"), so the next test starts from a
   * quiet bridge instead of failing on this one's leftovers.
   */
  async reset() {
    const page = this.page;
    for (let i = 0; i < 3; i++) await page.keyboard.press("Escape");
    const f = await this.frameWith("#composer-input", 2000).catch(() => undefined);
    const busy = f ? await f.locator("#stop-btn").isVisible().catch(() => false) : false;
    if (!busy && !(f && (await f.locator(".card.approval.pending").count().catch(() => 0)) > 0)) return;
    await this.runCommand("ACP Bridge: Restart Bridge");
    const dialog = page.locator(".monaco-dialog-box");
    const restart = dialog.getByRole("button", { name: "Restart and Stop Them" });
    if (await restart.waitFor({ timeout: 5000 }).then(() => true, () => false)) await restart.click();
    if (f) await this.waitBridgeRunning(f).catch(() => {});
    log("reset: the bridge was restarted to stop the failed step's turns");
  }

  /** The tail of the ACP Bridge Output channel, as the extension host logged it. */
  bridgeOutput() {
    const logs = join(this.cs.root, "ud", "logs");
    if (!existsSync(logs)) return "";
    try {
      return execFileSync("bash", ["-c", `cat $(find '${logs}' -name '*ACP Bridge*.log' 2>/dev/null) 2>/dev/null | tail -60`]).toString();
    } catch {
      return "";
    }
  }

  /** F1, type the command, Enter. The palette's list is fixed when it opens, so retry. */
  async runCommand(title) {
    const page = this.page;
    for (let attempt = 1; attempt <= 8; attempt++) {
      await page.keyboard.press("Escape");
      if (this.clickBeforeCommand) await page.locator(".monaco-workbench").click({ position: { x: 700, y: 400 } }).catch(() => {});
      await page.keyboard.press("F1");
      const input = page.locator(".quick-input-widget input");
      await input.waitFor({ timeout: 10_000 });
      await input.fill(`>${title}`);
      const row = page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first();
      try {
        await row.waitFor({ timeout: 2500 });
        await page.keyboard.press("Enter");
        return;
      } catch {
        log(`command "${title}" not in the palette yet (attempt ${attempt})`);
        await page.keyboard.press("Escape");
        await page.waitForTimeout(1000);
      }
    }
    throw new Error(`command "${title}" never showed up in the palette`);
  }

  /**
   * The inner frame of a webview that has selector (webviews are two nested
   * iframes), other than the frames in not.
   */
  async frameWith(selector, timeout = 30_000, not = []) {
    const deadline = Date.now() + timeout;
    for (;;) {
      for (const f of this.page.frames()) {
        if (not.includes(f)) continue;
        try {
          if (await f.$(selector)) return f;
        } catch {
          /* detached */
        }
      }
      if (Date.now() > deadline) throw new Error(`no webview with ${selector}`);
      await this.page.waitForTimeout(250);
    }
  }

  /** The chat webview's inner frame. */
  async chatFrame(timeout = 30_000) {
    return this.frameWith("#composer-input", timeout).catch(() => {
      throw new Error("the ACP Bridge chat webview did not appear");
    });
  }

  async waitBridgeRunning(f) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const status = await f.locator(".bridge-status").getAttribute("class");
      if (/\brunning\b/.test(status ?? "")) return;
      if (/\bfailed\b/.test(status ?? "")) throw new Error(`bridge failed: ${await f.locator(".banner").innerText().catch(() => "")}`);
      if (Date.now() > deadline) throw new Error(`bridge not running after 30 s (${status})`);
      await this.page.waitForTimeout(200);
    }
  }

  /** Polls cond() every 200 ms until it is truthy or ms pass; returns its last value. */
  async until(cond, ms = 10_000) {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await cond();
      if (v || Date.now() > deadline) return v;
      await this.page.waitForTimeout(200);
    }
  }
}

export async function send(f, text) {
  await f.locator("#composer-input").fill(text);
  await f.locator("#composer-input").press("Enter");
}

export const pendingCards = (f) => f.locator(".card.approval.pending");
export const allCards = (f) => f.locator(".card.approval");

export async function turnDone(f) {
  await f.locator("#stop-btn").waitFor({ state: "hidden", timeout: 30_000 });
}

/** The tool card of an approval card (by its toolCallId). */
export async function toolCardOf(f, approval) {
  const id = await approval.getAttribute("data-tool-call-id");
  assert.ok(id, "approval card names its toolCallId");
  return f.locator(`.card.tool[data-tool-call-id="${id}"]`).last();
}
