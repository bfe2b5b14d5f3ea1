// The script every fake model API follows (the Gemini, Chat Completions and
// Responses fakes here, and interop/claude's Messages fake): which tool call
// to propose for a request, and when to close with text. The fakes only
// translate it into their wire shape.
//
// A script is either one call (the suite's scenarios: one agent process per
// scenario) or one call per cell (the matrix: one agent process serves many
// turns). A cell is named by a marker in the prompt, `[[cell:NAME]]`; the
// last marker anywhere in a request's body picks the cell, so a turn's
// follow-up requests (which carry the whole conversation) stay in the cell of
// the prompt that started it. Per cell:
//   1. a request carrying the tool result for the cell's call gets the
//      closing text (the fake says how it finds the result in its shape);
//   2. else the first request that offers the call's tool gets the call,
//      once per cell ("proposed once");
//   3. anything else (side queries: titles, next-speaker checks, or a cell
//      with no call) gets the closing text.
// Call ids are unique per cell (`<prefix><cell>`), so a later turn never
// mistakes an earlier cell's result for its own. A request without a marker
// is the cell "" (the one-call script's).

const MARKER = /\[\[cell:([A-Za-z0-9_.-]+)\]\]/g;

/** The marker that puts a prompt in cell name. */
export function cellMarker(name) {
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new Error(`cell name ${JSON.stringify(name)}: letters, digits, _ . - only`);
  return `[[cell:${name}]]`;
}

/** The name of the last cell marker in s, "" if there is none. */
export function lastCell(s) {
  let cell = "";
  for (const m of String(s ?? "").matchAll(MARKER)) cell = m[1];
  return cell;
}

/**
 * @typedef {{name: string, args: object, id?: string, unlisted?: boolean}} Call
 * @typedef {object} Script
 * @property {Call} [call]     the one call of a script without cells (cell "")
 * @property {Record<string, Call>} [cells] a call per cell name
 * @property {string} [finalText] the closing text
 */

export class ScriptedModel {
  /**
   * @param {Script} script
   * @param {{idPrefix?: string, defaultId?: string}} ids the call id of cell
   *   NAME is idPrefix + NAME; the one call's is defaultId (or call.id).
   */
  constructor(script = {}, { idPrefix = "call_fake_", defaultId = "call_fake_1" } = {}) {
    this.finalText = script.finalText ?? "Done: the scripted model has nothing more to do.";
    /** @type {Map<string, {id: string, name: string, args: object}>} */
    this.calls = new Map();
    if (script.call) this.calls.set("", { ...script.call, id: script.call.id ?? defaultId });
    for (const [cell, call] of Object.entries(script.cells ?? {})) {
      cellMarker(cell);
      this.calls.set(cell, { ...call, id: call.id ?? `${idPrefix}${cell}` });
    }
    this.proposed = new Set();
    this.answered = new Set();
    /** The tool results the agent sent back, one per call (the first seen). */
    this.results = [];
  }

  /**
   * Decides one model request.
   * @param {{raw: string, offered: string[], resultFor: (call: {id: string, name: string}) => any}} req
   *   raw: the request body; offered: the tool names it offers; resultFor:
   *   the tool result for call in the request, or undefined.
   * @returns {{cell: string, kind: "call"|"final"|"side", call?: {id: string, name: string, args: object}, result?: any, text?: string}}
   *   kind "final" with a result: the call's result came back.
   */
  next({ raw, offered, resultFor }) {
    const cell = lastCell(raw);
    const call = this.calls.get(cell);
    if (call) {
      const result = resultFor(call);
      if (result !== undefined && result !== null) {
        if (!this.answered.has(call.id)) {
          this.answered.add(call.id);
          this.results.push(result);
        }
        return { cell, kind: "final", result, text: this.finalText };
      }
      // call.unlisted: proposed when the request offers any tool (an agent
      // that defers the tool, as Qwen Code does web_fetch, still runs it).
      if (!this.proposed.has(cell) && (offered.includes(call.name) || (call.unlisted && offered.length > 0))) {
        this.proposed.add(cell);
        return { cell, kind: "call", call };
      }
    }
    return { cell, kind: call && !this.proposed.has(cell) ? "side" : "final", text: this.finalText };
  }

  /** Whether the call of cell was proposed. */
  wasProposed(cell = "") {
    return this.proposed.has(cell);
  }
}
