// The webview's markdown, diffs and streaming render in headless Chromium: the
// real dist/webview.js under the production CSP (harness.mjs), fed the host
// messages the extension's ChatStore posts (workload.mjs). Needs
// `node scripts/build.mjs` first. The 2 MB benchmark of the same path is
// scripts/bench-webview.mjs (`make bench-webview`); this is its correctness
// check at a smaller size.
import assert from "node:assert/strict";
import * as esbuild from "esbuild";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { installFeeder, launch, openWebview } from "./harness.mjs";
import { turnMessages } from "./workload.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dist = join(root, "dist");

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

async function loadMarkdown() {
  const r = await esbuild.build({ entryPoints: [join(root, "webview", "markdown.ts")], bundle: true, format: "esm", platform: "neutral", mainFields: ["module", "main"], write: false, logLevel: "warning" });
  return import(`data:text/javascript;base64,${Buffer.from(r.outputFiles[0].text).toString("base64")}`);
}

test("a streamed reply with tool calls: every tool card and the whole text are on screen, painted in batches", async () => {
  const { page, errors } = await openWebview(browser, dist);
  const w = await turnMessages({ bytes: 150_000, tools: 40, seed: 7 });
  await page.evaluate((s) => window.postMessage(s, "*"), w.state);
  await page.locator(".msg.user").waitFor();
  await installFeeder(page);
  await page.evaluate(() => (window.__renders = 0));
  await page.evaluate(async ({ msgs, sentinel }) => {
    await window.__feed(msgs, 4096);
    await window.__onScreen(sentinel);
  }, { msgs: w.messages, sentinel: w.sentinel });
  // Every tool card, completed, with its diff.
  const cards = await page.locator(".transcript .card.tool").evaluateAll((els) =>
    els.map((e) => ({ id: e.dataset.toolCallId, status: [...e.classList].find((c) => c.startsWith("status-")), add: e.querySelectorAll(".diff .add").length, del: e.querySelectorAll(".diff .del").length })),
  );
  assert.equal(cards.length, 40);
  assert.deepEqual(new Set(cards.map((c) => c.id)), new Set(Array.from({ length: 40 }, (_, i) => `tc-${i}`)));
  for (const c of cards) assert.deepEqual({ status: c.status, add: c.add, del: c.del }, { status: "status-completed", add: 3, del: 2 }, c.id);
  // The whole text: each agent message as a whole render of its final text gives it.
  const texts = new Map();
  for (const m of w.messages) {
    if (m.type === "item" && m.item.kind === "agent") texts.set(m.item.id, m.item.text);
    else if (m.type === "append") texts.set(m.itemId, texts.get(m.itemId) + m.text);
  }
  assert.equal([...texts.values()].join(""), w.text, "the workload's messages carry the whole reply");
  const { renderMarkdown } = await loadMarkdown();
  const expected = Object.fromEntries([...texts].map(([id, t]) => [id, renderMarkdown(t)]));
  const diffs = await page.evaluate((expected) => {
    const bad = [];
    const tpl = document.createElement("template");
    for (const [id, html] of Object.entries(expected)) {
      tpl.innerHTML = html;
      // Finished blocks sit in div.md-part containers: unwrapped, the HTML is the whole render's.
      const md = document.querySelector(`[data-item-id="${id}"] .markdown`)?.cloneNode(true);
      for (const part of md?.querySelectorAll(".md-part") ?? []) part.replaceWith(...part.childNodes);
      const got = md?.innerHTML;
      if (got !== tpl.innerHTML) bad.push(id);
    }
    return { bad, agents: document.querySelectorAll(".transcript .msg.agent").length };
  }, expected);
  assert.deepEqual(diffs.bad, [], "messages that differ from a whole render");
  assert.equal(diffs.agents, texts.size);
  // Order: the items are in the order the host created them.
  const order = await page.locator(".transcript [data-item-id]").evaluateAll((els) => els.map((e) => e.dataset.itemId));
  const created = [];
  for (const m of w.messages) if (m.type === "item" && !created.includes(m.item.id)) created.push(m.item.id);
  assert.deepEqual(order.slice(1), created, "after the user's prompt, in creation order");
  const renders = await page.evaluate(() => window.__renders);
  assert.ok(renders < w.messages.length / 4, `${renders} paints for ${w.messages.length} messages`);
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
  assert.deepEqual(errors, []);
});

test("tool-call updates are painted once per frame, not once per message", async () => {
  const { page, errors } = await openWebview(browser, dist);
  const w = await turnMessages({ bytes: 2000, tools: 1, seed: 3 });
  await page.evaluate((s) => window.postMessage(s, "*"), w.state);
  await page.locator(".msg.user").waitFor();
  const n = 200;
  const last = await page.evaluate((n) => {
    window.__renders = 0;
    const tool = (i) => ({ toolCallId: "t1", title: `step ${i}`, kind: "execute", status: i === n - 1 ? "completed" : "in_progress", locations: [], content: [{ type: "text", text: `output ${i}` }] });
    for (let i = 0; i < n; i++) window.postMessage({ type: "item", chatId: "chat-1", item: { kind: "tool", id: "tool:t1", tool: tool(i) } }, "*");
    return `step ${n - 1}`;
  }, n);
  await page.locator('[data-tool-call-id="t1"].status-completed').waitFor();
  assert.match(await page.locator('[data-tool-call-id="t1"] .tool-title').innerText(), new RegExp(last));
  assert.equal(await page.locator("[data-tool-call-id]").count(), 1);
  const renders = await page.evaluate(() => window.__renders);
  assert.ok(renders >= 1 && renders < n / 10, `${renders} paints for ${n} updates`);
  assert.deepEqual(errors, []);
});

test("markdown in the webview: tables, nested lists, code; no HTML, images or unsafe links; file links open in the editor", async () => {
  const { page, errors } = await openWebview(browser, dist);
  const text = [
    "# Result",
    "",
    "| file | lines |",
    "|---|--:|",
    "| a.go | 12 |",
    "",
    "- one",
    "  - two",
    "    - three",
    "",
    "```go",
    "func main() {}",
    "```",
    "",
    "<script>window.pwnd = 1</script> <img src=x onerror=\"window.pwnd = 2\"> ![p](https://tracker.example/p.png)",
    "[a](javascript:window.pwnd=3) [b](data:text/html,x) [c](//evil.example) javascript:window.pwnd=4 [d](https://example.com) see https://example.org/x",
    "[main](src/main.go:3)",
  ].join("\n");
  const w = await turnMessages({ bytes: 0, tools: 0, seed: 1 });
  await page.evaluate((s) => window.postMessage(s, "*"), w.state);
  await page.locator(".msg.user").waitFor();
  // Streamed in small chunks: the incremental render must give the same DOM.
  await page.evaluate((text) => {
    window.postMessage({ type: "item", chatId: "chat-1", item: { kind: "agent", id: "a9", text: text.slice(0, 7) } }, "*");
    for (let i = 7; i < text.length; i += 11) window.postMessage({ type: "append", chatId: "chat-1", itemId: "a9", text: text.slice(i, i + 11) }, "*");
  }, text);
  const md = page.locator('[data-item-id="a9"] .markdown');
  await md.locator('a[data-file]').waitFor();
  assert.equal(await md.locator("h3").innerText(), "Result");
  assert.deepEqual(await md.locator("table th").allInnerTexts(), ["file", "lines"]);
  assert.equal(await md.locator("table td.align-right").innerText(), "12");
  assert.equal(await md.locator("ul ul ul li").innerText(), "three");
  assert.equal((await md.locator("pre code.language-go").innerText()).trim(), "func main() {}");
  assert.equal(await md.locator("script, img, iframe").count(), 0);
  assert.deepEqual(await md.locator("a").evaluateAll((as) => as.map((a) => a.getAttribute("href"))), ["https://tracker.example/p.png", "https://example.com", "https://example.org/x", "src/main.go:3"], "an image is a plain link, never loaded");
  assert.match(await md.innerText(), /<script>window.pwnd = 1<\/script>/, "raw HTML shows as text");
  assert.equal(await page.evaluate(() => window.pwnd), undefined);
  await page.evaluate(() => (window.__sent = []));
  await md.locator("a[data-file]").click();
  assert.deepEqual(await page.evaluate(() => window.__sent), [{ type: "openFile", path: "src/main.go", line: 3 }]);
  assert.deepEqual(await page.evaluate(() => window.__csp), [], "no CSP violation (table alignment is a class, not a style)");
  assert.deepEqual(errors, []);
});
