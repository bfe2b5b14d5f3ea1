// The validator itself: it must find the right definition for each message
// and reject what the ACP v1 schema rejects, or a passing interop run means
// nothing.

import { test } from "node:test";
import assert from "node:assert/strict";
import { AGENT_METHODS, CLIENT_METHODS, PROTOCOL_METHODS } from "@agentclientprotocol/sdk";
import { AgentOutputValidator, jsonRpcProblems } from "../lib/schema.mjs";
import { lineSplitter } from "../lib/bridge.mjs";

const validator = new AgentOutputValidator();

test("the schema's x-method map agrees with the SDK's method constants", () => {
  const { requests, responses, notifications, protocol } = validator.agent;
  for (const m of Object.values(CLIENT_METHODS)) {
    assert.ok(requests.has(m) || notifications.has(m), `client method ${m} is neither an agent request nor notification in the schema`);
  }
  for (const m of Object.values(AGENT_METHODS)) {
    if (m === AGENT_METHODS.session_cancel) {
      assert.ok(validator.client.notifications.has(m), `${m} is not a client notification`);
    } else {
      assert.ok(responses.has(m), `agent method ${m} has no response definition`);
    }
  }
  for (const m of Object.values(PROTOCOL_METHODS)) assert.ok(protocol.has(m), `protocol method ${m} missing`);
  assert.equal(requests.get("session/request_permission"), "RequestPermissionRequest");
  assert.equal(responses.get("session/prompt"), "PromptResponse");
  assert.equal(notifications.get("session/update"), "SessionNotification");
});

const req = (id, method, params = {}) => ({ dir: "in", line: JSON.stringify({ jsonrpc: "2.0", id, method, params }) });
const out = (msg) => ({ dir: "out", line: typeof msg === "string" ? msg : JSON.stringify({ jsonrpc: "2.0", ...msg }) });
const permission = {
  sessionId: "s1",
  toolCall: { toolCallId: "call_2", title: "Edit", kind: "edit", status: "pending", rawInput: { path: "/a" } },
  options: [
    { optionId: "acp-bridge:allow_once", name: "Allow once", kind: "allow_once" },
    { optionId: "acp-bridge:reject_once", name: "Deny", kind: "reject_once" },
  ],
  _meta: { "acp-bridge": { approvalId: "ap-1" } },
};

const cases = [
  { name: "initialize result", in: [req(0, "initialize", { protocolVersion: 1 })], out: out({ id: 0, result: { protocolVersion: 1, agentCapabilities: { loadSession: true, sessionCapabilities: { list: {} } }, authMethods: [] } }), def: "InitializeResponse", ok: true },
  { name: "protocolVersion out of uint16", in: [req(0, "initialize")], out: out({ id: 0, result: { protocolVersion: 70000 } }), def: "InitializeResponse", ok: false, problem: /protocolVersion/ },
  { name: "session/new without sessionId", in: [req("a", "session/new")], out: out({ id: "a", result: { modes: null } }), def: "NewSessionResponse", ok: false, problem: /sessionId/ },
  { name: "prompt end_turn", in: [req(3, "session/prompt")], out: out({ id: 3, result: { stopReason: "end_turn" } }), def: "PromptResponse", ok: true },
  { name: "prompt with an unknown stop reason", in: [req(3, "session/prompt")], out: out({ id: 3, result: { stopReason: "done" } }), def: "PromptResponse", ok: false, problem: /stopReason/ },
  { name: "permission request", in: [], out: out({ id: 0, method: "session/request_permission", params: permission }), def: "RequestPermissionRequest", ok: true },
  { name: "permission request without options", in: [], out: out({ id: 0, method: "session/request_permission", params: { ...permission, options: undefined } }), def: "RequestPermissionRequest", ok: false, problem: /options/ },
  { name: "permission option of an unknown kind", in: [], out: out({ id: 0, method: "session/request_permission", params: { ...permission, options: [{ optionId: "x", name: "X", kind: "allow_forever" }] } }), def: "RequestPermissionRequest", ok: false, problem: /kind/ },
  { name: "tool_call_update failed", in: [], out: out({ method: "session/update", params: { sessionId: "s1", update: { sessionUpdate: "tool_call_update", toolCallId: "t", status: "failed" } } }), def: "SessionNotification", ok: true },
  { name: "tool_call_update cancelled (v2 only)", in: [], out: out({ method: "session/update", params: { sessionId: "s1", update: { sessionUpdate: "tool_call_update", toolCallId: "t", status: "cancelled" } } }), def: "SessionNotification", ok: false, problem: /status/ },
  { name: "unknown sessionUpdate", in: [], out: out({ method: "session/update", params: { sessionId: "s1", update: { sessionUpdate: "bogus" } } }), def: "SessionNotification", ok: false, problem: /sessionUpdate/ },
  { name: "current_mode_update with modeId", in: [], out: out({ method: "session/update", params: { sessionId: "s1", update: { sessionUpdate: "current_mode_update", modeId: "plan" } } }), def: "SessionNotification", ok: false, problem: /currentModeId/ },
  { name: "$/cancel_request", in: [], out: out({ method: "$/cancel_request", params: { requestId: 4 } }), def: "CancelRequestNotification", ok: true },
  { name: "error response", in: [req(5, "session/load")], out: out({ id: 5, error: { code: -32002, message: "not found" } }), def: "Error", ok: true },
  { name: "extension response", in: [req(6, "_acp-bridge/agents/list")], out: out({ id: 6, result: { agents: [] } }), def: "extension response", ok: true },
  { name: "extension notification", in: [], out: out({ method: "_acp-bridge/approval/resolved", params: { approvalId: "x" } }), def: "extension notification", ok: true },
  { name: "client method sent by the agent", in: [], out: out({ id: 9, method: "session/prompt", params: {} }), def: "unknown request", ok: false, problem: /not an agent->client request/ },
  { name: "response to an id never used", in: [req(1, "initialize")], out: out({ id: 2, result: {} }), def: "response to an unknown id", ok: false, problem: /never used/ },
  { name: "no jsonrpc member", in: [req(1, "session/prompt")], out: out('{"id":1,"result":{"stopReason":"end_turn"}}'), def: "?", ok: false, problem: /jsonrpc/ },
  { name: "not JSON", in: [], out: out("Starting agent..."), def: "?", ok: false, problem: /not JSON/ },
  { name: "batch", in: [], out: out('[{"jsonrpc":"2.0","method":"session/update","params":{}}]'), def: "?", ok: false, problem: /batches/ },
];

for (const c of cases) {
  test(`validator: ${c.name}`, () => {
    const report = validator.validateTranscript([...c.in, c.out]);
    assert.equal(report.results.length, 1);
    const [r] = report.results;
    assert.equal(r.def, c.def, `definition for ${c.out.line}`);
    assert.equal(r.ok, c.ok, `ok for ${c.out.line}: ${r.problems.join("; ")}`);
    if (c.problem) assert.match(r.problems.join("\n"), c.problem);
  });
}

test("validator: a second response to one id and unanswered requests are reported", () => {
  const report = validator.validateTranscript([
    req(1, "session/prompt"),
    req(2, "session/prompt"),
    out({ id: 1, result: { stopReason: "end_turn" } }),
    out({ id: 1, result: { stopReason: "end_turn" } }),
  ]);
  assert.equal(report.failures.length, 1);
  assert.match(report.failures[0].problems.join(), /second response/);
  assert.deepEqual(report.unanswered, ["session/prompt (id 2)"]);
});

test("jsonRpcProblems", () => {
  assert.deepEqual(jsonRpcProblems({ jsonrpc: "2.0", id: 1, result: null }), []);
  assert.deepEqual(jsonRpcProblems({ jsonrpc: "2.0", method: "x" }), []);
  assert.match(jsonRpcProblems({ jsonrpc: "2.0", id: 1.5, result: {} }).join(), /integer/);
  assert.match(jsonRpcProblems({ jsonrpc: "2.0", id: 1, result: {}, extra: 1 }).join(), /extra/);
  assert.match(jsonRpcProblems({ jsonrpc: "2.0", id: 1, error: { code: "x", message: "m" } }).join(), /code/);
  assert.match(jsonRpcProblems({ jsonrpc: "2.0", method: "x", params: 3 }).join(), /params/);
});

test("lineSplitter keeps lines split across chunks and reports the rest", () => {
  const lines = [];
  const s = lineSplitter((l) => lines.push(l));
  s.push(Buffer.from('{"a":'));
  s.push(Buffer.from('1}\n\n{"b":"é'));
  s.push(Buffer.from('"}\n{"c"'));
  assert.deepEqual(lines, ['{"a":1}', '{"b":"é"}']);
  assert.equal(s.rest(), '{"c"');
});
