// Bundles the extension (node, CommonJS) and the webview (browser, IIFE) with
// esbuild, copies the webview CSS and the codicons into dist/. With --tests it
// also bundles test/unit/*.test.ts into out/unit/ for node's test runner.
import * as esbuild from "esbuild";
import { cpSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tests = process.argv.includes("--tests");
const common = { bundle: true, sourcemap: true, logLevel: "warning", absWorkingDir: root };

rmSync(join(root, "dist"), { recursive: true, force: true });
mkdirSync(join(root, "dist", "codicons"), { recursive: true });
await esbuild.build({
  ...common,
  entryPoints: ["src/extension.ts"],
  outfile: "dist/extension.js",
  platform: "node",
  format: "cjs",
  target: "node20",
  external: ["vscode"],
});
await esbuild.build({
  ...common,
  entryPoints: ["webview/main.ts"],
  outfile: "dist/webview.js",
  platform: "browser",
  format: "iife",
  target: "es2022",
});
// The audit log view (src/auditView.ts): its own small bundle.
await esbuild.build({
  ...common,
  entryPoints: ["webview/audit.ts"],
  outfile: "dist/audit.js",
  platform: "browser",
  format: "iife",
  target: "es2022",
});
// The rules editor (src/rulesEditor.ts): its own small bundle too.
await esbuild.build({
  ...common,
  entryPoints: ["webview/rules.ts"],
  outfile: "dist/rules.js",
  platform: "browser",
  format: "iife",
  target: "es2022",
});
cpSync(join(root, "webview", "style.css"), join(root, "dist", "webview.css"));
cpSync(join(root, "webview", "rules.css"), join(root, "dist", "rules.css"));
cpSync(join(root, "webview", "audit.css"), join(root, "dist", "audit.css"));
const codicons = join(root, "node_modules", "@vscode", "codicons", "dist");
for (const f of ["codicon.css", "codicon.ttf"]) cpSync(join(codicons, f), join(root, "dist", "codicons", f));

if (tests) {
  rmSync(join(root, "out"), { recursive: true, force: true });
  const entries = readdirSync(join(root, "test", "unit")).filter((f) => f.endsWith(".test.ts")).map((f) => `test/unit/${f}`);
  await esbuild.build({
    ...common,
    entryPoints: entries,
    outdir: "out/unit",
    platform: "node",
    format: "cjs",
    target: "node20",
    external: ["vscode"],
  });
}
