// Adds to package-lock.json the optional, platform-specific packages that
// npm could not lock because the registry this project reaches does not
// serve them (e.g. opencode-darwin-arm64): without an entry, `npm ci`
// refuses the lock as out of sync. Each added entry names the version its
// parent asks for and the os / cpu / libc its name says, so npm ci skips it
// on any other platform without fetching it; on its own platform it is
// optional, so a failed fetch is not fatal either. Run after `npm install`
// whenever package.json changes: node fill-lock.mjs
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("./package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
const pkgs = lock.packages;
const added = [];
for (const [path, p] of Object.entries(pkgs)) {
  for (const [name, version] of Object.entries(p.optionalDependencies ?? {})) {
    const here = `${path ? `${path}/` : ""}node_modules/${name}`;
    const top = `node_modules/${name}`;
    if (pkgs[here] || pkgs[top]) continue;
    const os = /darwin/.test(name) ? "darwin" : /win32|windows/.test(name) ? "win32" : /linux/.test(name) ? "linux" : /freebsd/.test(name) ? "freebsd" : undefined;
    const cpu = /arm64|aarch64/.test(name) ? "arm64" : /x64|x86_64/.test(name) ? "x64" : /ia32/.test(name) ? "ia32" : undefined;
    if (!os || !cpu) throw new Error(`${name}: cannot tell its platform from its name; add it by hand`);
    const entry = { version, optional: true, os: [os], cpu: [cpu] };
    if (os === "linux") entry.libc = [/musl/.test(name) ? "musl" : "glibc"];
    pkgs[top] = entry;
    added.push(`${name}@${version}`);
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(file, JSON.stringify(lock, null, 2) + "\n");
console.log(`fill-lock: added ${added.length}: ${added.join(" ")}`);
