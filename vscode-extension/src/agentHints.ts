// What to tell the person when an agent cannot start: one clear message with
// an install hint for the agent families we know. Pure: no vscode.

/** npm packages that provide the ACP agent of each known family. */
export const INSTALL_HINTS: { family: string; match: RegExp; pkg: string; name: string }[] = [
  { family: "claude", match: /claude/i, pkg: "@agentclientprotocol/claude-agent-acp", name: "Claude Code (ACP adapter)" },
  { family: "gemini", match: /gemini/i, pkg: "@google/gemini-cli", name: "Gemini CLI" },
  { family: "codex", match: /codex/i, pkg: "@zed-industries/codex-acp", name: "Codex (ACP adapter)" },
  { family: "opencode", match: /opencode/i, pkg: "opencode-ai", name: "OpenCode" },
  { family: "qwen", match: /qwen/i, pkg: "@qwen-code/qwen-code", name: "Qwen Code" },
];

const NOT_FOUND = /executable file not found|ENOENT|no such file or directory|command not found|not found in \$?PATH/i;

/** True when an agent start error means its program is not installed. */
export function isMissingAgent(message: string): boolean {
  return NOT_FOUND.test(message);
}

/**
 * The message for a session that could not start. A missing program gets
 * "X is not installed" and, for a known family, the npm package to install;
 * other errors are passed on as they are.
 */
export function agentStartMessage(agent: string, message: string, command?: string, args: string[] = []): string {
  if (!isMissingAgent(message)) return `Could not start a session with ${agent}: ${message}`;
  const hay = [agent, command ?? "", ...args].join(" ");
  const hint = INSTALL_HINTS.find((h) => h.match.test(hay));
  const prog = command ? `"${command}"` : "its program";
  const base = `${agent} is not installed: the bridge could not find ${prog} on PATH.`;
  if (!hint) return `${base} Install it, or set its command in the acpBridge.agents setting.`;
  return `${base} Install ${hint.name} with: npm install -g ${hint.pkg} (then start a new chat), or set its command in the acpBridge.agents setting.`;
}

/** The bridge's config files a grant can go to when the editor cannot store it. */
export function bridgeConfigPath(scope: "user" | "workspace", env: Record<string, string | undefined>, home: string, workspace?: string): string {
  if (scope === "workspace" && workspace) return `${workspace}/.acp-bridge.yaml`;
  const base = env["XDG_CONFIG_HOME"] || `${home}/.config`;
  return `${base}/acp-bridge/config.yaml`;
}
