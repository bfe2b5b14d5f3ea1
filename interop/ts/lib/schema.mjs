// Validation of every message an ACP agent (here: acp-bridge) writes, against
// the official ACP v1 JSON schema shipped in @agentclientprotocol/sdk.
//
// Which definition a message must match comes from the schema itself: the
// root "Agent" branch lists the requests, responses and notifications an
// agent sends (AgentRequest / AgentResponse / AgentNotification), each a
// union of $refs to definitions that carry "x-method" (the method name) and
// "x-side". Responses are matched through the method of the request they
// answer. Extension methods (names starting "_") are outside the schema:
// they are only checked to be well-formed JSON-RPC 2.0.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const require = createRequire(import.meta.url);

export const SCHEMA_PATH = require.resolve("@agentclientprotocol/sdk/schema/v1/schema.json");
const SCHEMA_ID = "https://agentclientprotocol.com/schema/v1/schema.json";

/** Loads the stable ACP v1 schema shipped with the SDK. */
export function loadSchema() {
  return JSON.parse(readFileSync(SCHEMA_PATH, "utf8"));
}

// Numeric formats used by the ACP schema (Rust-generated); ajv-formats knows
// none of them, so they are checked here, by range.
const numericFormats = {
  int32: (n) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  uint16: (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 16,
  uint32: (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 32,
  int64: (n) => Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 63,
  uint64: (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 64,
  double: (n) => Number.isFinite(n),
};

/** Every $ref under node, as definition names. */
function refsUnder(node, out = new Set()) {
  if (Array.isArray(node)) {
    for (const x of node) refsUnder(x, out);
  } else if (node && typeof node === "object") {
    if (typeof node.$ref === "string" && node.$ref.startsWith("#/$defs/")) {
      out.add(node.$ref.slice("#/$defs/".length));
    }
    for (const v of Object.values(node)) refsUnder(v, out);
  }
  return out;
}

/** Every keyword starting "x-" used anywhere in the schema. */
function extensionKeywords(node, out = new Set()) {
  if (Array.isArray(node)) {
    for (const x of node) extensionKeywords(x, out);
  } else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k.startsWith("x-")) out.add(k);
      extensionKeywords(v, out);
    }
  }
  return out;
}

/**
 * Reads the method -> definition maps of one side ("Agent" or "Client") out
 * of the schema's root unions.
 * @returns {{requests: Map<string,string>, responses: Map<string,string>, notifications: Map<string,string>, protocol: Map<string,string>}}
 */
export function methodMaps(schema, side) {
  const defs = schema.$defs;
  const root = schema.anyOf.find((b) => b.title === side);
  if (!root) throw new Error(`schema has no root branch titled ${side}`);
  const branch = (title) => {
    const b = root.anyOf.find((x) => x.title === title);
    const [ref] = refsUnder(b);
    if (!ref) throw new Error(`root ${side}.${title} has no $ref`);
    return defs[ref];
  };
  const byMethod = (node) => {
    const m = new Map();
    for (const name of refsUnder(node)) {
      const method = defs[name]?.["x-method"];
      if (method) m.set(method, name);
    }
    return m;
  };
  const request = branch("Request");
  const response = branch("Response");
  const notification = branch("Notification");
  const result = response.anyOf.find((x) => x.title === "Result");
  const protocol = new Map();
  for (const [name, def] of Object.entries(defs)) {
    if (def["x-side"] === "protocol" && def["x-method"]) protocol.set(def["x-method"], name);
  }
  return {
    requests: byMethod(request.properties.params),
    responses: byMethod(result.properties.result),
    notifications: byMethod(notification.properties.params),
    protocol,
  };
}

const isExtension = (method) => typeof method === "string" && method.startsWith("_");
const idKey = (id) => JSON.stringify(id);
const ENVELOPE_KEYS = new Set(["jsonrpc", "id", "method", "params", "result", "error"]);

/** JSON-RPC 2.0 well-formedness of one parsed message; returns problems. */
export function jsonRpcProblems(msg) {
  const p = [];
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
    return ["not a JSON object (ACP sends no batches)"];
  }
  if (msg.jsonrpc !== "2.0") p.push(`jsonrpc is ${JSON.stringify(msg.jsonrpc)}, want "2.0"`);
  for (const k of Object.keys(msg)) {
    if (!ENVELOPE_KEYS.has(k)) p.push(`unexpected top-level member ${JSON.stringify(k)}`);
  }
  const hasId = "id" in msg;
  if (hasId && !(msg.id === null || typeof msg.id === "string" || Number.isInteger(msg.id))) {
    p.push(`id ${JSON.stringify(msg.id)} is not a string, an integer or null`);
  }
  if ("method" in msg) {
    if (typeof msg.method !== "string" || msg.method === "") p.push("method is not a non-empty string");
    if ("result" in msg || "error" in msg) p.push("a request or notification carries result/error");
    if ("params" in msg && (msg.params === null || typeof msg.params !== "object")) {
      p.push("params is neither an object nor an array");
    }
  } else {
    if (!hasId) p.push("neither method nor id");
    if (("result" in msg) === ("error" in msg)) p.push("a response needs exactly one of result and error");
    if ("params" in msg) p.push("a response carries params");
    if ("error" in msg) {
      const e = msg.error;
      if (!e || typeof e !== "object" || !Number.isInteger(e.code) || typeof e.message !== "string") {
        p.push("error is not {code: integer, message: string}");
      }
    }
  }
  return p;
}

/**
 * A validator of the messages one ACP agent writes to its client.
 */
export class AgentOutputValidator {
  constructor(schema = loadSchema()) {
    this.schema = { ...schema, $id: SCHEMA_ID };
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, discriminator: true });
    addFormats(ajv, ["uri"]);
    for (const [name, validate] of Object.entries(numericFormats)) {
      ajv.addFormat(name, { type: "number", validate });
    }
    for (const k of extensionKeywords(schema)) ajv.addKeyword(k);
    ajv.addSchema(this.schema);
    this.ajv = ajv;
    this.agent = methodMaps(schema, "Agent");
    this.client = methodMaps(schema, "Client");
    this.compiled = new Map();
  }

  /** The compiled validator of a definition, or of the root Agent branch ("Agent"). */
  validatorOf(def) {
    let v = this.compiled.get(def);
    if (!v) {
      const index = this.schema.anyOf.findIndex((b) => b.title === def);
      const ref = index >= 0 ? `${SCHEMA_ID}#/anyOf/${index}` : `${SCHEMA_ID}#/$defs/${def}`;
      v = this.ajv.getSchema(ref);
      if (!v) throw new Error(`schema has no definition ${def}`);
      this.compiled.set(def, v);
    }
    return v;
  }

  check(def, value) {
    const v = this.validatorOf(def);
    return v(value) ? null : v.errors;
  }

  /**
   * Validates a transcript: entries {dir: "in"|"out", line} in the order seen.
   * "in" lines (what the client wrote) only serve to know which method each
   * response answers; every "out" line is validated.
   * @returns {{results: object[], failures: object[], counts: Record<string, number>, unanswered: string[]}}
   */
  validateTranscript(entries) {
    const clientRequests = new Map(); // id -> method
    for (const e of entries) {
      if (e.dir !== "in") continue;
      let m;
      try {
        m = JSON.parse(e.line);
      } catch {
        continue;
      }
      if (m && typeof m === "object" && typeof m.method === "string" && "id" in m) {
        clientRequests.set(idKey(m.id), m.method);
      }
    }
    const answered = new Set();
    const results = [];
    let index = 0;
    for (const e of entries) {
      if (e.dir !== "out") continue;
      results.push(this.validateLine(e.line, index++, clientRequests, answered));
    }
    const unanswered = [...clientRequests]
      .filter(([id]) => !answered.has(id))
      .map(([id, method]) => `${method} (id ${id})`);
    const counts = {};
    for (const r of results) counts[r.def] = (counts[r.def] ?? 0) + 1;
    return { results, failures: results.filter((r) => !r.ok), counts, unanswered };
  }

  /** Validates one line the agent wrote. */
  validateLine(line, index, clientRequests, answered) {
    const r = { index, line, kind: "?", method: undefined, def: "?", ok: false, problems: [] };
    let msg;
    try {
      msg = JSON.parse(line);
    } catch (err) {
      r.problems.push(`not JSON: ${err.message}`);
      return r;
    }
    r.problems.push(...jsonRpcProblems(msg));
    if (r.problems.length) return r;

    const envelope = this.check("Agent", msg);
    if (envelope) r.problems.push(`envelope does not match the schema's Agent message: ${this.ajv.errorsText(envelope)}`);

    const params = msg.params ?? null;
    if ("method" in msg) {
      r.method = msg.method;
      const isRequest = "id" in msg;
      r.kind = isRequest ? "request" : "notification";
      if (isExtension(msg.method)) {
        r.def = `extension ${r.kind}`;
      } else {
        const map = isRequest ? this.agent.requests : this.agent.notifications;
        r.def = map.get(msg.method) ?? (isRequest ? undefined : this.agent.protocol.get(msg.method));
        if (!r.def) {
          r.def = `unknown ${r.kind}`;
          r.problems.push(`${msg.method} is not an agent->client ${r.kind} in the ACP v1 schema`);
        } else {
          this.addErrors(r, "params", this.check(r.def, params));
        }
      }
    } else {
      r.kind = "response";
      const key = idKey(msg.id);
      r.method = clientRequests.get(key);
      if (answered.has(key)) r.problems.push(`second response to id ${key}`);
      answered.add(key);
      if (r.method === undefined) {
        r.def = "response to an unknown id";
        r.problems.push(`response to id ${key}, which the client never used for a request`);
      } else if ("error" in msg) {
        r.def = "Error";
        this.addErrors(r, "error", this.check("Error", msg.error));
      } else if (isExtension(r.method)) {
        r.def = "extension response";
      } else {
        r.def = this.agent.responses.get(r.method);
        if (!r.def) {
          r.def = "unknown response";
          r.problems.push(`no response definition for ${r.method} in the ACP v1 schema`);
        } else {
          this.addErrors(r, "result", this.check(r.def, msg.result));
        }
      }
    }
    r.ok = r.problems.length === 0;
    return r;
  }

  addErrors(r, where, errors) {
    if (!errors) return;
    r.errors = errors;
    r.problems.push(`${where} does not match ${r.def}: ${this.ajv.errorsText(errors, { dataVar: where })}`);
  }
}

/** A readable report of the failures of validateTranscript. */
export function formatFailures(failures) {
  return failures
    .map((f) =>
      [
        `message #${f.index} (${f.kind}${f.method ? " " + f.method : ""}) against ${f.def}:`,
        ...f.problems.map((p) => `  - ${p}`),
        ...(f.errors ? [`  ajv errors: ${JSON.stringify(f.errors)}`] : []),
        `  message: ${f.line.length > 2000 ? f.line.slice(0, 2000) + "…" : f.line}`,
      ].join("\n"),
    )
    .join("\n\n");
}
