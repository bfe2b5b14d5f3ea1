import assert from "node:assert/strict";
import { test } from "node:test";
import { WorkspacePins, type PinStore } from "../../src/pins";

// The digest and the pin decision are the bridge's (settings/editorlayers_test.go
// TestEditorDigest, TestEditorPinState hold the former cases of this file): the
// extension only keeps the approved digest per workspace.

function memStore(): PinStore & { m: Map<string, unknown> } {
  const m = new Map<string, unknown>();
  return { m, get: <T>(k: string) => m.get(k) as T | undefined, update: async (k: string, v: unknown) => void m.set(k, v) };
}

test("pins: nothing approved is an empty digest; approving stores exactly that digest under the workspace's key", async () => {
  const store = memStore();
  const a = new WorkspacePins(store, "ws-a");
  const b = new WorkspacePins(store, "ws-b");
  assert.equal(a.approved(), "");
  await a.approve("sha256:1");
  assert.equal(a.approved(), "sha256:1");
  assert.equal(b.approved(), "", "another workspace has its own pin");
  await a.approve("absent");
  assert.equal(a.approved(), "absent");
  assert.equal(store.m.get("ws-a"), "absent");
  assert.throws(() => a.approve(""), /empty digest/);
  store.m.set("ws-b", 42);
  assert.equal(b.approved(), "", "a value that is no digest approves nothing");
});
