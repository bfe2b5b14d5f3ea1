// The real agents under test: how each is started by the bridge (the agent
// entry of the bridge's config file, as a user would write it), how its
// scratch HOME is set up to reach its fake model API on 127.0.0.1, and the
// tool call its model makes to run a shell command. Versions are pinned in
// package.json / package-lock.json; docs/interop.md says why each setting
// is there.

import { spawnSync } from "node:child_process";
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

/**
 * Why a native binary cannot run here (it does not start, e.g. a missing
 * loader or library), or undefined if `bin args` exits 0.
 */
function cannotRun(bin, args) {
  const r = spawnSync(bin, args, { encoding: "utf8", timeout: 30_000 });
  if (r.error) return `${bin} ${args.join(" ")}: ${r.error.message}`;
  if (r.status !== 0) return `${bin} ${args.join(" ")} exited ${r.status ?? r.signal}: ${(r.stderr || r.stdout).trim().slice(0, 300)}`;
  return undefined;
}

function writeJSON(file, value) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
}

const gem = pkg("@google/gemini-cli");

/** Gemini CLI in ACP mode, API-key auth against the fake Gemini API. */
export const gemini = {
  name: "gemini",
  // The agent's own options the bridge answers with (measured; in the audit log).
  allowOnceOption: "proceed_once",
  denyOption: "cancel",
  package: gem.name,
  version: gem.version,
  startFake: startFakeGemini,
  shell: (command) => ({ name: "run_shell_command", args: { command, description: "Run the command the test scripted" } }),
  write: (file_path, content) => ({ name: "write_file", args: { file_path, content } }),
  read: (file_path) => ({ name: "read_file", args: { file_path } }),
  fetch: (url) => ({ name: "web_fetch", args: { prompt: `Summarize ${url}` } }),
  // Its own modes that do not ask (profiles/profile.go BypassModes) and that it offers.
  childBypassModes: ["autoEdit", "yolo"],
  // The measured matrix (lib/matrix.mjs; docs/agents.md). Its plan mode
  // offers no shell tool. Its read_file and write_file refuse any path with
  // a .env, .git or node_modules segment themselves (hasBlockedPathSegment:
  // "Path not in workspace", also without the OS sandbox) and send no path:
  // the bridge audits an unknown unasked call, whose verdict is the mode's.
  matrixExpect: {
    "*-rm": "deny:rule",
    "plan-rm": "not-proposed none",
    "*-env": "unasked:ask",
    "plan-env": "unasked:deny",
    "dontAsk-env": "unasked:deny",
    "bypassPermissions-env": "unasked:allow",
    "*-hook": "unasked:ask",
    "plan-hook": "unasked:deny",
    "dontAsk-hook": "unasked:deny",
    "bypassPermissions-hook": "unasked:allow",
    "*-fetch": "deny:rule",
  },
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

const qw = pkg("@qwen-code/qwen-code");

/** Qwen Code in ACP mode, OpenAI-compatible auth against the fake Chat Completions API. */
export const qwen = {
  name: "qwen",
  // The agent's own options the bridge answers with (measured; in the audit log).
  allowOnceOption: "proceed_once",
  denyOption: "cancel",
  package: qw.name,
  version: qw.version,
  startFake: startFakeOpenAIChat,
  shell: (command) => ({ name: "run_shell_command", args: { command, is_background: false, description: "Run the command the test scripted" } }),
  write: (file_path, content) => ({ name: "write_file", args: { file_path, content } }),
  read: (file_path) => ({ name: "read_file", args: { file_path } }),
  // web_fetch is a deferred tool in Qwen 0.24 (found through tool_search,
  // not in the request's tools): the fake proposes it unlisted.
  fetch: (url) => ({ name: "web_fetch", args: { url, prompt: "Summarize the page." }, unlisted: true }),
  childBypassModes: ["auto-edit", "auto", "yolo"],
  // The measured matrix: read_file runs unasked (audited would-deny, the
  // turn cancelled, the OS sandbox masks .env); in its plan mode Qwen
  // blocks shell and writes itself (audited unasked, would deny).
  matrixExpect: {
    "*-rm": "deny:rule",
    "plan-rm": "unasked:deny",
    "*-env": "unasked:deny",
    "*-hook": "card*1 deny:breaker+user",
    "plan-hook": "unasked:deny",
    "dontAsk-hook": "deny:breaker",
    "*-fetch": "deny:rule",
  },
  // Measured: in the mode Qwen starts in (auto) it wrote the file without
  // asking. The bridge launches it with --approval-mode default (its
  // profile, docs/agents.md), and it asks: the write scenario holds.
  agentConfig({ apiUrl, agentHome }) {
    writeJSON(join(agentHome, ".qwen", "settings.json"), {
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    });
    return {
      command: process.execPath,
      args: [binScript(qw), "--acp", "--auth-type", "openai", "--model", "fake-model"],
      env: { HOME: agentHome, OPENAI_BASE_URL: `${apiUrl}/v1`, OPENAI_API_KEY: "sk-fake-qwen" },
    };
  },
};

const oc = pkg("opencode-ai");

/**
 * OpenCode in ACP mode (opencode acp), one provider through its bundled
 * @ai-sdk/openai-compatible against the fake Chat Completions API. Its
 * default permissions ask for nothing; the config makes edits, shell
 * commands and web fetches ask, as a user wanting a bridge would.
 */
export const opencode = {
  name: "opencode",
  // The agent's own options the bridge answers with (measured; in the audit log).
  allowOnceOption: "once",
  denyOption: "reject",
  package: oc.name,
  version: oc.version,
  startFake: startFakeOpenAIChat,
  skip: () => cannotRun(join(binDir, "opencode"), ["--version"]),
  shell: (command) => ({ name: "bash", args: { command, description: "Run the command the test scripted" } }),
  write: (filePath, content) => ({ name: "write", args: { filePath, content } }),
  read: (filePath) => ({ name: "read", args: { filePath } }),
  fetch: (url) => ({ name: "webfetch", args: { url, format: "text" } }),
  childBypassModes: [],
  // The measured matrix: with OPENCODE_PERMISSION (set by the bridge) and
  // its own default of asking before reading .env files, it asks for every
  // row; the bridge decides each.
  matrixExpect: {
    "*-rm": "deny:rule",
    "*-env": "deny:rule",
    "*-hook": "card*1 deny:breaker+user",
    "plan-hook": "deny:breaker",
    "dontAsk-hook": "deny:breaker",
    "*-fetch": "deny:rule",
  },
  agentConfig({ apiUrl, agentHome }) {
    const config = join(agentHome, ".config");
    writeJSON(join(config, "opencode", "opencode.json"), {
      $schema: "https://opencode.ai/config.json",
      provider: {
        fake: {
          npm: "@ai-sdk/openai-compatible",
          name: "Fake model API",
          options: { baseURL: `${apiUrl}/v1`, apiKey: "sk-fake-opencode" },
          models: { "fake-model": { name: "Fake model", tool_call: true } },
        },
      },
      model: "fake/fake-model",
      small_model: "fake/fake-model",
      permission: { edit: "ask", bash: "ask", webfetch: "ask" },
      autoupdate: false,
      share: "disabled",
    });
    return {
      command: join(binDir, "opencode"),
      args: ["acp"],
      env: {
        HOME: agentHome,
        XDG_CONFIG_HOME: config,
        XDG_DATA_HOME: join(agentHome, ".local", "share"),
        XDG_STATE_HOME: join(agentHome, ".local", "state"),
        XDG_CACHE_HOME: join(agentHome, ".cache"),
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      },
    };
  },
};

const cx = pkg("@zed-industries/codex-acp");

/**
 * Codex through codex-acp, a custom model provider (wire_api "responses")
 * against the fake Responses API. CODEX_HOME is the agent's scratch dir.
 */
export const codex = {
  name: "codex",
  // The agent's own options the bridge answers with (measured; in the audit log).
  allowOnceOption: "approved",
  denyOption: "abort",
  package: cx.name,
  version: cx.version,
  startFake: startFakeOpenAIResponses,
  skip: () => cannotRun(join(binDir, "codex-acp"), ["--help"]),
  // The bridge launches Codex with approval_policy "untrusted" (its
  // profile, docs/agents.md): it asks for every command it does not know
  // to be read-only, so the model just runs the command. (A call asking to
  // leave Codex's sandbox, sandbox_permissions: require_escalated, is
  // refused by Codex itself under that policy without a tool call: "you
  // cannot ask for escalated permissions if the approval policy is
  // UnlessTrusted"; Codex's instructions for that policy tell the model
  // not to.)
  shell: (command) => ({ name: "exec_command", args: { cmd: command } }),
  // Codex has no file tools of its own here: reads, writes and fetches are
  // shell commands. A read (cat) is one Codex knows to be read-only: it
  // runs unasked and is reported as a tool call; a write or a fetch asks.
  shellWrite: true,
  read: (file) => ({ name: "exec_command", args: { cmd: `cat ${file}` } }),
  // An edit: Codex takes an apply_patch heredoc run through exec_command as
  // its patch (the fake's model gets no freeform apply_patch tool) and asks
  // for it as an edit.
  write: (file, content) => ({
    name: "exec_command",
    args: { cmd: `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ${file}\n${content.replace(/\n$/, "").split("\n").map((l) => "+" + l).join("\n")}\n*** End Patch\nEOF` },
  }),
  // auto applies workspace patches unasked (measured): kept from it.
  childBypassModes: ["auto", "full-access"],
  // Under approval_policy untrusted no preset matches: Codex offers no
  // session modes, and the bridge refuses its mode ids as unknown.
  offersNoModes: true,
  // The measured matrix: every deny ends the turn (abort). `cat .env` runs
  // unasked and is reported (its own sandbox is off inside the bridge's,
  // so it no longer fails silently): the bridge audits it (would deny,
  // the turn cancelled) and the OS sandbox masks .env, so the secret never
  // reaches the model (checked on every run).
  matrixExpect: {
    "*-rm": "deny:rule",
    "*-env": "unasked:deny",
    "*-hook": "card*1 deny:breaker+user",
    "plan-hook": "deny:breaker",
    "dontAsk-hook": "deny:breaker",
    "*-fetch": "deny:rule",
  },
  agentConfig({ apiUrl, agentHome, workspace }) {
    const codexHome = join(agentHome, ".codex");
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, "config.toml"),
      [
        `model = "fake-model"`,
        `model_provider = "fake"`,
        `[model_providers.fake]`,
        `name = "Fake Responses API"`,
        `base_url = ${JSON.stringify(`${apiUrl}/v1`)}`,
        `wire_api = "responses"`,
        `env_key = "OPENAI_API_KEY"`,
        `request_max_retries = 0`,
        `stream_max_retries = 0`,
        ``,
      ].join("\n"),
    );
    return {
      command: join(binDir, "codex-acp"),
      args: [],
      env: { HOME: agentHome, CODEX_HOME: codexHome, OPENAI_API_KEY: "sk-fake-codex" },
    };
  },
};

// Claude: the adapter interop/claude installs (its package.json pins it),
// against interop/claude's fake Messages API.
const claudeLib = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "claude", "lib");
const { ADAPTER, writeClaudeSettings } = await import(join(claudeLib, "bridge.mjs"));
const { startFakeAnthropic } = await import(join(claudeLib, "fake-anthropic.mjs"));

/** The Claude Agent ACP adapter (and the Claude Code CLI it ships). */
export const claude = {
  name: "claude",
  // The agent's own options the bridge answers with (measured; in the audit log).
  allowOnceOption: "allow-once",
  denyOption: "reject",
  package: ADAPTER.name,
  version: ADAPTER.version,
  async startFake(script = {}) {
    const finalText = script.finalText ?? "Done: the scripted model has nothing more to do.";
    // Without a scripted call, a tool name the CLI never offers: every request gets the text.
    const one = script.call ? { tool: script.call.name, input: script.call.args } : script.cells ? {} : { tool: "NoToolScripted", input: {}, sideText: finalText };
    const api = await startFakeAnthropic({ ...one, cells: script.cells, finalText });
    return { ...api, results: api.toolResults };
  },
  shell: (command) => ({ name: "Bash", args: { command, description: "Run the command the test scripted" } }),
  write: (file_path, content) => ({ name: "Write", args: { file_path, content } }),
  read: (file_path) => ({ name: "Read", args: { file_path } }),
  // WebFetch is not in the CLI's request tools here (deferred): proposed unlisted.
  fetch: (url) => ({ name: "WebFetch", args: { url, prompt: "Summarize the page." }, unlisted: true }),
  // auto; its acceptEdits, bypassPermissions and dontAsk are also the bridge's mode ids.
  childBypassModes: ["auto"],
  // issue 13: "switching from Plan to Don't ask left the agent in plan".
  matrixColumns: [{ id: "plan-dontAsk", steps: [{ mode: "plan" }, { mode: "dontAsk" }] }],
  // The measured matrix: Read runs unasked (audited would-deny, the turn
  // cancelled, the OS sandbox masks .env). In plan (forwarded: Claude's own
  // plan mode) Claude refuses Bash and Write itself (audited unasked); after
  // plan then dontAsk the bridge has moved it back to default: it asks for
  // the rm again (deny by rule), so it left its plan mode (issue 13).
  matrixExpect: {
    "*-rm": "deny:rule",
    "plan-rm": "unasked:deny",
    "*-env": "unasked:deny",
    "*-hook": "card*1 deny:breaker+user",
    "plan-hook": "unasked:deny",
    "dontAsk-hook": "deny:breaker",
    "plan-dontAsk-hook": "deny:breaker",
    "*-fetch": "deny:rule",
  },
  // permissions.defaultMode of Claude's own settings; null = unset (the
  // adapter then starts in "auto": see writeClaudeSettings).
  startMode: "default",
  agentConfig({ apiUrl, agentHome }) {
    writeClaudeSettings(agentHome, this.startMode);
    return {
      command: process.execPath,
      args: [ADAPTER.bin],
      env: { HOME: agentHome, IS_SANDBOX: "1", ANTHROPIC_BASE_URL: apiUrl, ANTHROPIC_API_KEY: "sk-ant-fake", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
    };
  },
};
