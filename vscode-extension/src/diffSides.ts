// The pure part of the diff editor (diffEditor.ts): what each side shows and
// which approval a diff document belongs to. No vscode import.

import type { DiffView } from "./protocol";

/**
 * The two sides to show. ACP's oldText/newText are whole files, but agents
 * (Claude Code's Edit) often send the replaced snippet only: when the file
 * holds that snippet exactly once, the sides are the whole file before and
 * after the replacement, so the diff editor shows the edit in place.
 */
export function diffSides(d: DiffView, current: string | undefined): { left: string; right: string; whole: boolean } {
  const oldText = d.oldText ?? "";
  if (current !== undefined && oldText && current !== oldText) {
    const at = current.indexOf(oldText);
    if (at >= 0 && current.indexOf(oldText, at + 1) < 0) {
      return { left: current, right: current.slice(0, at) + d.newText + current.slice(at + oldText.length), whole: true };
    }
  }
  return { left: oldText, right: d.newText, whole: false };
}

/** The approval id a right-hand diff document belongs to (its path is /<approvalId>/<n>/new/<file>). */
export function approvalOfDiffPath(p: string): string | undefined {
  const m = /^\/a:([^/]+)\/\d+\/new\//.exec(p);
  return m ? decodeURIComponent(m[1]) : undefined;
}
