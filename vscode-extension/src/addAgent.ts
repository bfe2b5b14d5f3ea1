// "ACP Bridge: Add Agent…": pick a family the bridge knows (or a custom
// command), see whether it is installed here, install it in a terminal, and
// store it in acpBridge.agents of the user settings (ConfigurationTarget.Global:
// acpBridge.agents is machine-scoped, so in a remote window, code-server
// included, VS Code writes it to the remote machine's settings, where the
// bridge reads it). Nothing is written for an id that exists already.

import * as vscode from "vscode";
import { AGENT_PRESETS, agentIdProblem, findOnPath, planAddAgent, splitCommandLine, type AgentPreset } from "./agentPresets";
import type { Ctx } from "./ctx";

type Pick = vscode.QuickPickItem & { preset?: AgentPreset; custom?: true };

/** Runs the install command in a terminal of its own, where the person sees it and can stop it. */
export function installInTerminal(p: AgentPreset): vscode.Terminal {
  const t = vscode.window.createTerminal({ name: `Install ${p.name}` });
  t.show();
  t.sendText(p.install, true);
  return t;
}

export async function addAgent(c: Ctx): Promise<string | undefined> {
  const raw = c.readRawSettings();
  const existing = c.configuredAgents();
  const pathEnv = process.env["PATH"];
  const items: Pick[] = AGENT_PRESETS.map((p) => {
    const found = findOnPath(p.command, pathEnv);
    return {
      label: `${found ? "$(check)" : "$(cloud-download)"} ${p.name}`,
      description: found ? `installed: ${found}` : `not installed: ${p.command} is not on PATH`,
      detail: `${[p.command, ...p.args].join(" ")}${found ? "" : ` · install: ${p.install}`}${existing[p.id] ? ` · "${p.id}" is configured already` : ""}`,
      preset: p,
    };
  });
  items.push({ label: "$(terminal) Custom command…", description: "any ACP agent: a program and its arguments", custom: true });
  const pick = await vscode.window.showQuickPick(items, { title: "ACP Bridge: add an agent", placeHolder: "Pick an agent to add (installed ones are marked)", matchOnDescription: true, matchOnDetail: true });
  if (!pick) return undefined;

  let command: string;
  let args: string[];
  let suggestedId: string;
  if (pick.preset) {
    const p = pick.preset;
    ({ command, args } = p);
    suggestedId = p.id;
    if (!findOnPath(p.command, pathEnv)) {
      // Not installed: said before it is used, with the way to install it.
      const install = "Install in Terminal";
      const anyway = "Add Anyway";
      const choice = await vscode.window.showWarningMessage(
        `${p.name} is not installed here: "${p.command}" is not on PATH.`,
        { modal: true, detail: `Install it with:\n${p.install}\n\nThen add it (or add it now and install it before its first chat). More: ${p.docs}` },
        install,
        anyway,
      );
      if (!choice) return undefined;
      if (choice === install) installInTerminal(p);
    }
  } else {
    const line = await vscode.window.showInputBox({
      title: "ACP Bridge: custom agent",
      prompt: "The program that speaks ACP on stdio, and its arguments",
      placeHolder: "my-agent --acp",
      validateInput: (v) => {
        try {
          return splitCommandLine(v).length ? undefined : "Type a program to run";
        } catch (e) {
          return (e as Error).message;
        }
      },
    });
    if (!line) return undefined;
    [command, ...args] = splitCommandLine(line);
    suggestedId = (command.split("/").pop() ?? "agent").replace(/[^A-Za-z0-9._-]/g, "-").replace(/^[^A-Za-z0-9]+/, "") || "agent";
    if (!findOnPath(command, pathEnv)) {
      const ok = await vscode.window.showWarningMessage(`"${command}" is not installed here (not on PATH, or not executable).`, { modal: true, detail: "Add it anyway? Its first chat will fail until it is installed." }, "Add Anyway");
      if (!ok) return undefined;
    }
  }
  let id = suggestedId;
  if (existing[id]) {
    let n = 2;
    while (existing[`${suggestedId}-${n}`]) n++;
    id = `${suggestedId}-${n}`;
  }
  const chosen = await vscode.window.showInputBox({
    title: "ACP Bridge: the new agent's id",
    prompt: "The name it has in the agent picker and in acpBridge.agents",
    value: id,
    validateInput: (v) => agentIdProblem(v.trim(), existing),
  });
  if (!chosen) return undefined;
  id = chosen.trim();
  const value = planAddAgent(raw.agents.globalValue, id, { command, args });
  await vscode.workspace.getConfiguration("acpBridge").update("agents", value, vscode.ConfigurationTarget.Global);
  const where = vscode.env.remoteName ? `the remote machine's settings (${vscode.env.remoteName})` : "your user settings";
  c.output.appendLine(`added agent ${id}: ${[command, ...args].join(" ")} (${where})`);
  const chat = "New Chat";
  void vscode.window.showInformationMessage(`ACP Bridge: agent "${id}" added to ${where} (acpBridge.agents).`, chat).then(async (p) => {
    if (p === chat) await vscode.commands.executeCommand("acpBridge.newChat", id);
  });
  return id;
}
