// The real agents under test: how each is started by the bridge (the agent
// entry of the bridge's config file, as a user would write it), how its
// scratch HOME is set up to reach its fake model API on 127.0.0.1, and the
// tool call its model makes to run a shell command. Versions are pinned in
// package.json / package-lock.json; docs/interop.md says why each setting
// is there.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeGemini } from "./fake-gemini.mjs";
import { startFakeOpenAIChat } from "./fake-openai-chat.mjs";
import { startFakeOpenAIResponses } from "./fake-openai-responses.mjs";

const require = createRequire(import.meta.url);
const binDir = join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", ".bin");

/** {name, version, dir} of an installed package. */
function pkg(name) {
  const file = require.resolve(`${name}/package.json`);
  const p = JSON.parse(readFileSync(file, "utf8"));
  return { name: p.name, version: p.version, dir: dirname(file), bin: p.bin };
}

/** The absolute path of a package's one bin script. */
function binScript(p) {
  const bins = typeof p.bin === "string" ? [p.bin] : Object.values(p.bin ?? {});
  if (bins.length !== 1) throw new Error(`${p.name}: want exactly one bin, found ${JSON.stringify(p.bin)}`);
  return join(p.dir, bins[0]);
}

function writeJSON(file, value) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
}

const gem = pkg("@google/gemini-cli");

/** Gemini CLI in ACP mode, API-key auth against the fake Gemini API. */
export const gemini = {
  name: "gemini",
  package: gem.name,
  version: gem.version,
  startFake: startFakeGemini,
  allowOnceOption: "proceed_once",
  shell: (command) => ({ name: "run_shell_command", args: { command, description: "Run the command the test scripted" } }),
  agentConfig({ apiUrl, agentHome }) {
    writeJSON(join(agentHome, ".gemini", "settings.json"), {
      security: { auth: { selectedType: "gemini-api-key" } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    });
    return {
      command: process.execPath,
      args: [binScript(gem), "--acp", "--model", "gemini-2.5-flash"],
      env: { HOME: agentHome, GEMINI_API_KEY: "fake-gemini-key", GOOGLE_GEMINI_BASE_URL: apiUrl },
    };
  },
};
