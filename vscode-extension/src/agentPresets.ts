// "ACP Bridge: Add Agent…": the agent families the bridge has profiles for
// (profiles/, docs/agents.md), each with the command that runs its ACP side,
// how to install it, and whether it is installed here (its program on PATH of
// the extension host, which runs where the bridge runs: the remote machine in
// code-server and remote windows). Pure but for the file-system probe, which
// takes its PATH and a stat function so tests can give their own.

import * as fs from "node:fs";
import * as path from "node:path";
import type { AgentSetting, AgentsSetting } from "./settings";

export interface AgentPreset {
  /** The id it gets in acpBridge.agents (the person may pick another one). */
  id: string;
  name: string;
  /** The bridge's profile family (docs/agents.md). */
  family: string;
  command: string;
  args: string[];
  /** A shell command that installs it, run in a terminal on request. */
  install: string;
  /** Where to read more. */
  docs: string;
}

/** The families the bridge knows (profiles/profile.go), as the agents' own docs say to run their ACP side. */
export const AGENT_PRESETS: AgentPreset[] = [
  {
    id: "claude",
    name: "Claude Code",
    family: "claude",
    command: "claude-agent-acp",
    args: [],
    install: "npm install -g @agentclientprotocol/claude-agent-acp",
    docs: "https://github.com/agentclientprotocol/claude-agent-acp",
  },
  { id: "gemini", name: "Gemini CLI", family: "gemini", command: "gemini", args: ["--acp"], install: "npm install -g @google/gemini-cli", docs: "https://github.com/google-gemini/gemini-cli" },
  { id: "codex", name: "Codex", family: "codex", command: "codex-acp", args: [], install: "npm install -g @zed-industries/codex-acp", docs: "https://github.com/zed-industries/codex-acp" },
  { id: "opencode", name: "OpenCode", family: "opencode", command: "opencode", args: ["acp"], install: "npm install -g opencode-ai", docs: "https://opencode.ai/docs/acp/" },
  { id: "qwen", name: "Qwen Code", family: "qwen", command: "qwen", args: ["--acp"], install: "npm install -g @qwen-code/qwen-code", docs: "https://github.com/QwenLM/qwen-code" },
  {
    id: "goose",
    name: "Goose",
    family: "goose",
    command: "goose",
    args: ["acp"],
    install: "curl -fsSL https://github.com/block/goose/releases/download/stable/download_cli.sh | CONFIGURE=false bash",
    docs: "https://block.github.io/goose/docs/getting-started/installation",
  },
];

export type IsExecutable = (file: string) => boolean;

export const isExecutableFile: IsExecutable = (file) => {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The file a command runs, found the way the bridge finds it (exec.LookPath):
 * a command with a slash is that file; else the first executable of that name
 * in PATH's directories (relative directories of PATH are skipped, as Go does).
 * undefined: not installed here.
 */
export function findOnPath(command: string, pathEnv: string | undefined, isExec: IsExecutable = isExecutableFile): string | undefined {
  if (!command) return undefined;
  if (command.includes("/")) return isExec(command) ? command : undefined;
  for (const dir of (pathEnv ?? "").split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const f = path.join(dir, command);
    if (isExec(f)) return f;
  }
  return undefined;
}

/** "${bridge}" (the bundled binary) counts as installed; everything else must be on PATH. */
export function agentInstalled(a: Pick<AgentSetting, "command">, pathEnv: string | undefined, isExec: IsExecutable = isExecutableFile, bridgePath?: string): boolean {
  const cmd = a.command ?? "";
  if (cmd === "${bridge}" || (bridgePath && cmd === bridgePath)) return true;
  return findOnPath(cmd, pathEnv, isExec) !== undefined;
}

/** A custom agent's command line, split on spaces with "double" or 'single' quotes kept together. */
export function splitCommandLine(line: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote: string | undefined;
  let has = false;
  for (const ch of line.trim()) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur) out.push(cur);
      cur = "";
      has = false;
    } else cur += ch;
  }
  if (quote) throw new Error(`unclosed ${quote} in the command line`);
  if (has || cur) out.push(cur);
  return out;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why an id cannot name a new agent, or undefined when it can. */
export function agentIdProblem(id: string, existing: Record<string, unknown>): string | undefined {
  if (!ID.test(id)) return "an agent id is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit";
  if (Object.prototype.hasOwnProperty.call(existing, id)) return `an agent named "${id}" exists already: pick another id`;
  return undefined;
}

/**
 * The new value of acpBridge.agents in user settings with one agent added: it
 * starts from the user layer only (never the merged value: the defaults stay
 * defaults), and never replaces an agent of that layer.
 */
export function planAddAgent(userLayer: AgentsSetting | undefined, id: string, agent: { command: string; args: string[] }): AgentsSetting {
  const cur: AgentsSetting = userLayer ? (JSON.parse(JSON.stringify(userLayer)) as AgentsSetting) : {};
  if (cur[id]) throw new Error(`an agent named "${id}" exists in your settings already`);
  if (!agent.command) throw new Error("the agent's command is empty");
  cur[id] = { command: agent.command, args: [...agent.args] };
  return cur;
}
