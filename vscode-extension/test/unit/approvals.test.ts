import assert from "node:assert/strict";
import { test } from "node:test";
import { LiveRequests, permissionResponse, quickOption, respondParams } from "../../src/approvals";

test("permissionResponse carries rule and scope in _meta only when given", () => {
  assert.deepEqual(permissionResponse("acp-bridge:allow_once"), { outcome: { outcome: "selected", optionId: "acp-bridge:allow_once" } });
  assert.deepEqual(permissionResponse("acp-bridge:allow_always", " Bash(go test *) ", "workspace"), {
    outcome: { outcome: "selected", optionId: "acp-bridge:allow_always" },
    _meta: { "acp-bridge": { rule: "Bash(go test *)", scope: "workspace" } },
  });
  assert.deepEqual(respondParams("a1", "acp-bridge:reject_always", "Bash(rm *)", "user"), { approvalId: "a1", optionId: "acp-bridge:reject_always", rule: "Bash(rm *)", scope: "user" });
  assert.deepEqual(respondParams("a1", "acp-bridge:allow_once", "  "), { approvalId: "a1", optionId: "acp-bridge:allow_once" });
});

test("several live requests resolve independently; a second answer is refused", async () => {
  const live = new LiveRequests();
  const a = live.wait("a");
  const b = live.wait("b");
  const c = live.wait("c");
  assert.equal(live.size, 3);
  assert.equal(live.answer("b", "acp-bridge:reject_once"), true);
  assert.deepEqual(await b, { outcome: { outcome: "selected", optionId: "acp-bridge:reject_once" } });
  assert.equal(live.answer("b", "acp-bridge:allow_once"), false, "first answer wins");
  assert.equal(live.release("c"), true);
  assert.deepEqual(await c, { outcome: { outcome: "cancelled" } });
  assert.equal(live.has("a"), true);
  assert.equal(live.answer("a", "acp-bridge:allow_once", "x", "user"), true);
  assert.deepEqual((await a).outcome, { outcome: "selected", optionId: "acp-bridge:allow_once" });
  assert.equal(live.size, 0);
});

test("an aborted request (bridge $/cancel_request) answers cancelled and reports it once", async () => {
  const live = new LiveRequests();
  const ac = new AbortController();
  let aborted = 0;
  const p = live.wait("x", ac.signal, () => aborted++);
  ac.abort();
  ac.abort();
  assert.deepEqual(await p, { outcome: { outcome: "cancelled" } });
  assert.equal(aborted, 1);
  assert.equal(live.answer("x", "acp-bridge:allow_once"), false);
  // Already aborted before registering.
  const ac2 = new AbortController();
  ac2.abort();
  assert.deepEqual(await live.wait("y", ac2.signal), { outcome: { outcome: "cancelled" } });
});

test("releaseAll answers every live request cancelled", async () => {
  const live = new LiveRequests();
  const ps = ["1", "2", "3"].map((id) => live.wait(id));
  live.releaseAll();
  for (const p of ps) assert.deepEqual(await p, { outcome: { outcome: "cancelled" } });
});

test("quickOption picks by kind, never by guess", () => {
  const opts = [
    { optionId: "acp-bridge:allow_session", kind: "allow_always" },
    { optionId: "acp-bridge:allow_once", kind: "allow_once" },
    { optionId: "acp-bridge:reject_once", kind: "reject_once" },
  ];
  assert.equal(quickOption(opts, "allow"), "acp-bridge:allow_once");
  assert.equal(quickOption(opts, "deny"), "acp-bridge:reject_once");
  assert.equal(quickOption([{ optionId: "x", kind: "allow_always" }], "allow"), undefined);
});
