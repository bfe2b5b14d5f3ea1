// The ACP content blocks of a prompt with attached context (@file, the
// selection, open editors). Pure: no vscode, so it is unit-tested as is.
//
// Per ACP, every agent takes text and resource_link blocks; an embedded
// `resource` (the text itself) only when the agent's
// promptCapabilities.embeddedContext is true. So each ref is a resource_link
// always, plus a resource with its text when the agent allows it. A
// selection's range travels in the URI fragment (#L3-5, as editors link to
// lines) and in _meta["acp-bridge"].range (exact characters).

import type { ContextRef } from "./protocol";
import { META_KEY } from "./wire";

export interface PromptCapabilities {
  image?: boolean;
  audio?: boolean;
  embeddedContext?: boolean;
}

/** Text larger than this is linked, not embedded. */
export const MAX_EMBED_BYTES = 256 * 1024;

export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string; _meta?: Record<string, unknown> }
  | { type: "resource"; resource: { uri: string; text: string; mimeType?: string }; _meta?: Record<string, unknown> };

/** The URI of a ref as sent: a selection gets its lines as the fragment (#L3-5, #L3 for one line). */
export function refUri(r: ContextRef): string {
  if (!r.range) return r.uri;
  const { startLine, endLine } = r.range;
  return `${r.uri}#L${startLine}${endLine !== startLine ? `-${endLine}` : ""}`;
}

/** A language's MIME type for a few common extensions (agents may use it; none is fine). */
export function mimeOf(path: string): string | undefined {
  const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
  const m: Record<string, string> = {
    md: "text/markdown",
    go: "text/x-go",
    ts: "text/x-typescript",
    js: "text/javascript",
    json: "application/json",
    py: "text/x-python",
    rs: "text/x-rust",
    txt: "text/plain",
    yaml: "application/yaml",
    yml: "application/yaml",
  };
  return m[ext];
}

/**
 * The prompt's blocks: the text first, then per ref a resource_link and, when
 * `caps.embeddedContext` and its text is known and not too large, a resource.
 */
export function promptBlocks(text: string, refs: { ref: ContextRef; text?: string }[], caps: PromptCapabilities | undefined): ContentBlock[] {
  const out: ContentBlock[] = [];
  if (text.trim()) out.push({ type: "text", text });
  for (const { ref, text: body } of refs) {
    const uri = refUri(ref);
    const mimeType = mimeOf(ref.path);
    const meta = ref.range ? { [META_KEY]: { range: ref.range } } : undefined;
    out.push({ type: "resource_link", uri, name: ref.label, ...(mimeType ? { mimeType } : {}), ...(meta ? { _meta: meta } : {}) });
    if (caps?.embeddedContext && body !== undefined && new TextEncoder().encode(body).length <= MAX_EMBED_BYTES) {
      out.push({ type: "resource", resource: { uri, text: body, ...(mimeType ? { mimeType } : {}) }, ...(meta ? { _meta: meta } : {}) });
    }
  }
  return out;
}

/** The part of `text` a selection covers (1-based lines, 0-based characters, end exclusive). */
export function sliceRange(text: string, r: NonNullable<ContextRef["range"]>): string {
  const lines = text.split("\n");
  const sel = lines.slice(r.startLine - 1, r.endLine);
  if (sel.length === 0) return "";
  if (sel.length === 1) return sel[0].slice(r.startCharacter, r.endCharacter);
  sel[0] = sel[0].slice(r.startCharacter);
  sel[sel.length - 1] = sel[sel.length - 1].slice(0, r.endCharacter);
  return sel.join("\n");
}

/** The promptCapabilities of an agents/list entry (its `capabilities` are the agent's agentCapabilities). */
export function agentPromptCaps(entry: { capabilities?: unknown } | undefined): PromptCapabilities | undefined {
  const c = entry?.capabilities;
  if (typeof c !== "object" || c === null) return undefined;
  const p = (c as Record<string, unknown>)["promptCapabilities"];
  if (typeof p !== "object" || p === null) return {};
  const o = p as Record<string, unknown>;
  return { image: o["image"] === true, audio: o["audio"] === true, embeddedContext: o["embeddedContext"] === true };
}
