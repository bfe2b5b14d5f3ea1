// The managed tier's report from initialize (docs/org.md): read
// defensively, every field the bridge sends kept.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseManaged } from "../../src/client";

test("parseManaged keeps what the bridge reports", () => {
  const m = parseManaged({
    files: ["/etc/acp-bridge/managed-settings.yaml"],
    disableBypassPermissionsMode: true,
    allowManagedPermissionRulesOnly: true,
    allowedAgents: ["claude"],
    modeFloor: "acceptEdits",
    ignored: [{ key: "permissions.allow", file: "/etc/acp-bridge/managed-settings.yaml", reason: "only the managed allow rules count" }],
    notes: ["model is Claude Code's own"],
    problems: [],
  });
  assert.deepEqual(m?.files, ["/etc/acp-bridge/managed-settings.yaml"]);
  assert.equal(m?.disableBypassPermissionsMode, true);
  assert.equal(m?.allowManagedPermissionRulesOnly, true);
  assert.deepEqual(m?.allowedAgents, ["claude"]);
  assert.equal(m?.modeFloor, "acceptEdits");
  assert.equal(m?.ignored?.[0]?.key, "permissions.allow");
  assert.deepEqual(m?.notes, ["model is Claude Code's own"]);
});

test("parseManaged: problems are kept, junk is not a report", () => {
  assert.deepEqual(parseManaged({ files: [], problems: ["/etc/acp-bridge/managed-settings.yaml:4: sandbox.enabeld: unknown key", 3] })?.problems, [
    "/etc/acp-bridge/managed-settings.yaml:4: sandbox.enabeld: unknown key",
  ]);
  assert.equal(parseManaged(undefined), undefined);
  assert.equal(parseManaged({ files: "x" }), undefined);
  assert.equal(parseManaged({ files: [] })?.allowedAgents, undefined);
});
