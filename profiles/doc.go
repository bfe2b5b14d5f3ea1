// Package profiles knows each agent family: how its tool calls look, and
// how to make it ask.
//
// A Profile (profile.go, one table row per agent: Claude, Gemini CLI, Qwen
// Code, Codex, OpenCode, Goose, Kimi, and a safe generic one) names the
// agent's asking mode ids, the ids an editor may still pick (plan), its
// bypass-like ids, the launch flags and environment that make it ask, the
// flags that turn off a sandbox of its own inside the bridge's OS sandbox
// (ConfinedFlags, Confine: Codex's cannot start there), the state
// directory it gets a private one of inside that sandbox (PrivateHome:
// Codex's CODEX_HOME, Qwen Code's QWEN_HOME), and whether its
// only reject option ends the turn. DetectProfile picks it from
// the agent's command, else its configured family, else its name; the
// bridge keeps every child in its asking mode with it (docs/agents.md).
//
// Normalize turns the tool call of a permission request, or of a
// tool_call / tool_call_update notification, into a canonical policy.Call:
// one table-driven adapter per family (Claude, Codex, Gemini CLI, Goose,
// Kimi, OpenCode) and a safe generic fallback that uses only the ACP kind,
// the title and the locations. DetectFamily picks the family from an
// agent's name and command. Every call's input is then walked for what it
// touches (normalize_touch.go); beside a command, a member that could name
// where it runs or what it runs on is a doubt whatever its key
// (besideCommand, beside.go; docs/policy.md, "The members beside a command").
//
// ToolCallCache remembers, per session, what the agent announced of each
// tool call, so a permission request that carries only a toolCallId is
// judged on the whole call. A cache belongs to one session; its methods are
// called from that child's read loop (Upsert) and from request goroutines
// (Merge), so it has its own mutex.
//
// The package is pure: no I/O, no protocol code, no settings.
package profiles
