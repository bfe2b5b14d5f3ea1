// Starts the real acp-bridge binary with one agent, "claude": the
// npm-installed Claude Agent ACP adapter (which runs the Claude Code CLI it
// ships), pointed at a fake Messages API on 127.0.0.1. Records every line
// either side of the bridge's stdio writes (a transcript) and hands the SDK
// an ndJsonStream.

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runBridge } from "../../ts/lib/bridge.mjs";

const require = createRequire(import.meta.url);

/**
 * The adapter package under test: {name, version, bin} (bin: absolute path
 * of its entry script). The pinned @agentclientprotocol/claude-agent-acp,
 * or the package directory in $ACP_INTEROP_CLAUDE_ADAPTER_DIR (e.g. an
 * installed @zed-industries/claude-code-acp, the adapter's former name).
 */
export const ADAPTER = (() => {
  const dir = process.env.ACP_INTEROP_CLAUDE_ADAPTER_DIR;
  const pkgFile = dir ? join(dir, "package.json") : require.resolve("@agentclientprotocol/claude-agent-acp/package.json");
  const pkg = JSON.parse(readFileSync(pkgFile, "utf8"));
  const bins = typeof pkg.bin === "string" ? [pkg.bin] : Object.values(pkg.bin ?? {});
  if (bins.length !== 1) throw new Error(`${pkgFile}: want exactly one bin, found ${JSON.stringify(pkg.bin)}`);
  return { name: pkg.name, version: pkg.version, bin: join(dirname(pkgFile), bins[0]) };
})();

/**
 * process.env without the bridge's settings, HOME and XDG dirs, and without
 * anything that could point Claude at a real account or endpoint.
 */
function isolatedEnv(home) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(ACP_BRIDGE_|XDG_|ANTHROPIC_|CLAUDE_|AWS_|GOOGLE_|VERTEX_)/.test(k) || k === "HOME") continue;
    env[k] = v;
  }
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CACHE_HOME: join(home, ".cache"),
  };
}

/**
 * Writes the Claude Code user settings of the agent's scratch HOME. From
 * 0.101 the adapter starts a session in Claude Code's "auto" mode (Claude
 * decides its own permissions and asks for nothing) unless
 * permissions.defaultMode is set; "default" is the mode that asks, as a user
 * who runs Claude behind the bridge sets it today. Pass mode = null for no
 * setting at all (the adapter's built-in start mode).
 * @param {string} agentHome
 * @param {string|null} [mode]
 */
export function writeClaudeSettings(agentHome, mode = "default") {
  mkdirSync(join(agentHome, ".claude"), { recursive: true });
  const settings = mode === null ? {} : { permissions: { defaultMode: mode } };
  writeFileSync(join(agentHome, ".claude", "settings.json"), JSON.stringify(settings, null, 2) + "\n");
}

/**
 * The bridge config: agent "claude" = node running the adapter, offline.
 * The agent's HOME is its own temporary directory; IS_SANDBOX=1 lets the
 * Claude Code CLI run as root (acp-protocol.md §7, pitfall 11).
 * @param {{apiUrl: string, agentHome: string, permissions?: object}} o
 */
export function claudeConfig({ apiUrl, agentHome, permissions, sandbox }) {
  const config = {
    defaultAgent: "claude",
    agents: {
      claude: {
        command: process.execPath,
        args: [ADAPTER.bin],
        env: {
          HOME: agentHome,
          IS_SANDBOX: "1",
          ANTHROPIC_BASE_URL: apiUrl,
          ANTHROPIC_API_KEY: "sk-ant-fake",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        },
      },
    },
  };
  if (permissions) config.permissions = permissions;
  if (sandbox) config.sandbox = sandbox;
  // JSON is YAML: no quoting questions for paths and rules.
  return JSON.stringify(config, null, 2) + "\n";
}

/**
 * Starts acp-bridge with claudeConfig(...) in a fresh workspace.
 * @param {{name: string, apiUrl: string, permissions?: object}} o
 * @returns {{stream: acp.Stream, transcript: {dir: string, line: string}[], workspace: string, stderr: () => string, close: () => Promise<{code: number|null, signal: string|null, rest: string, timedOut?: boolean}>}}
 */
export function spawnClaudeBridge({ name, apiUrl, permissions, sandbox }) {
  const home = mkdtempSync(join(tmpdir(), "acp-interop-claude-home-"));
  const workspace = mkdtempSync(join(tmpdir(), "acp-interop-claude-ws-"));
  const agentHome = join(home, "agent-home");
  mkdirSync(agentHome);
  writeClaudeSettings(agentHome);
  const configFile = join(home, "config.yaml");
  writeFileSync(configFile, claudeConfig({ apiUrl, agentHome, permissions, sandbox }));
  // Own process group (runBridge): cleanup reaches the adapter and the CLI.
  return runBridge({
    name, prefix: "claude", home, workspace, env: isolatedEnv(home),
    args: ["--config", configFile, "--workspace", workspace, "--log-level", "debug"],
  });
}
