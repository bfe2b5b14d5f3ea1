// The composer's context: buttons to attach @file, the selection and the open
// editors (the host shows the pickers and checks the policy), "@" typed at a
// word's start opens the file picker, and the attached refs as removable
// chips until the message is sent.

import { contextKey, type ContextRef, type WebviewMessage } from "../src/protocol";

export interface ContextBar {
  /** The chips row and the buttons, to place in the composer. */
  readonly chips: HTMLElement;
  readonly buttons: HTMLElement;
  /** The refs to send with the next message. */
  refs(): ContextRef[];
  clear(): void;
  add(refs: ContextRef[]): void;
}

export function createContextBar(input: HTMLTextAreaElement, ask: (what: "file" | "selection" | "editors") => void): ContextBar {
  const attached = new Map<string, ContextRef>();
  const chips = document.createElement("div");
  chips.className = "context-chips";
  chips.setAttribute("aria-label", "Attached context");
  chips.hidden = true;
  const buttons = document.createElement("div");
  buttons.className = "context-buttons";
  const button = (what: "file" | "selection" | "editors", iconName: string, label: string, title: string) => {
    const b = document.createElement("button");
    b.className = "secondary context-add";
    b.dataset["context"] = what;
    b.title = title;
    b.setAttribute("aria-label", title);
    const i = document.createElement("i");
    i.className = `codicon codicon-${iconName}`;
    i.setAttribute("aria-hidden", "true");
    b.append(i);
    if (label) b.append(` ${label}`);
    b.addEventListener("click", () => ask(what));
    return b;
  };
  buttons.append(
    button("file", "mention", "", "Attach a workspace file (or type @)"),
    button("selection", "selection", "", "Attach the editor's selection"),
    button("editors", "files", "", "Attach every file open in an editor"),
  );

  const render = () => {
    chips.replaceChildren(
      ...[...attached.entries()].map(([key, r]) => {
        const chip = document.createElement("span");
        chip.className = `chip ${r.kind}`;
        chip.dataset["uri"] = r.uri;
        chip.title = r.path;
        const i = document.createElement("i");
        i.className = `codicon codicon-${r.kind === "selection" ? "selection" : "file"}`;
        i.setAttribute("aria-hidden", "true");
        const label = document.createElement("span");
        label.className = "chip-label";
        label.textContent = r.label;
        const x = document.createElement("button");
        x.className = "chip-remove";
        x.title = `Remove ${r.label}`;
        x.setAttribute("aria-label", `Remove ${r.label}`);
        x.textContent = "×";
        x.addEventListener("click", () => {
          attached.delete(key);
          render();
          input.focus();
        });
        chip.append(i, label, x);
        return chip;
      }),
    );
    chips.hidden = attached.size === 0;
  };

  // "@" at the start of a word opens the file picker; the chip replaces it.
  input.addEventListener("input", (e) => {
    const ie = e as InputEvent;
    if (ie.data !== "@") return;
    const at = input.selectionStart - 1;
    if (at < 0 || input.value[at] !== "@" || (at > 0 && !/\s/.test(input.value[at - 1]))) return;
    input.value = input.value.slice(0, at) + input.value.slice(at + 1);
    input.setSelectionRange(at, at);
    ask("file");
  });

  return {
    chips,
    buttons,
    refs: () => [...attached.values()],
    clear: () => {
      attached.clear();
      render();
    },
    add: (refs) => {
      for (const r of refs) attached.set(contextKey(r), r);
      render();
    },
  };
}

/** The message a context button posts. */
export function addContextMessage(what: "file" | "selection" | "editors", chatId: string | undefined, agent: string | undefined): WebviewMessage {
  return { type: "addContext", what, chatId, agent };
}
