// A streamed agent turn for the webview benchmark (scripts/bench-webview.mjs)
// and its correctness test (stream.test.mjs): a markdown reply of a given size
// (paragraphs, nested lists, tables, code blocks) cut into chunks of 20–200
// bytes, interleaved with tool calls (tool_call, an in_progress update, a
// completed update with a diff). The ACP session/updates go through the
// extension's own ChatStore (src/model.ts), so the webview gets exactly the
// host messages the extension posts: "item" for new and changed items, "append"
// for each chunk of the message being streamed. Importing this file has no side
// effects (node --test runs every .mjs under test/).
import * as esbuild from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

let modelPromise;
/** The extension's ChatStore, bundled on the fly (it is pure TypeScript). */
function loadModel() {
  modelPromise ??= esbuild
    .build({ entryPoints: [join(root, "src", "model.ts")], bundle: true, format: "esm", platform: "neutral", write: false, logLevel: "warning" })
    .then((r) => import(`data:text/javascript;base64,${Buffer.from(r.outputFiles[0].text).toString("base64")}`));
  return modelPromise;
}

/** A small deterministic PRNG (LCG), so runs see the same workload. */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const WORDS = "the bridge policy rule session agent editor approval tool call diff stream chunk render frame block table list code file path mode deny allow ask read write test build".split(" ");

/** Markdown of at least `bytes` characters, ending with a paragraph that holds `sentinel`. */
export function replyText(bytes, seed, sentinel) {
  const r = rng(seed);
  const pick = (a) => a[Math.floor(r() * a.length)];
  const words = (n) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const parts = [];
  let size = 0;
  let i = 0;
  while (size < bytes) {
    let b;
    switch (i++ % 6) {
      case 0:
        b = `## Step ${i}\n\n${words(20)} \`${pick(WORDS)}()\` ${words(15)} **${pick(WORDS)}** and [docs](https://example.com/${pick(WORDS)}).\n${words(25)}.\n`;
        break;
      case 1:
        b = `- ${words(6)}\n- ${words(8)}\n  - ${words(5)}\n  - ${words(7)}\n    1. ${words(4)}\n    2. ${words(4)}\n- ${words(6)}\n`;
        break;
      case 2: {
        const rows = Array.from({ length: 5 }, (_, k) => `| ${pick(WORDS)}.go | ${k * 17} | ${words(3)} |`).join("\n");
        b = `| file | lines | note |\n|---|--:|---|\n${rows}\n`;
        break;
      }
      case 3: {
        const lines = Array.from({ length: 8 + Math.floor(r() * 24) }, (_, k) => `  const ${pick(WORDS)}${k} = ${pick(WORDS)}(${k}); // ${words(3)}`).join("\n");
        b = `\`\`\`ts\nfunction ${pick(WORDS)}() {\n${lines}\n}\n\`\`\`\n`;
        break;
      }
      case 4:
        b = `> ${words(18)}\n> ${words(10)}\n`;
        break;
      default:
        b = `${words(40)}, ${words(30)}.\n`;
    }
    parts.push(b);
    size += b.length + 1;
  }
  parts.push(`Done: ${sentinel}.\n`);
  return parts.join("\n");
}

/** Cuts text into chunks of 20–200 characters. */
export function chunks(text, seed) {
  const r = rng(seed + 1);
  const out = [];
  for (let i = 0; i < text.length; ) {
    const n = 20 + Math.floor(r() * 181);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

function fileText(lines, tag) {
  return Array.from({ length: lines }, (_, k) => `line ${k}: ${tag} ${WORDS[k % WORDS.length]}`).join("\n") + "\n";
}

/**
 * The host messages of one turn: { state, messages, text, sentinel, tools }.
 * state is the "state" snapshot before the turn (a chat with the user's prompt);
 * messages are what the extension posts during the turn, in order.
 */
export async function turnMessages({ bytes = 2 << 20, tools = 300, seed = 1 } = {}) {
  const { ChatStore } = await loadModel();
  let sink = [];
  const store = new ChatStore((m) => sink.push(m));
  const chat = store.createChat("demo", "default", { sessionId: "S1", title: "bench" });
  store.addUserMessage(chat.chatId, "Write the report.");
  store.updateChat(chat.chatId, { busy: true });
  const snap = store.snapshot();
  const state = {
    type: "state",
    bridge: { status: "running", version: "acp-bridge bench" },
    agents: [{ id: "demo", name: "Demo", status: "running", mode: "default" }],
    defaultAgent: "demo",
    modes: ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"],
    chats: snap.chats,
    activeChatId: snap.activeChatId,
  };
  sink = [];
  const sentinel = `END-OF-REPLY-${seed}`;
  const text = replyText(bytes, seed, sentinel);
  const cs = chunks(text, seed);
  // Tool i starts after chunk start[i]; its in_progress and completed updates follow a few chunks later.
  const events = new Map();
  const at = (k, f) => {
    const list = events.get(k) ?? [];
    list.push(f);
    events.set(k, list);
  };
  const update = (u) => store.applySessionUpdate("S1", u);
  for (let i = 0; i < tools; i++) {
    const k = Math.min(cs.length - 4, Math.floor(((i + 0.5) * cs.length) / (tools + 0.5)));
    const id = `tc-${i}`;
    const path = `/w/src/file${i}.ts`;
    const oldText = fileText(60, "old");
    const newText = oldText.replace("line 10: old", "line 10: new").replace("line 30: old", "line 30: new") + "line 60: added\n";
    at(k, () => update({ sessionUpdate: "tool_call", toolCallId: id, title: `Edit file${i}.ts`, kind: "edit", status: "pending", rawInput: { file_path: path } }));
    at(Math.min(cs.length - 4, k + 2), () => update({ sessionUpdate: "tool_call_update", toolCallId: id, status: "in_progress", locations: [{ path, line: 10 }] }));
    at(Math.min(cs.length - 4, k + 5), () =>
      update({ sessionUpdate: "tool_call_update", toolCallId: id, status: "completed", content: [{ type: "diff", path, oldText, newText }] }),
    );
  }
  for (let k = 0; k < cs.length; k++) {
    update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: cs[k] } });
    for (const f of events.get(k) ?? []) f();
  }
  return { state, messages: sink, text, sentinel, tools, chunks: cs.length, chatId: chat.chatId };
}
