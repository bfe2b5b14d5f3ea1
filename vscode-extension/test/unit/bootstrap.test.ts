import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { BridgeProcess, checkVersion, LineSplitter, locateBridge, missingBridgeMessage, RestartBudget } from "../../src/bootstrap";

test("locateBridge: setting, else bundled bin/<platform>-<arch>, else PATH", () => {
  const files = new Set(["/ext/bin/linux-x64/acp-bridge", "/usr/local/bin/acp-bridge", "/w/bin/acp-bridge.exe"]);
  const isFile = (p: string) => files.has(p);
  const base = { extensionPath: "/ext", platform: "linux", arch: "x64", pathEnv: "/usr/bin:/usr/local/bin", isFile };
  assert.deepEqual(locateBridge({ ...base, configured: " /my/acp-bridge " }), { path: "/my/acp-bridge", source: "setting" });
  assert.deepEqual(locateBridge(base), { path: "/ext/bin/linux-x64/acp-bridge", source: "bundled" });
  assert.deepEqual(locateBridge({ ...base, arch: "arm64" }), { path: "/usr/local/bin/acp-bridge", source: "path" });
  assert.equal(locateBridge({ ...base, arch: "arm64", pathEnv: "/usr/bin" }), undefined);
  assert.match(missingBridgeMessage(undefined), /no acp-bridge binary found.*acpBridge\.bridgePath/);
  assert.match(missingBridgeMessage({ path: "/x", source: "setting" }, new Error("boom")), /acpBridge\.bridgePath points at a binary that does not work \(boom\)/);
});

function script(body: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acpb-"));
  const p = path.join(dir, "bridge.sh");
  fs.writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return p;
}

test("checkVersion: version line, or an error that says what went wrong", async () => {
  assert.equal(await checkVersion(script('echo "acp-bridge 1.2.3"')), "acp-bridge 1.2.3");
  await assert.rejects(checkVersion("/nonexistent/acp-bridge"), /file not found/);
  const noExec = script("echo x");
  fs.chmodSync(noExec, 0o644);
  await assert.rejects(checkVersion(noExec), /not executable/);
  await assert.rejects(checkVersion(script("echo broken >&2; exit 3")), /broken/);
  await assert.rejects(checkVersion(script("exit 0")), /printed nothing/);
  await assert.rejects(checkVersion(script("sleep 5"), 200), /no answer within 200 ms/);
});

test("BridgeProcess: stderr lines, stdin close ends it, exit reported once as expected", async () => {
  const lines: string[] = [];
  let exits = 0;
  let expectedFlag: boolean | undefined;
  const bin = script('echo "hello from stderr" >&2; printf "partial" >&2; cat >/dev/null; echo bye >&2');
  const ended = new Promise<void>((resolve) => {
    const p = new BridgeProcess({
      bin,
      onStderrLine: (l) => lines.push(l),
      onExit: (_c, _s, expected) => {
        exits++;
        expectedFlag = expected;
        resolve();
      },
    });
    setTimeout(() => void p.stop(2000), 100);
  });
  await ended;
  assert.equal(exits, 1);
  assert.equal(expectedFlag, true);
  assert.deepEqual(lines, ["hello from stderr", "partialbye"]);
});

test("BridgeProcess: an unexpected exit is reported as not expected; stop escalates to SIGTERM", async () => {
  const crashed = await new Promise<{ code: number | null; expected: boolean }>((resolve) => {
    new BridgeProcess({ bin: script("exit 7"), onStderrLine: () => {}, onExit: (code, _s, expected) => resolve({ code, expected }) });
  });
  assert.deepEqual(crashed, { code: 7, expected: false });
  let signal: string | null = null;
  const p = new BridgeProcess({ bin: script("trap '' HUP; exec sleep 30"), onStderrLine: () => {}, onExit: (_c, s) => (signal = s) });
  await p.stop(100);
  assert.equal(signal, "SIGTERM");
});

test("RestartBudget: capped at 5 restarts, backoff grows, a long run gives the budget back", () => {
  const b = new RestartBudget(5, 1000);
  const delays = [1, 2, 3, 4, 5].map(() => b.onCrash(10));
  assert.deepEqual(delays, [500, 1000, 2000, 4000, 8000]);
  assert.equal(b.onCrash(10), undefined);
  assert.equal(b.onCrash(5000), 500, "a stable run resets the count");
  b.reset();
  assert.equal(b.restarts, 0);
});

test("LineSplitter handles CRLF and split chunks", () => {
  const out: string[] = [];
  const s = new LineSplitter((l) => out.push(l));
  s.push("a\r\nb");
  s.push("c\n\nd");
  s.flush();
  assert.deepEqual(out, ["a", "bc", "", "d"]);
});
