import assert from "node:assert/strict";
import { test } from "node:test";
import { DIGEST_ABSENT, DIGEST_NONE, WorkspacePins, canonicalJson, workspaceValuesDigest, type PinStore } from "../../src/pins";

function memStore(): PinStore & { m: Map<string, unknown> } {
  const m = new Map<string, unknown>();
  return { m, get: <T>(k: string) => m.get(k) as T | undefined, update: async (k: string, v: unknown) => void m.set(k, v) };
}

test("digest: equal values give equal digests whatever the key order; unset values are no values", () => {
  const a = workspaceValuesDigest({ permissions: [{ allow: ["Bash(x)"], deny: [] }, undefined], logLevel: [undefined, undefined] });
  const b = workspaceValuesDigest({ logLevel: [undefined, undefined], permissions: [{ deny: [], allow: ["Bash(x)"] }, undefined] });
  assert.equal(a, b);
  assert.match(a, /^sha256:[0-9a-f]{64}$/);
  assert.notEqual(a, workspaceValuesDigest({ permissions: [{ allow: ["Bash(y)"], deny: [] }, undefined] }));
  assert.notEqual(a, workspaceValuesDigest({ permissions: [undefined, { allow: ["Bash(x)"], deny: [] }] }), "the folder layer is its own value");
  assert.equal(workspaceValuesDigest({ permissions: [undefined, undefined] }), DIGEST_ABSENT);
  assert.equal(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] }), '{"a":[{"d":2}],"b":1}');
});

test("pins: values seen at first trust wait for approval (trusting is not approving); other values wait too; no values are always fine; approving pins exactly that version", async () => {
  const store = memStore();
  const pins = new WorkspacePins(store, "k");
  const v1 = workspaceValuesDigest({ permissions: [{ deny: ["Bash(rm *)"] }, undefined] });
  const v2 = workspaceValuesDigest({ permissions: [{ allow: ["Bash(*)"] }, undefined] });
  assert.deepEqual(pins.check(v2), { ok: false, approved: DIGEST_NONE }, "a cloned workspace's allow rule waits at first trust");
  assert.equal(store.m.get("k"), undefined, "nothing is pinned by trusting");
  await pins.approve(v1);
  assert.deepEqual(pins.check(v1), { ok: true });
  assert.deepEqual(pins.check(v2), { ok: false, approved: v1 });
  assert.deepEqual(pins.check(DIGEST_ABSENT), { ok: true }, "removing the values loosens nothing");
  await pins.approve(v2);
  assert.deepEqual(pins.check(v2), { ok: true });
  assert.deepEqual(pins.check(v1), { ok: false, approved: v2 }, "only the approved version");
});

test("pins: a workspace first seen without values pins that, so values that appear later wait", () => {
  const store = memStore();
  const pins = new WorkspacePins(store, "k");
  assert.deepEqual(pins.check(DIGEST_ABSENT), { ok: true });
  const created = workspaceValuesDigest({ permissions: [{ allow: ["Bash(*)"], defaultMode: "bypassPermissions" }, undefined] });
  assert.deepEqual(pins.check(created), { ok: false, approved: DIGEST_ABSENT });
});
