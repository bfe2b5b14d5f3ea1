// Checkpoints: the workspace's files recorded before (and after) each turn in a
// shadow git repository of the extension's own (docs/vscode-extension.md,
// "Checkpoints, changes and history"). The person's own repository, index, refs,
// hooks and config are never read or written: every git run has GIT_DIR set to
// the shadow repository and GIT_WORK_TREE to the workspace folder, no system or
// global config, and hooks pointed at an empty path.
//
// What a checkpoint holds, byte for byte (the workspace's .gitattributes are
// overridden: no line-ending conversion, no filter): every file of the workspace that is not ignored by
// the workspace's .gitignore files (nor by the shadow repository's own
// info/exclude: .git, and every file over maxFileBytes), as git sees them
// (nested repositories only as a commit id, their files not recorded). A
// restore writes and deletes only paths that differ between the workspace now
// and the checkpoint, each checked to lie inside the workspace with no symbolic
// link on its way (an agent may have put one there), and leaves alone what is
// ignored or too large now. No vscode import: unit-tested with real git in temp dirs.

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

export interface CheckpointOptions {
  /** The shadow repository (a bare git directory), e.g. <storage>/checkpoints.git. */
  gitDir: string;
  /** The workspace folder. */
  workTree: string;
  /** Files larger than this are not recorded (default 5 MiB). */
  maxFileBytes?: number;
  git?: string;
}

export type ChangeStatus = "added" | "modified" | "deleted";

export interface FileChange {
  /** Path relative to the workspace, with "/" separators. */
  path: string;
  status: ChangeStatus;
}

/** What a restore would do, shown to the person before it is done. */
export interface RestorePlan {
  from: string;
  to: string;
  /** Paths written (to the checkpoint's content) or deleted. */
  changes: { path: string; action: "write" | "create" | "delete" }[];
  /** Paths in the checkpoint left as they are now: ignored or over the size limit now, or a nested repository. */
  skipped: { path: string; why: string }[];
}

export const DEFAULT_MAX_FILE_BYTES = 5 << 20;

/** The patterns the shadow repository always excludes (info/exclude), before the large files. */
const BASE_EXCLUDES = [".git/", ".DS_Store"];

export class CheckpointStore {
  readonly gitDir: string;
  readonly workTree: string;
  readonly maxFileBytes: number;
  private readonly git: string;
  /** One git operation at a time (one index). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(o: CheckpointOptions) {
    this.gitDir = path.resolve(o.gitDir);
    this.workTree = fs.realpathSync(path.resolve(o.workTree));
    this.maxFileBytes = o.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.git = o.git ?? "git";
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.queue.then(fn, fn);
    this.queue = p.catch(() => undefined);
    return p;
  }

  /** Runs git on the shadow repository only; the output as a Buffer. */
  run(args: string[], input?: string): Promise<Buffer> {
    const env: NodeJS.ProcessEnv = {};
    // Nothing of the person's git setup: no GIT_* from the environment, no system or global config.
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("GIT_")) env[k] = v;
    Object.assign(env, {
      GIT_DIR: this.gitDir,
      GIT_WORK_TREE: this.workTree,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_LITERAL_PATHSPECS: "1",
      GIT_AUTHOR_NAME: "acp-bridge",
      GIT_AUTHOR_EMAIL: "checkpoints@acp-bridge.invalid",
      GIT_COMMITTER_NAME: "acp-bridge",
      GIT_COMMITTER_EMAIL: "checkpoints@acp-bridge.invalid",
      LC_ALL: "C",
    });
    const full = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.quotepath=false", "-c", "core.autocrlf=false", "-c", "core.symlinks=true", ...args];
    return new Promise((resolve, reject) => {
      const child = execFile(this.git, full, { cwd: this.workTree, env, encoding: "buffer", maxBuffer: 256 << 20 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`git ${args[0]} failed: ${stderr.toString().trim() || err.message}`, { cause: err }));
        else resolve(stdout);
      });
      if (input !== undefined) child.stdin?.end(input);
    });
  }

  private async init(): Promise<void> {
    if (fs.existsSync(path.join(this.gitDir, "HEAD"))) return;
    fs.mkdirSync(this.gitDir, { recursive: true, mode: 0o700 });
    await this.run(["init", "--quiet"]);
    await this.run(["config", "gc.auto", "0"]);
  }

  /**
   * Records the workspace now; returns the checkpoint's id (a commit of the shadow
   * repository, kept by a ref so that it is never collected).
   */
  snapshot(label: string): Promise<string> {
    return this.serial(async () => {
      await this.init();
      await this.writeExcludes();
      await this.run(["add", "--all", "--", "."]);
      // Files that grew past the limit since they were recorded leave the index too.
      const large = this.largeFiles(await this.run(["ls-files", "-z", "--cached"]));
      if (large.length) await this.run(["rm", "--cached", "--quiet", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"], large.join("\0"));
      const tree = (await this.run(["write-tree"])).toString().trim();
      const commit = (await this.run(["commit-tree", tree, "-m", label || "checkpoint"])).toString().trim();
      await this.run(["update-ref", `refs/checkpoints/${commit}`, commit]);
      return commit;
    });
  }

  /**
   * Forgets every checkpoint not in keep that is older than graceMs (a snapshot
   * being taken right now is not referenced by a chat yet), then lets git drop
   * what nothing reaches any more. Returns how many checkpoints were forgotten.
   * The shadow repository otherwise grows with every turn for as long as the
   * workspace is used.
   */
  prune(keep: ReadonlySet<string>, graceMs = 60 * 60_000, now = Date.now()): Promise<number> {
    return this.serial(async () => {
      if (!fs.existsSync(path.join(this.gitDir, "HEAD"))) return 0;
      const refs = (await this.run(["for-each-ref", "--format=%(objectname) %(committerdate:unix) %(refname)", "refs/checkpoints/"])).toString();
      const drop: string[] = [];
      for (const line of refs.split("\n")) {
        const [oid, when, ref] = line.split(" ");
        if (!ref || keep.has(oid)) continue;
        if (now - Number(when) * 1000 < graceMs) continue;
        drop.push(ref);
      }
      if (drop.length) await this.run(["update-ref", "--stdin"], drop.map((r) => `delete ${r}\n`).join(""));
      // Unreachable objects go now (gc.auto is off in this repository; nothing else collects).
      await this.run(["reflog", "expire", "--expire=now", "--all"]);
      await this.run(["gc", "--prune=now", "--quiet"]);
      return drop.length;
    });
  }

  /** info/exclude: the base patterns, then every file over the size limit, as an anchored literal path. */
  private async writeExcludes(): Promise<void> {
    const exclude = path.join(this.gitDir, "info", "exclude");
    fs.mkdirSync(path.dirname(exclude), { recursive: true });
    // Bytes as they are: the workspace's .gitattributes (line-ending conversion, filters, encodings)
    // would change what is recorded; info/attributes comes before every .gitattributes.
    fs.writeFileSync(path.join(this.gitDir, "info", "attributes"), "* -text -filter -ident -working-tree-encoding\n");
    fs.writeFileSync(exclude, BASE_EXCLUDES.join("\n") + "\n");
    const candidates = await this.run(["ls-files", "-z", "--others", "--cached", "--exclude-standard"]);
    const large = this.largeFiles(candidates);
    fs.writeFileSync(exclude, [...BASE_EXCLUDES, ...large.map(excludeLiteral)].join("\n") + "\n");
  }

  private largeFiles(z: Buffer): string[] {
    const out: string[] = [];
    for (const rel of z.toString("utf8").split("\0")) {
      if (!rel) continue;
      try {
        const st = fs.lstatSync(path.join(this.workTree, rel));
        if (st.isFile() && st.size > this.maxFileBytes) out.push(rel);
      } catch {
        /* gone meanwhile */
      }
    }
    return out;
  }

  /** Files that differ from checkpoint a to checkpoint b. */
  async changes(a: string, b: string): Promise<FileChange[]> {
    const out = await this.run(["diff-tree", "-r", "-z", "--no-renames", "--name-status", checkId(a), checkId(b)]);
    const parts = out.toString("utf8").split("\0");
    const res: FileChange[] = [];
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const s = parts[i];
      res.push({ path: parts[i + 1], status: s === "A" ? "added" : s === "D" ? "deleted" : "modified" });
    }
    return res;
  }

  /** A file's content in a checkpoint, or undefined when it is not there. */
  async read(checkpoint: string, rel: string): Promise<Buffer | undefined> {
    const e = await this.entry(checkpoint, rel);
    if (!e || e.type !== "blob") return undefined;
    return this.run(["cat-file", "blob", e.oid]);
  }

  private async entry(checkpoint: string, rel: string): Promise<{ mode: string; type: string; oid: string } | undefined> {
    const out = (await this.run(["ls-tree", "-z", checkId(checkpoint), "--", rel])).toString("utf8");
    const m = /^(\d+) (\w+) ([0-9a-f]+)\t/.exec(out);
    return m ? { mode: m[1], type: m[2], oid: m[3] } : undefined;
  }

  /**
   * What restoring checkpoint `to` would change, against the workspace now (recorded
   * first as checkpoint `from`: restoring `from` is the redo). With paths, only those.
   */
  async plan(to: string, paths?: string[]): Promise<RestorePlan> {
    const from = await this.snapshot(`before restoring ${to.slice(0, 12)}`);
    const plan: RestorePlan = { from, to, changes: [], skipped: [] };
    const only = paths ? new Set(paths) : undefined;
    for (const c of await this.changes(from, to)) {
      if (only && !only.has(c.path)) continue;
      const e = c.status === "deleted" ? undefined : await this.entry(to, c.path);
      if (e && e.type !== "blob") {
        plan.skipped.push({ path: c.path, why: "a nested repository" });
        continue;
      }
      if (c.status === "added" && existsNoFollow(path.join(this.workTree, c.path))) {
        // In the checkpoint, not recorded now, yet on disk: ignored or over the size limit now.
        plan.skipped.push({ path: c.path, why: "ignored or over the size limit now: left as it is" });
        continue;
      }
      plan.changes.push({ path: c.path, action: c.status === "deleted" ? "delete" : c.status === "added" ? "create" : "write" });
    }
    return plan;
  }

  /** Does what plan() said. Each path is checked again just before it is touched. */
  async apply(plan: RestorePlan): Promise<void> {
    for (const c of plan.changes) {
      const abs = this.inside(c.path);
      if (c.action === "delete") {
        const st = lstatOrUndefined(abs);
        if (st && !st.isDirectory()) fs.unlinkSync(abs);
        removeEmptyParents(path.dirname(abs), this.workTree);
        continue;
      }
      const e = await this.entry(plan.to, c.path);
      if (!e) throw new Error(`${c.path} is not in checkpoint ${plan.to.slice(0, 12)}`);
      const data = await this.run(["cat-file", "blob", e.oid]);
      this.write(c.path, data, e.mode);
    }
  }

  /**
   * Writes a file of the workspace (a restore, an undone hunk): inside the workspace,
   * no symbolic link among its directories, never through a symbolic link at the leaf
   * (the link itself is replaced). mode: git's (100644, 100755, 120000 = a symbolic link); none keeps the file's.
   */
  write(rel: string, data: Buffer | string, mode?: string): void {
    const abs = this.inside(rel);
    this.mkdirInside(path.dirname(abs));
    const st = lstatOrUndefined(abs);
    if (st?.isDirectory()) throw new Error(`${rel} is a directory now: not replaced`);
    if (st && (st.isSymbolicLink() || mode === "120000")) fs.unlinkSync(abs);
    if (mode === "120000") {
      fs.symlinkSync(data.toString(), abs);
      return;
    }
    // O_NOFOLLOW: never written through a symbolic link put there meanwhile.
    const fd = fs.openSync(abs, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW, 0o644);
    try {
      fs.writeSync(fd, typeof data === "string" ? Buffer.from(data) : data);
      const cur = fs.fstatSync(fd).mode & 0o777;
      if (mode) fs.fchmodSync(fd, mode === "100755" ? cur | 0o111 : cur & ~0o111); // no mode: the file's own is kept
    } finally {
      fs.closeSync(fd);
    }
  }

  /** An absolute path for rel, refused unless it lies inside the workspace with no symbolic link among its directories. */
  inside(rel: string): string {
    if (!rel || path.isAbsolute(rel) || rel.split(/[\\/]/).some((p) => p === ".." || p === "" || p === ".git")) throw new Error(`${JSON.stringify(rel)} is not a path inside the workspace`);
    const abs = path.join(this.workTree, rel);
    let dir = path.dirname(abs);
    const chain: string[] = [];
    while (dir !== this.workTree) {
      chain.push(dir);
      const up = path.dirname(dir);
      if (up === dir) throw new Error(`${rel} is outside the workspace`);
      dir = up;
    }
    for (const d of chain) {
      const st = lstatOrUndefined(d);
      if (st && !st.isDirectory()) throw new Error(`${path.relative(this.workTree, d)} is not a directory (a symbolic link?): ${rel} is not touched`);
    }
    return abs;
  }

  private mkdirInside(dir: string): void {
    const missing: string[] = [];
    for (let d = dir; d !== this.workTree && !lstatOrUndefined(d); d = path.dirname(d)) missing.unshift(d);
    for (const d of missing) fs.mkdirSync(d);
  }
}

function checkId(id: string): string {
  if (!/^[0-9a-f]{40,64}$/.test(id)) throw new Error(`${JSON.stringify(id)} is not a checkpoint id`);
  return id;
}

/** A gitignore line matching exactly this path from the top (special characters escaped). */
export function excludeLiteral(rel: string): string {
  return "/" + rel.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`).replace(/^(\s)|(\s)$/g, "\\$1$2");
}

function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

function existsNoFollow(p: string): boolean {
  return !!lstatOrUndefined(p);
}

function removeEmptyParents(dir: string, top: string): void {
  for (let d = dir; d !== top && d.startsWith(top + path.sep); d = path.dirname(d)) {
    try {
      fs.rmdirSync(d);
    } catch {
      return;
    }
  }
}
