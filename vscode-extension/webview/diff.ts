// Line diff for the diff views of tool calls and approval cards, computed by
// jsdiff (Myers' O(ND) algorithm). Pure.

import { diffArrays } from "diff";

export type DiffLine = { op: " " | "+" | "-"; text: string };

/**
 * Beyond this many edits the diff is given up: all of the old text is shown
 * removed and all of the new text added, so one huge rewrite cannot block the
 * webview (Myers' cost is lines × edits). A bound on edits, not on time: the
 * same diff always looks the same, however busy the machine.
 */
const MAX_EDITS = 1_000;

/** A line diff of a and b (null = a new file): every line of both, each kept, removed or added. */
export function lineDiff(a: string | null, b: string): DiffLine[] {
  const A = a === null || a === "" ? [] : a.split("\n");
  const B = b === "" ? [] : b.split("\n");
  const out: DiffLine[] = [];
  const changes = diffArrays(A, B, { maxEditLength: MAX_EDITS });
  if (!changes) {
    for (const text of A) out.push({ op: "-", text });
    for (const text of B) out.push({ op: "+", text });
    return out;
  }
  for (const c of changes) {
    const op = c.added ? "+" : c.removed ? "-" : " ";
    for (const text of c.value) out.push({ op, text });
  }
  return out;
}

/** Keeps changed lines with `context` lines around them; "…" marks a gap. */
export function withContext(lines: DiffLine[], context = 3): (DiffLine | { op: "…"; text: string })[] {
  const keep = new Array(lines.length).fill(false);
  lines.forEach((l, i) => {
    if (l.op !== " ") for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) keep[k] = true;
  });
  const out: (DiffLine | { op: "…"; text: string })[] = [];
  let skipped = 0;
  lines.forEach((l, i) => {
    if (keep[i]) {
      if (skipped) out.push({ op: "…", text: `${skipped} unchanged line${skipped === 1 ? "" : "s"}` });
      skipped = 0;
      out.push(l);
    } else skipped++;
  });
  if (skipped && out.length) out.push({ op: "…", text: `${skipped} unchanged line${skipped === 1 ? "" : "s"}` });
  return out;
}
