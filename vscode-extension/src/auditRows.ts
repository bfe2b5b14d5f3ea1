// The bridge's audit log (JSON lines, internal/audit Record) as table rows for
// the audit view, and the view's filters. Pure: no vscode, no DOM.

export interface AuditRow {
  time: string;
  agent: string;
  tool: string;
  specifier: string;
  decision: string;
  source: string;
  rule: string;
  reason: string;
  /** The line's number in the file (1-based), to find it in the raw view. */
  line: number;
}

export interface AuditFilter {
  agent?: string;
  decision?: string;
  text?: string;
}

/** Rows of complete lines; a malformed line is a row that says so, never dropped silently. */
export function parseAuditLines(text: string, firstLine = 1): AuditRow[] {
  const out: AuditRow[] = [];
  const lines = text.split("\n");
  lines.forEach((l, i) => {
    if (!l.trim()) return;
    const line = firstLine + i;
    let o: Record<string, unknown>;
    try {
      const v: unknown = JSON.parse(l);
      if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("not an object");
      o = v as Record<string, unknown>;
    } catch {
      out.push({ time: "", agent: "", tool: "", specifier: l.slice(0, 200), decision: "unreadable", source: "", rule: "", reason: "this line is not a JSON object", line });
      return;
    }
    const s = (k: string) => (typeof o[k] === "string" ? (o[k] as string) : "");
    const call = typeof o["call"] === "object" && o["call"] !== null ? (o["call"] as Record<string, unknown>) : {};
    const specifier = s("specifier");
    const tool = typeof call["tool"] === "string" && call["tool"] ? (call["tool"] as string) : /^([A-Za-z_][\w-]*)/.exec(specifier)?.[1] ?? "";
    const decision = s("decision") === "unasked" && s("would") ? `unasked (would ${s("would")})` : s("decision");
    out.push({ time: s("time"), agent: s("agent"), tool, specifier, decision, source: s("source"), rule: s("rule"), reason: s("reason"), line });
  });
  return out;
}

/**
 * Splits a chunk read from the file into complete lines and the unfinished
 * tail (kept until the bridge finishes writing it).
 */
export function splitComplete(buffered: string): { complete: string; rest: string } {
  const end = buffered.lastIndexOf("\n");
  if (end < 0) return { complete: "", rest: buffered };
  return { complete: buffered.slice(0, end + 1), rest: buffered.slice(end + 1) };
}

export function matches(r: AuditRow, f: AuditFilter): boolean {
  if (f.agent && r.agent !== f.agent) return false;
  if (f.decision && !r.decision.startsWith(f.decision)) return false;
  if (f.text) {
    const t = f.text.toLowerCase();
    if (![r.time, r.agent, r.tool, r.specifier, r.decision, r.source, r.rule, r.reason].some((x) => x.toLowerCase().includes(t))) return false;
  }
  return true;
}
