import { test } from "node:test";
import assert from "node:assert/strict";
import { NOT_OPEN, readTextFile, writeTextFile, type FsHost, type OpenDoc } from "../../src/fsOps";

// A host with the given open documents (path -> text, dirty); edits recorded.
function host(docs: Record<string, { text: string; dirty: boolean }>, refuse = false) {
  const edits: Array<{ path: string; content: string }> = [];
  const h: FsHost = {
    openDocument: (path) => {
      const d = docs[path];
      return d ? ({ getText: () => d.text, isDirty: d.dirty } satisfies OpenDoc) : undefined;
    },
    replaceAll: async (path, _doc, content) => {
      if (refuse) return false;
      edits.push({ path, content });
      docs[path]!.text = content;
      return true;
    },
  };
  return { h, edits };
}

test("fsOps read: an open document's text (unsaved edits included), sliced as ACP says; anything else is notOpen", async () => {
  const { h } = host({ "/w/open.ts": { text: "one\ntwo\nthree", dirty: true }, "/w/clean.ts": { text: "c", dirty: false } });
  const cases: Array<[string, number | null, number | null, unknown]> = [
    ["/w/open.ts", null, null, { content: "one\ntwo\nthree" }],
    ["/w/open.ts", 2, 1, { content: "two" }],
    ["/w/open.ts", 2, null, { content: "two\nthree" }],
    ["/w/clean.ts", null, null, { content: "c" }],
    ["/w/closed.ts", null, null, { content: "", _meta: NOT_OPEN }],
    ["/w/open.ts/", null, null, { content: "", _meta: NOT_OPEN }], // exactly that path, not a near one
    ["/w/OPEN.ts", null, null, { content: "", _meta: NOT_OPEN }],
  ];
  for (const [path, line, limit, want] of cases) {
    assert.deepEqual(await readTextFile(h, path, line, limit), want, `${path} ${line} ${limit}`);
  }
});

test("fsOps write: applied (unsaved) to an open dirty document only; a clean or closed one is notOpen and untouched", async () => {
  const docs = { "/w/dirty.ts": { text: "mine", dirty: true }, "/w/clean.ts": { text: "saved", dirty: false } };
  const { h, edits } = host(docs);
  assert.deepEqual(await writeTextFile(h, "/w/dirty.ts", "agent"), {});
  assert.deepEqual(await writeTextFile(h, "/w/clean.ts", "agent"), { _meta: NOT_OPEN });
  assert.deepEqual(await writeTextFile(h, "/w/closed.ts", "agent"), { _meta: NOT_OPEN });
  assert.deepEqual(edits, [{ path: "/w/dirty.ts", content: "agent" }]);
  assert.equal(docs["/w/clean.ts"].text, "saved");
  const refusing = host({ "/w/dirty.ts": { text: "x", dirty: true } }, true);
  await assert.rejects(writeTextFile(refusing.h, "/w/dirty.ts", "agent"), /VS Code refused the edit of \/w\/dirty.ts/);
});
