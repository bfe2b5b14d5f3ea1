import assert from "node:assert/strict";
import { test } from "node:test";
import { fileTarget, IncrementalMarkdown, renderInline, renderMarkdown, safeLink } from "../../webview/markdown";
import { lineDiff, withContext } from "../../webview/diff";

const norm = (html: string) => html.replace(/\n/g, "");

test("markdown: the usual constructs", () => {
  const cases: [string, string][] = [
    ["plain", "<p>plain</p>"],
    ["**b** and *i* and `c` and ~~s~~", "<p><strong>b</strong> and <em>i</em> and <code>c</code> and <s>s</s></p>"],
    ["# Title", "<h3>Title</h3>"],
    ["#### Deep", "<h6>Deep</h6>"],
    ["- a\n- b", "<ul><li>a</li><li>b</li></ul>"],
    ["1. a\n2. b", "<ol><li>a</li><li>b</li></ol>"],
    ["3. c\n4. d", '<ol start="3"><li>c</li><li>d</li></ol>'],
    ["```go\nfunc main() {}\n```", '<pre><code class="language-go">func main() {}</code></pre>'],
    ["~~~python\nprint(1)\n~~~", '<pre><code class="language-python">print(1)</code></pre>'],
    ["> quote", "<blockquote><p>quote</p></blockquote>"],
    ["a\nb\n\nc", "<p>a<br>b</p><p>c</p>"],
    ["[docs](https://example.com/a?b=1&c=2)", '<p><a href="https://example.com/a?b=1&amp;c=2" title="https://example.com/a?b=1&amp;c=2">docs</a></p>'],
    ["---", "<hr>"],
    ["snake_case_name stays", "<p>snake_case_name stays</p>"],
  ];
  for (const [src, want] of cases) assert.equal(norm(renderMarkdown(src)), want, src);
});

test("markdown: tables, with alignment as classes (the CSP allows no style attributes)", () => {
  const html = norm(renderMarkdown("| name | size | kind |\n|:--|--:|:-:|\n| a.go | 12 | file |\n| `b` | **3** | dir |"));
  assert.equal(
    html,
    '<table><thead><tr><th class="align-left">name</th><th class="align-right">size</th><th class="align-center">kind</th></tr></thead>' +
      '<tbody><tr><td class="align-left">a.go</td><td class="align-right">12</td><td class="align-center">file</td></tr>' +
      '<tr><td class="align-left"><code>b</code></td><td class="align-right"><strong>3</strong></td><td class="align-center">dir</td></tr></tbody></table>',
  );
  assert.doesNotMatch(renderMarkdown("| a |\n|:-:|\n| b |"), /style=/);
});

test("markdown: nested lists keep their nesting, loose lists their paragraphs", () => {
  assert.equal(
    norm(renderMarkdown("- a\n  - b\n    - c\n  - d\n- e\n  1. one\n  2. two")),
    "<ul><li>a<ul><li>b<ul><li>c</li></ul></li><li>d</li></ul></li><li>e<ol><li>one</li><li>two</li></ol></li></ul>",
  );
  assert.equal(norm(renderMarkdown("- a\n\n- b")), "<ul><li><p>a</p></li><li><p>b</p></li></ul>");
  assert.equal(norm(renderMarkdown("1. step\n   ```sh\n   make\n   ```")), '<ol><li>step<pre><code class="language-sh">make</code></pre></li></ol>');
});

test("markdown: no HTML, script, image or unsafe link ever passes through", () => {
  const evil = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<IMG SRC=x ONERROR=alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](java\tscript:alert(1))",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html,<script>alert(1)</script>)",
    "[x](data:image/png;base64,AAAA)",
    "![x](https://tracker.example/pixel.png)",
    "![x](data:image/png;base64,AAAA)",
    "[x](//evil.example/a)",
    "[x][r]\n\n[r]: javascript:alert(1)",
    "<javascript:alert(1)>",
    '[x](https://a.b/" onmouseover="alert(1))',
    "`<b>` **<i>x</i>**",
    "```\n</code></pre><script>x</script>\n```",
    "# <svg onload=alert(1)>",
    "- <iframe src=//evil>",
    "| <script>x</script> |\n|---|\n| <img src=x onerror=alert(1)> |",
    // linkify: bare URLs become links only with safe schemes
    "see javascript:alert(1) and vbscript:x and data:text/html,x and //evil.example and file:///etc/passwd",
    "ftp://files.example/x and www.example.com and a@b.example",
  ];
  for (const src of evil) {
    const html = renderMarkdown(src);
    assert.doesNotMatch(html, /<(script|img|iframe|svg|i>|b>|object|embed|style)/i, src);
    assert.doesNotMatch(html, /href="(?!https?:|mailto:|file:)/i, src);
    assert.doesNotMatch(html, /href="[^"]*(javascript|vbscript|data):/i, src);
    assert.doesNotMatch(html, /\son\w+="/i, src);
    assert.doesNotMatch(html, /\sstyle="/i, src);
  }
  assert.equal(renderInline("[x](javascript:alert(1))"), "[x](javascript:alert(1))");
  assert.match(renderMarkdown("see https://example.com/x now"), /<a href="https:\/\/example.com\/x"/, "linkify makes web links");
  assert.match(renderMarkdown("mail a@b.example"), /<a href="mailto:a@b.example"/);
  assert.doesNotMatch(renderMarkdown("ftp://files.example/x"), /<a /, "ftp is not a safe scheme");
});

test("markdown: safeLink and file links", () => {
  for (const u of ["https://x.example", "http://x", "mailto:a@b", "file:///w/a.go", "src/a.go", "./README.md", "#top"]) assert.ok(safeLink(u), u);
  for (const u of ["javascript:alert(1)", "JAVASCRIPT:x", "data:text/html,x", "vbscript:x", "//evil.example", "ftp://x", "chrome://settings", "command:workbench.action.quit", "a b", "x\\y"])
    assert.ok(!safeLink(u), u);
  assert.deepEqual(fileTarget("src/a.go:12"), { path: "src/a.go", line: 12 });
  assert.deepEqual(fileTarget("file:///w/a%20b.go#L7"), { path: "/w/a b.go", line: 7 });
  assert.deepEqual(fileTarget("./README.md"), { path: "./README.md", line: undefined });
  assert.equal(fileTarget("https://x.example"), undefined);
  assert.equal(fileTarget("#top"), undefined);
  assert.equal(
    norm(renderMarkdown("[main](src/main.go:3)")),
    '<p><a href="src/main.go:3" title="src/main.go:3" data-file="src/main.go" data-line="3">main</a></p>',
    "the webview opens data-file links in the editor",
  );
});

test("markdown: an unclosed fence (still streaming) renders as code", () => {
  assert.equal(renderMarkdown("```\nline 1\nline <2>"), "<pre><code>line 1\nline &lt;2&gt;</code></pre>\n");
});

// A reply with every block kind, including the ones whose meaning depends on
// later lines (setext headings, lazy quotes, tables, loose lists).
const REPLY = `# Report

Some text with **bold** and a [link](https://example.com).
More text on the next line, see https://example.com/a.

- item 1
- item 2
  - nested a
  - nested b

- loose item

1. one
2. two

| col a | col b |
|---|--:|
| 1 | 2 |
| 3 | 4 |

\`\`\`ts
const x = 1;

const y = 2;
\`\`\`

> quote
lazy line

Setext
---

para
# heading
[x][r]

[r]: https://r.example

    indented code

final *para*`;

function feed(src: string, seed: number, maxChunk: number): { html: string; inc: IncrementalMarkdown } {
  let r = seed;
  const rnd = () => (r = (r * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const inc = new IncrementalMarkdown();
  let n = 0;
  let committed = "";
  let tail = "";
  while (n < src.length) {
    n = Math.min(src.length, n + 1 + Math.floor(rnd() * maxChunk));
    const u = inc.update(src.slice(0, n));
    committed += u.commit;
    tail = u.tail;
  }
  return { html: committed + tail, inc };
}

test("incremental markdown: any chunking gives what a whole render gives", () => {
  const want = renderMarkdown(REPLY);
  for (let seed = 1; seed <= 200; seed++) assert.equal(feed(REPLY, seed, 1 + (seed % 40)).html, want, `seed ${seed}`);
  // one character at a time
  assert.equal(feed(REPLY, 7, 1).html, want);
});

test("incremental markdown: a long reply costs linear work", () => {
  const block = "Paragraph with `code` and **bold**, quite long to look like prose.\n\n- a\n- b\n\n```js\nlet a = 1;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n";
  const src = block.repeat(2000); // ~290 KB
  const { html, inc } = feed(src, 3, 200);
  assert.equal(html, renderMarkdown(src));
  // Each character is parsed a bounded number of times (the unfinished tail
  // again per update), not once per update as a whole re-render would.
  assert.ok(inc.parsed < src.length * 8, `parsed ${inc.parsed} characters for ${src.length}`);
});

test("diff: added, removed and changed lines, with context and gaps", () => {
  const old = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"].join("\n");
  const neu = ["a", "b", "c", "d", "e", "F", "g", "h", "i", "j", "k"].join("\n");
  const d = lineDiff(old, neu);
  assert.deepEqual(
    d.filter((l) => l.op !== " "),
    [
      { op: "-", text: "f" },
      { op: "+", text: "F" },
      { op: "+", text: "k" },
    ],
  );
  const c = withContext(d, 1);
  assert.deepEqual(
    c.map((l) => l.op + l.text),
    ["…4 unchanged lines", " e", "-f", "+F", " g", "…2 unchanged lines", " j", "+k"],
  );
  assert.deepEqual(lineDiff(null, "x\ny"), [
    { op: "+", text: "x" },
    { op: "+", text: "y" },
  ]);
  assert.deepEqual(lineDiff("x\ny", ""), [
    { op: "-", text: "x" },
    { op: "-", text: "y" },
  ]);
  assert.deepEqual(
    lineDiff("keep\ndrop\nkeep2", "keep\nkeep2\nnew"),
    [
      { op: " ", text: "keep" },
      { op: "-", text: "drop" },
      { op: " ", text: "keep2" },
      { op: "+", text: "new" },
    ],
  );
  assert.deepEqual(lineDiff("same", "same"), [{ op: " ", text: "same" }]);
});

test("diff: every line of both sides is kept, in order, for large inputs too", () => {
  const A = Array.from({ length: 5000 }, (_, i) => `line ${i}`);
  const B = A.map((l, i) => (i % 97 === 0 ? `${l} changed` : l));
  B.splice(2500, 0, "inserted");
  const d = lineDiff(A.join("\n"), B.join("\n"));
  assert.deepEqual(d.filter((l) => l.op !== "+").map((l) => l.text), A, "old side");
  assert.deepEqual(d.filter((l) => l.op !== "-").map((l) => l.text), B, "new side");
  assert.equal(d.filter((l) => l.op === "+").length, Math.ceil(5000 / 97) + 1);
  // A total rewrite of a large file gives up early: all removed, then all added.
  const C = A.map((l) => `${l} rewritten`);
  const r = lineDiff(A.join("\n"), C.join("\n"));
  assert.equal(r.length, 10000);
  assert.deepEqual(r.filter((l) => l.op !== "+").map((l) => l.text), A);
  assert.deepEqual(r.filter((l) => l.op !== "-").map((l) => l.text), C);
});
