// The shadow-git checkpoint store against real git in temp dirs, and hunk undo.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { CheckpointStore } from "../../src/checkpoints";
import { hunks, undoHunks } from "../../src/review";
import { checkpointsOf } from "../../src/turnCheckpoints";

function tmp(): { ws: string; store: CheckpointStore; storage: string; outside: string } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acpb-cp-")));
  const ws = path.join(root, "ws");
  const storage = path.join(root, "storage", "checkpoints.git");
  const outside = path.join(root, "outside");
  fs.mkdirSync(ws);
  fs.mkdirSync(outside);
  return { ws, storage, outside, store: new CheckpointStore({ gitDir: storage, workTree: ws, maxFileBytes: 1000 }) };
}
const w = (ws: string, rel: string, s: string | Buffer) => {
  fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
  fs.writeFileSync(path.join(ws, rel), s);
};
const r = (ws: string, rel: string) => fs.readFileSync(path.join(ws, rel), "utf8");
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "p", GIT_AUTHOR_EMAIL: "p@x", GIT_COMMITTER_NAME: "p", GIT_COMMITTER_EMAIL: "p@x" } }).toString();

test("restore brings back modified, deleted and added files; redo goes forward again", async () => {
  const { ws, store } = tmp();
  w(ws, "main.go", "package main\n");
  w(ws, "src/a.txt", "a1\n");
  w(ws, "old.txt", "old\n");
  const before = await store.snapshot("turn 1");
  // The agent's turn, by any route.
  w(ws, "main.go", "package main\n// edited\n");
  fs.rmSync(path.join(ws, "old.txt"));
  w(ws, "src/new/b.txt", "b\n");
  const after = await store.snapshot("after turn 1");
  assert.deepEqual(
    (await store.changes(before, after)).sort((x, y) => x.path.localeCompare(y.path)),
    [
      { path: "main.go", status: "modified" },
      { path: "old.txt", status: "deleted" },
      { path: "src/new/b.txt", status: "added" },
    ],
  );
  const plan = await store.plan(before);
  assert.deepEqual(plan.changes.map((c) => `${c.action} ${c.path}`).sort(), ["create old.txt", "delete src/new/b.txt", "write main.go"]);
  await store.apply(plan);
  assert.equal(r(ws, "main.go"), "package main\n");
  assert.equal(r(ws, "old.txt"), "old\n");
  assert.equal(fs.existsSync(path.join(ws, "src/new")), false, "the emptied directory goes too");
  assert.equal(r(ws, "src/a.txt"), "a1\n");
  // Redo: restoring the snapshot taken before the restore.
  const redo = await store.plan(plan.from);
  await store.apply(redo);
  assert.equal(r(ws, "main.go"), "package main\n// edited\n");
  assert.equal(fs.existsSync(path.join(ws, "old.txt")), false);
  assert.equal(r(ws, "src/new/b.txt"), "b\n");
});

test("the person's own git repository is never touched", async () => {
  const { ws, store } = tmp();
  git(ws, "init", "-q");
  w(ws, "f.txt", "one\n");
  git(ws, "add", "f.txt");
  git(ws, "commit", "-qm", "person");
  const head = git(ws, "rev-parse", "HEAD");
  const index = fs.readFileSync(path.join(ws, ".git", "index"));
  const refs = git(ws, "for-each-ref");
  w(ws, "f.txt", "two\n");
  w(ws, "g.txt", "new\n");
  const cp = await store.snapshot("t");
  w(ws, "f.txt", "three\n");
  await store.apply(await store.plan(cp));
  assert.equal(r(ws, "f.txt"), "two\n");
  assert.equal(git(ws, "rev-parse", "HEAD"), head);
  assert.deepEqual(fs.readFileSync(path.join(ws, ".git", "index")), index, "the person's index is unchanged");
  assert.equal(git(ws, "for-each-ref"), refs);
  assert.match(git(ws, "status", "--porcelain"), /^ M f\.txt\n\?\? g\.txt\n$/);
  // The shadow repository's objects are not in the person's.
  assert.throws(() => git(ws, "cat-file", "-e", cp));
});

test("ignored and large files are neither recorded nor restored nor deleted", async () => {
  const { ws, store } = tmp();
  w(ws, ".gitignore", "build/\n*.log\n");
  w(ws, "keep.txt", "k\n");
  w(ws, "build/out.bin", "artifact-1");
  w(ws, "x.log", "log-1");
  w(ws, "big.dat", Buffer.alloc(2000, 1)); // over the 1000-byte limit of tmp()
  w(ws, "grows.txt", "small\n");
  const cp = await store.snapshot("t");
  const files = (await store.run(["ls-tree", "-r", "--name-only", cp])).toString().trim().split("\n").sort();
  assert.deepEqual(files, [".gitignore", "grows.txt", "keep.txt"]);
  // After: ignored files change, the large file changes, a small file grows past the limit.
  w(ws, "build/out.bin", "artifact-2");
  w(ws, "x.log", "log-2");
  w(ws, "big.dat", Buffer.alloc(3000, 2));
  w(ws, "grows.txt", "x".repeat(1500));
  w(ws, "keep.txt", "k2\n");
  const plan = await store.plan(cp);
  assert.deepEqual(plan.changes.map((c) => `${c.action} ${c.path}`), ["write keep.txt"]);
  assert.deepEqual(plan.skipped.map((s) => s.path), ["grows.txt"]);
  await store.apply(plan);
  assert.equal(r(ws, "keep.txt"), "k\n");
  assert.equal(r(ws, "build/out.bin"), "artifact-2");
  assert.equal(r(ws, "x.log"), "log-2");
  assert.equal(fs.statSync(path.join(ws, "big.dat")).size, 3000);
  assert.equal(r(ws, "grows.txt").length, 1500, "a file over the limit now is left as it is");
  // The grown file left the later checkpoint's index.
  const cp2 = await store.snapshot("t2");
  assert.equal((await store.run(["ls-tree", "-r", "--name-only", cp2])).toString().includes("grows.txt"), false);
});

test("a symbolic link an agent put on the way never lets a restore write outside the workspace", async () => {
  const { ws, store, outside } = tmp();
  w(ws, "src/conf.txt", "good\n");
  const cp = await store.snapshot("t");
  // Control: without the check, writing src/conf.txt through the link lands outside.
  fs.rmSync(path.join(ws, "src"), { recursive: true });
  fs.symlinkSync(outside, path.join(ws, "src"));
  fs.writeFileSync(path.join(ws, "src", "conf.txt"), "through the link\n");
  assert.equal(fs.readFileSync(path.join(outside, "conf.txt"), "utf8"), "through the link\n", "control: the link leads outside");
  fs.rmSync(path.join(outside, "conf.txt"));
  // Undoing that one file only: the link is on its way, so nothing is written.
  const one = await store.plan(cp, ["src/conf.txt"]);
  assert.deepEqual(one.changes.map((c) => `${c.action} ${c.path}`), ["create src/conf.txt"]);
  await assert.rejects(store.apply(one), /not a directory \(a symbolic link\?\)/);
  assert.deepEqual(fs.readdirSync(outside), [], "nothing written outside");
  // A whole restore removes the link itself (inside the workspace) first, then writes a real directory.
  const all = await store.plan(cp);
  assert.deepEqual(all.changes.map((c) => `${c.action} ${c.path}`), ["delete src", "create src/conf.txt"]);
  await store.apply(all);
  assert.equal(fs.lstatSync(path.join(ws, "src")).isDirectory(), true);
  assert.equal(r(ws, "src/conf.txt"), "good\n");
  assert.deepEqual(fs.readdirSync(outside), [], "nothing written outside");
});

test("a leaf replaced by a symbolic link is replaced, its target untouched", async () => {
  const { ws, store, outside } = tmp();
  w(ws, "a.txt", "mine\n");
  const cp = await store.snapshot("t");
  fs.writeFileSync(path.join(outside, "victim"), "victim\n");
  fs.rmSync(path.join(ws, "a.txt"));
  fs.symlinkSync(path.join(outside, "victim"), path.join(ws, "a.txt"));
  await store.apply(await store.plan(cp));
  assert.equal(fs.lstatSync(path.join(ws, "a.txt")).isFile(), true);
  assert.equal(r(ws, "a.txt"), "mine\n");
  assert.equal(fs.readFileSync(path.join(outside, "victim"), "utf8"), "victim\n");
});

test("files are recorded byte for byte, whatever the workspace's .gitattributes say", async () => {
  const { ws, store } = tmp();
  w(ws, ".gitattributes", "* text eol=lf\n*.txt filter=evil\n");
  const crlf = "one\r\ntwo\r\n";
  w(ws, "a.txt", crlf);
  const cp = await store.snapshot("t");
  assert.equal((await store.read(cp, "a.txt"))?.toString(), crlf);
  w(ws, "a.txt", "changed\n");
  await store.apply(await store.plan(cp));
  assert.equal(r(ws, "a.txt"), crlf);
});

test("bad paths and ids are refused", () => {
  const { store } = tmp();
  for (const bad of ["../x", "/etc/passwd", "a/../../x", ".git/config", "sub/.git/hooks/pre-commit", ""]) assert.throws(() => store.inside(bad), /not a path inside the workspace/, bad);
  assert.rejects(store.changes("HEAD", "HEAD~1"), /not a checkpoint id/);
});

test("a restore limited to some paths touches only those", async () => {
  const { ws, store } = tmp();
  w(ws, "a.txt", "a\n");
  w(ws, "b.txt", "b\n");
  const cp = await store.snapshot("t");
  w(ws, "a.txt", "A\n");
  w(ws, "b.txt", "B\n");
  await store.apply(await store.plan(cp, ["b.txt"]));
  assert.equal(r(ws, "a.txt"), "A\n");
  assert.equal(r(ws, "b.txt"), "b\n");
  assert.equal((await store.read(cp, "a.txt"))?.toString(), "a\n");
  assert.equal(await store.read(cp, "nope.txt"), undefined);
});

test("hunks: undoing one keeps the others", () => {
  const before = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  const lines = before.split("\n");
  lines[1] = "CHANGED 2";
  lines[25] = "CHANGED 26";
  const now = lines.join("\n");
  const hs = hunks("f.txt", before, now);
  assert.equal(hs.length, 2);
  assert.equal(hs[0].first, "line 2");
  const undoneFirst = undoHunks("f.txt", before, now, [0]);
  assert.match(undoneFirst, /^line 1\nline 2\n/);
  assert.match(undoneFirst, /CHANGED 26/);
  assert.equal(undoHunks("f.txt", before, now, [0, 1]), before);
  assert.throws(() => undoHunks("f.txt", before, now, [2]), /no hunk 3/);
});

test("prune forgets the checkpoints no chat refers to (after a grace period) and git drops their content", async () => {
  const { ws, store, storage } = tmp();
  const ids: string[] = [];
  for (const v of ["one", "two", "three"]) {
    w(ws, "f.txt", `${v} ${"x".repeat(200)}\n`);
    ids.push(await store.snapshot(v));
  }
  const blobOf = (id: string) => git(storage, "--git-dir", storage, "rev-parse", `${id}:f.txt`).trim();
  const blobs = ids.map(blobOf);
  const has = (oid: string) => {
    try {
      git(storage, "--git-dir", storage, "cat-file", "-e", oid);
      return true;
    } catch {
      return false;
    }
  };
  // Within the grace period nothing goes, referred to or not.
  assert.equal(await store.prune(new Set([ids[1]])), 0);
  assert.ok(ids.every(has));
  // Past it, only the one a chat refers to stays, with its content.
  assert.equal(await store.prune(new Set([ids[1]]), 0), 2);
  assert.equal(has(ids[1]) && has(blobs[1]), true, "the kept checkpoint and its file");
  // (The newest file's content stays while the shadow index holds it: it is the workspace's now.)
  assert.equal(has(ids[0]) || has(blobs[0]) || has(ids[2]), false, "the others are gone from the repository");
  assert.equal((await store.read(ids[1], "f.txt"))?.toString().startsWith("two "), true);
  // A new snapshot after a prune works as before.
  w(ws, "f.txt", "four\n");
  const four = await store.snapshot("four");
  assert.deepEqual(await store.changes(ids[1], four), [{ path: "f.txt", status: "modified" }]);
});

test("checkpointsOf: messages' checkpoints, both ends of a changes item and a restore's redo", () => {
  const ids = checkpointsOf([
    { items: [{ kind: "user", id: "u1", text: "a", checkpoint: "c1" }, { kind: "user", id: "u2", text: "b" }] },
    { items: [{ kind: "changes", id: "x", turn: 1, from: "c2", to: "c3", files: [] }, { kind: "restored", id: "r", text: "", redo: "c4" }, { kind: "agent", id: "a", text: "c5" }] as never },
  ]);
  assert.deepEqual([...ids].sort(), ["c1", "c2", "c3", "c4"]);
});
