// BridgeConnection on the SDK's typed client side: prompt blocks with context
// go out as built, _acp-bridge/policy/explain is typed by wire.ts, and the
// SDK's schema refuses malformed fs/* and permission params before our
// handlers see them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { agent, ndJsonStream } from "@agentclientprotocol/sdk";
import { permissionResponse } from "../../src/approvals";
import { BridgeConnection, type ClientHandlers } from "../../src/client";
import { promptBlocks } from "../../src/promptBlocks";

const raw = (p: unknown) => (p ?? {}) as any;

function pipePair() {
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  return { clientStream: ndJsonStream(toAgent.writable, toClient.readable), agentStream: ndJsonStream(toClient.writable, toAgent.readable) };
}

test("prompt blocks, policy/explain, and the SDK's schema in front of fs/* and permission handlers", async () => {
  const { clientStream, agentStream } = pipePair();
  const got: Record<string, any> = {};
  const seen: string[] = [];
  agent()
    .onRequest("_acp-bridge/policy/explain", raw, ({ params }) => {
      got["explain"] = params;
      return { decision: "deny", source: "rule", rule: "Read(./.env)", reason: "deny rule", specifier: "Read(/w/.env)" };
    })
    .onRequest("session/prompt", raw, async ({ params, client }) => {
      got["prompt"] = params.prompt;
      const errors: string[] = [];
      for (const [m, p] of [
        ["fs/read_text_file", { sessionId: "S", path: 7 }],
        ["fs/write_text_file", { sessionId: "S", path: "/w/a" }],
        ["session/request_permission", { sessionId: "S", toolCall: {}, options: "x" }],
      ] as const) {
        try {
          await client.request(m as never, p as never);
          errors.push(`${m}: accepted`);
        } catch (e) {
          errors.push(`${m}: ${(e as { code?: number }).code}`);
        }
      }
      got["errors"] = errors;
      got["read"] = await client.request("fs/read_text_file", { sessionId: "S", path: "/w/a.txt" });
      return { stopReason: "end_turn" };
    })
    .connect(agentStream);
  const h: ClientHandlers = {
    readTextFile: async (p) => (seen.push(`read ${p.path}`), { content: "A" }),
    writeTextFile: async (p) => void seen.push(`write ${p.path}`),
    requestPermission: async () => (seen.push("permission"), permissionResponse("acp-bridge:allow_once")),
    sessionUpdate: () => {},
    approvalResolved: () => {},
    agentStatus: () => {},
    persist: async () => ({ persisted: true }),
    settingsInvalid: () => {},
  };
  const conn = BridgeConnection.connect(clientStream, h);
  const v = await conn.explain({ tool: "Read", input: { file_path: "/w/.env" }, agent: "demo" });
  assert.deepEqual(got["explain"], { tool: "Read", input: { file_path: "/w/.env" }, agent: "demo" });
  assert.equal(v.decision, "deny");
  assert.equal(v.rule, "Read(./.env)");
  const ref = { kind: "file" as const, uri: "file:///w/main.go", path: "/w/main.go", label: "main.go" };
  const blocks = promptBlocks("look", [{ ref, text: "package main" }], { embeddedContext: true });
  await conn.prompt("S", "look", blocks);
  assert.deepEqual(got["prompt"], blocks, "the blocks go out as built");
  assert.deepEqual(got["errors"], ["fs/read_text_file: -32602", "fs/write_text_file: -32602", "session/request_permission: -32602"], "invalid params, refused by the SDK's schema");
  assert.deepEqual(seen, ["read /w/a.txt"], "our handlers saw only the valid request");
  assert.deepEqual(got["read"], { content: "A" });
  await conn.prompt("S", "plain");
  assert.deepEqual(got["prompt"], [{ type: "text", text: "plain" }]);
  conn.close();
});
