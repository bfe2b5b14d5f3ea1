// Small text helpers for the fs/* requests the host serves. Pure.

/** Lines [line, line+limit) of text, 1-based line, as fs/read_text_file defines them. */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  if (!line && !limit) return text;
  const lines = text.split("\n");
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit && limit > 0 ? start + limit : lines.length;
  return lines.slice(start, end).join("\n");
}

/** Where the bridge writes its audit log unless configured otherwise. */
export function defaultAuditPath(env: Record<string, string | undefined>, home: string): string {
  const base = env["XDG_CONFIG_HOME"] || `${home}/.config`;
  return `${base}/acp-bridge/audit.jsonl`;
}
