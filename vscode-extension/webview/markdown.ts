// Markdown of agent messages, rendered by markdown-it (CommonMark + GFM tables
// and strikethrough) configured for untrusted input:
// - html: false: raw HTML in the input is text, never markup (<script>, <img onerror>);
// - links only with http:, https:, mailto: and file links (file: URIs and
//   relative paths, opened in the editor by the webview); javascript:, data:,
//   vbscript:, protocol-relative //host and every other scheme stay text;
// - no images (a remote image would be a tracking pixel; the CSP blocks them anyway);
// - headings shifted by two levels (# is h3) to fit a chat bubble.
// Pure (no DOM), so it is unit-tested in node.
//
// IncrementalMarkdown renders a streamed message in linear time: top-level
// blocks that can no longer change (another block began after them) are
// rendered once and handed out as "committed" HTML; only the unfinished tail is
// re-parsed per frame.

import MarkdownIt, { type Env, type RendererRule } from "markdown-it";

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/** Whether a link target may become an href: http(s), mailto, file: and relative paths; nothing else. */
export function safeLink(url: string): boolean {
  // markdown-it normalises (percent-encodes) before asking; control characters and
  // whitespace are gone by then, but be strict anyway.
  const u = url.trim();
  if (!u || /[\u0000-\u001f\u007f\s\\]/.test(u)) return false;
  const m = SCHEME.exec(u);
  if (m) return ["http", "https", "mailto", "file"].includes(m[1].toLowerCase());
  // No scheme: a relative path or a #fragment, never protocol-relative (//host).
  return !u.startsWith("//");
}

/** Where a file link points, for the webview's "open in editor"; undefined for web links. */
export function fileTarget(href: string): { path: string; line?: number } | undefined {
  const m = SCHEME.exec(href);
  if (m && m[1].toLowerCase() !== "file") return undefined;
  if (href.startsWith("#")) return undefined;
  let rest = m ? href.slice(m[0].length).replace(/^\/\/(localhost)?(?=\/)/i, "") : href;
  let line: number | undefined;
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    const l = /^L?(\d+)/.exec(rest.slice(hash + 1));
    if (l) line = Number(l[1]);
    rest = rest.slice(0, hash);
  }
  // path:line, as agents often write it
  const pl = /^(.*?):(\d+)(?::\d+)?$/.exec(rest);
  if (pl && line === undefined) {
    rest = pl[1];
    line = Number(pl[2]);
  }
  let path: string;
  try {
    path = decodeURIComponent(rest);
  } catch {
    path = rest;
  }
  return path ? { path, line } : undefined;
}

function createRenderer() {
  const md = new MarkdownIt("default", { html: false, linkify: true, breaks: true, typographer: false });
  md.disable(["image"]);
  md.validateLink = safeLink;
  const rules = md.renderer.rules;
  const heading: RendererRule = (tokens, idx, options, _env, self) => {
    const t = tokens[idx];
    t.tag = `h${Math.min(6, Number(t.tag.slice(1)) + 2)}`;
    return self.renderToken(tokens, idx, options);
  };
  rules.heading_open = heading;
  rules.heading_close = heading;
  // Column alignment as a class: the webview's CSP allows no style attributes.
  const cell: RendererRule = (tokens, idx, options, _env, self) => {
    const t = tokens[idx];
    const style = String(t.attrGet("style") ?? "");
    if (style) {
      const align = /text-align:\s*(left|center|right)/.exec(style);
      t.attrs = (t.attrs ?? []).filter((a) => a[0] !== "style");
      if (align) t.attrJoin("class", `align-${align[1]}`);
    }
    return self.renderToken(tokens, idx, options);
  };
  rules.th_open = cell;
  rules.td_open = cell;
  rules.link_open = (tokens, idx, options, _env, self) => {
    const t = tokens[idx];
    const href = String(t.attrGet("href") ?? "");
    t.attrSet("title", href);
    const file = /^(https?|mailto):/i.test(href) ? undefined : fileTarget(href);
    if (file) {
      t.attrSet("data-file", file.path);
      if (file.line !== undefined) t.attrSet("data-line", String(file.line));
    }
    return self.renderToken(tokens, idx, options);
  };
  return md;
}

const md = createRenderer();

/** A whole markdown text; returns HTML. An unclosed fence (still streaming) renders as code. */
export function renderMarkdown(src: string): string {
  return md.render(src);
}

/** Inline markdown (code spans, emphasis, links) of one line; returns HTML without a <p>. */
export function renderInline(raw: string): string {
  return md.renderInline(raw);
}

/**
 * Renders a growing text in linear total time. update(text) takes the whole
 * text so far (which only grows) and returns:
 * - commit: HTML of blocks that are final, to append once after what was committed before;
 * - tail: HTML of the rest, replacing the previous tail.
 * committed + tail always equals what renderMarkdown(text) gives, except that a
 * link reference definition ([x]: url) applies only to text after it.
 */
export class IncrementalMarkdown {
  /** Characters of the text already committed. */
  private done = 0;
  /** Link reference definitions of the committed part. */
  private refs: NonNullable<Env["references"]> = {};
  /** Work counter for tests: characters parsed so far. */
  parsed = 0;

  update(text: string): { commit: string; tail: string } {
    let rest = text.slice(this.done);
    let commit = "";
    // Blocks are final once a later block began on a complete line: the line
    // after the last newline may still change (a partial "---" or "```").
    const complete = rest.lastIndexOf("\n");
    if (complete > 0) {
      const env = { references: { ...this.refs } };
      const head = rest.slice(0, complete + 1);
      this.parsed += head.length;
      const tokens = md.parse(head, env);
      // Top-level block starts (level 0 opening or self-contained tokens with a line map).
      const starts: { tok: number; line: number }[] = [];
      for (let i = 0; i < tokens.length; i++) {
        const t = tokens[i];
        if (t.level === 0 && t.nesting >= 0 && t.map) starts.push({ tok: i, line: t.map[0] });
      }
      // Everything before the last top-level block of the complete lines is final.
      if (starts.length >= 2) {
        const last = starts[starts.length - 1];
        const cut = lineOffset(head, last.line);
        const final = head.slice(0, cut);
        // Reference definitions of the final part only (not a half-streamed one further on).
        if (final.includes("]:")) {
          const e2 = { references: { ...this.refs } };
          md.parse(final, e2);
          this.refs = e2.references;
          this.parsed += final.length;
        }
        commit = md.renderer.render(tokens.slice(0, last.tok), md.options, env);
        this.done += cut;
        rest = rest.slice(cut);
      }
    }
    this.parsed += rest.length;
    const tail = rest ? md.renderer.render(md.parse(rest, { references: { ...this.refs } }), md.options, {}) : "";
    return { commit, tail };
  }
}

function lineOffset(s: string, line: number): number {
  let off = 0;
  for (let i = 0; i < line; i++) {
    const nl = s.indexOf("\n", off);
    if (nl < 0) return s.length;
    off = nl + 1;
  }
  return off;
}
