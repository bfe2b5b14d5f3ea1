// The chat webview in headless Chromium (Debian chromium + playwright-core), as
// VS Code shows it: the bundled webview.js and webview.css under the production
// CSP, with a stub acquireVsCodeApi that records what the webview posts. Used by
// stream.test.mjs and scripts/bench-webview.mjs. No side effects on import.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const BASE = "http://webview.test";
const NONCE = "dGVzdG5vbmNl";

/** The HTML VS Code would give a webview of ours: bundle and css from dist, a root element, our CSP. */
const shell = (bundle, css, rootId) => `<!DOCTYPE html><html><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-${NONCE}'; style-src ${BASE}; font-src ${BASE}; img-src ${BASE} data:">
<link rel="stylesheet" href="${BASE}/codicons/codicon.css"><link rel="stylesheet" href="${BASE}/${css}">
</head><body><div id="${rootId}"></div>
<script nonce="${NONCE}">
window.__sent = []; window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(e.violatedDirective + " " + e.blockedURI));
window.acquireVsCodeApi = () => ({
  postMessage: (m) => window.__sent.push(JSON.parse(JSON.stringify(m))),
  getState: () => JSON.parse(sessionStorage.getItem("vsstate") || "null"),
  setState: (s) => sessionStorage.setItem("vsstate", JSON.stringify(s)),
});
</script>
<script nonce="${NONCE}" src="${BASE}/${bundle}"></script>
</body></html>`;

const types = { ".js": "text/javascript", ".css": "text/css", ".ttf": "font/ttf" };

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/**
 * A fresh page with a webview from dist (a directory holding the bundles, their
 * css and codicons/): the chat (webview.js) unless bundle, css and rootId name
 * another (the audit table: audit.js, audit.css, "audit"). Resolves once the
 * webview posted "ready"; errors collects the page's uncaught errors.
 */
export async function openWebview(browser, dist, { bundle = "webview.js", css = "webview.css", rootId = "app", width = 520 } = {}) {
  const html = shell(bundle, css, rootId);
  const ctx = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e));
  await page.route(`${BASE}/**`, (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === "/" || url.pathname === "/index.html") return route.fulfill({ status: 200, contentType: "text/html", body: html });
    const file = join(dist, url.pathname);
    const ext = file.slice(file.lastIndexOf("."));
    try {
      return route.fulfill({ status: 200, contentType: types[ext] ?? "application/octet-stream", body: readFileSync(file) });
    } catch {
      return route.fulfill({ status: 404, body: "" });
    }
  });
  await page.goto(`${BASE}/index.html`);
  await page.waitForFunction(() => window.__sent.some((m) => m.type === "ready"));
  return { page, ctx, errors };
}

/**
 * Installs window.__feed(messages, burst): posts the messages (or window.__msgs,
 * put there beforehand so that moving them into the page is not measured) to the webview the
 * way the host's postMessage delivers them (one message event each), about
 * `burst` characters of streamed text per timer tick, and resolves when the
 * last one is posted (or, once window.__stop is set, with minus the number posted). window.__onScreen(sentinel) resolves with the time of the
 * first animation frame at which the last agent message's last block shows the
 * sentinel.
 */
export async function installFeeder(page) {
  await page.evaluate(() => {
    window.__feed = (msgs, burst) =>
      new Promise((resolve) => {
        msgs ??= window.__msgs;
        let i = 0;
        const tick = () => {
          let n = 0;
          if (window.__stop) return resolve(-i);
          while (i < msgs.length && n < burst) {
            const m = msgs[i++];
            n += m.type === "append" ? m.text.length : 200;
            window.postMessage(m, "*");
          }
          if (i < msgs.length) setTimeout(tick, 0);
          else resolve(performance.now());
        };
        tick();
      });
    window.__onScreen = (sentinel) =>
      new Promise((resolve) => {
        const check = () => {
          // The last item (inside the last page, where items are paged), without a query over the transcript.
          let item = document.querySelector(".transcript")?.lastElementChild;
          if (item?.classList.contains("page")) item = item.lastElementChild;
          const last = item?.querySelector(".markdown")?.lastElementChild;
          if (last && last.textContent.includes(sentinel)) resolve(performance.now());
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      });
  });
}
