// Line diff for the diff views of tool calls and approval cards. Pure.

export type DiffLine = { op: " " | "+" | "-"; text: string };

const MAX_CELLS = 250_000;

/** A line diff of a and b (LCS); for very large inputs, all of a removed then all of b added. */
export function lineDiff(a: string | null, b: string): DiffLine[] {
  const A = a === null || a === "" ? [] : a.split("\n");
  const B = b === "" ? [] : b.split("\n");
  // Trim the common head and tail first: edits are usually local.
  let head = 0;
  while (head < A.length && head < B.length && A[head] === B[head]) head++;
  let tail = 0;
  while (tail < A.length - head && tail < B.length - head && A[A.length - 1 - tail] === B[B.length - 1 - tail]) tail++;
  const a2 = A.slice(head, A.length - tail);
  const b2 = B.slice(head, B.length - tail);
  const out: DiffLine[] = A.slice(0, head).map((text) => ({ op: " ", text }));
  if (a2.length * b2.length > MAX_CELLS) {
    for (const t of a2) out.push({ op: "-", text: t });
    for (const t of b2) out.push({ op: "+", text: t });
  } else {
    const n = a2.length;
    const m = b2.length;
    const L: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i][j] = a2[i] === b2[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (a2[i] === b2[j]) {
        out.push({ op: " ", text: a2[i] });
        i++;
        j++;
      } else if (L[i + 1][j] >= L[i][j + 1]) out.push({ op: "-", text: a2[i++] });
      else out.push({ op: "+", text: b2[j++] });
    }
    while (i < n) out.push({ op: "-", text: a2[i++] });
    while (j < m) out.push({ op: "+", text: b2[j++] });
  }
  for (const t of A.slice(A.length - tail)) out.push({ op: " ", text: t });
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
