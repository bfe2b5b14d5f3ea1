// Package demoagent is `acp-bridge demo-agent`: a scripted, offline ACP v1
// agent. It needs no network and no API key. It is the default agent of a
// fresh install, so a newcomer sees the whole flow at once, and it is a test
// double everywhere: its tool calls and permission requests are shaped like
// claude-code-acp 0.16.2's (rawInput shapes of Read, Bash and Edit,
// _meta.claudeCode.toolName, options allow_always / allow / reject).
//
// # What it does
//
// initialize answers protocolVersion 1, no loadSession, promptCapabilities
// embeddedContext (text, resource_link and resource blocks; each context
// block is echoed first as "Context received: resource_link <uri>" or
// "Context received: resource <uri> (N bytes of text)"), sessionCapabilities.list, agentInfo
// {name: "acp-bridge-demo"} and no auth methods. session/new creates a
// session "demo-<uuid>" in mode "default" (modes: default, acceptEdits, plan,
// bypassPermissions). session/set_mode validates the id and sends a
// current_mode_update. session/list returns the sessions of this process.
//
// session/prompt streams a few agent_message_chunk updates, one
// agent_thought_chunk and a plan, then runs four tool calls in order:
//
//	read  kind read     "Read README.md"    Read {file_path}
//	test  kind execute  "`go test ./...`"   Bash {command, description}
//	edit  kind edit     "Edit main.go"      Edit {file_path, old_string, new_string} + diff content
//	rm    kind execute  "`rm -rf build`"    Bash {command}
//
// and, only when asked with only:write, a fifth that really writes:
//
//	write kind edit     "Write demo-write.txt"  Write {file_path, content}: once
//	      allowed, creates demo-write.txt in the session's cwd (for tests that
//	      check an approval's effect on disk)
//
// Each is announced as tool_call (status pending) before its
// session/request_permission. Allowed: tool_call_update in_progress, then
// completed with fake output. Rejected: tool_call_update failed, "Rejected by
// user", and the turn goes on. A cancelled outcome ends the turn. "Always
// Allow" is remembered for the session, per tool (per command for Bash), the
// way a real agent keeps a session rule. The turn ends with end_turn, or
// cancelled after session/cancel.
//
// Modes: bypassPermissions never asks; acceptEdits does not ask for the edit;
// plan does not attempt the edit or the rm (it says so in the text); default
// asks for all four.
//
// # Steering the script from the prompt (for tests)
//
//	only:<name>  run just that tool (read, test, edit or rm); the rest of the
//	             script (text, thought, plan) still runs
//	updates:N    stream N agent_message_chunk updates "chunk 1" … "chunk N"
//	             back to back, and nothing else (no tools)
//	slow         wait 500ms between steps instead of Options.Delay
//
// # Cancellation
//
// session/cancel cancels the session's turn: streaming stops, a pending
// permission request stops being waited for (a $/cancel_request goes to the
// client, which per ACP answers it "cancelled" anyway), and the prompt is
// answered {stopReason: "cancelled"}, never with an error. A $/cancel_request
// for the prompt itself, or the connection closing, does the same.
//
// # Goroutines
//
// The acp.Conn read loop runs HandleNotification (session/cancel: it only
// cancels a context under agent.mu). Every request runs in its own goroutine;
// a prompt's goroutine owns its turn and is the only writer of that turn's
// updates, so updates leave in order and before the prompt's answer.
// agent.mu guards the session table and each session's mode, turn and
// remembered "always" choices.
package demoagent
