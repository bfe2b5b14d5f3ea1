import assert from "node:assert/strict";
import { test } from "node:test";
import { renderInline, renderMarkdown } from "../../webview/markdown";
import { lineDiff, withContext } from "../../webview/diff";

test("markdown: the usual constructs", () => {
  const cases: [string, string][] = [
    ["plain", "<p>plain</p>"],
    ["**b** and *i* and `c`", "<p><strong>b</strong> and <em>i</em> and <code>c</code></p>"],
    ["# Title", "<h3>Title</h3>"],
    ["- a\n- b", "<ul><li>a</li><li>b</li></ul>"],
    ["1. a\n2. b", "<ol><li>a</li><li>b</li></ol>"],
    ["```go\nfunc main() {}\n```", '<pre><code class="language-go">func main() {}</code></pre>'],
    ["> quote", "<blockquote><p>quote</p></blockquote>"],
    ["a\nb\n\nc", "<p>a<br>b</p>\n<p>c</p>"],
    ["[docs](https://example.com/a?b=1&c=2)", '<p><a href="https://example.com/a?b=1&amp;c=2" title="https://example.com/a?b=1&amp;c=2">docs</a></p>'],
    ["---", "<hr>"],
    ["snake_case_name stays", "<p>snake_case_name stays</p>"],
  ];
  for (const [src, want] of cases) assert.equal(renderMarkdown(src), want, src);
});

test("markdown: no HTML or script ever passes through", () => {
  const evil = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))",
    "[x](data:text/html,<script>)",
    '[x](https://a.b/" onmouseover="alert(1))',
    "`<b>` **<i>x</i>**",
    "```\n</code></pre><script>x</script>\n```",
    "# <svg onload=alert(1)>",
    "- <iframe src=//evil>",
  ];
  for (const src of evil) {
    const html = renderMarkdown(src);
    assert.doesNotMatch(html, /<(script|img|iframe|svg|i>|b>)/i, src);
    assert.doesNotMatch(html, /href="(?!https?:|mailto:)/i, src);
    assert.doesNotMatch(html, /\son\w+="/i, src);
  }
  assert.equal(renderInline("[x](javascript:alert(1))"), "[x](javascript:alert(1))");
});

test("markdown: an unclosed fence (still streaming) renders as code", () => {
  assert.equal(renderMarkdown("```\nline 1\nline <2>"), "<pre><code>line 1\nline &lt;2&gt;</code></pre>");
});

test("diff: line diff with context and gaps", () => {
  const old = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"].join("\n");
  const neu = ["a", "b", "c", "d", "e", "F", "g", "h", "i", "j", "k"].join("\n");
  const d = lineDiff(old, neu);
  assert.deepEqual(d.filter((l) => l.op !== " "), [
    { op: "-", text: "f" },
    { op: "+", text: "F" },
    { op: "+", text: "k" },
  ]);
  const c = withContext(d, 1);
  assert.deepEqual(c.map((l) => l.op + l.text), ["…4 unchanged lines", " e", "-f", "+F", " g", "…2 unchanged lines", " j", "+k"]);
  assert.deepEqual(lineDiff(null, "x\ny"), [{ op: "+", text: "x" }, { op: "+", text: "y" }]);
});
