// Package profiles knows each agent family: how its tool calls look, and
// (as the agent profiles grow) how to make it ask.
//
// Normalize turns the tool call of a permission request, or of a
// tool_call / tool_call_update notification, into a canonical policy.Call:
// one table-driven adapter per family (Claude, Codex, Gemini CLI, Goose,
// Kimi, OpenCode) and a safe generic fallback that uses only the ACP kind,
// the title and the locations. DetectFamily picks the family from an
// agent's name and command.
//
// ToolCallCache remembers, per session, what the agent announced of each
// tool call, so a permission request that carries only a toolCallId is
// judged on the whole call. A cache belongs to one session; its methods are
// called from that child's read loop (Upsert) and from request goroutines
// (Merge), so it has its own mutex.
//
// The package is pure: no I/O, no protocol code, no settings.
package profiles
