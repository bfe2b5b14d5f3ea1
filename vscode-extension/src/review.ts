// Hunks of what an agent changed in a file, and undoing some of them, with jsdiff
// (`diff`, already the webview's diff engine): structuredPatch gives the hunks of
// checkpoint -> now, and undoing hunk i applies the reverse of that hunk alone to
// the file as it is now. Pure: no vscode, no fs.

import { applyPatch, reversePatch, structuredPatch, type StructuredPatch } from "diff";

export interface HunkView {
  index: number;
  /** "@@ -3,2 +3,4 @@" */
  header: string;
  /** Lines removed and added, for a one-line description. */
  removed: number;
  added: number;
  /** The first changed line, trimmed. */
  first: string;
}

export function filePatch(rel: string, before: string, now: string): StructuredPatch {
  return structuredPatch(rel, rel, before, now, "checkpoint", "now", { context: 3 });
}

export function hunks(rel: string, before: string, now: string): HunkView[] {
  return filePatch(rel, before, now).hunks.map((h, index) => {
    const changed = h.lines.filter((l) => l.startsWith("+") || l.startsWith("-"));
    return {
      index,
      header: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
      removed: changed.filter((l) => l.startsWith("-")).length,
      added: changed.filter((l) => l.startsWith("+")).length,
      first: (changed[0] ?? "").slice(1).trim(),
    };
  });
}

/**
 * The file's text with the chosen hunks of before -> now undone (the others kept).
 * Throws when the hunks no longer apply (the file changed since they were shown).
 */
export function undoHunks(rel: string, before: string, now: string, indexes: number[]): string {
  const p = filePatch(rel, before, now);
  const want = new Set(indexes);
  for (const i of want) if (!(i >= 0 && i < p.hunks.length)) throw new Error(`${rel} has no hunk ${i + 1}`);
  // Later hunks first: undoing one never moves the lines of an earlier one.
  let text = now;
  for (let i = p.hunks.length - 1; i >= 0; i--) {
    if (!want.has(i)) continue;
    const one = reversePatch({ ...p, hunks: [p.hunks[i]] });
    const out = applyPatch(text, one);
    if (out === false) throw new Error(`hunk ${i + 1} of ${rel} no longer applies: the file changed since`);
    text = out;
  }
  return text;
}
